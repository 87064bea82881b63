# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The HTTP client against the simulator in process (tests/unit/conftest.py): its answers and
faults; what the simulator cannot produce (a TLS failure, a broken chunked body) is scripted."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils import cloud
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (KEY_ID, KEY_SECRET, PIPE_KAFKA, SOURCE_METRICS, TOKEN, pipe_path,
                                                                          service_path)

SIM_URL = 'http://simulator.test'
SERVICE = service_path()
SERVICES = SERVICE.rsplit('/', 1)[0]
ALERTS = '/api/v2/alerts'
SERIES = '/api/v2/charts/series'


def cloud_client(**options):
    """A management-API client; jitter 0.5 puts each backoff wait at three quarters of 1, 2, 4 ... seconds."""
    return http.HttpClient(**dict(dict(base_url=SIM_URL, auth=(KEY_ID, KEY_SECRET), retries=5, jitter=lambda: 0.5,
                                       not_replayable=cloud.NOT_REPLAYABLE), **options))


def observability_client(**options):
    return cloud_client(**dict(dict(auth=None, token=TOKEN, not_replayable=http.NOT_REPLAYABLE), **options))


def fault(**spec):
    return dict(dict(kind='status', status=503, path='.'), **spec)


def failure(client, method, path, body=None):
    with pytest.raises(http.ApiError) as info:
        client.request(method, path, body=body)
    return info.value


def test_basic_auth_and_a_json_body(sim):
    answer = cloud_client().request('PATCH', SERVICE, body={'name': 'renamed'})
    assert answer['result']['name'] == 'renamed'
    assert [(entry['method'], entry['path'], entry['body'], entry['status']) for entry in sim.requests()] == [
        ('PATCH', SERVICE, {'name': 'renamed'}, 200)]


def test_bearer_auth_and_query_parameters(sim):
    assert len(observability_client().request('GET', ALERTS, params={'limit': 3})['data']) == 3
    assert [(entry['query'], entry['status']) for entry in sim.requests()] == [({'limit': '3'}, 200)]


@pytest.mark.parametrize('status', [429, 502, 503, 504])
def test_a_retryable_status_is_retried_with_exponential_backoff(sim, status):
    sim.faults(fault(status=status, count=3))
    assert cloud_client().request('GET', SERVICE)['result']['name'] == 'prod-analytics'
    assert [entry['status'] for entry in sim.requests()] == [status] * 3 + [200]
    assert sim.clock.sleeps == [0.75, 1.5, 3.0]


def test_backoff_bounds_and_cap():
    client = cloud_client(jitter=lambda: 0.0)
    assert [client.backoff(n) for n in range(3)] == [0.5, 1.0, 2.0]
    client = cloud_client(jitter=lambda: 1.0)
    assert [client.backoff(n) for n in range(3)] == [1.0, 2.0, 4.0]
    assert client.backoff(20) == http.BACKOFF_CAP


@pytest.mark.parametrize('fails, reaches_the_simulator', [
    (fault(kind='reset'), True),                                     # the connection reset after sending
    (fault(kind='delay', delay=40), True),                           # longer than api_timeout: no answer in time
    (http.ConnectionFailed('IncompleteRead(12 bytes read)', reached=True), False),  # scripted: a body cut short
], ids=['connection reset', 'read timeout', 'chunked body cut'])
def test_connection_errors_are_retried(sim, fails, reaches_the_simulator):
    if reaches_the_simulator:
        sim.faults(fails)
    else:
        sim.script(fails)
    assert cloud_client().request('GET', SERVICE)['status'] == 200
    assert len(sim.requests()) == (2 if reaches_the_simulator else 1)
    assert sim.clock.sleeps == [0.75]


def test_tls_errors_are_not_retried_and_say_so(sim):
    sim.script(http.ConnectionFailed('[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed', reached=False, tls=True))
    assert 'TLS certificate verification failed' in str(failure(cloud_client(), 'GET', SERVICE))
    assert sim.requests() == [] and sim.clock.sleeps == []


@pytest.mark.parametrize('reason, says, hint', [
    ('[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required (_ssl.c:2580)', 'TLS handshake failed',
     'The server asks for a client certificate: give it with client_cert and client_key'),
    ('[SSL: SSLV3_ALERT_HANDSHAKE_FAILURE] sslv3 alert handshake failure (_ssl.c:1006)', 'TLS handshake failed',
     'If the server asks for a client certificate, give it with client_cert and client_key.'),
    ('[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate (_ssl.c:1006)',
     'TLS certificate verification failed', 'give its CA bundle (a file or a directory) with ca_path'),
])
def test_a_tls_failure_names_the_side_that_refused_and_the_option_to_check(sim, reason, says, hint):
    """A server's demand for a client certificate is no verification failure of the server's (whose hint, ca_path, misleads)."""
    sim.script(http.ConnectionFailed(reason, reached=False, tls=True))
    message = str(failure(cloud_client(), 'GET', SERVICE))
    assert '%s: %s' % (says, reason) in message and hint in message, message
    assert ('ca_path' in message) == (says == 'TLS certificate verification failed'), message


def test_the_timeout_message_names_the_timeout_after_all_attempts(sim):
    sim.faults(fault(kind='delay', delay=10, count=3))
    error = str(failure(cloud_client(retries=2, timeout=7), 'GET', SERVICE))
    assert 'no response within api_timeout (7 s)' in error and 'after 3 attempts' in error
    assert len(sim.requests()) == 3 and len(sim.clock.sleeps) == 2


@pytest.mark.parametrize('headers, expected', [
    ({'Retry-After': '7'}, 7.0),
    ({'X-RateLimit-Reset': '4'}, 4.0),
    ({'RateLimit-Reset': '3'}, 3.0),
    ({'Retry-After': '3600'}, http.RETRY_AFTER_CAP),
    ({'Retry-After': 'soon'}, 0.75),
])
def test_a_wait_the_server_announces_is_honoured_and_capped(sim, headers, expected):
    sim.faults(fault(status=429, headers=headers))
    cloud_client().request('GET', SERVICE)
    assert sim.clock.sleeps == [expected]


def test_retry_after_http_date():
    assert http.parse_wait_header('Wed, 21 Oct 2015 07:28:00 GMT', now=1445412470) == 10.0
    assert http.parse_wait_header('1445412490', now=1445412470) == 20.0
    assert http.parse_wait_header(None) is None


def test_exhausted_retries_name_the_status_and_the_attempts(sim):
    sim.faults(fault(count=3, body={'status': 503, 'error': 'SERVICE_UNAVAILABLE: try later', 'requestId': 'rid-9'}))
    error = failure(cloud_client(retries=2), 'GET', SERVICE)
    assert (error.status, error.code, error.attempts, error.request_id) == (503, 'SERVICE_UNAVAILABLE', 3, 'rid-9')
    assert str(error) == 'GET %s%s failed: HTTP 503 SERVICE_UNAVAILABLE: try later (request id rid-9, after 3 attempts)' % (SIM_URL, SERVICE)
    assert len(sim.clock.sleeps) == 2


@pytest.mark.parametrize('status', [400, 401, 403, 404, 409, 424, 500])
def test_other_errors_fail_at_once(sim, status):
    sim.faults(fault(status=status))
    failure(cloud_client(), 'PATCH', SERVICE, body={})
    assert len(sim.requests()) == 1 and sim.clock.sleeps == []


def test_the_management_error_body(sim):
    error = failure(cloud_client(), 'PATCH', SERVICE + '/scaling', body={'numReplicas': 40})
    assert str(error) == ('PATCH %s%s/scaling failed: HTTP 400 BAD_REQUEST: request body.numReplicas: must be between 1 and 20 '
                          '(request id %s)' % (SIM_URL, SERVICE, error.request_id))
    assert error.request_id and [entry['status'] for entry in sim.requests()] == [400]


def test_an_observability_message_body_and_the_request_id_header(sim):
    sim.faults(fault(status=400, headers={'X-Request-Id': 'hdr-1'},
                     body={'message': 'Body validation failed: startTime: Timestamp must be in milliseconds'}))
    error = failure(observability_client(), 'POST', SERIES, body={})
    assert error.code is None and error.request_id == 'hdr-1'
    assert 'HTTP 400: Body validation failed: startTime: Timestamp must be in milliseconds' in str(error)


def test_the_chart_error_body(sim):
    body = {'series': [{'sourceId': SOURCE_METRICS[:-1] + '9', 'aggFn': 'count', 'where': '', 'groupBy': []}],
            'startTime': 1728736620000, 'endTime': 1728740220000}
    assert str(failure(observability_client(), 'POST', SERIES, body)) == \
        'POST %s%s failed: HTTP 404: Source not found for series 1' % (SIM_URL, SERIES)


def test_a_plain_text_401_carries_the_auth_hint(sim):
    error = failure(observability_client(token='bad', auth_hint='The token was refused'), 'GET', ALERTS)
    assert str(error) == 'GET %s%s failed: HTTP 401: Unauthorized. The token was refused' % (SIM_URL, ALERTS)


def test_an_html_proxy_page_is_summarised(sim):
    sim.faults(fault(kind='html'))
    assert str(failure(cloud_client(retries=0), 'GET', SERVICE)) == \
        'GET %s%s failed: HTTP 502: unexpected HTML response: 502 Bad Gateway' % (SIM_URL, SERVICE)


def test_a_malformed_json_success_body_fails_cleanly(sim):
    sim.faults(fault(kind='malformed_json'))
    assert 'not valid JSON' in str(failure(cloud_client(), 'GET', SERVICE))
    assert len(sim.requests()) == 1


def test_an_empty_success_body_is_an_empty_dict(sim):
    sim.faults(fault(status=200, body=''))
    assert cloud_client().request('GET', SERVICE) == {}


class RecordingPacer:
    """Records the client's calls to its pacer, in order."""

    def __init__(self):
        self.calls = []

    def acquire(self):
        self.calls.append('acquire')

    def refused(self, wait):
        self.calls.append(('refused', wait))


def test_every_attempt_waits_for_the_pacer_and_a_429_tells_it_the_wait(sim):
    pacer = RecordingPacer()
    sim.faults(fault(status=429, headers={'Retry-After': '3'}), fault(kind='reset'), fault(status=429), fault(status=503))
    cloud_client(pacer=pacer).request('GET', SERVICE)
    assert pacer.calls == ['acquire', ('refused', 3.0), 'acquire', 'acquire', ('refused', None), 'acquire', 'acquire']
    assert [entry['status'] for entry in sim.requests()] == [429, None, 429, 503, 200]


def test_a_429_on_the_last_attempt_still_tells_the_pacer(sim):
    pacer = RecordingPacer()
    sim.faults(fault(status=429, headers={'X-RateLimit-Reset': '4'}))
    failure(cloud_client(pacer=pacer, retries=0), 'GET', SERVICE)
    assert pacer.calls == ['acquire', ('refused', 4.0)]


# --- writes whose answer is lost ------------------------------------------------------------------

LOST = 'The answer to this write was lost, so it may have been applied; it was not sent again'


def refused_connection():
    return http.ConnectionFailed('Failed to establish a new connection: [Errno 111] Connection refused', reached=False)


@pytest.mark.parametrize('lost', [fault(status=502), fault(status=503), fault(status=504), fault(kind='reset'),
                                  fault(kind='delay', delay=40), fault(status=504, apply=True)],
                         ids=['502', '503', '504', 'reset', 'timeout', '504 applied'])
def test_a_patch_whose_answer_is_lost_is_not_sent_again(sim, lost):
    sim.faults(dict(lost, count=2))
    error = failure(cloud_client(), 'PATCH', SERVICE, body={'name': 'renamed'})
    assert error.answer_lost is True and str(error).endswith(LOST)
    assert len(sim.requests()) == 1 and sim.clock.sleeps == []


@pytest.mark.parametrize('method, path', [('POST', SERVICES), ('DELETE', SERVICE)], ids=['create', 'delete'])
@pytest.mark.parametrize('lost', [fault(status=504), fault(kind='reset')], ids=['504', 'reset'])
def test_a_create_or_delete_of_the_management_api_whose_answer_is_lost_is_not_sent_again(sim, method, path, lost):
    sim.faults(dict(lost, method=method, count=2))
    error = failure(cloud_client(), method, path, body={'name': 'x'} if method == 'POST' else None)
    assert error.answer_lost is True and str(error).endswith(LOST)
    assert len(sim.requests()) == 1 and sim.clock.sleeps == []


@pytest.mark.parametrize('lost', [fault(status=504), fault(kind='delay', delay=40)], ids=['504', 'timeout'])
def test_a_write_sent_once_is_not_replayed_on_an_api_that_replays_its_method(sim, lost):
    """A lifecycle's create on the observability API (whose POST, a chart query, is otherwise retried)."""
    sim.faults(dict(lost, method='POST', count=2))
    with pytest.raises(http.ApiError) as info:
        observability_client().request('POST', SERIES, body={}, once=True)
    assert info.value.answer_lost is True and str(info.value).endswith(LOST)
    assert len(sim.requests()) == 1 and sim.clock.sleeps == []


def test_a_patch_cut_short_is_not_sent_again(sim):
    sim.script(http.ConnectionFailed('IncompleteRead(12 bytes read)', reached=True))
    assert failure(cloud_client(), 'PATCH', SERVICE, body={'name': 'renamed'}).answer_lost is True
    assert sim.requests() == [] and sim.clock.sleeps == []


@pytest.mark.parametrize('never_sent', [http.ConnectionFailed('timed out', reached=False, timeout=True), refused_connection()],
                         ids=['connect timeout', 'connection refused'])
def test_a_patch_that_never_reached_the_server_is_retried(sim, never_sent):
    sim.script(never_sent)
    assert cloud_client().request('PATCH', SERVICE, body={'name': 'renamed'})['result']['name'] == 'renamed'
    assert len(sim.requests()) == 1 and sim.clock.sleeps == [0.75]


def test_a_patch_refused_with_429_is_retried_as_before(sim):
    sim.faults(fault(status=429, headers={'Retry-After': '2'}))
    assert cloud_client().request('PATCH', SERVICE, body={'name': 'renamed'})['result']['name'] == 'renamed'
    assert [entry['status'] for entry in sim.requests()] == [429, 200] and sim.clock.sleeps == [2.0]


@pytest.mark.parametrize('method, path, body', [('GET', SERVICE, None), ('PUT', pipe_path(PIPE_KAFKA, '/settings'), {}),
                                                ('POST', SERIES, None)], ids=['GET', 'settings PUT', 'chart query POST'])
@pytest.mark.parametrize('lost', [fault(status=503), fault(kind='delay', delay=40)], ids=['503', 'timeout'])
def test_reads_the_settings_put_and_the_chart_query_are_retried_as_before(sim, method, path, body, lost):
    sim.faults(dict(lost, method=method))
    client = observability_client() if path == SERIES else cloud_client()
    if path == SERIES:
        body = {'series': [{'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': '', 'groupBy': []}],
                'startTime': 1728736620000, 'endTime': 1728740220000}
    client.request(method, path, body=body)
    assert [entry['fault'] for entry in sim.requests()] == [lost['kind'], None]


def test_an_error_that_is_not_a_lost_answer_says_nothing_about_it(sim):
    sim.faults(fault(status=500))
    error = failure(cloud_client(), 'PATCH', SERVICE, body={})
    assert error.answer_lost is False and 'lost' not in str(error)
