# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Normalised comparison, diffs of exactly the differing keys, and secret masking."""

import functools
import json
import re

MASK = '********'
# Field names whose values are credentials wherever they appear in a resource.
_SECRET_WORDS = r'(?:secret|password|passwd|token|connection_?string|private_?key|credential)'
_SECRET_NAME = re.compile(_SECRET_WORDS, re.I)
# A secret-named field in JSON text or a Python repr, also cut off or escaped inside a string:
# "connectionString": "..." (the closing quote may be missing), \"apiToken\": \"...\", 'token': '...'
_SECRET_FIELD_TEXT = re.compile(r'''(\\*(["'])[^"'\\]*%s[^"'\\]*\\*\2\s*:\s*)\\*(["'])(?:(?!\3)[^\\])*(?:\\*\3)?''' % _SECRET_WORDS, re.I)
_NUMBER = re.compile(r'^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$')


# A list held by a field of ORDERED_LISTS (its API or option name, wherever it sits) is compared in order; every other
# list is a set (SET_LISTS names them), compared in any order. test_compare.py checks that every list option of every
# module is in exactly one of the two. Sorting keys are ORDER BY column lists; a chart's series give its rows' series_0,
# series_1 ... by position, and its group_by must be the same in every series; a search tile's fields are its columns.
ORDERED_LISTS = frozenset(('sortingKey', 'sorting_key', 'sortingKeys', 'sorting_keys', 'series', 'groupBy', 'group_by', 'fields', 'containers'))
SET_LISTS = frozenset((
    'ipAccessList', 'ip_access_list', 'privateEndpointIds', 'private_endpoint_ids', 'tags', 'endpoints', 'columns',
    'fieldMappings', 'field_mappings', 'roles', 'columnIds', 'column_ids', 'reversePrivateEndpointIds',
    'reverse_private_endpoint_ids', 'tableMappings', 'table_mappings', 'excludedColumns', 'excluded_columns', 'channels',
    'tiles', 'services', 'pipes', 'dashboards', 'alerts', 'resources',
))


def is_ordered(field):
    return field is not None and str(field).rsplit('.', 1)[-1] in ORDERED_LISTS


def normalize(value, ordered=False):
    """A form in which equal meanings compare equal: numeric strings become numbers, lists are sorted unless ordered or
    held by a field of ORDERED_LISTS."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return int(value) if float(value).is_integer() else float(value)
    if isinstance(value, str):
        return normalize(float(value.strip())) if _NUMBER.match(value.strip()) else value
    if isinstance(value, dict):
        return dict((key, normalize(item, is_ordered(key))) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        items = [normalize(item) for item in value]
        return items if ordered else sorted(items, key=_canonical)
    return value


def _canonical(value):
    return json.dumps(value, sort_keys=True, default=str)


def equal(left, right, field=None):
    """Whether left and right mean the same; field names what holds them. As JSON, so that True and 1 stay different."""
    ordered = is_ordered(field)
    return _canonical(normalize(left, ordered)) == _canonical(normalize(right, ordered))


def changes(current, desired):
    """The entries of desired (None: not asked for) whose value differs from current's."""
    return dict((key, value) for key, value in desired.items()
                if value is not None and not equal(current.get(key), value))


def diff(before, after):
    """Ansible's diff of the keys after names, both sides masked."""
    return dict(before=mask_secrets(dict((key, before.get(key)) for key in after)),
                after=mask_secrets(dict(after)))


def non_empty(**fields):
    return dict((key, value) for key, value in fields.items() if value)


def merge_diffs(diffs):
    """One diff of several steps' diffs (None: no change)."""
    taken = [item for item in diffs if item is not None]
    if not taken:
        return None
    return dict((side, dict(pair for item in taken for pair in item[side].items())) for side in ('before', 'after'))


# Results repeat the same few keys thousands of times (10 000 chart rows): the verdict is kept per key.
@functools.lru_cache(maxsize=None)
def is_secret_name(name):
    return bool(_SECRET_NAME.search(name))


def mask_secrets(value):
    if isinstance(value, dict):
        masked = {}
        for key, item in value.items():
            if is_secret_name(key) and item not in (None, ''):
                masked[key] = MASK
            elif isinstance(item, (dict, list)):
                masked[key] = mask_secrets(item)
            else:
                masked[key] = item
        return masked
    if isinstance(value, list):
        return [mask_secrets(item) if isinstance(item, (dict, list)) else item for item in value]
    return value


def mask_secret_text(text):
    """text (an error body, a body that is not valid JSON) with the value of every secret-named field masked, however
    the text is cut."""
    return _SECRET_FIELD_TEXT.sub(lambda match: '%s"%s"' % (match.group(1), MASK), text)


def secret_values(value, found=None):
    """Every secret-named string inside value, to keep out of logs."""
    if found is None:
        found = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                if item and is_secret_name(key):
                    found.add(item)
            elif isinstance(item, (dict, list)):
                secret_values(item, found)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                secret_values(item, found)
    return found
