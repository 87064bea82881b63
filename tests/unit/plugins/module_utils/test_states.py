# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The state tables of service_state and pipe_state: every state of the reference has a row, the
rows the module documentation shows are the data the modules decide from, and how each goal's wait
ends (a resync must be seen to have run)."""

import re

import pytest
import yaml

from ansible_collections.engine.cloud.plugins.module_utils.pipe_rules import PIPE_TABLE, later
from ansible_collections.engine.cloud.plugins.module_utils.cloud import FAIL, SERVICE_TABLE, WAIT
from ansible_collections.engine.cloud.plugins.modules import pipe_state, service_state

# The reference's state lists, written out again on purpose: a change to a table must show here.
SERVICE_STATES = ('starting', 'stopping', 'terminating', 'softdeleting', 'awaking', 'partially_running', 'provisioning',
                  'running', 'stopped', 'terminated', 'softdeleted', 'degraded', 'failed', 'idle')
STREAMING_PIPE_STATES = ('Unknown', 'Provisioning', 'Running', 'Stopping', 'Stopped', 'Completed', 'Failed', 'InternalError')
POSTGRES_PIPE_STATES = ('Provisioning', 'Setup', 'Snapshot', 'Running', 'Pausing', 'Paused', 'Modifying', 'Resync', 'Failed',
                        'Unknown')
PIPE_STATES = set(STREAMING_PIPE_STATES) | set(POSTGRES_PIPE_STATES) | {'Degraded'}
_ROW = re.compile(r'^((?:C\(\w+\), )*C\(\w+\)): (C\([\w-]+\)(?: / C\([\w-]+\))*)$')
_WORDS = {'-': None, 'wait': WAIT, 'fail': FAIL}


def documented_table(module):
    """state -> the actions of its row, from the rows of the module's description."""
    table = {}
    for line in yaml.safe_load(module.DOCUMENTATION)['description']:
        found = _ROW.match(line)
        if found:
            actions = tuple(_WORDS.get(word, word) for word in re.findall(r'C\(([\w-]+)\)', found.group(2)))
            for state in re.findall(r'C\((\w+)\)', found.group(1)):
                assert state not in table, '%s has two rows' % state
                table[state] = actions
    return table


def pipe(state, kind='postgres', updated='2024-10-10T10:10:10Z'):
    source = dict((name, None) for name in ('kafka', 'objectStorage', 'stream', 'postgres'))
    source[kind] = {'host': 'h'}
    return {'id': 'p1', 'name': 'users', 'state': state, 'source': source, 'updatedAt': updated}


# --- the tables are complete and documented ---------------------------------------------------------

@pytest.mark.parametrize('module, table, goals, undocumented, states', [
    (service_state, SERVICE_TABLE, ('started', 'awake', 'stopped'), (), SERVICE_STATES),
    (pipe_state, PIPE_TABLE, ('started', 'stopped'), ('resynced',), PIPE_STATES),
])
def test_the_documented_table_is_the_table_the_module_decides_from(module, table, goals, undocumented, states):
    """The table has these goals, and a row for every state of the reference in each goal's column (resynced's too, a
    column the documented table leaves out), as the documented one has."""
    assert sorted(table.actions) == sorted(goals + undocumented)
    assert [set(actions) for actions in table.actions.values()] == [set(states)] * len(table.actions)
    documented = documented_table(module)
    assert set(documented) == set(states)
    for state, actions in documented.items():
        assert actions == tuple(table.actions[goal][state] for goal in goals), state


def test_resynced_sends_resync_from_every_state():
    assert set(PIPE_TABLE.actions['resynced'].values()) == {'resync'}
    assert PIPE_TABLE.once == frozenset(('resync',))


# --- decisions ----------------------------------------------------------------------------------------

# Each row's actions are the documented table's (above); here what action() adds: a state not in the table fails, and
# check mode (predict) takes a transition as over.
@pytest.mark.parametrize('table, resource, goal, predict, action', [
    (SERVICE_TABLE, {'state': 'hibernating'}, 'started', False, FAIL), (SERVICE_TABLE, {'state': 'stopping'}, 'started', False, WAIT),
    (SERVICE_TABLE, {'state': 'stopping'}, 'started', True, 'start'), (SERVICE_TABLE, {'state': 'stopping'}, 'awake', True, 'start'),
    (SERVICE_TABLE, {'state': 'starting'}, 'stopped', True, 'stop'), (SERVICE_TABLE, {'state': 'awaking'}, 'stopped', True, 'stop'),
    (SERVICE_TABLE, {'state': 'provisioning'}, 'stopped', True, 'stop'),
    (PIPE_TABLE, pipe('Pausing'), 'started', False, WAIT), (PIPE_TABLE, pipe('Pausing'), 'started', True, 'start'),
])
def test_decisions_and_check_mode_s_predictions(table, resource, goal, predict, action):
    assert table.action(goal, resource, predict=predict) == action


@pytest.mark.parametrize('kind', ['kafka', 'objectStorage', 'stream'])
def test_only_a_postgres_pipe_is_resynced(kind):
    assert PIPE_TABLE.action('resynced', pipe('Running', kind)) == FAIL
    assert PIPE_TABLE.refusal('resynced', pipe('Running', kind), 'p1') == (
        'state=resynced is only possible for postgres pipes; pipe users has a %s source' % kind)
    assert PIPE_TABLE.action('resynced', pipe('Running')) == 'resync'


@pytest.mark.parametrize('state, fragment', [
    ('terminated', 'service s1 is terminated: a terminating, terminated, softdeleting or softdeleted service takes no command'),
    ('failed', 'service s1 is failed: no start or stop is sent to a failed service'),
    ('degraded', 'service s1 is degraded: state=started sends no command to a degraded service'),
    ('hibernating', 'service s1 is in state hibernating, which is not one of the states the API documents for a service'),
])
def test_a_service_refusal_names_the_state(state, fragment):
    assert SERVICE_TABLE.refusal('started', {'state': state}, 's1').startswith(fragment)


@pytest.mark.parametrize('state', ['Completed', 'InternalError', 'Unknown'])
def test_a_pipe_that_cannot_be_started_names_the_state_and_what_is_possible(state):
    assert PIPE_TABLE.refusal('started', pipe(state), 'p1') == (
        'pipe p1 cannot be started from state %s; the API starts a pipe only from Stopped, Paused, Failed, and stops it '
        'from any state (state=stopped)' % state)


@pytest.mark.parametrize('table, goal, resource, target, waited_for', [
    (SERVICE_TABLE, 'started', {}, 'running', 'idle or running'), (SERVICE_TABLE, 'awake', {}, 'running', 'running'),
    (SERVICE_TABLE, 'stopped', {}, 'stopped', 'stopped'), (PIPE_TABLE, 'stopped', pipe('Running'), 'Paused', 'Paused'),
    (PIPE_TABLE, 'stopped', pipe('Running', 'objectStorage'), 'Stopped', 'Completed or Stopped'),
    (PIPE_TABLE, 'stopped', pipe('Running', 'kafka'), 'Stopped', 'Completed or Stopped'),
    (PIPE_TABLE, 'resynced', pipe('Running'), 'Resync', 'Running after a resync'),
])
def test_the_target_of_a_goal_and_its_wait_s_name(table, goal, resource, target, waited_for):
    assert (table.target(goal, resource), table.goal_text(goal, resource)) == (target, waited_for)


# --- how a wait ends ----------------------------------------------------------------------------------

@pytest.mark.parametrize('table, goal, before, wait, seen, over', [
    (SERVICE_TABLE, 'started', {}, True, [{'state': 'idle'}], [True]),
    (SERVICE_TABLE, 'awake', {}, True, [{'state': 'idle'}, {'state': 'running'}], [False, True]),
    (PIPE_TABLE, 'stopped', pipe('Running', 'objectStorage'), True, [pipe('Completed', 'objectStorage')], [True]),
    # resynced needs a state the resync passes through (Running as before is not one), then Running ...
] + [(PIPE_TABLE, 'resynced', pipe('Running'), True, [pipe('Running'), pipe(state), pipe('Running')], [False, False, True])
     for state in ('Resync', 'Snapshot', 'Setup', 'Modifying')] + [
    # ... or a resync over between two reads, seen in updatedAt; without wait, it is over once it was seen
    (PIPE_TABLE, 'resynced', pipe('Running'), True, [pipe('Running', updated='2024-10-10T10:10:10.500Z')], [True]),
    (PIPE_TABLE, 'resynced', pipe('Running'), False, [pipe('Running'), pipe('Resync')], [False, True]),
])
def test_when_a_wait_is_over(table, goal, before, wait, seen, over):
    done = table.done(goal, before, wait=wait)
    assert [done(resource) for resource in seen] == over


def test_a_degraded_service_fails_the_wait_of_started_not_of_stopped():
    assert 'degraded' in SERVICE_TABLE.failures['started'] and 'degraded' not in SERVICE_TABLE.failures['stopped']


@pytest.mark.parametrize('moment, than, result', [
    ('2024-10-10T10:10:11Z', '2024-10-10T10:10:10.999Z', True),
    ('2024-10-10T10:10:10Z', '2024-10-10T10:10:10.000Z', False),
    ('2024-10-10T10:10:10.001+00:00', '2024-10-10T10:10:10Z', True),
    (None, '2024-10-10T10:10:10Z', False),
    ('yesterday', '2024-10-10T10:10:10Z', False),
])
def test_later_compares_times_not_strings(moment, than, result):
    assert later(moment, than) is result
