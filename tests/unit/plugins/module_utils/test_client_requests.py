# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The transport against real servers on 127.0.0.1 (issue 37): redirects are not followed and fail naming
their Location, proxies of each scheme requests speaks (http, https, a NO_PROXY entry with a port, socks
without PySocks), a server that trickles its answer stops at api_timeout, a huge answer is never read
whole, and no form of the key or token is sent broken or shown in a message."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import email.message
import importlib.util
import json
import os
import select
import socket
import ssl
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.modules import service
from tests.certificates import self_signed

TOKEN = 'tok-3f9a1c7e5b2d'


class Handler(BaseHTTPRequestHandler):
    """Records each request (request line, headers) and answers as server.answer(handler) says."""
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def handle_one_request(self):
        try:
            super(Handler, self).handle_one_request()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True

    def answer(self):
        self.rfile.read(int(self.headers.get('Content-Length') or 0))
        self.server.seen.append((self.requestline, dict(self.headers)))
        self.server.answer(self)

    do_GET = do_DELETE = do_PATCH = do_POST = answer

    def do_CONNECT(self):
        """A proxy's tunnel to host:port, both ways until either end closes."""
        self.server.seen.append((self.requestline, dict(self.headers)))
        host, dummy, port = self.path.rpartition(':')
        upstream = socket.create_connection((host, int(port)), timeout=5)
        self.send_response(200, 'Connection established')
        self.end_headers()
        ends = [self.connection, upstream]
        while True:
            readable = select.select(ends, [], [], 5)[0]
            data = readable and readable[0].recv(65536)
            if not data:
                break
            (upstream if readable[0] is self.connection else self.connection).sendall(data)
        upstream.close()
        self.close_connection = True


def json_answer(handler, status=200, body=None, headers=None):
    payload = b'' if body is None else json.dumps(body).encode()
    handler.send_response(status)
    for name, value in dict({'Content-Type': 'application/json', 'Content-Length': str(len(payload))}, **(headers or {})).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(payload)


def start(answer=json_answer, tls=None):
    """A server on 127.0.0.1 (over TLS with tls=(cert, key)); answer(handler) answers each request."""
    httpd = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    httpd.daemon_threads = True
    if tls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*tls)
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    httpd.seen, httpd.answer = [], answer
    httpd.port = httpd.server_address[1]
    httpd.url = '%s://localhost:%d' % ('https' if tls else 'http', httpd.port)
    threading.Thread(target=httpd.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()
    return httpd


@pytest.fixture
def servers():
    started = []

    def make(*args, **kwargs):
        started.append(start(*args, **kwargs))
        return started[-1]
    yield make
    for httpd in started:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope='module')
def certificate(tmp_path_factory):
    """A self-signed certificate for localhost and 127.0.0.1: (cert, key) paths."""
    return self_signed(tmp_path_factory.mktemp('tls'))


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    for name in ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY',
                 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'SSL_CERT_FILE', 'SSL_CERT_DIR'):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv('HOME', str(tmp_path))  # no ~/.netrc of the user's


@pytest.fixture
def sleeps(monkeypatch):
    recorded = []
    monkeypatch.setattr(CLOCK, 'sleep', recorded.append)
    return recorded


def failure(client, method='GET', path='/v1/x'):
    with pytest.raises(http.ApiError) as info:
        client.request(method, path)
    return info.value


# --- redirects ------------------------------------------------------------------------------------

@pytest.mark.parametrize('status', [301, 302, 307, 308])
@pytest.mark.parametrize('method', ['GET', 'DELETE'])
def test_a_redirect_is_not_followed_and_fails_naming_status_and_location(servers, sleeps, status, method):
    """An empty 3xx answer was taken for success ({}): a DELETE reported done, a read found nothing."""
    target = servers()
    api = servers(lambda handler: json_answer(handler, status, headers={'Location': target.url + '/elsewhere/v1/x'}))
    error = failure(http.HttpClient(api.url, token=TOKEN, retries=5), method)
    assert (error.status, error.attempts, error.answer_lost) == (status, 1, False)
    assert 'HTTP %d' % status in str(error) and 'redirect to %s/elsewhere/v1/x' % target.url in str(error), str(error)
    assert len(api.seen) == 1 and target.seen == [] and sleeps == []


def test_an_http_address_redirected_to_https_says_to_use_https(servers):
    api = servers(lambda handler: json_answer(handler, 301, headers={'Location': 'https://user:pw@api.engine.example/v1/x'}))
    message = str(failure(http.HttpClient(api.url, auth=('key', 's3cret-value'), retries=0, url_hint='Check api_url')))
    assert 'redirect to https://api.engine.example/v1/x' in message and 'use an https:// address. Check api_url' in message, message
    assert 'pw@' not in message and 's3cret-value' not in message


def test_state_absent_fails_on_a_redirect_instead_of_reporting_already_absent(run, monkeypatch):
    def redirect(connection, method, target, headers, body=None):
        answer = email.message.Message()
        answer['Location'] = 'https://api.engine.example' + target
        return 301, answer, b''
    monkeypatch.setattr(http.Connection, 'send', redirect)
    run(service, dict(name='prod-analytics', state='absent'), requests=[], fails='HTTP 301', absent=['changed'])


# --- proxies --------------------------------------------------------------------------------------

def test_an_https_api_goes_through_an_http_proxys_tunnel(servers, certificate, monkeypatch):
    api, proxy = servers(tls=certificate), servers()
    monkeypatch.setenv('HTTPS_PROXY', 'http://proxy-user:p%%40ss@127.0.0.1:%d' % proxy.port)
    client = http.HttpClient(api.url, token=TOKEN, retries=0, ca_path=certificate[0])
    assert client.request('GET', '/v1/x') == {} and client.request('GET', '/v1/y') == {}
    assert len(proxy.seen) == 1 and proxy.seen[0][0].startswith('CONNECT localhost:%d HTTP/' % api.port)  # one tunnel, kept alive
    assert proxy.seen[0][1]['Proxy-Authorization'] == 'Basic cHJveHktdXNlcjpwQHNz'
    assert [line for line, dummy in api.seen] == ['GET /v1/x HTTP/1.1', 'GET /v1/y HTTP/1.1']
    assert api.seen[0][1]['Authorization'] == 'Bearer ' + TOKEN


def test_an_https_proxy_is_spoken_to_over_tls_and_verified(servers, certificate, monkeypatch, sleeps):
    """Before, an https:// proxy got the request in plain text (and port 80 when it named none)."""
    api, proxy = servers(tls=certificate), servers(tls=certificate)
    monkeypatch.setenv('HTTPS_PROXY', proxy.url)
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # no unverified connection
        assert http.HttpClient(api.url, token=TOKEN, retries=0, ca_path=certificate[0]).request('GET', '/v1/x') == {}
    assert proxy.seen[0][0].startswith('CONNECT localhost:%d HTTP/' % api.port) and api.seen[0][0] == 'GET /v1/x HTTP/1.1'
    message = str(failure(http.HttpClient(api.url, token=TOKEN, retries=0)))
    assert 'proxy %s failed: [SSL: CERTIFICATE_VERIFY_FAILED]' % proxy.url in message, message
    assert len(api.seen) == 1


def test_a_no_proxy_entry_with_a_port_sends_straight_to_the_api(servers, monkeypatch, sleeps):
    api = servers()
    monkeypatch.setenv('HTTP_PROXY', 'http://127.0.0.1:9')
    monkeypatch.setenv('NO_PROXY', 'example.com,localhost:%d' % api.port)
    assert http.HttpClient(api.url, retries=0).request('GET', '/v1/x') == {}
    assert api.seen[0][0] == 'GET /v1/x HTTP/1.1'


def test_a_refused_proxy_is_named_and_not_blamed_on_the_api_address(monkeypatch, sleeps):
    monkeypatch.setenv('HTTP_PROXY', 'http://user:pw@127.0.0.1:9')
    error = failure(http.HttpClient('http://api.engine.example', retries=5, url_hint='Check api_url'))
    message = str(error)
    assert 'proxy http://127.0.0.1:9 failed: ' in message and 'Connection refused' in message, message
    assert message.endswith('Check the proxy environment variables (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY)'), message
    assert 'pw' not in message and error.attempts == 1 and sleeps == []


def test_a_socks_proxy_without_pysocks_says_what_to_install(monkeypatch, sleeps):
    pytest.importorskip('requests')
    if importlib.util.find_spec('socks') is not None:
        pytest.skip('PySocks is installed')
    monkeypatch.setenv('ALL_PROXY', 'socks5://127.0.0.1:9')
    error = failure(http.HttpClient('http://api.engine.example', retries=5))
    assert 'SOCKS proxy' in str(error) and 'pip install PySocks' in str(error), str(error)
    assert error.attempts == 1 and sleeps == []


# --- a slow or huge answer ------------------------------------------------------------------------

def trickle(handler):
    """Headers at once, then one byte of the body every 0.1 s (60 s for all of it)."""
    handler.send_response(200)
    handler.send_header('Content-Length', '600')
    handler.end_headers()
    for dummy in range(600):
        handler.wfile.write(b' ')
        handler.wfile.flush()
        time.sleep(0.1)


def test_api_timeout_bounds_the_whole_answer_of_a_server_that_trickles(servers, sleeps):
    """Each byte came within the timeout, so the answer took as long as the server liked (31.7 s for 1 s)."""
    api = servers(trickle)
    started = time.monotonic()
    error = failure(http.HttpClient(api.url, timeout=1, retries=0))
    assert time.monotonic() - started < 10  # 60 s without the deadline; about 1 s with it
    assert 'no response within api_timeout (1 s)' in str(error), str(error)


def endless(handler):
    """A chunked answer that never ends (until the client goes away)."""
    handler.send_response(200)
    handler.send_header('Transfer-Encoding', 'chunked')
    handler.end_headers()
    chunk = b'%x\r\n%s\r\n' % (65536, b'x' * 65536)
    while True:
        handler.wfile.write(chunk)


@pytest.mark.parametrize('answer', [
    endless,
    lambda handler: json_answer(handler, headers={'Content-Length': str(5 * 1024 * 1024)}),
], ids=['chunked, no end', 'Content-Length'])
def test_an_answer_larger_than_the_cap_is_not_read(servers, monkeypatch, sleeps, answer):
    monkeypatch.setattr(http, 'MAX_ANSWER_BYTES', 1024 * 1024)
    error = failure(http.HttpClient(servers(answer).url, retries=5))
    assert 'the answer is larger than 1 MiB' in str(error) and error.attempts == 1, str(error)


# --- credentials ------------------------------------------------------------------------------------

@pytest.mark.parametrize('token', [TOKEN + '\n', ' %s\r\n' % TOKEN, '\t' + TOKEN])
def test_white_space_around_a_token_is_not_sent(servers, token):
    api = servers()
    assert http.HttpClient(api.url, token=token, retries=0).request('GET', '/v1/x') == {}
    assert api.seen[0][1]['Authorization'] == 'Bearer ' + TOKEN


def test_white_space_around_a_key_is_not_sent(servers):
    api = servers()
    assert http.HttpClient(api.url, auth=(' key-id\n', 'key-secret\n'), retries=0).request('GET', '/v1/x') == {}
    assert api.seen[0][1]['Authorization'] == 'Basic a2V5LWlkOmtleS1zZWNyZXQ='  # key-id:key-secret


def test_a_token_with_a_line_break_inside_is_refused_before_anything_is_sent(servers):
    api = servers()
    token = TOKEN[:6] + '\n' + TOKEN[6:]
    message = str(failure(http.HttpClient(api.url, token=token, retries=0)))
    assert 'line break' in message and 'nothing was sent' in message, message
    assert TOKEN[:6] not in message and TOKEN[6:] not in message and api.seen == []


def test_an_answer_that_quotes_the_credentials_never_shows_them(servers):
    api = servers(lambda handler: json_answer(handler, 400, {'message': 'bad header %s' % handler.headers['Authorization']}))
    error = failure(http.HttpClient(api.url, token=TOKEN + '\n', retries=0))
    assert 'HTTP 400' in str(error) and TOKEN not in str(error) and 'bad header Bearer ********' in str(error), str(error)


# --- a client certificate ---------------------------------------------------------------------------

def test_a_client_certificate_is_presented_to_a_server_that_asks_for_one(servers, certificate, tmp_path, sleeps):
    api = servers(tls=certificate)
    api.socket.context.verify_mode = ssl.CERT_REQUIRED
    api.socket.context.load_verify_locations(certificate[0])
    cert, key = certificate
    assert http.HttpClient(api.url, retries=0, ca_path=cert, client_cert=cert, client_key=key).request('GET', '/v1/x') == {}
    missing = str(tmp_path / 'missing.pem')
    message = str(failure(http.HttpClient(api.url, retries=3, ca_path=cert, client_cert=cert, client_key=missing)))
    assert 'cannot read the client certificate file %s (client_key)' % missing in message, message
    assert len(api.seen) == 1


@pytest.mark.parametrize('version', ['TLSv1_2', 'TLSv1_3'])
def test_a_server_that_demands_a_client_certificate_fails_the_handshake_naming_client_cert(servers, certificate, sleeps, version):
    """Not a verification failure of the server's certificate with the CA hint: Python 3.13's OpenSSL reads TLS 1.3's
    certificate_required alert (3.11's a closed connection), TLS 1.2 servers send handshake_failure."""
    api = servers(tls=certificate)
    api.socket.context.verify_mode = ssl.CERT_REQUIRED
    api.socket.context.load_verify_locations(certificate[0])
    api.socket.context.maximum_version = getattr(ssl.TLSVersion, version)
    message = str(failure(http.HttpClient(api.url, retries=3, ca_path=certificate[0])))
    assert 'failed: TLS handshake failed: ' in message and 'client_cert and client_key' in message, message
    assert 'verification' not in message and 'ca_path' not in message, message
    assert sleeps == []


# --- the import in a module process -------------------------------------------------------------------

def test_a_module_process_imports_requests_without_an_encoding_guesser_and_the_controller_with_it():
    """In a fresh interpreter (the test process has imported requests already): what a module process and a
    controller process (ansible.cli imported) load."""
    import subprocess
    import sys
    # Warnings are errors for what the client imports, not for ansible.cli (ansible-core 2.16 warns of crypt).
    script = ('import sys, warnings; %swarnings.simplefilter("error"); '
              'from ansible_collections.engine.cloud.plugins.module_utils import client; requests = client._import_requests(); '
              'print(sorted(name for name in ("charset_normalizer", "chardet") if sys.modules.get(name)), requests.Session().get)')
    # The child imports what this process imports (ansible-test units puts the collection on sys.path, not in the environment).
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    module = subprocess.run([sys.executable, '-c', script % ''], capture_output=True, text=True, env=env, check=False)
    controller = subprocess.run([sys.executable, '-c', script % 'import ansible.cli; '], capture_output=True, text=True, env=env, check=False)
    assert module.returncode == 0 and controller.returncode == 0, (module.stderr[-2000:], controller.stderr[-2000:])
    assert module.stdout.startswith('[] <bound method') and module.stderr == '', (module.stdout, module.stderr)
    assert controller.stdout.startswith("['charset_normalizer'] <bound method"), (controller.stdout, controller.stderr)
