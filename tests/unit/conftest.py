# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The unit tests' one harness: modules and plugins run in process against the simulator's real handlers
(tests/simulator: its Store and dispatch(), no socket), on one fake clock.

Fixtures:
  clock  a FakeClock that the collection's clock reads (time, monotonic, sleep);
  sim    an InProcessSimulator on that clock, answering every request the client sends to SIM_URL;
  run    runs a module's main() for a case written as data (see ModuleRun) and checks it;
  case   each entry of the test file's CASES ({id: case}) in turn;
  controller  the controller's process, for the tests of the inventory and lookup plugins;
  shown_warnings  the warnings Ansible's display shows (the plugins warn through it);
  pacing_directory  (every test) a private, empty ENGINE_CLOUD_PACING_DIR, so that no test reads or writes the
         user's own pacing state or another test's.

The collection's internals that the harness patches, all in the section "Internals" below and nowhere else in
the tests outside tests/unit/plugins/module_utils: module_utils.clock.CLOCK (time, monotonic, sleep), the
transport's send (module_utils.transport.Connection.send) and its exception (errors.ConnectionFailed), and the kept
answers' view of the play around the process (reads.play_tasks).
"""

import base64
import calendar
import contextlib
import email.message
import importlib
import json
import os
import time
from urllib.parse import urlencode, urlsplit

import pytest
from ansible.module_utils import basic
from ansible.module_utils.common import warnings as module_warnings
from hypothesis import settings
from ansible.utils.display import Display

from ansible_collections.engine.cloud.plugins.module_utils import errors, reads, transport
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.tests.simulator import fixture_ids, server
from ansible_collections.engine.cloud.tests.simulator.process import AdminCalls
from ansible_collections.engine.cloud.tests.simulator.state import Store

# ansible-core 2.19 and later: patch_module_args, and a process-wide mark of the controller (its
# module runs send deprecations to the display instead of the result). Before 2.19 neither exists:
# a module reads its arguments from basic._ANSIBLE_ARGS, and a module run is the same everywhere.
try:
    from ansible.module_utils import _internal
    from ansible.module_utils.testing import patch_module_args
except ImportError:
    _internal = None

    @contextlib.contextmanager
    def patch_module_args(args):
        """What ansible.module_utils.testing.patch_module_args does from 2.19 on, as older
        collections' harnesses did it (set_module_args)."""
        previous = basic._ANSIBLE_ARGS
        basic._ANSIBLE_ARGS = json.dumps({'ANSIBLE_MODULE_ARGS': args}).encode('utf-8')
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = previous

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the collection's
SIM_URL = 'http://simulator.test'
OMIT = '<omitted>'  # the value of an argument that a case leaves out, the connection options included

# Property tests: a few examples each on every run (a test's own @settings wins), and no deadline: on a loaded
# machine a slow example is not a wrong one (performance is the benchmark's to measure).
settings.register_profile('engine_cloud', deadline=None, max_examples=20)
settings.load_profile('engine_cloud')
# 2024-10-12T13:37:00.125Z: a fixed start, exact in binary, so epoch milliseconds are exact too.
START = 1728740220.125
ACCOUNT_KEY = fixture_ids.CONNECTION_STRING.split('AccountKey=')[1].split(';')[0]
# What no output of any run may hold: the fixture's credentials, in every form a message could quote them.
SECRETS = {
    'api key secret': fixture_ids.KEY_SECRET,
    'observability token': fixture_ids.TOKEN,
    'connection string': fixture_ids.CONNECTION_STRING,
    'connection string account key': ACCOUNT_KEY,
    'account key, decoded': base64.b64decode(ACCOUNT_KEY).decode('utf-8'),
    'Basic authorization': base64.b64encode(('%s:%s' % (fixture_ids.KEY_ID, fixture_ids.KEY_SECRET)).encode('utf-8')).decode('ascii'),
}


def read(path):
    """The text of a file of the collection (path from its root)."""
    with open(os.path.join(ROOT, path), encoding='utf-8') as handle:
        return handle.read()


def module_of(name):
    return importlib.import_module('ansible_collections.engine.cloud.plugins.modules.' + name)


def leaks(text, *given):
    """The names of the fixture's secrets, and the given secret values, that text holds."""
    return [name for name, value in SECRETS.items() if value in text] + [value for value in given if value in text]


# Internals: the collection's own names that the harness patches (see the module docstring) ---------------------


def patch_clock(monkeypatch, clock):
    for name in ('time', 'monotonic', 'sleep'):
        monkeypatch.setattr(CLOCK, name, getattr(clock, name))


def patch_transport(monkeypatch, simulator):
    def send(connection, method, target, headers, body=None):
        return simulator.answer(connection, method, target, headers, body)
    monkeypatch.setattr(transport.Connection, 'send', send)


def connection_failure(text, reached, **kind):
    """What the transport raises for a request that got no answer; reached: it may have reached the server (kind:
    timeout, unresolved)."""
    return errors.ConnectionFailed(text, reached=reached, **kind)


@pytest.fixture(autouse=True)
def play_runs_one_task(monkeypatch):
    """A module run in process runs alone in its play, whatever processes surround pytest (reads.play_tasks)."""
    monkeypatch.setattr(reads, 'play_tasks', lambda: 1)


# The harness ------------------------------------------------------------------------------------------------


class Runaway(BaseException):
    """A module run that does not stop: more requests, or more sleep, than any case needs (a BaseException, so that no
    module's own error handling takes it for an API failure). The test fails at once instead of running on."""


REQUESTS_AT_MOST = 200  # in one test (the most any case sends is 102)
SLEEP_AT_MOST = 24 * 3600  # seconds of fake time slept in one test


class FakeClock:
    """Time that moves only when something sleeps or the test advances it. The simulator's Store
    and the collection's CLOCK read the same instance; sleeps lists what the collection slept."""

    def __init__(self, start=START):
        self.now = start
        self.sleeps = []
        self.slept = 0

    def time(self):
        return self.now

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.slept += seconds
        if self.slept > SLEEP_AT_MOST:
            raise Runaway('the module slept more than %d s of fake time' % SLEEP_AT_MOST)
        self.advance(seconds)

    def advance(self, seconds):
        self.now += seconds


class InProcessSimulator(AdminCalls):
    """The simulator's Store and dispatch() without a socket, at url. answer() turns a request of the
    client's Connection into what the HTTP server would have sent, faults included: a ``reset`` raises
    ConnectionFailed (reached); a ``delay`` moves the clock (by api_timeout at most) and, when longer than
    the timeout, raises ConnectionFailed (a timeout, reached) after the request was applied (its answer
    is lost). A request to any other address fails as an unknown host does, and reaches nothing."""

    url = SIM_URL

    def __init__(self, clock):
        self.clock = clock
        self.store = Store(clock=clock)
        self.scripted = []
        self.scheduled = []
        self.answered = 0

    def admin(self, method, path, body=None):
        raw = b'' if body is None else json.dumps(body).encode('utf-8')
        response = server.dispatch(self.store, server.Request(method, '/_admin/' + path.lstrip('/'), {}, raw))
        assert response.status == 200, response.body
        return json.loads(response.body)

    def script(self, *failures):
        """The next requests fail with these exceptions before they reach the simulator: what it cannot
        produce itself, such as a TLS or DNS failure."""
        self.scripted.extend(failures)

    def later(self, seconds, kind, object_id, changes):
        """Edit a service or pipe directly once the clock has moved on by seconds (as seen by the next request)."""
        self.scheduled.append((self.clock.now + seconds, kind, object_id, changes))

    def find(self, kind, object_id):
        """One object of the state ('services', 'pipes', ...), as the simulator holds it."""
        return next(item for item in self.state()[kind] if item['id'] == object_id)

    def named(self, kind, name):
        """The objects of the state of that name."""
        return [item for item in self.state()[kind] if item.get('name') == name]

    def writes(self):
        """The entries of the request log that change something (a chart query is a POST that does not)."""
        return [entry for entry in self.requests() if entry['method'] != 'GET' and not entry['path'].endswith('/charts/series')]

    def answer(self, connection, method, target, headers, body):
        self.answered += 1
        if self.answered > REQUESTS_AT_MOST:
            raise Runaway('the module sent more than %d requests' % REQUESTS_AT_MOST)
        if self.scripted:
            raise self.scripted.pop(0)
        _refuse_other_hosts(connection)
        self._apply_scheduled()
        lost = []

        def pause(seconds):
            waited = seconds if connection.timeout is None else min(seconds, connection.timeout)
            self.clock.advance(waited)
            if waited < seconds:
                lost.append(seconds)

        # the headers as the HTTP server reads them (case-insensitive)
        response = server.dispatch(self.store, server.Request(method, target, _message(headers), body or b''), pause)
        if response is None:
            raise connection_failure('Connection aborted: [Errno 104] Connection reset by peer', reached=True)
        if lost:
            raise connection_failure('timed out', reached=True, timeout=True)
        return response.status, _message(dict(response.headers, **{'Content-Type': response.content_type})), response.body

    def _apply_scheduled(self):
        due = [item for item in self.scheduled if item[0] <= self.clock.now]
        for item in due:
            self.scheduled.remove(item)
            self.edit(*item[1:])


def _message(headers):
    """Headers as http.client and http.server hold them: an email Message, its names case-insensitive."""
    message = email.message.Message()
    for name, value in headers.items():
        message[name] = str(value)
    return message


def _refuse_other_hosts(connection):
    simulator = urlsplit(SIM_URL)
    if (connection.https, connection.host, connection.port) != (simulator.scheme == 'https', simulator.hostname, simulator.port or 80):
        raise connection_failure("Failed to resolve '%s' ([Errno -2] Name or service not known; only %s answers here)"
                                 % (connection.host, SIM_URL), reached=False, unresolved=True)


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    patch_clock(monkeypatch, fake)
    return fake


@pytest.fixture
def sim(monkeypatch, tmp_path, clock):
    simulator = InProcessSimulator(clock)
    patch_transport(monkeypatch, simulator)
    # Whatever a module run keeps per user (under HOME or the XDG directories) goes into the test's own directory: no
    # test reads or leaves state on the machine, and tests do not see each other's.
    for name, sub in (('HOME', 'home'), ('XDG_CACHE_HOME', 'cache'), ('XDG_RUNTIME_DIR', 'runtime')):
        (tmp_path / sub).mkdir(mode=0o700)
        monkeypatch.setenv(name, str(tmp_path / sub))
    return simulator


# Module cases ------------------------------------------------------------------------------------

CASE_KEYS = frozenset(('args', 'check', 'diff', 'config', 'edits', 'later', 'faults', 'requests', 'result', 'absent', 'fails',
                       'sleeps', 'verify', 'then', 'module'))


class ModuleRun:
    """Runs a module's main() in process with the simulator's connection options and checks a case:

      args      the module's arguments (the connection options of both APIs are added; OMIT leaves one out)
      check, diff                       check mode, diff mode
      config, edits, later, faults      the simulator first: config keys; direct edits
                                        [(kind, id, changes)]; edits once the clock has moved on
                                        [(seconds, kind, id, changes)]; fault specs
      requests  required: what the simulator's log must hold, in order: (method, path[?query][, body])
      result    {key: value} the result must hold; a dotted key reaches into it ('service.state')
      absent    keys the result must not have
      fails     None: the run succeeds; else a text its failure message holds
      sleeps    what the collection slept (CLOCK.sleep), in order
      verify    a predicate verify(result, sim) that must hold: what data cannot say
      then      the next step (the same keys, and module), on the simulator as this one left it

    Every run: no secret of the fixture in anything the module printed. Returns the last result."""

    def __init__(self, sim, capsys):
        self.sim, self.capsys = sim, capsys

    def __call__(self, module, args=None, **case):
        unknown = set(case) - CASE_KEYS
        assert not unknown, 'unknown case keys: %s' % ', '.join(sorted(unknown))
        assert 'requests' in case, 'a case states the requests it expects (requests=[] for none)'
        self.prepare(case)
        result = self.main(module, args or {}, case.get('check', False), case.get('diff', False))
        self.check(result, case)
        then = dict(case.get('then') or {})
        return self(then.pop('module', module), **then) if then else result

    def prepare(self, case):
        sim = self.sim
        if case.get('config'):
            sim.config(**case['config'])
        for kind, object_id, changes in case.get('edits', ()):
            sim.edit(kind, object_id, changes)
        for seconds, kind, object_id, changes in case.get('later', ()):
            sim.later(seconds, kind, object_id, changes)
        sim.faults(*case.get('faults', ()))
        sim.clear_requests()
        del sim.clock.sleeps[:]

    def main(self, module, args, check, diff):
        full = dict(fixture_ids.cloud_connection(SIM_URL), **fixture_ids.observability_connection(SIM_URL))
        full.update(args)
        full = dict((name, value) for name, value in full.items() if value != OMIT)
        full.update(_ansible_check_mode=check, _ansible_diff=diff)
        runaway = None
        with patch_module_args(full), module_process():
            try:
                with pytest.raises(SystemExit):
                    module.main()
            except Runaway as error:
                runaway = '%s: %s' % (module.__name__.rsplit('.', 1)[-1], error)
        if runaway:  # failed here, outside the handler: its chain of exceptions may be hundreds deep
            pytest.fail(runaway, pytrace=False)
        out = self.capsys.readouterr().out
        assert not leaks(out)
        return json.loads(out)

    def check(self, result, case):
        expected = per_api(case['requests'], lambda item: item[1])
        assert logged(per_api(self.sim.requests(), lambda entry: entry['path']), expected) == expected
        if case.get('fails') is None:
            assert not result.get('failed'), result.get('msg')
        else:
            assert result.get('failed') is True, result
            assert case['fails'] in result['msg']
        for key, value in (case.get('result') or {}).items():
            assert lookup(result, key) == value, key
        for key in case.get('absent', ()):
            assert key not in result, key
        if 'sleeps' in case:
            assert self.sim.clock.sleeps == case['sleeps']
        if case.get('verify'):
            assert case['verify'](result, self.sim), 'verify(result, sim) does not hold'


def per_api(requests, path):
    """The cloud API's requests, then the observability API's, each in its order (a module that uses both, the organization,
    reads the two at once)."""
    return sorted(requests, key=lambda item: path(item).startswith('/api/'))


def logged(log, expected):
    """The log entries in the shape of the expected ones: (method, path[?query]) or with the body."""
    shapes = [len(item) for item in expected] + [2] * (len(log) - len(expected))
    return [(entry['method'], entry['path'] + ('?' + urlencode(entry['query'], doseq=True) if entry['query'] else ''))
            + ((entry['body'],) if size == 3 else ()) for entry, size in zip(log, shapes)]


def seconds(entry):
    """When a request of the simulator's log came, in seconds since the epoch."""
    return calendar.timegm(time.strptime(entry['time'][:19], '%Y-%m-%dT%H:%M:%S')) + float(entry['time'][19:-1] or 0)


def lookup(result, dotted):
    """result['a']['b'] for 'a.b' (a key that itself holds dots is found whole first); list indexes are digits."""
    if isinstance(result, dict) and dotted in result:
        return result[dotted]
    head, dummy, rest = dotted.partition('.')
    value = result[int(head)] if isinstance(result, list) else result[head]
    return lookup(value, rest) if rest else value


@pytest.fixture
def run(sim, capsys):
    return ModuleRun(sim, capsys)


def pytest_generate_tests(metafunc):
    """A test that takes a ``case`` runs once for every entry of its file's CASES ({id: case})."""
    cases = getattr(metafunc.module, 'CASES', None)
    if 'case' in metafunc.fixturenames and cases is not None:
        metafunc.parametrize('case', list(cases.values()), ids=list(cases))


def pytest_collection_finish(session):
    """Importing controller code (what the inventory and lookup tests import) marks the whole process
    as the controller, and a module run in such a process sends its deprecations to the display
    instead of its result. A module never runs in the controller's process: the mark is taken back
    once every test file is imported, and set only for the tests that use `controller`."""
    if _internal is not None:
        _internal.is_controller = False


@contextlib.contextmanager
def module_process():
    """A module's run, also within a test of a plugin (that compares with a module): not the controller. It starts
    without the warnings of earlier runs (a module process warns only of its own run)."""
    module_warnings._global_warnings.clear()
    if _internal is None:
        yield
        return
    controller_process, _internal.is_controller = _internal.is_controller, False
    try:
        yield
    finally:
        _internal.is_controller = controller_process


@pytest.fixture
def controller(monkeypatch):
    """The controller's process, for the test of an inventory or lookup plugin."""
    if _internal is not None:
        monkeypatch.setattr(_internal, 'is_controller', True)


WARNING = '[WARNING]: '


@pytest.fixture
def shown_warnings(capsys, monkeypatch):
    """shown_warnings(): the warnings Ansible's display printed since the last call or module run (the
    plugins warn through it), without their prefix. The display shows a warning once per process;
    here it forgets the warnings of earlier tests. Before 2.19 the display wraps a warning at its
    width (columns) and keeps the warnings shown in a dict, not a set."""
    display = Display()
    monkeypatch.setattr(display, '_warns', type(display._warns)())
    monkeypatch.setattr(display, 'columns', 1 << 20, raising=False)

    def shown():
        return [line[len(WARNING):] for line in capsys.readouterr().err.splitlines() if line.startswith(WARNING)]
    return shown


@pytest.fixture(autouse=True)
def pacing_directory(tmp_path, monkeypatch):
    directory = tmp_path / 'pacing'
    monkeypatch.setenv('ENGINE_CLOUD_PACING_DIR', str(directory))
    return directory


def pytest_configure(config):
    """`ansible-test units` runs every test in a fork of its own (its ansible_forked plugin). These tests need
    no such isolation: each has its own fake clock, simulator and pacing directory, and make units runs them
    in one process. In a fork each test also set up its module-scoped fixtures again: on the artifact,
    ansible-test units took about twice the CPU time of pytest (88 CPU-s against 45)."""
    forked = config.pluginmanager.get_plugin('ansible_forked')
    if forked is not None:
        config.pluginmanager.unregister(forked)
