# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The suite's jobs: each starts its own simulator, runs one generated playbook (or, for the fault
matrix and the bad inputs, the modules in one process: module_runner.py) and keeps what the tests
assert on. Jobs run in a thread pool (most of their time is spent in retry waits), so the whole
suite takes about as long as its longest job."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import concurrent.futures
import copy
import datetime
import json
import os
import subprocess
import sys
import threading
import time

import cases
from harness import ROOT, Ansible, Counts, credentials, play
from tests.simulator.fixture_ids import FIXTURES_PATH, KEY_SECRET, PIPE_OBJECT_STORAGE, SERVICE_DEV, TOKEN
from tests.certificates import self_signed
from tests.simulator.process import SimulatorProcess

LOAD_HOSTS = 50
# Fifty hosts on one key's 10 requests / 10 s, with the default api_retries: the modules pace their
# requests together (module_utils/pacer.py), at 10 forks and at 50.
LOAD_FORKS = (10, 50)
WRONG_SECRET = 'sim-key-secret-WRONG-7c3b91'
WRONG_TOKEN = 'sim-obs-token-WRONG-5e8a02'
# The token as `echo ... | ansible-vault encrypt_string` gives it (a newline at the end), and with a line break inside.
NEWLINE_TOKEN = TOKEN + '\n'
BROKEN_TOKEN = TOKEN[:len(TOKEN) // 2] + '\n' + TOKEN[len(TOKEN) // 2:]
VOLATILE = ('updatedAt', '_pending')


def admin_task(sim, name, **args):
    return {'name': name, 'sim_admin': dict(args, url=sim.admin_url)}


def module_task(module, args, register, name=None):
    return {'name': name or 'Run %s' % module.name, module.fqcn: args, 'register': register, 'ignore_errors': True}


def resource(snapshot, kind, object_id):
    """One service or pipe out of a GET /_admin/state snapshot, without its volatile fields."""
    for item in snapshot[kind]:
        if item['id'] == object_id:
            return dict((key, value) for key, value in item.items() if key not in VOLATILE)
    raise KeyError(object_id)


def parse_time(stamp):
    return datetime.datetime.strptime(stamp, '%Y-%m-%dT%H:%M:%S.%fZ')


class Outcome:
    """What one case left behind: the registered result, the request log, the state snapshot."""

    def __init__(self, run, result, log, snapshot=None):
        self.run, self.result, self.log, self.snapshot = run, result, log, snapshot


class Suite:
    def __init__(self, basedir):
        self.basedir = basedir
        self.started = time.monotonic()
        collections = os.path.join(basedir, 'collections')
        subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT,
                        os.path.join(collections, 'ansible_collections', 'engine', 'cloud')], check=True, capture_output=True)
        self.ansible = Ansible(basedir, collections)
        self.counts = Counts()
        # Most jobs spend their time in retry waits and timeouts (the fault matrix needs 1 CPU-s a minute
        # of them), so they all run at once: the suite takes as long as its longest job.
        workers = int(os.environ.get('RELIABILITY_WORKERS', '64'))
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
        self.jobs = {}
        self.lock = threading.Lock()
        self.simulator_names = set()
        self.starting = threading.Semaphore(2)
        self.load_enabled = os.environ.get('RELIABILITY_LOAD', '1') != '0'

    # --- scheduling ---------------------------------------------------------------------------

    def _job(self, key, function, *args):
        if key not in self.jobs:
            self.jobs[key] = self.pool.submit(function, *args)
        return self.jobs[key]

    def start_all(self):
        """Submit every job, longest first."""
        if self.load_enabled:
            for forks in LOAD_FORKS:
                self._job(('load', forks), self._load, forks)
        for module in cases.MODULES:
            self._job(('faults', module.name, 'read'), self._faults, module, 'read')
        for module in cases.FAULTED_WRITES:
            self._job(('faults', cases.label(module), 'write'), self._faults, module, 'write')
        for module in cases.MODULES:
            self._job(('bad', module.name), self._bad_inputs, module)
        self._job('lost_creates', self._lost_creates)
        self._job('tls', self._tls)
        self._job('lifecycle', self._lifecycle)
        self._job('check', self._check_mode)
        self._job('planted', self._planted)
        self._job('group_all', self._group_all)

    def result(self, key):
        if key not in self.jobs:
            function = dict(tls=self._tls, check=self._check_mode, planted=self._planted, group_all=self._group_all,
                            lifecycle=self._lifecycle, lost_creates=self._lost_creates)
            if isinstance(key, tuple) and key[0] == 'load':
                self._job(key, self._load, key[1])
            elif isinstance(key, tuple) and key[0] == 'faults':
                self._job(key, self._faults, cases.BY_LABEL[key[1]], key[2])
            elif isinstance(key, tuple):
                self._job(key, self._bad_inputs, cases.BY_NAME[key[1]])
            else:
                self._job(key, function[key])
        return self.jobs[key].result()

    def wait_all(self):
        self.start_all()
        return dict((key, future.result()) for key, future in self.jobs.items())

    def directory(self, name):
        path = os.path.join(self.basedir, 'sim-' + name)
        os.makedirs(path, exist_ok=True)
        return path

    def simulator(self, name, **options):
        """A started private simulator in directory(name); state changes settle at once. Jobs run side
        by side, so each simulator needs a name of its own: two in one directory share a port file,
        and one job would talk to (and stop) the other's simulator."""
        with self.lock:
            if name in self.simulator_names:
                raise ValueError('a second simulator named %r' % name)
            self.simulator_names.add(name)
        # All jobs start at once: two simulators start at a time (a start is CPU-bound, and fifty of them
        # at once on a loaded machine would not answer within the launcher's start timeout).
        with self.starting:
            return SimulatorProcess(self.directory(name), transition_delay=0, **options).start()

    # --- faults ---------------------------------------------------------------------------------

    def _faults(self, module, target):
        """Every fault case of one module on its read or write, each on a fresh state, in one process
        (module_runner.py: the module's own code under test, without ansible-playbook's cost)."""
        name = '%s-%s' % (cases.label(module).replace(' ', '-'), target)
        sim = self.simulator('faults-' + name)
        try:
            connection = credentials(sim.url)['group/engine.cloud.' + module.api]
            runs = []
            if target == 'write':
                runs.append(dict(key='reference', module=module.name, args=fault_run_args(connection, module.args), admin_url=sim.admin_url,
                                 before=[dict(reset={}), dict(snapshot='initial.json')], after=[dict(snapshot='reference.json')]))
            for case in cases.fault_cases(module, target):
                runs.append(dict(key=case.key, module=module.name, args=fault_run_args(connection, case.args()), admin_url=sim.admin_url,
                                 before=[dict(reset={}, faults=[case.spec()])],
                                 after=[dict(requests=True, snapshot=(case.key + '.json') if target == 'write' else None)]))
            return self.ansible.modules('faults-' + name, runs)
        finally:
            sim.stop()

    def fault_outcome(self, case):
        run = self.result(('faults', cases.label(case.module), case.target))
        entry = run.registered.get(case.key)
        if entry is None:
            raise AssertionError('no result for %s\n%s' % (case.key, run.explain()))
        snapshot = None
        if case.target == 'write':
            snapshot = _load_json(os.path.join(run.directory, case.key + '.json'))
        return Outcome(run, entry['result'], entry['log'], snapshot)

    def write_reference(self, module):
        run = self.result(('faults', cases.label(module), 'write'))
        kind, object_id = module.resource
        initial = resource(_load_json(os.path.join(run.directory, 'initial.json')), kind, object_id)
        reference = resource(_load_json(os.path.join(run.directory, 'reference.json')), kind, object_id)
        return initial, reference, run.registered['reference']['result']

    # --- the lifecycle of a service ----------------------------------------------------------------

    def _lifecycle(self):
        """One playbook: every case of cases.LIFECYCLE_CASES (each kind's module) on a fresh state, its log and state kept."""
        return self._one_by_one('lifecycle', 'The lifecycle of each kind of resource', cases.LIFECYCLE_CASES,
                                lambda case: dict(reset=case.config, edits=case.edits, faults=case.faults),
                                lambda case: (cases.BY_NAME[case.kind.module], case.args))

    def lifecycle_outcome(self, case):
        return self._case_outcome('lifecycle', case)

    # --- a create whose answer is lost ------------------------------------------------------------

    def _lost_creates(self):
        """One playbook: each lost-create case on a fresh state; its log and the state after it are kept."""
        return self._one_by_one('lost-creates', 'Lost create answers', cases.LOST_CREATES,
                                lambda case: dict(reset={}, faults=[case.spec()]), lambda case: (case.module, case.run_args()))

    def lost_create_outcome(self, case):
        return self._case_outcome('lost_creates', case)

    def _one_by_one(self, name, title, case_list, arming, running):
        """One playbook of cases, each armed on a fresh state (arming(case): the admin call's arguments) and
        run (running(case): the module and its arguments); each case's log and the state after it are kept."""
        sim = self.simulator(name)
        try:
            tasks, names, previous = [], {}, None
            for case in case_list:
                arm = admin_task(sim, 'Arm %s' % case.key, **arming(case))
                if previous:
                    arm['sim_admin'].update(requests=True, snapshot=previous.key + '.json')
                    arm['register'] = 'l_' + previous.key
                module, args = running(case)
                tasks += [arm, module_task(module, args, 'r_' + case.key, 'Run %s' % case.key)]
                names[case.key] = "{'result': r_%s, 'log': l_%s.requests}" % (case.key, case.key)
                previous = case
            tasks.append(dict(admin_task(sim, 'Read the log of %s' % previous.key, requests=True, snapshot=previous.key + '.json'),
                              register='l_' + previous.key))
            tasks.append(dump_task_raw(sim, names))
            return self.ansible.playbook(name, [play(title, tasks, sim_url=sim.url)])
        finally:
            sim.stop()

    def _case_outcome(self, job, case):
        run = self.result(job)
        entry = run.registered.get(case.key)
        if entry is None:
            raise AssertionError('no result for %s\n%s' % (case.key, run.explain()))
        return Outcome(run, entry['result'], entry['log'], _load_json(os.path.join(run.directory, case.key + '.json')))

    # --- bad input --------------------------------------------------------------------------------

    def _bad_inputs(self, module):
        """Every bad input of one module, run without ansible-playbook (module_runner.py) against a
        simulator of its own: nothing may be sent by any case, and one read of the log after all of
        them proves it for each."""
        sim = self.simulator('bad-%s' % module.name)
        try:
            connection = credentials(sim.url)['group/engine.cloud.' + module.api]
            runs = [dict(key=case.key, module=module.name, args=dict(connection, **case.args)) for case in cases.bad_inputs(module)]
            run = self.ansible.modules('bad-input-%s' % module.name, runs)
            log = sim.requests()
        finally:
            sim.stop()
        for entry in run.registered.values():
            entry['log'] = log
        return run

    def bad_outcome(self, case):
        run = self.result(('bad', case.module.name))
        entry = run.registered.get(case.key)
        if entry is None:
            raise AssertionError('no result for %s\n%s' % (case.key, run.explain()))
        return Outcome(run, entry['result'], entry['log'])

    # --- TLS --------------------------------------------------------------------------------------

    def _tls(self):
        cert, key = self_signed(self.directory('tls'), 'engine-cloud-simulator')
        sim = self.simulator('tls', tls=(cert, key))
        try:
            runs = {}
            tasks = []
            for module in (cases.BY_NAME['service_info'], cases.BY_NAME['dashboard_info']):
                tasks += [module_task(module, dict(module.args, validate_certs=True, api_retries=1), 'verify_' + module.name,
                                      '%s verifies the self-signed certificate' % module.name),
                          module_task(module, dict(module.args, validate_certs=False), 'noverify_' + module.name,
                                      '%s without verification' % module.name)]
            tasks.append(dump_task_raw(sim, dict((name, name) for name in ('verify_service_info', 'noverify_service_info',
                                                                           'verify_dashboard_info', 'noverify_dashboard_info'))))
            runs['plain'] = self.ansible.playbook('tls', [play('TLS', tasks, sim_url=sim.url)])
            tasks = [module_task(module, dict(module.args, validate_certs=True), 'bundle_' + module.name,
                                 '%s with REQUESTS_CA_BUNDLE' % module.name)
                     for module in (cases.BY_NAME['service_info'], cases.BY_NAME['dashboard_info'])]
            tasks.append(dump_task_raw(sim, {'bundle_service_info': 'bundle_service_info', 'bundle_dashboard_info': 'bundle_dashboard_info'}))
            runs['bundle_env'] = self.ansible.playbook('tls-bundle-env', [play('TLS, CA bundle from the environment', tasks, sim_url=sim.url)],
                                                       env={'REQUESTS_CA_BUNDLE': cert})
            runs['bundle_play'] = self.ansible.playbook('tls-bundle-play', [play('TLS, CA bundle from the play environment', tasks, sim_url=sim.url,
                                                                                 environment={'REQUESTS_CA_BUNDLE': cert})])
            requests = sim.requests()
        finally:
            sim.stop()
        return runs, requests

    # --- check mode and the other secret-bearing paths -----------------------------------------------

    def _check_mode(self):
        """Every module in check mode with --diff -vvv, and the failure paths where a secret could surface."""
        sim = self.simulator('check')
        try:
            tasks, names = [admin_task(sim, 'Reset', reset={})], {}
            for module in cases.MODULES:
                names['check_' + module.name] = 'check_' + module.name
                tasks.append(module_task(module, module.args, 'check_' + module.name, '%s in check mode' % module.name))
            tasks.append(dict(admin_task(sim, 'Requests sent in check mode', requests=True, clear=True), register='check_log'))
            names['check_log'] = 'check_log.requests'
            pipe_info, dashboard = cases.BY_NAME['pipe_info'], cases.BY_NAME['dashboard_info']
            truncated = json.dumps({'status': 200, 'result': sim_pipe(sim)})
            truncated = truncated[:truncated.index('EndpointSuffix')]
            failures = [
                ('wrong_secret', pipe_info, dict(pipe_info.args, api_key_secret=WRONG_SECRET), None),
                ('wrong_token', dashboard, dict(dashboard.args, api_token=WRONG_TOKEN), None),
                ('newline_token', dashboard, dict(dashboard.args, api_token=NEWLINE_TOKEN), None),
                ('broken_token', dashboard, dict(dashboard.args, api_token=BROKEN_TOKEN), None),
                ('missing_pipe', pipe_info, dict(pipe_info.args, pipe_id='9a8b7c6d-5e4f-4a3b-9c2d-000000000000'), None),
                ('truncated_secret_body', pipe_info, dict(pipe_info.args, api_retries=0),
                 dict(kind='malformed_json', method='GET', path='/pipes/%s$' % PIPE_OBJECT_STORAGE, body=truncated)),
                ('secret_in_error_body', pipe_info, dict(pipe_info.args, api_retries=0),
                 dict(kind='status', status=500, method='GET', path='/pipes/%s$' % PIPE_OBJECT_STORAGE,
                      body=json.dumps({'status': 500, 'error': 'INTERNAL_SERVER_ERROR: ' + truncated}))),
                ('html_page', pipe_info, dict(pipe_info.args, api_retries=0), dict(kind='html', method='GET', path='/pipes/')),
            ]
            for name, module, args, fault in failures:
                if fault:
                    tasks.append(admin_task(sim, 'Arm %s' % name, faults=[fault]))
                tasks.append(module_task(module, args, 'fail_' + name, 'Failure path %s' % name))
                names['fail_' + name] = 'fail_' + name
            tasks.append(dump_task_raw(sim, names))
            check = self.ansible.playbook('check-mode', [play('Check mode and failure paths', tasks, sim_url=sim.url)], check=True)
            # The same failure paths outside check mode, and every writer for real with --diff.
            tasks = [admin_task(sim, 'Reset', reset={})]
            real_names = {}
            for module in cases.WRITERS:
                tasks.append(module_task(module, module.args, 'real_' + module.name, '%s for real' % module.name))
                real_names['real_' + module.name] = 'real_' + module.name
            tasks.append(dump_task_raw(sim, real_names))
            real = self.ansible.playbook('diff-mode', [play('Writes with --diff', tasks, sim_url=sim.url)])
        finally:
            sim.stop()
        return check, real

    def _planted(self):
        """A run that prints a secret on purpose: the scan must find it in every channel."""
        tasks = [{'name': 'Print the key secret on purpose', 'ansible.builtin.debug': {'msg': 'planted {{ planted_secret }}'},
                  'register': 'planted'},
                 {'name': 'Save the registered results', 'sim_admin': {'dump': '{{ {"planted": planted} }}', 'dump_name': 'registered'}}]
        return self.ansible.playbook('planted', [play('Planted secret', tasks, vars={'planted_secret': KEY_SECRET})])

    def _group_all(self):
        """Credentials of both APIs in group/engine.cloud.all, the way DESIGN.md describes it."""
        sim = self.simulator('group-all')
        try:
            tasks = [module_task(module, module.args, 'all_' + module.name, '%s with group/engine.cloud.all' % module.name)
                     for module in (cases.BY_NAME['service_info'], cases.BY_NAME['dashboard_info'])]
            tasks.append(dump_task_raw(sim, {'all_service_info': 'all_service_info', 'all_dashboard_info': 'all_dashboard_info'}))
            defaults = {'group/engine.cloud.all': dict(
                list(credentials(sim.url)['group/engine.cloud.cloud'].items()) + list(credentials(sim.url)['group/engine.cloud.observability'].items()))}
            return self.ansible.playbook('group-all', [play('Credentials in group/engine.cloud.all', tasks, module_defaults=defaults)])
        finally:
            sim.stop()

    # --- load -------------------------------------------------------------------------------------

    def _load(self, forks):
        directory = self.directory('load-forks-%d' % forks)
        fixtures = load_fixtures(directory, LOAD_HOSTS)
        sim = self.simulator('load-forks-%d' % forks, fixtures=fixtures['path'], rate_limit=True)
        try:
            inventory = os.path.join(directory, 'inventory.ini')
            with open(inventory, 'w') as handle:
                handle.write('[services]\n')
                for host, service_id in fixtures['hosts']:
                    handle.write('%s service_id=%s ansible_connection=local ansible_python_interpreter=%s\n'
                                 % (host, service_id, sys.executable))
            tasks = [{'name': 'Set the name and an IP access list entry of each service',
                      'engine.cloud.service': {'service_id': '{{ service_id }}', 'name': '{{ inventory_hostname }}-done',
                                               'ip_access_list': [{'source': '{{ load_source }}', 'description': 'load test'}]},
                      'register': 'load_result'}]
            config = sim.admin('GET', '/config')
            started = time.monotonic()
            run = self.ansible.playbook('load-forks-%d' % forks, [play('Load across %d services' % LOAD_HOSTS, tasks, hosts='services', sim_url=sim.url,
                                                                       vars={'load_source': "10.60.{{ groups['services'].index(inventory_hostname) }}.0/24"})],
                                        inventory=inventory, forks=forks, verbosity=1)
            seconds = time.monotonic() - started
            return dict(run=run, seconds=seconds, requests=sim.requests(), state=sim.state(), hosts=fixtures['hosts'], config=config)
        finally:
            sim.stop()


def fault_run_args(connection, args):
    """A fault case's module arguments as the playbooks ran them: the connection of module_defaults,
    --diff and -vvv."""
    return dict(connection, _ansible_diff=True, _ansible_verbosity=3, **args)


def dump_task_raw(sim, names):
    """The last task of a generated playbook: save the registered results (label -> expression)."""
    data = '{{ {%s} }}' % ', '.join("'%s': %s" % (label, expression) for label, expression in sorted(names.items()))
    return admin_task(sim, 'Save the registered results', dump=data, dump_name='registered')


def sim_pipe(sim):
    for pipe in sim.state()['pipes']:
        if pipe['id'] == PIPE_OBJECT_STORAGE:
            pipe.pop('_pending', None)
            return pipe
    raise KeyError(PIPE_OBJECT_STORAGE)


def load_fixtures(directory, count):
    """The simulator's fixtures plus count copies of the development service (ids ...1000000000NN)."""
    with open(FIXTURES_PATH) as handle:
        fixtures = json.load(handle)
    template = next(service for service in fixtures['services'] if service['id'] == SERVICE_DEV)
    hosts = []
    for index in range(1, count + 1):
        service = copy.deepcopy(template)
        service['id'] = '3f1c2d4e-5a6b-4c7d-8e9f-1%011d' % index
        service['name'] = 'load-%02d' % index
        service['state'] = 'running'
        fixtures['services'].append(service)
        hosts.append(('load-%02d' % index, service['id']))
    path = os.path.join(directory, 'fixtures.json')
    with open(path, 'w') as handle:
        json.dump(fixtures, handle)
    return dict(path=path, hosts=hosts)


def _load_json(path):
    with open(path) as handle:
        return json.load(handle)
