# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The idle service, in one place (CloudModule.request): a pipe call that the API refuses with 424
"Current state: idle" wakes the service once (service_state's awake), waits until it runs and is sent
again; a stopped service is never started. pipe_info, pipe_state and pipe_settings alike."""

import json

import pytest

from ansible_collections.engine.cloud.plugins.modules import pipe, pipe_info, pipe_settings, pipe_state
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (PIPE_DEV, PIPE_KAFKA, SERVICE_DEV, SERVICE_IDLE, SERVICE_PROD,
                                                                          pipe_path, service_path)

PIPE = pipe_path(PIPE_DEV, service_id=SERVICE_IDLE)
SERVICE = ('GET', service_path(SERVICE_IDLE))
IDLE_AGAIN = {'method': 'GET', 'path': '/pipes$', 'kind': 'status', 'status': 424, 'count': 2,
              'body': {'status': 424, 'error': 'FAILED_DEPENDENCY: Pipe operations are allowed only when the service is running. '
                                               'Current state: idle', 'requestId': '0b6d1f0e-8a55-4a43-9d1e-3c2a3a8e4c11'}}
AWAKE = ('PATCH', service_path(SERVICE_IDLE, '/state'), {'command': 'awake'})
STREAM = dict(stream=dict(format='JSONEachRow', stream_name='clicks', region='eu-central-1'))
TABLE = dict(database='analytics', table='new_events', managed_table=True, columns=[dict(name='id', type='UInt64')])
# The fixture's stopped objectStorage pipe, moved onto the idle service.
ON_IDLE = [('pipes', PIPE_DEV, {'serviceId': SERVICE_IDLE})]


def args(**more):
    return dict(more, service_id=SERVICE_IDLE, pipe_id=PIPE_DEV)


def woken(result, sim):
    return sim.find('services', SERVICE_IDLE)['state'] == 'running'


CASES = {
    'pipe_state: the start is refused, the service woken, the start sent again': dict(
        module=pipe_state, args=args(state='started', wait=False), edits=ON_IDLE,
        requests=[('GET', PIPE), ('PATCH', PIPE + '/state', {'command': 'start'}), SERVICE, AWAKE, SERVICE,
                  ('PATCH', PIPE + '/state', {'command': 'start'})],
        result={'changed': True, 'pipe.state': 'Provisioning'}, verify=woken),
    'pipe_settings: the PUT is refused, the service woken, the PUT sent again': dict(
        module=pipe_settings, args=args(settings={'engine_max_threads': 8}), edits=ON_IDLE,
        requests=[('GET', PIPE + '/settings'), ('PUT', PIPE + '/settings'), SERVICE, AWAKE, SERVICE, ('PUT', PIPE + '/settings')],
        result={'changed': True, 'settings.engine_max_threads': 8}, verify=woken),
    'pipe_info: with idle_pipe_refusals all, the read wakes the service': dict(
        module=pipe_info, args=args(), edits=ON_IDLE, config={'idle_pipe_refusals': 'all'},
        requests=[('GET', PIPE), SERVICE, AWAKE, SERVICE, ('GET', PIPE)],
        result={'changed': False, 'pipe.id': PIPE_DEV}, verify=woken),
    'pipe_info: wakes at most once per task': dict(
        module=pipe_info, args=dict(service_id=SERVICE_IDLE), faults=[IDLE_AGAIN],
        requests=[('GET', service_path(SERVICE_IDLE, '/pipes')), SERVICE, AWAKE, SERVICE, ('GET', service_path(SERVICE_IDLE, '/pipes'))],
        fails='was woken once in this task and is idle again'),
    'check mode sends no awake: it fails and says why': dict(
        module=pipe_settings, args=args(settings={'engine_max_threads': 8}), edits=ON_IDLE, config={'idle_pipe_refusals': 'all'},
        check=True, requests=[('GET', PIPE + '/settings')], fails='check mode sends no awake command'),
}


def test_wake(run, case):
    case = dict(case)
    run(case.pop('module'), **case)


def test_a_stopped_service_is_never_started(run):
    dev_pipe = pipe_path(PIPE_DEV, service_id=SERVICE_DEV)
    run(pipe_settings, dict(service_id=SERVICE_DEV, pipe_id=PIPE_DEV, settings={'engine_max_threads': 8}),
        faults=[dict(IDLE_AGAIN, method='PUT', path='/settings$', count=1)],  # idle when refused, stopped when read
        requests=[('GET', dev_pipe + '/settings'), ('PUT', dev_pipe + '/settings'), ('GET', service_path(SERVICE_DEV))],
        fails='a pipe call never starts a stopped service')  # a refusal that says stopped: FORESEEN's first case


def warned(text):
    return lambda result, sim: text in json.dumps(result.get('warnings'))


# What check mode foresees for a pipe create in each service state, and what apply then does: the same outcome.
# (service, edits, check mode's failure or warning, apply's failure or warning, apply's requests after the list)
POST_AGAIN = ['POST', 'GET service', 'GET service', 'POST']
FORESEEN = {
    'stopped: both fail, apply after its refused POST': (
        SERVICE_DEV, [], dict(fails='service %s is stopped; a pipe call never starts a stopped service' % SERVICE_DEV),
        dict(fails='service %s is stopped; a pipe call never starts a stopped service' % SERVICE_DEV), ['POST']),
    'idle: check mode warns that apply wakes it, apply wakes it': (
        SERVICE_IDLE, [], dict(warning='the real run would then wake the service (awake'),
        dict(warning='was idle: it was woken (awake) for a pipe call'), ['POST', 'GET service', 'awake', 'GET service', 'POST']),
    'failed: both fail, naming the state': (
        SERVICE_PROD, [('services', SERVICE_PROD, {'state': 'failed'})],
        dict(fails='is failed; the API allows this pipe call only while the service runs'),
        dict(fails='is failed; the API allows this pipe call only while the service runs'), ['POST']),
}
# A transition is waited out: no command to the service, and the refused create is sent again once it runs.
FORESEEN.update(('%s: check mode warns that apply waits, apply waits' % state, (
    SERVICE_PROD, [('services', SERVICE_PROD, {'state': state, 'then': {'state': 'running', 'reads': 1}})],
    dict(warning='is %s: the API refuses the pipe create until the service runs; the real run would wait' % state),
    dict(warning='was %s: the pipe call was refused until it ran, then sent again' % state), POST_AGAIN))
    for state in ('starting', 'awaking', 'provisioning'))


def _request(service, name):
    pipes = service_path(service, '/pipes')
    return {'POST': ('POST', pipes), 'GET service': ('GET', service_path(service)),
            'awake': ('PATCH', service_path(service, '/state'), {'command': 'awake'})}[name]


@pytest.mark.parametrize('service, edits, check, apply, sent', list(FORESEEN.values()), ids=list(FORESEEN))
def test_check_mode_foresees_what_apply_does(run, service, edits, check, apply, sent):
    listed = ('GET', service_path(service, '/pipes'))
    created = dict(service_id=service, name='new-stream', wait=False, source=STREAM, destination=TABLE)
    run(pipe, created, check=True, edits=edits, requests=[listed, ('GET', service_path(service))],
        fails=check.get('fails'), verify=warned(check.get('warning', '')))
    run(pipe, created, edits=edits, requests=[listed] + [_request(service, name) for name in sent], fails=apply.get('fails'),
        verify=warned(apply.get('warning', '')))


@pytest.mark.parametrize('service, pipe_id, warning', [
    (SERVICE_DEV, PIPE_DEV, 'the API may refuse the pipe settings change while the service is not running'), (SERVICE_PROD, PIPE_KAFKA, None)])
def test_check_mode_warns_of_a_write_a_service_that_is_not_running_may_refuse(run, service, pipe_id, warning):
    run(pipe_settings, dict(service_id=service, pipe_id=pipe_id, settings={'engine_max_threads': 8}), check=True,
        requests=[('GET', pipe_path(pipe_id, '/settings', service)), ('GET', service_path(service))], result={'changed': True},
        verify=warned(warning) if warning else lambda result, sim: 'warnings' not in result)
