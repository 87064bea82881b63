# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The service modules end to end in-process: module args in, JSON result out, with the HTTP
client replaced by a small fake of the management API (recording every request) and a fake clock."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.modules import service, service_info, service_scaling, service_state

ORG = '7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f'
SERVICE = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51'
MISSING = '00000000-0000-4000-8000-000000000000'
PATH = '/v1/organizations/%s/services/%s' % (ORG, SERVICE)
CONNECTION = dict(api_url='http://api.test', api_key_id='kid', api_key_secret='ksecret', organization_id=ORG)
MYSQL = {'protocol': 'mysql', 'host': 'h', 'port': 3306, 'username': 'm'}


class Clock:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    def __call__(self):
        return self.now


class FakeApi:
    """One service; state commands finish `delay` fake seconds later; PATCHes apply like the API."""

    def __init__(self, clock, delay=3):
        self.clock, self.delay = clock, delay
        self.requests = []
        self.pending = None
        self.service = {
            'id': SERVICE, 'name': 'prod-analytics', 'state': 'running', 'releaseChannel': 'default',
            'endpoints': [{'protocol': 'https', 'host': 'h', 'port': 8443, 'username': 'default'}],
            'ipAccessList': [{'source': '203.0.113.0/24', 'description': 'Office'}, {'source': '198.51.100.17', 'description': 'CI'}],
            'privateEndpointIds': ['vpce-a'], 'availablePrivateEndpointIds': ['vpce-a', 'vpce-b'],
            'transparentDataEncryptionKeyId': 'tde-1', 'hasTransparentDataEncryption': True,
            'numReplicas': 3, 'idleScaling': True, 'idleTimeoutMinutes': 15, 'minTotalMemoryGb': 48, 'maxTotalMemoryGb': 360,
        }

    @property
    def writes(self):
        return [r for r in self.requests if r[0] != 'GET']

    def request(self, method, path, params=None, body=None):
        self.requests.append((method, path, copy.deepcopy(body)))
        if not path.startswith(PATH):
            raise http.ApiError('Service %s not found' % MISSING, status=404, code='NOT_FOUND', method=method, path=path,
                                request_id='rid-404')
        if self.pending and self.clock() >= self.pending[1]:
            self.service['state'] = self.pending[0]
            self.pending = None
        if method == 'PATCH' and path == PATH:
            self.patch(body)
        elif method == 'PATCH' and path == PATH + '/scaling':
            self.service.update(body)
        elif method == 'PATCH' and path == PATH + '/state':
            interim, target = {'start': ('starting', 'running'), 'stop': ('stopping', 'stopped')}[body['command']]
            self.service['state'] = interim
            self.pending = (target, self.clock() + self.delay)
        return {'status': 200, 'requestId': 'rid', 'result': copy.deepcopy(self.service)}

    def patch(self, body):
        entries = dict((entry['source'], entry) for entry in self.service['ipAccessList'])
        for entry in body.get('ipAccessList', {}).get('remove', []):
            del entries[entry['source']]
        for entry in body.get('ipAccessList', {}).get('add', []):
            entries[entry['source']] = dict(entry, description=entry.get('description', ''))
        self.service['ipAccessList'] = list(entries.values())
        ids = [i for i in self.service['privateEndpointIds'] if i not in body.get('privateEndpointIds', {}).get('remove', [])]
        self.service['privateEndpointIds'] = ids + body.get('privateEndpointIds', {}).get('add', [])
        for change in body.get('endpoints', []):
            self.service['endpoints'] = [e for e in self.service['endpoints'] if e['protocol'] != change['protocol']]
            if change['enabled']:
                self.service['endpoints'].append(dict(MYSQL))
        for field in ('name', 'releaseChannel', 'transparentDataEncryptionKeyId'):
            if field in body:
                self.service[field] = body[field]


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def api(monkeypatch, clock):
    fake = FakeApi(clock)
    monkeypatch.setattr(http.HttpClient, 'request', lambda self, *args, **kwargs: fake.request(*args, **kwargs))
    monkeypatch.setattr(CLOCK, 'sleep', clock.sleep)
    monkeypatch.setattr(CLOCK, 'monotonic', clock)
    return fake


def run(capsys, module, check=False, diff=False, **args):
    args = dict(CONNECTION, **args)
    args.setdefault('service_id', SERVICE)
    args.update(_ansible_check_mode=check, _ansible_diff=diff)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    out = capsys.readouterr().out
    assert 'ksecret' not in out
    return json.loads(out)


# service_info -----------------------------------------------------------------------------

def test_service_info_reads_once_and_never_changes(api, capsys):
    result = run(capsys, service_info, check=True)
    assert result['changed'] is False
    assert result['service'] == api.service
    assert api.requests == [('GET', PATH, None)]


def test_service_info_unknown_service_names_status_code_and_request_id(api, capsys):
    result = run(capsys, service_info, service_id=MISSING)
    assert result['failed'] is True
    assert result['status'] == 404 and result['code'] == 'NOT_FOUND' and result['request_id'] == 'rid-404'
    assert 'HTTP 404 NOT_FOUND' in result['msg'] and MISSING in result['msg']


# service ----------------------------------------------------------------------------------

CHANGE = dict(name='prod analytics',
              ip_access_list=[{'source': '10.0.0.0/8', 'description': 'VPC'}, {'source': '198.51.100.17/32', 'description': 'CI 2'}],
              purge_ip_access_list=True, private_endpoint_ids=['vpce-b'], endpoints=[{'protocol': 'mysql', 'enabled': True}])


def test_service_check_mode_predicts_without_writing(api, capsys):
    before = copy.deepcopy(api.service)
    result = run(capsys, service, check=True, diff=True, **CHANGE)
    assert result['changed'] is True
    assert api.writes == [] and api.service == before
    assert sorted(result['diff']['after']) == ['endpoints', 'ipAccessList', 'name', 'privateEndpointIds']
    assert result['service']['name'] == 'prod analytics'


def test_service_apply_sends_one_patch_then_rerun_sends_one_get(api, capsys):
    checked = run(capsys, service, check=True, diff=True, **CHANGE)
    del api.requests[:]
    result = run(capsys, service, diff=True, **CHANGE)
    assert result['changed'] is True
    assert result['diff'] == checked['diff']
    assert api.writes == [('PATCH', PATH, {
        'name': 'prod analytics',
        'ipAccessList': {'remove': [{'source': '203.0.113.0/24', 'description': 'Office'},
                                    {'source': '198.51.100.17', 'description': 'CI'}],
                         'add': [{'source': '198.51.100.17', 'description': 'CI 2'}, {'source': '10.0.0.0/8', 'description': 'VPC'}]},
        'privateEndpointIds': {'add': ['vpce-b']},
        'endpoints': [{'protocol': 'mysql', 'enabled': True}],
    })]
    del api.requests[:]
    again = run(capsys, service, diff=True, **CHANGE)
    assert again['changed'] is False and 'diff' not in again
    assert api.requests == [('GET', PATH, None)]


def test_service_without_diff_mode_returns_no_diff(api, capsys):
    result = run(capsys, service, name='renamed')
    assert result['changed'] is True and 'diff' not in result
    assert api.writes == [('PATCH', PATH, {'name': 'renamed'})]


@pytest.mark.parametrize('args, text', [
    (dict(name='bad_name'), "name must be 1 to 50 letters"),
    (dict(ip_access_list=[{'source': '10.0.0.1/8'}]), 'ip_access_list[0].source must be an IPv4 address or CIDR block'),
    (dict(ip_access_list=[{'source': '10.0.0.1'}, {'source': '10.0.0.1/32'}]), 'ip_access_list lists the source'),
    (dict(endpoints=[{'protocol': 'mysql', 'enabled': True}, {'protocol': 'mysql', 'enabled': False}]), 'endpoints lists the protocol mysql'),
    (dict(endpoints=[{'protocol': 'https', 'enabled': True}]), 'value of protocol must be one of: mysql'),
    (dict(transparent_data_encryption_key_id=' '), 'transparent_data_encryption_key_id must not be empty'),
    (dict(private_endpoint_ids=['']), 'private_endpoint_ids must not hold empty ids'),
    (dict(service_id='prod'), 'service_id must be a UUID'),
])
def test_service_bad_input_fails_before_any_request(api, capsys, args, text):
    result = run(capsys, service, **args)
    assert result['failed'] is True
    assert text in result['msg']
    assert api.requests == []


# service_scaling --------------------------------------------------------------------------

def test_scaling_sends_only_what_differs_and_is_idempotent(api, capsys):
    result = run(capsys, service_scaling, diff=True, num_replicas=4, idle_scaling=True, idle_timeout_minutes='15')
    assert result['changed'] is True
    assert result['diff'] == {'before': {'numReplicas': 3}, 'after': {'numReplicas': 4}}
    assert api.writes == [('PATCH', PATH + '/scaling', {'numReplicas': 4})]
    assert 'deprecations' not in result or not result['deprecations']
    del api.requests[:]
    assert run(capsys, service_scaling, num_replicas=4)['changed'] is False
    assert api.requests == [('GET', PATH, None)]


def test_scaling_check_mode_writes_nothing(api, capsys):
    result = run(capsys, service_scaling, check=True, diff=True, idle_scaling=False)
    assert result['changed'] is True and result['service']['idleScaling'] is False
    assert api.writes == [] and api.service['idleScaling'] is True


def test_scaling_memory_options_are_deprecated(api, capsys):
    result = run(capsys, service_scaling, min_total_memory_gb=48, max_total_memory_gb=96)
    assert api.writes == [('PATCH', PATH + '/scaling', {'maxTotalMemoryGb': 96})]
    # The wire format of a module's deprecations differs between ansible-core versions: look inside.
    assert len(result['deprecations']) == 2
    for option, field in (('min_total_memory_gb', 'minTotalMemoryGb'), ('max_total_memory_gb', 'maxTotalMemoryGb')):
        found = [json.dumps(item) for item in result['deprecations'] if '%s sets %s' % (option, field) in json.dumps(item)]
        assert len(found) == 1
        assert '2.0.0' in found[0] and 'engine.cloud' in found[0]


@pytest.mark.parametrize('args, text', [
    (dict(min_total_memory_gb=36, max_total_memory_gb=24), 'max_total_memory_gb (24) must be at least min_total_memory_gb (36)'),
    (dict(max_total_memory_gb=1080), 'max_total_memory_gb must be between 24 and 1068 and a multiple of 12, got 1080'),
    (dict(num_replicas=21), 'num_replicas must be between 1 and 20, got 21'),
    (dict(idle_timeout_minutes=4), 'idle_timeout_minutes must be at least 5, got 4'),
])
def test_scaling_limits_fail_before_any_request(api, capsys, args, text):
    result = run(capsys, service_scaling, **args)
    assert result['failed'] is True and result['msg'] == text
    assert api.requests == []


def test_scaling_max_below_current_min_fails_after_the_get_only(api, capsys):
    result = run(capsys, service_scaling, max_total_memory_gb=24)
    assert result['msg'] == 'max_total_memory_gb (24) must be at least the current minTotalMemoryGb (48)'
    assert api.requests == [('GET', PATH, None)]


# service_state ----------------------------------------------------------------------------

def test_stop_waits_until_stopped_with_growing_intervals(api, capsys, clock):
    api.delay = 20
    result = run(capsys, service_state, diff=True, state='stopped')
    assert result['changed'] is True
    assert result['service']['state'] == 'stopped'
    assert result['diff'] == {'before': {'state': 'running'}, 'after': {'state': 'stopped'}}
    assert api.writes == [('PATCH', PATH + '/state', {'command': 'stop'})]
    assert clock.sleeps == [1, 2, 4, 8, 10]
    del api.requests[:]
    assert run(capsys, service_state, state='stopped')['changed'] is False
    assert api.requests == [('GET', PATH, None)]


def lose_the_answer_of_state_commands(api):
    """The API applies the command and its answer is lost (the client does not send a PATCH again)."""
    original = api.request

    def request(method, path, params=None, body=None):
        response = original(method, path, params, body)
        if method == 'PATCH' and path.endswith('/state'):
            raise http.ApiError('no response within api_timeout (30 s)', method=method, path=path, answer_lost=True)
        return response
    api.request = request


def test_a_command_applied_with_a_lost_answer_is_a_success(api, capsys, clock):
    lose_the_answer_of_state_commands(api)
    result = run(capsys, service_state, state='stopped')
    assert result['changed'] is True and result['service']['state'] == 'stopped'
    assert api.writes == [('PATCH', PATH + '/state', {'command': 'stop'})]
    assert api.requests[2] == ('GET', PATH, None)


def test_a_refused_command_that_was_not_applied_still_fails(api, capsys):
    original = api.request

    def request(method, path, params=None, body=None):
        if method == 'PATCH':
            raise http.ApiError('Cannot stop the service now', status=409, code='CONFLICT', method=method, path=path, attempts=2)
        return original(method, path, params, body)
    api.request = request
    result = run(capsys, service_state, state='stopped')
    assert result['failed'] is True and 'HTTP 409 CONFLICT' in result['msg']


def test_no_wait_returns_the_command_response(api, capsys, clock):
    api.service['state'] = 'stopped'
    result = run(capsys, service_state, state='started', wait=False)
    assert result['changed'] is True and result['service']['state'] == 'starting'
    assert clock.sleeps == []


@pytest.mark.parametrize('current', ['running', 'idle', 'starting', 'awaking', 'partially_running'])
def test_started_sends_no_command_for_started_states(api, capsys, current):
    api.service['state'] = current
    result = run(capsys, service_state, state='started', wait=False)
    assert result['changed'] is False
    assert api.writes == []


def test_already_stopping_waits_without_a_command(api, capsys, clock):
    api.service['state'] = 'stopping'
    api.pending = ('stopped', 5)
    result = run(capsys, service_state, state='stopped')
    assert result['changed'] is False and result['service']['state'] == 'stopped'
    assert api.writes == []
    assert clock.sleeps == [1, 2, 4]


def test_check_mode_neither_commands_nor_waits(api, capsys, clock):
    result = run(capsys, service_state, check=True, state='stopped')
    assert result['changed'] is True and result['service']['state'] == 'stopped'
    api.service['state'] = 'stopping'
    result = run(capsys, service_state, check=True, state='stopped')
    assert result['changed'] is False and result['service']['state'] == 'stopping'
    assert api.writes == [] and clock.sleeps == []


@pytest.mark.parametrize('failure', ['failed', 'degraded'])
def test_a_failure_state_ends_the_wait_at_once(api, capsys, clock, failure):
    api.service['state'] = 'stopped'
    api.delay = 2
    original = api.request

    def request(method, path, params=None, body=None):
        response = original(method, path, params, body)
        if api.pending and api.pending[0] == 'running':
            api.pending = (failure, api.pending[1])
        return response
    api.request = request
    result = run(capsys, service_state, state='started')
    assert result['failed'] is True
    assert result['msg'] == 'service %s entered the failure state %s' % (SERVICE, failure)
    assert result['service']['state'] == failure
    assert clock.sleeps == [1, 2]


def test_timeout_names_the_last_state(api, capsys, clock):
    api.service['state'] = 'stopping'
    result = run(capsys, service_state, state='stopped', wait_timeout=5)
    assert result['failed'] is True
    assert result['msg'] == 'service %s did not reach stopped within 5 seconds; last state: stopping' % SERVICE
    assert result['service']['state'] == 'stopping'
    assert clock.sleeps == [1, 2, 2]
    assert api.writes == []


def test_wait_timeout_below_one_fails_before_any_request(api, capsys):
    result = run(capsys, service_state, state='stopped', wait_timeout=0)
    assert result['msg'] == 'wait_timeout must be at least 1 second, got 0'
    assert api.requests == []
