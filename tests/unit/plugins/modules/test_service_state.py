# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.service_state against the simulator in process (tests/unit/conftest.py): waits run
on the fake clock, whose sleeps are the module's polling intervals."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.engine.cloud.plugins.modules import service_state
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SERVICE_PROD, service_path

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
    'a command whose answer was lost and whose retry is refused counts as done once the read shows it': dict(
        args=dict(PROD, state='stopped', api_timeout=5), config={'transition_delay': 0},
        faults=[dict(kind='delay', delay=10, method='PATCH', path=STATE_COMMANDS)],
        requests=[GET, STOP, STOP, GET],
        result={'changed': True, 'service.state': 'stopped'}),
    'a refused retry of a command that was not applied fails': dict(
        args=dict(PROD, state='stopped'),
        faults=[dict(kind='status', status=503, method='PATCH', path=STATE_COMMANDS),
                dict(kind='status', status=409, method='PATCH', path=STATE_COMMANDS)],
        requests=[GET, STOP, STOP, GET],
        fails='HTTP 409 CONFLICT',
        verify=lambda result, sim: sim.find('services', SERVICE_PROD)['state'] == 'running'),
    'without wait the answer to the command is returned': dict(
        args=dict(PROD, state='started', wait=False), edits=[prod_in('stopped')],
        requests=[GET, START],
        result={'changed': True, 'service.state': 'starting'}, sleeps=[]),
    'a service already stopping is waited for without a command': dict(
        args=dict(PROD, state='stopped'), edits=[prod_in('stopping')], later=[(5, ) + prod_in('stopped')],
        requests=[GET] * 4,
        result={'changed': False, 'service.state': 'stopped'}, sleeps=[1, 2, 4]),
    'check mode neither commands nor waits': dict(
        args=dict(PROD, state='stopped'), check=True,
        requests=[GET], result={'changed': True, 'service.state': 'stopped'}, sleeps=[],
        then=dict(args=dict(PROD, state='stopped'), check=True, edits=[prod_in('stopping')],
                  requests=[GET], result={'changed': False, 'service.state': 'stopping'}, sleeps=[])),
    'the timeout names the last state': dict(
        args=dict(PROD, state='stopped', wait_timeout=5), edits=[prod_in('stopping')],
        requests=[GET] * 4,
        fails='', result={'msg': 'service %s did not reach stopped within 5 seconds; last state: stopping' % SERVICE_PROD,
                          'service.state': 'stopping'},
        sleeps=[1, 2, 2]),
    'a wait_timeout below one second fails before any request': dict(
        args=dict(PROD, state='stopped', wait_timeout=0),
        requests=[], fails='', result={'msg': 'wait_timeout must be at least 1 second, got 0'}),
}


def test_service_state(run, case):
    run(service_state, **case)


@pytest.mark.parametrize('current', ['running', 'idle', 'starting', 'awaking', 'partially_running'])
def test_started_sends_no_command_for_started_states(run, current):
    run(service_state, dict(PROD, state='started', wait=False), edits=[prod_in(current)],
        requests=[GET], result={'changed': False, 'service.state': current})


@pytest.mark.parametrize('failure', ['failed', 'degraded'])
def test_a_failure_state_ends_the_wait_at_once(run, failure):
    run(service_state, dict(PROD, state='started'), edits=[prod_in('stopped')], config={'transition_delay': 60},
        later=[(2, ) + prod_in(failure)],
        requests=[GET, START, GET, GET],
        fails='', result={'msg': 'service %s entered the failure state %s' % (SERVICE_PROD, failure), 'service.state': failure},
        sleeps=[1, 2])
