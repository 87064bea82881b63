"""Management API: auth, envelopes, validation of every Limit, state changes, pipes, settings and lists."""

import base64
import re
import time

import pytest

from .fixture_ids import (KEY_ID, KEY_SECRET, ORGANIZATION, PIPE_DEV, PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_POSTGRES, PIPE_STREAM, RPE,
                          SERVICE_DEV, SERVICE_HORIZONTAL, SERVICE_IDLE, SERVICE_INGEST_EU, SERVICE_INGEST_STAGING, SERVICE_PROD, TOKEN, pipe_path,
                          service_path)

UUID4 = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}')


def assert_error(reply, status, code, fragment=''):
    """The error body: status, ``CODE: message``, a UUID4 request id mirrored in X-Request-Id."""
    assert reply.status == status, reply.text
    body = reply.json()
    assert set(body) == {'status', 'error', 'requestId'}
    assert body['status'] == status
    assert body['error'].startswith(code + ': '), body['error']
    assert fragment in body['error']
    assert UUID4.fullmatch(body['requestId']) and reply.headers['X-Request-Id'] == body['requestId']


# Auth, routing, envelopes ------------------------------------------------------------------------

@pytest.mark.parametrize('header', [
    None,
    'Basic ' + base64.b64encode(('%s:wrong' % KEY_ID).encode()).decode(),
    'Basic ' + base64.b64encode(('other-key:%s' % KEY_SECRET).encode()).decode(),
    'Basic not-base64!!',
    'Bearer ' + TOKEN,
])
def test_bad_or_missing_credentials_give_401(sim, header):
    headers = {'Authorization': header} if header else {}
    assert_error(sim.request('GET', service_path(), headers=headers), 401, 'UNAUTHORIZED')


def test_success_envelope(sim):
    reply = sim.cloud('GET', service_path())
    body = reply.json()
    assert reply.status == 200 and set(body) == {'status', 'requestId', 'result'}
    assert body['status'] == 200 and UUID4.fullmatch(body['requestId'])
    assert reply.headers['X-Request-Id'] == body['requestId']
    assert body['result']['id'] == SERVICE_PROD and body['result']['name'] == 'prod-analytics'
    assert 'sim' not in body['result']


def test_request_ids_are_unique(sim):
    ids = {sim.cloud('GET', service_path()).json()['requestId'] for _attempt in range(5)}
    assert len(ids) == 5


@pytest.mark.parametrize('path, status, code', [
    ('/v1/organizations/%s/services/not-a-uuid' % ORGANIZATION, 400, 'BAD_REQUEST'),
    ('/v1/organizations/nope/services/%s' % SERVICE_PROD, 400, 'BAD_REQUEST'),
    (service_path(SERVICE_PROD, '/pipes/123'), 400, 'BAD_REQUEST'),
    (service_path('3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e59'), 404, 'NOT_FOUND'),
    (pipe_path('9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c69'), 404, 'NOT_FOUND'),
    (pipe_path(PIPE_KAFKA, service_id=SERVICE_DEV), 404, 'NOT_FOUND'),
    (service_path(SERVICE_PROD, '/pipesReversePrivateEndpoints/5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d89'), 404, 'NOT_FOUND'),
    (service_path(SERVICE_DEV, '/pipesReversePrivateEndpoints/' + RPE), 404, 'NOT_FOUND'),
    ('/v1/organizations/%s0/services/%s' % (ORGANIZATION[:-1], SERVICE_PROD), 403, 'FORBIDDEN'),  # another organization
    (service_path(SERVICE_PROD, '/backups'), 404, 'NOT_FOUND'),
])
def test_path_errors(sim, path, status, code):
    assert_error(sim.cloud('GET', path), status, code)


def test_wrong_method_is_not_found(sim):
    assert_error(sim.cloud('PUT', service_path(), {}), 404, 'NOT_FOUND')


def test_hidden_attributes_and_disabled_endpoints_are_not_shown(sim):
    result = sim.cloud('GET', service_path()).result
    assert [e['protocol'] for e in result['endpoints']] == ['https', 'nativesecure']
    assert all('enabled' not in e for e in result['endpoints'])
    assert result['tier'] == 'production'


# Body handling -----------------------------------------------------------------------------------

@pytest.mark.parametrize('raw, headers, fragment', [
    ('{"name": "x"}', {}, 'Content-Type'),
    ('{"name": "x"}', {'Content-Type': 'text/plain'}, 'Content-Type'),
    ('{"name": ', {'Content-Type': 'application/json'}, 'request body'),
    ('["name"]', {'Content-Type': 'application/json'}, 'request body'),
    ('', {'Content-Type': 'application/json'}, 'request body'),
    ('{"numReplicas": NaN}', {'Content-Type': 'application/json'}, 'request body'),
])
def test_body_must_be_a_json_object(sim, raw, headers, fragment):
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/scaling'), raw=raw, headers=headers), 400, 'BAD_REQUEST', fragment)


def test_content_type_with_charset_is_accepted(sim):
    reply = sim.cloud('PATCH', service_path(), raw='{"name": "prod analytics"}',
                      headers={'Content-Type': 'application/json; charset=utf-8'})
    assert reply.status == 200 and reply.result['name'] == 'prod analytics'


@pytest.mark.parametrize('suffix, body, field', [
    ('', {'displayName': 'x'}, 'request body: unknown field(s): displayName'),
    ('', {'ipAccessList': {'add': [{'source': '10.0.0.1', 'comment': 'x'}]}}, 'request body.ipAccessList.add[0]: unknown'),
    ('', {'ipAccessList': {'replace': []}}, 'request body.ipAccessList: unknown'),
    ('/scaling', {'replicas': 3}, 'request body: unknown field(s): replicas'),
    ('/state', {'command': 'start', 'force': True}, 'request body: unknown'),
    ('/state', {'command': 'restart'}, 'request body.command: must be one of: start, stop, awake'),
    ('/state', {}, 'request body.command: is required'),
])
def test_unknown_fields_and_bad_enums_are_rejected(sim, suffix, body, field):
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, suffix), body), 400, 'BAD_REQUEST', field)


# Scaling limits ----------------------------------------------------------------------------------

@pytest.mark.parametrize('service, body, fragment', [
    (SERVICE_PROD, {'minTotalMemoryGb': 12}, 'request body.minTotalMemoryGb: must be between 24 and 1068'),
    (SERVICE_PROD, {'minTotalMemoryGb': 1080}, 'request body.minTotalMemoryGb: must be between 24 and 1068'),
    (SERVICE_PROD, {'minTotalMemoryGb': 30}, 'request body.minTotalMemoryGb: must be a multiple of 12'),
    (SERVICE_PROD, {'maxTotalMemoryGb': 1080}, 'request body.maxTotalMemoryGb: must be between 24 and 1068'),
    (SERVICE_PROD, {'maxTotalMemoryGb': 100}, 'request body.maxTotalMemoryGb: must be a multiple of 12'),
    (SERVICE_PROD, {'maxTotalMemoryGb': 48.5}, 'request body.maxTotalMemoryGb'),
    (SERVICE_PROD, {'maxTotalMemoryGb': 48.0}, 'request body.maxTotalMemoryGb: must be a whole number'),
    (SERVICE_IDLE, {'maxTotalMemoryGb': 372}, 'request body.maxTotalMemoryGb: must be at most 360'),
    (SERVICE_DEV, {'minTotalMemoryGb': 24}, 'request body.minTotalMemoryGb: available only for production'),
    (SERVICE_DEV, {'maxTotalMemoryGb': 48}, 'request body.maxTotalMemoryGb: available only for production'),
    (SERVICE_PROD, {'maxTotalMemoryGb': 36}, 'request body.maxTotalMemoryGb: maxTotalMemoryGb (36) must be greater'),
    (SERVICE_PROD, {'minTotalMemoryGb': 372}, 'request body.minTotalMemoryGb: maxTotalMemoryGb (360) must be greater'),
    (SERVICE_PROD, {'minTotalMemoryGb': 96, 'maxTotalMemoryGb': 84}, 'request body.maxTotalMemoryGb'),
    (SERVICE_PROD, {'numReplicas': 0}, 'request body.numReplicas: must be between 1 and 20'),
    (SERVICE_PROD, {'numReplicas': 21}, 'request body.numReplicas: must be between 1 and 20'),
    (SERVICE_PROD, {'numReplicas': 1}, 'request body.numReplicas: must be between 2 and 20 for the primary'),
    (SERVICE_PROD, {'numReplicas': 3.0}, 'request body.numReplicas: must be an integer'),
    (SERVICE_PROD, {'numReplicas': '3'}, 'request body.numReplicas: must be an integer'),
    (SERVICE_PROD, {'numReplicas': True}, 'request body.numReplicas: must be an integer'),
    (SERVICE_PROD, {'idleTimeoutMinutes': 4}, 'request body.idleTimeoutMinutes: must be at least 5'),
    (SERVICE_PROD, {'idleTimeoutMinutes': 7.5}, 'request body.idleTimeoutMinutes: must be a whole number'),
    (SERVICE_PROD, {'idleTimeoutMinutes': '10'}, 'request body.idleTimeoutMinutes: must be a number'),
    (SERVICE_PROD, {'idleScaling': 'yes'}, 'request body.idleScaling: must be a boolean'),
])
def test_scaling_limits(sim, service, body, fragment):
    assert_error(sim.cloud('PATCH', service_path(service, '/scaling'), body), 400, 'BAD_REQUEST', fragment)


@pytest.mark.parametrize('body', [
    {'minTotalMemoryGb': 24}, {'maxTotalMemoryGb': 1068}, {'minTotalMemoryGb': 360, 'maxTotalMemoryGb': 360},
    {'numReplicas': 2}, {'numReplicas': 20}, {'idleTimeoutMinutes': 5}, {'idleScaling': False}, {},
])
def test_scaling_bounds_accepted(sim, body):
    reply = sim.cloud('PATCH', service_path(SERVICE_PROD, '/scaling'), body)
    assert reply.status == 200, reply.text
    for key, value in body.items():
        assert reply.result[key] == value
    assert sim.cloud('GET', service_path()).result == {**reply.result}


def test_scaling_updates_replica_memory_and_current_scaling(sim):
    result = sim.cloud('PATCH', service_path(SERVICE_PROD, '/scaling'), {'minTotalMemoryGb': 96, 'numReplicas': 5}).result
    assert result['minReplicaMemoryGb'] == 32 and result['numReplicas'] == 5
    assert result['currentScaling']['effectiveMinReplicaMemoryGb'] == 32
    assert result['currentScaling']['effectiveMinReplicas'] == 5


def test_non_primary_service_accepts_one_replica_but_must_be_running(sim):
    sim.admin('PATCH', 'services/' + SERVICE_IDLE, {'state': 'running'})
    assert sim.cloud('PATCH', service_path(SERVICE_IDLE, '/scaling'), {'numReplicas': 1}).result['numReplicas'] == 1
    assert sim.cloud('PATCH', service_path(SERVICE_IDLE, '/scaling'), {'maxTotalMemoryGb': 360}).status == 200


@pytest.mark.parametrize('service, state', [(SERVICE_IDLE, 'idle'), (SERVICE_DEV, 'stopped')])
def test_scaling_needs_a_running_service(sim, service, state):
    reply = sim.cloud('PATCH', service_path(service, '/scaling'), {'idleTimeoutMinutes': 10})
    assert_error(reply, 424, 'FAILED_DEPENDENCY', 'allowed only when the service is running. Current state: %s' % state)
    assert sim.cloud('GET', service_path(service)).result['idleTimeoutMinutes'] != 10


# Basic details -----------------------------------------------------------------------------------

@pytest.mark.parametrize('name, ok', [
    ('x' * 50, True), ('x' * 51, False), ('prod analytics 2', True), ('Prod-Analytics-EU', True), ('', False),
    ('bad/name', False), ('naïve', False), (' leading', False), ('trailing ', False), ('tab\there', False),
])
def test_service_name_rule(sim, name, ok):
    reply = sim.cloud('PATCH', service_path(), {'name': name})
    if ok:
        assert reply.status == 200 and reply.result['name'] == name
    else:
        assert_error(reply, 400, 'BAD_REQUEST', 'request body.name')


def test_ip_access_list_remove_before_add_and_replace_description(sim):
    body = {'ipAccessList': {'remove': [{'source': '198.51.100.17'}],
                             'add': [{'source': '198.51.100.17', 'description': 'CI runner (new)'},
                                     {'source': '203.0.113.0/24', 'description': 'Office Berlin 2nd floor'},
                                     {'source': '100.64.0.0/10'}]}}
    result = sim.cloud('PATCH', service_path(), body).result
    assert result['ipAccessList'] == [
        {'source': '203.0.113.0/24', 'description': 'Office Berlin 2nd floor'},
        {'source': '192.0.2.64/26', 'description': 'VPN egress'},
        {'source': '198.51.100.17', 'description': 'CI runner (new)'},
        {'source': '100.64.0.0/10', 'description': ''},
    ]


@pytest.mark.parametrize('patch, fragment', [
    ({'remove': [{'source': '10.9.9.9'}]}, 'request body.ipAccessList.remove[0].source: 10.9.9.9 is not in'),
    ({'add': [{'source': '10.0.0.1/24'}]}, 'request body.ipAccessList.add[0].source: must be an IPv4'),
    ({'add': [{'source': 'example.com'}]}, 'request body.ipAccessList.add[0].source'),
    ({'add': [{'description': 'no source'}]}, 'request body.ipAccessList.add[0].source: is required'),
    ({'add': [{'source': '10.0.0.1'}, {'source': '10.0.0.1'}]}, 'request body.ipAccessList.add[1].source: duplicate'),
])
def test_ip_access_list_errors_change_nothing(sim, patch, fragment):
    before = sim.cloud('GET', service_path()).result['ipAccessList']
    assert_error(sim.cloud('PATCH', service_path(), {'name': 'renamed', 'ipAccessList': patch}), 400, 'BAD_REQUEST', fragment)
    after = sim.cloud('GET', service_path()).result
    assert after['ipAccessList'] == before and after['name'] == 'prod-analytics'


def test_private_endpoint_ids(sim):
    body = {'privateEndpointIds': {'remove': ['vpce-0a1b2c3d4e5f60718'], 'add': ['vpce-0f9e8d7c6b5a49382']}}
    assert sim.cloud('PATCH', service_path(), body).result['privateEndpointIds'] == ['vpce-0f9e8d7c6b5a49382']
    reply = sim.cloud('PATCH', service_path(), {'privateEndpointIds': {'add': ['vpce-unknown']}})
    assert_error(reply, 400, 'BAD_REQUEST', 'request body.privateEndpointIds.add[0]')
    reply = sim.cloud('PATCH', service_path(), {'privateEndpointIds': {'remove': ['vpce-01234abcd5678ef90']}})
    assert_error(reply, 400, 'BAD_REQUEST', 'request body.privateEndpointIds.remove[0]')


def test_release_channel(sim):
    assert sim.cloud('PATCH', service_path(), {'releaseChannel': 'fast'}).result['releaseChannel'] == 'fast'
    assert_error(sim.cloud('PATCH', service_path(SERVICE_DEV), {'releaseChannel': 'slow'}), 400, 'BAD_REQUEST',
                 'request body.releaseChannel: available only for production')
    assert_error(sim.cloud('PATCH', service_path(), {'releaseChannel': 'rapid'}), 400, 'BAD_REQUEST',
                 'request body.releaseChannel: must be one of')


def test_endpoints_toggle_only_mysql(sim):
    result = sim.cloud('PATCH', service_path(), {'endpoints': [{'protocol': 'mysql', 'enabled': True}]}).result
    assert [e['protocol'] for e in result['endpoints']] == ['https', 'nativesecure', 'mysql']
    result = sim.cloud('PATCH', service_path(), {'endpoints': [{'protocol': 'mysql', 'enabled': False}]}).result
    assert [e['protocol'] for e in result['endpoints']] == ['https', 'nativesecure']
    for change, fragment in (({'protocol': 'https', 'enabled': False}, 'request body.endpoints[0].protocol'),
                             ({'protocol': 'mysql'}, 'request body.endpoints[0].enabled: is required'),
                             ({'protocol': 'mysql', 'enabled': 'yes'}, 'request body.endpoints[0].enabled')):
        assert_error(sim.cloud('PATCH', service_path(), {'endpoints': [change]}), 400, 'BAD_REQUEST', fragment)


def test_tde_key_rotation(sim):
    body = {'transparentDataEncryptionKeyId': 'tde-key-2024-11-01-d4e5f6'}
    assert sim.cloud('PATCH', service_path(), body).result['transparentDataEncryptionKeyId'] == body['transparentDataEncryptionKeyId']
    assert_error(sim.cloud('PATCH', service_path(SERVICE_DEV), body), 400, 'BAD_REQUEST',
                 'request body.transparentDataEncryptionKeyId: transparent data encryption is not enabled')
    sim.admin('PATCH', 'services/' + SERVICE_PROD, {'state': 'idle'})
    assert_error(sim.cloud('PATCH', service_path(), {'transparentDataEncryptionKeyId': 'other'}), 424,
                 'FAILED_DEPENDENCY', 'Current state: idle')


def test_tags_and_core_dumps(sim):
    body = {'tags': {'remove': [{'key': 'env'}, {'key': 'team', 'value': 'data-platform'}], 'add': [{'key': 'team', 'value': 'ingest'}]},
            'enableCoreDumps': True}
    result = sim.cloud('PATCH', service_path(), body).result
    assert result['tags'] == [{'key': 'team', 'value': 'ingest'}] and result['enableCoreDumps'] is True
    assert_error(sim.cloud('PATCH', service_path(), {'tags': {'add': [{'key': 'bad key'}]}}), 400, 'BAD_REQUEST',
                 'request body.tags.add[0].key')


# Service state -----------------------------------------------------------------------------------

def test_stop_then_start(sim):
    assert sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'stop'}).result['state'] == 'stopping'
    assert sim.cloud('GET', service_path()).result['state'] == 'stopping'
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'stop'}), 409, 'CONFLICT', 'stopping')
    assert sim.wait_for_state(service_path(), 'stopped')['state'] == 'stopped'
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'stop'}), 409, 'CONFLICT', 'stopped')
    assert sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'start'}).result['state'] == 'starting'
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'start'}), 409, 'CONFLICT', 'starting')
    assert sim.wait_for_state(service_path(), 'running')['state'] == 'running'
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'start'}), 409, 'CONFLICT', 'running')


def test_transition_takes_the_configured_delay(sim):
    started = time.monotonic()
    sim.cloud('PATCH', service_path(SERVICE_DEV, '/state'), {'command': 'start'})
    assert sim.wait_for_state(service_path(SERVICE_DEV), 'running')['state'] == 'running'
    assert time.monotonic() - started >= 0.15  # at least the delay; no upper bound on a busy machine


def test_idle_service_start_awake_stop(sim):
    assert sim.cloud('PATCH', service_path(SERVICE_IDLE, '/state'), {'command': 'start'}).result['state'] == 'idle'
    assert sim.cloud('PATCH', service_path(SERVICE_IDLE, '/state'), {'command': 'awake'}).result['state'] == 'awaking'
    assert sim.wait_for_state(service_path(SERVICE_IDLE), 'running')['state'] == 'running'
    assert_error(sim.cloud('PATCH', service_path(SERVICE_IDLE, '/state'), {'command': 'awake'}), 409, 'CONFLICT', 'running')
    sim.admin('PATCH', 'services/' + SERVICE_IDLE, {'state': 'idle'})
    assert sim.cloud('PATCH', service_path(SERVICE_IDLE, '/state'), {'command': 'stop'}).result['state'] == 'stopping'


def test_failure_states_set_through_admin(sim):
    sim.admin('PATCH', 'services/' + SERVICE_PROD, {'state': 'degraded'})
    assert sim.cloud('GET', service_path()).result['state'] == 'degraded'
    assert_error(sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'start'}), 409, 'CONFLICT')
    assert sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'stop'}).result['state'] == 'stopping'


# Pipe state --------------------------------------------------------------------------------------

def test_pipe_stop_start(sim):
    path = pipe_path(PIPE_KAFKA)
    assert sim.cloud('PATCH', path + '/state', {'command': 'stop'}).result['state'] == 'Stopping'
    assert sim.wait_for_state(path, 'Stopped')['state'] == 'Stopped'
    assert sim.cloud('PATCH', path + '/state', {'command': 'start'}).result['state'] == 'Provisioning'
    reply = sim.cloud('PATCH', path + '/state', {'command': 'start'})
    assert_error(reply, 400, 'BAD_REQUEST', 'is already running')
    assert sim.wait_for_state(path, 'Running')['state'] == 'Running'
    assert_error(sim.cloud('PATCH', path + '/state', {'command': 'start'}), 400, 'BAD_REQUEST', 'is already running')


def test_pipe_stop_works_from_any_state(sim):
    assert sim.cloud('GET', pipe_path(PIPE_STREAM)).result['state'] == 'Stopped'
    assert sim.cloud('PATCH', pipe_path(PIPE_STREAM, '/state'), {'command': 'stop'}).result['state'] == 'Stopping'


def test_postgres_pipe_pauses_and_resyncs(sim):
    path = pipe_path(PIPE_POSTGRES)
    assert sim.cloud('PATCH', path + '/state', {'command': 'stop'}).result['state'] == 'Pausing'
    assert sim.wait_for_state(path, 'Paused')['state'] == 'Paused'
    assert sim.cloud('PATCH', path + '/state', {'command': 'resync'}).result['state'] == 'Resync'
    assert sim.wait_for_state(path, 'Running')['state'] == 'Running'


@pytest.mark.parametrize('pipe, kind', [(PIPE_KAFKA, 'kafka'), (PIPE_OBJECT_STORAGE, 'objectStorage'), (PIPE_STREAM, 'stream')])
def test_resync_only_for_postgres(sim, pipe, kind):
    assert_error(sim.cloud('PATCH', pipe_path(pipe, '/state'), {'command': 'resync'}), 400, 'BAD_REQUEST', kind)


def test_failed_pipe_can_start(sim):
    sim.admin('PATCH', 'pipes/' + PIPE_KAFKA, {'state': 'Failed'})
    assert sim.cloud('PATCH', pipe_path(PIPE_KAFKA, '/state'), {'command': 'start'}).result['state'] == 'Provisioning'


def test_pipe_on_dev_service(sim):
    result = sim.cloud('GET', pipe_path(PIPE_DEV, service_id=SERVICE_DEV)).result
    assert result['serviceId'] == SERVICE_DEV and result['state'] == 'Stopped'


# Pipe settings -----------------------------------------------------------------------------------

SETTINGS_RANGES = {
    'streaming_max_insert_wait_ms': (500, 60000), 'object_storage_concurrency': (1, 35),
    'object_storage_polling_interval_ms': (100, 3600000), 'object_storage_max_insert_bytes': (10485760, 53687091200),
    'object_storage_max_file_count': (1, 10000), 'engine_max_threads': (0, 64), 'engine_max_insert_threads': (0, 16),
    'engine_min_insert_block_size_bytes': (0, 10737418240), 'engine_max_download_threads': (0, 32),
    'engine_parallel_distributed_insert_select': (0, 2),
}
BOOLEAN_SETTINGS = ('object_storage_use_cluster_function', 'engine_parallel_view_processing')


def test_settings_keys_and_never_set_is_null(sim):
    settings = sim.cloud('GET', pipe_path(PIPE_KAFKA, '/settings')).result
    assert set(settings) == set(SETTINGS_RANGES) | set(BOOLEAN_SETTINGS)
    assert settings['streaming_max_insert_wait_ms'] == 2000 and settings['engine_max_threads'] is None


def test_settings_put_merges_and_null_shows_default(sim):
    path = pipe_path(PIPE_KAFKA, '/settings')
    result = sim.cloud('PUT', path, {'engine_max_threads': 10, 'engine_parallel_view_processing': True}).result
    assert result['engine_max_threads'] == 10 and result['streaming_max_insert_wait_ms'] == 2000
    result = sim.cloud('PUT', path, {'engine_max_threads': None, 'streaming_max_insert_wait_ms': None}).result
    assert result['engine_max_threads'] == 3 and result['streaming_max_insert_wait_ms'] == 5000
    assert result['engine_parallel_view_processing'] is True and result['engine_max_insert_threads'] == 2
    assert result['object_storage_max_file_count'] is None
    assert sim.cloud('GET', path).result == result
    assert sim.cloud('GET', pipe_path(PIPE_KAFKA)).result['settings'] == result


def test_settings_defaults(sim):
    path = pipe_path(PIPE_STREAM, '/settings')
    result = sim.cloud('PUT', path, {key: None for key in list(SETTINGS_RANGES) + list(BOOLEAN_SETTINGS)}).result
    assert result['object_storage_max_insert_bytes'] == 10 * 1024 ** 3
    assert result['engine_min_insert_block_size_bytes'] == 1024 ** 3
    assert result['object_storage_use_cluster_function'] is True and result['engine_parallel_view_processing'] is False
    assert result['object_storage_concurrency'] is None  # no published default: a reset leaves null


@pytest.mark.parametrize('key, low, high', [(k, lo, hi) for k, (lo, hi) in SETTINGS_RANGES.items()])
def test_settings_range_bounds(sim, key, low, high):
    path = pipe_path(PIPE_OBJECT_STORAGE, '/settings')
    assert sim.cloud('PUT', path, {key: low}).result[key] == low
    assert sim.cloud('PUT', path, {key: high}).result[key] == high
    for bad in (low - 1, high + 1):
        assert_error(sim.cloud('PUT', path, {key: bad}), 400, 'BAD_REQUEST',
                     'request body.%s: must be between %d and %d' % (key, low, high))
    for bad in (float(low), str(low), True, [low]):
        assert_error(sim.cloud('PUT', path, {key: bad}), 400, 'BAD_REQUEST', 'request body.%s: must be an integer or null' % key)
    assert sim.cloud('GET', path).result[key] == high


@pytest.mark.parametrize('key', BOOLEAN_SETTINGS)
def test_boolean_settings_types(sim, key):
    path = pipe_path(PIPE_OBJECT_STORAGE, '/settings')
    assert sim.cloud('PUT', path, {key: True}).result[key] is True
    for bad in (1, 'true', 0):
        assert_error(sim.cloud('PUT', path, {key: bad}), 400, 'BAD_REQUEST', 'request body.%s: must be a boolean or null' % key)


def test_settings_unknown_key(sim):
    assert_error(sim.cloud('PUT', pipe_path(PIPE_KAFKA, '/settings'), {'max_threads': 2}), 400, 'BAD_REQUEST', 'max_threads')


# Reverse private endpoint ------------------------------------------------------------------------

def test_reverse_private_endpoint(sim):
    result = sim.cloud('GET', service_path(SERVICE_PROD, '/pipesReversePrivateEndpoints/' + RPE)).result
    assert result['id'] == RPE and result['serviceId'] == SERVICE_PROD
    assert result['type'] == 'VPC_ENDPOINT_SERVICE' and result['status'] == 'Ready'


# Rate limit --------------------------------------------------------------------------------------

def test_rate_limit_ten_per_ten_seconds(sim):
    sim.admin('POST', 'reset', {'rate_limit': True})
    for _attempt in range(3):
        sim.request('GET', service_path())  # unauthenticated requests do not count
    assert all(sim.cloud('GET', service_path()).status == 200 for _attempt in range(10))
    reply = sim.cloud('GET', service_path())
    assert_error(reply, 429, 'TOO_MANY_REQUESTS')
    assert 1 <= int(reply.headers['X-RateLimit-Reset']) <= 10 and reply.headers['Retry-After'] == reply.headers['X-RateLimit-Reset']
    sim.admin('PATCH', 'config', {'rate_limit_headers': ['X-RateLimit-Reset']})
    reply = sim.cloud('GET', service_path())
    assert reply.status == 429 and 'Retry-After' not in reply.headers and 'X-RateLimit-Reset' in reply.headers
    sim.admin('PATCH', 'config', {'rate_limit_headers': []})
    reply = sim.cloud('GET', service_path())
    assert reply.status == 429 and 'Retry-After' not in reply.headers and 'X-RateLimit-Reset' not in reply.headers


def test_rate_limit_off_by_default(sim):
    assert all(sim.cloud('GET', service_path()).status == 200 for _attempt in range(15))


# Lists: one response each (no paging), every item exactly as its single read shows it ------------

SERVICES = '/v1/organizations/%s/services' % ORGANIZATION
UNKNOWN_SERVICE = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e59'
OTHER_ORGANIZATION = '7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e50'


def pipes_of(service):
    return '%s/%s/pipes' % (SERVICES, service)


def endpoints_of(service):
    return '%s/%s/pipesReversePrivateEndpoints' % (SERVICES, service)


def test_services_lists_every_service_as_its_read_shows_it(sim):
    listed = sim.cloud('GET', SERVICES).result
    assert [service['id'] for service in listed] == [SERVICE_PROD, SERVICE_DEV, SERVICE_IDLE, SERVICE_INGEST_STAGING, SERVICE_INGEST_EU,
                                                     SERVICE_HORIZONTAL]
    for service in listed:
        assert service == sim.cloud('GET', '%s/%s' % (SERVICES, service['id'])).result
        assert 'sim' not in service and all('enabled' not in endpoint for endpoint in service['endpoints'])


def test_services_list_shows_states_after_a_transition(sim):
    assert sim.cloud('PATCH', '%s/%s/state' % (SERVICES, SERVICE_PROD), {'command': 'stop'}).status == 200
    assert next(s for s in sim.cloud('GET', SERVICES).result if s['id'] == SERVICE_PROD)['state'] == 'stopping'
    sim.wait_for_state('%s/%s' % (SERVICES, SERVICE_PROD), 'stopped')
    assert next(s for s in sim.cloud('GET', SERVICES).result if s['id'] == SERVICE_PROD)['state'] == 'stopped'


@pytest.mark.parametrize('service, pipes', [
    (SERVICE_PROD, [PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_STREAM, PIPE_POSTGRES]),
    (SERVICE_DEV, [PIPE_DEV]),
    (SERVICE_INGEST_EU, []),
])
def test_pipes_lists_the_services_pipes_as_their_reads_show_them(sim, service, pipes):
    listed = sim.cloud('GET', pipes_of(service)).result
    assert [pipe['id'] for pipe in listed] == pipes
    for pipe in listed:
        assert pipe == sim.cloud('GET', '%s/%s' % (pipes_of(service), pipe['id'])).result


@pytest.mark.parametrize('service, endpoints', [(SERVICE_PROD, [RPE]), (SERVICE_DEV, [])])
def test_reverse_private_endpoints_lists_the_services_endpoints(sim, service, endpoints):
    listed = sim.cloud('GET', endpoints_of(service)).result
    assert [endpoint['id'] for endpoint in listed] == endpoints
    for endpoint in listed:
        assert endpoint == sim.cloud('GET', '%s/%s' % (endpoints_of(service), endpoint['id'])).result


@pytest.mark.parametrize('path, status, code', [
    ('/v1/organizations/nope/services', 400, 'BAD_REQUEST'),
    ('/v1/organizations/%s/services' % OTHER_ORGANIZATION, 403, 'FORBIDDEN'),
    (SERVICES + '/', 404, 'NOT_FOUND'),
    (pipes_of('not-a-uuid'), 400, 'BAD_REQUEST'),
    (pipes_of(UNKNOWN_SERVICE), 404, 'NOT_FOUND'),
    (endpoints_of(UNKNOWN_SERVICE), 404, 'NOT_FOUND'),
    (pipes_of(SERVICE_PROD) + '/', 404, 'NOT_FOUND'),
])
def test_list_path_errors(sim, path, status, code):
    assert_error(sim.cloud('GET', path), status, code)


@pytest.mark.parametrize('path', [SERVICES, pipes_of(SERVICE_PROD), endpoints_of(SERVICE_PROD)])
def test_lists_need_the_key_take_only_get_and_are_logged(sim, path):
    wrong_secret = 'Basic ' + base64.b64encode(('%s:wrong' % KEY_ID).encode()).decode()
    assert_error(sim.request('GET', path, headers={'Authorization': wrong_secret}), 401, 'UNAUTHORIZED')
    assert_error(sim.cloud('PUT', path, {}), 404, 'NOT_FOUND')
    assert sim.cloud('GET', path).status == 200
    assert [(entry['method'], entry['path'], entry['status']) for entry in sim.requests_log()] == [
        ('GET', path, 401), ('PUT', path, 404), ('GET', path, 200)]


def test_lists_count_against_the_rate_limit(sim):
    sim.admin('POST', 'reset', {'rate_limit': True})
    paths = [SERVICES, pipes_of(SERVICE_PROD), endpoints_of(SERVICE_PROD)]
    assert [sim.cloud('GET', paths[attempt % 3]).status for attempt in range(10)] == [200] * 10
    assert_error(sim.cloud('GET', SERVICES), 429, 'TOO_MANY_REQUESTS')


def test_faults_apply_to_lists(sim):
    sim.admin('POST', 'faults', {'method': 'GET', 'path': '/services$', 'count': 1, 'kind': 'status', 'status': 503})
    assert sim.cloud('GET', pipes_of(SERVICE_PROD)).status == 200
    assert sim.cloud('GET', SERVICES).status == 503
    assert sim.cloud('GET', SERVICES).status == 200
    assert [entry['fault'] for entry in sim.requests_log()] == [None, 'status', None]


# The list's tag filter (the reference, "list by tag") ----------------------------------------------

def listed_ids(reply):
    assert reply.status == 200, reply.text
    return [service['id'] for service in reply.result]


@pytest.mark.parametrize('query, expected', [
    ('filter=tag:team=ingest', [SERVICE_INGEST_STAGING, SERVICE_INGEST_EU]),
    ('filter=tag%3Ateam%3Dingest', [SERVICE_INGEST_STAGING, SERVICE_INGEST_EU]),  # as a client encodes it
    ('filter=tag:team', [SERVICE_PROD, SERVICE_INGEST_STAGING, SERVICE_INGEST_EU, SERVICE_HORIZONTAL]),
    ('filter=tag:gdpr', [SERVICE_INGEST_EU]),
    ('filter=tag:env=production', [SERVICE_PROD, SERVICE_INGEST_EU]),
    ('filter=tag:team=ingest&filter=tag:env=production', [SERVICE_INGEST_EU]),  # AND
    ('filter=tag:team=ingest&filter=tag:gdpr', [SERVICE_INGEST_EU]),
    ('filter=tag:team=events&filter=tag:env', []),
    ('filter=tag:env=Production', []),  # values match exactly
    ('filter=tag:owner', []),
    ('', [SERVICE_PROD, SERVICE_DEV, SERVICE_IDLE, SERVICE_INGEST_STAGING, SERVICE_INGEST_EU, SERVICE_HORIZONTAL]),
], ids=['key=value', 'encoded', 'key alone', 'a tag without a value', 'two services', 'two filters', 'a value and a key',
        'no service has both', 'case', 'no service has it', 'no filter'])
def test_services_list_filters_by_tag(sim, query, expected):
    assert listed_ids(sim.cloud('GET', SERVICES + '?' + query)) == expected


@pytest.mark.parametrize('query, fragment', [
    ('filter=name:ingest-eu', 'filter name:ingest-eu: unknown filter kind (the only one is tag:)'),
    ('filter=state=running', 'filter state=running: unknown filter kind'),
    ('filter=', 'filter : unknown filter kind'),
    ('filter=tag:', 'filter tag:: must be tag:Key=Value or tag:Key'),
    ('filter=tag:team=', 'filter tag:team=: must be tag:Key=Value or tag:Key'),
    ('filter=tag:=ingest', 'filter tag:=ingest: must be'),
    ('filter=tag:team=in%20gest', 'filter tag:team=in gest: must be'),
    ('filter=tag:team=a=b', 'filter tag:team=a=b: must be'),
    ('filter=tag:' + 'k' * 129, 'must be tag:Key=Value or tag:Key, the key 1 to 128'),
    ('filter=tag:team=' + 'v' * 257, 'the value 1 to 256'),
    ('filter=tag:team&tag=ingest', 'query parameter tag: unknown'),
    ('filter=tag:team=ingest&filter=tag:env=prod&filter=size:10', 'filter size:10: unknown filter kind'),
    ('limit=5', 'query parameter limit: unknown'),
])
def test_a_malformed_filter_is_a_400(sim, query, fragment):
    assert_error(sim.cloud('GET', SERVICES + '?' + query), 400, 'BAD_REQUEST', fragment)


def test_the_longest_key_and_value_are_accepted(sim):
    sim.admin('PATCH', 'services/' + SERVICE_DEV, {'tags': [{'key': 'k' * 128, 'value': 'v' * 256}]})
    assert listed_ids(sim.cloud('GET', SERVICES + '?filter=tag:%s=%s' % ('k' * 128, 'v' * 256))) == [SERVICE_DEV]


def test_the_filtered_list_is_logged_with_every_filter(sim):
    sim.cloud('GET', SERVICES + '?filter=tag:team=ingest&filter=tag:gdpr')
    sim.cloud('GET', SERVICES + '?filter=tag:team')
    sim.cloud('GET', SERVICES)
    assert [(entry['path'], entry['query']) for entry in sim.requests_log()] == [
        (SERVICES, {'filter': ['tag:team=ingest', 'tag:gdpr']}), (SERVICES, {'filter': 'tag:team'}), (SERVICES, {})]
