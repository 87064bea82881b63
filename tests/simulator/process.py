"""The one way to run the simulator as a process: start it on a free port of 127.0.0.1, wait until
its admin interface answers, call that interface, stop it. Every suite, the bench and
scripts/simulator.sh use it.

    with SimulatorProcess(workdir) as sim:          # or sim = SimulatorProcess(...).start(); sim.stop()
        sim.reset(transition_delay=0.2)
        sim.faults({'kind': 'status', 'status': 503, 'path': '/state$'})
        ...
        sim.requests()

From a shell (scripts/simulator.sh does this):

    python -m tests.simulator.process serve --workdir DIR [options]

prints shell assignments (SIM_URL, SIM_PORT, the fixture's credentials) once the simulator answers,
closes its standard output, and keeps the simulator running until it gets SIGTERM or SIGINT.
"""

import argparse
import json
import os
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

from . import fixture_ids

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
START_TIMEOUT = 30
STOP_TIMEOUT = 10


def admin_call(admin_url, method, path, body=None, timeout=30):
    """One call to a simulator's admin interface (no proxy; a self-signed certificate is fine);
    returns the parsed JSON answer. path is relative to admin_url: 'reset' or '/reset'."""
    data = None if body is None else json.dumps(body).encode('utf-8')
    request = urllib.request.Request('%s/%s' % (admin_url.rstrip('/'), path.lstrip('/')), data=data, method=method,
                                     headers={'Content-Type': 'application/json'})
    handlers = [urllib.request.ProxyHandler({})]
    if admin_url.startswith('https:'):
        unverified = ssl.create_default_context()
        unverified.check_hostname = False
        unverified.verify_mode = ssl.CERT_NONE
        handlers.append(urllib.request.HTTPSHandler(context=unverified))
    with urllib.request.build_opener(*handlers).open(request, timeout=timeout) as response:
        return json.loads(response.read().decode('utf-8') or 'null')


class AdminCalls:
    """The admin interface (CONTRIBUTING.md) as methods, on top of admin(method, path, body)."""

    def admin(self, method, path, body=None):
        raise NotImplementedError

    def reset(self, **config):
        """Fixtures, log, faults and counters back to the start; config keys applied on top."""
        return self.admin('POST', 'reset', config)

    def config(self, **changes):
        """The config; with changes, PATCH them first."""
        return self.admin('PATCH', 'config', changes) if changes else self.admin('GET', 'config')

    def faults(self, *specs):
        """Arm each fault spec in order; return the pending faults."""
        answer = None
        for spec in specs:
            answer = self.admin('POST', 'faults', spec)
        return (answer or self.admin('GET', 'faults'))['faults']

    def requests(self):
        """The request log."""
        return self.admin('GET', 'requests')['requests']

    def clear_requests(self):
        self.admin('DELETE', 'requests')

    def state(self):
        """The whole internal state."""
        return self.admin('GET', 'state')

    def edit(self, kind, object_id, changes):
        """Set fields of an object directly (kind: 'services', 'pipes', 'dashboards' or 'alerts')."""
        return self.admin('PATCH', '%s/%s' % (kind, object_id), changes)


class SimulatorProcess(AdminCalls):
    """``python -m tests.simulator`` as a child process of this one.

    workdir holds the port file and simulator.log (a temporary directory, removed at stop, when
    not given). root is the directory the simulator package is imported from (a collection copy,
    say). fixtures, tls (cert, key), rate_limit and transition_delay are the simulator's options;
    transition_delay and rate_limit set the config that a reset returns to."""

    def __init__(self, workdir=None, root=ROOT, fixtures=None, tls=None, rate_limit=False, transition_delay=None):
        self.root, self.fixtures, self.tls = root, fixtures, tls
        self.rate_limit, self.transition_delay = rate_limit, transition_delay
        self.own_workdir = workdir is None
        self.workdir = tempfile.mkdtemp(prefix='engine-cloud-simulator.') if workdir is None else workdir
        os.makedirs(self.workdir, exist_ok=True)
        self.log_path = os.path.join(self.workdir, 'simulator.log')
        self.port_file = os.path.join(self.workdir, 'simulator.port')
        self.process = self.url = self.port = None

    @property
    def admin_url(self):
        return self.url + '/_admin'

    def command(self):
        command = [sys.executable, '-m', 'tests.simulator', '--host', '127.0.0.1', '--port', '0', '--port-file',
                   self.port_file, '--quiet']
        if self.fixtures:
            command += ['--fixtures', self.fixtures]
        if self.tls:
            command += ['--tls-cert', self.tls[0], '--tls-key', self.tls[1]]
        if self.rate_limit:
            command.append('--rate-limit')
        if self.transition_delay is not None:
            command += ['--transition-delay', str(self.transition_delay)]
        return command

    def start(self):
        """Start the process and return self once GET /_admin/config answers."""
        if os.path.exists(self.port_file):
            os.remove(self.port_file)
        with open(self.log_path, 'w', encoding='utf-8') as log:
            self.process = subprocess.Popen(self.command(), cwd=self.root, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT)
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_until_ready(self):
        scheme = 'https' if self.tls else 'http'
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise RuntimeError('the simulator exited with %s before it answered:\n%s' % (self.process.returncode, self.log()))
            port = _read_port(self.port_file)
            if port:
                self.port, self.url = port, '%s://127.0.0.1:%d' % (scheme, port)
                try:
                    self.config()
                    return
                except (OSError, ValueError):
                    pass
            if time.monotonic() > deadline:
                raise RuntimeError('the simulator did not answer within %d s:\n%s' % (START_TIMEOUT, self.log()))
            time.sleep(0.05)

    def admin(self, method, path, body=None, timeout=30):
        return admin_call(self.admin_url, method, path, body, timeout)

    def log(self):
        """What the simulator wrote to its log (its stdout and stderr)."""
        try:
            with open(self.log_path, encoding='utf-8', errors='replace') as handle:
                return handle.read()
        except OSError:
            return ''

    def stop(self):
        """SIGTERM the process this object started (by its pid only); return its exit code."""
        code = None
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            code = self.process.returncode
        if self.own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        return code

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()


def _read_port(path):
    try:
        with open(path, encoding='utf-8') as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


# Command line ------------------------------------------------------------------------------------

def shell_assignments(sim):
    """The variables scripts/simulator.sh sets: the simulator's address and the fixture's credentials."""
    values = dict(SIM_PORT=sim.port, SIM_URL=sim.url, SIM_ORGANIZATION_ID=fixture_ids.ORGANIZATION,
                  SIM_KEY_ID=fixture_ids.KEY_ID, SIM_KEY_SECRET=fixture_ids.KEY_SECRET, SIM_OBS_TOKEN=fixture_ids.TOKEN)
    return ''.join('%s=%s\n' % (name, shlex.quote(str(value))) for name, value in values.items())


def parse_args(argv):
    parser = argparse.ArgumentParser(prog='python -m tests.simulator.process', description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest='command', required=True)
    serve = commands.add_parser('serve', help='start, print shell assignments once ready, run until SIGTERM/SIGINT')
    serve.add_argument('--workdir', required=True, help='port file and simulator.log go here')
    serve.add_argument('--root', default=ROOT, help='directory to run the simulator package from')
    serve.add_argument('--fixtures')
    serve.add_argument('--transition-delay', type=float)
    serve.add_argument('--rate-limit', action='store_true')
    serve.add_argument('--tls-cert')
    serve.add_argument('--tls-key')
    args = parser.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error('--tls-cert and --tls-key go together')
    return args


def serve(args):
    """Run the simulator until SIGTERM or SIGINT; print the assignments once it answers."""
    # Stop signals taken with sigtimedwait, not a handler (see tests/simulator/__main__.py).
    stop_signals = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    sim = SimulatorProcess(args.workdir, args.root, args.fixtures, (args.tls_cert, args.tls_key) if args.tls_cert else None,
                           args.rate_limit, args.transition_delay)
    try:
        sim.start()
    except RuntimeError as error:
        sys.stderr.write('simulator: %s\n' % error)
        return 1
    sys.stdout.write(shell_assignments(sim))
    sys.stdout.flush()
    # The caller reads our output to its end: close it, so that it goes on while the simulator runs.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    while signal.sigtimedwait(stop_signals, 0.5) is None:
        if sim.process.poll() is not None:
            sys.stderr.write('simulator: exited with %s:\n%s' % (sim.process.returncode, sim.log()))
            return 1
    return sim.stop()


def main(argv=None):
    return serve(parse_args(argv))


if __name__ == '__main__':
    sys.exit(main())
