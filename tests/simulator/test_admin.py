"""Admin interface, request log, injected faults, command line and HTTPS."""

import http.client
import json
import ssl
import time

import pytest

from tests.certificates import self_signed

from .conftest import Client
from .fixture_ids import PIPE_KAFKA, SERVICE_PROD, pipe_path, service_path
from .process import SimulatorProcess


def test_reset_restores_fixtures_and_applies_config(sim):
    sim.cloud('PATCH', service_path(), {'name': 'renamed'})
    sim.admin('POST', 'faults', {'kind': 'status', 'status': 500, 'path': 'nothing-matches'})
    config = sim.admin('POST', 'reset', {'alerts_paging': False, 'transition_delay': 0.5})['config']
    assert config['alerts_paging'] is False and config['transition_delay'] == 0.5 and config['rate_limit'] is False
    assert sim.cloud('GET', service_path()).result['name'] == 'prod-analytics'
    assert sim.admin('GET', 'faults')['faults'] == []
    assert [entry['seq'] for entry in sim.requests_log()] == [1]
    assert sim.admin('POST', 'reset')['config']['alerts_paging'] is True


def test_config_defaults_and_patch(sim):
    sim.admin('POST', 'reset')
    assert sim.admin('GET', 'config') == {'transition_delay': 1.0, 'rate_limit': False, 'alerts_paging': True,
                                          'alert_count': 0, 'rate_limit_headers': ['Retry-After', 'X-RateLimit-Reset'],
                                          'resync_delay': None, 'stale_pipe_answers': False, 'transition_reads': None,
                                          'pipe_create_state': 'Provisioning', 'idle_pipe_refusals': 'writes',
                                          'slow_pipe_create': False, 'pipe_create_fails': False, 'deleted_pipe_reads': 0,
                                          'unique_pipe_names': False,
                                          'create_state': 'provisioning', 'delete_refusal': 409, 'deleted_reads': 'gone',
                                          'unique_service_names': False, 'organization_paid': None, 'slow_create': 0,
                                          'slow_create_answer': 'late', 'failed_service_delete': 'refused',
                                          'dashboard_read_form': 'as_sent', 'alert_read_form': 'contract', 'alert_channels': True,
                                          'alert_delete_missing': 404, 'alert_version': '2.36', 'slow_observability_create': False}
    assert sim.admin('PATCH', 'config', {'alert_count': 3})['alert_count'] == 3


@pytest.mark.parametrize('body', [{'speed': 1}, {'rate_limit': 'yes'}, {'transition_delay': -1}, {'alert_count': 1.5},
                                  {'rate_limit_headers': ['Retry-After', 'X-Other']}, {'resync_delay': -0.5},
                                  {'stale_pipe_answers': 1}, {'transition_reads': 0}, {'transition_reads': 1.5},
                                  {'pipe_create_state': 'Running'}, {'idle_pipe_refusals': 'reads'}, {'slow_pipe_create': 1},
                                  {'pipe_create_fails': 'no'}, {'deleted_pipe_reads': -1}, {'unique_pipe_names': None},
                                  {'slow_create': -1}, {'slow_create': True}, {'slow_create_answer': 'never'},
                                  {'dashboard_read_form': 'contract'}, {'alert_read_form': 'as_sent'}, {'alert_channels': 'yes'},
                                  {'alert_delete_missing': 204}, {'alert_delete_missing': '404'}, {'alert_version': '2.20'},
                                  {'slow_observability_create': None}])
def test_bad_config_is_rejected(sim, body):
    assert sim.request('PATCH', '/_admin/config', body).status == 400
    assert sim.request('POST', '/_admin/reset', body).status == 400


def test_request_log(sim):
    sim.cloud('PATCH', service_path(SERVICE_PROD, '/scaling'), {'numReplicas': 4})
    sim.obs('GET', '/api/v2/alerts?limit=5&offset=1')
    sim.request('GET', service_path())
    sim.admin('GET', 'state')
    log = sim.requests_log()
    assert [(e['seq'], e['api'], e['method'], e['status']) for e in log] == [
        (1, 'cloud', 'PATCH', 200), (2, 'observability', 'GET', 200), (3, 'cloud', 'GET', 401)]
    assert log[0]['body'] == {'numReplicas': 4} and log[0]['path'] == service_path(SERVICE_PROD, '/scaling')
    assert log[1]['query'] == {'limit': '5', 'offset': '1'} and log[1]['path'] == '/api/v2/alerts'
    assert all(e['fault'] is None and e['time'].endswith('Z') for e in log)
    assert sim.admin('DELETE', 'requests') == {'requests': []} and sim.requests_log() == []


def test_state_snapshot_and_direct_edit(sim):
    sim.admin('PATCH', 'pipes/' + PIPE_KAFKA, {'state': 'Degraded'})
    state = sim.admin('GET', 'state')
    assert {'config', 'services', 'pipes', 'reversePrivateEndpoints', 'dashboards', 'alerts', 'faults'} <= set(state)
    assert next(p for p in state['pipes'] if p['id'] == PIPE_KAFKA)['state'] == 'Degraded'
    assert sim.cloud('GET', pipe_path(PIPE_KAFKA)).result['state'] == 'Degraded'
    assert sim.request('PATCH', '/_admin/services/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e59', {'state': 'failed'}).status == 404


def test_direct_state_edit_cancels_a_transition(sim):
    sim.cloud('PATCH', service_path(SERVICE_PROD, '/state'), {'command': 'stop'})
    sim.admin('PATCH', 'services/' + SERVICE_PROD, {'state': 'failed'})
    time.sleep(0.3)
    assert sim.cloud('GET', service_path()).result['state'] == 'failed'


# Faults ------------------------------------------------------------------------------------------

def test_status_fault_consumes_count_and_is_logged(sim):
    sim.admin('POST', 'faults', {'method': 'get', 'path': '/services/[^/]+$', 'count': 2, 'kind': 'status', 'status': 503,
                                 'headers': {'Retry-After': '1'}})
    assert sim.cloud('GET', pipe_path(PIPE_KAFKA)).status == 200  # path does not match
    assert sim.cloud('PATCH', service_path(), {'name': 'x1'}).status == 200  # method does not match
    first = sim.cloud('GET', service_path() + '?x=1')
    assert first.status == 503 and first.headers['Retry-After'] == '1' and first.error.startswith('SERVICE_UNAVAILABLE: ')
    assert sim.cloud('GET', service_path()).status == 503
    assert sim.cloud('GET', service_path()).status == 200
    assert [(e['status'], e['fault']) for e in sim.requests_log()] == [
        (200, None), (200, None), (503, 'status'), (503, 'status'), (200, None)]


def test_status_fault_with_body_and_observability_default(sim):
    sim.admin('POST', 'faults', {'kind': 'status', 'status': 429, 'body': 'slow down', 'path': '^/api/v2/'})
    reply = sim.obs('GET', '/api/v2/alerts')
    assert reply.status == 429 and reply.text == 'slow down'
    sim.admin('POST', 'faults', {'kind': 'status', 'status': 500, 'path': '^/api/v2/'})
    assert sim.obs('GET', '/api/v2/alerts').json() == {'message': 'Something went wrong :('}


def test_reset_fault_closes_the_connection(sim):
    sim.admin('POST', 'faults', {'kind': 'reset', 'path': 'settings'})
    with pytest.raises((ConnectionError, http.client.HTTPException)):
        sim.cloud('GET', pipe_path(PIPE_KAFKA, '/settings'))
    assert sim.cloud('GET', pipe_path(PIPE_KAFKA, '/settings')).status == 200
    assert [(e['status'], e['fault']) for e in sim.requests_log()] == [(None, 'reset'), (200, None)]


def test_malformed_json_fault(sim):
    sim.admin('POST', 'faults', {'kind': 'malformed_json'})
    reply = sim.cloud('GET', service_path())
    assert reply.status == 200 and reply.headers['Content-Type'] == 'application/json'
    with pytest.raises(ValueError):
        json.loads(reply.text)
    assert sim.requests_log()[0]['fault'] == 'malformed_json'


def test_html_fault(sim):
    sim.admin('POST', 'faults', {'kind': 'html', 'method': 'PUT'})
    reply = sim.cloud('PUT', pipe_path(PIPE_KAFKA, '/settings'), {'engine_max_threads': 9})
    assert reply.status == 502 and reply.headers['Content-Type'].startswith('text/html') and '<html>' in reply.text
    assert sim.cloud('GET', pipe_path(PIPE_KAFKA, '/settings')).result['engine_max_threads'] is None
    assert sim.requests_log()[0]['fault'] == 'html'


def test_delay_fault_answers_normally(sim):
    sim.admin('POST', 'faults', {'kind': 'delay', 'delay': 0.4})
    started = time.monotonic()
    reply = sim.cloud('GET', service_path())
    assert reply.status == 200 and time.monotonic() - started >= 0.4
    assert sim.requests_log()[0]['fault'] == 'delay' and sim.requests_log()[0]['status'] == 200


@pytest.mark.parametrize('fault', [{}, {'kind': 'explode'}, {'kind': 'status', 'path': '('}, {'kind': 'status', 'count': 0},
                                   {'kind': 'status', 'status': 99}, {'kind': 'status', 'colour': 'red'}])
def test_bad_fault_is_rejected(sim, fault):
    assert sim.request('POST', '/_admin/faults', fault).status == 400


def test_faults_list_and_clear(sim):
    sim.admin('POST', 'faults', {'kind': 'status', 'count': 3})
    assert sim.admin('GET', 'faults')['faults'][0]['count'] == 3
    assert sim.admin('DELETE', 'faults') == {'faults': []}
    assert sim.cloud('GET', service_path()).status == 200


def test_admin_calls_are_never_faulted(sim):
    sim.admin('POST', 'faults', {'kind': 'status', 'status': 500})
    assert sim.admin('GET', 'config')['transition_delay'] == 0.2


def test_unknown_paths(sim):
    assert sim.request('GET', '/').status == 404
    assert sim.request('GET', '/_admin/nothing').status == 404
    assert sim.requests_log() == []


# Command line and HTTPS --------------------------------------------------------------------------

def test_command_line_options_set_the_defaults():
    process = SimulatorProcess(transition_delay=0.05, rate_limit=True).start()
    try:
        config = process.reset()['config']
        assert config['transition_delay'] == 0.05 and config['rate_limit'] is True
    finally:
        assert process.stop() == 0


@pytest.fixture
def certificate(tmp_path):
    """A self-signed certificate for 127.0.0.1: (cert path, key path)."""
    pytest.importorskip('cryptography')
    return self_signed(tmp_path, 'simulator')


def test_https(certificate):
    cert_path, key_path = certificate
    process = SimulatorProcess(tls=(cert_path, key_path)).start()
    try:
        trusted = ssl.create_default_context(cafile=cert_path)
        client = Client(process, http.client.HTTPSConnection, context=trusted)
        assert client.cloud('GET', service_path()).result['id'] == SERVICE_PROD
        with pytest.raises(ssl.SSLError):
            Client(process, http.client.HTTPSConnection, context=ssl.create_default_context()).cloud('GET', service_path())
        with pytest.raises((ConnectionError, http.client.HTTPException)):
            Client(process).cloud('GET', service_path())  # plain HTTP to the HTTPS port
        assert client.cloud('GET', service_path()).status == 200
    finally:
        assert process.stop() == 0
