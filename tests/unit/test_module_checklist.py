# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""CONTRIBUTING.md's "adding a module" checklist, enforced: every module has its unit test file,
its integration target, its catalog entry, its README row and its action group, and nothing
in those places names a module that does not exist."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest
import yaml

from ansible_collections.engine.cloud.tests.simulator import catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def names_in(folder, pattern):
    return sorted(match.group(1) for match in (re.match(pattern, name) for name in os.listdir(os.path.join(ROOT, folder))) if match)


MODULES = names_in('plugins/modules', r'^(?!_)(\w+)\.py$')


def read(path):
    with open(os.path.join(ROOT, path), encoding='utf-8') as handle:
        return handle.read()


@pytest.mark.parametrize('name', MODULES)
def test_every_module_has_what_the_checklist_names(name):
    target = os.path.join('tests', 'integration', 'targets', name)
    assert os.path.exists(os.path.join(ROOT, 'tests', 'unit', 'plugins', 'modules', 'test_%s.py' % name)), 'unit test file'
    assert os.path.exists(os.path.join(ROOT, target, 'tasks', 'main.yml')), 'integration target'
    assert 'needs/target/setup_simulator' in read(os.path.join(target, 'aliases')).splitlines(), 'aliases: needs/target/setup_simulator'
    assert 'gather_facts/no' in read(os.path.join(target, 'aliases')).splitlines(), 'aliases: gather_facts/no'
    assert name in catalog.BY_NAME, 'entry in tests/simulator/catalog.py'
    assert re.search(r'^\| `engine\.cloud\.%s` \|' % name, read('README.md'), re.M), 'row in the README module table'
    groups = yaml.safe_load(read('meta/runtime.yml'))['action_groups']
    assert [group for group in ('cloud', 'observability') if name in groups[group]] == [catalog.BY_NAME[name].api], 'action group'


def test_nothing_names_a_module_that_does_not_exist():
    groups = yaml.safe_load(read('meta/runtime.yml'))['action_groups']
    assert sorted(catalog.BY_NAME) == MODULES
    assert names_in('tests/unit/plugins/modules', r'^test_(\w+)\.py$') == MODULES
    assert sorted(groups['cloud'] + groups['observability']) == MODULES
    assert sorted(re.findall(r'^\| `engine\.cloud\.(\w+)` \|', read('README.md'), re.M)) == MODULES


TARGETS = names_in('tests/integration/targets', r'^(?!setup_)(?!\w+_matrix$)(\w+)$')
# <target>_matrix: the part of <target> that the version matrix runs (the Makefile's MATRIX_TARGETS), in no group.
MATRIX_ONLY = names_in('tests/integration/targets', r'^(\w+)_matrix$')


@pytest.mark.parametrize('target', TARGETS)
def test_every_target_runs_in_one_group_of_make_test(target):
    """make test runs the targets in three groups, a stage each: a target in none would never run, in two twice."""
    aliases = read(os.path.join('tests', 'integration', 'targets', target, 'aliases')).splitlines()
    assert len([alias for alias in aliases if alias in ('group1', 'group2', 'group3')]) == 1, 'aliases: group1, group2 or group3'


@pytest.mark.parametrize('target', MATRIX_ONLY)
def test_a_matrix_entry_point_runs_in_no_group_and_needs_its_full_target(target):
    """make test's groups run the full target; its _matrix entry point only on the matrix lines."""
    aliases = read(os.path.join('tests', 'integration', 'targets', target + '_matrix', 'aliases')).splitlines()
    assert target in TARGETS
    assert 'needs/target/' + target in aliases
    assert not [alias for alias in aliases if alias in ('group1', 'group2', 'group3')]
