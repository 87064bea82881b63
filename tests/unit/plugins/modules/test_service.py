# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import base64
import hashlib
import json

import pytest

from ansible_collections.engine.cloud.plugins.modules import service
from ansible_collections.engine.cloud.tests.simulator import cloud
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import ORGANIZATION, SERVICE_DEV, SERVICE_IDLE, SERVICE_PROD, service_path

PROD = dict(service_id=SERVICE_PROD)

# The rules themselves: test_service_rules.py and test_service_lifecycle_rules.py; here those no rules test holds.
BAD_INPUT = [
    (dict(transparent_data_encryption_key_id=' '), 'transparent_data_encryption_key_id must not be empty'),
    (dict(private_endpoint_ids=['']), 'private_endpoint_ids must not hold empty ids'),
    (dict(password=''), 'password must not be empty'),
    (dict(num_replicas=2, min_replicas=1, max_replicas=3, autoscaling_mode='horizontal'), 'mutually exclusive'),
]


@pytest.mark.parametrize('args, text', BAD_INPUT)
def test_bad_input_fails_before_any_request(run, args, text):
    run(service, dict(PROD, **args), requests=[], fails=text)


# --- an update, and the lifecycle: state present/absent, create, the password, fixed fields, delete ---------------

NEW = '0b5e7c1d-2a3f-4e6b-8c9d-0e1f2a3b4c5d'
SERVICES = '/v1/organizations/%s/services' % ORGANIZATION
LIST = ('GET', SERVICES)
PASSWORD = 'Correct-Horse-7'
STAGING = dict(name='staging-eu', provider='aws', region='eu-central-1', num_replicas=2, min_replica_memory_gb=16,
               max_replica_memory_gb=32, idle_timeout_minutes=30, tags={'env': 'staging'},
               ip_access_list=[{'source': '203.0.113.0/24', 'description': 'office'}])
STAGING_BODY = {'name': 'staging-eu', 'provider': 'aws', 'region': 'eu-central-1', 'minReplicaMemoryGb': 16,
                'maxReplicaMemoryGb': 32, 'numReplicas': 2, 'idleTimeoutMinutes': 30,
                'ipAccessList': [{'source': '203.0.113.0/24', 'description': 'office'}], 'tags': [{'key': 'env', 'value': 'staging'}]}


@pytest.fixture(autouse=True)
def known_new_id(monkeypatch):
    """A created service gets the id NEW, so that cases can name its paths."""
    monkeypatch.setattr(cloud, 'new_service_id', lambda: NEW)


def password_body(password):
    """The body of PATCH .../password, as the API's reference gives it: base64(SHA-256) and hex(SHA-1(SHA-1))."""
    data = password.encode('utf-8')
    return dict(newPasswordHash=base64.b64encode(hashlib.sha256(data).digest()).decode('ascii'),
                newDoubleSha1Hash=hashlib.sha1(hashlib.sha1(data).digest()).hexdigest())


def hashes_of(sim, service_id):
    held = sim.find('services', service_id)['sim']
    return dict(newPasswordHash=held.get('passwordHash'), newDoubleSha1Hash=held.get('doubleSha1Hash'))


CASES = {
    'without diff mode there is no diff': dict(
        args=dict(PROD, name='renamed'),
        requests=[('GET', service_path()), ('PATCH', service_path(), {'name': 'renamed'})],
        result={'changed': True, 'service.name': 'renamed'}, absent=['diff']),
    'key rotation in check mode on a service that is not running warns': dict(
        args=dict(PROD, transparent_data_encryption_key_id='tde-2'), check=True, edits=[('services', SERVICE_PROD, {'state': 'idle'})],
        requests=[('GET', service_path())], result={'changed': True},
        verify=lambda result, sim: 'allows a key rotation only while a service is running' in json.dumps(result['warnings'])),
    'check mode: the diff shows the service that would be created, nothing is sent': dict(
        args=dict(STAGING, password=PASSWORD), check=True, diff=True, requests=[LIST],
        result={'changed': True, 'diff.before': {}, 'diff.after.name': 'staging-eu', 'diff.after.numReplicas': 2,
                'service.state': 'provisioning'},
        verify=lambda result, sim: sim.named('services', 'staging-eu') == [] and PASSWORD not in str(result)),
    'create with a password: POST, the two hashes, the wait; the rerun only reads': dict(
        args=dict(STAGING, password=PASSWORD), diff=True,
        requests=[LIST, ('POST', SERVICES, STAGING_BODY), ('PATCH', service_path(NEW, '/password'), password_body(PASSWORD)),
                  ('GET', service_path(NEW))],
        result={'changed': True, 'service.state': 'running', 'service.id': NEW, 'diff.before': {}},
        absent=['initial_password'],
        verify=lambda result, sim: hashes_of(sim, NEW) == password_body(PASSWORD) and PASSWORD not in str(sim.requests()),
        then=dict(args=dict(STAGING, password=PASSWORD), requests=[LIST], result={'changed': False, 'service.id': NEW})),
    'create without a password returns the generated one, once': dict(
        args=dict(name='reporting-eu', provider='gcp', region='europe-west4', wait=False),
        requests=[LIST, ('POST', SERVICES, {'name': 'reporting-eu', 'provider': 'gcp', 'region': 'europe-west4'})],
        result={'changed': True, 'service.state': 'provisioning'},
        verify=lambda result, sim: password_body(result['initial_password']) == hashes_of(sim, NEW),
        then=dict(args=dict(name='reporting-eu'), requests=[LIST], result={'changed': False}, absent=['initial_password'])),
    'a step after the create that fails still returns the generated password': dict(
        args=dict(name='staging-eu', provider='aws', region='eu-central-1', private_endpoint_ids=['vpce-not-available']),
        requests=[LIST, ('POST', SERVICES), ('GET', service_path(NEW)),
                  ('PATCH', service_path(NEW), {'privateEndpointIds': {'add': ['vpce-not-available']}})],
        fails='vpce-not-available is not an available private endpoint',
        verify=lambda result, sim: password_body(result['initial_password']) == hashes_of(sim, NEW)),
    'private endpoints are set by an update once the service runs': dict(
        args=dict(name='staging-eu', provider='aws', region='eu-central-1', private_endpoint_ids=['vpce-0f9e8d7c6b5a49382']),
        config={'transition_reads': 1},
        requests=[LIST, ('POST', SERVICES, {'name': 'staging-eu', 'provider': 'aws', 'region': 'eu-central-1'}),
                  ('GET', service_path(NEW)), ('GET', service_path(NEW)),
                  ('PATCH', service_path(NEW), {'privateEndpointIds': {'add': ['vpce-0f9e8d7c6b5a49382']}})],
        result={'changed': True, 'service.privateEndpointIds': ['vpce-0f9e8d7c6b5a49382'], 'service.state': 'running'}),
    'the create state is a switch: starting': dict(
        args=dict(name='staging-eu', provider='aws', region='eu-central-1'), config={'create_state': 'starting', 'transition_reads': 2},
        requests=[LIST, ('POST', SERVICES), ('GET', service_path(NEW)), ('GET', service_path(NEW)), ('GET', service_path(NEW))],
        result={'changed': True, 'service.state': 'running'}),
    'a lost create answer that was not applied: never sent again, the task says what to check': dict(
        args=dict(name='staging-eu', provider='aws', region='eu-central-1', wait=False, wait_timeout=3, api_retries=8),
        faults=[{'method': 'POST', 'kind': 'status', 'status': 502}],
        requests=[LIST, ('POST', SERVICES), LIST, LIST],
        fails='HTTP 502 BAD_GATEWAY', absent=['changed', 'initial_password'],
        verify=lambda result, sim: sim.named('services', 'staging-eu') == [] and result['msg'].endswith(
            'the create was not sent again: reads of the services by name for 3 seconds (wait_timeout) showed none named "staging-eu". '
            'The create may or may not have happened: it may never have reached the API, or the API may still be creating it. '
            'Check the services (GET %s) for one named "staging-eu"; the next run reads by name first and carries on with it once '
            'it is there, or creates it when none is' % SERVICES)),
    'a gateway 503 on a create that never reached the API: a few reads by name over 15 s, not wait_timeout, also with wait false': dict(
        args=dict(name='staging-eu', provider='aws', region='eu-central-1', wait=False),
        faults=[{'method': 'POST', 'kind': 'status', 'status': 503}],
        requests=[LIST, ('POST', SERVICES)] + [LIST] * 4, sleeps=[1, 2, 4, 8],
        fails='reads of the services by name for 15 seconds showed none named "staging-eu". The create may or may not have happened',
        absent=['changed', 'initial_password'], verify=lambda result, sim: sim.named('services', 'staging-eu') == []),
    'a create slower than api_timeout: adopted once it shows, a new generated password asked for': dict(
        args=dict(name='staging-eu', provider='aws', region='eu-central-1', wait=False, api_timeout=5),
        config={'slow_create': 9},
        requests=[LIST, ('POST', SERVICES), LIST, LIST, LIST, ('PATCH', service_path(NEW, '/password'), {})],
        result={'changed': True, 'service.id': NEW},
        verify=lambda result, sim: len(sim.named('services', 'staging-eu')) == 1
        and password_body(result['initial_password']) == hashes_of(sim, NEW)),
    'a failed password step after the create: the service, changed, the generated password and how to set the one given': dict(
        args=dict(STAGING, password=PASSWORD), faults=[{'method': 'PATCH', 'path': '/password$', 'kind': 'status', 'status': 500}],
        requests=[LIST, ('POST', SERVICES), ('PATCH', service_path(NEW, '/password'))],
        fails='The service "staging-eu" (id %s) was created by this task before this failure. The password given was not set: the '
              'service has the password the API generated (returned as initial_password); run the task again with update_password: '
              'always to set the one given' % NEW,
        result={'changed': True, 'service.id': NEW, 'status': 500},
        verify=lambda result, sim: password_body(result['initial_password']) == hashes_of(sim, NEW) and 'carries on' not in result['msg'],
        then=dict(args=dict(STAGING, password=PASSWORD, update_password='always'),
                  requests=[LIST, ('PATCH', service_path(NEW, '/password'), password_body(PASSWORD))], result={'changed': True},
                  verify=lambda result, sim: hashes_of(sim, NEW) == password_body(PASSWORD) and len(sim.named('services', 'staging-eu')) == 1)),
    'a password given is set on the service that a lost create answer made': dict(
        args=dict(name='staging-eu', provider='aws', region='eu-central-1', wait=False, password=PASSWORD),
        faults=[{'method': 'POST', 'kind': 'status', 'status': 504, 'apply': True}],
        requests=[LIST, ('POST', SERVICES), LIST, ('PATCH', service_path(NEW, '/password'), password_body(PASSWORD))],
        result={'changed': True, 'service.id': NEW}, absent=['initial_password'],
        verify=lambda result, sim: hashes_of(sim, NEW) == password_body(PASSWORD) and len(sim.named('services', 'staging-eu')) == 1),
    'a failed password step after a lost create answer: no password known, said plainly': dict(
        args=dict(name='staging-eu', provider='aws', region='eu-central-1', wait=False),
        faults=[{'method': 'POST', 'kind': 'status', 'status': 504, 'apply': True},
                {'method': 'PATCH', 'path': '/password$', 'kind': 'status', 'status': 500}],
        requests=[LIST, ('POST', SERVICES), LIST, ('PATCH', service_path(NEW, '/password'), {})],
        fails='No password of the service is known: the one the API generated was in the lost create answer only, and no new one '
              'was set; run the task again with password and update_password: always to set one',
        result={'changed': True, 'service.id': NEW}, absent=['initial_password'], verify=lambda result, sim: 'carries on' not in result['msg']),
    'two services of one name: fails before any write, listing them': dict(
        args=dict(name='prod-analytics', num_replicas=4), edits=[('services', SERVICE_DEV, {'name': 'prod-analytics'})],
        requests=[LIST], fails='2 services are named "prod-analytics" (%s, %s)' % tuple(sorted((SERVICE_PROD, SERVICE_DEV)))),
    'a field fixed at creation that differs fails before any write, naming option and value': dict(
        args=dict(name='prod-analytics', region='us-east-1', min_replica_memory_gb=32, num_replicas=4), requests=[LIST],
        fails='region cannot change on service prod-analytics: it was fixed at creation as "eu-central-1" (got "us-east-1")',
        verify=lambda result, sim: 'min_replica_memory_gb cannot change on service prod-analytics with this module: it is 16 now '
        '(got 32); no request sets the replica memory directly, only the deprecated min_total_memory_gb of '
        'engine.cloud.service_scaling moves it' in result['msg'] and 'fixed at creation as 16' not in result['msg']),
    'an existing service found by name: the PATCH, then scaling through service_scaling\'s rules': dict(
        args=dict(name='prod-analytics', provider='aws', tags={'tier': 'gold'}, num_replicas=4, idle_timeout_minutes=15), diff=True,
        requests=[LIST, ('PATCH', service_path(), {'tags': {'add': [{'key': 'tier', 'value': 'gold'}]}}),
                  ('PATCH', service_path(suffix='/scaling'), {'numReplicas': 4})],
        result={'changed': True, 'service.numReplicas': 4, 'diff.before.numReplicas': 3, 'diff.after.numReplicas': 4},
        then=dict(args=dict(name='prod-analytics', tags={'tier': 'gold'}, num_replicas=4), requests=[LIST], result={'changed': False})),
    'update_password=always sets it on every run (a command)': dict(
        args=dict(service_id=SERVICE_PROD, password=PASSWORD, update_password='always'), diff=True,
        requests=[('GET', service_path()), ('PATCH', service_path(suffix='/password'), password_body(PASSWORD))],
        result={'changed': True, 'diff.after.password': '********'},
        verify=lambda result, sim: hashes_of(sim, SERVICE_PROD) == password_body(PASSWORD)),
    'update_password=on_create leaves an existing service\'s password alone': dict(
        args=dict(service_id=SERVICE_PROD, password=PASSWORD), requests=[('GET', service_path())], result={'changed': False}),
    'absent: a running service is stopped, deleted, and waited for until reads answer 404': dict(
        args=dict(name='prod-analytics', state='absent'), config={'transition_reads': 1}, diff=True,
        requests=[LIST, ('PATCH', service_path(suffix='/state'), {'command': 'stop'}), ('GET', service_path()), ('GET', service_path()),
                  ('DELETE', service_path()), ('GET', service_path()), ('GET', service_path())],
        result={'changed': True, 'diff.after': {}, 'diff.before.name': 'prod-analytics', 'service.state': 'terminating'},
        verify=lambda result, sim: sim.named('services', 'prod-analytics') == [],
        then=dict(args=dict(name='prod-analytics', state='absent'), requests=[LIST], result={'changed': False, 'service': {}})),
    'absent: an idle service is stopped first too': dict(
        args=dict(service_id=SERVICE_IDLE, state='absent', wait=False), config={'transition_reads': 1},
        requests=[('GET', service_path(SERVICE_IDLE)), ('PATCH', service_path(SERVICE_IDLE, '/state'), {'command': 'stop'}),
                  ('GET', service_path(SERVICE_IDLE)), ('GET', service_path(SERVICE_IDLE)), ('DELETE', service_path(SERVICE_IDLE))],
        result={'changed': True}),
    'absent: a stopping service is waited for, then deleted': dict(
        args=dict(service_id=SERVICE_PROD, state='absent'), edits=[('services', SERVICE_PROD, {'state': 'stopping', 'then': {
            'state': 'stopped', 'reads': 1}})], config={'deleted_reads': 'terminated', 'transition_reads': 1},
        requests=[('GET', service_path()), ('GET', service_path()), ('DELETE', service_path()), ('GET', service_path()),
                  ('GET', service_path())],
        result={'changed': True}, verify=lambda result, sim: sim.find('services', SERVICE_PROD)['state'] == 'terminated',
        then=dict(args=dict(service_id=SERVICE_PROD, state='absent'), requests=[('GET', service_path())], result={'changed': False})),
    'present on a service being deleted fails before any write': dict(
        args=dict(service_id=SERVICE_DEV, name='dev-sandbox'), edits=[('services', SERVICE_DEV, {'state': 'terminating'})],
        requests=[('GET', service_path(SERVICE_DEV))], fails='service dev-sandbox is being deleted (state terminating)'),
    'a lost answer to the password request: the same hashes sent again': dict(
        args=dict(service_id=SERVICE_PROD, password=PASSWORD, update_password='always'),
        faults=[{'method': 'PATCH', 'path': '/password$', 'kind': 'status', 'status': 503}],
        requests=[('GET', service_path()), ('PATCH', service_path(suffix='/password'), password_body(PASSWORD)),
                  ('PATCH', service_path(suffix='/password'), password_body(PASSWORD))],
        result={'changed': True}, verify=lambda result, sim: hashes_of(sim, SERVICE_PROD) == password_body(PASSWORD)),
    'absent in check mode: the diff shows the service that would be deleted, nothing is sent': dict(
        args=dict(service_id=SERVICE_DEV, state='absent'), check=True, diff=True, requests=[('GET', service_path(SERVICE_DEV))],
        result={'changed': True, 'diff.after': {}, 'diff.before.name': 'dev-sandbox'},
        verify=lambda result, sim: sim.find('services', SERVICE_DEV)['state'] == 'stopped'),
    'absent on a service being deleted: nothing sent, waited for': dict(
        args=dict(service_id=SERVICE_DEV, state='absent'),
        edits=[('services', SERVICE_DEV, {'state': 'softdeleting', 'then': {'state': 'softdeleted', 'reads': 2}})],
        requests=[('GET', service_path(SERVICE_DEV))] * 3, result={'changed': False, 'service.state': 'softdeleted'},
        verify=lambda result, sim: sim.find('services', SERVICE_DEV)['state'] == 'softdeleted'),
    'absent on a failed service: check mode warns, apply sends the delete (no stop) and reports the API\'s refusal': dict(
        args=dict(service_id=SERVICE_PROD, state='absent'), edits=[('services', SERVICE_PROD, {'state': 'failed'})], check=True,
        requests=[('GET', service_path())], result={'changed': True},
        verify=lambda result, sim: 'takes no stop, so the real run sends the delete as it is' in json.dumps(result['warnings']),
        then=dict(args=dict(service_id=SERVICE_PROD, state='absent'), requests=[('GET', service_path()), ('DELETE', service_path())],
                  fails='HTTP 409', verify=lambda result, sim: sim.find('services', SERVICE_PROD)['state'] == 'failed')),
    'absent on a failed service that the API deletes (failed_service_delete: accepted)': dict(
        args=dict(service_id=SERVICE_PROD, state='absent', wait=False), edits=[('services', SERVICE_PROD, {'state': 'failed'})],
        config={'failed_service_delete': 'accepted'}, requests=[('GET', service_path()), ('DELETE', service_path())],
        result={'changed': True}, verify=lambda result, sim: sim.find('services', SERVICE_PROD)['state'] == 'terminating'),
    'a delete the API refuses fails with the API error, not sent again': dict(
        args=dict(service_id=SERVICE_DEV, state='absent'), faults=[{'method': 'DELETE', 'kind': 'status', 'status': 409}],
        requests=[('GET', service_path(SERVICE_DEV)), ('DELETE', service_path(SERVICE_DEV))],
        fails='409'),
}


def test_service(run, case):
    run(service, **case)


def test_without_service_id_or_name_nothing_is_sent_and_a_create_needs_what_the_list_does_not_show(run):
    run(service, dict(provider='aws'), requests=[], fails='one of the following is required: service_id, name')
    run(service, dict(name='new one', provider='aws'), requests=[LIST], fails='region is required to create service new one')


def test_an_unknown_service_id_is_not_created(run):
    run(service, dict(service_id=NEW, provider='aws', region='eu-central-1'), requests=[('GET', service_path(NEW))],
        fails='does not exist, and a service is created from its name alone')


# What the reference leaves open, as the simulator's switches: (config, the method whose answer is lost after it was applied).
SWITCHES = {
    'create answers starting, deleted reads terminated': (dict(create_state='starting', deleted_reads='terminated'), None),
    'deleted reads softdeleted, a repeated delete refused 400': (dict(deleted_reads='softdeleted', delete_refusal=400), None),
    'unique names, a lost create answer': (dict(unique_service_names=True), 'POST'),
    'deleted reads gone, a lost delete answer': (dict(deleted_reads='gone'), 'DELETE'),
}


@pytest.mark.parametrize('switch', sorted(SWITCHES))
def test_create_and_delete_by_name_under_each_switch_of_the_simulator(run, sim, switch):
    """One POST (after a lost answer, a password asked for again), a rerun that only reads; then a stop and one DELETE
    (a lost answer confirmed by a read), reads that end as switched, and a rerun that only reads."""
    config, lost = SWITCHES[switch]
    create, delete = dict(name='switch-svc', provider='aws', region='us-east-1', wait=False), dict(name='switch-svc', state='absent')
    faults = [dict(method=lost, kind='status', status=504, apply=True)] if lost else []
    ending = config.get('deleted_reads', 'gone')
    run(service, create, config=dict(config, transition_reads=1), faults=faults if lost == 'POST' else [],
        requests=[LIST, ('POST', SERVICES)] + ([LIST, ('PATCH', service_path(NEW, '/password'))] if lost == 'POST' else []),
        result={'changed': True} if lost else {'changed': True, 'service.state': config.get('create_state', 'provisioning')},
        verify=lambda result, sim: len(sim.named('services', 'switch-svc')) == 1 and result['initial_password'],
        then=dict(args=create, requests=[LIST], result={'changed': False}))
    sim.faults(*faults if lost == 'DELETE' else [])
    sim.clear_requests()
    assert run.main(service, delete, False, False)['changed'] is True
    methods = [entry['method'] for entry in sim.requests()]
    assert [method for method in methods if method != 'GET'] == ['PATCH', 'DELETE'] and methods[methods.index('DELETE') + 1] == 'GET'
    assert [item['state'] for item in sim.named('services', 'switch-svc')] == ([] if ending == 'gone' else [ending])
    run(service, delete, requests=[LIST], result={'changed': False})
