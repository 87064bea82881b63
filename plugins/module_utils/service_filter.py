# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Which services a list keeps: the API's tag filter (``filter=tag:Key=Value``, ``filter=tag:Key`` for the key with
any value, sent with the list request), used by service_info and the inventory plugin, and the inventory plugin's
own filters (state, tier, provider, region, name pattern). Pure functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from fnmatch import fnmatchcase

from ansible_collections.engine.cloud.plugins.module_utils.cloud import TERMINAL
from ansible_collections.engine.cloud.plugins.module_utils.service_rules import check_tags

# The fields the inventory plugin matches itself: each a value or a list of values (any of them).
FIELDS = ('state', 'tier', 'provider', 'region')
FILTERS = FIELDS + ('name', 'tags')


def check_tag_filter(option, tags):
    """(tags with string values, [error messages]): a dict of tag key to value, where null means the key with
    any value; keys and values as tags have them (service.check_tags)."""
    if tags is None:
        return {}, []
    if not isinstance(tags, dict):
        return {}, ['%s must be a dict of tag key to value (null for any value), got %r' % (option, tags)]
    return check_tags(option, tags, null='any value')


def tag_query(tags):
    """The list request's query parameters for tags (from check_tag_filter): one filter per tag, in key order."""
    return [('filter', 'tag:%s' % key if value is None else 'tag:%s=%s' % (key, value)) for key, value in sorted(tags.items())]


def has_tags(service, tags):
    """Whether the service has every tag of tags (a null value: the key with any value). The clients check what the
    filtered list holds again: the reference does not say whether several filters are ANDed or ORed."""
    own = dict((tag.get('key'), tag.get('value')) for tag in service.get('tags') or [])
    return all(key in own and (value is None or own[key] == value) for key, value in tags.items())


def check_filters(option, filters):
    """(filters with a list for every field and name, [error messages]) for the inventory plugin's option."""
    if filters is None:
        return {}, []
    if not isinstance(filters, dict):
        return {}, ['%s must be a dict (keys: %s), got %r' % (option, ', '.join(FILTERS), filters)]
    checked, errors = {}, []
    for key in sorted(filters, key=str):
        value = filters[key]
        if key not in FILTERS:
            errors.append('%s.%s is not a filter: use %s' % (option, key, ', '.join(FILTERS)))
        elif key == 'tags':
            checked[key], tag_errors = check_tag_filter('%s.tags' % option, value)
            errors.extend(tag_errors)
        elif value is not None:
            values = value if isinstance(value, list) else [value]
            what = 'a pattern or a non-empty list of patterns' if key == 'name' else 'a value or a non-empty list of values'
            if not values or not all(isinstance(item, str) and item for item in values):
                errors.append('%s.%s must be %s (strings), got %r' % (option, key, what, value))
            else:
                checked[key] = [str(item) for item in values]
    return checked, errors


def matches(service, filters):
    """Whether the service passes every filter of check_filters: each field one of its values, the name one of
    the fnmatch patterns (case-sensitive, the whole name), and every tag."""
    return (all(service.get(field) in filters[field] for field in FIELDS if field in filters)
            and ('name' not in filters or any(fnmatchcase(service.get('name') or '', pattern) for pattern in filters['name']))
            and has_tags(service, filters.get('tags') or {}))


def deleted(service):
    """Whether a listed service is deleted or being deleted (terminating, terminated, softdeleting, softdeleted): the
    list may show it for a while; it takes no command, and the inventory plugin makes no host of it by default."""
    return service.get('state') in TERMINAL
