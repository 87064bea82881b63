# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The HTTP client (module_utils/transport.py). Retries, waits, lost answers and answers without the envelope against the
simulator in process (tests/unit/conftest.py); what only a real transport shows against servers on 127.0.0.1: a
connection that never carried the request, a deadline over the whole request, the size cap, TLS, proxies, redirects
and the connection kept alive."""

import base64
import gzip
import json
import select
import shutil
import socket
import ssl
import struct
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import cloud, errors, transport
from ansible_collections.engine.cloud.plugins.module_utils.errors import LOST_ANSWER_HINT, ApiError
from ansible_collections.engine.cloud.tests.certificates import self_signed
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (KEY_ID, KEY_SECRET, PIPE_KAFKA, SERVICE_PROD, SOURCE_METRICS,
                                                                          TOKEN, pipe_path, service_path)
from ansible_collections.engine.cloud.tests.unit.conftest import SIM_URL

SERVICE = service_path()
SERVICES = SERVICE.rsplit('/', 1)[0]
SERIES = '/api/v2/charts/series'
CHART = {'series': [{'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': '', 'groupBy': []}],
         'startTime': 1728736620000, 'endTime': 1728740220000}


def client(api='cloud', **options):
    """A client of either API on the simulator; jitter 0.5 puts each backoff at three quarters of 1, 2, 4 ... s."""
    given = dict(base_url=SIM_URL, retries=5, jitter=lambda: 0.5)
    if api == 'cloud':
        given.update(auth=(KEY_ID, KEY_SECRET), not_replayable=cloud.NOT_REPLAYABLE, envelope='result')
    else:
        given.update(token=TOKEN, envelope='data')
    return transport.HttpClient(**dict(given, **options))


def fault(**spec):
    return dict(dict(kind='status', status=503, path='.'), **spec)


def failure(sent_by, method='GET', path=SERVICE, **kwargs):
    with pytest.raises(ApiError) as info:
        sent_by.request(method, path, **kwargs)
    return info.value


# Retries and waits ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('failed', [fault(status=429), fault(status=502), fault(status=503), fault(status=504), fault(kind='reset'),
                                    fault(kind='delay', delay=40)], ids=['429', '502', '503', '504', 'reset', 'timeout'])
def test_what_is_retried_backs_off_exponentially_then_succeeds(sim, failed):
    sim.faults(dict(failed, count=3))
    assert client().request('GET', SERVICE)['result']['id'] == SERVICE_PROD
    assert len(sim.requests()) == 4 and sim.clock.sleeps == [0.75, 1.5, 3.0]


def test_backoff_is_between_half_and_all_of_its_step_and_capped():
    assert [client(jitter=lambda: 0.0).backoff(n) for n in range(4)] == [0.5, 1.0, 2.0, 4.0]
    assert [client(jitter=lambda: 1.0).backoff(n) for n in range(4)] == [1.0, 2.0, 4.0, 8.0]
    assert client(jitter=lambda: 1.0).backoff(40) == transport.BACKOFF_CAP == 2 * client(jitter=lambda: 0.0).backoff(40)


@pytest.mark.parametrize('retries', [0, 2])
@pytest.mark.parametrize('failed, says', [
    (fault(body={'status': 503, 'error': 'SERVICE_UNAVAILABLE: try later', 'requestId': 'rid-9'}),
     'HTTP 503 SERVICE_UNAVAILABLE: try later (request id rid-9'),
    (fault(kind='delay', delay=40), 'no response within api_timeout (7 s)'),
], ids=['503', 'timeout'])
def test_api_retries_bounds_the_attempts_and_the_message_says_what_and_how_many(sim, retries, failed, says):
    sim.faults(dict(failed, count=9))
    error = failure(client(retries=retries, timeout=7))
    assert len(sim.requests()) == error.attempts == retries + 1 and len(sim.clock.sleeps) == retries
    assert str(error).startswith('GET %s%s failed: %s' % (SIM_URL, SERVICE, says)), str(error)
    assert ('after %d attempts' % (retries + 1) in str(error)) == bool(retries)


@pytest.mark.parametrize('status', [400, 401, 403, 404, 409, 424, 500])
@pytest.mark.parametrize('method', ['GET', 'PATCH'])
def test_other_statuses_fail_at_once(sim, status, method):
    sim.faults(fault(status=status))
    error = failure(client(), method, body={} if method == 'PATCH' else None)
    assert (error.status, error.attempts, error.answer_lost, len(sim.requests()), sim.clock.sleeps) == (status, 1, False, 1, [])
    assert 'lost' not in str(error)


# The simulator's clock starts at 2024-10-12T13:37:00.125Z (conftest.START).
@pytest.mark.parametrize('headers, wait', [
    ({'Retry-After': '7'}, 7.0),
    ({'X-RateLimit-Reset': '4'}, 4.0),
    ({'RateLimit-Reset': '3'}, 3.0),
    ({'Retry-After': '60', 'RateLimit-Reset': '12'}, 12.0),  # what the window really has left
    ({'Retry-After': '60', 'X-RateLimit-Reset': '9'}, 9.0),
    ({'Retry-After': '3600'}, transport.RETRY_AFTER_CAP),
    ({'Retry-After': 'Sat, 12 Oct 2024 13:37:11 GMT'}, 10.875),
    ({'X-RateLimit-Reset': '1728740240'}, 19.875),  # an epoch time
    ({'Retry-After': 'soon'}, None),
    ({}, None),
], ids=['Retry-After', 'X-RateLimit-Reset', 'RateLimit-Reset', 'RateLimit-Reset first', 'X-RateLimit-Reset first', 'capped',
        'HTTP-date', 'epoch', 'unreadable', 'none'])
def test_a_429_waits_what_the_server_asks_counts_the_wait_and_holds_the_pacer(sim, headers, wait):
    pacer = mock.Mock()
    sim.faults(fault(status=429, headers=headers))
    sent_by = client(pacer=pacer)
    sent_by.request('GET', SERVICE)
    slept = 0.75 if wait is None else wait  # nothing readable: the backoff
    assert sim.clock.sleeps == [pytest.approx(slept)] and sent_by.waited == pytest.approx(slept)
    slot = pacer.acquire.return_value
    assert pacer.mock_calls == [mock.call.acquire(), mock.call.answered(slot), mock.call.refused(wait if wait is None else pytest.approx(wait)),
                                mock.call.acquire(), mock.call.answered(slot)]


def test_a_429_on_the_last_attempt_still_holds_the_other_processes_back(sim):
    """No wait is left for this task, but the processes sharing its pacer must not run into the same window."""
    pacer = mock.Mock()
    sim.faults(fault(status=429, headers={'X-RateLimit-Reset': '4'}))
    assert failure(client(pacer=pacer, retries=0)).status == 429
    assert pacer.mock_calls == [mock.call.acquire(), mock.call.answered(pacer.acquire.return_value), mock.call.refused(4.0)]


@pytest.mark.parametrize('value', ['nan', 'inf', '-inf'])
def test_a_wait_that_is_no_number_is_a_clear_error_and_nothing_is_sent_again(sim, value):
    sim.faults(fault(status=429, headers={'Retry-After': value}))
    error = failure(client())
    assert 'the server asked to wait Retry-After: %s, which is no number of seconds; nothing was sent again' % value in str(error)
    assert (error.status, len(sim.requests()), sim.clock.sleeps) == (429, 1, [])


# Lost answers --------------------------------------------------------------------------------------------------------

LOST = [fault(status=502), fault(status=503), fault(status=504), fault(kind='reset'), fault(kind='delay', delay=40),
        fault(status=504, apply=True)]
LOST_IDS = ['502', '503', '504', 'reset', 'timeout', '504 applied']


@pytest.mark.parametrize('lost', LOST, ids=LOST_IDS)
@pytest.mark.parametrize('api, method, path, once', [
    ('cloud', 'PATCH', SERVICE, False), ('cloud', 'POST', SERVICES, False), ('cloud', 'DELETE', SERVICE, False),
    ('observability', 'PATCH', '/api/v2/alerts/a', False), ('observability', 'POST', SERIES, True),
], ids=['PATCH', 'create', 'delete', 'observability PATCH', 'once'])
def test_a_write_whose_answer_is_lost_is_not_sent_again(sim, lost, api, method, path, once):
    sim.faults(dict(lost, method=method, count=2))
    error = failure(client(api), method, path, body=CHART if once else {'name': 'x'}, once=once)
    assert error.answer_lost is True and str(error).endswith(LOST_ANSWER_HINT), str(error)
    assert len(sim.requests()) == 1 and sim.clock.sleeps == []


@pytest.mark.parametrize('lost', LOST[:-1], ids=LOST_IDS[:-1])
@pytest.mark.parametrize('api, method, path, body', [
    ('cloud', 'GET', SERVICE, None), ('cloud', 'PUT', pipe_path(PIPE_KAFKA, '/settings'), {}), ('observability', 'POST', SERIES, CHART),
], ids=['GET', 'settings PUT', 'chart query'])
def test_reads_and_writes_that_may_be_replayed_are_retried(sim, lost, api, method, path, body):
    sim.faults(dict(lost, method=method))
    client(api).request(method, path, body=body)
    assert [entry['fault'] for entry in sim.requests()] == [lost['kind'], None]


# Answers that say nothing of the resource ----------------------------------------------------------------------------

@pytest.mark.parametrize('api, method, body, says', [
    ('cloud', 'GET', {}, 'the response has no "result" field, so it says nothing of the resource: {}'),
    ('cloud', 'GET', '', 'the response has no "result" field, so it says nothing of the resource: empty response body'),
    ('cloud', 'PATCH', {'status': 200, 'data': {}}, 'the response has no "result" field'),
    ('cloud', 'GET', ['a'], 'the response has no "result" field'),
    ('observability', 'GET', {'result': []}, 'the response has no "data" field'),
    ('cloud', 'GET', '{"result": {"id": "3f1c', 'the response is not valid JSON: {"result": {"id": "3f1c'),
    ('cloud', 'DELETE', {}, None), ('observability', 'DELETE', '', None),
], ids=['empty object', 'empty body', 'other envelope', 'a list', 'observability', 'not JSON', 'DELETE {}', 'DELETE empty'])
def test_a_2xx_answer_without_the_envelope_is_an_error_but_for_a_delete(sim, api, method, body, says):
    sim.faults(fault(status=200, method=method, body=body))
    sent_by, path = client(api), '/api/v2/alerts' if api == 'observability' else SERVICE
    if says is None:
        assert sent_by.request(method, path) == {}
        return
    error = failure(sent_by, method, path, body={} if method == 'PATCH' else None)
    assert says in str(error) and error.status == 200 and len(sim.requests()) == 1, str(error)


# Real servers on 127.0.0.1 ------------------------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    """Records each request (request line, headers, body, the client's address) and answers as server.answer(handler)."""
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def answer(self):
        body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
        self.server.seen.append((self.requestline, dict(self.headers), body, self.client_address))
        self.server.answer(self)

    do_GET = do_DELETE = do_PATCH = do_POST = answer

    def do_CONNECT(self):
        """A proxy's tunnel to host:port, both ways until either end closes."""
        self.server.seen.append((self.requestline, dict(self.headers), b'', self.client_address))
        host, dummy, port = self.path.rpartition(':')
        upstream = socket.create_connection((host, int(port)), timeout=5)
        self.send_response(200, 'Connection established')
        self.end_headers()
        data = True
        while data:
            readable = select.select([self.connection, upstream], [], [], 5)[0]
            data = readable and readable[0].recv(65536)
            (upstream if readable and readable[0] is self.connection else self.connection).sendall(data or b'')
        upstream.close()
        self.close_connection = True


def reply(handler, status=200, body=b'{}', headers=()):
    handler.send_response(status)
    for name, value in dict([('Content-Type', 'application/json'), ('Content-Length', str(len(body)))] + list(headers)).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def reset(sock):
    sock.recv(16)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))


# What a server does instead of answering, to the first connections it is told to (each then closes the socket).
MISBEHAVE = {'close': lambda sock: None, 'reset': reset, 'silent': lambda sock: all(iter(lambda: sock.recv(65536), b''))}


class Server(ThreadingHTTPServer):
    """A server on 127.0.0.1 (over TLS with a context) whose first connections misbehave as named."""
    daemon_threads = True

    def __init__(self, answer=reply, tls=None, first=()):
        super(Server, self).__init__(('127.0.0.1', 0), Handler)
        self.answer, self.tls, self.first, self.seen = answer, tls, list(first), []
        self.port = self.server_address[1]
        self.url = '%s://localhost:%d' % ('https' if tls else 'http', self.port)
        threading.Thread(target=self.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()

    def finish_request(self, request, client_address):
        if self.first:
            return MISBEHAVE[self.first.pop(0)](request)
        if self.tls:
            request = self.tls.wrap_socket(request, server_side=True)
        return super(Server, self).finish_request(request, client_address)

    def handle_error(self, request, client_address):
        pass  # a client that gave up: the point of most of these tests


@pytest.fixture
def servers():
    started = []
    yield lambda *args, **kwargs: started.append(Server(*args, **kwargs)) or started[-1]
    for server in started:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope='module')
def certificate(tmp_path_factory):
    """A self-signed CA certificate for localhost and 127.0.0.1, and its key: (cert, key) paths."""
    return self_signed(tmp_path_factory.mktemp('tls'))


def tls(certificate, client_ca=None, version=None):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)
    if client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(client_ca)
    context.maximum_version = getattr(ssl.TLSVersion, version or 'MAXIMUM_SUPPORTED')
    return context


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    for name in ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'SSL_CERT_FILE',
                 'SSL_CERT_DIR'):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv('HOME', str(tmp_path))  # no ~/.netrc of the user's


@pytest.fixture
def closed_port():
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    port = listener.getsockname()[1]
    listener.close()
    return port


def test_one_connection_carries_every_request_of_a_run_as_it_was_given(servers):
    api = servers()
    sent_by = transport.HttpClient(api.url + '/base', auth=(' key-id\n', 'key-secret\n'), retries=0)
    sent_by.request('GET', '/v1/things', params={'tag': ['a', 'b'], 'none': None, 'limit': 5})
    sent_by.request('PATCH', '/v1/things/1', body={'name': 'x'})
    (get, headers, dummy, first), (patch, patch_headers, body, second) = api.seen
    assert get == 'GET /base/v1/things?tag=a&tag=b&limit=5 HTTP/1.1' and patch == 'PATCH /base/v1/things/1 HTTP/1.1'
    assert headers['Authorization'] == 'Basic %s' % base64.b64encode(b'key-id:key-secret').decode()  # white space not sent
    assert (headers['Accept'], headers['User-Agent'], patch_headers['Content-Type']) == ('application/json', 'engine.cloud', 'application/json')
    assert json.loads(body) == {'name': 'x'} and first == second


@pytest.mark.parametrize('status', [301, 302, 307, 308])
@pytest.mark.parametrize('method', ['GET', 'DELETE'])
@pytest.mark.parametrize('location, shown', [
    ('{target}/elsewhere', '{target}/elsewhere'), ('/v1/moved', 'http://localhost:{port}/v1/moved'),
    ('https://user:pw-7Hq2@api.engine.example/v1/x', 'https://api.engine.example/v1/x'),
], ids=['elsewhere', 'relative', 'https with credentials'])
def test_a_redirect_is_not_followed_and_fails_naming_its_location(servers, clock, status, method, location, shown):
    target = servers()
    api = servers(lambda handler: reply(handler, status, headers=[('Location', location.format(target=target.url))]))
    error = failure(transport.HttpClient(api.url, retries=5, url_hint='Check api_url'), method, '/v1/x')
    assert (error.status, error.attempts, error.answer_lost, len(api.seen), target.seen, clock.sleeps) == (status, 1, False, 1, [], [])
    assert 'HTTP %d: the API answered with a redirect to %s, which is not followed' % (status, shown.format(target=target.url, port=api.port)) \
        in str(error) and 'pw-7Hq2' not in str(error), str(error)
    assert str(error).endswith('use an https:// address. Check api_url') == location.startswith('https'), str(error)


# A request that never left, and one whose answer was lost --------------------------------------------------------

@pytest.mark.parametrize('behaviour', ['close', 'reset', 'silent'])
def test_a_tls_handshake_that_broke_off_sent_nothing_and_is_retried(servers, certificate, clock, behaviour):
    api = servers(tls=tls(certificate), first=[behaviour])
    answer = transport.HttpClient(api.url, retries=1, timeout=1, ca_path=certificate[0]).request('PATCH', '/v1/x', body={})
    assert answer == {} and [line for line, dummy, dummy, dummy in api.seen] == ['PATCH /v1/x HTTP/1.1'] and len(clock.sleeps) == 1


def test_a_connect_timeout_sent_nothing_and_is_retried(clock):
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(0)
    queued = [socket.socket() for dummy in range(4)]
    for sock in queued:  # a full accept queue: the next connection's SYN is dropped, its connect waits
        sock.setblocking(False)
        sock.connect_ex(listener.getsockname())
    try:
        error = failure(transport.HttpClient('http://127.0.0.1:%d' % listener.getsockname()[1], retries=1, timeout=1), 'PATCH', '/v1/x', body={})
    finally:
        for sock in queued + [listener]:
            sock.close()
    assert (error.answer_lost, error.attempts, len(clock.sleeps)) == (False, 2, 1)
    assert 'failed: no connection within api_timeout (1 s) (after 2 attempts)' in str(error), str(error)


@pytest.mark.parametrize('url, says', [
    ('http://127.0.0.1:{port}/', 'Failed to establish a new connection: [Errno 111] Connection refused (nothing listens at 127.0.0.1:{port}; '
                                 'not retried)'),
    ('https://api.engine.example', "Failed to resolve 'api.engine.example' ([Errno -2] Name or service not known)"),
], ids=['refused', 'unresolved'])
def test_a_connection_refused_or_a_name_unresolved_sent_nothing_and_fails_at_once(closed_port, monkeypatch, clock, url, says):
    if 'example' in url:
        monkeypatch.setattr(socket, 'getaddrinfo', unresolved)
    url = url.format(port=closed_port)
    error = failure(transport.HttpClient(url, retries=5, url_hint='Check api_url'), 'PATCH', '/v1/x', body={})
    assert str(error) == 'PATCH %s/v1/x failed: connection failed: %s. Check api_url' % (url.rstrip('/'), says.format(port=closed_port))
    assert (error.answer_lost, error.attempts, clock.sleeps) == (False, 1, [])


def unresolved(*args, **kwargs):
    raise socket.gaierror(socket.EAI_NONAME, 'Name or service not known')


def cut_short(handler):
    reply(handler, body=b'{"result": ', headers=[('Content-Length', '100')])
    handler.close_connection = True


@pytest.mark.parametrize('method', ['GET', 'PATCH'])
def test_an_answer_cut_short_is_lost_for_a_write_and_retried_for_a_read(servers, clock, method):
    api = servers(cut_short)
    error = failure(transport.HttpClient(api.url, retries=1, envelope='result'), method, '/v1/x', body={})
    assert 'Connection aborted while reading the answer' in str(error), str(error)
    assert (error.answer_lost, len(api.seen)) == ((True, 1) if method == 'PATCH' else (False, 2))


# api_timeout, the size cap, urllib3 ---------------------------------------------------------------------------------

def trickle(handler, head=b'HTTP/1.1 200 OK\r\nX-Padding: ' + b'x' * 200, body=b''):
    for byte in head + body:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.05)


@pytest.mark.parametrize('answer', [trickle, lambda handler: trickle(handler, b'HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n', b' ' * 200)],
                         ids=['status line and headers', 'body'])
def test_api_timeout_bounds_an_answer_that_trickles(servers, answer):
    """Each byte comes well within the timeout; all of them take 10 s or more."""
    api = servers(answer)
    started = time.monotonic()
    error = failure(transport.HttpClient(api.url, timeout=2, retries=0), path='/v1/x')
    assert time.monotonic() - started < 6
    assert str(error).endswith('failed: no response within api_timeout (2 s)'), str(error)


def endless(handler):
    handler.send_response(200)
    handler.send_header('Transfer-Encoding', 'chunked')
    handler.end_headers()
    while True:
        handler.wfile.write(b'%x\r\n%s\r\n' % (65536, b'x' * 65536))


BOMB = gzip.compress(b' ' * (4 << 20))


@pytest.mark.parametrize('answer', [endless, lambda handler: reply(handler, body=BOMB, headers=[('Content-Encoding', 'gzip')]),
                                    lambda handler: reply(handler, headers=[('Content-Length', str(5 << 20))])],
                         ids=['chunked without end', 'gzip that grows', 'Content-Length'])
def test_an_answer_larger_than_the_cap_is_not_read(servers, monkeypatch, clock, answer):
    monkeypatch.setattr(transport, 'MAX_ANSWER_BYTES', 1 << 20)
    error = failure(transport.HttpClient(servers(answer).url, retries=5), path='/v1/x')
    assert 'the answer is larger than 1 MiB' in str(error) and error.attempts == 1, str(error)


@pytest.mark.parametrize('version', ['2.5.0', '1.26.20'])
def test_urllib3_below_the_floor_is_refused_before_any_connection(servers, monkeypatch, version):
    import urllib3  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(urllib3, '__version__', version)
    api = servers()
    error = failure(transport.HttpClient(api.url, retries=3), path='/v1/x')
    assert ('the Python package urllib3 2.6 or later is needed on the host that runs this module (found %s): '
            'pip install "urllib3>=2.6"' % version) in str(error) and error.attempts == 1 and api.seen == [], str(error)


# TLS ---------------------------------------------------------------------------------------------------------------

def hashed_directory(directory, certificate):
    """A CA directory as openssl rehash makes it."""
    if shutil.which('openssl') is None:
        pytest.skip('needs the openssl command')
    digest = subprocess.run(['openssl', 'x509', '-hash', '-noout', '-in', certificate], capture_output=True, text=True, check=True)
    directory.mkdir()
    shutil.copy(certificate, str(directory / ('%s.0' % digest.stdout.strip())))
    return str(directory)


@pytest.mark.parametrize('source', ['ca_path', 'REQUESTS_CA_BUNDLE', 'SSL_CERT_DIR', 'SSL_CERT_DIR with several', 'no CA'])
def test_a_private_ca_verifies_the_server(servers, certificate, monkeypatch, tmp_path, clock, source):
    api = servers(tls=tls(certificate))
    if source == 'REQUESTS_CA_BUNDLE':
        monkeypatch.setenv(source, certificate[0])
    elif source.startswith('SSL_CERT_DIR'):
        (tmp_path / 'empty').mkdir()
        hashed = hashed_directory(tmp_path / 'hashed', certificate[0])
        monkeypatch.setenv('SSL_CERT_DIR', str(tmp_path / 'empty') + ':' + hashed if 'several' in source else hashed)
    sent_by = transport.HttpClient(api.url, retries=2, ca_path=certificate[0] if source == 'ca_path' else None)
    if source != 'no CA':
        assert sent_by.request('GET', '/v1/x') == {} and len(api.seen) == 1
        return
    error = failure(sent_by, path='/v1/x')
    assert 'failed: TLS certificate verification failed: [SSL: CERTIFICATE_VERIFY_FAILED]' in str(error), str(error)
    assert 'with ca_path' in str(error) and error.attempts == 1 and api.seen == []


@pytest.mark.parametrize('source', ['ca_path', 'REQUESTS_CA_BUNDLE', 'SSL_CERT_DIR'])
def test_a_missing_ca_path_fails_before_any_connection(servers, certificate, monkeypatch, tmp_path, clock, source):
    api = servers(tls=tls(certificate), first=['reset'])  # a connection would use it up
    missing = str(tmp_path / 'missing')
    if source != 'ca_path':
        monkeypatch.setenv(source, str(tmp_path) + ':' + missing if source == 'SSL_CERT_DIR' else missing)
    error = failure(transport.HttpClient(api.url, retries=3, ca_path=missing if source == 'ca_path' else None), 'POST', '/v1/x', body={})
    assert ('TLS certificate verification failed: cannot read the CA file or directory %s (%s): no such file or directory'
            % (missing, source)) in str(error), str(error)
    assert (error.attempts, error.answer_lost, api.first, clock.sleeps) == (1, False, ['reset'], [])


def test_a_client_certificate_is_presented_and_a_missing_one_named(servers, certificate, tmp_path, clock):
    api = servers(tls=tls(certificate, client_ca=certificate[0]))
    cert, key = certificate
    assert transport.HttpClient(api.url, retries=0, ca_path=cert, client_cert=cert, client_key=key).request('GET', '/v1/x') == {}
    missing = str(tmp_path / 'missing.pem')
    error = failure(transport.HttpClient(api.url, retries=3, ca_path=cert, client_cert=cert, client_key=missing), path='/v1/x')
    assert 'cannot read the client certificate file %s (client_key)' % missing in str(error) and len(api.seen) == 1


@pytest.mark.parametrize('version', ['TLSv1_2', 'TLSv1_3'])  # TLS 1.3: the refusal ends the session the client thinks open
@pytest.mark.parametrize('method', ['GET', 'PATCH'])
def test_a_server_that_demands_a_client_certificate_says_to_give_one(servers, certificate, clock, version, method):
    api = servers(tls=tls(certificate, client_ca=certificate[0], version=version))
    error = failure(transport.HttpClient(api.url, retries=3, ca_path=certificate[0]), method, '/v1/x', body={})
    assert 'client_cert and client_key' in str(error) and 'verification' not in str(error), str(error)
    assert (error.answer_lost, api.seen) == (False, [])


# Proxies -----------------------------------------------------------------------------------------------------------

def test_an_http_api_goes_through_the_proxy_with_its_credentials(servers, monkeypatch):
    proxy = servers()
    monkeypatch.setenv('HTTP_PROXY', 'http://proxy-user:p%%40ss@127.0.0.1:%d' % proxy.port)
    assert transport.HttpClient('http://api.engine.example:8080', retries=0).request('GET', '/v1/x') == {}
    line, headers, dummy, dummy = proxy.seen[0]
    assert line == 'GET http://api.engine.example:8080/v1/x HTTP/1.1'
    assert headers['Proxy-Authorization'] == 'Basic %s' % base64.b64encode(b'proxy-user:p@ss').decode()


def test_an_https_api_goes_through_one_tunnel_of_the_proxy(servers, certificate, monkeypatch):
    api, proxy = servers(tls=tls(certificate)), servers()
    monkeypatch.setenv('HTTPS_PROXY', 'http://127.0.0.1:%d' % proxy.port)
    # a token as `echo ... | ansible-vault encrypt_string` gives it: the newline is not sent
    sent_by = transport.HttpClient(api.url, token='tok-3f9a1c7e5b2d\n', retries=0, ca_path=certificate[0])
    assert sent_by.request('GET', '/v1/x') == {} and sent_by.request('GET', '/v1/y') == {}
    assert [line.rsplit(' ', 1)[0] for line, dummy, dummy, dummy in proxy.seen] == ['CONNECT localhost:%d' % api.port]
    assert [line for line, dummy, dummy, dummy in api.seen] == ['GET /v1/x HTTP/1.1', 'GET /v1/y HTTP/1.1']
    assert api.seen[0][1]['Authorization'] == 'Bearer tok-3f9a1c7e5b2d'


@pytest.mark.parametrize('no_proxy', ['localhost', 'example.com, localhost:{port}', '127.0.0.0/8'])
def test_no_proxy_sends_straight_to_the_api(servers, monkeypatch, closed_port, no_proxy):
    api = servers()
    monkeypatch.setenv('HTTP_PROXY', 'http://127.0.0.1:%d' % closed_port)
    monkeypatch.setenv('NO_PROXY', no_proxy.format(port=api.port))
    url = api.url.replace('localhost', '127.0.0.1') if '/' in no_proxy else api.url
    assert transport.HttpClient(url, retries=0).request('GET', '/v1/x') == {} and len(api.seen) == 1


@pytest.mark.parametrize('password', ['Zq9xK2m/ss#word', 'Zq9xK2m#w0rd', 'p@ss/w#rd:99', 'simple-password-1'])
def test_a_proxy_that_fails_is_named_without_any_part_of_its_password(monkeypatch, closed_port, clock, password):
    monkeypatch.setenv('HTTP_PROXY', 'http://proxyuser:%s@127.0.0.1:%d/' % (password, closed_port))
    error = failure(transport.HttpClient('http://api.engine.example', retries=2, url_hint='Check api_url'), path='/v1/x')
    message = str(error)
    assert not [password[start:start + 6] for start in range(len(password) - 5) if password[start:start + 6] in message], message
    assert 'Check api_url' not in message, message  # the proxy failed, not the address
    if password == 'simple-password-1':
        assert 'proxy http://127.0.0.1:%d/ failed: [Errno 111] Connection refused. %s' % (closed_port, errors.PROXY_HINT) in message, message
        assert error.attempts == 1 and clock.sleeps == []
