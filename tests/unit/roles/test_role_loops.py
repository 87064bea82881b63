# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Every loop of every role names its variable after the role (loop_control.loop_var), so that a
role included in a loop over `item` still sees the caller's item (the role_loops integration
target shows what goes wrong otherwise). Read from the role files, statically."""

import glob
import os
import re

import pytest
import yaml

from ansible_collections.engine.cloud.tests.unit.conftest import ROOT, read

TASK_FILES = sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'tasks', '*.yml')))


def tasks(items):
    """Every task of a task list, the tasks inside block, rescue and always included."""
    for task in items or []:
        yield task
        for section in ('block', 'rescue', 'always'):
            yield from tasks(task.get(section))


def loops_of(path):
    return [task for task in tasks(yaml.safe_load(read(path))) if 'loop' in task or any(key.startswith('with_') for key in task)]


def test_the_roles_have_loops_to_check():
    assert TASK_FILES and sum(len(loops_of(path)) for path in TASK_FILES) >= 6


@pytest.mark.parametrize('path', TASK_FILES, ids=[os.path.relpath(path, ROOT) for path in TASK_FILES])
def test_every_loop_names_its_variable_after_the_role(path):
    role = os.path.relpath(path, ROOT).split(os.sep)[1]
    for task in loops_of(path):
        loop_var = (task.get('loop_control') or {}).get('loop_var', 'item')
        assert loop_var.startswith(role + '_'), '%s: %r loops over %s' % (path, task['name'], loop_var)
        assert not re.search(r'\bitem\b', yaml.safe_dump(task)), '%s: %r still uses item' % (path, task['name'])
