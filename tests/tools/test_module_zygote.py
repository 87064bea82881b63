"""scripts/module_zygote.py: a module process that finds the zygote of its stage runs in a child the
zygote forks, with byte-identical stdout, the same stderr and the same exit status as when it runs by
itself (succeeding with atexit, a thread and unflushed output; failing, raising, interrupted, killed by a signal; the wrapper from stdin as ansible pipelines
it, or an AnsiballZ_*.py file); without a zygote, with ENGINE_TEST_MODULE_ZYGOTE=off, or with other
interpreter settings, it runs by itself; a killed module process takes its child with it."""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import sysconfig
import time
import venv
import zipfile

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


def hooked_venv(root):
    """A venv at root (no pip) with the hook installed: its interpreter."""
    venv.create(str(root), with_pip=False)
    interpreter = os.path.join(str(root), 'bin', 'python')
    subprocess.run([interpreter, SCRIPT, 'install'], check=True)
    return interpreter


@pytest.fixture(scope='module')
def python(tmp_path_factory):
    """A venv (no pip) with the hook installed."""
    return hooked_venv(tmp_path_factory.mktemp('venv'))


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
    server = start_zygote(python, work / 'module-zygote.sock')
    yield server, work, cwd
    server.terminate()
    assert 'refused' in server.communicate(timeout=10)[1]


def start_zygote(python, socket_path):
    """python's zygote serving socket_path, once it listens (what it says at exit on its stderr)."""
    server = subprocess.Popen([python, SCRIPT, 'serve', str(socket_path)], env=clean_environ(),
                              stderr=subprocess.PIPE, text=True)
    for dummy in range(500):
        if socket_path.exists():
            break
        time.sleep(0.02)
    assert socket_path.exists()
    return server


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


# ---- ansible-core's module_utils, preloaded: a stand-in ansible-core in a venv of its own ----

FAKE_CORE = {
    # ansible-core's own __init__ files: the zygote never runs them (the payload brings stubs of its own)
    'ansible/__init__.py': 'raise ImportError("the zygote ran ansible-core\'s own __init__")\n',
    'ansible/module_utils/__init__.py': 'raise ImportError("the zygote ran ansible-core\'s own __init__")\n',
    'ansible/module_utils/basic.py': (
        'import ansible.module_utils.located\n'
        'from ansible.module_utils import located\n'
        'LOADED_IN = int(open("/proc/self/stat").read().split()[0])  # the process that ran this file\n\n\n'
        'def fail():\n    raise ValueError("from basic")\n'),
    # a global derived from where ansible was found (ansible-core's _deprecator has one), and a patch of the
    # standard library (ansible-core's _patches)
    'ansible/module_utils/located.py': (
        'import pathlib, sys, textwrap\n'
        'BASE = pathlib.Path(sys.modules["ansible"].__file__).parent\n'
        'textwrap.patched_by = "ansible"\n'),
}
STUB = 'from pkgutil import extend_path\n__path__=extend_path(__path__,__name__)\n'
PAYLOAD_MODULE = '''import json, os, sys, textwrap, traceback
sys.path.insert(0, %r)
import ansible.module_utils.basic as basic
import ansible.module_utils.extra  # in the payload, not preloaded
import ansible
try:
    basic.fail()
except ValueError:
    frame = traceback.extract_tb(sys.exc_info()[2])[-1]
spec = basic.__spec__
print(json.dumps({
    "file": basic.__file__, "cached": basic.__cached__, "loader": [type(basic.__loader__).__name__, basic.__loader__.prefix],
    "spec": [spec.name, spec.origin, spec.parent, spec.has_location, type(spec.loader).__name__],
    "base": str(ansible.module_utils.located.BASE), "traceback": [frame.filename, frame.line],
    "paths": [ansible.__path__, ansible.module_utils.__path__], "stub_names": sorted(vars(ansible.module_utils)),
    "extra": ansible.module_utils.extra.VALUE, "patched_by": textwrap.patched_by,
    "ran_in_zygote": basic.LOADED_IN == int(os.environ["ZYGOTE_PID"])}, sort_keys=True))
'''


@pytest.fixture(scope='module')
def fake_core(tmp_path_factory):
    """A venv with the hook and a stand-in ansible-core, its zygote serving a stage's work directory, and that
    ansible-core's files (what a payload copies)."""
    root = tmp_path_factory.mktemp('core')
    interpreter = hooked_venv(root / 'venv')
    site = subprocess.run([interpreter, '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
                          capture_output=True, text=True, check=True).stdout.strip()
    for path, text in FAKE_CORE.items():
        os.makedirs(os.path.dirname(os.path.join(site, path)), exist_ok=True)
        with open(os.path.join(site, path), 'w') as handle:
            handle.write(text)
    cwd = root / 'work' / 'ansible_collections' / 'engine' / 'cloud'
    cwd.mkdir(parents=True)
    server = start_zygote(interpreter, root / 'work' / 'module-zygote.sock')
    yield interpreter, server, cwd
    server.terminate()
    return_counts = server.communicate(timeout=10)[1]
    assert '1 took over the preloaded module_utils of ansible-core, 2 imported their own' in return_counts


def make_payload(directory, **changed):
    """A payload as ansible builds one: the stubs, byte copies of the module_utils (but those changed), and one more."""
    path = str(directory / 'ansible_probe_payload.zip')
    files = dict(FAKE_CORE, **{'ansible/__init__.py': STUB, 'ansible/module_utils/__init__.py': STUB,
                               'ansible/module_utils/extra.py': 'VALUE = "extra"\n'})
    files.update(changed)
    with zipfile.ZipFile(path, 'w') as payload:
        for name, text in files.items():
            if text is not None:
                payload.writestr(name, text)
    return path


def run_payload(core, cwd, payload, environ=None):
    interpreter, server = core[:2]
    env = clean_environ(ZYGOTE_PID=str(server.pid), **(environ or {}))
    result = subprocess.run([interpreter], input=(PAYLOAD_MODULE % payload).encode(), capture_output=True,
                            cwd=str(cwd), env=env, timeout=60, check=True)
    return json.loads(result.stdout)


@pytest.mark.parametrize('changed, taken_over', [
    ({}, True),
    ({'ansible/module_utils/located.py': FAKE_CORE['ansible/module_utils/located.py'] + '# edited\n'}, False),
    ({'ansible/module_utils/located.py': None}, False),  # missing: ansible.module_utils's path goes on to the venv's
], ids=['same bytes', 'a copy edited', 'a copy missing'])
def test_a_payload_with_the_same_module_utils_takes_over_the_preloaded_ones(fake_core, tmp_path, changed, taken_over):
    """Taken over or not, the module sees its imports exactly as when it runs by itself: files, specs, loaders,
    tracebacks and location-derived globals in the payload, the stubs' own paths, the patch ansible applies."""
    cwd = fake_core[2]
    payload = make_payload(tmp_path, **changed)
    by_itself = run_payload(fake_core, cwd, payload, {'ENGINE_TEST_MODULE_ZYGOTE': 'off'})
    in_zygote = run_payload(fake_core, cwd, payload)
    assert in_zygote.pop('ran_in_zygote') is taken_over
    assert by_itself.pop('ran_in_zygote') is False
    assert in_zygote == by_itself
    assert in_zygote['file'] == payload + '/ansible/module_utils/basic.py'
    assert in_zygote['base'] == payload + '/ansible' and in_zygote['traceback'] == [in_zygote['file'], 'raise ValueError("from basic")']
    assert in_zygote['patched_by'] == 'ansible'


def test_a_module_that_does_not_import_ansible_sees_nothing_of_the_preload(fake_core):
    """The preload's patches of the standard library are undone in the zygote, and its modules are out of sys.modules."""
    interpreter, dummy, cwd = fake_core
    source = 'import sys, textwrap\nprint(hasattr(textwrap, "patched_by"), [n for n in sys.modules if n.startswith("ansible")])\n'
    result = subprocess.run([interpreter], input=source.encode(), capture_output=True, cwd=str(cwd), env=clean_environ(),
                            timeout=60, check=True)
    assert result.stdout == b'False []\n'


# A module that reports how it sees its imports: every ansible.* module's file, cache, path, package, loader and
# spec, a function's file, the location-derived global of ansible-core's deprecator, the finders, the patches.
PROBE = '''#!/usr/bin/python
import collections.abc, dataclasses, json, os, socket, sys, traceback
from ansible.module_utils.basic import AnsibleModule
import ansible


def describe(module):
    spec = module.__spec__
    loader = getattr(module, '__loader__', None)
    return [getattr(module, key, None) for key in ('__file__', '__cached__', '__path__', '__package__')] + [
        type(loader).__name__, getattr(loader, 'prefix', None),
        spec and [spec.name, spec.origin, spec.cached, spec.parent, spec.has_location, spec.submodule_search_locations]]


def main():
    module = AnsibleModule(argument_spec={})
    deprecator = sys.modules.get('ansible.module_utils._internal._deprecator')
    try:
        module.fail_json()
    except TypeError:
        frames = [frame.filename for frame in traceback.extract_tb(sys.exc_info()[2])]
    report = {
        'modules': {name: describe(sys.modules[name]) for name in sorted(sys.modules) if name.startswith('ansible')},
        'stubs': [sorted(vars(ansible)), sorted(vars(ansible.module_utils))],
        'function': AnsibleModule.exit_json.__code__.co_filename, 'frames': frames,
        'base': deprecator and str(deprecator._ANSIBLE_MODULE_BASE_PATH),
        'finders': [type(finder).__name__ for finder in sys.meta_path],
        'patched': [type(sys.intern).__name__, type(socket.getaddrinfo).__name__, type(dataclasses._is_type).__name__,
                    collections.abc.__spec__.name],
        'importers': sorted(key for key in sys.path_importer_cache if '_payload' in key)}
    payload = os.path.dirname(os.path.dirname(ansible.__file__))
    module.exit_json(report=json.loads(json.dumps(report, default=repr).replace(payload, '<payload>')),
                     zygote=int(open('/proc/self/stat').read().split()[0]) != os.getpid())  # a zygote's child


if __name__ == '__main__':
    main()
'''


def test_a_real_module_sees_its_imports_as_by_itself(tmp_path):
    """This venv's ansible-core, through its own zygote: the module takes over the preloaded module_utils, and what
    it sees of every ansible.* module it imported is what it sees without the zygote."""
    hook = os.path.join(sysconfig.get_paths()['purelib'], 'engine_cloud_module_zygote.py')
    if not os.path.exists(hook) or importlib.util.find_spec('ansible') is None:
        pytest.skip('needs the venv with the hook and ansible-core (make venv)')
    (tmp_path / 'library').mkdir()
    (tmp_path / 'library' / 'probe.py').write_text(PROBE)
    socket_path = tmp_path / 'module-zygote.sock'
    server = start_zygote(sys.executable, socket_path)
    try:
        reports = {}
        for zygote in (str(socket_path), 'off'):
            env = clean_environ(ENGINE_TEST_MODULE_ZYGOTE=zygote, ANSIBLE_PIPELINING='1', ANSIBLE_LIBRARY=str(tmp_path / 'library'),
                                ANSIBLE_LOCALHOST_WARNING='0', ANSIBLE_HOME=str(tmp_path))
            result = subprocess.run(
                [os.path.join(os.path.dirname(sys.executable), 'ansible'), 'localhost', '-m', 'probe', '-o',
                 '-e', 'ansible_python_interpreter=%s' % sys.executable],
                capture_output=True, text=True, cwd=str(tmp_path), env=env, timeout=120, check=False)
            assert result.returncode == 0, result.stdout + result.stderr
            reports[zygote] = json.loads(result.stdout.partition('=>')[2])
    finally:
        server.terminate()
        counts = server.communicate(timeout=10)[1]
    assert reports[str(socket_path)].pop('zygote') is True and reports['off'].pop('zygote') is False
    assert reports[str(socket_path)] == reports['off']
    assert reports['off']['report']['function'] == '<payload>/ansible/module_utils/basic.py'
    assert '1 took over the preloaded module_utils of ansible-core, 0 imported their own' in counts
