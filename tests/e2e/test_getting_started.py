# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a newcomer runs first, as printed: the README's quick start, the getting-started guide's plays (the connection
from the environment, or from module_defaults and the variables the reader defines), its simulator steps (the first
shell's commands, make install and make simulator, then the second shell's, word for word), and the troubleshooting
guide's secret on the command line.

Only what cannot run here is replaced: the clone (a copy of this tree, made as `scripts/layout.py`
makes one), the port (a free one instead of 8080, through SIM_PORT), the creation of .venv
(a link to this virtualenv, which has requirements-dev.txt: nothing is installed), and a typed vault password (a
password file)."""

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import BIN, ROOT, ansible, ansible_env, captioned, console_blocks, layout, read, recap, simulator_exports, writes
from tests.simulator import fixture_ids as ids
from tests.simulator.process import admin_call

yaml = pytest.importorskip('yaml')

CLONE = 'git clone https://github.com/engine-cloud/engine.cloud && cd engine.cloud'
SIMULATOR = 'make simulator'


def playbook(tmp_path, collections_path, name, *args, **env):
    """ansible-playbook run in tmp_path with this collection and env (nothing else of Engine's): the run."""
    return ansible('ansible-playbook', tmp_path, ansible_env(collections_path, **env), name, *args)


def free_port():
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def shell_env(**extra):
    """A user's shell: none of this run's Ansible or Engine variables, and not this virtualenv on PATH."""
    env = dict((key, value) for key, value in os.environ.items()
               if not key.startswith(('ANSIBLE_', 'ENGINE_', 'MAKE', 'MFLAGS', 'VIRTUAL_ENV', 'PYTHON')))
    env['PATH'] = os.pathsep.join(part for part in env['PATH'].split(os.pathsep) if os.path.realpath(part) != os.path.realpath(BIN))
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
    clone = layout(tmp_path / 'engine.cloud')
    os.symlink(venv, str(clone / '.venv'))
    # The Makefile's own name for the stamp: make -q finds no rule for an absolute path, and calls it up to date.
    if subprocess.call(['make', '-q', '.venv/.requirements-dev.stamp'], cwd=str(clone), stdout=subprocess.DEVNULL) != 0:
        pytest.skip('this virtualenv is older than requirements-dev.txt; make venv first (nothing is installed here)')
    env = shell_env()
    setup = [command for command in first[1:] if not command.startswith(SIMULATOR)]
    installed = run(setup, str(clone), env, timeout=600)
    assert installed.returncode == 0, installed.stdout[-4000:]
    return clone


def test_the_simulator_steps_work_as_written(guide_install):
    first, second = console_blocks('The simulator')
    clone = guide_install
    port = free_port()
    env = shell_env(SIM_PORT=str(port))

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


def test_the_credentials_play_runs_on_the_environment_alone(tmp_path, simulator, collections_path):
    (tmp_path / 'look.yml').write_text(captioned('getting_started.rst')['look.yml'])
    simulator.reset()
    run = playbook(tmp_path, collections_path, 'look.yml', **simulator_exports(simulator))
    assert recap(run.stdout) == (3, 0, 0), run.stdout[-4000:]
    firing = [alert for alert in simulator.state()['alerts'] if alert['state'] == 'ALERT']
    assert '"msg": "prod-analytics is running; %d alerts fire"' % len(firing) in run.stdout, run.stdout[-4000:]


def test_the_vault_play_runs_on_the_variables_the_reader_defines(tmp_path, simulator, collections_path):
    """engine_vault.yml as the reader fills it in for the simulator (its keys as printed, the simulator's values), encrypted
    as the guide says, and look_vault.yml run as printed. Its module_defaults win over the environment, which points
    nowhere here."""
    files = captioned('getting_started.rst')
    values = dict(engine_api_url=simulator.url, engine_organization_id=ids.ORGANIZATION, engine_key_id=ids.KEY_ID,
                  engine_key_secret=ids.KEY_SECRET, engine_observability_url=simulator.url,
                  engine_observability_token=ids.TOKEN)
    assert sorted(yaml.safe_load(files['engine_vault.yml'])) == sorted(values)
    (tmp_path / 'engine_vault.yml').write_text(yaml.safe_dump(values))
    (tmp_path / 'vault-pass').write_text('reader-vault-key\n')
    (tmp_path / 'look_vault.yml').write_text(files['look_vault.yml'])
    [[encrypt, run_line]] = console_blocks('Several connections, or the secrets in Ansible Vault: ``module_defaults``')
    assert encrypt.split() == ['ansible-vault', 'encrypt', 'engine_vault.yml']
    assert run_line.split() == ['ansible-playbook', 'look_vault.yml', '--ask-vault-pass']
    encrypted = ansible('ansible-vault', tmp_path, None, *(encrypt.split()[1:] + ['--vault-password-file', 'vault-pass']))
    assert encrypted.returncode == 0, encrypted.stdout
    assert ids.KEY_SECRET not in (tmp_path / 'engine_vault.yml').read_text()
    nowhere = dict((key, 'http://127.0.0.1:9' if key.endswith('_URL') else 'not-this-one') for key in simulator_exports(simulator))
    simulator.reset()
    run = playbook(tmp_path, collections_path, 'look_vault.yml', '--vault-password-file', 'vault-pass', **nowhere)
    assert recap(run.stdout) == (2, 0, 0), run.stdout[-4000:]
    assert [entry['path'] for entry in simulator.requests()] == [ids.service_path(), '/api/v2/alerts']


def readme_block(heading, language):
    section = read('README.md').split('\n## %s\n' % heading, 1)[1].split('\n## ', 1)[0]
    return re.findall(r'```%s\n(.*?)```' % language, section, re.S)


def test_the_readme_names_two_commands_of_the_makefile():
    """A clone has two commands: the README names make demo and make test, each a target of the Makefile, and CI's
    .ci/run starts with make test."""
    [block] = readme_block('From a clone', 'bash')
    commands = [line.split('#')[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ['make demo', 'make test']
    for command in commands:
        dry = subprocess.run(command.split() + ['-n', '-C', ROOT], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, check=False)
        assert dry.returncode == 0, dry.stdout[-2000:]
    assert [line.split()[:2] for line in read('.ci', 'run').splitlines() if line.startswith('make ')][0] == ['make', 'test']


def test_the_quick_start_runs_as_printed(tmp_path, simulator, collections_path):
    """The README's playbook, with the simulator's exports in place of the ones it prints with placeholders: the check
    run writes nothing and shows the change, the real run makes it."""
    [exports] = readme_block('Quick start', 'bash')
    assert sorted(re.findall(r'\b(ENGINE_\w+)=', exports) + re.findall(r"read -rsp '[^']+' (ENGINE_\w+)", exports)) == sorted(
        simulator_exports(simulator))
    [site] = readme_block('Quick start', 'yaml')
    (tmp_path / 'site.yml').write_text(site)
    simulator.reset()
    env = simulator_exports(simulator)
    check = playbook(tmp_path, collections_path, 'site.yml', '--check', '--diff', **env)
    assert recap(check.stdout) == (3, 1, 0) and '203.0.113.0/24' in check.stdout, check.stdout[-4000:]
    assert writes(simulator.requests()) == []
    assert recap(playbook(tmp_path, collections_path, 'site.yml', **env).stdout) == (3, 1, 0)
    assert [method for method, path, body in writes(simulator.requests())] == ['PATCH']


def printed_line(line):
    """A regular expression for a line the guide prints as output: '...' stands for any text, '[...]' for itself."""
    return re.compile('.*'.join(re.escape(part) for part in line.replace('[...]', '\0').split('...')).replace('\0', re.escape('[...]')))


def test_a_secret_on_the_command_line_shows_as_the_troubleshooting_guide_says(tmp_path, collections_path):
    """ansible-core 2.19 and later print a failed ad-hoc task's arguments, the token among them, whatever no_log says: the
    troubleshooting guide's command, run as printed, prints the lines it prints. The same failure with the token in
    the environment shows no token."""
    [block] = console_blocks('Secrets on the command line', 'troubleshooting.rst', output=True)
    command, expected = block[0][2:], [line for line in block[1:] if line]
    token = re.search(r'api_token=(\S+)', command).group(1)
    shown = run(['PATH=%s:$PATH %s' % (BIN, command)], str(tmp_path), ansible_env(collections_path), timeout=300)
    assert shown.returncode != 0
    lines = shown.stdout.splitlines()
    assert [line for line in expected if not any(printed_line(line).fullmatch(seen) for seen in lines)] == [], shown.stdout
    assert token in shown.stdout

    from_env = command.replace('api_token=%s ' % token, '')
    hidden = run(['PATH=%s:$PATH %s' % (BIN, from_env)], str(tmp_path), ansible_env(collections_path, ENGINE_OBSERVABILITY_TOKEN=token),
                 timeout=300)
    assert hidden.returncode != 0 and 'Origin: <adhoc' in hidden.stdout and token not in hidden.stdout, hidden.stdout
