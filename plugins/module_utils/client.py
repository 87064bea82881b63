# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one HTTP client every module and plugin uses: a requests Session per module run (keep-alive,
proxies and CA bundles as requests reads them), with auth, a deadline and a size cap per answer,
retries with backoff, error parsing into a single exception, secrets masked in every message, and
every attempt paced under the API's rate limit (pacer.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import email.utils
import json
import os
import random
import re
import socket
import ssl
import sys
import time
import warnings
from urllib.parse import unquote, urlencode, urlsplit

# first: the module_utils imported after it are compiled once in a module process (compile_once.py)
from ansible_collections.engine.cloud.plugins.module_utils import compile_once  # noqa: F401  pylint: disable=unused-import
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
CA_HINT = ('If the API has a certificate of a private CA, give its CA bundle (a file or a directory) with ca_path '
           '(or REQUESTS_CA_BUNDLE=/path/to/ca.pem); set validate_certs to false only against a test server you control')
CLIENT_CERT_HINT = ('The server asks for a client certificate: give it with client_cert and client_key '
                    '(or client_cert alone, a file that holds the key too)')
CLIENT_CERT_MAYBE = 'If the server asks for a client certificate, give it with client_cert and client_key.'
PROXY_HINT = 'Check the proxy environment variables (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY)'
# Where a verified connection finds its CA certificates when ca_path is not set, first found first: the two
# variables requests reads, then the two OpenSSL reads (requests itself would use certifi's bundle instead).
CA_ENV = ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'SSL_CERT_FILE', 'SSL_CERT_DIR')
# The most an answer may hold (after decompression): the largest answers of both APIs are a few MB;
# a bigger one is not read into memory.
MAX_ANSWER_BYTES = 32 * 1024 * 1024
_CHUNK = 256 * 1024
# What the Authorization header may hold (RFC 9110: visible ASCII and spaces, no line break).
_HEADER_VALUE = re.compile(r'^[\x20-\x7e]*\Z')
MASK = '********'
# The shortest start of a secret that a message never shows (a server may quote a secret cut off).
CUT_PREFIX = 6
# Optional packages requests imports to guess a text's encoding (see _import_requests).
_ENCODING_GUESSERS = ('charset_normalizer', 'chardet')
_requests = None  # the requests package, imported with the first request: a module that fails its checks never pays for it


class ConnectionFailed(Exception):
    """A request that got no usable HTTP answer. reached: whether it may have reached the server (False when
    no connection was ever open: refused, a name that did not resolve, a connect timeout, a TLS handshake that
    failed); timeout, tls, unresolved, refused, proxy: why; final: sending it again cannot help (nothing
    listens at the address, a setting is wrong, the answer is too large)."""

    def __init__(self, text, reached, timeout=False, tls=False, unresolved=False, refused=False, proxy=None, final=False):
        super(ConnectionFailed, self).__init__(text)
        self.reached, self.timeout, self.tls, self.unresolved = reached, timeout, tls, unresolved
        self.refused, self.proxy = refused, proxy
        self.final = final or tls or unresolved or refused


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


def _answer_text(text, mask):
    """Text the API answered, for a message: masked first (secret-named fields, then what mask() takes out),
    then shortened, so that no cut can leave a piece of a secret behind."""
    return _short(mask(mask_secret_text(text or '')))


def describe_error_body(text, content_type='', mask=url_without_credentials):
    """(code, message, request_id) from any error body either API sends, or a proxy in between; mask(text) takes the
    client's credentials out of the texts before they are shortened."""
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
            return match.group(1), _answer_text(match.group(2), mask), body.get('requestId')
        return None, _answer_text(raw, mask) or 'no error message in the response', body.get('requestId')
    if text and ('html' in content_type or text.lstrip().lower().startswith(('<!doctype', '<html'))):
        title = _HTML_TITLE.search(text)
        return None, 'unexpected HTML response%s' % (': ' + _answer_text(title.group(1), mask) if title else ''), None
    return None, _answer_text(text, mask) or 'empty response body', None


class Connection:
    """One requests Session for one module run, against the API's origin: the connection is kept alive
    between requests, redirects are not followed (the credentials would go with them), an answer is read
    in chunks within the deadline and up to MAX_ANSWER_BYTES. Proxies (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY,
    NO_PROXY) apply as requests reads them; a verified TLS connection trusts ca_path, else the CA file or
    directory of the environment (CA_ENV), else requests' own bundle."""

    def __init__(self, parts, timeout, validate_certs=True, ca_path=None, client_cert=None, client_key=None):
        """parts: the API's base address, urlsplit; client_cert and client_key: the files of a client certificate."""
        self.https = parts.scheme == 'https'
        self.host, self.port = parts.hostname, parts.port or (443 if self.https else 80)
        self.origin = '%s://%s' % (parts.scheme, parts.netloc.rpartition('@')[2])
        self.timeout = timeout
        self.validate_certs, self.ca_path = validate_certs, ca_path
        self.client_cert = client_cert
        self.cert = None if client_cert is None else (client_cert, client_key) if client_key else client_cert
        self.verify = None  # with the session: a module that fails its checks reads no CA path
        self._session = None

    def send(self, method, target, headers, body=None):
        """(status, headers, body) of one request; ConnectionFailed when no usable answer came."""
        session = self._session or self._open()
        url = self.origin + target
        deadline = time.monotonic() + self.timeout
        try:
            with warnings.catch_warnings():
                if self.verify is False:  # validate_certs: false was asked for: no warning on every request
                    warnings.simplefilter('ignore', _requests.packages.urllib3.exceptions.InsecureRequestWarning)
                response = session.request(method, url, headers=headers, data=body, timeout=(self.timeout, self.timeout),
                                           verify=self.verify, allow_redirects=False, stream=True)
        except _requests.RequestException as exc:
            raise self._failure(exc, url)
        try:
            return response.status_code, response.headers, _read(response, deadline)
        except (_requests.RequestException, _requests.packages.urllib3.exceptions.HTTPError) as exc:
            # urllib3's own exceptions too: the body is read from response.raw
            if isinstance(exc, (_requests.Timeout, _requests.packages.urllib3.exceptions.TimeoutError)):
                raise ConnectionFailed('timed out', reached=True, timeout=True)
            raise ConnectionFailed('Connection aborted while reading the answer: %s' % _cause_text(exc), reached=True)
        finally:
            response.close()

    def close(self):
        if self._session is not None:
            self._session.close()
            self._session = None

    def _open(self):
        global _requests  # pylint: disable=global-statement
        if _requests is None:
            try:
                _requests = _import_requests()
            except ImportError as exc:
                raise ConnectionFailed('the Python package requests is needed on the host that runs this module (%s): '
                                       'install it there, for example with pip install requests' % exc, reached=False, final=True)
        self.verify = _verify(self.validate_certs, self.ca_path)
        for name, path in (('client_cert', self.client_cert), ('client_key', self.cert[1] if isinstance(self.cert, tuple) else None)):
            if path is not None and not os.path.isfile(path):
                raise ConnectionFailed('cannot read the client certificate file %s (%s): no such file' % (path, name),
                                       reached=False, final=True)
        session = _requests.Session()
        session.cert = self.cert
        # The Authorization header is the client's own: with auth set, requests does not replace it with a
        # ~/.netrc entry of the API's host (trust_env reads ~/.netrc otherwise).
        session.auth = _as_sent
        self._session = session
        return session

    def _failure(self, exc, url):
        """The ConnectionFailed of a requests exception: what happened, in a word, and its cause without the library's wrapping."""
        chain = _chain(exc)
        text = _cause_text(exc)
        if isinstance(exc, _requests.exceptions.ProxyError):
            proxy = _proxy_for(url)
            return ConnectionFailed('proxy %s failed: %s' % (proxy, text), reached=False, proxy=proxy,
                                    refused=any(isinstance(item, ConnectionRefusedError) for item in chain))
        if isinstance(exc, _requests.exceptions.InvalidSchema) and 'socks' in str(exc).lower():
            return ConnectionFailed('the proxy %s is a SOCKS proxy, which needs the Python package PySocks on the host that runs '
                                    'this module (pip install PySocks)' % _proxy_for(url), reached=False, final=True)
        if isinstance(exc, _requests.exceptions.SSLError):
            return ConnectionFailed(text, reached=False, tls=True)
        if isinstance(exc, _requests.exceptions.ConnectTimeout):
            return ConnectionFailed('timed out', reached=False, timeout=True)
        if isinstance(exc, _requests.exceptions.ReadTimeout):
            return ConnectionFailed('timed out', reached=True, timeout=True)
        if any(isinstance(item, socket.gaierror) for item in chain):
            return ConnectionFailed("Failed to resolve '%s' (%s)" % (self.host, text), reached=False, unresolved=True)
        if any(isinstance(item, ConnectionRefusedError) for item in chain):
            return ConnectionFailed('Failed to establish a new connection: %s (nothing listens at %s:%s; not retried)'
                                    % (text, self.host, self.port), reached=False, refused=True)
        if isinstance(exc, _requests.exceptions.ConnectionError) and _never_connected(chain):
            return ConnectionFailed('Failed to establish a new connection: %s' % text, reached=False)
        if isinstance(exc, _requests.exceptions.ConnectionError):
            return ConnectionFailed('Connection aborted: %s' % text, reached=True)
        return ConnectionFailed('%s: %s' % (type(exc).__name__, text), reached=False, final=True)


def _import_requests():
    """requests; in a module process, without its optional guess of text encodings. Nothing in a module process
    asks requests for a text (the client decodes the bytes as UTF-8, and requests falls back to UTF-8 where it
    would guess), and importing charset_normalizer costs about 10 ms of CPU in every task (bench/NOTES.md).
    The controller's processes (the inventory and lookup plugins) import requests as it comes."""
    if 'ansible.cli' in sys.modules or any(name in sys.modules for name in _ENCODING_GUESSERS):
        import requests  # pylint: disable=import-outside-toplevel
        return requests
    for name in _ENCODING_GUESSERS:
        sys.modules[name] = None  # an import of it raises ImportError, which requests expects when it is not installed
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # requests' RequestsDependencyWarning: no encoding guesser
        import requests  # pylint: disable=import-outside-toplevel
    return requests


def _as_sent(request):
    return request


def _verify(validate_certs, ca_path):
    """What requests verifies the API's certificate with: False, or the CA file or directory to trust (ca_path,
    else the first of CA_ENV that is set), or True for requests' own bundle. ConnectionFailed (nothing sent)
    when the named path does not exist."""
    if not validate_certs:
        return False
    path = ca_path or next((os.environ[name] for name in CA_ENV if os.environ.get(name)), None)
    if path is None:
        return True
    if not os.path.exists(path):
        source = 'ca_path' if ca_path else next(name for name in CA_ENV if os.environ.get(name))
        raise ConnectionFailed('cannot read the CA file or directory %s (%s): no such file or directory' % (path, source),
                               reached=False, tls=True)
    return path


def _read(response, deadline):
    """The whole body of a streamed answer, read in chunks: ConnectionFailed when it takes longer than the
    deadline (a server that trickles bytes) or holds more than MAX_ANSWER_BYTES (never read whole)."""
    length = response.headers.get('Content-Length', '')
    if length.isdigit() and int(length) > MAX_ANSWER_BYTES:
        raise _too_large('%s bytes' % length)
    raw = response.raw
    read = getattr(raw, 'read1', raw.read)  # read1 (urllib3 2): whatever has come, without waiting for a full chunk
    chunks, size = [], 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ConnectionFailed('timed out', reached=True, timeout=True)
        _bound_wait(raw, remaining)
        chunk = read(_CHUNK, decode_content=True)
        if not chunk:
            return b''.join(chunks)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise _too_large('more than that')
        chunks.append(chunk)


def _bound_wait(raw, seconds):
    """Each wait for the next bytes ends at the deadline at the latest."""
    sock = getattr(getattr(raw, 'connection', None), 'sock', None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.001))


def _too_large(what):
    return ConnectionFailed('the answer is larger than %d MiB (%s); it was not read' % (MAX_ANSWER_BYTES // (1024 * 1024), what),
                            reached=True, final=True)


def _chain(exc):
    """exc and every exception it wraps (requests wraps urllib3's, which wraps the socket's or ssl's)."""
    found, todo = [], [exc]
    while todo:
        item = todo.pop(0)
        if not isinstance(item, BaseException) or any(item is seen for seen in found):
            continue
        found.append(item)
        todo.extend([getattr(item, 'reason', None), item.__cause__, item.__context__] + list(item.args))
    return found


def _never_connected(chain):
    """Whether the failure came before any connection was open (urllib3's NewConnectionError)."""
    return any(type(item).__name__ in ('NewConnectionError', 'NameResolutionError') for item in chain)


def _cause_text(exc):
    """The innermost cause's text ("[Errno 111] Connection refused", an SSL reason, "Tunnel connection failed:
    407 ..."), without the wrappers' repr of pools and connections."""
    for item in reversed(_chain(exc)):
        if type(item).__module__ in ('builtins', 'ssl', 'socket', 'http.client') and str(item):
            return _os_error_text(item) if isinstance(item, OSError) else '%s: %s' % (type(item).__name__, item)
    return str(exc) or type(exc).__name__


def _proxy_for(url):
    """The proxy the environment names for url, without its credentials."""
    proxy = _requests.utils.select_proxy(url, _requests.utils.get_environ_proxies(url)) or ''
    return url_without_credentials(proxy if '://' in proxy else 'http://' + proxy)


def _os_error_text(exc):
    """[Errno 111] Connection refused: the text of an OSError, with the reason of an ssl.SSLError."""
    if isinstance(exc, ssl.SSLError) and getattr(exc, 'verify_message', None):
        return '[SSL: %s] certificate verify failed: %s' % (exc.reason, exc.verify_message)
    if exc.errno is not None and exc.strerror and not isinstance(exc, ssl.SSLError):
        return '[Errno %s] %s' % (exc.errno, exc.strerror)
    return str(exc) if exc.args else type(exc).__name__


def _tls_kind(text):
    """Who refused a TLS handshake: 'verify' when this client refused the server's certificate (or could not read
    its CA); 'client certificate' when the server demanded one (TLS 1.3's certificate_required alert, which is no
    verification of the server's, so the CA hint would mislead); else 'handshake'."""
    if 'CERTIFICATE_REQUIRED' in text or 'certificate required' in text:
        return 'client certificate'
    if 'CERTIFICATE_VERIFY_FAILED' in text or 'certificate verify failed' in text or 'CA file' in text:
        return 'verify'
    return 'handshake'


def _credentials(parts):
    """(user, password) of a URL's user:password@, unquoted."""
    return unquote(parts.username), unquote(parts.password or '')


def _basic(credentials):
    """The value of an Authorization header of the basic scheme, for (user, password)."""
    return 'Basic %s' % base64.b64encode(('%s:%s' % credentials).encode('utf-8')).decode('ascii')


def _query(params):
    """The query string of params (a dictionary or a list of pairs): a None value left out, a list as one
    pair per element."""
    pairs = [(name, value) for name, value in (params.items() if isinstance(params, dict) else params or ()) if value is not None]
    return '?' + urlencode(pairs, doseq=True) if pairs else ''


class HttpClient:
    """One keep-alive connection for one module run, against one API base address."""

    def __init__(self, base_url, auth=None, token=None, timeout=30, validate_certs=True, retries=5,
                 user_agent='engine.cloud', auth_hint=None, url_hint=None, jitter=random.random, pacer=UNPACED,
                 not_replayable=NOT_REPLAYABLE, ca_path=None, client_cert=None, client_key=None):
        self.base_url = base_url.rstrip('/')
        self.not_replayable = not_replayable
        self.pacer = pacer
        self.timeout = timeout
        self.retries = retries
        self.auth_hint = auth_hint
        self.url_hint = url_hint
        self._jitter = jitter
        parts = urlsplit(self.base_url)
        self.connection = Connection(parts, timeout, validate_certs, ca_path, client_cert, client_key)
        self.prefix = parts.path
        self.headers = {'User-Agent': user_agent, 'Accept': 'application/json'}
        if auth is None and parts.username:
            auth = _credentials(parts)
        given = [value for value in (auth or ()) + (token,) if value]
        # A key or token with white space around it (the newline of `echo ... | ansible-vault encrypt_string`)
        # is sent without it; one with a character a header cannot hold is refused before anything is sent.
        if auth is not None:
            auth = tuple(value.strip() for value in auth)
            self.headers['Authorization'] = _basic(auth)
        if token is not None:
            self.headers['Authorization'] = 'Bearer %s' % token.strip()
        self._secrets = _secret_forms(given + [auth[1] if auth else None, token and token.strip(),
                                               self.headers.get('Authorization', '').partition(' ')[2]])
        self._refusal = None
        if not _HEADER_VALUE.match(self.headers.get('Authorization', '')):
            self._refusal = ('the %s holds a line break or another character that an HTTP header cannot carry; nothing was sent'
                             % ('token' if token is not None else 'API key id or secret'))

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
        if self._refusal:
            raise ApiError(self._refusal, method=method, path=path, url=self.url_of(path))
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
                if lost or exc.final or attempt > self.retries:
                    raise self._exception_error(exc, method, path, attempt, lost)
                CLOCK.sleep(self.backoff(attempt - 1))
                continue
            if status == 429:
                self.pacer.refused(server_wait(answer_headers))
            if status in RETRY_STATUSES and attempt <= self.retries and not self._answer_lost(method, status=status, once=once):
                wait = server_wait(answer_headers)
                CLOCK.sleep(self.backoff(attempt - 1) if wait is None else wait)
                continue
            if 300 <= status < 400:
                raise self._redirect_error(status, answer_headers, method, path, attempt)
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

    def _mask(self, text):
        """text without any form of the credentials this client sends (whatever raised it, whatever it quotes), nor
        a piece of CUT_PREFIX characters or more that starts one (a server that cut what it quotes), nor the user:password@
        of an address in it. Every message is masked before it is shortened: a cut never splits a secret."""
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        for secret in self._secrets:
            start = text.find(secret[:CUT_PREFIX])
            while start >= 0:
                end = start + CUT_PREFIX
                while end < len(text) and end - start < len(secret) and text[end] == secret[end - start]:
                    end += 1
                text = text[:start] + MASK + text[end:]
                start = text.find(secret[:CUT_PREFIX], start + len(MASK))
        return url_without_credentials(text)

    def _exception_error(self, exc, method, path, attempts, lost=False):
        return ApiError(self._describe_exception(exc), method=method, path=path, url=self.url_of(path), attempts=attempts,
                        hint=LOST_ANSWER_HINT if lost else self._exception_hint(exc), answer_lost=lost)

    def _describe_exception(self, exc):
        text = _short(self._mask(str(exc)))
        if exc.tls:
            return '%s: %s' % ('TLS certificate verification failed' if _tls_kind(text) == 'verify' else 'TLS handshake failed', text)
        if exc.timeout:
            return '%s within api_timeout (%s s)' % ('no response' if exc.reached else 'no connection', self.timeout)
        if exc.proxy or (exc.final and not exc.refused and not exc.unresolved):
            return text
        return 'connection failed: %s' % text

    def _exception_hint(self, exc):
        """What to check: the CA for a certificate error; the proxy settings for a proxy; the address when no
        connection was made."""
        if exc.tls:
            kind = _tls_kind(str(exc))
            if kind == 'verify':
                return CA_HINT
            if kind == 'client certificate':
                return CLIENT_CERT_HINT
            if self.connection.client_cert is None:
                # TLS 1.2 servers refuse a client without a certificate with a bare handshake_failure alert, and a
                # TLS 1.3 refusal can arrive as a closed connection (OpenSSL 3.0 reads the EOF before the alert).
                return ' '.join(hint for hint in (CLIENT_CERT_MAYBE, self.url_hint) if hint)
            return self.url_hint
        if exc.proxy:
            return PROXY_HINT
        return None if exc.reached else self.url_hint

    def _redirect_error(self, status, headers, method, path, attempts):
        """A 3xx: not followed, because the credentials would go with it to wherever it points."""
        location = headers.get('Location') or '(no Location)'
        if location.startswith('/'):
            location = self.connection.origin + location
        hint = self.url_hint
        if location.startswith('https://') and self.base_url.startswith('http://'):
            hint = 'The API is served over HTTPS: use an https:// address. %s' % (self.url_hint or '')
        return ApiError('the API answered with a redirect to %s, which is not followed (the credentials would go with it)'
                        % _short(self._mask(location)),
                        status=status, method=method, path=path, url=self.url_of(path), attempts=attempts, hint=(hint or '').strip() or None,
                        request_id=headers.get('X-Request-Id'))

    def _error(self, status, headers, content, method, path, attempts, once=False):
        code, message, request_id = describe_error_body(_text(content), headers.get('Content-Type', ''), self._mask)
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
            raise ApiError('the response is not valid JSON: %s' % _answer_text(_text(content), self._mask), status=status,
                           method=method, path=path, url=self.url_of(path), request_id=headers.get('X-Request-Id'),
                           attempts=attempts)


def _secret_forms(secrets):
    """Each secret as messages may quote it: as it is, escaped as repr() shows it (a newline as \\n), and a base64
    value (the Basic credentials) without its padding."""
    forms = set()
    for secret in secrets:
        if secret and len(secret) >= 4:
            forms.update((secret, repr(secret)[1:-1], repr(secret.encode('utf-8'))[2:-1], secret.rstrip('=')))
    return sorted(forms, key=len, reverse=True)


def _text(content):
    return content.decode('utf-8', 'replace')
