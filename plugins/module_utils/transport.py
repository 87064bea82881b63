# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one HTTP client of every module and plugin: a requests Session per run, auth, api_timeout as a bound on the whole
request, a size cap, retries that honour the server, the rule for lost answers, every attempt paced (pacing.py)."""

import base64
import email.utils
import json
import math
import os
import random
import re
import socket
import ssl
import threading
import warnings
from urllib.parse import unquote, urlencode, urlsplit

from ansible_collections.engine.cloud.plugins.module_utils import errors
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError, ConnectionFailed
from ansible_collections.engine.cloud.plugins.module_utils.pacing import Unpaced
from ansible_collections.engine.cloud.plugins.module_utils.validate import url_without_credentials

RETRY_STATUSES = frozenset((429, 502, 503, 504))
LOST_ANSWER_STATUSES = frozenset((502, 503, 504))
BACKOFF_BASE, BACKOFF_CAP = 1.0, 30.0
RETRY_AFTER_CAP = 60.0
MAX_ANSWER_BYTES = 32 * 1024 * 1024
URLLIB3_FLOOR = (2, 6)  # read1 with decompression within the size cap and the deadline
CA_ENV = ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'SSL_CERT_FILE', 'SSL_CERT_DIR')
_HEADER_VALUE = re.compile(r'^[\x20-\x7e]*\Z')
_CHUNK = 256 * 1024
_REQUEST = threading.local()  # the sockets and progress of the request this thread sends (see _adapter)


class HttpClient:
    """One keep-alive connection for one run, against one API base address. not_replayable: the methods whose lost answer
    (a timeout or reset after sending, a 502, 503 or 504) may come from a write that was applied, so they are not sent
    again; envelope: the key every answer but a DELETE's holds its payload under."""

    def __init__(self, base_url, auth=None, token=None, timeout=30, validate_certs=True, retries=5, user_agent='engine.cloud',
                 auth_hint=None, url_hint=None, jitter=random.random, pacer=None, not_replayable=frozenset(('PATCH',)),
                 ca_path=None, client_cert=None, client_key=None, envelope=None):
        self.base_url, self.timeout, self.retries = base_url.rstrip('/'), timeout, retries
        self.auth_hint, self.url_hint, self.not_replayable, self.envelope = auth_hint, url_hint, not_replayable, envelope
        self.pacer = pacer or Unpaced()
        self.waited = 0.0  # seconds slept after the server's 429 answers
        self._jitter = jitter
        parts = urlsplit(self.base_url)
        self.connection = Connection(parts, timeout, validate_certs, ca_path, client_cert, client_key)
        self.prefix = parts.path
        self.headers = {'User-Agent': user_agent, 'Accept': 'application/json'}
        if auth is None and parts.username:
            auth = (unquote(parts.username), unquote(parts.password or ''))
        given = [value for value in (auth or ()) + (token,) if value]
        # white space around a key or token (the newline of `echo ... | ansible-vault encrypt_string`) is not sent
        if auth is not None:
            auth = tuple(value.strip() for value in auth)
            self.headers['Authorization'] = 'Basic %s' % base64.b64encode(('%s:%s' % auth).encode('utf-8')).decode('ascii')
        if token is not None:
            self.headers['Authorization'] = 'Bearer %s' % token.strip()
        self.redactor = errors.Redactor(given + [auth[1] if auth else None, token and token.strip(),
                                                 self.headers.get('Authorization', '').partition(' ')[2]] + _proxy_secrets())

    def backoff(self, attempt):
        delay = min(BACKOFF_CAP, BACKOFF_BASE * (2 ** attempt))
        return delay / 2 + self._jitter() * delay / 2

    def request(self, method, path, params=None, body=None, once=False, on_send=None):
        """The parsed JSON answer, retrying what is safe to retry. once: never replayed (a create or delete): a lost
        answer raises ApiError with answer_lost for the caller to judge. on_send() runs when each attempt leaves."""
        pairs = [(name, value) for name, value in (params.items() if isinstance(params, dict) else params or ()) if value is not None]
        target = self.prefix + path + ('?' + urlencode(pairs, doseq=True) if pairs else '')
        headers, data = self.headers, None
        if body is not None:
            headers, data = dict(headers, **{'Content-Type': 'application/json'}), json.dumps(body).encode('utf-8')
        where = dict(method=method, path=path, url=url_without_credentials(self.base_url) + path)  # in every error of this request
        if not _HEADER_VALUE.match(self.headers.get('Authorization', '')):
            raise ApiError('the %s holds a line break or another character that an HTTP header cannot carry; nothing was sent' % (
                'token' if self.headers['Authorization'].startswith('Bearer ') else 'API key id or secret'), **where)
        replayable = not once and method not in self.not_replayable
        attempt = 0
        while True:
            attempt += 1
            slot = self.pacer.acquire()
            if on_send is not None:
                on_send()
            try:
                status, answer_headers, content = self.connection.send(method, target, headers, data)
            except ConnectionFailed as exc:
                self.pacer.answered(slot)
                lost = exc.reached and not replayable
                if lost or exc.final or attempt > self.retries:
                    message, hint = self.redactor.failure(exc, self.timeout, self.url_hint, self.connection.client_cert)
                    raise ApiError(message, attempts=attempt, answer_lost=lost, hint=errors.LOST_ANSWER_HINT if lost else hint, **where)
                CLOCK.sleep(self.backoff(attempt - 1))
                continue
            self.pacer.answered(slot)
            lost = status in LOST_ANSWER_STATUSES and not replayable
            if status in RETRY_STATUSES and not lost:
                wait = self._server_wait(answer_headers, where)
                if status == 429:
                    self.pacer.refused(wait)  # also on the last attempt: the other processes must not run into it
                if attempt <= self.retries:
                    wait = self.backoff(attempt - 1) if wait is None else wait
                    self.waited += wait if status == 429 else 0
                    CLOCK.sleep(wait)
                    continue
            where.update(status=status, attempts=attempt, request_id=answer_headers.get('X-Request-Id'))
            text = content.decode('utf-8', 'replace')
            if 300 <= status < 400:
                raise self._redirect(answer_headers, where)
            if status >= 400:
                code, message, body_id = self.redactor.error_body(text, answer_headers.get('Content-Type', ''))
                hint = self.auth_hint if status == 401 else (errors.LOST_ANSWER_HINT if lost else None)
                raise ApiError(message, code=code, hint=hint, answer_lost=lost, **dict(where, request_id=body_id or where['request_id']))
            return self._parse(text, where)

    def _server_wait(self, headers, where):
        """The seconds a 429 or 503 asks for: what the window has left (RateLimit-Reset) before Retry-After, or None."""
        for name in ('RateLimit-Reset', 'X-RateLimit-Reset', 'Retry-After'):
            value = (headers.get(name) or '').strip()
            try:
                seconds = float(value)
            except ValueError:
                parsed = email.utils.parsedate_tz(value)
                seconds = None if parsed is None else email.utils.mktime_tz(parsed) - CLOCK.time()
            else:
                if not math.isfinite(seconds):
                    raise ApiError('the server asked to wait %s: %s, which is no number of seconds; nothing was sent again' % (
                        name, self.redactor.say(value)), status=429, **where)
                seconds = seconds - CLOCK.time() if seconds > 1e9 else seconds  # an epoch time rather than a delay
            if seconds is not None:
                return min(max(seconds, 0.0), RETRY_AFTER_CAP)
        return None

    def _redirect(self, headers, where):
        """A 3xx is not followed: the credentials would go with it to wherever it points."""
        location = headers.get('Location') or '(no Location)'
        location = self.connection.origin + location if location.startswith('/') else location
        hint = self.url_hint
        if location.startswith('https://') and self.base_url.startswith('http://'):
            hint = 'The API is served over HTTPS: use an https:// address. %s' % (self.url_hint or '')
        return ApiError('the API answered with a redirect to %s, which is not followed (the credentials would go with it)'
                        % self.redactor.say(location), hint=(hint or '').strip() or None, **where)

    def _parse(self, text, where):
        try:
            answer = json.loads(text) if text else {}
        except ValueError:
            raise ApiError('the response is not valid JSON: %s' % self.redactor.say(text), **where)
        if self.envelope and where['method'] != 'DELETE' and not (isinstance(answer, dict) and self.envelope in answer):
            raise ApiError('the response has no "%s" field, so it says nothing of the resource: %s' % (
                self.envelope, self.redactor.say(text) or 'empty response body'), **where)
        return answer


class Connection:
    """A requests Session against the API's origin: redirects not followed, api_timeout a bound on the whole request
    (connect, TLS, headers and body), an answer read in chunks up to MAX_ANSWER_BYTES."""

    def __init__(self, parts, timeout, validate_certs=True, ca_path=None, client_cert=None, client_key=None):
        self.https = parts.scheme == 'https'
        self.host, self.port = parts.hostname, parts.port or (443 if self.https else 80)
        self.origin = '%s://%s' % (parts.scheme, parts.netloc.rpartition('@')[2])
        self.timeout, self.validate_certs, self.ca_path = timeout, validate_certs, ca_path
        self.client_cert, self.client_key = client_cert, client_key
        self._session = self._requests = None

    def send(self, method, target, headers, body=None):
        """(status, headers, body) of one request; ConnectionFailed when no usable answer came in time."""
        session = self._session or self._open()
        requests = self._requests
        _REQUEST.sockets, _REQUEST.connected, _REQUEST.reused = [], False, False
        deadline = CLOCK.monotonic() + self.timeout
        expired = threading.Event()  # set by the watchdog before it shuts the sockets: a read that breaks then timed out
        watchdog = threading.Timer(self.timeout, _shut, (_REQUEST.sockets, expired))
        watchdog.daemon = True
        watchdog.start()
        try:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore', requests.packages.urllib3.exceptions.InsecureRequestWarning)
                    response = session.request(method, self.origin + target, headers=headers, data=body, stream=True,
                                               timeout=(self.timeout, self.timeout), verify=self.verify, allow_redirects=False)
            except requests.RequestException as exc:
                raise self._failure(exc, self.origin + target, expired)
            try:
                return response.status_code, response.headers, _read(response, deadline)
            except (requests.RequestException, requests.packages.urllib3.exceptions.HTTPError, OSError) as exc:
                if expired.is_set() or isinstance(exc, (requests.Timeout, requests.packages.urllib3.exceptions.TimeoutError)):
                    raise ConnectionFailed('timed out', reached=True, timeout=True)
                raise ConnectionFailed('Connection aborted while reading the answer: %s' % _cause(exc), reached=True)
            finally:
                response.close()
        finally:
            watchdog.cancel()

    def _open(self):
        try:
            import requests  # pylint: disable=import-outside-toplevel
            import urllib3  # pylint: disable=import-outside-toplevel
        except ImportError as exc:
            raise ConnectionFailed('the Python package requests is needed on the host that runs this module (%s): install it there, '
                                   'for example with pip install requests' % exc, reached=False, final=True)
        version = tuple(int(part) for part in re.findall(r'\d+', urllib3.__version__)[:2])
        if version < URLLIB3_FLOOR:
            raise ConnectionFailed('the Python package urllib3 %d.%d or later is needed on the host that runs this module (found %s): '
                                   'pip install "urllib3>=%d.%d"' % (URLLIB3_FLOOR + (urllib3.__version__,) + URLLIB3_FLOOR),
                                   reached=False, final=True)
        self._requests = requests
        self.verify = _verify(self.validate_certs, self.ca_path)
        for name, path in (('client_cert', self.client_cert), ('client_key', self.client_key)):
            if path is not None and not os.path.isfile(path):
                raise ConnectionFailed('cannot read the client certificate file %s (%s): no such file' % (path, name), reached=False, final=True)
        session = requests.Session()
        session.cert = (self.client_cert, self.client_key) if self.client_key else self.client_cert
        session.auth = lambda request: request  # the Authorization header is ours: no ~/.netrc entry replaces it
        adapter = _adapter(requests, urllib3)
        session.mount('https://', adapter)
        session.mount('http://', adapter)
        self._session = session
        return session

    def _failure(self, exc, url, expired):
        requests, chain, text = self._requests, _chain(exc), _cause(exc)
        never_connected = any(type(item).__name__ in ('NewConnectionError', 'NameResolutionError') for item in chain)
        if expired.is_set() or isinstance(exc, requests.exceptions.Timeout):  # a ConnectTimeout never connected
            return ConnectionFailed('timed out', reached=_REQUEST.connected, timeout=True)
        if isinstance(exc, requests.exceptions.ProxyError):
            proxy = url_without_credentials(requests.utils.select_proxy(url, requests.utils.get_environ_proxies(url)) or '')
            return ConnectionFailed('proxy %s failed: %s' % (proxy, text), reached=False, proxy=proxy,
                                    refused=any(isinstance(item, ConnectionRefusedError) for item in chain))
        if isinstance(exc, requests.exceptions.InvalidURL) and _proxy_secrets():
            return ConnectionFailed('the proxy address of the environment cannot be read (%s); a / or # in its password must be '
                                    'written %%2F or %%23' % text, reached=False, proxy='(the environment\'s)', final=True)
        if isinstance(exc, requests.exceptions.InvalidSchema) and 'socks' in str(exc).lower():
            return ConnectionFailed('the proxy is a SOCKS proxy, which needs the Python package PySocks on the host that runs this '
                                    'module (pip install PySocks)', reached=False, final=True)
        if self.https and not never_connected and (
                (not _REQUEST.connected and (isinstance(exc, requests.exceptions.SSLError) or any(isinstance(item, ConnectionError) for item in chain)))
                or (not _REQUEST.reused and any(isinstance(item, ssl.SSLEOFError) or 'CERTIFICATE_REQUIRED' in str(item) for item in chain))):
            # the TLS handshake did not complete, or (TLS 1.3) the server ended the fresh session before any answer, as it
            # refuses a client without the certificate it asks for: the server took no request
            return ConnectionFailed(text, reached=False, tls=True)
        if any(isinstance(item, socket.gaierror) for item in chain):
            return ConnectionFailed("Failed to resolve '%s' (%s)" % (self.host, text), reached=False, unresolved=True)
        if any(isinstance(item, ConnectionRefusedError) for item in chain):
            return ConnectionFailed('Failed to establish a new connection: %s (nothing listens at %s:%s; not retried)'
                                    % (text, self.host, self.port), reached=False, refused=True)
        if isinstance(exc, requests.exceptions.ConnectionError):
            if never_connected:
                return ConnectionFailed('Failed to establish a new connection: %s' % text, reached=False)
            return ConnectionFailed('Connection aborted: %s' % text, reached=_REQUEST.connected)
        return ConnectionFailed('%s: %s' % (type(exc).__name__, text), reached=False, final=True)


def _adapter(requests, urllib3):
    """An HTTPAdapter whose connections tell the watchdog their sockets and whether they were ever open (a request that
    never had a connection sent nothing), and that takes several CA directories (SSL_CERT_DIR=/a:/b) as OpenSSL does."""
    class Tracked:
        def _new_conn(self):
            sock = super(Tracked, self)._new_conn()
            getattr(_REQUEST, 'sockets', []).append(sock)
            return sock

        def connect(self):
            super(Tracked, self).connect()
            _REQUEST.connected, self.fresh = True, True

        def request(self, *args, **kwargs):
            if self.sock is not None:  # open: this request may reach the server
                getattr(_REQUEST, 'sockets', []).append(self.sock)
                _REQUEST.connected, _REQUEST.reused, self.fresh = True, not getattr(self, 'fresh', False), False
            return super(Tracked, self).request(*args, **kwargs)

    connection = type('Connection', (Tracked, urllib3.connection.HTTPConnection), {})
    tls_connection = type('TlsConnection', (Tracked, urllib3.connection.HTTPSConnection), {})
    pools = {'http': type('Pool', (urllib3.HTTPConnectionPool,), {'ConnectionCls': connection}),
             'https': type('TlsPool', (urllib3.HTTPSConnectionPool,), {'ConnectionCls': tls_connection})}

    class Adapter(requests.adapters.HTTPAdapter):
        def init_poolmanager(self, *args, **kwargs):
            super(Adapter, self).init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = pools

        def proxy_manager_for(self, proxy, **kwargs):
            manager = super(Adapter, self).proxy_manager_for(proxy, **kwargs)
            if not proxy.lower().startswith('socks'):
                manager.pool_classes_by_scheme = pools
            return manager

        def cert_verify(self, conn, url, verify, cert):
            several = isinstance(verify, str) and os.pathsep in verify
            super(Adapter, self).cert_verify(conn, url, True if several else verify, cert)
            if several:
                conn.ca_certs, conn.ca_cert_dir = None, verify
    return Adapter()


def _proxy_secrets():
    """The user:password of each proxy address of the environment, and its password: a message may quote them however
    the address is cut (a / or # in a password breaks its parsing)."""
    found = []
    for name in ('HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'https_proxy', 'http_proxy', 'all_proxy'):
        value = os.environ.get(name) or ''
        userinfo = value.partition('://')[2].rpartition('@')[0]
        if userinfo:
            found += [userinfo, userinfo.partition(':')[2]]
    return found


def _shut(sockets, expired):
    """The deadline passed: end the request, wherever it waits (expired first: Timer.finished is set only after this)."""
    expired.set()
    for sock in list(sockets):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _verify(validate_certs, ca_path):
    """requests' verify: False, ca_path, else the first CA file or directories the environment names, else True."""
    if not validate_certs:
        return False
    source = 'ca_path' if ca_path else next((name for name in CA_ENV if os.environ.get(name)), None)
    if source is None:
        return True
    path = ca_path or os.environ[source]
    missing = [part for part in (path.split(os.pathsep) if source == 'SSL_CERT_DIR' else [path]) if not os.path.exists(part)]
    if missing:
        raise ConnectionFailed('cannot read the CA file or directory %s (%s): no such file or directory' % (missing[0], source),
                               reached=False, tls=True, final=True)
    return path


def _read(response, deadline):
    length = response.headers.get('Content-Length', '')
    if length.isdigit() and int(length) > MAX_ANSWER_BYTES:
        raise _too_large('%s bytes' % length)
    raw, chunks, size = response.raw, [], 0
    while True:
        remaining = deadline - CLOCK.monotonic()
        if remaining <= 0:
            raise ConnectionFailed('timed out', reached=True, timeout=True)
        sock = getattr(getattr(raw, 'connection', None), 'sock', None)
        if sock is not None:
            sock.settimeout(max(remaining, 0.001))
        chunk = raw.read1(_CHUNK, decode_content=True)
        if not chunk:
            return b''.join(chunks)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise _too_large('more than that')
        chunks.append(chunk)


def _too_large(what):
    return ConnectionFailed('the answer is larger than %d MiB (%s); it was not read' % (MAX_ANSWER_BYTES // (1024 * 1024), what),
                            reached=True, final=True)


def _chain(exc):
    """exc and every exception it wraps (requests wraps urllib3's, which wraps the socket's or ssl's)."""
    found, todo = [], [exc]
    while todo:
        item = todo.pop(0)
        if isinstance(item, BaseException) and not any(item is seen for seen in found):
            found.append(item)
            todo.extend([getattr(item, 'reason', None), item.__cause__, item.__context__] + list(item.args))
    return found


def _cause(exc):
    """The innermost cause's text ("[Errno 111] Connection refused", an SSL reason), without the wrappers' reprs."""
    for item in reversed(_chain(exc)):
        if type(item).__module__ in ('builtins', 'ssl', 'socket', 'http.client') and str(item):
            if getattr(item, 'verify_message', None):
                return '[SSL: %s] certificate verify failed: %s' % (item.reason, item.verify_message)
            if isinstance(item, OSError) and item.errno is not None and item.strerror and type(item).__module__ != 'ssl':
                return '[Errno %s] %s' % (item.errno, item.strerror)
            return '%s: %s' % (type(item).__name__, item) if not isinstance(item, OSError) else str(item)
    return str(exc) or type(exc).__name__
