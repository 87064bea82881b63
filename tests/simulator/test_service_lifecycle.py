"""The lifecycle of a service: create (every field checked strictly), the password endpoint, delete, and the
switches for what the reference leaves open (create_state, delete_refusal, deleted_reads, unique_service_names)."""

import base64
import hashlib
import urllib.error

import pytest

from .cloud import password_hashes
from .fixture_ids import ORGANIZATION, SERVICE_DEV, SERVICE_HORIZONTAL, SERVICE_PROD, service_path
from .test_cloud import assert_error
from .test_openapi import TEMPLATE, document, validate  # noqa: F401 pylint: disable=unused-import
from .test_states import set_state

SERVICES = '/v1/organizations/%s/services' % ORGANIZATION
MINIMAL = {'name': 'staging 1', 'provider': 'aws', 'region': 'eu-central-1'}


def create(sim, **fields):
    return sim.cloud('POST', SERVICES, dict(MINIMAL, **fields))


def state_of(sim, service_id):
    return next(service for service in sim.admin('GET', 'state')['services'] if service['id'] == service_id)


def test_create_answers_the_service_and_the_password_once(sim, document):  # noqa: F811
    reply = create(sim, tags=[{'key': 'env', 'value': 'staging'}], ipAccessList=[{'source': '203.0.113.0/24', 'description': 'office'}],
                   endpoints=[{'protocol': 'mysql', 'enabled': True}], idleTimeoutMinutes=30, enableCoreDumps=False,
                   releaseChannel='fast', minReplicaMemoryGb=16, maxReplicaMemoryGb=32, numReplicas=2)
    assert reply.status == 200, reply.text
    service, password = reply.result['service'], reply.result['password']
    assert set(reply.result) == {'service', 'password'} and len(password) >= 16
    assert service['state'] == 'provisioning' and service['name'] == 'staging 1' and service['numReplicas'] == 2
    assert service['tags'] == [{'key': 'env', 'value': 'staging'}] and service['releaseChannel'] == 'fast'
    assert [endpoint['protocol'] for endpoint in service['endpoints']] == ['https', 'nativesecure', 'mysql']
    assert service['isPrimary'] and service['privateEndpointIds'] == [] and 'sim' not in service
    assert state_of(sim, service['id'])['sim']['passwordHash'] == password_hashes(password)[0]
    read = sim.cloud('GET', service_path(service['id']))
    validate(document, TEMPLATE, 'get', read)
    assert 'password' not in read.text and password not in read.text
    assert sim.wait_for_state(service_path(service['id']), 'running')['state'] == 'running'
    assert service['id'] in [item['id'] for item in sim.cloud('GET', SERVICES).result]


def test_a_horizontal_service(sim):
    service = create(sim, autoscalingMode='horizontal', minReplicas=2, maxReplicas=6, minReplicaMemoryGb=32,
                     maxReplicaMemoryGb=32).result['service']
    assert (service['minReplicas'], service['maxReplicas'], service['replicaMemoryGb']) == (2, 6, 32)
    assert not set(service) & {'numReplicas', 'minTotalMemoryGb', 'maxTotalMemoryGb'}


def test_the_create_state_is_a_switch(sim):
    sim.admin('PATCH', 'config', {'create_state': 'starting'})
    assert create(sim).result['service']['state'] == 'starting'


@pytest.mark.parametrize('fields, field', [
    ({'name': None}, 'name'),
    ({'name': 'bad/name'}, 'name'),
    ({'name': 'x' * 51}, 'name'),
    ({'provider': 'ibm'}, 'provider'),
    ({'region': 'us-east1'}, 'region'),                     # a gcp region for aws
    ({'tier': 'huge'}, 'tier'),
    ({'colour': 'blue'}, 'colour'),
    ({'password': 'secret'}, 'password'),                   # the create request takes no password
    ({'minReplicaMemoryGb': 10}, 'minReplicaMemoryGb'),
    ({'minReplicaMemoryGb': 4}, 'minReplicaMemoryGb'),
    ({'maxReplicaMemoryGb': 360}, 'maxReplicaMemoryGb'),
    ({'minReplicaMemoryGb': 32, 'maxReplicaMemoryGb': 16}, 'maxReplicaMemoryGb'),
    ({'numReplicas': '3'}, 'numReplicas'),
    ({'numReplicas': True}, 'numReplicas'),
    ({'numReplicas': 21}, 'numReplicas'),
    ({'numReplicas': 1}, 'numReplicas'),                   # the first service of a warehouse
    ({'numReplicas': 3, 'autoscalingMode': 'horizontal', 'minReplicas': 1, 'maxReplicas': 3}, 'numReplicas'),
    ({'minReplicas': 1, 'maxReplicas': 3}, 'minReplicas'),  # a band without horizontal
    ({'autoscalingMode': 'horizontal', 'minReplicas': 2}, 'maxReplicas'),
    ({'autoscalingMode': 'horizontal', 'minReplicas': 4, 'maxReplicas': 2}, 'maxReplicas'),
    ({'autoscalingMode': 'horizontal', 'minReplicas': 1, 'maxReplicas': 2, 'minReplicaMemoryGb': 8, 'maxReplicaMemoryGb': 16},
     'maxReplicaMemoryGb'),
    ({'autoscalingMode': 'sideways'}, 'autoscalingMode'),
    ({'idleTimeoutMinutes': 4}, 'idleTimeoutMinutes'),
    ({'idleScaling': 'yes'}, 'idleScaling'),
    ({'isReadonly': True}, 'isReadonly'),
    ({'dataWarehouseId': 'dw-nope'}, 'dataWarehouseId'),
    ({'privateEndpointIds': ['vpce-0a1b2c3d4e5f60718']}, 'privateEndpointIds'),
    ({'tier': 'development', 'releaseChannel': 'fast'}, 'releaseChannel'),
    ({'releaseChannel': 'weekly'}, 'releaseChannel'),
    ({'ipAccessList': [{'source': '10.0.0.1/8'}]}, 'ipAccessList[0].source'),
    ({'endpoints': [{'protocol': 'https', 'enabled': False}]}, 'endpoints[0]'),
    ({'tags': [{'key': 'a b'}]}, 'tags[0].key'),
    ({'tags': [{'key': 'a'}, {'key': 'a', 'value': 'b'}]}, 'tags[1].key'),
    ({'complianceType': 'sox'}, 'complianceType'),
    ({'profile': 'v2'}, 'profile'),
    ({'backupId': 'yesterday'}, 'backupId'),
    ({'minTotalMemoryGb': 30}, 'minTotalMemoryGb'),
])
def test_create_is_refused_field_by_field(sim, fields, field):
    body = dict(MINIMAL, **fields)
    body = {key: value for key, value in body.items() if value is not None}
    assert_error(sim.cloud('POST', SERVICES, body), 400, 'BAD_REQUEST', 'request body.' + field)
    assert len(sim.admin('GET', 'state')['services']) == 6


@pytest.mark.parametrize('missing', ['name', 'provider', 'region'])
def test_name_provider_and_region_are_needed(sim, missing):
    body = {key: value for key, value in MINIMAL.items() if key != missing}
    assert_error(sim.cloud('POST', SERVICES, body), 400, 'BAD_REQUEST', 'request body.%s: is required' % missing)


def test_memory_limits_follow_the_organization_paid_flag(sim):
    assert create(sim, maxReplicaMemoryGb=356).status == 200
    sim.admin('PATCH', 'config', {'organization_paid': False})
    assert_error(create(sim, name='unpaid', maxReplicaMemoryGb=124), 400, 'BAD_REQUEST', 'between 8 and 120')
    assert create(sim, name='unpaid', maxReplicaMemoryGb=120).status == 200


def test_a_readonly_service_joins_an_existing_warehouse(sim):
    warehouse = sim.cloud('GET', service_path()).result['dataWarehouseId']
    service = create(sim, isReadonly=True, dataWarehouseId=warehouse, numReplicas=1).result['service']
    assert service['isReadonly'] and not service['isPrimary'] and service['dataWarehouseId'] == warehouse


def test_two_services_may_share_a_name_unless_the_switch_says_otherwise(sim):
    assert create(sim, name='prod-analytics').status == 200
    assert [item['name'] for item in sim.cloud('GET', SERVICES).result].count('prod-analytics') == 2
    sim.admin('POST', 'reset', {'unique_service_names': True})
    assert_error(create(sim, name='prod-analytics'), 409, 'CONFLICT', 'already exists')
    assert_error(sim.cloud('PATCH', service_path(SERVICE_DEV), {'name': 'prod-analytics'}), 409, 'CONFLICT')
    # the admin interface renames regardless, so tests can make two services with one name
    assert sim.admin('PATCH', 'services/' + SERVICE_DEV, {'name': 'prod-analytics'})['name'] == 'prod-analytics'


def test_a_lost_create_answer_was_applied(sim):
    sim.admin('POST', 'faults', {'method': 'POST', 'kind': 'status', 'status': 504, 'apply': True})
    assert create(sim).status == 504
    assert [item['name'] for item in sim.cloud('GET', SERVICES).result].count('staging 1') == 1


# The password ------------------------------------------------------------------------------------

def test_the_password_endpoint_takes_the_two_hashes(sim):
    sha256, double_sha1 = password_hashes('correct horse')
    assert sha256 == base64.b64encode(hashlib.sha256(b'correct horse').digest()).decode()
    reply = sim.cloud('PATCH', service_path(SERVICE_PROD, '/password'), {'newPasswordHash': sha256, 'newDoubleSha1Hash': double_sha1})
    assert reply.status == 200 and reply.result == {}
    assert state_of(sim, SERVICE_PROD)['sim'] == {'paid': True, 'passwordHash': sha256, 'doubleSha1Hash': double_sha1}


def test_without_the_sha256_hash_a_new_password_is_generated(sim):
    reply = sim.cloud('PATCH', service_path(SERVICE_PROD, '/password'), {'newDoubleSha1Hash': 'a' * 40})
    password = reply.result['password']
    assert state_of(sim, SERVICE_PROD)['sim']['passwordHash'] == password_hashes(password)[0]
    assert state_of(sim, SERVICE_PROD)['sim']['doubleSha1Hash'] == password_hashes(password)[1]


@pytest.mark.parametrize('body, field', [
    ({'newPasswordHash': 'not base64!'}, 'newPasswordHash'),
    ({'newPasswordHash': base64.b64encode(b'short').decode()}, 'newPasswordHash'),
    ({'newPasswordHash': password_hashes('x')[0], 'newDoubleSha1Hash': 'xyz'}, 'newDoubleSha1Hash'),
    ({'newPasswordHash': password_hashes('x')[0], 'password': 'x'}, 'password'),
    ({'newPasswordHash': 42}, 'newPasswordHash'),
])
def test_bad_password_requests_are_refused(sim, body, field):
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/password'), body), 400, 'BAD_REQUEST', 'request body.' + field)
    assert 'passwordHash' not in state_of(sim, SERVICE_PROD)['sim']


# Delete ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('status', [400, 409])
def test_only_a_stopped_service_is_deleted_the_refusal_status_is_a_switch(sim, status):
    sim.admin('PATCH', 'config', {'delete_refusal': status})
    for service in (SERVICE_PROD, SERVICE_HORIZONTAL):
        assert_error(sim.cloud('DELETE', service_path(service)), status, {400: 'BAD_REQUEST', 409: 'CONFLICT'}[status],
                     'must be stopped')
    set_state(sim, 'services', SERVICE_PROD, {'state': 'stopping'})
    assert sim.cloud('DELETE', service_path(SERVICE_PROD)).status == status
    assert sim.cloud('GET', service_path(SERVICE_PROD)).result['state'] == 'stopping'


@pytest.mark.parametrize('setting, status', [('refused', 409), ('accepted', 200)])
def test_a_failed_service_is_deleted_only_when_the_switch_accepts_it(sim, setting, status):
    sim.admin('PATCH', 'config', {'failed_service_delete': setting})
    set_state(sim, 'services', SERVICE_PROD, {'state': 'failed'})
    answer = sim.cloud('DELETE', service_path(SERVICE_PROD))
    assert answer.status == status
    assert sim.cloud('GET', service_path(SERVICE_PROD)).result['state'] == ('failed' if status == 409 else 'terminating')
    set_state(sim, 'services', SERVICE_HORIZONTAL, {'state': 'degraded'})
    assert sim.cloud('DELETE', service_path(SERVICE_HORIZONTAL)).status == 409


@pytest.mark.parametrize('ending, shown', [
    ('gone', ['terminating', 'terminating', 404]),
    ('terminated', ['terminating', 'terminating', 'terminated', 'terminated']),
    ('softdeleted', ['softdeleting', 'softdeleting', 'softdeleted', 'softdeleted']),
])
def test_what_reads_show_after_a_delete_is_a_switch(sim, ending, shown):
    sim.admin('PATCH', 'config', {'deleted_reads': ending, 'transition_reads': 2})
    reply = sim.cloud('DELETE', service_path(SERVICE_DEV))
    assert reply.status == 200 and 'result' not in reply.json()
    seen = []
    for dummy in shown:
        read = sim.cloud('GET', service_path(SERVICE_DEV))
        seen.append(read.status if read.status == 404 else read.result['state'])
    assert seen == shown
    listed = [item['id'] for item in sim.cloud('GET', SERVICES).result]
    assert (SERVICE_DEV in listed) == (ending != 'gone')
    assert (SERVICE_DEV in [item['id'] for item in sim.admin('GET', 'state')['services']]) == (ending != 'gone')


def test_a_deleting_service_is_not_deleted_again(sim):
    sim.admin('PATCH', 'config', {'transition_delay': 30})
    assert sim.cloud('DELETE', service_path(SERVICE_DEV)).status == 200
    assert_error(sim.cloud('DELETE', service_path(SERVICE_DEV)), 409, 'CONFLICT', 'terminating')


def test_a_lost_delete_answer_was_applied(sim):
    sim.admin('POST', 'faults', {'method': 'DELETE', 'kind': 'status', 'status': 502, 'apply': True})
    assert sim.cloud('DELETE', service_path(SERVICE_DEV)).status == 502
    assert sim.cloud('GET', service_path(SERVICE_DEV)).result['state'] == 'terminating'


@pytest.mark.parametrize('key, value', [('create_state', 'running'), ('delete_refusal', 404), ('deleted_reads', 'vanished'),
                                        ('unique_service_names', 'yes'), ('organization_paid', 1)])
def test_bad_lifecycle_switches_are_refused(sim, key, value):
    with pytest.raises(urllib.error.HTTPError) as refused:
        sim.admin('PATCH', 'config', {key: value})
    assert refused.value.code == 400
