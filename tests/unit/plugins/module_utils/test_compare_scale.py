# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""mask_secrets and secret_values walk every result (10 000 chart rows, 5 000 alerts), so they take
fast paths (a verdict per key name, no call per scalar). These tests hold the fast versions to the
plain recursive definitions below, which are the specification."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from hypothesis import given, settings, strategies as st

from ansible_collections.engine.cloud.plugins.module_utils import compare

SECRET = re.compile(r'(secret|password|passwd|token|connection_?string|private_?key|credential)', re.I)


def reference_mask(value):
    if isinstance(value, dict):
        return dict((key, compare.MASK if SECRET.search(key) and item not in (None, '') else reference_mask(item))
                    for key, item in value.items())
    if isinstance(value, list):
        return [reference_mask(item) for item in value]
    return value


def reference_secrets(value):
    found = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if SECRET.search(key) and isinstance(item, str) and item:
                found.add(item)
            else:
                found.update(reference_secrets(item))
    elif isinstance(value, list):
        for item in value:
            found.update(reference_secrets(item))
    return found


keys = st.sampled_from(['id', 'name', 'connectionString', 'connection_string', 'apiToken', 'password', 'Secret',
                        'privateKey', 'credentials', 'state', 'tokenized', 'series_0.data', ''])
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.sampled_from(['', 'x', 's3cr3t']), st.text())
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=5)),
                      max_leaves=30)


@settings(max_examples=300)
@given(values)
def test_mask_secrets_matches_the_plain_definition(value):
    assert compare.mask_secrets(value) == reference_mask(value)


@settings(max_examples=300)
@given(values)
def test_secret_values_matches_the_plain_definition(value):
    assert compare.secret_values(value) == reference_secrets(value)


def test_mask_secrets_returns_copies_not_the_input():
    value = {'rows': [{'a': 1}], 'inner': {'token': 't'}}
    masked = compare.mask_secrets(value)
    assert masked['rows'] is not value['rows'] and masked['rows'][0] is not value['rows'][0]
    assert value['inner']['token'] == 't' and masked['inner']['token'] == compare.MASK


class CountingPattern:
    """The secret-name pattern, counting how often it is asked."""

    def __init__(self, pattern):
        self.pattern, self.searches = pattern, 0

    def search(self, text):
        self.searches += 1
        return self.pattern.search(text)


def test_walking_ten_thousand_rows_asks_once_per_key_name(monkeypatch):
    """The fast path, counted rather than timed (a timing fails on a slow machine): the key names are judged once
    each, however many rows repeat them (the plain walk asks 140 000 times here)."""
    rows = [{'ts_bucket': 1727740800000 + index * 60000, 'group': [], 'series_0.data': index, 'series_1.data': 1.5,
             'series_2.data': 2.5, 'series_3.data': 3.5, 'series_4.data': 4.5} for index in range(10000)]
    pattern = CountingPattern(compare._SECRET_NAME)
    monkeypatch.setattr(compare, '_SECRET_NAME', pattern)
    compare.is_secret_name.cache_clear()
    compare.secret_values({'data': rows})
    compare.mask_secrets({'rows': rows})
    assert pattern.searches == compare.is_secret_name.cache_info().currsize <= len(set(['data', 'rows']) | set(rows[0]))
