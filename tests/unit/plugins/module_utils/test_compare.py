# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from hypothesis import given, strategies as st

from ansible_collections.engine.cloud.plugins.module_utils import compare


@pytest.mark.parametrize('left,right', [
    (3, '3'), (3, 3.0), ('24', 24.0), ('1e3', 1000),
    (['a', 'b'], ['b', 'a']),
    ([{'source': '10.0.0.1', 'description': 'x'}, {'source': '10.0.0.2', 'description': 'y'}],
     [{'description': 'y', 'source': '10.0.0.2'}, {'source': '10.0.0.1', 'description': 'x'}]),
    ({'a': [1, '2']}, {'a': ['2', 1]}),
])
def test_equal_meanings_compare_equal(left, right):
    assert compare.equal(left, right)


@pytest.mark.parametrize('left,right', [
    (3, '4'), ('abc', 'abd'), (True, 1), (False, 0), (None, 0), (None, ''),
    (['a'], ['a', 'a']), ([{'source': 'x', 'description': 'a'}], [{'source': 'x', 'description': 'b'}]),
])
def test_different_meanings_differ(left, right):
    assert not compare.equal(left, right)


def test_changes_skip_unrequested_and_equal_keys():
    current = {'name': 'svc', 'numReplicas': 3, 'idleScaling': True, 'idleTimeoutMinutes': 15}
    desired = {'name': 'svc', 'numReplicas': '3', 'idleScaling': False, 'idleTimeoutMinutes': None}
    assert compare.changes(current, desired) == {'idleScaling': False}


def test_diff_has_exactly_the_changed_keys_and_masks_secrets():
    before = {'name': 'a', 'numReplicas': 3, 'connectionString': 'AccountKey=abc'}
    result = compare.diff(before, {'name': 'b', 'connectionString': 'AccountKey=def'})
    assert result == {'before': {'name': 'a', 'connectionString': compare.MASK},
                      'after': {'name': 'b', 'connectionString': compare.MASK}}


def test_mask_secrets_is_recursive_and_keeps_other_fields():
    pipe = {'name': 'p', 'source': {'objectStorage': {'connectionString': 'AccountKey=abc', 'url': 'https://x'}},
            'list': [{'api_token': 't', 'password': '', 'keyId': 'k'}]}
    masked = compare.mask_secrets(pipe)
    assert masked['source']['objectStorage'] == {'connectionString': compare.MASK, 'url': 'https://x'}
    assert masked['list'] == [{'api_token': compare.MASK, 'password': '', 'keyId': 'k'}]
    assert pipe['source']['objectStorage']['connectionString'] == 'AccountKey=abc'


def test_secret_values_finds_nested_strings():
    pipe = {'source': {'objectStorage': {'connectionString': 'AccountKey=abc'}}, 'x': [{'clientSecret': 's3'}]}
    assert compare.secret_values(pipe) == {'AccountKey=abc', 's3'}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12)


@given(json_values)
def test_normalize_is_idempotent(value):
    assert compare.normalize(compare.normalize(value)) == compare.normalize(value)


@given(st.lists(json_values, max_size=6), st.randoms())
def test_list_order_never_matters(items, rnd):
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert compare.equal(items, shuffled)


@given(st.dictionaries(st.sampled_from(['a', 'b', 'c', 'd']), json_values), st.dictionaries(st.sampled_from(['a', 'b', 'c', 'd']), json_values))
def test_applying_changes_makes_desired_hold(current, desired):
    wanted = compare.changes(current, desired)
    updated = dict(current)
    updated.update(wanted)
    assert compare.changes(updated, desired) == {}
    assert all(compare.equal(updated[key], value) for key, value in desired.items() if value is not None)


@given(json_values)
def test_masking_leaves_no_secret_value(value):
    wrapped = {'connectionString': 'AccountKey=zz9', 'inner': [value, {'api_key_secret': 'sek-1'}]}
    masked = repr(compare.mask_secrets(wrapped))
    assert 'AccountKey=zz9' not in masked and 'sek-1' not in masked


@pytest.mark.parametrize('field', ['sortingKey', 'sorting_keys', 'destination.table_definition.sorting_key', 'series', 'group_by'])
def test_an_ordered_list_compares_in_order(field):
    assert not compare.equal(['b', 'a'], ['a', 'b'], field=field)
    assert compare.equal(['a', 'b'], ['a', 'b'], field=field)


@pytest.mark.parametrize('field', [None, 'columns', 'ipAccessList', 'source.kafka.reverse_private_endpoint_ids', 'channels'])
def test_a_set_compares_in_any_order(field):
    assert compare.equal(['b', 'a'], ['a', 'b'], field=field)


def test_an_ordered_list_inside_a_resource_keeps_its_order_and_its_neighbours_do_not():
    current = {'tableDefinition': {'sortingKey': ['day', 'id']}, 'columns': [{'name': 'id'}, {'name': 'day'}]}
    assert compare.equal(current, {'tableDefinition': {'sortingKey': ['day', 'id']}, 'columns': [{'name': 'day'}, {'name': 'id'}]})
    assert not compare.equal(current, {'tableDefinition': {'sortingKey': ['id', 'day']}, 'columns': [{'name': 'id'}, {'name': 'day'}]})
    mappings = [{'sourceTable': 'b', 'sortingKeys': ['x', 'y']}, {'sourceTable': 'a', 'sortingKeys': ['y', 'x']}]
    assert compare.equal(mappings, list(reversed(mappings)))
    assert not compare.equal(mappings, [{'sourceTable': 'b', 'sortingKeys': ['y', 'x']}, mappings[1]])


def _list_options(options, path=''):
    for name, option in (options or {}).items():
        if option.get('type') == 'list':
            yield name, path + name
        yield from _list_options(option.get('suboptions'), path + name + '.')


def _documented_list_options():
    import os
    import yaml
    from ansible_collections.engine.cloud.plugins.doc_fragments.chart_series import ModuleDocFragment
    root = os.path.dirname(compare.__file__).replace(os.path.join('plugins', 'module_utils'), os.path.join('plugins', 'modules'))
    docs = [('chart_series fragment', yaml.safe_load(ModuleDocFragment.DOCUMENTATION))]
    for name in sorted(os.listdir(root)):
        if name.endswith('.py') and not name.startswith('_'):
            module = __import__('ansible_collections.engine.cloud.plugins.modules.' + name[:-3], fromlist=['DOCUMENTATION'])
            docs.append((name, yaml.safe_load(module.DOCUMENTATION)))
    return [(source, name, path) for source, doc in docs for name, path in _list_options(doc.get('options'))]


def test_every_list_option_is_named_ordered_or_a_set_in_one_place():
    """A new list option must be named in compare.ORDERED_LISTS or compare.SET_LISTS (and in only one)."""
    found = _documented_list_options()
    assert ('pipe.py', 'sorting_key', 'destination.table_definition.sorting_key') in found
    assert [item for item in found if (item[1] in compare.ORDERED_LISTS) == (item[1] in compare.SET_LISTS)] == []
    assert not compare.ORDERED_LISTS & compare.SET_LISTS
