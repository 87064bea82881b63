"""The lifecycle of a pipe: create per source kind, update, scaling, delete, the idle service and the switches."""

import copy
import http.client
import json
import socket
import time

import pytest

from .fixture_ids import PIPE_DEV, PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_POSTGRES, PIPE_STREAM, SERVICE_DEV, SERVICE_IDLE, SERVICE_PROD, pipe_path, service_path
from .conftest import BASIC
from .test_cloud import assert_error
from .test_service_lifecycle import MINIMAL as NEW_SERVICE, SERVICES
# document is a fixture of test_openapi, used here as one.
from .test_openapi import TEMPLATE, document, validate  # noqa: F401  pylint: disable=unused-import

PIPES = service_path(SERVICE_PROD, '/pipes')
COLUMNS = [{'name': 'id', 'type': 'UInt64'}]
TABLE = {'database': 'analytics', 'table': 'events_new', 'managedTable': True, 'columns': COLUMNS}
MAPPINGS = [{'sourceField': 'id', 'destinationField': 'id'}]
BODIES = {
    'kafka': {'name': 'k', 'source': {'kafka': {
        'type': 'kafka', 'format': 'JSONEachRow', 'brokers': 'b:9092', 'topics': 't', 'authentication': 'PLAIN',
        'credentials': {'username': 'u', 'password': 'kafka-pass-1'}, 'validateSamples': False,
        'schemaRegistry': {'url': 'https://r.example', 'authentication': 'PLAIN', 'credentials': {'username': 'r', 'password': 'reg-pass'}}}},
        'destination': TABLE, 'fieldMappings': MAPPINGS},
    'objectStorage': {'name': 'o', 'source': {'objectStorage': {
        'type': 's3', 'format': 'CSV', 'url': 'https://b.s3.amazonaws.com/*.csv', 'authentication': 'IAM_USER', 'isContinuous': True,
        'accessKey': {'accessKeyId': 'AKIA1', 'secretKey': 'os-secret-1'}}}, 'destination': TABLE, 'fieldMappings': MAPPINGS},
    'stream': {'name': 's', 'source': {'stream': {
        'format': 'JSONEachRow', 'streamName': 'st', 'region': 'us-east-1', 'iteratorType': 'LATEST', 'authentication': 'IAM_USER',
        'accessKey': {'accessKeyId': 'AKIA2', 'secretKey': 'stream-secret-1'}}}, 'destination': TABLE, 'fieldMappings': MAPPINGS},
    'postgres': {'name': 'p', 'source': {'postgres': {
        'host': 'db.example', 'port': 5432, 'database': 'app', 'authentication': 'basic',
        'credentials': {'username': 'pg', 'password': 'pg-pass-1'},
        'tableMappings': [{'sourceSchemaName': 'public', 'sourceTable': 'users', 'targetTable': 'public_users'}]}},
        'destination': {'database': 'replica'}},
}
SECRETS = ('kafka-pass-1', 'reg-pass', 'os-secret-1', 'stream-secret-1', 'pg-pass-1')


def create(sim, kind, **changes):
    body = copy.deepcopy(BODIES[kind])
    body.update(changes)
    return sim.cloud('POST', PIPES, body)


@pytest.mark.parametrize('kind, settles', [('kafka', 'Running'), ('objectStorage', 'Running'), ('stream', 'Running'),
                                           ('postgres', 'Running')])
def test_create_per_kind_hides_credentials_and_settles(sim, kind, settles):
    reply = create(sim, kind)
    assert reply.status == 200, reply.text
    pipe = reply.result
    assert pipe['state'] == 'Provisioning' and pipe['name'] == BODIES[kind]['name']
    assert pipe['source'][kind] and all(pipe['source'][other] is None for other in BODIES if other != kind)
    assert not any(secret in reply.text for secret in SECRETS)
    assert 'validateSamples' not in pipe['source'][kind]
    read = sim.wait_for_state(pipe_path(pipe['id']), settles)
    assert read['state'] == settles
    assert not any(secret in str(read) for secret in SECRETS)
    stored = next(p for p in sim.admin('GET', 'state')['pipes'] if p['id'] == pipe['id'])
    assert stored['sim']['credentials']  # what was sent, for the tests to prove
    assert any(p['id'] == pipe['id'] for p in sim.cloud('GET', PIPES).result)


def test_one_off_object_storage_completes_and_postgres_drops_table_definition(sim):
    pipe = create(sim, 'objectStorage', source={'objectStorage': dict(BODIES['objectStorage']['source']['objectStorage'],
                                                                      isContinuous=False)}).result
    assert sim.wait_for_state(pipe_path(pipe['id']), 'Completed')['state'] == 'Completed'
    body = copy.deepcopy(BODIES['postgres'])
    body['destination']['tableDefinition'] = {'sortingKey': ['id']}
    pipe = sim.cloud('POST', PIPES, body).result
    assert 'tableDefinition' not in pipe['destination']


@pytest.mark.parametrize('kind, change, field', [
    ('kafka', {'name': ''}, 'request body.name'),
    ('kafka', {'name': 'x' * 256}, 'request body.name'),
    ('kafka', {'bogus': 1}, 'bogus'),
    ('kafka', {'destination': {'database': 'a', 'table': 't', 'managedTable': True}}, 'request body.destination.columns'),
    ('stream', {'destination': {'database': 'a', 'columns': COLUMNS, 'managedTable': True}}, 'request body.destination.table'),
    ('postgres', {'fieldMappings': MAPPINGS}, 'request body.fieldMappings'),
    ('postgres', {'scaling': {'replicas': 2}}, 'request body.scaling'),
    ('kafka', {'scaling': {}}, 'request body.scaling'),
    ('kafka', {'scaling': {'replicas': 0}}, 'request body.scaling.replicas'),
    ('kafka', {'source': {'kafka': None}}, 'request body.source.kafka'),
    ('kafka', {'source': {}}, 'request body.source'),
    ('kafka', {'source': {'kafka': {'type': 'kafka', 'format': 'JSONEachRow', 'brokers': 'b', 'topics': 't', 'password': 'x'}}},
     'password'),
    ('objectStorage', {'source': {'objectStorage': {'type': 's3', 'format': 'CSV', 'url': 'u', 'accessKey': {'accessKeyId': 'a'}}}},
     'secretKey'),
])
def test_create_refusals(sim, kind, change, field):
    reply = create(sim, kind, **change)
    assert_error(reply, 400, 'BAD_REQUEST', field)
    assert len(sim.cloud('GET', PIPES).result) == 4


def test_create_answer_state_and_failed_switches(sim):
    sim.admin('PATCH', 'config', {'pipe_create_state': 'Unknown', 'pipe_create_fails': True})
    pipe = create(sim, 'kafka').result
    assert pipe['state'] == 'Unknown'
    assert sim.wait_for_state(pipe_path(pipe['id']), 'Failed')['state'] == 'Failed'


def test_slow_create_answers_504_and_creates(sim):
    sim.admin('PATCH', 'config', {'slow_pipe_create': True})
    assert_error(create(sim, 'kafka'), 504, 'GATEWAY_TIMEOUT')
    assert [p['name'] for p in sim.cloud('GET', PIPES).result].count('k') == 1


def _timed_out_create(sim, path, body, timeout):
    """POST body with a client that gives up after timeout seconds (True when it did)."""
    connection = http.client.HTTPConnection('127.0.0.1', sim.process.port, timeout=timeout)
    try:
        connection.request('POST', path, body=json.dumps(body), headers={'Content-Type': 'application/json', 'Authorization': BASIC})
        connection.getresponse()
    except socket.timeout:
        return True
    finally:
        connection.close()
    return False


@pytest.mark.parametrize('answer', ['late', 'dropped'])
@pytest.mark.parametrize('collection, body', [(PIPES, BODIES['kafka']), (SERVICES, NEW_SERVICE)], ids=['pipe', 'service'])
def test_a_slow_create_shows_only_once_its_time_has_come_and_is_answered_late_or_never(sim, collection, body, answer):
    sim.admin('PATCH', 'config', {'slow_create': 60, 'slow_create_answer': answer})
    assert _timed_out_create(sim, collection, body, 0.5)  # the client gives up while the server still works
    named = [item for item in sim.cloud('GET', collection).result if item['name'] == body['name']]
    assert named == [] and len(sim.requests_log()) == 2  # not there yet: the read after the timeout sees none
    sim.admin('PATCH', 'config', {'slow_create': 0})  # the create in progress ends now, not in 60 s
    assert [item['name'] for item in sim.cloud('GET', collection).result].count(body['name']) == 1
    sim.admin('PATCH', 'config', {'slow_create': 0.2})
    if answer == 'late':
        reply = sim.cloud('POST', collection, body)
        assert reply.status == 200 and reply.result
    else:
        with pytest.raises((ConnectionError, http.client.HTTPException)):
            sim.cloud('POST', collection, body)
    assert [entry['fault'] for entry in sim.requests_log() if entry['method'] == 'POST'] == [answer] * 2


def test_a_slow_create_shows_by_itself_once_its_time_has_come(sim):
    sim.admin('PATCH', 'config', {'slow_create': 0.5})
    assert _timed_out_create(sim, PIPES, BODIES['kafka'], 0.2)
    deadline = time.time() + 30
    while time.time() < deadline and not [p for p in sim.cloud('GET', PIPES).result if p['name'] == BODIES['kafka']['name']]:
        time.sleep(0.1)
    assert [p['name'] for p in sim.cloud('GET', PIPES).result].count(BODIES['kafka']['name']) == 1


def test_two_pipes_of_one_name_unless_names_are_unique(sim):
    assert create(sim, 'kafka').status == 200 and create(sim, 'kafka').status == 200
    assert [p['name'] for p in sim.cloud('GET', PIPES).result].count('k') == 2
    sim.admin('PATCH', 'config', {'unique_pipe_names': True})
    assert_error(create(sim, 'kafka'), 409, 'CONFLICT', 'already exists')


@pytest.mark.parametrize('pipe, body, field', [
    (PIPE_KAFKA, {'source': {'kafka': {'brokers': 'other:9092'}}}, 'brokers'),
    (PIPE_KAFKA, {'source': {'kafka': {'topics': 'x'}}}, 'topics'),
    (PIPE_KAFKA, {'source': {'stream': {'iamRole': 'x'}}}, 'request body.source.stream'),
    (PIPE_KAFKA, {'destination': {'table': 'x'}}, 'table'),
    (PIPE_KAFKA, {'scaling': {'replicas': 2}}, 'scaling'),
    (PIPE_STREAM, {'source': {'stream': {'streamName': 'x'}}}, 'streamName'),
    (PIPE_POSTGRES, {'source': {'postgres': {'authentication': 'IAM_ROLE'}}}, 'authentication'),
    (PIPE_POSTGRES, {'source': {'postgres': {'settings': {'replicationMode': 'snapshot'}}}}, 'replicationMode'),
    (PIPE_POSTGRES, {'fieldMappings': MAPPINGS}, 'request body.fieldMappings'),
    (PIPE_OBJECT_STORAGE, {'source': {'objectStorage': {'url': 'x'}}}, 'url'),
])
def test_update_refuses_fixed_fields(sim, pipe, body, field):
    assert_error(sim.cloud('PATCH', pipe_path(pipe), body), 400, 'BAD_REQUEST', field)


def test_update_changes_what_can_change(sim):
    body = {'name': 'orders-2', 'fieldMappings': MAPPINGS, 'destination': {'columns': COLUMNS},
            'source': {'kafka': {'authentication': 'SCRAM-SHA-256', 'credentials': {'username': 'n', 'password': 'kafka-pass-1'}}}}
    reply = sim.cloud('PATCH', pipe_path(PIPE_KAFKA), body)
    pipe = reply.result
    assert pipe['name'] == 'orders-2' and pipe['fieldMappings'] == MAPPINGS and pipe['destination']['columns'] == COLUMNS
    assert pipe['source']['kafka']['authentication'] == 'SCRAM-SHA-256' and pipe['destination']['table'] == 'orders'
    assert 'kafka-pass-1' not in reply.text


def test_postgres_table_mappings_need_a_paused_pipe_and_resume_it(sim):
    mapping = {'sourceSchemaName': 'public', 'sourceTable': 'orders', 'targetTable': 'public_orders'}
    users = {'sourceSchemaName': 'public', 'sourceTable': 'users', 'targetTable': 'public_users'}
    path = pipe_path(PIPE_POSTGRES)
    assert_error(sim.cloud('PATCH', path, {'source': {'postgres': {'tableMappingsToAdd': [mapping]}}}), 400, 'BAD_REQUEST',
                 'must be paused to edit')
    sim.admin('PATCH', 'pipes/' + PIPE_POSTGRES, {'state': 'Paused'})
    assert_error(sim.cloud('PATCH', path, {'source': {'postgres': {'tableMappingsToRemove': [users], 'tableMappingsToAdd': [users]}}}),
                 400, 'BAD_REQUEST', 'removed and added in one')
    assert_error(sim.cloud('PATCH', path, {'source': {'postgres': {'host': 'h', 'tableMappingsToAdd': [mapping]}}}),
                 400, 'BAD_REQUEST', 'credentials')
    pipe = sim.cloud('PATCH', path, {'source': {'postgres': {'tableMappingsToRemove': [users], 'tableMappingsToAdd': [mapping]}}}).result
    tables = [m['sourceTable'] for m in pipe['source']['postgres']['tableMappings']]
    assert 'users' not in tables and 'orders' in tables and pipe['state'] == 'Modifying'
    assert sim.wait_for_state(path, 'Running')['state'] == 'Running'


def test_scaling(sim):
    path = pipe_path(PIPE_KAFKA, '/scaling')
    assert sim.cloud('PATCH', path, {'replicas': 40, 'replicaCpuMillicores': 125, 'replicaMemoryGb': 0.5}).result['scaling']['replicas'] == 40
    for body, field in (({}, 'request body'), ({'replicas': 0}, 'replicas'), ({'replicas': 41}, 'replicas'),
                        ({'replicaCpuMillicores': 2001}, 'replicaCpuMillicores'), ({'replicaMemoryGb': 8.5}, 'replicaMemoryGb')):
        assert_error(sim.cloud('PATCH', path, body), 400, 'BAD_REQUEST', field)
    assert_error(sim.cloud('PATCH', pipe_path(PIPE_POSTGRES, '/scaling'), {'replicas': 2}), 400, 'BAD_REQUEST', 'service level')


def test_delete_answers_without_result_and_may_linger(sim):
    reply = sim.cloud('DELETE', pipe_path(PIPE_STREAM))
    assert reply.status == 200 and set(reply.json()) == {'status', 'requestId'}
    assert_error(sim.cloud('GET', pipe_path(PIPE_STREAM)), 404, 'NOT_FOUND')
    sim.admin('PATCH', 'config', {'deleted_pipe_reads': 2})
    assert sim.cloud('DELETE', pipe_path(PIPE_KAFKA)).status == 200
    assert sim.cloud('GET', pipe_path(PIPE_KAFKA)).status == 200
    assert_error(sim.cloud('DELETE', pipe_path(PIPE_KAFKA)), 404, 'NOT_FOUND')  # a second DELETE: gone, while reads still show it
    assert PIPE_KAFKA in [p['id'] for p in sim.cloud('GET', PIPES).result]
    assert_error(sim.cloud('GET', pipe_path(PIPE_KAFKA)), 404, 'NOT_FOUND')
    assert PIPE_KAFKA not in [p['id'] for p in sim.cloud('GET', PIPES).result]


@pytest.mark.parametrize('refusals, read_status', [('writes', 200), ('all', 424)])
def test_idle_service_refuses_pipe_calls(sim, refusals, read_status):
    sim.admin('PATCH', 'config', {'idle_pipe_refusals': refusals})
    idle_pipes = service_path(SERVICE_IDLE, '/pipes')
    assert_error(sim.cloud('POST', idle_pipes, BODIES['kafka']), 424, 'FAILED_DEPENDENCY', 'Current state: idle')
    assert sim.cloud('GET', idle_pipes).status == read_status
    sim.admin('PATCH', 'pipes/' + PIPE_DEV, {'serviceId': SERVICE_IDLE})
    path = pipe_path(PIPE_DEV, service_id=SERVICE_IDLE)
    assert_error(sim.cloud('PATCH', path, {'name': 'x'}), 424, 'FAILED_DEPENDENCY', 'Current state: idle')
    assert_error(sim.cloud('PATCH', path + '/state', {'command': 'start'}), 424, 'FAILED_DEPENDENCY', 'Current state: idle')
    assert sim.cloud('GET', path).status == read_status


def test_stopped_service_refuses_create_and_update_only(sim):
    assert_error(sim.cloud('POST', service_path(SERVICE_DEV, '/pipes'), BODIES['kafka']), 424, 'FAILED_DEPENDENCY',
                 'Current state: stopped')
    path = pipe_path(PIPE_DEV, service_id=SERVICE_DEV)
    assert_error(sim.cloud('PATCH', path, {'name': 'x'}), 424, 'FAILED_DEPENDENCY', 'Current state: stopped')
    assert sim.cloud('PATCH', path + '/state', {'command': 'start'}).status == 200


@pytest.mark.parametrize('state', ['starting', 'awaking', 'provisioning', 'failed', 'degraded', 'stopping'])
def test_a_service_that_does_not_run_refuses_create_and_update_naming_its_state(sim, state):
    sim.admin('PATCH', 'services/' + SERVICE_PROD, {'state': state})
    assert_error(sim.cloud('POST', PIPES, BODIES['kafka']), 424, 'FAILED_DEPENDENCY', 'Current state: %s' % state)
    assert_error(sim.cloud('PATCH', pipe_path(PIPE_KAFKA), {'name': 'x'}), 424, 'FAILED_DEPENDENCY', 'Current state: %s' % state)
    assert sim.cloud('GET', pipe_path(PIPE_KAFKA)).status == 200


def test_lost_create_with_an_applied_fault_makes_the_pipe(sim):
    sim.admin('POST', 'faults', {'method': 'POST', 'path': '/pipes$', 'kind': 'status', 'status': 502, 'apply': True})
    assert create(sim, 'stream').status == 502
    assert [p['name'] for p in sim.cloud('GET', PIPES).result].count('s') == 1


@pytest.mark.parametrize('kind', list(BODIES))
def test_answers_validate_against_the_read_shape(sim, document, kind):  # pylint: disable=redefined-outer-name
    created = create(sim, kind)
    validate(document, TEMPLATE + '/pipes/{pipeId}', 'get', created)
    pipe_id = created.result['id']
    validate(document, TEMPLATE + '/pipes/{pipeId}', 'get', sim.cloud('PATCH', pipe_path(pipe_id), {'name': 'renamed'}))
    if kind != 'postgres':
        validate(document, TEMPLATE + '/pipes/{pipeId}', 'get', sim.cloud('PATCH', pipe_path(pipe_id, '/scaling'), {'replicas': 3}))
