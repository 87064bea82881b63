# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""CONTRIBUTING.md's "adding a module" checklist, enforced: every module has its unit test file, a
real pass in an integration target, its catalog entry, its README row and its action group, and
nothing in those places names a module that does not exist."""

import functools
import os
import re

import pytest
import yaml

from ansible_collections.engine.cloud.tests.simulator import catalog
from ansible_collections.engine.cloud.tests.unit.conftest import ROOT, read

MODULES = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, 'plugins', 'modules'))
                 if name.endswith('.py') and not name.startswith('_'))


@functools.lru_cache(maxsize=None)
def integration_tasks():
    """The text of every task file and playbook of the integration targets, and of the playbooks they run."""
    folders = [os.path.join(ROOT, 'tests', 'integration', 'targets'), os.path.join(ROOT, 'playbooks')]
    return '\n'.join(read(os.path.join(directory, name)) for folder in folders for directory, dummy, names in os.walk(folder)
                     for name in names if name.endswith(('.yml', '.yaml')))


# A module of both APIs (in group all only), whose cases are its own tests' (it plans over the other modules).
BOTH_APIS = ['organization']


@pytest.mark.parametrize('name', MODULES)
def test_every_module_has_what_the_checklist_names(name):
    groups = yaml.safe_load(read('meta/runtime.yml'))['action_groups']
    assert os.path.exists(os.path.join(ROOT, 'tests', 'unit', 'plugins', 'modules', 'test_%s.py' % name)), 'unit test file'
    assert re.search(r'\bengine\.cloud\.%s:' % name, integration_tasks()), 'a task of an integration target'
    assert re.search(r'^\| `engine\.cloud\.%s` \|' % name, read('README.md'), re.M), 'row in the README module table'
    if name in BOTH_APIS:
        assert name in groups['all'], 'action group all'
    else:
        assert name in catalog.BY_NAME, 'entry in tests/simulator/catalog.py'
        assert [group for group in ('cloud', 'observability') if name in groups[group]] == [catalog.BY_NAME[name].api], 'action group'


def test_nothing_names_a_module_that_does_not_exist():
    groups = yaml.safe_load(read('meta/runtime.yml'))['action_groups']
    assert sorted(catalog.BY_NAME) == sorted(set(MODULES) - set(BOTH_APIS))
    assert sorted(groups['cloud'] + groups['observability'] + BOTH_APIS) == MODULES
    assert sorted(re.findall(r'^\| `engine\.cloud\.(\w+)` \|', read('README.md'), re.M)) == MODULES
