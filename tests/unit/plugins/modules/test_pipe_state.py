# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.pipe_state against the simulator in process (tests/unit/conftest.py): waits run on
the fake clock; the simulator's transitions take transition_delay (1 s unless a case sets it)."""

import pytest

from ansible_collections.engine.cloud.plugins.modules import pipe_state
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_POSTGRES, SERVICE_PROD,
                                                                          pipe_path, service_path)


def pipe(pipe_id, **args):
    return dict(args, service_id=SERVICE_PROD, pipe_id=pipe_id)


def get(pipe_id):
    return ('GET', pipe_path(pipe_id))


def command(pipe_id, name):
    return ('PATCH', pipe_path(pipe_id, '/state'), {'command': name})


def pipe_in(pipe_id, state):
    return ('pipes', pipe_id, {'state': state})


CASES = {
    'stop and start wait for the state; a rerun sends no command': dict(
        args=pipe(PIPE_KAFKA, state='stopped'), diff=True,
        requests=[get(PIPE_KAFKA), command(PIPE_KAFKA, 'stop'), get(PIPE_KAFKA)],
        result={'changed': True, 'pipe.state': 'Stopped', 'diff': {'before': {'state': 'Running'}, 'after': {'state': 'Stopped'}}},
        then=dict(args=pipe(PIPE_KAFKA, state='stopped'), requests=[get(PIPE_KAFKA)], result={'changed': False},
                  then=dict(args=pipe(PIPE_KAFKA, state='started'),
                            requests=[get(PIPE_KAFKA), command(PIPE_KAFKA, 'start'), get(PIPE_KAFKA)],
                            result={'changed': True, 'pipe.state': 'Running'}))),
    'resync of a postgres pipe is sent every time, and predicted in check mode': dict(
        args=pipe(PIPE_POSTGRES, state='resynced'),
        requests=[get(PIPE_POSTGRES), command(PIPE_POSTGRES, 'resync'), get(PIPE_POSTGRES)],
        result={'changed': True, 'pipe.state': 'Running'},
        then=dict(args=pipe(PIPE_POSTGRES, state='resynced'),
                  requests=[get(PIPE_POSTGRES), command(PIPE_POSTGRES, 'resync'), get(PIPE_POSTGRES)],
                  result={'changed': True, 'pipe.state': 'Running'},
                  then=dict(args=pipe(PIPE_POSTGRES, state='resynced'), check=True, requests=[get(PIPE_POSTGRES), ('GET', service_path(SERVICE_PROD))],
                            result={'changed': True}))),
    'the wait timeout fails with the last state and the masked pipe': dict(
        args=pipe(PIPE_OBJECT_STORAGE, state='stopped', wait_timeout=30), config={'transition_delay': 1000},
        requests=[get(PIPE_OBJECT_STORAGE), command(PIPE_OBJECT_STORAGE, 'stop')] + [get(PIPE_OBJECT_STORAGE)] * 6,
        fails='', result={'msg': 'pipe %s did not reach Completed or Stopped within 30 seconds; last state: Stopping' % PIPE_OBJECT_STORAGE,
                          'pipe.state': 'Stopping', 'pipe.source.objectStorage.connectionString': '********'},
        sleeps=[1, 2, 4, 8, 10, 5]),
    'a stopping pipe is started once it has stopped': dict(
        args=pipe(PIPE_KAFKA, state='started'), edits=[pipe_in(PIPE_KAFKA, 'Stopping')], later=[(3, ) + pipe_in(PIPE_KAFKA, 'Stopped')],
        requests=[get(PIPE_KAFKA)] * 3 + [command(PIPE_KAFKA, 'start'), get(PIPE_KAFKA)],
        result={'changed': True, 'pipe.state': 'Running'}, sleeps=[1, 2, 1]),
    'a start from Failed whose answer still shows Failed is not a failure; reads end the wait': dict(
        args=pipe(PIPE_KAFKA, state='started'), edits=[pipe_in(PIPE_KAFKA, 'Failed')],
        config={'stale_pipe_answers': True, 'transition_delay': 2},
        requests=[get(PIPE_KAFKA), command(PIPE_KAFKA, 'start'), get(PIPE_KAFKA), get(PIPE_KAFKA)],
        result={'changed': True, 'pipe.state': 'Running'}, sleeps=[1, 2]),
    'resynced waits until a read has seen the resync and the pipe Running again, not on the answer': dict(
        args=pipe(PIPE_POSTGRES, state='resynced'), config={'stale_pipe_answers': True, 'resync_delay': 5},
        requests=[get(PIPE_POSTGRES), command(PIPE_POSTGRES, 'resync')] + [get(PIPE_POSTGRES)] * 3,
        result={'changed': True, 'pipe.state': 'Running'}, sleeps=[1, 2, 4],
        verify=lambda result, sim: sim.find('pipes', PIPE_POSTGRES)['sim']['resyncs'] == 1),
    'a resync over between two reads is seen in its later updatedAt': dict(
        args=pipe(PIPE_POSTGRES, state='resynced'), config={'stale_pipe_answers': True, 'resync_delay': 0},
        requests=[get(PIPE_POSTGRES), command(PIPE_POSTGRES, 'resync'), get(PIPE_POSTGRES)],
        result={'changed': True, 'pipe.state': 'Running'}, sleeps=[1]),
}


def test_pipe_state(run, case):
    run(pipe_state, **case)


@pytest.mark.parametrize('failure', ['Failed', 'InternalError'])
def test_a_failure_state_fails_at_once(run, failure):
    run(pipe_state, pipe(PIPE_KAFKA, state='started'), edits=[pipe_in(PIPE_KAFKA, 'Stopped')], config={'transition_delay': 60},
        later=[(1, ) + pipe_in(PIPE_KAFKA, failure)],
        requests=[get(PIPE_KAFKA), command(PIPE_KAFKA, 'start'), get(PIPE_KAFKA)],
        fails='', result={'msg': 'pipe %s entered the failure state %s' % (PIPE_KAFKA, failure)}, sleeps=[1])


# The state table as the module documentation states it (written out again on purpose): state ->
# (the pipe it is tried on, what started / stopped do). '-': no command; 'wait X': waited out, then X.
TABLE = {
    'Running': (PIPE_KAFKA, '-', 'stop'), 'Provisioning': (PIPE_KAFKA, '-', 'stop'), 'Degraded': (PIPE_KAFKA, '-', 'stop'),
    'Stopped': (PIPE_KAFKA, 'start', '-'), 'Failed': (PIPE_KAFKA, 'start', 'stop'), 'Stopping': (PIPE_KAFKA, 'wait start', '-'),
    'Completed': (PIPE_OBJECT_STORAGE, 'fail', '-'), 'InternalError': (PIPE_KAFKA, 'fail', 'stop'), 'Unknown': (PIPE_KAFKA, 'fail', 'stop'),
    'Setup': (PIPE_POSTGRES, '-', 'stop'), 'Snapshot': (PIPE_POSTGRES, '-', 'stop'), 'Modifying': (PIPE_POSTGRES, '-', 'stop'),
    'Resync': (PIPE_POSTGRES, '-', 'stop'), 'Paused': (PIPE_POSTGRES, 'start', '-'), 'Pausing': (PIPE_POSTGRES, 'wait start', '-'),
}
TRANSITIONS = {'Stopping': 'Stopped', 'Pausing': 'Paused'}
CELLS = [(state, row[0], goal, row[index + 1]) for state, row in TABLE.items() for index, goal in enumerate(('started', 'stopped'))]


@pytest.mark.parametrize('state, pipe_id, goal, expect', CELLS, ids=['%s-%s' % (cell[0], cell[2]) for cell in CELLS])
def test_every_cell_of_the_state_table(run, state, pipe_id, goal, expect):
    """With wait=false, from the requests: Stopping and Pausing (they end after the module's first read)
    are waited out before a start; a state no command helps fails before any write, naming the state."""
    change = dict(state=state, then=dict(state=TRANSITIONS[state], reads=1)) if state in TRANSITIONS else dict(state=state)
    requests = [get(pipe_id)] * (2 if expect.startswith('wait') else 1)
    if expect not in ('-', 'fail'):
        requests.append(command(pipe_id, expect.split(' ')[-1]))
    run(pipe_state, pipe(pipe_id, state=goal, wait=False), edits=[('pipes', pipe_id, change)], requests=requests,
        fails='cannot be started from state %s' % state if expect == 'fail' else None,
        result={'-': {'changed': False, 'pipe.state': state}, 'fail': {}}.get(expect, {'changed': True}))
