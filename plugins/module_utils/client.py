# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one HTTP client every module uses: a keep-alive connection of the standard library
(http.client), with auth, timeouts, retries with backoff, error parsing into a single exception,
and every attempt paced under the API's rate limit (pacer.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import email.utils
import http.client
import json
import os
import random
import re
import select
import socket
import ssl
from urllib.parse import unquote, urlencode, urlsplit

from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secret_text
from ansible_collections.engine.cloud.plugins.module_utils.pacer import UNPACED
from ansible_collections.engine.cloud.plugins.module_utils.validate import url_without_credentials

RETRY_STATUSES = frozenset((429, 502, 503, 504))
BACKOFF_BASE = 1.0
BACKOFF_CAP = 30.0
# A server may ask for a long pause; never sleep longer than this per attempt.
RETRY_AFTER_CAP = 60.0
_ERROR_CODE = re.compile(r'^([A-Z][A-Z_]+):\s*(.*)$', re.S)
_HTML_TITLE = re.compile(r'<title>(.*?)</title>', re.I | re.S)
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
# The CA bundle a verified connection trusts, as requests read it (the collection used requests before).
CA_BUNDLE_ENV = ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE')


class ConnectionFailed(Exception):
    """A request that got no HTTP answer. reached: whether it may have reached the server (False when
    no connection was ever open: refused, a name that did not resolve, a connect timeout, a TLS
    handshake that failed); timeout, tls, unresolved: why."""

    def __init__(self, text, reached, timeout=False, tls=False, unresolved=False):
        super(ConnectionFailed, self).__init__(text)
        self.reached, self.timeout, self.tls, self.unresolved = reached, timeout, tls, unresolved


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


class Connection:
    """One keep-alive connection to the API's host, through http.client. A verified TLS connection trusts
    the CA bundle of REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE when one is set, else certifi's where it is
    installed, else the system's; HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY apply as urllib reads
    them (an HTTPS API through the proxy's CONNECT tunnel)."""

    def __init__(self, parts, timeout, validate_certs=True):
        """parts: the API's base address, urlsplit."""
        self.https = parts.scheme == 'https'
        self.host, self.port = parts.hostname, parts.port or (443 if self.https else 80)
        self.origin = '%s://%s' % (parts.scheme, parts.netloc.rpartition('@')[2])
        self.timeout = timeout
        self.validate_certs = validate_certs
        self.context = None  # made with the first connection: a module that fails its checks reads no CA bundle
        self.proxy = _proxy(parts)
        self._open = None

    def send(self, method, target, headers, body=None):
        """(status, headers, body) of one request; ConnectionFailed when no answer came."""
        connection = self._connection()
        if self.proxy is not None and not self.https:
            target, headers = self.origin + target, dict(headers, **self.proxy[2])
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except socket.timeout:
            self.close()
            raise ConnectionFailed('timed out', reached=True, timeout=True)
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            raise ConnectionFailed('Connection aborted: %s' % (exc or type(exc).__name__), reached=True)
        if response.will_close:
            self.close()
        return response.status, response.headers, data

    def close(self):
        if self._open is not None:
            self._open.close()
            self._open = None

    def _connection(self):
        """The open connection, or a new one when there is none or the server closed it while it was idle
        (it then reads as ready: nothing is sent on a connection the server may have dropped)."""
        if self._open is not None and self._open.sock is not None and not _readable(self._open.sock):
            return self._open
        self.close()
        host, port = (self.proxy[0], self.proxy[1]) if self.proxy is not None else (self.host, self.port)
        if self.https:
            if self.context is None:
                self.context = _tls_context(self.validate_certs)
            connection = http.client.HTTPSConnection(host, port, timeout=self.timeout, context=self.context)
            if self.proxy is not None:
                connection.set_tunnel(self.host, self.port, headers=self.proxy[2])
        else:
            connection = http.client.HTTPConnection(host, port, timeout=self.timeout)
        try:
            connection.connect()
        except socket.gaierror as exc:
            raise ConnectionFailed("Failed to resolve '%s' (%s)" % (host, _os_error_text(exc)), reached=False, unresolved=True)
        except ssl.SSLError as exc:
            raise ConnectionFailed(_os_error_text(exc), reached=False, tls=True)
        except socket.timeout:
            raise ConnectionFailed('timed out', reached=False, timeout=True)
        except OSError as exc:
            raise ConnectionFailed('Failed to establish a new connection: %s' % _os_error_text(exc), reached=False)
        self._open = connection
        return connection


def _readable(sock):
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _os_error_text(exc):
    """[Errno 111] Connection refused: the text of an OSError, with the reason of an ssl.SSLError."""
    if isinstance(exc, ssl.SSLError) and getattr(exc, 'verify_message', None):
        return '[SSL: %s] certificate verify failed: %s' % (exc.reason, exc.verify_message)
    return str(exc) if exc.args else type(exc).__name__


def _tls_context(validate_certs):
    """The TLS context of a connection; ConnectionFailed (nothing sent) when its CA bundle cannot be read."""
    if not validate_certs:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    bundle = next((os.environ[name] for name in CA_BUNDLE_ENV if os.environ.get(name)), None) or _certifi_bundle()
    try:
        if bundle is not None and os.path.isdir(bundle):
            return ssl.create_default_context(capath=bundle)
        return ssl.create_default_context(cafile=bundle)
    except OSError as exc:  # ssl.SSLError included: a file that is not a PEM bundle
        raise ConnectionFailed('cannot read the CA bundle %s: %s' % (bundle, _os_error_text(exc)), reached=False, tls=True)


def _certifi_bundle():
    try:
        import certifi  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return certifi.where()


def _proxy(parts):
    """(host, port, headers) of the proxy that the environment names for this URL, or None."""
    if not any(name.lower().endswith('_proxy') for name in os.environ):
        return None
    import urllib.request  # pylint: disable=import-outside-toplevel  # only when a proxy variable is set
    proxies = urllib.request.getproxies_environment()
    if urllib.request.proxy_bypass_environment(parts.hostname, proxies) or _in_no_proxy_range(parts.hostname, proxies):
        return None
    url = proxies.get(parts.scheme) or proxies.get('all')
    if not url:
        return None
    proxy = urlsplit(url if '://' in url else 'http://' + url)
    headers = {'Proxy-Authorization': _basic(_credentials(proxy))} if proxy.username else {}
    return proxy.hostname, proxy.port or 80, headers


def _credentials(parts):
    """(user, password) of a URL's user:password@, unquoted."""
    return unquote(parts.username), unquote(parts.password or '')


def _basic(credentials):
    """The value of an Authorization header of the basic scheme, for (user, password)."""
    return 'Basic %s' % base64.b64encode(('%s:%s' % credentials).encode('utf-8')).decode('ascii')


def _in_no_proxy_range(host, proxies):
    """Whether host is an address in a range of NO_PROXY (10.0.0.0/8), which urllib does not read."""
    import ipaddress  # pylint: disable=import-outside-toplevel
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    for entry in proxies.get('no', '').split(','):
        try:
            if '/' in entry and address in ipaddress.ip_network(entry.strip(), strict=False):
                return True
        except ValueError:
            continue
    return False


def _query(params):
    """The query string of params (a dictionary or a list of pairs): a None value left out, a list as one
    pair per element."""
    pairs = [(name, value) for name, value in (params.items() if isinstance(params, dict) else params or ()) if value is not None]
    return '?' + urlencode(pairs, doseq=True) if pairs else ''


class HttpClient:
    """One keep-alive connection for one module run, against one API base address."""

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
        parts = urlsplit(self.base_url)
        self.connection = Connection(parts, timeout, validate_certs)
        self.prefix = parts.path
        self.headers = {'User-Agent': user_agent, 'Accept': 'application/json'}
        if auth is None and parts.username:
            auth = _credentials(parts)
        if auth is not None:
            self.headers['Authorization'] = _basic(auth)
        if token is not None:
            self.headers['Authorization'] = 'Bearer %s' % token

    def backoff(self, attempt):
        """Exponential backoff with jitter: between half and all of base * 2**attempt, capped."""
        delay = min(BACKOFF_CAP, BACKOFF_BASE * (2 ** attempt))
        return delay / 2 + self._jitter() * delay / 2

    def request(self, method, path, params=None, body=None, once=False, on_send=None):
        """Send one request, retrying what is safe to retry; return the parsed JSON body.

        once: this write is never replayed, whatever the API's not_replayable says (a create or a delete of
        the lifecycle, on either API): a lost answer raises (ApiError.answer_lost) for the caller to judge.
        on_send() is called when each attempt leaves (after its pacing wait)."""
        target = self.prefix + path + _query(params)
        headers, data = self.headers, None
        if body is not None:
            headers, data = dict(headers, **{'Content-Type': 'application/json'}), json.dumps(body).encode('utf-8')
        attempt = 0
        while True:
            attempt += 1
            self.pacer.acquire()
            if on_send is not None:
                on_send()
            try:
                status, answer_headers, content = self.connection.send(method, target, headers, data)
            except ConnectionFailed as exc:
                lost = self._answer_lost(method, exc=exc, once=once)
                if lost or exc.tls or exc.unresolved or attempt > self.retries:
                    raise self._exception_error(exc, method, path, attempt, lost)
                CLOCK.sleep(self.backoff(attempt - 1))
                continue
            if status == 429:
                self.pacer.refused(server_wait(answer_headers))
            if status in RETRY_STATUSES and attempt <= self.retries and not self._answer_lost(method, status=status, once=once):
                wait = server_wait(answer_headers)
                CLOCK.sleep(self.backoff(attempt - 1) if wait is None else wait)
                continue
            if status >= 400:
                raise self._error(status, answer_headers, content, method, path, attempt, once)
            return self._parse(status, answer_headers, content, method, path, attempt)

    def _answer_lost(self, method, exc=None, status=None, once=False):
        """Whether a write that is not safe to replay may have been applied although its answer is lost.
        A connection that could not even be opened (refused, unresolved name, connect timeout) sent nothing."""
        if not once and method not in self.not_replayable:
            return False
        if exc is None:
            return status in LOST_ANSWER_STATUSES
        return exc.reached

    def url_of(self, path):
        """The URL a path is sent to, as messages show it: whole, but without user:password@."""
        return url_without_credentials(self.base_url) + path

    def _exception_error(self, exc, method, path, attempts, lost=False):
        return ApiError(self._describe_exception(exc), method=method, path=path, url=self.url_of(path), attempts=attempts,
                        hint=LOST_ANSWER_HINT if lost else self._exception_hint(exc), answer_lost=lost)

    def _describe_exception(self, exc):
        if exc.tls:
            return 'TLS certificate verification failed: %s' % _short(str(exc))
        if exc.timeout:
            return '%s within api_timeout (%s s)' % ('no response' if exc.reached else 'no connection', self.timeout)
        return 'connection failed: %s' % _short(str(exc))

    def _exception_hint(self, exc):
        """What to check: the CA for a certificate error; the address when no connection was made."""
        if exc.tls:
            return CA_HINT
        return None if exc.reached else self.url_hint

    def _error(self, status, headers, content, method, path, attempts, once=False):
        code, message, request_id = describe_error_body(_text(content), headers.get('Content-Type', ''))
        lost = self._answer_lost(method, status=status, once=once)
        hint = self.auth_hint if status == 401 else (LOST_ANSWER_HINT if lost else None)
        return ApiError(message, status=status, code=code, method=method, path=path, url=self.url_of(path),
                        request_id=request_id or headers.get('X-Request-Id'), attempts=attempts, hint=hint,
                        answer_lost=lost)

    def _parse(self, status, headers, content, method, path, attempts):
        if not content:
            return {}
        try:
            return json.loads(_text(content))
        except ValueError:
            raise ApiError('the response is not valid JSON: %s' % _answer_text(_text(content)), status=status,
                           method=method, path=path, url=self.url_of(path), request_id=headers.get('X-Request-Id'),
                           attempts=attempts)


def _text(content):
    return content.decode('utf-8', 'replace')
