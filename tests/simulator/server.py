"""HTTP plumbing: one threaded server for both APIs and the admin interface, and dispatch(), the one
route every request takes (over HTTP here, in process in the unit tests): request log and faults."""

import json
import socket
import ssl
import struct
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from . import admin, cloud, observability

HTML_502 = ('<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n'
            '<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n')
MALFORMED_JSON = '{"status": 200, "requestId": "00000000-0000-4000-8000-000000000000", "result": {"id": "3f1c2d4e-'


class Request:
    """What an API handler needs to know about one request."""

    def __init__(self, method, target, headers, raw_body):
        url = urlsplit(target)
        self.method, self.path, self.headers, self.raw_body = method, url.path, headers, raw_body
        self.query_pairs = parse_qsl(url.query, keep_blank_values=True)
        self.query = dict(self.query_pairs)

    def json_body(self):
        """The parsed JSON body, or None if there is none or it does not parse."""
        try:
            return json.loads(self.raw_body, parse_constant=_reject_constant) if self.raw_body else None
        except ValueError:
            return None


def _reject_constant(name):
    raise ValueError('%s is not valid JSON' % name)


class Response:
    """A complete HTTP response."""

    def __init__(self, status, body=b'', content_type='application/json', headers=None):
        self.status, self.content_type, self.headers = status, content_type, dict(headers or {})
        self.hold, self.drop = 0, False  # seconds before it is sent (a slow create), and whether it is then dropped
        self.trickle = None  # bytes per second at which it is sent (a trickle fault), or None: at once
        self.body = body.encode('utf-8') if isinstance(body, str) else body

    @classmethod
    def json(cls, status, payload, headers=None):
        """A JSON response."""
        return cls(status, json.dumps(payload), 'application/json', headers)

    @classmethod
    def text(cls, status, text, headers=None):
        """A plain-text response."""
        return cls(status, text, 'text/plain; charset=utf-8', headers)

    def size(self):
        """About how many bytes it takes on the wire: status line, the headers it carries, body."""
        headers = dict(self.headers, **{'Content-Type': self.content_type, 'Content-Length': len(self.body)})
        return len('HTTP/1.1 %d OK\r\n\r\n' % self.status) + sum(len('%s: %s\r\n' % item) for item in headers.items()) + len(self.body)


class SimulatorServer(ThreadingHTTPServer):
    """Threaded HTTP(S) server holding the shared Store."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, store, ssl_context=None, quiet=False):
        self.store, self.ssl_context, self.quiet = store, ssl_context, quiet
        store.https = ssl_context is not None
        super().__init__(address, Handler)

    def finish_request(self, request, client_address):
        # The TLS handshake runs here, in the request's thread, so a slow client blocks nobody.
        if self.ssl_context is not None:
            fault = self.store.take_tls_fault()
            if fault is not None:
                break_handshake(request, fault)
                return
            try:
                request = self.ssl_context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return
        super().finish_request(request, client_address)


def break_handshake(connection, fault):
    """A TLS fault: read the client's hello, then reset the connection (tls_reset), or answer nothing until the
    client gives up or the fault's delay has passed (tls_stall). No request arrives: nothing is logged."""
    deadline = time.monotonic() + (fault['delay'] if fault['kind'] == 'tls_stall' else 5)
    connection.settimeout(0.2)
    while time.monotonic() < deadline:
        try:
            if not connection.recv(65536) or fault['kind'] == 'tls_reset':
                break
        except socket.timeout:
            continue
        except OSError:
            break
    if fault['kind'] == 'tls_reset':
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
    connection.close()  # here, not in the server's shutdown_request: that would send a FIN before the reset


class Handler(BaseHTTPRequestHandler):
    """Routes every request to the admin interface or one of the two APIs."""

    protocol_version = 'HTTP/1.1'
    server_version = 'engine-cloud-simulator'
    trickle = None  # the rate of the response being sent (see send)

    def do_GET(self):  # pylint: disable=invalid-name
        """Handle GET."""
        self.serve_request()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        if not self.server.quiet:
            super().log_message(format, *args)

    def serve_request(self):
        """Read the request, answer it (see dispatch below) or close the connection for a reset fault."""
        if 'chunked' in self.headers.get('Transfer-Encoding', '').lower():
            self.send(Response.text(411, 'Length Required'))
            return
        length = self.headers.get('Content-Length', '0').strip()
        if not length.isdigit():
            self.close_connection = True
            self.send(Response.text(400, 'Bad Request: invalid Content-Length'))
            return
        request = Request(self.command, self.path, self.headers, self.rfile.read(int(length)))
        response = dispatch(self.server.store, request)
        if response is None:
            self.reset_connection()
            return
        try:
            self.send(response)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # a late answer (a slow create) to a client that gave up

    def reset_connection(self):
        """Close the socket at once; SO_LINGER 0 turns the close into a TCP reset."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        except OSError:
            pass

    def send(self, response):
        """Write a complete response (at the response's trickle rate, if it has one)."""
        self.trickle = response.trickle
        try:
            self.send_response(response.status)
            self.send_header('Content-Type', response.content_type)
            self.send_header('Content-Length', str(len(response.body)))
            for name, value in response.headers.items():
                self.send_header(name, str(value))
            self.end_headers()
            if self.command != 'HEAD':
                self.write(response.body)
        finally:
            self.trickle = None

    def flush_headers(self):
        if hasattr(self, '_headers_buffer'):
            self.write(b''.join(self._headers_buffer))
            self._headers_buffer = []

    def write(self, data):
        """Write data, at once or (a trickle fault) a tenth of the rate every tenth of a second."""
        rate = self.trickle
        if not rate:
            self.wfile.write(data)
            return
        step = max(1, int(rate / 10))
        for start in range(0, len(data), step):
            self.wfile.write(data[start:start + step])
            self.wfile.flush()
            time.sleep(step / rate)


def logged_query(pairs):
    """The query as the request log shows it: name -> value, or -> [values] for a name given more than once."""
    query = {}
    for name, value in pairs:
        if name in query:
            query[name] = (query[name] if isinstance(query[name], list) else [query[name]]) + [value]
        else:
            query[name] = value
    return query


def dispatch(store, request, pause=None):
    """Answer one request as the simulator does, over HTTP or in process: admin or API routing, the
    request log and injected faults. Returns the Response, or None when a ``reset`` fault closes the
    connection without one. pause(seconds) waits out a ``delay`` fault before the request is
    handled (default: the store's clock)."""
    if request.path.startswith('/_admin/'):
        return admin.handle(store, request)
    api = _api_of(request.path)
    if api is None:
        return Response.text(404, 'Not Found')
    entry = store.log(time=store.now_iso(), api=api.NAME, method=request.method, path=request.path, query=logged_query(request.query_pairs),
                      status=None, body=request.json_body(), fault=None, handled=True)
    fault = store.take_fault(request.method, request.path)
    if fault is None:
        response = api.handle(store, request)
    else:
        entry['fault'] = fault['kind']
        # A fault with apply lets the API handle the request first: the write is applied, its answer lost.
        entry['handled'] = fault['apply'] or fault['kind'] in ('delay', 'trickle')
        if fault['apply']:
            api.handle(store, request)
        if fault['kind'] == 'reset':
            return None
        if fault['kind'] == 'delay':
            (pause or store.clock.sleep)(fault['delay'])
        response = _faulty_response(fault, api) or api.handle(store, request)
        response.headers.update(fault['headers'])
        if fault['kind'] == 'trickle':
            response.trickle = fault['rate']
            if pause:  # in process: the time the answer takes to arrive (the HTTP server writes it that slowly)
                pause(response.size() / response.trickle)
    entry['status'] = response.status
    if response.hold:
        entry['fault'] = 'dropped' if response.drop else 'late'
        (pause or store.clock.sleep)(response.hold)
        if response.drop:
            return None
    return response


def _faulty_response(fault, api):
    """The response a fault replaces the real one with, or None to answer normally (after a delay)."""
    kind, body = fault['kind'], fault['body']
    if not isinstance(body, (str, type(None))):
        body = json.dumps(body)
    if kind in ('delay', 'trickle'):
        return None
    if kind == 'no_envelope':
        return Response(fault['status'], '{}' if body is None else body, _sniff(body or '{}'))
    if kind == 'malformed_json':
        return Response(200, MALFORMED_JSON if body is None else body)
    if kind == 'html':
        return Response(502, HTML_502 if body is None else body, 'text/html')
    return api.fault_response(fault['status']) if body is None else Response(fault['status'], body, _sniff(body))


def _api_of(path):
    for api in (cloud, observability):
        if path == api.PREFIX or path.startswith(api.PREFIX + '/'):
            return api
    return None


def _sniff(body):
    try:
        json.loads(body)
    except ValueError:
        return 'text/plain; charset=utf-8'
    return 'application/json'
