# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json

import pytest
import requests
from requests.adapters import BaseAdapter

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK


class FakeAdapter(BaseAdapter):
    """Answers each request with the next scripted outcome: (status, headers, body) or an exception."""

    def __init__(self, outcomes):
        super(FakeAdapter, self).__init__()
        self.outcomes = list(outcomes)
        self.sent = []

    def send(self, request, **kwargs):
        self.sent.append(request)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        status, headers, body = outcome
        response = requests.Response()
        response.status_code = status
        response.headers.update(headers)
        response._content = body if isinstance(body, bytes) else (
            json.dumps(body).encode() if not isinstance(body, str) else body.encode())
        response.url = request.url
        response.request = request
        return response

    def close(self):
        pass


SLEEPS = []


@pytest.fixture(autouse=True)
def recorded_sleeps(monkeypatch):
    """Backoff sleeps go to SLEEPS instead of the real clock."""
    del SLEEPS[:]
    monkeypatch.setattr(CLOCK, 'sleep', SLEEPS.append)


def make_client(outcomes, **kwargs):
    options = dict(base_url='http://api.test/', auth=('key-id', 'key-secret'), retries=5, jitter=lambda: 0.5)
    options.update(kwargs)
    client = http.HttpClient(**options)
    adapter = FakeAdapter(outcomes)
    client.session.mount('http://', adapter)
    return client, adapter, SLEEPS


OK = (200, {'Content-Type': 'application/json'}, {'status': 200, 'requestId': 'r-1', 'result': {'id': 'x'}})


def test_basic_auth_header_and_json_body():
    client, adapter, dummy = make_client([OK])
    assert client.request('PATCH', '/v1/thing', body={'name': 'a'}) == OK[2]
    sent = adapter.sent[0]
    assert sent.url == 'http://api.test/v1/thing'
    assert sent.headers['Authorization'] == 'Basic ' + base64.b64encode(b'key-id:key-secret').decode()
    assert sent.headers['Content-Type'] == 'application/json'
    assert json.loads(sent.body) == {'name': 'a'}


def test_bearer_auth_header():
    client, adapter, dummy = make_client([(200, {}, {'data': []})], auth=None, token='tok-123')
    assert client.request('GET', '/api/v2/alerts', params={'limit': 10}) == {'data': []}
    sent = adapter.sent[0]
    assert sent.headers['Authorization'] == 'Bearer tok-123'
    assert sent.url == 'http://api.test/api/v2/alerts?limit=10'


@pytest.mark.parametrize('status', [429, 502, 503, 504])
def test_retryable_status_is_retried_with_exponential_backoff(status):
    failure = (status, {}, {'status': status, 'error': 'X: busy'})
    client, adapter, sleeps = make_client([failure, failure, failure, OK])
    assert client.request('GET', '/v1/x')['result'] == {'id': 'x'}
    assert len(adapter.sent) == 4
    # jitter 0.5 puts each wait at three quarters of 1, 2, 4 seconds
    assert sleeps == [0.75, 1.5, 3.0]


def test_backoff_bounds_and_cap():
    client = make_client([])[0]
    client._jitter = lambda: 0.0
    assert [client.backoff(n) for n in range(3)] == [0.5, 1.0, 2.0]
    client._jitter = lambda: 1.0
    assert [client.backoff(n) for n in range(3)] == [1.0, 2.0, 4.0]
    assert client.backoff(20) == http.BACKOFF_CAP


@pytest.mark.parametrize('exc', [requests.exceptions.ConnectionError('reset by peer'),
                                 requests.exceptions.ReadTimeout('slow'),
                                 requests.exceptions.ChunkedEncodingError('cut')])
def test_connection_errors_are_retried(exc):
    client, adapter, sleeps = make_client([exc, OK])
    assert client.request('GET', '/v1/x')['status'] == 200
    assert len(adapter.sent) == 2
    assert sleeps == [0.75]


def test_tls_errors_are_not_retried_and_say_so():
    client, adapter, sleeps = make_client([requests.exceptions.SSLError('certificate verify failed')])
    with pytest.raises(http.ApiError) as info:
        client.request('GET', '/v1/x')
    assert 'TLS certificate verification failed' in str(info.value)
    assert len(adapter.sent) == 1 and sleeps == []


def test_timeout_message_names_the_timeout_after_all_attempts():
    client, adapter, sleeps = make_client([requests.exceptions.ReadTimeout('slow')] * 3, retries=2, timeout=7)
    with pytest.raises(http.ApiError) as info:
        client.request('GET', '/v1/x')
    assert 'no response within api_timeout (7 s)' in str(info.value)
    assert 'after 3 attempts' in str(info.value)
    assert len(sleeps) == 2


@pytest.mark.parametrize('headers,expected', [
    ({'Retry-After': '7'}, 7.0),
    ({'X-RateLimit-Reset': '4'}, 4.0),
    ({'RateLimit-Reset': '3'}, 3.0),
    ({'Retry-After': '3600'}, http.RETRY_AFTER_CAP),
    ({'Retry-After': 'soon'}, 0.75),
])
def test_server_announced_wait_is_honoured_and_capped(headers, expected):
    client, dummy, sleeps = make_client([(429, headers, 'Too Many Requests'), OK])
    client.request('GET', '/v1/x')
    assert sleeps == [expected]


def test_retry_after_http_date():
    assert http.parse_wait_header('Wed, 21 Oct 2015 07:28:00 GMT', now=1445412470) == 10.0
    assert http.parse_wait_header('1445412490', now=1445412470) == 20.0
    assert http.parse_wait_header(None) is None


def test_retries_exhausted_names_status_and_attempts():
    failure = (503, {'Content-Type': 'application/json'},
               {'status': 503, 'error': 'SERVICE_UNAVAILABLE: try later', 'requestId': 'rid-9'})
    client, adapter, sleeps = make_client([failure] * 3, retries=2)
    with pytest.raises(http.ApiError) as info:
        client.request('GET', '/v1/x')
    error = info.value
    assert (error.status, error.code, error.attempts, error.request_id) == (503, 'SERVICE_UNAVAILABLE', 3, 'rid-9')
    assert str(error) == 'GET http://api.test/v1/x failed: HTTP 503 SERVICE_UNAVAILABLE: try later (request id rid-9, after 3 attempts)'
    assert len(sleeps) == 2


@pytest.mark.parametrize('status', [400, 401, 403, 404, 409, 424, 500])
def test_non_retryable_errors_fail_at_once(status):
    client, adapter, sleeps = make_client([(status, {}, {'status': status, 'error': 'X: no'})])
    with pytest.raises(http.ApiError):
        client.request('PATCH', '/v1/x', body={})
    assert len(adapter.sent) == 1 and sleeps == []


def test_management_error_body():
    body = {'status': 400, 'error': 'BAD_REQUEST: request body.numReplicas: must be between 1 and 20', 'requestId': 'abc'}
    client = make_client([(400, {'Content-Type': 'application/json'}, body)])[0]
    with pytest.raises(http.ApiError) as info:
        client.request('PATCH', '/v1/s/scaling', body={'numReplicas': 40})
    assert str(info.value) == ('PATCH http://api.test/v1/s/scaling failed: HTTP 400 BAD_REQUEST: request body.numReplicas: '
                               'must be between 1 and 20 (request id abc)')


def test_observability_message_body_and_request_id_header():
    body = {'message': 'Body validation failed: startTime: Timestamp must be in milliseconds'}
    client = make_client([(400, {'Content-Type': 'application/json', 'X-Request-Id': 'hdr-1'}, body)])[0]
    with pytest.raises(http.ApiError) as info:
        client.request('POST', '/api/v2/charts/series', body={})
    assert info.value.code is None and info.value.request_id == 'hdr-1'
    assert 'HTTP 400: Body validation failed: startTime: Timestamp must be in milliseconds' in str(info.value)


def test_chart_error_body():
    client = make_client([(404, {'Content-Type': 'application/json'}, {'error': 'Source not found for series 1'})])[0]
    with pytest.raises(http.ApiError) as info:
        client.request('POST', '/api/v2/charts/series', body={})
    assert str(info.value) == 'POST http://api.test/api/v2/charts/series failed: HTTP 404: Source not found for series 1'


def test_plain_text_401_carries_the_auth_hint():
    client = make_client([(401, {'Content-Type': 'text/plain'}, 'Unauthorized')], auth=None, token='bad',
                         auth_hint='The token was refused')[0]
    with pytest.raises(http.ApiError) as info:
        client.request('GET', '/api/v2/alerts')
    assert str(info.value) == 'GET http://api.test/api/v2/alerts failed: HTTP 401: Unauthorized. The token was refused'


def test_html_proxy_page_is_summarised():
    page = '<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>'
    client = make_client([(502, {'Content-Type': 'text/html'}, page)], retries=0)[0]
    with pytest.raises(http.ApiError) as info:
        client.request('GET', '/v1/x')
    assert str(info.value) == 'GET http://api.test/v1/x failed: HTTP 502: unexpected HTML response: 502 Bad Gateway'


def test_malformed_json_success_body_fails_cleanly():
    client, adapter, dummy = make_client([(200, {'Content-Type': 'application/json'}, '{"status": 200, "res')])
    with pytest.raises(http.ApiError) as info:
        client.request('GET', '/v1/x')
    assert 'not valid JSON' in str(info.value)
    assert len(adapter.sent) == 1


def test_empty_success_body_is_an_empty_dict():
    assert make_client([(200, {}, b'')])[0].request('GET', '/v1/x') == {}
