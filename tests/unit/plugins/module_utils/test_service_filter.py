# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The tag filter of the list (checks, query, the check of the answer) and the inventory plugin's own filters."""

import pytest
from hypothesis import given, strategies as st

from ansible_collections.engine.cloud.plugins.module_utils.service_filter import (
    check_filters, check_tag_filter, has_tags, matches, tag_query)

TAG_TEXT = st.text(alphabet='abcXYZ019._-', min_size=1, max_size=12)
SERVICE = {'name': 'ingest-eu', 'state': 'running', 'tier': 'production', 'provider': 'azure', 'region': 'germanywestcentral',
           'tags': [{'key': 'team', 'value': 'ingest'}, {'key': 'gdpr'}]}


@given(st.dictionaries(TAG_TEXT, st.none() | TAG_TEXT, max_size=5))
def test_good_tags_pass_unchanged_and_give_one_filter_per_tag_in_key_order(tags):
    checked, errors = check_tag_filter('tags', tags)
    assert errors == [] and checked == tags
    query = tag_query(checked)
    assert [name for name, dummy in query] == ['filter'] * len(tags)
    assert [value for dummy, value in query] == ['tag:%s' % key if tags[key] is None else 'tag:%s=%s' % (key, tags[key]) for key in sorted(tags)]


def test_an_integer_value_is_its_digits_and_a_bool_is_refused():
    assert check_tag_filter('tags', {'n': 7, 'b': False}) == (
        {'n': '7'}, ['tags.b must be 1 to 256 letters, digits, dots, underscores or hyphens, or null for any value, got False'])


@pytest.mark.parametrize('service, tags, expected', [
    (SERVICE, {'team': 'ingest'}, True), (SERVICE, {'gdpr': None}, True), (SERVICE, {'team': None, 'gdpr': None}, True),
    (SERVICE, {'gdpr': 'yes'}, False), (SERVICE, {'team': 'Ingest'}, False), (SERVICE, {'team': 'ingest', 'env': None}, False),
    (SERVICE, {}, True), ({'tags': None}, {}, True), ({}, {'team': None}, False),
])
def test_has_tags(service, tags, expected):
    assert has_tags(service, tags) is expected


@pytest.mark.parametrize('filters, expected', [
    (dict(state='running'), True), (dict(state=['stopped', 'idle']), False), (dict(tier='production', provider=['aws', 'azure']), True),
    (dict(region='eu-central-1'), False), (dict(name='ingest-*'), True), (dict(name='ingest-?'), False), (dict(name=['x', 'in*eu']), True),
    (dict(name='INGEST-*'), False), (dict(tags={'gdpr': None}, state='running'), True), (dict(tags={'team': 'events'}), False), ({}, True),
])
def test_matches(filters, expected):
    checked, errors = check_filters('filters', filters)
    assert errors == [] and matches(SERVICE, checked) is expected


def test_check_filters_lists_single_values_and_drops_nulls():
    assert check_filters('filters', dict(state='running', tier=None, name=['a*'], tags=None)) == (
        dict(state=['running'], name=['a*'], tags={}), [])
    assert check_filters('filters', None) == ({}, [])
