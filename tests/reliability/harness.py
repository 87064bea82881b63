# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Machinery of the reliability suite: real ansible-playbook runs of a layout copy of the
collection (and runs of its modules without ansible-playbook, module_runner.py), the outputs of every run (for the secrets scan) and the counts that
docs/reliability.md is written from. Its private simulators are tests/simulator/process.py's."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys
import threading
import time

from tests.simulator.fixture_ids import cloud_connection, observability_connection

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Run:
    """One finished ansible-playbook run and everything it printed or recorded."""

    def __init__(self, name, directory, rc, stdout, stderr, seconds):
        self.name, self.directory, self.rc, self.stdout, self.stderr, self.seconds = name, directory, rc, stdout, stderr, seconds
        self.events = _load(os.path.join(directory, 'callback.json'), [])
        self.registered = _load(os.path.join(directory, 'registered.json'), {})

    def outputs(self):
        """(label, text) of every channel the secrets scan reads."""
        yield 'stdout', self.stdout
        yield 'stderr', self.stderr
        yield 'json callback', _read(os.path.join(self.directory, 'callback.json'))
        yield 'registered results', _read(os.path.join(self.directory, 'registered.json'))

    def explain(self):
        return '%s: rc=%s in %s\n--- stdout (tail)\n%s\n--- stderr (tail)\n%s' % (
            self.name, self.rc, self.directory, self.stdout[-4000:], self.stderr[-3000:])


def _read(path):
    try:
        with open(path, encoding='utf-8') as handle:
            return handle.read()
    except IOError:
        return ''


def _load(path, default):
    text = _read(path)
    return json.loads(text) if text else default


class Ansible:
    """Runs playbooks against a layout copy of the collection; keeps every run for the scan."""

    def __init__(self, basedir, collections_path):
        self.basedir = basedir
        self.collections_path = collections_path
        self.runs = []
        self._lock = threading.Lock()
        self._counter = 0
        with open(os.path.join(basedir, 'ansible.cfg'), 'w') as handle:
            # A task's result is looked for every 10 ms, not every 1 ms (tests/integration/integration.cfg says why).
            handle.write('[defaults]\ninternal_poll_interval = 0.01\n')
        self.localhost = os.path.join(basedir, 'localhost.ini')
        with open(self.localhost, 'w') as handle:
            handle.write('localhost ansible_connection=local ansible_python_interpreter=%s\n' % sys.executable)

    def playbook(self, name, plays, inventory=None, check=False, diff=True, verbosity=3, env=None, forks=None, timeout=900):
        """Write plays (a list of dicts) as a playbook, run it, return the Run."""
        directory = self._directory(name)
        playbook = os.path.join(directory, 'playbook.yml')
        with open(playbook, 'w') as handle:
            json.dump(plays, handle, indent=1)
        command = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), '-i', inventory or self.localhost, playbook]
        if verbosity:
            command.append('-' + 'v' * verbosity)
        if check:
            command.append('--check')
        if diff:
            command.append('--diff')
        environment = clean_environment()
        # Ansible's defaults otherwise, as users run it; pipelining among them stays off. (It took 15 % more
        # CPU per task here only because this machine sets PYTHONUNBUFFERED=1, with which Python reads a
        # module on stdin one byte per read(2): docs/performance.md, "Pipelining and PYTHONUNBUFFERED".)
        environment.update({
            'ANSIBLE_CONFIG': os.path.join(self.basedir, 'ansible.cfg'),
            'ANSIBLE_COLLECTIONS_PATH': self.collections_path,
            'ANSIBLE_ACTION_PLUGINS': os.path.join(HERE, 'action_plugins'),
            'ANSIBLE_CALLBACK_PLUGINS': os.path.join(HERE, 'callback_plugins'),
            'ANSIBLE_CALLBACKS_ENABLED': 'reliability_json',
            'RELIABILITY_JSON': os.path.join(directory, 'callback.json'),
            'RELIABILITY_DIR': directory,
            'ANSIBLE_NOCOLOR': '1',
            'ANSIBLE_LOCALHOST_WARNING': 'false',
            'ANSIBLE_INVENTORY_UNPARSED_WARNING': 'false',
            'ANSIBLE_RETRY_FILES_ENABLED': 'false',
            'ANSIBLE_LOCAL_TEMP': os.path.join(directory, 'tmp-local'),
            'ANSIBLE_REMOTE_TEMP': os.path.join(directory, 'tmp-remote'),
            'ANSIBLE_DEPRECATION_WARNINGS': 'true',
            'ENGINE_CLOUD_PACING_DIR': os.path.join(self.basedir, 'pacing'),
            'NO_PROXY': '127.0.0.1,localhost',
            'no_proxy': '127.0.0.1,localhost',
        })
        if forks:
            environment['ANSIBLE_FORKS'] = str(forks)
        environment.update(env or {})
        return self._run(name, directory, command, environment, timeout)

    def modules(self, name, cases, env=None, timeout=300):
        """Run modules without ansible-playbook (module_runner.py): cases is a list of
        {key, module, args}; the Run's registered results hold {key: {'result': ...}}."""
        directory = self._directory(name)
        cases_path = os.path.join(directory, 'cases.json')
        with open(cases_path, 'w') as handle:
            json.dump(cases, handle, indent=1)
        environment = clean_environment()
        environment.update({'PYTHONPATH': self.collections_path, 'ENGINE_CLOUD_PACING_DIR': os.path.join(self.basedir, 'pacing'),
                            'NO_PROXY': '127.0.0.1,localhost', 'no_proxy': '127.0.0.1,localhost'})
        environment.update(env or {})
        command = [sys.executable, os.path.join(HERE, 'module_runner.py'), cases_path, os.path.join(directory, 'registered.json')]
        return self._run(name, directory, command, environment, timeout)

    def _directory(self, name):
        with self._lock:
            self._counter += 1
            directory = os.path.join(self.basedir, '%03d-%s' % (self._counter, name))
        os.makedirs(directory)
        return directory

    def _run(self, name, directory, command, environment, timeout):
        started = time.monotonic()
        try:
            process = subprocess.run(command, cwd=directory, env=environment, capture_output=True, text=True, timeout=timeout, check=False)
            rc, stdout, stderr = process.returncode, process.stdout, process.stderr
        except subprocess.TimeoutExpired as error:
            rc, stdout, stderr = 'timeout', error.stdout or '', error.stderr or ''
            stdout = stdout.decode('utf-8', 'replace') if isinstance(stdout, bytes) else stdout
            stderr = stderr.decode('utf-8', 'replace') if isinstance(stderr, bytes) else stderr
        seconds = time.monotonic() - started
        for channel, text in (('stdout', stdout), ('stderr', stderr)):
            with open(os.path.join(directory, channel + '.txt'), 'w', encoding='utf-8') as handle:
                handle.write(text)
        run = Run(name, directory, rc, stdout, stderr, seconds)
        with self._lock:
            self.runs.append(run)
        return run


def clean_environment():
    """This process's environment without the settings a run must not inherit from the caller."""
    environment = dict(os.environ)
    for key in list(environment):
        if key.startswith(('ANSIBLE_', 'ENGINE_')) or key in ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'):
            del environment[key]
    return environment


def credentials(sim_url):
    """module_defaults pointing every module of the collection at one simulator.

    Each API's group gets its own options here; test_secrets.py also runs both sets in group/engine.cloud.all."""
    return {'group/engine.cloud.cloud': cloud_connection(sim_url), 'group/engine.cloud.observability': observability_connection(sim_url)}


def play(name, tasks, hosts='localhost', sim_url=None, **extra):
    """One play: no facts, credentials for the collection's modules from module_defaults."""
    result = dict(name=name, hosts=hosts, gather_facts=False, tasks=tasks)
    if sim_url:
        result['module_defaults'] = credentials(sim_url)
    result.update(extra)
    return result


class Counts:
    """What the suite measured, saved as JSON and rendered into docs/reliability.md."""

    def __init__(self):
        self.lock = threading.Lock()
        self.data = {}

    def add(self, section, key, value=1):
        with self.lock:
            bucket = self.data.setdefault(section, {})
            bucket[key] = bucket.get(key, 0) + value

    def set(self, section, key, value):
        with self.lock:
            self.data.setdefault(section, {})[key] = value
