# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""End-to-end fixtures: a copy of the collection on a collections path, and a private simulator.

These tests run the collection as users and AWX do (ansible-playbook, ansible-runner), so they
need the tools of requirements-docs.txt (make e2e installs them)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import json
import os
import subprocess
import sys
import time

import pytest

try:
    from urllib.request import Request, urlopen
except ImportError:  # pragma: no cover - Python 2 is not a controller Python
    Request = urlopen = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The simulator fixture's credentials (CONTRIBUTING.md): test values, not secrets.
CREDENTIALS = dict(
    api_key_id='sim-key-id',
    api_key_secret='sim-key-secret-4f9a8e7d',
    organization_id='7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f',
    api_token='sim-obs-token-2b7c1d9e',
)
CONNECTION_STRING = ('DefaultEndpointsProtocol=https;AccountName=simacct;'
                     'AccountKey=c2ltLXNlY3JldC1kby1ub3QtbGVhaw==;EndpointSuffix=core.windows.net')


class Simulator(object):
    """A simulator process on a free port of 127.0.0.1, with the admin calls the tests need."""

    def __init__(self, workdir):
        port_file = os.path.join(workdir, 'simulator.port')
        self.log = open(os.path.join(workdir, 'simulator.log'), 'w')
        self.process = subprocess.Popen([sys.executable, '-m', 'tests.simulator', '--host', '127.0.0.1', '--port', '0',
                                         '--port-file', port_file, '--quiet'], cwd=ROOT, stdout=self.log, stderr=self.log)
        deadline = time.time() + 30
        while not (os.path.exists(port_file) and open(port_file).read().strip()):
            if self.process.poll() is not None or time.time() > deadline:
                self.stop()
                raise RuntimeError('the simulator did not start; see %s' % self.log.name)
            time.sleep(0.1)
        self.url = 'http://127.0.0.1:%s' % open(port_file).read().strip()

    def admin(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode('utf-8')
        request = Request(self.url + '/_admin' + path, data=data, method=method, headers={'Content-Type': 'application/json'})
        return json.loads(urlopen(request, timeout=10).read().decode('utf-8') or 'null')

    def reset(self, **config):
        return self.admin('POST', '/reset', config)

    def requests(self):
        return self.admin('GET', '/requests')['requests']

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.log.close()


@pytest.fixture(scope='session')
def simulator(tmp_path_factory):
    sim = Simulator(str(tmp_path_factory.mktemp('simulator')))
    yield sim
    sim.stop()


@pytest.fixture(scope='session')
def collections_path(tmp_path_factory):
    """A directory holding ansible_collections/engine/cloud, copied from this tree."""
    path = tmp_path_factory.mktemp('collections')
    subprocess.check_call([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT,
                           str(path / 'ansible_collections' / 'engine' / 'cloud')], stdout=subprocess.DEVNULL)
    return str(path)


def ansible_env(collections_path, **extra):
    """The environment of an ansible-playbook run: this collection only, no user config, quiet."""
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith(('ANSIBLE_', 'ENGINE_')))
    env.update(ANSIBLE_COLLECTIONS_PATH=collections_path, ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false', ANSIBLE_NOCOLOR='1', ANSIBLE_FORCE_COLOR='0',
               ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    env.update(extra)
    return env


def module_doc_string(path, name):
    """The DOCUMENTATION, EXAMPLES or RETURN string of a module file, read without importing it."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, 'id', None) == name for target in node.targets):
            return ast.literal_eval(node.value)
    return None
