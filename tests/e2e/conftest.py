# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""End-to-end fixtures: a copy of the collection on a collections path, and a private simulator.

These tests run the collection as users and AWX do (ansible-playbook, ansible-runner), so they
need the tools of requirements-docs.txt (make e2e installs them)."""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

# pylint: disable=wrong-import-position
from tests.simulator.process import SimulatorProcess  # noqa: E402

BIN = os.path.dirname(sys.executable)
GUIDES = os.path.join(ROOT, 'docs', 'docsite', 'rst')
BLOCK = re.compile(r'^( *)\.\. code-block:: (\S+)\n(?:\1   :caption: (.+)\n)?\n((?:\1   .*\n|\n)+)', re.M)


@pytest.fixture(scope='session')
def simulator(tmp_path_factory):
    with SimulatorProcess(str(tmp_path_factory.mktemp('simulator'))) as sim:
        yield sim


def layout(destination):
    """A copy of this tree's files (git's tracked and untracked-not-ignored ones), made at destination."""
    script = os.path.join(ROOT, 'scripts', 'layout.py')
    subprocess.check_call([sys.executable, script, '--src', ROOT, str(destination)], stdout=subprocess.DEVNULL)
    return destination


@pytest.fixture(scope='session')
def collections_path(tmp_path_factory):
    """A directory holding ansible_collections/engine/cloud, copied from this tree."""
    path = tmp_path_factory.mktemp('collections')
    layout(path / 'ansible_collections' / 'engine' / 'cloud')
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


def ansible(command, cwd, env, *args):
    """One of this virtualenv's Ansible commands (ansible-playbook, ansible-vault, ...) run in cwd: the run."""
    return subprocess.run([os.path.join(BIN, command)] + list(args), cwd=str(cwd), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, check=False)


def recap(output):
    """(ok, changed, failed) of localhost in the recap of an ansible-playbook run's output."""
    found = re.search(r'^localhost +: ok=(\d+) +changed=(\d+) +unreachable=\d+ +failed=(\d+)',
                      output, re.M)
    assert found, output[-4000:]
    return tuple(int(value) for value in found.groups())


def read(*path):
    """The text of a file: its path relative to this tree's root, in parts, or absolute."""
    with open(os.path.join(ROOT, *path)) as handle:
        return handle.read()


def writes(log):
    """(method, path, body) of each request of a simulator's request log that changes something: not a GET, nor a chart
    query (a POST that changes nothing)."""
    return [(entry['method'], entry['path'], entry['body']) for entry in log
            if entry['method'] != 'GET' and not entry['path'].endswith('/charts/series')]


def code_blocks(guide, *languages, section=None):
    """[(language, caption or None, text)] of the code blocks of a guide (its name in docs/docsite/rst, or a path),
    or of one section of it, those of the given languages only when some are given, unindented."""
    text = read(GUIDES, guide)
    if section:
        text = text.split('\n%s\n%s\n' % (section, '-' * len(section)), 1)[1]
        text = re.split(r'\n[^\n]+\n-{3,}\n', text, maxsplit=1)[0]
    return [(language, caption or None, re.sub(r'(?m)^%s   ' % indent, '', block.rstrip('\n')) + '\n')
            for indent, language, caption, block in BLOCK.findall(text) if not languages or language in languages]


def captioned(guide):
    """{caption: text} of a guide's captioned code blocks."""
    return dict((caption, text) for dummy, caption, text in code_blocks(guide) if caption)


def console_blocks(section, guide='getting_started.rst', output=False):
    """The commands ($ lines) of each console block of one section of a guide; with output, every line of each
    block (the commands with their $, the output they print)."""
    blocks = [text.splitlines() for dummy, dummy2, text in code_blocks(guide, 'console', section=section)]
    return blocks if output else [[line[2:] for line in lines if line.startswith('$ ')] for lines in blocks]


def simulator_exports(simulator):
    """The ENGINE_* variables that the getting-started guide's second shell exports, pointed at this simulator."""
    dummy, second = console_blocks('The simulator')
    exported = dict(pair.split('=', 1) for line in second if line.startswith('export ')
                    for pair in line.split()[1:])
    return dict((key, value.replace('http://127.0.0.1:8080', simulator.url)) for key, value in exported.items()
                if key.startswith('ENGINE_'))
