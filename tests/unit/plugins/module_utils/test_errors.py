# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a failed call says (module_utils/errors.py): the error bodies of both APIs and of a proxy in between, the
URL without credentials, what to check, and no piece of a credential, however the server quotes it and wherever the
shortening cuts. Each message path: an error body, a body that is not JSON, a redirect target, an exception text."""

import base64
import email.message
import json
import time

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import errors, transport
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError, ConnectionFailed
from ansible_collections.engine.cloud.plugins.module_utils.validate import url_without_credentials
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import KEY_ID, KEY_SECRET, TOKEN, service_path
from ansible_collections.engine.cloud.tests.unit.plugins.module_utils import test_http

URL_HINT = 'Check api_url or the ENGINE_CLOUD_API_URL environment variable'


class Answer:
    """Stands in for the client's Connection: answers every request with status, headers and a body (a JSON value or
    the bytes of a text), or raises exception."""

    origin, client_cert = 'https://api.engine.example', None

    def __init__(self, status=200, body=None, headers=None, exception=None):
        self.status, self.body, self.headers, self.exception = status, body, headers or {}, exception

    def send(self, method, target, headers, body=None):
        if self.exception is not None:
            raise self.exception
        answer = email.message.Message()
        for name, value in dict({'Content-Type': 'application/json'}, **self.headers).items():
            answer[name] = value
        return self.status, answer, self.body.encode() if isinstance(self.body, str) else json.dumps(self.body).encode()


def failure(answer, base_url='https://api.engine.example', path='/v1/x', **options):
    sent_by = transport.HttpClient(base_url, retries=0, **options)
    sent_by.connection = answer
    with pytest.raises(ApiError) as info:
        sent_by.request('GET', path)
    return info.value


def leaks(message, *secrets):
    """The pieces of errors.CUT_PREFIX characters of any secret that show in message."""
    size = errors.CUT_PREFIX
    return [secret[start:start + size] for secret in secrets for start in range(len(secret) - size + 1)
            if secret[start:start + size] in message]


# Error bodies --------------------------------------------------------------------------------------------------------

def test_the_management_apis_error_body_gives_code_message_and_request_id(sim):
    error = test_http.failure(test_http.client(retries=0), 'PATCH', service_path(suffix='/scaling'), body={'numReplicas': 40})
    assert (error.status, error.code) == (400, 'BAD_REQUEST') and error.request_id
    assert str(error) == ('PATCH %s%s failed: HTTP 400 BAD_REQUEST: request body.numReplicas: must be between 1 and 20 (request id %s)'
                          % (test_http.SIM_URL, service_path(suffix='/scaling'), error.request_id))
    assert error.as_result() == dict(status=400, code='BAD_REQUEST', method='PATCH', path=service_path(suffix='/scaling'),
                                     request_id=error.request_id, attempts=1)


@pytest.mark.parametrize('fault, says', [
    (dict(kind='html'), 'HTTP 502: unexpected HTML response: 502 Bad Gateway'),
    (dict(kind='status', status=500, body='<!DOCTYPE html><p>no title</p>'), 'HTTP 500: unexpected HTML response'),
    (dict(kind='status', status=500, body=''), 'HTTP 500: empty response body'),
    (dict(kind='status', status=500, body={'error': {'detail': 'nested'}}), "HTTP 500: {'detail': 'nested'}"),
    (dict(kind='status', status=500, body={'status': 500}), 'HTTP 500: no error message in the response'),
    (dict(kind='status', status=401, body='Unauthorized'), 'HTTP 401: Unauthorized. The key was refused'),
    (dict(kind='status', status=400, headers={'X-Request-Id': 'hdr-1'}, body={'message': 'Body validation failed: startTime: Timestamp'}),
     'HTTP 400: Body validation failed: startTime: Timestamp (request id hdr-1)'),
], ids=['proxy page', 'page without title', 'empty', 'not a text', 'no message', '401 in plain text', "the observability API's body"])
def test_any_other_error_body_is_summed_up(sim, fault, says):
    sim.faults(dict(fault, path='.'))
    assert str(test_http.failure(test_http.client(retries=0, auth_hint='The key was refused'))).endswith(says)


def test_a_long_text_loses_its_middle_on_one_line():
    text = 'start\n' + 'x' * 2000 + ' [Errno 111]\tConnection refused'
    shown = errors.short(text)
    assert shown.startswith('start x') and shown.endswith('[Errno 111] Connection refused') and ' ... ' in shown
    assert len(shown) == errors.MAX_TEXT + len(' ... ') and errors.short('a\n  b\tc') == 'a b c'


# What else a message says -------------------------------------------------------------------------------------------

def test_a_line_break_in_a_token_is_refused_before_anything_is_sent():
    token = TOKEN[:8] + '\n' + TOKEN[8:]
    error = failure(Answer(exception=AssertionError('nothing may be sent')), token=token)
    assert 'the token holds a line break or another character that an HTTP header cannot carry; nothing was sent' in str(error)
    assert not leaks(str(error), TOKEN[:8], TOKEN[8:])


def test_credentials_in_the_base_address_are_never_shown():
    error = failure(Answer(404, {'status': 404, 'error': 'NOT_FOUND: Service not found', 'requestId': 'r-7'}),
                    base_url='https://key:s3cret-pw@api.engine.example:8443/', path='/v1/services/s')
    assert str(error) == 'GET https://api.engine.example:8443/v1/services/s failed: HTTP 404 NOT_FOUND: Service not found (request id r-7)'
    assert (error.url, error.path) == ('https://api.engine.example:8443/v1/services/s', '/v1/services/s')


# No piece of a credential --------------------------------------------------------------------------------------------

BASIC = base64.b64encode(('%s:%s' % (KEY_ID, KEY_SECRET)).encode()).decode()
QUOTED = {
    'Basic': 'Authorization: Basic ' + BASIC, 'Basic without padding': 'Basic ' + BASIC.rstrip('='), 'Basic cut': BASIC[:17],
    'key secret': 'got %s for %s' % (KEY_SECRET, KEY_ID), 'key secret cut': 'got %s' % KEY_SECRET[:9],
    'token': 'Bearer ' + TOKEN, 'token cut': 'got ' + TOKEN[:7], 'token escaped': json.dumps({'auth': 'Bearer ' + TOKEN})[1:-1],
}
SHAPES = {
    'error body': lambda text: Answer(401, {'status': 401, 'error': 'UNAUTHORIZED: ' + text}),
    'observability error body': lambda text: Answer(403, {'message': text}),
    'text': lambda text: Answer(200, '<' + text),
    'redirect': lambda text: Answer(302, {}, {'Location': 'https://elsewhere.example/?h=' + text.replace(' ', '+')}),
    'exception': lambda text: Answer(exception=ConnectionFailed(text, reached=False, final=True)),
}


@pytest.mark.parametrize('shape', sorted(SHAPES))
@pytest.mark.parametrize('quoted', sorted(QUOTED))
def test_no_message_shows_a_piece_of_a_credential_wherever_the_shortening_cuts(shape, quoted):
    """Masked before shortening: each position of the secret against the cuts at both ends of a long text."""
    for padding in (0, 120, 135, 141, 150, 290, 2000):
        for tail in (' end', 'z' * 130, 'z' * 140):
            text = 'x' * padding + ' rejected ' + QUOTED[quoted] + ' ' + tail
            message = str(failure(SHAPES[shape](text), auth=(KEY_ID, KEY_SECRET)))
            assert not leaks(message, KEY_SECRET, BASIC.rstrip('=')), message
            message = str(failure(SHAPES[shape](text), token=TOKEN))
            assert not leaks(message, TOKEN), message


def test_a_long_error_body_is_masked_in_linear_time():
    """Masking once scanned a run of letters from each of its characters: 16 s for 80 kB, hours for a megabyte."""
    started = time.process_time()
    message = str(failure(Answer(500, {'error': 'x' * (64 << 10)})))
    assert time.process_time() - started < 1 and message.endswith(' ... ' + 'x' * (errors.MAX_TEXT // 2))


def test_a_secret_field_in_a_body_cut_short_is_masked():
    cut = '{"result": {"name": "%s", "source": {"connectionString": "Protocol=https;AccountKey=bm90LWEtcmVhbC1rZXk=;' % ('x' * 400)
    message = str(failure(Answer(200, cut)))
    assert 'the response is not valid JSON' in message and '"connectionString": "********"' in message, message
    assert 'bm90LWEtcmVhbC1rZXk' not in message


@pytest.mark.parametrize('password', ['pa/ss#word-77', 'p@ss/w#rd:99', 'simple-password-1', 'a@b@c#d/e?f'])
def test_an_address_in_a_text_shows_no_part_of_its_password(password):
    for address, shown in (('http://proxyuser:%s@127.0.0.1:9/', 'http://127.0.0.1:9/'), ("'https://u:%s@host'", "'https://host'")):
        assert errors.Redactor([]).say('proxy %s failed' % (address % password)) == 'proxy %s failed' % shown
        assert url_without_credentials(address % password) == shown
