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
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tests.simulator.process import SimulatorProcess  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture(scope='session')
def simulator(tmp_path_factory):
    with SimulatorProcess(str(tmp_path_factory.mktemp('simulator'))) as sim:
        yield sim


@pytest.fixture(scope='session')
def collections_path(tmp_path_factory):
    """A directory holding ansible_collections/engine/cloud, copied from this tree."""
    path = tmp_path_factory.mktemp('collections')
    subprocess.check_call([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT,
                           str(path / 'ansible_collections' / 'engine' / 'cloud')], stdout=subprocess.DEVNULL)
    return str(path)


@pytest.fixture(scope='session')
def guide_install(tmp_path_factory):
    """A clone where the getting-started guide's make install ran as written (test_getting_started.py): the guide's
    test goes on from there, and the artifact tests read the collection it built and installed."""
    import test_getting_started  # pylint: disable=import-outside-toplevel
    return test_getting_started.install_as_written(tmp_path_factory.mktemp('guide'))


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
