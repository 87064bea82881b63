# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Machinery of the reliability suite: private simulators, real ansible-playbook runs of a
layout copy of the collection, the outputs of every run (for the secrets scan) and the counts
that docs/reliability.md is written from."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The simulator fixture (CONTRIBUTING.md). The secrets are what the scan looks for.
ORG = '7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f'
KEY_ID = 'sim-key-id'
KEY_SECRET = 'sim-key-secret-4f9a8e7d'
TOKEN = 'sim-obs-token-2b7c1d9e'
CONNECTION_STRING = ('DefaultEndpointsProtocol=https;AccountName=simacct;AccountKey=c2ltLXNlY3JldC1kby1ub3QtbGVhaw==;'
                     'EndpointSuffix=core.windows.net')
PROD = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51'
DEV = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e52'
PIPE_KAFKA = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61'
PIPE_OBJECT_STORAGE = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c62'
RPE = '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d81'
DASHBOARD = '65a1b2c3d4e5f60718293a4b'
SOURCE = '65b000000000000000000001'

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_UNVERIFIED = ssl.create_default_context()
_UNVERIFIED.check_hostname = False
_UNVERIFIED.verify_mode = ssl.CERT_NONE


def admin_call(base_url, method, path, body=None, timeout=30):
    """One call to a simulator's admin interface; returns the parsed JSON answer."""
    data = None if body is None else json.dumps(body).encode('utf-8')
    request = urllib.request.Request(base_url.rstrip('/') + path, data=data, method=method,
                                     headers={'Content-Type': 'application/json'})
    handlers = [urllib.request.ProxyHandler({})]
    if base_url.startswith('https:'):
        handlers.append(urllib.request.HTTPSHandler(context=_UNVERIFIED))
    with urllib.request.build_opener(*handlers).open(request, timeout=timeout) as response:
        return json.loads(response.read().decode('utf-8') or 'null')


class Simulator:
    """A private simulator process on a free port of 127.0.0.1 (never shared with other tests)."""

    def __init__(self, workdir, fixtures=None, tls=None, rate_limit=False):
        self.workdir = workdir
        os.makedirs(workdir, exist_ok=True)
        port_file = os.path.join(workdir, 'simulator.port')
        command = [sys.executable, '-m', 'tests.simulator', '--host', '127.0.0.1', '--port', '0',
                   '--port-file', port_file, '--quiet', '--transition-delay', '0']
        if fixtures:
            command += ['--fixtures', fixtures]
        if tls:
            command += ['--tls-cert', tls[0], '--tls-key', tls[1]]
        if rate_limit:
            command.append('--rate-limit')
        self.log = open(os.path.join(workdir, 'simulator.log'), 'w')
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        scheme = 'https' if tls else 'http'
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise RuntimeError('simulator exited with %s; see %s' % (self.process.returncode, self.log.name))
            if os.path.exists(port_file):
                with open(port_file) as handle:
                    text = handle.read().strip()
                if text:
                    self.url = '%s://127.0.0.1:%s' % (scheme, text)
                    try:
                        self.admin('GET', '/config', timeout=2)
                        break
                    except OSError:
                        pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError('simulator did not answer within 30 s')
            time.sleep(0.1)

    @property
    def admin_url(self):
        return self.url + '/_admin'

    def admin(self, method, path, body=None, timeout=30):
        return admin_call(self.admin_url, method, path, body, timeout)

    def requests(self):
        return self.admin('GET', '/requests')['requests']

    def state(self):
        return self.admin('GET', '/state')

    def stop(self):
        """Stop the process this object started (by its own pid only)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


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
            handle.write('[defaults]\n')
        self.localhost = os.path.join(basedir, 'localhost.ini')
        with open(self.localhost, 'w') as handle:
            handle.write('localhost ansible_connection=local ansible_python_interpreter=%s\n' % sys.executable)

    def playbook(self, name, plays, inventory=None, check=False, diff=True, verbosity=3, env=None, forks=None, timeout=900):
        """Write plays (a list of dicts) as a playbook, run it, return the Run."""
        with self._lock:
            self._counter += 1
            directory = os.path.join(self.basedir, '%03d-%s' % (self._counter, name))
        os.makedirs(directory)
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
        environment = dict(os.environ)
        for key in list(environment):
            if key.startswith(('ANSIBLE_', 'ENGINE_')) or key in ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'):
                del environment[key]
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
            'ANSIBLE_PIPELINING': 'true',
            'ENGINE_CLOUD_PACING_DIR': os.path.join(self.basedir, 'pacing'),
            'NO_PROXY': '127.0.0.1,localhost',
            'no_proxy': '127.0.0.1,localhost',
        })
        if forks:
            environment['ANSIBLE_FORKS'] = str(forks)
        environment.update(env or {})
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


def credentials(sim_url):
    """module_defaults pointing every module of the collection at one simulator.

    Each API's group gets its own options here; test_secrets.py also runs both sets in group/engine.cloud.all."""
    return {
        'group/engine.cloud.cloud': {'api_url': sim_url, 'api_key_id': KEY_ID, 'api_key_secret': KEY_SECRET, 'organization_id': ORG},
        'group/engine.cloud.observability': {'observability_url': sim_url, 'api_token': TOKEN},
    }


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
