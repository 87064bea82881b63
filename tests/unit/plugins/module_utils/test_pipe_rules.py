# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pipe_rules, pipe_settings

# The contract's table, written out again on purpose: a change to pipe_settings.SETTINGS must show here.
CONTRACT = {
    'streaming_max_insert_wait_ms': (500, 60000),
    'object_storage_concurrency': (1, 35),
    'object_storage_polling_interval_ms': (100, 3600000),
    'object_storage_max_insert_bytes': (10485760, 53687091200),
    'object_storage_max_file_count': (1, 10000),
    'engine_max_threads': (0, 64),
    'engine_max_insert_threads': (0, 16),
    'engine_min_insert_block_size_bytes': (0, 10737418240),
    'engine_max_download_threads': (0, 32),
    'engine_parallel_distributed_insert_select': (0, 2),
}
BOOLEANS = ('object_storage_use_cluster_function', 'engine_parallel_view_processing')
INTEGERS = sorted(CONTRACT)


def test_the_table_has_exactly_the_twelve_contract_settings():
    assert set(pipe_settings.SETTINGS) == set(CONTRACT) | set(BOOLEANS)
    for name, (low, high) in CONTRACT.items():
        assert pipe_settings.SETTINGS[name][:3] == ('int', low, high)
        assert pipe_settings.SETTINGS[name][3] is None if name == 'object_storage_concurrency' else low <= pipe_settings.SETTINGS[name][3] <= high
    for name in BOOLEANS:
        assert pipe_settings.SETTINGS[name][0] == 'bool'
    for name in pipe_settings.SETTINGS:
        assert pipe_settings.check_setting(name, None) == (None, None)  # null is always valid


@pytest.mark.parametrize('name', INTEGERS)
def test_both_bounds_are_accepted_and_one_past_each_is_refused(name):
    low, high = CONTRACT[name]
    assert pipe_settings.check_setting(name, low) == (low, None)
    assert pipe_settings.check_setting(name, high) == (high, None)
    for bad in (low - 1, high + 1):
        value, error = pipe_settings.check_setting(name, bad)
        assert value is None
        assert error == 'settings.%s must be between %s and %s, got %d' % (name, low, high, bad)


@pytest.mark.parametrize('bad', [True, False, 1.5, 2.0, '1.5', 'ten', [], {}])
def test_integer_settings_refuse_other_types(bad):
    value, error = pipe_settings.check_setting('engine_max_threads', bad)
    assert value is None
    assert error.startswith('settings.engine_max_threads must be an integer between 0 and 64 or null, got ')


@pytest.mark.parametrize('name', BOOLEANS)
def test_boolean_settings(name):
    assert pipe_settings.check_setting(name, True) == (True, None)
    assert pipe_settings.check_setting(name, 'False') == (False, None)
    for bad in (1, 0, 'yes', 'on', 2.0):
        assert pipe_settings.check_setting(name, bad) == (None, 'settings.%s must be true, false or null, got %r' % (name, bad))


def test_unknown_key_lists_all_valid_keys():
    checked, errors = pipe_settings.check_settings({'engine_max_thread': 3, 'engine_max_threads': 99})
    assert checked == {}
    assert len(errors) == 2
    assert "unknown key 'engine_max_thread'" in errors[0]
    for name in pipe_settings.SETTINGS:
        assert name in errors[0]
    assert errors[1] == 'settings.engine_max_threads must be between 0 and 64, got 99'


def test_strings_from_templating_become_the_api_s_types():
    assert pipe_settings.check_settings({'engine_max_threads': ' 64 ', 'engine_parallel_view_processing': 'true',
                                         'object_storage_concurrency': None}) == (
        {'engine_max_threads': 64, 'engine_parallel_view_processing': True, 'object_storage_concurrency': None}, [])
    assert pipe_settings.check_setting('engine_max_threads', '65')[1] == 'settings.engine_max_threads must be between 0 and 64, got 65'


WAIT_MS, CONCURRENCY, CLUSTER = 'streaming_max_insert_wait_ms', 'object_storage_concurrency', 'object_storage_use_cluster_function'


@pytest.mark.parametrize('name, current, wanted, differs', [
    (WAIT_MS, None, None, False),   # at the default, asked for the default
    (WAIT_MS, 5000, None, False),   # the default value counts as "at the default"
    (WAIT_MS, None, 5000, False),   # asking for the default value when null is shown
    (WAIT_MS, 2000, None, True),    # back to the default
    (WAIT_MS, None, 2000, True),
    (WAIT_MS, 2000, 2000, False),
    (WAIT_MS, 2000, 3000, True),
    (CONCURRENCY, None, None, False),
    (CONCURRENCY, 1, None, True),   # no published default: only null is "at the default"
    (CONCURRENCY, None, 1, True),
    (CONCURRENCY, 1, 1, False),
    (CONCURRENCY, 4, 1, True),
    (CLUSTER, None, True, False), (CLUSTER, False, None, True),   # default true
    (CLUSTER, None, False, True), ('engine_max_insert_threads', True, 1, False), ('engine_max_threads', 1, 2, True),
])
def test_null_and_default_mean_the_same(name, current, wanted, differs):
    assert pipe_settings.settings_plan({name: current}, {name: wanted})[0] == ({name: wanted} if differs else {})


def test_only_requested_keys_are_compared_and_predicted_settings_show_defaults_for_nulls():
    current = {'engine_max_threads': 8, 'engine_max_insert_threads': 2}
    assert pipe_settings.settings_plan(current, {'engine_max_threads': 4})[0] == {'engine_max_threads': 4}
    assert pipe_settings.settings_plan(current, {'engine_max_threads': None})[1]['after'] == {'engine_max_threads': 3}
    assert current == {'engine_max_threads': 8, 'engine_max_insert_threads': 2}
    assert pipe_settings.settings_plan({CONCURRENCY: 4}, {CONCURRENCY: None})[1]['after'] == {CONCURRENCY: None}  # no default to show


def make_pipe(state, kind='kafka'):
    source = dict((name, None) for name in pipe_rules.SOURCE_KINDS)
    source[kind] = {'x': 1}
    return {'id': 'p1', 'name': 'orders', 'state': state, 'source': source}


@pytest.mark.parametrize('kind', pipe_rules.SOURCE_KINDS)
def test_source_kind_is_the_key_with_an_object(kind):
    assert pipe_rules.source_kind(make_pipe('Running', kind)) == kind
    assert pipe_rules.source_kind({'source': {}}) == 'unknown'
