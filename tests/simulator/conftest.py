"""Shared fixtures: one simulator subprocess per session, reset before every test."""

import base64
import http.client
import json
import os
import signal
import subprocess
import sys
import time

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORG = '7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f'
PROD = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51'
DEV = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e52'
IDLE = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e53'
KAFKA = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61'
OBJECT_STORAGE = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c62'
STREAM = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c63'
POSTGRES = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c64'
DEV_PIPE = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c65'
RPE = '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d81'
BASIC = 'Basic ' + base64.b64encode(b'sim-key-id:sim-key-secret-4f9a8e7d').decode()
BEARER = 'Bearer sim-obs-token-2b7c1d9e'
METRICS, LOGS = '65b000000000000000000001', '65b000000000000000000002'


def service_path(service_id=PROD, suffix=''):
    """Management API path of a service (plus a suffix)."""
    return '/v1/organizations/%s/services/%s%s' % (ORG, service_id, suffix)


def pipe_path(pipe_id, suffix='', service_id=PROD):
    """Management API path of a pipe (plus a suffix)."""
    return service_path(service_id, '/pipes/%s%s' % (pipe_id, suffix))


class Reply:
    """A received response."""

    def __init__(self, response):
        self.status = response.status
        self.headers = response.headers
        self.text = response.read().decode('utf-8')

    def json(self):
        """The body parsed as JSON."""
        return json.loads(self.text)

    @property
    def result(self):
        """The management API's ``result``."""
        return self.json()['result']

    @property
    def error(self):
        """The management API's ``error`` text."""
        return self.json()['error']


def start_simulator(*extra):
    """Start ``python -m tests.simulator`` on a free port; return (process, port)."""
    port_file = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'simulator-%d-%d.port' % (os.getpid(), time.monotonic_ns()))
    process = subprocess.Popen([sys.executable, '-m', 'tests.simulator', '--port', '0', '--port-file', port_file, '--quiet']
                               + list(extra), cwd=REPO_ROOT)
    deadline = time.monotonic() + 10
    while not os.path.exists(port_file):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError('simulator did not start')
        time.sleep(0.01)
    with open(port_file, encoding='utf-8') as handle:
        port = int(handle.read())
    os.remove(port_file)
    return process, port


def stop_simulator(process):
    """SIGTERM the simulator and return its exit code."""
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=10)


class Client:
    """A tiny HTTP client for the simulator (a new connection per request)."""

    def __init__(self, port, connection_class=http.client.HTTPConnection, **connection_args):
        self.port, self.connection_class, self.connection_args = port, connection_class, connection_args

    def request(self, method, path, body=None, headers=None, raw=None):
        """Send one request; ``body`` is JSON-encoded, ``raw`` is sent as is."""
        headers = dict(headers or {})
        if body is not None:
            raw = json.dumps(body)
            headers.setdefault('Content-Type', 'application/json')
        connection = self.connection_class('127.0.0.1', self.port, timeout=10, **self.connection_args)
        try:
            connection.request(method, path, body=raw, headers=headers)
            return Reply(connection.getresponse())
        finally:
            connection.close()

    def cloud(self, method, path, body=None, headers=None, raw=None):
        """A management API request with valid Basic credentials."""
        return self.request(method, path, body, dict({'Authorization': BASIC}, **(headers or {})), raw)

    def obs(self, method, path, body=None, headers=None):
        """An observability API request with the valid token."""
        return self.request(method, path, body, dict({'Authorization': BEARER}, **(headers or {})))

    def admin(self, method, path, body=None):
        """An admin call; returns the parsed JSON."""
        reply = self.request(method, '/_admin/' + path, body)
        assert reply.status == 200, reply.text
        return reply.json()

    def requests_log(self):
        """The simulator's request log."""
        return self.admin('GET', 'requests')['requests']

    def wait_for_state(self, path, state, timeout=3.0):
        """Poll a management resource until its state is ``state``; return it."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.cloud('GET', path).result
            if result['state'] == state or time.monotonic() > deadline:
                return result
            time.sleep(0.05)


@pytest.fixture(scope='session')
def simulator_port():
    """One simulator for the session."""
    process, port = start_simulator()
    yield port
    assert stop_simulator(process) == 0


@pytest.fixture
def sim(simulator_port):
    """A client of a freshly reset simulator with a short transition delay."""
    client = Client(simulator_port)
    client.admin('POST', 'reset', {'transition_delay': 0.2})
    return client
