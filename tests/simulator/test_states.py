"""States and commands as the reference describes them: every state settable (and only those), timed
transitions, commands refused during transitions and in terminal states, pipe command answers that
may show the state from before the command, fast and slow resyncs, and writes applied with a lost answer."""

import http.client
import time

import pytest

from .fixture_ids import PIPE_KAFKA, PIPE_POSTGRES, SERVICE_IDLE, SERVICE_PROD, pipe_path, service_path
from .state import POSTGRES_PIPE_STATES, SERVICE_STATES, STREAMING_PIPE_STATES
from .test_cloud import assert_error

TRANSITIONS = ('starting', 'stopping', 'awaking', 'provisioning')
TERMINAL = ('terminating', 'terminated', 'softdeleting', 'softdeleted')


def set_state(sim, kind, object_id, body):
    return sim.request('PATCH', '/_admin/%s/%s' % (kind, object_id), body)


def resyncs(sim, pipe_id):
    pipe = next(item for item in sim.admin('GET', 'state')['pipes'] if item['id'] == pipe_id)
    return pipe.get('sim', {}).get('resyncs', 0)


# Every state of the reference, and no other ------------------------------------------------------

@pytest.mark.parametrize('state', SERVICE_STATES)
def test_every_service_state_can_be_set(sim, state):
    assert set_state(sim, 'services', SERVICE_PROD, {'state': state}).status == 200
    assert sim.cloud('GET', service_path()).result['state'] == state


@pytest.mark.parametrize('pipe_id, states', [(PIPE_KAFKA, STREAMING_PIPE_STATES), (PIPE_POSTGRES, POSTGRES_PIPE_STATES)])
def test_every_pipe_state_of_its_family_can_be_set(sim, pipe_id, states):
    for state in states:
        assert set_state(sim, 'pipes', pipe_id, {'state': state}).status == 200
        assert sim.cloud('GET', pipe_path(pipe_id)).result['state'] == state


@pytest.mark.parametrize('kind, object_id, state', [
    ('services', SERVICE_PROD, 'Running'), ('services', SERVICE_PROD, 'sleeping'),
    ('pipes', PIPE_KAFKA, 'Paused'), ('pipes', PIPE_KAFKA, 'Resync'),  # postgres-only states
    ('pipes', PIPE_POSTGRES, 'Stopped'), ('pipes', PIPE_POSTGRES, 'InternalError'),  # streaming-only states
])
def test_a_state_outside_the_reference_list_is_refused(sim, kind, object_id, state):
    reply = set_state(sim, kind, object_id, {'state': state})
    assert reply.status == 400 and 'state must be one of' in reply.json()['error']


def test_a_timed_transition_ends_in_its_target(sim):
    assert set_state(sim, 'services', SERVICE_PROD, {'state': 'stopping', 'then': {'state': 'stopped', 'after': 0.3}}).status == 200
    assert sim.cloud('GET', service_path()).result['state'] == 'stopping'
    assert sim.wait_for_state(service_path(), 'stopped')['state'] == 'stopped'


def test_a_counted_transition_ends_after_its_reads_whatever_the_time(sim):
    set_state(sim, 'services', SERVICE_PROD, {'state': 'starting', 'then': {'state': 'running', 'reads': 2}})
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'stop'}), 409, 'CONFLICT', 'starting')
    assert [sim.cloud('GET', service_path()).result['state'] for dummy in range(3)] == ['starting', 'starting', 'running']
    set_state(sim, 'pipes', PIPE_KAFKA, {'state': 'Stopping', 'then': {'state': 'Stopped', 'reads': 1}})
    before = sim.cloud('GET', pipe_path(PIPE_KAFKA)).result
    after = sim.cloud('GET', pipe_path(PIPE_KAFKA)).result
    assert (before['state'], after['state']) == ('Stopping', 'Stopped') and after['updatedAt'] > before['updatedAt']


def test_with_transition_reads_a_command_transition_ends_after_that_many_reads(sim):
    sim.admin('PATCH', 'config', {'transition_reads': 2, 'transition_delay': 0})
    assert sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'stop'}).result['state'] == 'stopping'
    assert [sim.cloud('GET', service_path()).result['state'] for dummy in range(3)] == ['stopping', 'stopping', 'stopped']
    assert sim.cloud('PATCH', pipe_path(PIPE_KAFKA, '/state'), {'command': 'stop'}).result['state'] == 'Stopping'
    assert [sim.cloud('GET', pipe_path(PIPE_KAFKA)).result['state'] for dummy in range(3)] == ['Stopping', 'Stopping', 'Stopped']


@pytest.mark.parametrize('body', [
    {'state': 'stopping', 'then': {'state': 'stopped', 'reads': 0}},
    {'state': 'stopping', 'then': {'state': 'stopped', 'reads': 1, 'after': 1}},
    {'then': {'state': 'stopped', 'after': 1}},                    # no state to start from
    {'state': 'stopping', 'then': {'state': 'stopped'}},           # no delay
    {'state': 'stopping', 'then': {'state': 'stopped', 'after': -1}},
    {'state': 'stopping', 'then': {'state': 'halted', 'after': 1}},
    {'state': 'stopping', 'then': 'stopped'},
])
def test_a_bad_transition_is_refused(sim, body):
    assert set_state(sim, 'services', SERVICE_PROD, body).status == 400
    assert sim.cloud('GET', service_path()).result['state'] == 'running'


# Service commands --------------------------------------------------------------------------------

@pytest.mark.parametrize('state', TRANSITIONS)
@pytest.mark.parametrize('command', ['start', 'stop', 'awake'])
def test_commands_during_a_transition_are_refused(sim, state, command):
    set_state(sim, 'services', SERVICE_PROD, {'state': state})
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': command}), 409, 'CONFLICT', state)
    assert sim.cloud('GET', service_path()).result['state'] == state


@pytest.mark.parametrize('state', TERMINAL)
@pytest.mark.parametrize('command', ['start', 'stop', 'awake'])
def test_a_terminal_service_takes_no_command(sim, state, command):
    set_state(sim, 'services', SERVICE_PROD, {'state': state})
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': command}), 409, 'CONFLICT',
                 'is %s and takes no command' % state)


@pytest.mark.parametrize('state', ['running', 'stopped', 'degraded', 'failed', 'partially_running'])
def test_awake_applies_to_an_idle_service_only(sim, state):
    set_state(sim, 'services', SERVICE_PROD, {'state': state})
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'awake'}), 409, 'CONFLICT', state)
    set_state(sim, 'services', SERVICE_PROD, {'state': 'idle'})
    assert sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'awake'}).result['state'] == 'awaking'


def test_start_does_not_wake_an_idle_service(sim):
    assert sim.cloud('PATCH', service_path(SERVICE_IDLE, '/state'), {'command': 'start'}).result['state'] == 'idle'
    assert sim.cloud('GET', service_path(SERVICE_IDLE)).result['state'] == 'idle'


# Pipe command answers, resyncs -------------------------------------------------------------------

def test_pipe_answers_show_the_new_state_by_default(sim):
    assert sim.cloud('PATCH', pipe_path(PIPE_KAFKA, '/state'), {'command': 'stop'}).result['state'] == 'Stopping'


def test_with_the_switch_pipe_answers_show_the_state_from_before_the_command(sim):
    sim.admin('PATCH', 'config', {'stale_pipe_answers': True})
    before = sim.cloud('GET', pipe_path(PIPE_POSTGRES)).result
    answer = sim.cloud('PATCH', pipe_path(PIPE_POSTGRES, '/state'), {'command': 'resync'}).result
    assert answer == before
    assert sim.cloud('GET', pipe_path(PIPE_POSTGRES)).result['state'] == 'Resync'
    set_state(sim, 'pipes', PIPE_KAFKA, {'state': 'Failed'})
    assert sim.cloud('PATCH', pipe_path(PIPE_KAFKA, '/state'), {'command': 'start'}).result['state'] == 'Failed'
    assert sim.cloud('GET', pipe_path(PIPE_KAFKA)).result['state'] == 'Provisioning'


def test_a_fast_resync_is_over_before_the_next_read_and_leaves_a_later_updated_at(sim):
    sim.admin('PATCH', 'config', {'resync_delay': 0, 'transition_delay': 5})
    before = sim.cloud('GET', pipe_path(PIPE_POSTGRES)).result
    sim.cloud('PATCH', pipe_path(PIPE_POSTGRES, '/state'), {'command': 'resync'})
    after = sim.cloud('GET', pipe_path(PIPE_POSTGRES)).result
    assert after['state'] == 'Running' and after['updatedAt'] > before['updatedAt']


def test_a_slow_resync_shows_resync_until_it_ends(sim):
    sim.admin('PATCH', 'config', {'resync_delay': 0.4, 'transition_delay': 0})
    sim.cloud('PATCH', pipe_path(PIPE_POSTGRES, '/state'), {'command': 'resync'})
    resyncing = sim.cloud('GET', pipe_path(PIPE_POSTGRES)).result
    assert resyncing['state'] == 'Resync'
    finished = sim.wait_for_state(pipe_path(PIPE_POSTGRES), 'Running')
    assert finished['state'] == 'Running' and finished['updatedAt'] > resyncing['updatedAt']


def test_every_resync_starts_a_resync_and_the_admin_state_counts_them(sim):
    assert resyncs(sim, PIPE_POSTGRES) == 0
    sim.cloud('PATCH', pipe_path(PIPE_POSTGRES, '/state'), {'command': 'resync'})
    sim.cloud('PATCH', pipe_path(PIPE_POSTGRES, '/state'), {'command': 'resync'})
    assert resyncs(sim, PIPE_POSTGRES) == 2
    assert 'sim' not in sim.cloud('GET', pipe_path(PIPE_POSTGRES)).result


# Writes applied with a lost answer ---------------------------------------------------------------

@pytest.mark.parametrize('status', [502, 503, 504])
def test_a_status_fault_with_apply_applies_the_write_and_loses_its_answer(sim, status):
    sim.admin('POST', 'faults', {'method': 'PATCH', 'kind': 'status', 'status': status, 'apply': True})
    remove = {'ipAccessList': {'remove': [{'source': '198.51.100.17'}]}}
    assert sim.cloud('PATCH', service_path(), remove).status == status
    sources = [entry['source'] for entry in sim.cloud('GET', service_path()).result['ipAccessList']]
    assert '198.51.100.17' not in sources
    assert_error(sim.cloud('PATCH', service_path(), remove), 400, 'BAD_REQUEST', 'is not in the IP access list')
    assert [(e['status'], e['fault'], e['handled']) for e in sim.requests_log()] == [
        (status, 'status', True), (200, None, True), (400, None, True)]


def test_a_reset_with_apply_applies_the_command_and_closes_the_connection(sim):
    sim.admin('POST', 'faults', {'method': 'PATCH', 'path': '/state$', 'kind': 'reset', 'apply': True})
    with pytest.raises((ConnectionError, http.client.HTTPException)):
        sim.cloud('PATCH', pipe_path(PIPE_POSTGRES, '/state'), {'command': 'resync'})
    assert resyncs(sim, PIPE_POSTGRES) == 1
    assert sim.requests_log()[0]['fault'] == 'reset' and sim.requests_log()[0]['handled'] is True


def test_a_fault_without_apply_is_not_handled(sim):
    sim.admin('POST', 'faults', {'method': 'PATCH', 'kind': 'status', 'status': 503})
    assert sim.cloud('PATCH', service_path(), {'name': 'renamed'}).status == 503
    assert sim.cloud('GET', service_path()).result['name'] == 'prod-analytics'
    assert sim.requests_log()[0]['handled'] is False


def test_a_delay_fault_is_handled_late(sim):
    sim.admin('POST', 'faults', {'method': 'PATCH', 'kind': 'delay', 'delay': 0.3})
    started = time.monotonic()
    assert sim.cloud('PATCH', service_path(), {'name': 'renamed'}).status == 200
    assert time.monotonic() - started >= 0.3
    assert sim.requests_log()[0]['handled'] is True


@pytest.mark.parametrize('fault', [{'kind': 'delay', 'delay': 1, 'apply': True}, {'kind': 'status', 'apply': 'yes'}])
def test_bad_apply_is_refused(sim, fault):
    assert sim.request('POST', '/_admin/faults', fault).status == 400
