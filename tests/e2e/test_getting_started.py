# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The getting-started guide's simulator steps, run as written from a copy of the repository: the
first shell's commands (make install, make simulator), then the second shell's, word for word.

Only what cannot run here is replaced: the clone (a copy of this tree, made as `make layout`
makes one), the port (a free one instead of 8080, through SIM_PORT), and the creation of .venv
(a link to this virtualenv, which has requirements-dev.txt: nothing is installed)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from tests.simulator.process import admin_call

GUIDE = os.path.join(ROOT, 'docs', 'docsite', 'rst', 'getting_started.rst')
CLONE = 'git clone https://github.com/engine-cloud/engine.cloud && cd engine.cloud'
SIMULATOR = 'make simulator'


def console_blocks(section):
    """The commands ($ lines) of each console block of one section of the guide."""
    with open(GUIDE) as handle:
        text = handle.read()
    start = text.index('\n%s\n%s\n' % (section, '-' * len(section)))
    following = re.search(r'\n[^\n]+\n-{3,}\n', text[start + len(section) + 2:])
    body = text[start:start + len(section) + 2 + following.start()] if following else text[start:]
    blocks = []
    for block in re.split(r'\.\. code-block:: console\n', body)[1:]:
        lines = re.match(r'(\n(?:   [^\n]*\n|\n)*)', block).group(1)
        blocks.append([line.strip()[2:] for line in lines.splitlines() if line.strip().startswith('$ ')])
    return blocks


def free_port():
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def shell_env(venv_bin, **extra):
    """A user's shell: none of this run's Ansible or Engine variables, and no virtualenv on PATH."""
    env = dict((key, value) for key, value in os.environ.items()
               if not key.startswith(('ANSIBLE_', 'ENGINE_', 'MAKE', 'MFLAGS', 'VIRTUAL_ENV', 'PYTHON')))
    env['PATH'] = os.pathsep.join(part for part in env['PATH'].split(os.pathsep) if os.path.realpath(part) != venv_bin)
    env.update(extra)
    return env


def run(commands, cwd, env, timeout):
    script = 'set -e\n' + '\n'.join(commands) + '\n'
    return subprocess.run(['bash', '-c', script], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=timeout, check=False)


def wait_for_output(process, needle, timeout=60):
    """Lines the process printed until one holds needle (the simulator then listens)."""
    lines, deadline = [], time.time() + timeout
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip('\n'))
        if needle in line:
            return lines
    raise AssertionError('no %r from make simulator: %s' % (needle, lines))


def test_the_guide_has_the_two_shells():
    first, second = console_blocks('The simulator')
    commands = [command.split('#')[0].strip() for command in first]
    assert commands == [CLONE, 'make install', SIMULATOR]
    assert any(command.startswith('export ANSIBLE_COLLECTIONS_PATH=') for command in second)


def install_as_written(tmp_path):
    """The first shell's commands before make simulator (make install), run as written in a clone: the clone's path.
    A session fixture of conftest.py (guide_install) runs it once; the artifact tests read what it installed."""
    first, dummy = console_blocks('The simulator')
    venv = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
    clone = tmp_path / 'engine.cloud'
    subprocess.check_call([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT, str(clone)],
                          stdout=subprocess.DEVNULL)
    os.symlink(venv, str(clone / '.venv'))
    stamp = str(clone / '.venv' / '.requirements-dev.stamp')
    if subprocess.call(['make', '-q', stamp], cwd=str(clone), stdout=subprocess.DEVNULL) != 0:
        pytest.skip('this virtualenv is older than requirements-dev.txt; make venv first (nothing is installed here)')
    env = shell_env(os.path.realpath(os.path.join(venv, 'bin')))
    setup = [command for command in first[1:] if not command.startswith(SIMULATOR)]
    installed = run(setup, str(clone), env, timeout=600)
    assert installed.returncode == 0, installed.stdout[-4000:]
    return clone


def test_the_simulator_steps_work_as_written(guide_install):
    first, second = console_blocks('The simulator')
    clone = guide_install
    venv = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
    port = free_port()
    env = shell_env(os.path.realpath(os.path.join(venv, 'bin')), SIM_PORT=str(port))

    simulator = subprocess.Popen(['bash', '-c', first[-1]], cwd=str(clone), env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, universal_newlines=True, start_new_session=True)
    try:
        printed = wait_for_output(simulator, 'simulator listening on')
        # make simulator prints every line of the second shell but the ad-hoc run, once it listens.
        setup_lines = [line.replace('127.0.0.1:8080', '127.0.0.1:%d' % port) for line in second[:-1]]
        assert setup_lines == [line for line in printed if line.startswith(('. ', 'export '))], 'the guide and make simulator disagree'

        shell = run([line.replace('127.0.0.1:8080', '127.0.0.1:%d' % port) for line in second], str(clone), env, timeout=300)
        assert shell.returncode == 0, shell.stdout[-4000:]
        assert 'localhost | SUCCESS' in shell.stdout and '"name": "prod-analytics"' in shell.stdout, shell.stdout[-4000:]
        assert '[WARNING]' not in shell.stdout, shell.stdout[-4000:]

        # A second make simulator on the busy port fails at once, naming SIM_PORT, and prints no export.
        busy = run([SIMULATOR], str(clone), env, timeout=120)
        assert busy.returncode != 0 and 'port %d is in use' % port in busy.stdout and 'SIM_PORT=' in busy.stdout, busy.stdout
        assert 'Traceback' not in busy.stdout and 'export ' not in busy.stdout, busy.stdout
        log = admin_call('http://127.0.0.1:%d/_admin' % port, 'GET', 'requests')['requests']
        seen = [(entry['method'], entry['path'], entry['status']) for entry in log]
        assert len(seen) == 1 and seen[0][0] == 'GET' and seen[0][1].endswith(second[-1].rsplit('=', 1)[1]) and seen[0][2] == 200, seen
    finally:
        os.killpg(simulator.pid, signal.SIGTERM)
        simulator.wait(30)
