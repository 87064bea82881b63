# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Which services a list keeps: the API's tag filter (``filter=tag:Key=Value``, ``filter=tag:Key`` for any value) of
service_info and the inventory plugin, and the inventory plugin's own filters. Pure functions."""

from fnmatch import fnmatchcase

from ansible_collections.engine.cloud.plugins.module_utils.cloud import TERMINAL
from ansible_collections.engine.cloud.plugins.module_utils.service_rules import check_tags

FIELDS = ('state', 'tier', 'provider', 'region')
FILTERS = FIELDS + ('name', 'tags')


def check_tag_filter(option, tags):
    """(tags with string values, [error messages]): tag key to value, null for the key with any value."""
    if tags is None:
        return {}, []
    if not isinstance(tags, dict):
        return {}, ['%s must be a dict of tag key to value (null for any value), got %r' % (option, tags)]
    return check_tags(option, tags, null='any value')


def tag_query(tags):
    return [('filter', 'tag:%s' % key if value is None else 'tag:%s=%s' % (key, value)) for key, value in sorted(tags.items())]


def has_tags(service, tags):
    """Whether the service has every tag of tags. The clients check the filtered list again: the reference does not say
    whether several filters are ANDed or ORed."""
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
    """Whether the service passes every filter: each field one of its values, the name one of the fnmatch patterns
    (case-sensitive, the whole name), and every tag."""
    return (all(service.get(field) in filters[field] for field in FIELDS if field in filters)
            and ('name' not in filters or any(fnmatchcase(service.get('name') or '', pattern) for pattern in filters['name']))
            and has_tags(service, filters.get('tags') or {}))


def deleted(service):
    """Whether a listed service is deleted or being deleted: the inventory plugin makes no host of it by default."""
    return service.get('state') in TERMINAL
