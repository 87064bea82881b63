"""The faults a client's transport must tell apart (issue 48, items 10, 12 and 13): a 2xx without the API's envelope, an
answer trickled byte by byte, and a TLS handshake reset or never answered."""

import http.client
import json
import socket
import ssl
import threading
import time
import types

import pytest

from tests.certificates import self_signed

from . import server
from .conftest import Client
from .fixture_ids import SERVICE_PROD, service_path
from .state import Store

ALERT = '/api/v2/alerts/65c0000000000000000000ff'


@pytest.mark.parametrize('fault, body', [
    ({'kind': 'no_envelope'}, '{}'),
    ({'kind': 'no_envelope', 'status': 201, 'body': {'status': 200, 'requestId': 'r-1'}}, '{"status": 200, "requestId": "r-1"}'),
])
def test_a_2xx_without_the_envelope(local, fault, body):
    local.admin('POST', 'faults', dict(fault, path='^/v1/'))
    answer = local.cloud('GET', service_path())
    assert (answer.status, answer.text, answer.headers['Content-Type']) == (fault.get('status', 200), body, 'application/json')
    assert local.requests_log()[0]['fault'] == 'no_envelope' and local.requests_log()[0]['handled'] is False
    local.admin('POST', 'faults', {'kind': 'no_envelope', 'path': '^/api/v2/alerts$', 'method': 'POST', 'apply': True})
    alert = {'threshold': 1, 'thresholdType': 'above', 'interval': '5m', 'source': 'saved_search',
             'savedSearchId': '65f000000000000000000001', 'channel': {'type': 'webhook', 'webhookId': '65d000000000000000000001'}}
    before = len(local.admin('GET', 'state')['alerts'])
    assert local.obs('POST', '/api/v2/alerts', alert).text == '{}'
    assert len(local.admin('GET', 'state')['alerts']) == before + 1  # with apply, the write happened


@pytest.mark.parametrize('fault', [
    {'kind': 'no_envelope', 'status': 404}, {'kind': 'trickle'}, {'kind': 'status', 'rate': 10}, {'kind': 'trickle', 'rate': 0},
    {'kind': 'trickle', 'rate': 10, 'apply': True}, {'kind': 'tls_reset'},
])
def test_bad_transport_faults_are_refused(local, fault):
    assert local.request('POST', '/_admin/faults', fault).status == 400  # tls_reset: the local simulator is plain HTTP


def test_a_trickled_answer_takes_its_time_in_small_pieces(sim):
    sim.admin('POST', 'faults', {'kind': 'trickle', 'rate': 300, 'path': 'alerts/'})
    connection = http.client.HTTPConnection('127.0.0.1', sim.process.port, timeout=0.5)  # each read waits 0.5 s at most
    started = time.monotonic()
    connection.request('GET', ALERT, headers={'Authorization': 'Bearer sim-obs-token-2b7c1d9e'})
    answer = connection.getresponse()
    assert (answer.status, answer.read()) == (404, b'{"message": "Alert not found"}')
    assert time.monotonic() - started > 0.6  # about 250 bytes at 300 a second, no read ever waiting 0.5 s
    connection.close()
    assert sim.requests_log()[0]['fault'] == 'trickle' and sim.requests_log()[0]['handled'] is True


def test_in_process_a_trickle_is_a_pause_of_the_time_the_answer_takes(local):
    local.admin('POST', 'faults', {'kind': 'trickle', 'rate': 100})
    paused = []
    request = server.Request('GET', ALERT, {'Authorization': 'Bearer sim-obs-token-2b7c1d9e'}, b'')
    answer = server.dispatch(local.store, request, paused.append)
    assert answer.trickle == 100 and paused == [answer.size() / 100] and 1 < paused[0] < 3


@pytest.fixture(scope='module')
def https(tmp_path_factory):
    """An HTTPS simulator in a thread of this process: (store, Client)."""
    cert, key = self_signed(tmp_path_factory.mktemp('tls'))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd = server.SimulatorServer(('127.0.0.1', 0), Store(), context, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True)
    thread.start()
    client = Client(types.SimpleNamespace(port=httpd.server_address[1]), http.client.HTTPSConnection,
                    context=ssl.create_default_context(cafile=cert))
    yield httpd.store, client
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize('fault, error', [
    ({'kind': 'tls_reset'}, ConnectionResetError),
    ({'kind': 'tls_stall', 'delay': 2}, socket.timeout),
])
def test_a_tls_handshake_reset_or_never_answered_sends_nothing(https, fault, error):
    store, client = https
    store.reset()
    armed = server.dispatch(store, server.Request('POST', '/_admin/faults', {}, json.dumps(fault).encode()))
    assert armed.status == 200  # a TLS fault needs HTTPS, which this simulator serves
    connection = http.client.HTTPSConnection('127.0.0.1', client.process.port, timeout=0.5, context=client.connection_args['context'])
    with pytest.raises(error):
        connection.request('GET', service_path(), headers={'Authorization': 'Basic x'})
    connection.close()
    assert client.cloud('GET', service_path()).result['id'] == SERVICE_PROD  # the next connection is served
    assert [entry['status'] for entry in store.requests] == [200] and store.faults == []
