"""scripts/module_zygote.py: a module process that finds the zygote of its stage runs in a child the
zygote forks, with byte-identical stdout, the same stderr and the same exit status as when it runs by
itself (succeeding with atexit, a thread and unflushed output; failing, raising, interrupted, killed by a signal; the wrapper from stdin as ansible pipelines
it, or an AnsiballZ_*.py file); without a zygote, with ENGINE_TEST_MODULE_ZYGOTE=off, or with other
interpreter settings, it runs by itself; a killed module process takes its child with it."""

import json
import os
import signal
import subprocess
import time
import venv

import pytest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      'scripts', 'module_zygote.py')

# A process's real parent, from /proc (in the zygote, os.getppid() answers the module process's).
REAL_PARENT = 'open("/proc/self/stat").read().rpartition(")")[2].split()[1]'
# Every module writes its real parent's pid to $PARENT_FILE: the zygote's when the zygote ran it.
PROLOGUE = 'import os, sys, json\nopen(os.environ["PARENT_FILE"], "w").write(%s)\n' % REAL_PARENT
MODULES = {
    'succeeds': PROLOGUE + (
        'print(json.dumps({"argv": sys.argv, "path0": sys.path[0], "cwd": os.getcwd(), "umask": os.umask(0),\n'
        '    "file": globals().get("__file__"), "name": __name__, "env": os.environ.get("MODULE_ARG"),\n'
        '    "encoding": sys.stdout.encoding, "main": sys.modules["__main__"].__dict__ is globals()}))\n'
        'sys.stderr.write("a warning\\n")\n'
        'import atexit, threading, time\n'
        'atexit.register(lambda: print("atexit ran"))\n'
        'threading.Thread(target=lambda: (time.sleep(0.2), print("thread joined"))).start()\n'
        'sys.stdout.write("last words, unflushed")\n'),
    'fails': PROLOGUE + 'print(json.dumps({"failed": True, "msg": "bad input"}))\nsys.exit(1)\n',
    'exits_with_text': PROLOGUE + 'sys.exit("fatal: no such service")\n',
    'raises': PROLOGUE + 'def check():\n    raise ValueError("boom")\n\ncheck()\n',
    'interrupted': PROLOGUE + 'raise KeyboardInterrupt\n',
    'killed': PROLOGUE + 'import signal\nprint("partial", flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n',
}


@pytest.fixture(scope='module')
def python(tmp_path_factory):
    """A venv (no pip) with the hook installed."""
    root = tmp_path_factory.mktemp('venv')
    venv.create(str(root), with_pip=False)
    interpreter = os.path.join(str(root), 'bin', 'python')
    subprocess.run([interpreter, SCRIPT, 'install'], check=True)
    return interpreter


def clean_environ(**extra):
    environ = {k: v for k, v in os.environ.items() if not k.startswith(('PYTHON', 'ENGINE_TEST_MODULE_ZYGOTE'))}
    environ.update(extra)
    return environ


@pytest.fixture(scope='module')
def stage(python, tmp_path_factory):
    """A stage's work directory with its zygote running; the modules run from a cwd under it."""
    work = tmp_path_factory.mktemp('work')
    cwd = work / 'ansible_collections' / 'engine' / 'cloud'
    cwd.mkdir(parents=True)
    socket_path = work / 'module-zygote.sock'
    server = subprocess.Popen([python, SCRIPT, 'serve', str(socket_path)], env=clean_environ(),
                              stderr=subprocess.PIPE, text=True)
    for dummy in range(200):
        if socket_path.exists():
            break
        time.sleep(0.02)
    assert socket_path.exists()
    yield server, work, cwd
    server.terminate()
    assert 'refused' in server.communicate(timeout=10)[1]


def run(python, name, cwd, tmp_path, pipelined=True, **environ):
    """Runs a module as ansible does: its wrapper on stdin (pipelining), or an AnsiballZ_ file."""
    source = MODULES[name].encode()
    parent = tmp_path / ('parent-%s' % name)
    env = clean_environ(MODULE_ARG='value', PARENT_FILE=str(parent), **environ)
    if pipelined:
        result = subprocess.run([python], input=source, capture_output=True, cwd=str(cwd), env=env, timeout=60,
                                check=False)
    else:
        script = tmp_path / ('AnsiballZ_%s.py' % name)
        script.write_bytes(source)
        result = subprocess.run([python, str(script)], stdin=subprocess.DEVNULL, capture_output=True, cwd=str(cwd),
                                env=env, timeout=60, check=False)
    return result.stdout, result.stderr, result.returncode, int(parent.read_text())


@pytest.mark.parametrize('pipelined', [True, False], ids=['stdin', 'file'])
@pytest.mark.parametrize('name', sorted(MODULES))
def test_the_zygote_runs_it_as_python_would(python, stage, tmp_path, name, pipelined):
    server, work, cwd = stage
    by_itself = run(python, name, work, tmp_path, pipelined)  # cwd outside ansible_collections/: no zygote
    assert by_itself[3] == os.getpid()
    in_zygote = run(python, name, cwd, tmp_path, pipelined)
    assert in_zygote[3] == server.pid
    if name == 'succeeds':  # the cwd is the one difference between the two runs
        by_itself = (by_itself[0].replace(str(work).encode(), str(cwd).encode()),) + by_itself[1:]
    assert in_zygote[:3] == by_itself[:3]
    expected_status = {'succeeds': 0, 'fails': 1, 'exits_with_text': 1, 'raises': 1, 'interrupted': -signal.SIGINT,
                       'killed': -signal.SIGKILL}
    assert in_zygote[2] == expected_status[name]


def test_ansible_config_finds_the_zygote_too(python, stage, tmp_path):
    server, work, cwd = stage
    config = cwd / 'tests' / 'integration' / 'integration.cfg'
    assert run(python, 'fails', work, tmp_path, ANSIBLE_CONFIG=str(config))[3] == server.pid


def test_a_socket_named_in_the_environment_is_found_from_anywhere(python, stage, tmp_path):
    server, work, dummy = stage
    socket_path = str(work / 'module-zygote.sock')
    assert run(python, 'fails', tmp_path, tmp_path, ENGINE_TEST_MODULE_ZYGOTE=socket_path)[3] == server.pid
    assert run(python, 'fails', tmp_path, tmp_path, ENGINE_TEST_MODULE_ZYGOTE=socket_path + '.gone')[3] == os.getpid()


def test_the_child_answers_with_the_pid_and_parent_of_the_module_process(python, stage, tmp_path):
    """The collection finds its ansible-playbook through /proc from os.getpid() (play_reads, shared_reads)."""
    server, dummy, cwd = stage
    parent = tmp_path / 'parent'
    process = subprocess.Popen([python], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=str(cwd),
                               env=clean_environ(PARENT_FILE=str(parent)))
    source = PROLOGUE + 'print(json.dumps([os.getpid(), os.getppid()]))\n'
    stdout = process.communicate(source.encode(), timeout=60)[0]
    assert int(parent.read_text()) == server.pid
    assert json.loads(stdout) == [process.pid, os.getpid()]


def test_the_off_switch_runs_it_by_itself(python, stage, tmp_path):
    cwd = stage[2]
    assert run(python, 'succeeds', cwd, tmp_path, ENGINE_TEST_MODULE_ZYGOTE='off')[3] == os.getpid()


def test_other_interpreter_settings_run_it_by_itself(python, stage, tmp_path):
    cwd = stage[2]
    result = run(python, 'succeeds', cwd, tmp_path, PYTHONHASHSEED='0')
    assert result[3] == os.getpid() and result[2] == 0


def test_no_zygote_runs_it_by_itself(python, tmp_path):
    cwd = tmp_path / 'ansible_collections' / 'engine' / 'cloud'
    cwd.mkdir(parents=True)
    (tmp_path / 'module-zygote.sock').write_text('not a socket')
    stdout, stderr, status, parent = run(python, 'fails', cwd, tmp_path)
    assert parent == os.getpid() and status == 1 and b'bad input' in stdout and stderr == b''


def start_waiting_module(python, cwd, path, setup, expression):
    """A pipelined module process that runs setup, writes the value of expression to path and sleeps; (the process,
    what it wrote), once written."""
    source = '%sopen(%r, "w").write(%s)\ntime.sleep(60)\n' % (setup, str(path), expression)
    client = subprocess.Popen([python], stdin=subprocess.PIPE, cwd=str(cwd), env=clean_environ())
    client.stdin.write(source.encode())
    client.stdin.close()
    for dummy in range(500):
        if path.exists() and path.read_text():
            break
        time.sleep(0.01)
    return client, path.read_text()


def test_a_killed_module_process_takes_its_child_with_it(python, stage, tmp_path):
    cwd = stage[2]
    pid_file = tmp_path / 'child'
    client, written = start_waiting_module(python, cwd, pid_file, 'import os, time\n', 'os.readlink("/proc/self")')
    child = int(written)
    assert child != client.pid
    client.kill()
    client.wait()
    for dummy in range(500):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.01)
    else:
        pytest.fail('the child %d outlived its module process' % child)


def test_a_signal_to_the_module_process_reaches_the_child(python, stage, tmp_path):
    cwd = stage[2]
    ready = tmp_path / 'ready'
    client, written = start_waiting_module(
        python, cwd, ready, 'import os, signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *_: sys.exit(7))\n',
        REAL_PARENT)
    assert int(written) == stage[0].pid  # the zygote's child
    client.send_signal(signal.SIGTERM)
    assert client.wait(timeout=10) == 7
