"""Command line: ``python -m tests.simulator --host 127.0.0.1 --port 8080``."""

import argparse
import os
import signal
import ssl
import sys
import threading

from . import fixture_ids
from .server import SimulatorServer
from .state import DEFAULT_FIXTURES, Store


def parse_args(argv):
    """The command-line options."""
    parser = argparse.ArgumentParser(prog='python -m tests.simulator', description=__doc__)
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=8080, help='0 picks a free port')
    parser.add_argument('--port-file', help='write the bound port to this file once listening')
    parser.add_argument('--fixtures', default=DEFAULT_FIXTURES)
    parser.add_argument('--transition-delay', type=float, default=1.0,
                        help='seconds an asynchronous state change takes (default config)')
    parser.add_argument('--rate-limit', action='store_true', help='enable rate limits in the default config')
    parser.add_argument('--tls-cert', help='PEM certificate: serve HTTPS')
    parser.add_argument('--tls-key', help='PEM private key for --tls-cert')
    parser.add_argument('--quiet', action='store_true', help='do not log requests to stderr')
    parser.add_argument('--say', action='append', default=[], help='a line to print once listening (repeatable)')
    parser.add_argument('--exports', action='store_true',
                        help="once listening, print the shell exports that point the modules at it with the fixture's credentials")
    args = parser.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error('--tls-cert and --tls-key go together')
    return args


def build_server(args):
    """A bound, listening server for the parsed options."""
    store = Store(args.fixtures, {'transition_delay': args.transition_delay, 'rate_limit': args.rate_limit})
    context = None
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
    try:
        return SimulatorServer((args.host, args.port), store, context, args.quiet)
    except OSError as error:
        raise CannotListen('simulator: cannot listen on %s:%d: %s' % (args.host, args.port, error.strerror or error))


class CannotListen(Exception):
    """The address cannot be bound (a busy port, a host that is not this machine's)."""


STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}
# The exit status when the address cannot be bound (a busy port): make simulator names SIM_PORT then.
CANNOT_LISTEN = 3


def exports(url):
    """The shell lines that point the modules at the simulator at url, with the fixture's credentials."""
    return ['export ENGINE_CLOUD_API_URL=%s ENGINE_OBSERVABILITY_URL=%s' % (url, url),
            'export ENGINE_CLOUD_KEY_ID=%s ENGINE_CLOUD_KEY_SECRET=%s' % (fixture_ids.KEY_ID, fixture_ids.KEY_SECRET),
            'export ENGINE_CLOUD_ORGANIZATION_ID=%s ENGINE_OBSERVABILITY_TOKEN=%s' % (fixture_ids.ORGANIZATION, fixture_ids.TOKEN)]


def write_port_file(path, port):
    """Write the port atomically so a reader never sees a partial file."""
    temporary = path + '.tmp'
    with open(temporary, 'w', encoding='utf-8') as handle:
        handle.write('%d\n' % port)
    os.replace(temporary, path)


def main(argv=None):
    """Serve until SIGTERM or SIGINT."""
    args = parse_args(argv)
    # The stop signals are blocked before any thread starts (threads inherit the mask) and taken
    # with sigwait, so no Python handler runs. A handler calling Event.set() deadlocked on the
    # event's own lock when a second SIGTERM came during the first set(): make forwards SIGTERM to
    # its child, which got one from the process group already (make simulator hung one time in a few).
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        server = build_server(args)
    except CannotListen as error:
        sys.stderr.write('%s\n' % error)
        return CANNOT_LISTEN
    worker = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.1}, name='simulator', daemon=True)
    worker.start()
    port = server.server_address[1]
    if args.port_file:
        write_port_file(args.port_file, port)
    url = '%s://%s:%d' % ('https' if args.tls_cert else 'http', args.host, port)
    lines = args.say + (exports(url) if args.exports else [])
    if lines:
        sys.stdout.write(''.join(line + '\n' for line in lines))
        sys.stdout.flush()
    if not args.quiet:
        sys.stderr.write('simulator listening on %s\n' % url)
    signal.sigwait(STOP_SIGNALS)
    server.shutdown()
    server.server_close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
