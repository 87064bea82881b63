# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one HTTP client every module uses: a requests session with auth, timeouts,
retries with backoff, error parsing into a single exception, and every attempt paced
under the API's rate limit (pacer.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import email.utils
import json
import random
import re
import socket

from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secret_text
from ansible_collections.engine.cloud.plugins.module_utils.pacer import UNPACED
from ansible_collections.engine.cloud.plugins.module_utils.validate import url_without_credentials

try:
    import requests
    from urllib3.exceptions import NewConnectionError
    REQUESTS_IMPORT_ERROR = None
except ImportError as exc:  # pragma: no cover - exercised by the import sanity test
    requests = NewConnectionError = None
    REQUESTS_IMPORT_ERROR = exc

RETRY_STATUSES = frozenset((429, 502, 503, 504))
BACKOFF_BASE = 1.0
BACKOFF_CAP = 30.0
# A server may ask for a long pause; never sleep longer than this per attempt.
RETRY_AFTER_CAP = 60.0
_ERROR_CODE = re.compile(r'^([A-Z][A-Z_]+):\s*(.*)$', re.S)
_HTML_TITLE = re.compile(r'<title>(.*?)</title>', re.I | re.S)
# urllib3 starts a connection failure with the connection object, which names the host the URL
# already shows: "HTTPConnection(host='h', port=1): " (urllib3 2) or "<urllib3...HTTPConnection object at 0x..>: " (1.26).
_CONNECTION_PREFIX = re.compile(r"^(?:<[^<>]* object at 0x[0-9a-fA-F]+>|\w+\(host='[^']*', port=\d+\)):\s*")
_MAX_TEXT = 300
# Writes that are not safe to send twice. When the answer to one is lost (a timeout, a reset after
# sending, or a 502, 503 or 504 from a gateway), the server may have applied it, so it is not retried:
# the error says so, and the module reads the resource again. An API's layer names its own
# (client_options); a PATCH is never replayed on either API.
NOT_REPLAYABLE = frozenset(('PATCH',))
LOST_ANSWER_STATUSES = frozenset((502, 503, 504))
LOST_ANSWER_HINT = 'The answer to this write was lost, so it may have been applied; it was not sent again'
CA_HINT = ('If the API has a certificate of a private CA, give its CA bundle with REQUESTS_CA_BUNDLE=/path/to/ca.pem; '
           'set validate_certs to false only against a test server you control')


class ApiError(Exception):
    """A failed API call: HTTP status, API error code and message, method, path and request id.

    The message names the whole URL called (without credentials) when url is given, else the path."""

    def __init__(self, message, status=None, code=None, method=None, path=None, request_id=None, attempts=1, hint=None, url=None,
                 answer_lost=False):
        super(ApiError, self).__init__(message)
        self.answer_lost = answer_lost
        self.message = message
        self.status = status
        self.code = code
        self.method = method
        self.path = path
        self.url = url
        self.request_id = request_id
        self.attempts = attempts
        self.hint = hint

    def __str__(self):
        head = '%s %s failed' % (self.method, self.url or self.path)
        if self.status is not None:
            head += ': HTTP %s' % self.status
            if self.code:
                head += ' %s' % self.code
        text = '%s: %s' % (head, self.message)
        details = []
        if self.request_id:
            details.append('request id %s' % self.request_id)
        if self.attempts > 1:
            details.append('after %d attempts' % self.attempts)
        if details:
            text += ' (%s)' % ', '.join(details)
        if self.hint:
            text += '. %s' % self.hint
        return text

    def as_result(self):
        """The fields a failed task returns besides its message."""
        return dict(status=self.status, code=self.code, method=self.method, path=self.path,
                    request_id=self.request_id, attempts=self.attempts)


def parse_wait_header(value, now=None):
    """Seconds to wait from a Retry-After or *RateLimit-Reset header value, or None."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        seconds = email.utils.mktime_tz(parsed) - (CLOCK.time() if now is None else now)
    else:
        if seconds > 1e9:  # an epoch timestamp rather than a delay
            seconds -= CLOCK.time() if now is None else now
    return min(max(seconds, 0.0), RETRY_AFTER_CAP)


def server_wait(headers):
    """The wait a 429/503 response asks for, in seconds, or None when it names none."""
    for name in ('Retry-After', 'X-RateLimit-Reset', 'RateLimit-Reset'):
        seconds = parse_wait_header(headers.get(name))
        if seconds is not None:
            return seconds
    return None


def _short(text):
    """text on one line, at most about _MAX_TEXT characters: a long text loses its middle, because
    its start says what failed and its end often says why ("... [Errno 111] Connection refused")."""
    text = ' '.join((text or '').split())
    if len(text) <= _MAX_TEXT:
        return text
    half = _MAX_TEXT // 2
    return text[:half] + ' ... ' + text[-half:]


def _answer_text(text):
    """Text the API answered, for a message: secret-named fields masked first, then shortened
    (a shortened text keeps its end, where a cut-off body's secret may be)."""
    return _short(mask_secret_text(text or ''))


def _causes(exc):
    """exc and every exception behind it: urllib3's reason, __cause__, __context__, exception arguments."""
    found, pending = [], [exc]
    while pending:
        current = pending.pop(0)
        if not isinstance(current, BaseException) or any(current is known for known in found):
            continue
        found.append(current)
        pending.extend([getattr(current, 'reason', None), current.__cause__, current.__context__] + list(current.args))
    return found


def is_name_resolution_failure(exc):
    """Whether exc comes from a host name that did not resolve (retrying it does not help)."""
    return any(isinstance(cause, socket.gaierror) for cause in _causes(exc))


def never_connected(exc):
    """Whether exc happened before a connection was open (refused, unresolved name, connect
    timeout): nothing was sent, and the address is what to check."""
    return isinstance(exc, requests.exceptions.ConnectTimeout) or any(isinstance(cause, NewConnectionError) for cause in _causes(exc))


def describe_cause(exc):
    """Why a connection failed, in urllib3's words without its wrapping: the reason of its
    MaxRetryError ("Failed to resolve 'h' ([Errno -2] Name or service not known)"), else exc's text."""
    for cause in _causes(exc):
        reason = getattr(cause, 'reason', None)
        if isinstance(reason, BaseException):
            return _short(_CONNECTION_PREFIX.sub('', str(reason)))
    return _short(str(exc))


def describe_error_body(text, content_type=''):
    """(code, message, request_id) from any error body either API sends, or a proxy in between."""
    body = None
    if text and ('json' in content_type or text.lstrip()[:1] in ('{', '[')):
        try:
            body = json.loads(text)
        except ValueError:
            body = None
    if isinstance(body, dict):
        raw = body.get('error') or body.get('message') or ''
        if not isinstance(raw, str):
            raw = repr(raw)
        match = _ERROR_CODE.match(raw)
        if match:
            return match.group(1), _answer_text(match.group(2)), body.get('requestId')
        return None, _answer_text(raw) or 'no error message in the response', body.get('requestId')
    if text and ('html' in content_type or text.lstrip().lower().startswith(('<!doctype', '<html'))):
        title = _HTML_TITLE.search(text)
        return None, 'unexpected HTML response%s' % (': ' + _answer_text(title.group(1)) if title else ''), None
    return None, _answer_text(text) or 'empty response body', None


class HttpClient:
    """One keep-alive session for one module run, against one API base address."""

    def __init__(self, base_url, auth=None, token=None, timeout=30, validate_certs=True, retries=5,
                 user_agent='engine.cloud', auth_hint=None, url_hint=None, jitter=random.random, pacer=UNPACED,
                 not_replayable=NOT_REPLAYABLE):
        self.base_url = base_url.rstrip('/')
        self.not_replayable = not_replayable
        self.pacer = pacer
        self.timeout = timeout
        self.retries = retries
        self.auth_hint = auth_hint
        self.url_hint = url_hint
        self._jitter = jitter
        self.session = requests.Session()
        self.session.verify = validate_certs
        self.session.headers['User-Agent'] = user_agent
        self.session.headers['Accept'] = 'application/json'
        if auth is not None:
            self.session.auth = auth
        if token is not None:
            self.session.headers['Authorization'] = 'Bearer %s' % token

    def backoff(self, attempt):
        """Exponential backoff with jitter: between half and all of base * 2**attempt, capped."""
        delay = min(BACKOFF_CAP, BACKOFF_BASE * (2 ** attempt))
        return delay / 2 + self._jitter() * delay / 2

    def request(self, method, path, params=None, body=None, once=False):
        """Send one request, retrying what is safe to retry; return the parsed JSON body.

        once: this write is never replayed, whatever the API's not_replayable says (a create or a delete of
        the lifecycle, on either API): a lost answer raises (ApiError.answer_lost) for the caller to judge."""
        url = self.base_url + path
        attempt = 0
        while True:
            attempt += 1
            self.pacer.acquire()
            try:
                response = self.session.request(method, url, params=params, json=body, timeout=self.timeout)
            except requests.exceptions.RequestException as exc:
                lost = self._answer_lost(method, exc=exc, once=once)
                if lost or not self._retryable_exception(exc) or attempt > self.retries:
                    raise self._exception_error(exc, method, path, attempt, lost)
                CLOCK.sleep(self.backoff(attempt - 1))
                continue
            if response.status_code == 429:
                self.pacer.refused(server_wait(response.headers))
            if response.status_code in RETRY_STATUSES and attempt <= self.retries and not self._answer_lost(method, status=response.status_code, once=once):
                wait = server_wait(response.headers)
                CLOCK.sleep(self.backoff(attempt - 1) if wait is None else wait)
                continue
            if response.status_code >= 400:
                raise self._error(response, method, path, attempt, once)
            return self._parse(response, method, path, attempt)

    def _answer_lost(self, method, exc=None, status=None, once=False):
        """Whether a write that is not safe to replay may have been applied although its answer is lost.
        A connection that could not even be opened (refused, unresolved name, connect timeout) sent nothing."""
        if not once and method not in self.not_replayable:
            return False
        if exc is None:
            return status in LOST_ANSWER_STATUSES
        return self._retryable_exception(exc) and not never_connected(exc)

    @staticmethod
    def _retryable_exception(exc):
        if isinstance(exc, requests.exceptions.SSLError) or is_name_resolution_failure(exc):
            return False
        return isinstance(exc, (requests.exceptions.ConnectionError, requests.exceptions.Timeout,
                                requests.exceptions.ChunkedEncodingError))

    def url_of(self, path):
        """The URL a path is sent to, as messages show it: whole, but without user:password@."""
        return url_without_credentials(self.base_url) + path

    def _exception_error(self, exc, method, path, attempts, lost=False):
        return ApiError(self._describe_exception(exc), method=method, path=path, url=self.url_of(path), attempts=attempts,
                        hint=LOST_ANSWER_HINT if lost else self._exception_hint(exc), answer_lost=lost)

    def _describe_exception(self, exc):
        if isinstance(exc, requests.exceptions.SSLError):
            return 'TLS certificate verification failed: %s' % describe_cause(exc)
        if isinstance(exc, requests.exceptions.ConnectTimeout):
            return 'no connection within api_timeout (%s s)' % self.timeout
        if isinstance(exc, requests.exceptions.Timeout):
            return 'no response within api_timeout (%s s)' % self.timeout
        if isinstance(exc, requests.exceptions.ConnectionError):
            return 'connection failed: %s' % describe_cause(exc)
        return _short(str(exc))

    def _exception_hint(self, exc):
        """What to check: the CA for a certificate error; the address when no connection was made."""
        if isinstance(exc, requests.exceptions.SSLError):
            return CA_HINT
        return self.url_hint if never_connected(exc) else None

    def _error(self, response, method, path, attempts, once=False):
        code, message, request_id = describe_error_body(response.text, response.headers.get('Content-Type', ''))
        lost = self._answer_lost(method, status=response.status_code, once=once)
        hint = self.auth_hint if response.status_code == 401 else (LOST_ANSWER_HINT if lost else None)
        return ApiError(message, status=response.status_code, code=code, method=method, path=path, url=self.url_of(path),
                        request_id=request_id or response.headers.get('X-Request-Id'), attempts=attempts, hint=hint,
                        answer_lost=lost)

    def _parse(self, response, method, path, attempts):
        if not response.content:
            return {}
        try:
            return response.json()
        except ValueError:
            raise ApiError('the response is not valid JSON: %s' % _answer_text(response.text), status=response.status_code,
                           method=method, path=path, url=self.url_of(path), request_id=response.headers.get('X-Request-Id'),
                           attempts=attempts)
