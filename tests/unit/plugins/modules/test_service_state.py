# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.service_state against the simulator in process (tests/unit/conftest.py): waits run
on the fake clock, whose sleeps are the module's polling intervals."""

import pytest

from ansible_collections.engine.cloud.plugins.modules import service_state
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SERVICE_IDLE, SERVICE_PROD, service_path

PROD = dict(service_id=SERVICE_PROD)
GET = ('GET', service_path())
STOP = ('PATCH', service_path(suffix='/state'), {'command': 'stop'})
START = ('PATCH', service_path(suffix='/state'), {'command': 'start'})
STATE_COMMANDS = '/services/%s/state$' % SERVICE_PROD


def prod_in(state):
    return ('services', SERVICE_PROD, {'state': state})


CASES = {
    'stopping waits with growing intervals, then a rerun changes nothing': dict(
        args=dict(PROD, state='stopped'), diff=True, config={'transition_delay': 20},
        requests=[GET, STOP] + [GET] * 5,
        result={'changed': True, 'service.state': 'stopped', 'diff': {'before': {'state': 'running'}, 'after': {'state': 'stopped'}}},
        sleeps=[1, 2, 4, 8, 10],
        then=dict(args=dict(PROD, state='stopped'), requests=[GET], result={'changed': False}, sleeps=[])),
    'a command not applied (503) is sent again after a read; a refusal (409) is decided again from a read': dict(
        args=dict(PROD, state='stopped'), config={'transition_delay': 0},
        faults=[dict(kind='status', status=503, method='PATCH', path=STATE_COMMANDS),
                dict(kind='status', status=409, method='PATCH', path=STATE_COMMANDS)],
        requests=[GET, STOP, GET, STOP, GET, STOP, GET],
        result={'changed': True, 'service.state': 'stopped'}),
    'a start asked for while the service is stopping waits the stop out, then starts (also without wait)': dict(
        args=dict(PROD, state='started', wait=False), diff=True, edits=[prod_in('stopping')], later=[(2, ) + prod_in('stopped')],
        requests=[GET, GET, GET, START],
        result={'changed': True, 'service.state': 'starting', 'diff': {'before': {'state': 'stopping'}, 'after': {'state': 'running'}}},
        sleeps=[1, 2]),
    'awake wakes an idle service and waits until it runs; without wait a stopped one is started, its answer returned': dict(
        args=dict(service_id=SERVICE_IDLE, state='awake'),
        requests=[('GET', service_path(SERVICE_IDLE)), ('PATCH', service_path(SERVICE_IDLE, '/state'), {'command': 'awake'}),
                  ('GET', service_path(SERVICE_IDLE))],
        result={'changed': True, 'service.state': 'running'},
        then=dict(args=dict(PROD, state='awake', wait=False), edits=[prod_in('stopped')], requests=[GET, START],
                  result={'changed': True, 'service.state': 'starting'}, sleeps=[])),
    'a timeout in the state from before the command says the command may not have taken effect': dict(
        args=dict(PROD, state='started', wait_timeout=3), edits=[prod_in('stopped')],
        faults=[dict(kind='status', status=200, method='PATCH', path=STATE_COMMANDS,
                     body={'status': 200, 'result': {'id': SERVICE_PROD, 'state': 'starting'}})],
        requests=[GET, START, GET, GET],
        fails='service %s did not reach idle or running within 3 seconds; last state: stopped, as before the start command, which may '
              'not have taken effect' % SERVICE_PROD, result={'service.state': 'stopped'}),
    'a service already stopping is waited for without a command': dict(
        args=dict(PROD, state='stopped'), edits=[prod_in('stopping')], later=[(5, ) + prod_in('stopped')],
        requests=[GET] * 4,
        result={'changed': False, 'service.state': 'stopped'}, sleeps=[1, 2, 4]),
    'check mode neither commands nor waits': dict(
        args=dict(PROD, state='stopped'), check=True,
        requests=[GET], result={'changed': True, 'service.state': 'stopped'}, sleeps=[],
        then=dict(args=dict(PROD, state='stopped'), check=True, edits=[prod_in('stopping')],
                  requests=[GET], result={'changed': False, 'service.state': 'stopping'}, sleeps=[])),
}


def test_service_state(run, case):
    run(service_state, **case)


@pytest.mark.parametrize('failure', ['failed', 'degraded'])
def test_a_failure_state_ends_the_wait_at_once(run, failure):
    run(service_state, dict(PROD, state='started'), edits=[prod_in('stopped')], config={'transition_delay': 60},
        later=[(2, ) + prod_in(failure)],
        requests=[GET, START, GET, GET],
        fails='', result={'msg': 'service %s entered the failure state %s' % (SERVICE_PROD, failure), 'service.state': failure},
        sleeps=[1, 2])


# The state table as the module documentation states it (written out again on purpose): state ->
# what started / awake / stopped do. '-': no command; 'wait X': the transition is waited out, then X.
TABLE = {
    'running': ('-', '-', 'stop'), 'partially_running': ('-', '-', 'stop'), 'idle': ('-', 'awake', 'stop'),
    'starting': ('-', '-', 'wait stop'), 'awaking': ('-', '-', 'wait stop'), 'provisioning': ('-', '-', 'wait stop'),
    'stopped': ('start', 'start', '-'), 'stopping': ('wait start', 'wait start', '-'),
    'degraded': ('fail', 'fail', 'stop'), 'failed': ('fail', 'fail', 'fail'), 'terminating': ('fail', 'fail', 'fail'),
    'terminated': ('fail', 'fail', 'fail'), 'softdeleting': ('fail', 'fail', 'fail'), 'softdeleted': ('fail', 'fail', 'fail'),
}
TRANSITIONS = {'starting': 'running', 'stopping': 'stopped', 'awaking': 'running', 'provisioning': 'running'}
CELLS = [(state, goal, actions[index]) for state, actions in TABLE.items() for index, goal in enumerate(('started', 'awake', 'stopped'))]


@pytest.mark.parametrize('state, goal, expect', CELLS, ids=['%s-%s' % cell[:2] for cell in CELLS])
def test_every_cell_of_the_state_table(run, state, goal, expect):
    """With wait=false, from the requests: a transition (it ends after the module's first read) is waited
    out before the command; a state no command helps fails before any write, naming the state."""
    change = dict(state=state, then=dict(state=TRANSITIONS[state], reads=1)) if state in TRANSITIONS else dict(state=state)
    requests = [GET] * (2 if expect.startswith('wait') else 1)
    if expect not in ('-', 'fail'):
        requests.append(('PATCH', service_path(suffix='/state'), {'command': expect.split(' ')[-1]}))
    run(service_state, dict(PROD, state=goal, wait=False), edits=[('services', SERVICE_PROD, change)], requests=requests,
        fails='service %s is %s' % (SERVICE_PROD, state) if expect == 'fail' else None,
        result={'-': {'changed': False, 'service.state': state}, 'fail': {}}.get(expect, {'changed': True}))
