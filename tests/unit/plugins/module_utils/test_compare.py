# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import re

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.engine.cloud.plugins.module_utils import compare


@pytest.mark.parametrize('left, right, same', [(left, right, True) for left, right in [
    (3, '3'), (3, 3.0), ('24', 24.0), ('1e3', 1000), (['a', 'b'], ['b', 'a']), ({'a': [1, '2']}, {'a': ['2', 1]}),
    ([{'source': '10.0.0.1', 'description': 'x'}, {'source': '10.0.0.2', 'description': 'y'}],
     [{'description': 'y', 'source': '10.0.0.2'}, {'source': '10.0.0.1', 'description': 'x'}]),
]] + [(left, right, False) for left, right in [
    (3, '4'), ('abc', 'abd'), (True, 1), (False, 0), (None, 0), (None, ''),
    (['a'], ['a', 'a']), ([{'source': 'x', 'description': 'a'}], [{'source': 'x', 'description': 'b'}]),
]])
def test_equal_meanings_compare_equal_and_different_ones_differ(left, right, same):
    assert compare.equal(left, right) is same


def test_diff_has_exactly_the_changed_keys_and_masks_secrets():
    before = {'name': 'a', 'numReplicas': 3, 'connectionString': 'AccountKey=abc'}
    result = compare.diff(before, {'name': 'b', 'connectionString': 'AccountKey=def'})
    assert result == {'before': {'name': 'a', 'connectionString': compare.MASK},
                      'after': {'name': 'b', 'connectionString': compare.MASK}}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12)


@given(json_values)
def test_normalize_is_idempotent(value):
    assert compare.normalize(compare.normalize(value)) == compare.normalize(value)


KEYED = st.dictionaries(st.sampled_from(['a', 'b', 'c', 'd']), json_values)


@given(KEYED, KEYED)
def test_changes_hold_only_what_differs_and_writing_them_makes_desired_hold(current, desired):
    changed = compare.changes(current, desired)
    assert set(changed) <= set(key for key, value in desired.items() if value is not None)
    for key, value in desired.items():
        if value is not None and key not in changed:
            assert compare.equal(current.get(key), value)
    assert compare.changes(dict(current, **changed), desired) == {}


@given(KEYED, KEYED)
def test_diff_has_the_keys_of_the_change_on_both_sides(before, after):
    result = compare.diff(before, after)
    assert set(result['before']) == set(result['after']) == set(after)


@given(json_values, json_values, st.lists(json_values, max_size=6), st.randoms())
def test_equal_is_symmetric_and_reflexive_and_list_order_never_matters(value, other, items, rnd):
    assert compare.equal(value, value)
    assert compare.equal(value, other) == compare.equal(other, value)
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert compare.equal(items, shuffled)


ORDERED = ['sortingKey', 'sorting_keys', 'destination.table_definition.sorting_key', 'series', 'group_by']
SETS = [None, 'columns', 'ipAccessList', 'source.kafka.reverse_private_endpoint_ids', 'channels']


@pytest.mark.parametrize('field', ORDERED + SETS)
def test_an_ordered_list_compares_in_order_and_a_set_in_any_order(field):
    assert compare.equal(['b', 'a'], ['a', 'b'], field=field) is (field in SETS)
    assert compare.equal(['a', 'b'], ['a', 'b'], field=field)


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


# mask_secrets and secret_values walk every result (10 000 chart rows, 5 000 alerts), so they take fast paths (a verdict
# per key name, no call per scalar). These tests hold them to the plain recursive definitions below, the specification.
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
