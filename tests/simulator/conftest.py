"""Shared fixtures: one simulator process per session (tests/simulator/process.py), reset before every test (sim), and the
simulator in process on a fake clock (local), for what needs no socket."""

import base64
import http.client
import json
import time

import pytest

from . import server
from .fixture_ids import KEY_ID, KEY_SECRET, TOKEN
from .process import SimulatorProcess
from .state import Store

BASIC = 'Basic ' + base64.b64encode(('%s:%s' % (KEY_ID, KEY_SECRET)).encode()).decode()
BEARER = 'Bearer ' + TOKEN


class Reply:
    """A received response."""

    def __init__(self, status, headers, text):
        self.status, self.headers, self.text = status, headers, text

    @classmethod
    def received(cls, response):
        return cls(response.status, response.headers, response.read().decode('utf-8'))

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


class Calls:
    """The requests of a test, on top of send(method, path, headers, raw) -> Reply."""

    def request(self, method, path, body=None, headers=None, raw=None):
        """Send one request; ``body`` is JSON-encoded, ``raw`` is sent as is."""
        headers = dict(headers or {})
        if body is not None:
            raw = json.dumps(body)
            headers.setdefault('Content-Type', 'application/json')
        return self.send(method, path, headers, raw)

    def cloud(self, method, path, body=None, headers=None, raw=None):
        """A management API request with valid Basic credentials."""
        return self.request(method, path, body, dict({'Authorization': BASIC}, **(headers or {})), raw)

    def obs(self, method, path, body=None, headers=None):
        """An observability API request with the valid token."""
        return self.request(method, path, body, dict({'Authorization': BEARER}, **(headers or {})))

    def requests_log(self):
        """The simulator's request log."""
        return self.admin('GET', 'requests')['requests']


class Client(Calls):
    """Raw HTTP requests to a simulator process (a new connection per request) and its admin interface."""

    def __init__(self, process, connection_class=http.client.HTTPConnection, **connection_args):
        self.process, self.connection_class, self.connection_args = process, connection_class, connection_args

    def admin(self, method, path, body=None):
        """An admin call through the launcher; returns the parsed JSON."""
        return self.process.admin(method, path, body)

    def send(self, method, path, headers, raw):
        connection = self.connection_class('127.0.0.1', self.process.port, timeout=10, **self.connection_args)
        try:
            connection.request(method, path, body=raw, headers=headers)
            return Reply.received(connection.getresponse())
        finally:
            connection.close()

    def wait_for_state(self, path, state, timeout=3.0):
        """Poll a management resource until its state is ``state``; return it."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.cloud('GET', path).result
            if result['state'] == state or time.monotonic() > deadline:
                return result
            time.sleep(0.05)


class FakeClock:
    """Time that moves when the test says (advance) or a delay fault sleeps."""

    def __init__(self, now=1767225600.0):  # 2026-01-01T00:00:00Z
        self.now = now

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds

    advance = sleep


class Local(Calls):
    """The simulator in process: server.dispatch on a Store of its own, on a FakeClock (no socket, no process)."""

    def __init__(self, **config):
        self.clock = FakeClock()
        self.store = Store(clock=self.clock, defaults=config)

    def admin(self, method, path, body=None):
        """An admin call; returns the parsed JSON."""
        reply = self.request(method, '/_admin/' + path.lstrip('/'), body)
        assert reply.status == 200, reply.text
        return reply.json()

    def send(self, method, path, headers, raw):
        response = server.dispatch(self.store, server.Request(method, path, _Headers(headers), (raw or '').encode('utf-8')))
        assert response is not None, 'the connection was reset'
        headers = {name: str(value) for name, value in dict(response.headers, **{'Content-Type': response.content_type}).items()}
        return Reply(response.status, headers, response.body.decode('utf-8'))


class _Headers(dict):
    """Request headers as the HTTP server holds them: get() ignores case."""

    def get(self, name, default=None):
        return next((value for key, value in self.items() if key.lower() == name.lower()), default)


@pytest.fixture
def local():
    """The simulator in process, at its defaults."""
    return Local()


@pytest.fixture(scope='session')
def simulator_process():
    """One simulator for the session."""
    process = SimulatorProcess().start()
    yield process
    assert process.stop() == 0


@pytest.fixture
def sim(simulator_process):
    """A client of a freshly reset simulator with a short transition delay."""
    simulator_process.reset(transition_delay=0.2)
    return Client(simulator_process)
