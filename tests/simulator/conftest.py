"""Shared fixtures: one simulator process per session (tests/simulator/process.py), reset before every test."""

import base64
import http.client
import json
import time

import pytest

from .fixture_ids import KEY_ID, KEY_SECRET, TOKEN
from .process import SimulatorProcess

BASIC = 'Basic ' + base64.b64encode(('%s:%s' % (KEY_ID, KEY_SECRET)).encode()).decode()
BEARER = 'Bearer ' + TOKEN


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


class Client:
    """Raw HTTP requests to a simulator (a new connection per request) and its admin interface."""

    def __init__(self, process, connection_class=http.client.HTTPConnection, **connection_args):
        self.process, self.connection_class, self.connection_args = process, connection_class, connection_args

    def request(self, method, path, body=None, headers=None, raw=None):
        """Send one request; ``body`` is JSON-encoded, ``raw`` is sent as is."""
        headers = dict(headers or {})
        if body is not None:
            raw = json.dumps(body)
            headers.setdefault('Content-Type', 'application/json')
        connection = self.connection_class('127.0.0.1', self.process.port, timeout=10, **self.connection_args)
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
        """An admin call through the launcher; returns the parsed JSON."""
        return self.process.admin(method, path, body)

    def requests_log(self):
        """The simulator's request log."""
        return self.process.requests()

    def wait_for_state(self, path, state, timeout=3.0):
        """Poll a management resource until its state is ``state``; return it."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.cloud('GET', path).result
            if result['state'] == state or time.monotonic() > deadline:
                return result
            time.sleep(0.05)


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
