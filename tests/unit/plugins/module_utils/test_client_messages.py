# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a failed call says: the whole URL without credentials, the cause of a connection failure
(also when its text is long), and what to check. The connection failures are real ones, through
http.client: a closed port, and a host name that does not resolve."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import email.message
import json
import socket

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK

URL_HINT = 'Check api_url or the ENGINE_CLOUD_API_URL environment variable'
# A path as long as the management API's (a message names the whole URL, then the cause).
LONG_PATH = '/v1/organizations/%s/services/%s/pipes/%s/settings' % ('7' * 36, '3' * 36, '9' * 36)


@pytest.fixture
def sleeps(monkeypatch):
    recorded = []
    monkeypatch.setattr(CLOCK, 'sleep', recorded.append)
    return recorded


@pytest.fixture
def closed_port():
    """A port of 127.0.0.1 that nothing listens on: connecting is refused at once."""
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    port = listener.getsockname()[1]
    listener.close()
    return port


@pytest.fixture
def unresolvable(monkeypatch):
    """Every host name fails to resolve, as an unknown name does (no DNS server is asked)."""
    def getaddrinfo(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, 'Name or service not known')
    monkeypatch.setattr(socket, 'getaddrinfo', getaddrinfo)


def failure(client, method='GET', path=LONG_PATH):
    with pytest.raises(http.ApiError) as info:
        client.request(method, path)
    return info.value


def test_a_refused_connection_fails_at_once_keeps_its_cause_names_the_url_and_what_to_check(closed_port, sleeps):
    """Nothing listens at the address (the simulator not started, a wrong port): not a lost answer, so no
    retry (six attempts took about 26 s), and the message says so."""
    client = http.HttpClient('http://127.0.0.1:%d/' % closed_port, retries=5, url_hint=URL_HINT, jitter=lambda: 0.5)
    error = failure(client)
    message = str(error)
    assert message.startswith('GET http://127.0.0.1:%d%s failed: connection failed: ' % (closed_port, LONG_PATH)), message
    assert 'Connection refused' in message and 'HTTPConnection(' not in message, message
    assert message.endswith('not retried). %s' % URL_HINT), message
    assert (error.attempts, error.path, error.url) == (1, LONG_PATH, 'http://127.0.0.1:%d%s' % (closed_port, LONG_PATH))
    assert sleeps == []


def test_an_unresolved_host_name_fails_at_once_naming_the_name(unresolvable, sleeps):
    client = http.HttpClient('https://api.engine.example', retries=5, url_hint=URL_HINT)
    error = failure(client)
    message = str(error)
    assert "Failed to resolve 'api.engine.example'" in message and 'Name or service not known' in message, message
    assert message.startswith('GET https://api.engine.example%s failed: ' % LONG_PATH), message
    assert message.endswith(URL_HINT), message
    assert error.attempts == 1 and sleeps == []


def test_credentials_in_the_base_address_are_never_shown(closed_port, sleeps):
    client = http.HttpClient('http://user:s3cret-pw@127.0.0.1:%d' % closed_port, retries=0, url_hint=URL_HINT)
    error = failure(client, path='/v1/x')
    assert 's3cret-pw' not in str(error) and 'user' not in str(error)
    assert error.url == 'http://127.0.0.1:%d/v1/x' % closed_port


class Answer:
    """Stands in for the client's Connection: answers every request with one status and JSON body, or
    raises one exception."""

    def __init__(self, status=None, body=None, exception=None):
        self.status, self.body, self.exception = status, body, exception

    def send(self, method, target, headers, body=None):
        if self.exception is not None:
            raise self.exception
        answer_headers = email.message.Message()
        answer_headers['Content-Type'] = 'application/json'
        return self.status, answer_headers, json.dumps(self.body).encode()


def answering(base_url, answer, **options):
    client = http.HttpClient(base_url, retries=0, **options)
    client.connection = answer
    return client


def test_an_api_error_names_scheme_host_port_and_path_but_not_the_credentials():
    body = {'status': 404, 'error': 'NOT_FOUND: Service not found', 'requestId': 'r-7'}
    client = answering('https://key:s3cret-pw@api.engine.example:8443/', Answer(404, body))
    error = failure(client, path='/v1/organizations/o/services/s')
    assert str(error) == ('GET https://api.engine.example:8443/v1/organizations/o/services/s failed: '
                          'HTTP 404 NOT_FOUND: Service not found (request id r-7)')
    assert error.path == '/v1/organizations/o/services/s'


def test_a_certificate_error_points_at_the_ca_bundle_first():
    client = answering('https://api.engine.example', Answer(exception=http.ConnectionFailed(
        '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate', reached=False, tls=True)),
        url_hint=URL_HINT)
    message = str(failure(client))
    assert 'TLS certificate verification failed: [SSL: CERTIFICATE_VERIFY_FAILED]' in message
    assert message.index('REQUESTS_CA_BUNDLE') < message.index('validate_certs'), message
    assert URL_HINT not in message


def test_no_connection_within_the_timeout_points_at_the_address():
    client = answering('https://api.engine.example', Answer(exception=http.ConnectionFailed('timed out', reached=False, timeout=True)),
                       url_hint=URL_HINT, timeout=7)
    message = str(failure(client))
    assert message.endswith('failed: no connection within api_timeout (7 s). %s' % URL_HINT), message


def test_a_lost_answer_is_not_blamed_on_the_address():
    client = answering('https://api.engine.example', Answer(exception=http.ConnectionFailed('reset by peer', reached=True)),
                       url_hint=URL_HINT)
    message = str(failure(client))
    assert message.endswith('failed: connection failed: reset by peer'), message


@pytest.mark.parametrize('length', [http._MAX_TEXT + 1, 2000])
def test_a_long_text_loses_its_middle_not_its_end(length):
    text = 'start ' + 'x' * length + ' [Errno 111] Connection refused'
    short = http._short(text)
    assert short.startswith('start ') and short.endswith('[Errno 111] Connection refused') and ' ... ' in short
    assert len(short) <= http._MAX_TEXT + len(' ... ')


def test_a_short_text_is_kept_on_one_line():
    assert http._short('a\n  b\tc') == 'a b c'


SECRET = 'AccountKey=bm90LWEtcmVhbC1rZXk='
# A pipe as the API shows it, cut off inside its connection string: the secret is at the end,
# which a long text keeps when it is shortened in the middle.
CUT_BODY = '{"status": 200, "result": {"id": "p-1", "name": "%s", "source": {"connectionString": "Protocol=https;%s;' % ('x' * 400, SECRET)


def test_a_body_that_is_not_json_never_shows_a_secret_it_holds():
    message = str(failure(answering('https://api.engine.example', TextAnswer(200, CUT_BODY))))
    assert 'the response is not valid JSON' in message and '"connectionString": "********"' in message, message
    assert 'bm90LWEtcmVhbC1rZXk' not in message


@pytest.mark.parametrize('body', [
    {'status': 500, 'error': 'INTERNAL_SERVER_ERROR: ' + CUT_BODY},
    {'message': 'Something went wrong: ' + CUT_BODY},
    {'error': {'detail': {'apiToken': 'bm90LWEtcmVhbC1rZXk='}}},
])
def test_an_error_body_never_shows_a_secret_it_holds(body):
    message = str(failure(answering('https://api.engine.example', Answer(500, body))))
    assert 'HTTP 500' in message and 'bm90LWEtcmVhbC1rZXk' not in message, message


class TextAnswer(Answer):
    """Answers with a text body as it is (for bodies that are not valid JSON)."""

    def __init__(self, status, text):
        super(TextAnswer, self).__init__(status)
        self.text = text

    def send(self, method, target, headers, body=None):
        status, answer_headers, dummy = super(TextAnswer, self).send(method, target, headers, body)
        return status, answer_headers, self.text.encode()


KEY_ID, KEY_SECRET, TOKEN = 'key-id-7', 'sEcReT-9f8e7d6c5b4a', 'tok_a1b2c3d4e5f6g7h8i9j0kl'
BASIC = base64.b64encode(('%s:%s' % (KEY_ID, KEY_SECRET)).encode()).decode()


def leaks(message, *secrets):
    """The pieces of 6 characters or more of any secret that show in message."""
    return [secret[start:start + 6] for secret in secrets for start in range(len(secret) - 5) if secret[start:start + 6] in message]


@pytest.mark.parametrize('quoted', [
    'Authorization: Basic ' + BASIC,
    'Authorization: Basic ' + BASIC.rstrip('='),
    'Authorization: Basic ' + BASIC[:17],
    'key %s, secret %s' % (KEY_ID, KEY_SECRET),
    'the secret %s' % KEY_SECRET[:9],
])
@pytest.mark.parametrize('padding', [0, 120, 141, 150, 290, 2000])
def test_an_error_body_that_quotes_the_basic_credentials_never_shows_them(quoted, padding):
    """Masked before shortening: a secret that the shortening would cut, or that the server cut, shows no piece of itself."""
    body = {'status': 401, 'error': 'UNAUTHORIZED: %s rejected %s; see the documentation' % ('x' * padding, quoted)}
    client = answering('https://api.engine.example', Answer(401, body), auth=(KEY_ID, KEY_SECRET))
    message = str(failure(client))
    assert 'HTTP 401' in message and not leaks(message, KEY_SECRET, BASIC.rstrip('=')[12:]), message


@pytest.mark.parametrize('padding', [0, 130, 140, 150, 2000])
@pytest.mark.parametrize('shape', ['json', 'text', 'redirect', 'exception'])
def test_no_message_path_shows_a_token_it_quotes(padding, shape):
    quoted = 'x' * padding + ' Bearer ' + TOKEN + ' end'
    answer = {'json': Answer(403, {'message': quoted}), 'text': TextAnswer(200, '<' + quoted),
              'redirect': RedirectAnswer('https://elsewhere.example/?h=' + quoted.replace(' ', '+')),
              'exception': Answer(exception=http.ConnectionFailed(quoted, reached=False, final=True))}[shape]
    message = str(failure(answering('https://api.engine.example', answer, token=TOKEN)))
    assert not leaks(message, TOKEN), message


@pytest.mark.parametrize('password', ['pa/ss#word-77', 'p@ss/w#rd:99', 'simple-password-1'])
def test_a_proxy_password_with_a_slash_or_hash_shows_no_part_of_itself(password, monkeypatch):
    monkeypatch.setenv('HTTPS_PROXY', 'http://proxyuser:%s@127.0.0.1:9/' % password)
    shown = http.url_without_credentials('http://proxyuser:%s@127.0.0.1:9/' % password)
    assert not leaks(shown, password) and 'proxyuser' not in shown, shown


class RedirectAnswer(Answer):
    def __init__(self, location):
        super(RedirectAnswer, self).__init__(302, {})
        self.location = location

    def send(self, method, target, headers, body=None):
        status, answer_headers, content = super(RedirectAnswer, self).send(method, target, headers, body)
        answer_headers['Location'] = self.location
        return status, answer_headers, content
