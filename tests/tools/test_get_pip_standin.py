"""The get-pip stand-in of ansible-test's sanity environments (scripts/get_pip_standin.py): the pip it
unpacks hands install and uninstall to uv when the cache links one, and runs itself for anything else or
when uv fails. Offline: a wheel of a fake pip whose main prints its arguments, and a fake uv that records
its own."""

import json
import os
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDIN = os.path.join(ROOT, 'scripts', 'get_pip_standin.py')
VERSION = '99.0'
FAKE_UV = """#!/bin/sh
printf '%s\\n' "$@" > "$UV_CALLS"
exit "${UV_EXIT:-0}"
"""


@pytest.fixture
def home(tmp_path):
    wheels = tmp_path / '.ansible' / 'test' / 'cache' / 'pip-wheels'
    wheels.mkdir(parents=True)
    with zipfile.ZipFile(str(wheels / ('pip-%s-py3-none-any.whl' % VERSION)), 'w') as wheel:
        wheel.writestr('pip/__init__.py', '')
        wheel.writestr('pip/__main__.py', 'import json, sys\nprint("pip main " + json.dumps(sys.argv[1:]))\n')
        wheel.writestr('pip-%s.dist-info/RECORD' % VERSION, 'pip/__init__.py,,\npip/__main__.py,,\n')
    uv = tmp_path / 'uv'
    uv.write_text(FAKE_UV)
    uv.chmod(0o755)
    return tmp_path


def run(home, *command, **environ):
    env = dict(os.environ, HOME=str(home), UV_CALLS=str(home / 'uv-calls'), **environ)
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    return subprocess.run(command, env=env, capture_output=True, text=True, cwd=str(home), check=False)


def environment(home, uv=True):
    """A venv without pip, as ansible-test makes it, given pip by the stand-in as ansible-test asks."""
    install = [sys.executable, STANDIN, '--install-cache', VERSION] + (['--uv', str(home / 'uv')] if uv else [])
    assert run(home, *install).returncode == 0
    venv = home / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', str(venv)], check=True)
    cached = home / '.ansible' / 'test' / 'cache' / ('get_pip_%s.py' % VERSION.replace('.', '_'))
    bootstrap = run(home, str(venv / 'bin' / 'python'), str(cached), '--disable-pip-version-check',
                    'pip==' + VERSION, '--no-setuptools', '--no-wheel')
    assert bootstrap.returncode == 0, bootstrap.stderr
    return str(venv / 'bin' / 'python')


def uv_calls(home):
    path = home / 'uv-calls'
    return path.read_text().splitlines() if path.exists() else None


def test_install_and_uninstall_go_to_uv_with_ansible_tests_arguments(home):
    python = environment(home)
    installed = run(home, python, '-m', 'pip', 'install', '--disable-pip-version-check', '-r', 'requirements/x.txt',
                    '-c', 'constraints.txt')
    assert installed.returncode == 0 and 'pip main' not in installed.stdout
    assert uv_calls(home) == ['pip', 'install', '--quiet', '--system-certs', '--python', python,
                              '-r', 'requirements/x.txt', '-c', 'constraints.txt']
    removed = run(home, python, '-m', 'pip', 'uninstall', '-y', '--disable-pip-version-check', 'pip')
    assert removed.returncode == 0 and 'pip main' not in removed.stdout
    assert uv_calls(home) == ['pip', 'uninstall', '--quiet', '--system-certs', '--python', python, 'pip']


def test_pip_runs_itself_when_uv_fails_or_for_any_other_command(home):
    python = environment(home)
    failed = run(home, python, '-m', 'pip', 'install', 'x==1', UV_EXIT='2')
    assert uv_calls(home) is not None
    assert 'uv could not install; pip does' in failed.stderr
    assert failed.stdout.strip() == 'pip main ' + json.dumps(['install', 'x==1'])
    (home / 'uv-calls').unlink()
    version = run(home, python, '-m', 'pip', '-V')
    assert uv_calls(home) is None and version.stdout.strip() == 'pip main ' + json.dumps(['-V'])


def test_without_uv_pip_is_pip(home):
    python = environment(home, uv=False)
    installed = run(home, python, '-m', 'pip', 'install', 'x==1')
    assert uv_calls(home) is None and installed.stdout.strip() == 'pip main ' + json.dumps(['install', 'x==1'])


def test_the_record_lists_installer_so_that_an_uninstall_leaves_no_dist_info(home):
    python = environment(home)
    site = subprocess.check_output([python, '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], text=True)
    with open(os.path.join(site.strip(), 'pip-%s.dist-info' % VERSION, 'RECORD')) as handle:
        record = handle.read().splitlines()
    assert 'pip-%s.dist-info/INSTALLER,,' % VERSION in record


def test_a_real_get_pip_script_is_kept_and_an_older_stand_in_replaced(home):
    cache = home / '.ansible' / 'test' / 'cache'
    cached = cache / ('get_pip_%s.py' % VERSION.replace('.', '_'))
    cached.write_text('# the real get-pip.py\n')
    assert run(home, sys.executable, STANDIN, '--install-cache', VERSION).returncode == 0
    assert cached.read_text() == '# the real get-pip.py\n'
    cached.write_text('"""Offline stand-in for the pip bootstrap script of an older checkout"""\n')
    assert run(home, sys.executable, STANDIN, '--install-cache', VERSION).returncode == 0
    with open(STANDIN) as handle:
        assert cached.read_text() == handle.read()
