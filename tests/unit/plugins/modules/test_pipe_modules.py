# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The pipe modules end to end in-process: module args in, JSON result out, with the HTTP client
replaced by a small fake of the management API that records every request and a fake clock."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.pipe import SETTINGS
from ansible_collections.engine.cloud.plugins.modules import pipe_info, pipe_settings, pipe_settings_info, pipe_state, rpe_info

ORG = '7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f'
SERVICE = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51'
KAFKA = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61'
STORAGE = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c62'
POSTGRES = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c64'
RPE = '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d81'
MISSING = '00000000-0000-4000-8000-000000000000'
SECRET = 'DefaultEndpointsProtocol=https;AccountName=unit;AccountKey=dW5pdC1zZWNyZXQ=;EndpointSuffix=core.windows.net'
BASE = '/v1/organizations/%s/services/%s' % (ORG, SERVICE)
CONNECTION = dict(api_url='http://api.test', api_key_id='kid', api_key_secret='ksecret', organization_id=ORG)


def settings(**values):
    result = dict((name, None) for name in SETTINGS)
    result.update(values)
    return result


def make_pipe(pipe_id, name, kind, state, source=None):
    sources = dict(kafka=None, objectStorage=None, stream=None, postgres=None)
    sources[kind] = source or {'host': 'h'}
    return dict(id=pipe_id, serviceId=SERVICE, name=name, state=state, source=sources, settings=settings())


class Clock:
    def __init__(self):
        self.now = 0.0

    def sleep(self, seconds):
        self.now += seconds

    def __call__(self):
        return self.now


class FakeApi:
    """Pipes with transitions that finish `delay` fake seconds after a command."""

    def __init__(self, clock, delay=3):
        self.clock, self.delay = clock, delay
        self.requests = []
        self.pending = {}
        self.pipes = {
            KAFKA: make_pipe(KAFKA, 'orders-kafka', 'kafka', 'Running'),
            STORAGE: make_pipe(STORAGE, 'events-objectstorage', 'objectStorage', 'Running',
                               {'url': 'https://x/y', 'connectionString': SECRET}),
            POSTGRES: make_pipe(POSTGRES, 'users-postgres', 'postgres', 'Running'),
        }
        self.pipes[STORAGE]['settings'].update(object_storage_concurrency=4, object_storage_use_cluster_function=False)
        self.rpe = {'id': RPE, 'serviceId': SERVICE, 'status': 'Ready', 'dnsNames': ['a.example']}

    @property
    def writes(self):
        return [r for r in self.requests if r[0] != 'GET']

    def transition(self, pipe, interim, target):
        pipe['state'] = interim
        self.pending[pipe['id']] = (target, self.clock() + self.delay)

    def settle(self, pipe):
        target = self.pending.get(pipe['id'])
        if target and self.clock() >= target[1]:
            pipe['state'] = target[0]
            del self.pending[pipe['id']]
        return pipe

    def request(self, method, path, params=None, body=None):
        self.requests.append((method, path, copy.deepcopy(body)))
        if path == BASE + '/pipesReversePrivateEndpoints/' + RPE:
            return {'result': copy.deepcopy(self.rpe)}
        parts = path[len(BASE) + 1:].split('/')
        pipe = self.pipes.get(parts[1]) if path.startswith(BASE + '/pipes/') else None
        if pipe is None:
            raise http.ApiError('Pipe %s not found' % parts[-1], status=404, code='NOT_FOUND', method=method, path=path,
                                request_id='rid-404')
        self.settle(pipe)
        if parts[2:] == ['settings']:
            if method == 'PUT':
                pipe['settings'].update((k, SETTINGS[k][3] if v is None else v) for k, v in body.items())
            return {'result': dict(pipe['settings'])}
        if parts[2:] == ['state'] and method == 'PATCH':
            stopped = ('Pausing', 'Paused') if pipe['source']['postgres'] else ('Stopping', 'Stopped')
            self.transition(pipe, *{'stop': stopped, 'start': ('Provisioning', 'Running'), 'resync': ('Resync', 'Running')}[body['command']])
        return {'result': copy.deepcopy(pipe)}


@pytest.fixture
def api(monkeypatch):
    clock = Clock()
    fake = FakeApi(clock)
    monkeypatch.setattr(http.HttpClient, 'request', lambda self, *args, **kwargs: fake.request(*args, **kwargs))
    monkeypatch.setattr(CLOCK, 'sleep', clock.sleep)
    monkeypatch.setattr(CLOCK, 'monotonic', clock)
    return fake


def run(capsys, module, check=False, diff=False, **args):
    args = dict(CONNECTION, service_id=SERVICE, **args)
    args.update(_ansible_check_mode=check, _ansible_diff=diff)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    out = capsys.readouterr().out
    assert SECRET not in out
    return json.loads(out)


# pipe_info, pipe_settings_info, rpe_info --------------------------------------------------------

def test_pipe_info_masks_the_connection_string(api, capsys):
    result = run(capsys, pipe_info, pipe_id=STORAGE)
    assert result['changed'] is False
    assert result['pipe']['source']['objectStorage'] == {'url': 'https://x/y', 'connectionString': '********'}
    assert api.requests == [('GET', BASE + '/pipes/' + STORAGE, None)]


def test_pipe_info_404_names_status_code_and_path(api, capsys):
    result = run(capsys, pipe_info, pipe_id=MISSING)
    assert result['failed'] is True
    assert result['status'] == 404 and result['code'] == 'NOT_FOUND'
    assert 'HTTP 404 NOT_FOUND' in result['msg'] and MISSING in result['msg'] and 'rid-404' in result['msg']


@pytest.mark.parametrize('module, option', [(pipe_info, 'pipe_id'), (pipe_settings_info, 'pipe_id'),
                                            (rpe_info, 'reverse_private_endpoint_id')])
def test_ids_are_checked_before_sending(api, capsys, module, option):
    result = run(capsys, module, **{option: 'not-a-uuid'})
    assert result['failed'] is True
    assert result['msg'] == "%s must be a UUID (8-4-4-4-12 hexadecimal digits), got 'not-a-uuid'" % option
    assert api.requests == []


def test_settings_info_and_rpe_info_return_the_resource(api, capsys):
    assert run(capsys, pipe_settings_info, pipe_id=STORAGE)['settings'] == api.pipes[STORAGE]['settings']
    assert run(capsys, rpe_info, reverse_private_endpoint_id=RPE)['reverse_private_endpoint'] == api.rpe
    assert [r[0] for r in api.requests] == ['GET', 'GET']


# pipe_settings ----------------------------------------------------------------------------------

def test_settings_apply_puts_only_what_differs_and_returns_all(api, capsys):
    result = run(capsys, pipe_settings, diff=True, pipe_id=STORAGE,
                 settings=dict(object_storage_concurrency=8, engine_max_threads=None, object_storage_use_cluster_function=None))
    assert result['changed'] is True
    assert api.writes == [('PUT', BASE + '/pipes/%s/settings' % STORAGE,
                           {'object_storage_concurrency': 8, 'object_storage_use_cluster_function': None})]
    assert result['settings'] == settings(object_storage_concurrency=8, object_storage_use_cluster_function=True)
    assert result['diff'] == {'before': {'object_storage_concurrency': 4, 'object_storage_use_cluster_function': False},
                              'after': {'object_storage_concurrency': 8, 'object_storage_use_cluster_function': True}}


def test_settings_rerun_and_defaults_change_nothing(api, capsys):
    wanted = dict(object_storage_concurrency=8, object_storage_use_cluster_function=None)
    run(capsys, pipe_settings, pipe_id=STORAGE, settings=wanted)
    del api.requests[:]
    for again in (wanted, dict(object_storage_concurrency='8', object_storage_use_cluster_function=True, engine_max_threads=3)):
        result = run(capsys, pipe_settings, diff=True, pipe_id=STORAGE, settings=again)
        assert result['changed'] is False and 'diff' not in result
    assert api.writes == []
    assert len(api.requests) == 2


def test_settings_check_mode_predicts_and_sends_no_put(api, capsys):
    before = dict(api.pipes[STORAGE]['settings'])
    result = run(capsys, pipe_settings, check=True, diff=True, pipe_id=STORAGE,
                 settings=dict(object_storage_concurrency=None, engine_max_insert_threads=4))
    assert result['changed'] is True
    assert result['settings'] == dict(before, object_storage_concurrency=None, engine_max_insert_threads=4)
    assert result['diff']['after'] == {'object_storage_concurrency': None, 'engine_max_insert_threads': 4}
    assert api.writes == [] and api.pipes[STORAGE]['settings'] == before


def test_settings_bad_values_fail_together_before_any_request(api, capsys):
    result = run(capsys, pipe_settings, pipe_id=STORAGE,
                 settings=dict(object_storage_concurrency=36, engine_parallel_view_processing='maybe', bogus=1))
    assert result['failed'] is True
    assert 'settings has an unknown key' in result['msg'] and 'streaming_max_insert_wait_ms' in result['msg']
    assert 'settings.object_storage_concurrency must be between 1 and 35, got 36' in result['msg']
    assert "settings.engine_parallel_view_processing must be true, false or null, got 'maybe'" in result['msg']
    assert api.requests == []


def test_settings_put_answer_without_every_key_is_completed_by_a_read(api, capsys, monkeypatch):
    real = api.request

    def partial_put(method, path, params=None, body=None):
        answer = real(method, path, params, body)
        return {'result': body} if method == 'PUT' else answer
    monkeypatch.setattr(http.HttpClient, 'request', lambda self, *args, **kwargs: partial_put(*args, **kwargs))
    result = run(capsys, pipe_settings, pipe_id=KAFKA, settings=dict(engine_max_threads=16))
    assert [r[0] for r in api.requests] == ['GET', 'PUT', 'GET']
    assert result['settings'] == settings(engine_max_threads=16)


# pipe_state -------------------------------------------------------------------------------------

def test_stop_then_start_with_waits(api, capsys):
    result = run(capsys, pipe_state, diff=True, pipe_id=KAFKA, state='stopped')
    assert result['changed'] is True and result['pipe']['state'] == 'Stopped'
    assert result['diff'] == {'before': {'state': 'Running'}, 'after': {'state': 'Stopped'}}
    assert api.writes == [('PATCH', BASE + '/pipes/%s/state' % KAFKA, {'command': 'stop'})]
    result = run(capsys, pipe_state, pipe_id=KAFKA, state='stopped')
    assert result['changed'] is False and len(api.writes) == 1
    result = run(capsys, pipe_state, pipe_id=KAFKA, state='started')
    assert result['changed'] is True and result['pipe']['state'] == 'Running'
    assert api.writes[1][2] == {'command': 'start'}


def test_postgres_stop_settles_as_paused(api, capsys):
    result = run(capsys, pipe_state, pipe_id=POSTGRES, state='stopped')
    assert result['pipe']['state'] == 'Paused'


def test_check_mode_reports_without_a_command(api, capsys):
    result = run(capsys, pipe_state, check=True, diff=True, pipe_id=POSTGRES, state='stopped')
    assert result['changed'] is True and result['pipe']['state'] == 'Paused'
    assert result['diff'] == {'before': {'state': 'Running'}, 'after': {'state': 'Paused'}}
    assert api.writes == []


def test_resync_postgres_always_sends(api, capsys):
    for dummy in range(2):
        result = run(capsys, pipe_state, pipe_id=POSTGRES, state='resynced')
        assert result['changed'] is True and result['pipe']['state'] == 'Running'
    assert [w[2] for w in api.writes] == [{'command': 'resync'}] * 2
    assert run(capsys, pipe_state, check=True, pipe_id=POSTGRES, state='resynced')['changed'] is True
    assert len(api.writes) == 2


def test_resync_of_kafka_is_refused_after_one_read(api, capsys):
    result = run(capsys, pipe_state, pipe_id=KAFKA, state='resynced')
    assert result['failed'] is True and 'has a kafka source' in result['msg']
    assert api.requests == [('GET', BASE + '/pipes/' + KAFKA, None)]


def test_wait_timeout_fails_with_the_last_state_and_masked_pipe(api, capsys):
    api.delay = 1000
    result = run(capsys, pipe_state, pipe_id=STORAGE, state='stopped', wait_timeout=30)
    assert result['failed'] is True
    assert result['msg'] == 'pipe %s did not reach Completed or Stopped within 30 seconds; last state: Stopping' % STORAGE
    assert result['pipe']['state'] == 'Stopping'
    assert result['pipe']['source']['objectStorage']['connectionString'] == '********'


@pytest.mark.parametrize('failure', ['Failed', 'InternalError'])
def test_failure_state_fails_at_once(api, capsys, failure):
    real = api.settle

    def fail_on_start(pipe):
        real(pipe)
        if pipe['state'] == 'Provisioning':
            pipe['state'] = failure
        return pipe
    api.settle = fail_on_start
    api.pipes[KAFKA]['state'] = 'Stopped'
    result = run(capsys, pipe_state, pipe_id=KAFKA, state='started')
    assert result['failed'] is True
    assert result['msg'] == 'pipe %s entered the failure state %s' % (KAFKA, failure)


def test_no_wait_returns_the_patch_answer(api, capsys):
    result = run(capsys, pipe_state, pipe_id=KAFKA, state='stopped', wait=False)
    assert result['pipe']['state'] == 'Stopping'
    assert [r[0] for r in api.requests] == ['GET', 'PATCH']


def test_a_stopping_pipe_is_started_once_stopped(api, capsys):
    api.transition(api.pipes[KAFKA], 'Stopping', 'Stopped')
    result = run(capsys, pipe_state, pipe_id=KAFKA, state='started')
    assert result['changed'] is True and result['pipe']['state'] == 'Running'
    assert [w[2] for w in api.writes] == [{'command': 'start'}]


def test_start_from_completed_fails_without_sending(api, capsys):
    api.pipes[STORAGE]['state'] = 'Completed'
    result = run(capsys, pipe_state, pipe_id=STORAGE, state='started')
    assert result['failed'] is True and 'cannot be started from state Completed' in result['msg']
    assert api.writes == []


def test_wait_timeout_must_be_positive(api, capsys):
    result = run(capsys, pipe_state, pipe_id=KAFKA, state='stopped', wait_timeout=0)
    assert result['msg'] == 'wait_timeout must be at least 1 second, got 0'
    assert api.requests == []
