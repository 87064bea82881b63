# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""meta/execution-environment.yml: ansible-builder creates a build context from it (no container
engine needed), and introspection of the installed collection finds its runtime dependencies."""

import os
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, code_blocks, read

yaml = pytest.importorskip('yaml')
pytest.importorskip('ansible_builder')

BUILDER = os.path.join(os.path.dirname(sys.executable), 'ansible-builder')


def requirement_lines(path):
    return [line.strip() for line in read(path).splitlines() if line.strip() and not line.startswith('#')]


def guide_commands():
    """The console commands of the AWX guide (docs/docsite/rst/guide_awx.rst): the copy, then the build."""
    block = code_blocks('guide_awx.rst', 'console')[0][2]
    return [shlex.split(line[2:]) for line in block.splitlines() if line.startswith('$ ')]


def test_create_builds_a_context(tmp_path):
    # The definition's paths are relative to the collection root (what introspection needs), so it is built from
    # there, as the AWX guide prints: its copy runs as printed, and its build as `ansible-builder create` (the
    # build without its container engine step: no engine here), with the guide's other arguments.
    copy, build = guide_commands()
    assert copy == ['cp', 'meta/execution-environment.yml', 'execution-environment.yml'], copy
    assert build[:2] == ['ansible-builder', 'build'] and build[2] == '-t', build
    root = tmp_path / 'cloud'
    (root / 'meta').mkdir(parents=True)
    for name in ('execution-environment.yml', 'ee-requirements.txt', 'ee-bindep.txt'):
        shutil.copy(os.path.join(ROOT, 'meta', name), str(root / 'meta' / name))
    subprocess.check_call(copy, cwd=str(root))
    run = subprocess.run([BUILDER, 'create'] + build[4:] + ['-c', 'context', '-v', '3'], cwd=str(root),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    assert run.returncode == 0, run.stdout
    build = root / 'context' / '_build'
    assert (root / 'context' / 'Containerfile').exists() or (root / 'context' / 'Dockerfile').exists()
    # One Python package beyond ansible-core: requests, the modules' HTTP client.
    assert requirement_lines(str(build / 'requirements.txt')) == ['requests>=2.25', 'urllib3>=2.6']
    assert requirement_lines(str(build / 'bindep.txt')) == ['ca-certificates [platform:rpm platform:dpkg]']
    galaxy = yaml.safe_load((build / 'requirements.yml').read_text())
    assert [item['name'] for item in galaxy['collections']] == ['engine.cloud']


def test_definition_is_version_3_with_runtime_dependencies_only():
    definition = yaml.safe_load(read('meta', 'execution-environment.yml'))
    assert definition['version'] == 3
    assert definition['dependencies']['python'] == 'meta/ee-requirements.txt'
    assert definition['dependencies']['system'] == 'meta/ee-bindep.txt'
    # Only what the modules import at run time: requests (no test or build tools), as requirements.txt says.
    assert requirement_lines(os.path.join(ROOT, 'meta', 'ee-requirements.txt')) == ['requests>=2.25', 'urllib3>=2.6']
    assert requirement_lines(os.path.join(ROOT, 'requirements.txt')) == ['requests>=2.25', 'urllib3>=2.6']


def test_introspection_of_the_installed_collection(collections_path):
    run = subprocess.run([BUILDER, 'introspect', collections_path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=False)
    assert run.returncode == 0, run.stdout
    found = yaml.safe_load(run.stdout[run.stdout.index('python:'):] if 'python:' in run.stdout else run.stdout[run.stdout.index('system:'):])
    assert found['python'] == ['requests>=2.25  # from collection engine.cloud', 'urllib3>=2.6  # from collection engine.cloud'], run.stdout
    assert found['system'] == ['ca-certificates [platform:rpm platform:dpkg]  # from collection engine.cloud'], run.stdout
