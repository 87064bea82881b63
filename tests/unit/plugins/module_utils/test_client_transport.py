# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The client's connection (http.client) against real servers on 127.0.0.1: one kept-alive connection
for a module run, a new one when the server closed it while idle (a write is then sent once and not
taken for lost), the query and headers as sent, the proxies of the environment, and a CA bundle that
cannot be read (an error before any connection)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK


class Recorder(BaseHTTPRequestHandler):
    """Answers every request with {"ok": true} and records it: (request line, headers, body, the client's address)."""
    protocol_version = 'HTTP/1.1'
    close_after = None  # a number of requests after which the server closes the connection

    def log_message(self, *args):
        pass

    def handle_one_request(self):
        self.server.connections.add(self.client_address)
        super(Recorder, self).handle_one_request()

    def answer(self):
        body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
        self.server.seen.append((self.requestline, dict(self.headers), body, self.client_address))
        payload = json.dumps({'ok': True}).encode()
        close = self.server.close_after is not None and len(self.server.seen) % self.server.close_after == 0
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(payload)))
        if close and self.server.announce_close:
            self.send_header('Connection', 'close')
        self.end_headers()
        self.wfile.write(payload)
        self.close_connection = close

    do_GET = do_PATCH = do_POST = answer

    def do_CONNECT(self):
        self.server.seen.append((self.requestline, dict(self.headers), b"", self.client_address))
        self.send_response(407, 'Proxy Authentication Required')
        self.send_header('Content-Length', '0')
        self.end_headers()
        self.close_connection = True


class Server(ThreadingHTTPServer):
    def shutdown_request(self, request):
        super(Server, self).shutdown_request(request)
        self.closed.set()  # the socket is closed: on loopback, the client's end reads as closed from now on


@pytest.fixture
def server():
    httpd = Server(('127.0.0.1', 0), Recorder)
    httpd.seen, httpd.connections, httpd.close_after, httpd.announce_close = [], set(), None, True
    httpd.closed = threading.Event()
    httpd.url = 'http://127.0.0.1:%d' % httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxy_environment(monkeypatch):
    for name in ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'):
        monkeypatch.delenv(name, raising=False)


def test_one_connection_carries_every_request_of_a_run(server):
    client = http.HttpClient(server.url + '/api', auth=('key', 'secret'), retries=0)
    client.request('GET', '/v1/things', params={'tag': ['a', 'b'], 'none': None, 'limit': 5})
    client.request('PATCH', '/v1/things/1', body={'name': 'x'})
    (get_line, get_headers, dummy, first), (patch_line, patch_headers, patch_body, second) = server.seen
    assert get_line == 'GET /api/v1/things?tag=a&tag=b&limit=5 HTTP/1.1'
    assert get_headers['Authorization'] == 'Basic %s' % base64.b64encode(b'key:secret').decode()
    assert (get_headers['Accept'], get_headers['User-Agent']) == ('application/json', 'engine.cloud')
    assert patch_line == 'PATCH /api/v1/things/1 HTTP/1.1' and json.loads(patch_body) == {'name': 'x'}
    assert patch_headers['Content-Type'] == 'application/json'
    assert first == second and len(server.connections) == 1


@pytest.mark.parametrize('announced', [True, False], ids=['Connection: close', 'closed while idle'])
def test_a_connection_the_server_closed_is_opened_again_and_a_write_is_sent_once(server, announced):
    """The server closes the connection after each answer: saying so (the client closes it at once), or
    without a word, as a server does with a connection idle longer than its keep-alive timeout (the client
    sees it closed before it sends on it)."""
    server.close_after, server.announce_close = 1, announced
    client = http.HttpClient(server.url, token='t0ken', retries=0)
    assert client.request('GET', '/a') == {'ok': True}
    assert server.closed.wait(5)
    assert client.request('PATCH', '/b', body={}) == {'ok': True}
    assert [line for line, dummy, dummy, dummy in server.seen] == ['GET /a HTTP/1.1', 'PATCH /b HTTP/1.1']
    assert server.seen[1][1]['Authorization'] == 'Bearer t0ken' and len(server.connections) == 2


def test_an_http_api_goes_through_the_proxy_of_the_environment_with_its_credentials(server, monkeypatch):
    monkeypatch.setenv('HTTP_PROXY', 'http://proxy-user:p%%40ss@127.0.0.1:%d' % server.server_address[1])
    client = http.HttpClient('http://api.engine.example:8080', retries=0)
    assert client.request('GET', '/v1/x') == {'ok': True}
    line, headers, dummy, dummy = server.seen[0]
    assert line == 'GET http://api.engine.example:8080/v1/x HTTP/1.1'
    assert headers['Proxy-Authorization'] == 'Basic %s' % base64.b64encode(b'proxy-user:p@ss').decode()


def test_an_https_api_goes_through_the_proxys_tunnel_and_a_refused_tunnel_says_so(server, monkeypatch):
    monkeypatch.setenv('HTTPS_PROXY', server.url)
    sleeps = []
    monkeypatch.setattr(CLOCK, 'sleep', sleeps.append)
    client = http.HttpClient('https://api.engine.example', retries=1, url_hint='Check api_url')
    with pytest.raises(http.ApiError) as info:
        client.request('PATCH', '/v1/x', body={})
    assert server.seen[0][0].startswith('CONNECT api.engine.example:443 HTTP/')  # HTTP/1.0 before Python 3.12, 1.1 since
    assert 'Tunnel connection failed: 407 Proxy Authentication Required' in str(info.value), str(info.value)
    assert info.value.answer_lost is False and info.value.attempts == 2 and len(sleeps) == 1  # nothing was sent: retried


@pytest.mark.parametrize('no_proxy', ['localhost,127.0.0.1', 'example.com, 127.0.0.0/8'], ids=['host', 'address range'])
def test_no_proxy_sends_straight_to_the_api(server, monkeypatch, no_proxy):
    monkeypatch.setenv('HTTP_PROXY', 'http://127.0.0.1:9')
    monkeypatch.setenv('NO_PROXY', no_proxy)
    assert http.HttpClient(server.url, retries=0).request('GET', '/v1/x') == {'ok': True}
    assert server.seen[0][0] == 'GET /v1/x HTTP/1.1'


def test_a_ca_bundle_that_cannot_be_read_fails_before_any_connection(server, monkeypatch, tmp_path):
    missing = str(tmp_path / 'missing-ca.pem')
    monkeypatch.setenv('REQUESTS_CA_BUNDLE', missing)
    client = http.HttpClient('https://127.0.0.1:%d' % server.server_address[1], retries=3)
    with pytest.raises(http.ApiError) as info:
        client.request('POST', '/v1/x', body={})
    message = str(info.value)
    assert 'TLS certificate verification failed: cannot read the CA file or directory %s (REQUESTS_CA_BUNDLE)' % missing in message, message
    assert 'ca_path' in message, message
    assert info.value.attempts == 1 and info.value.answer_lost is False  # not retried, not taken for lost
    assert server.connections == set() and server.seen == []
