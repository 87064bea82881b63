"""scripts/zipimport_cache.py, installed into a new venv: imports from a zip are compiled once and
read from the cache after, with the importing zip's own file name; a changed source or a broken
entry is compiled again; ENGINE_TEST_ZIPIMPORT_CACHE=off and uninstall turn it off. In one process,
zipimport's second request for a module's code takes the first one's."""

import importlib.util
import os
import subprocess
import venv
import zipfile

import pytest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      'scripts', 'zipimport_cache.py')

# Prints where the function was compiled from and what it returns.
IMPORT = 'import sys; sys.path.insert(0, sys.argv[1]); import payload; print(payload.where(), payload.value())'
SOURCE = 'import sys\ndef where():\n    return sys._getframe().f_code.co_filename\ndef value():\n    return %r\n'


@pytest.fixture(scope='module')
def env(tmp_path_factory):
    """A venv (no pip) with the cache installed."""
    root = tmp_path_factory.mktemp('venv')
    venv.create(str(root), with_pip=False)
    python = os.path.join(str(root), 'bin', 'python')
    subprocess.run([python, SCRIPT, 'install'], check=True)
    return python, os.path.join(str(root), '.zipimport-cache')


def make_zip(directory, value):
    path = os.path.join(str(directory), 'payload.zip')
    with zipfile.ZipFile(path, 'w') as archive:
        archive.writestr('payload.py', SOURCE % value)
    return path


def run(python, archive, **environ):
    result = subprocess.run([python, '-c', IMPORT, archive], check=True, capture_output=True, text=True,
                            env=dict(os.environ, **environ))
    where, value = result.stdout.split()
    return where, value


def entries(cache):
    return sorted(os.listdir(cache)) if os.path.isdir(cache) else []


def test_second_import_reads_the_cache_with_its_own_file_name(env, tmp_path):
    python, cache = env
    (tmp_path / 'a').mkdir()
    first = make_zip(tmp_path / 'a', 'one')
    assert run(python, first) == (os.path.join(first, 'payload.py'), 'one')
    stored = entries(cache)
    assert len(stored) == 1 and not stored[0].endswith('.tmp')
    mtime = os.stat(os.path.join(cache, stored[0])).st_mtime_ns

    (tmp_path / 'b').mkdir()
    second = make_zip(tmp_path / 'b', 'one')
    assert run(python, second) == (os.path.join(second, 'payload.py'), 'one')
    assert entries(cache) == stored
    assert os.stat(os.path.join(cache, stored[0])).st_mtime_ns == mtime  # read, not written again


def test_a_changed_source_is_compiled_again(env, tmp_path):
    python, cache = env
    before = set(entries(cache))
    assert run(python, make_zip(tmp_path, 'two'))[1] == 'two'
    assert len(set(entries(cache)) - before) == 1


def test_a_broken_entry_is_compiled_again(env, tmp_path):
    python, cache = env
    archive = make_zip(tmp_path, 'three')
    before = set(entries(cache))
    run(python, archive)
    (entry,) = set(entries(cache)) - before
    with open(os.path.join(cache, entry), 'wb') as broken:
        broken.write(b'\xff not marshal')
    assert run(python, archive)[1] == 'three'
    with open(os.path.join(cache, entry), 'rb') as mended:
        assert mended.read(1) != b'\xff'


def test_off_by_environment_and_by_uninstall(env, tmp_path):
    python, cache = env
    before = entries(cache)
    assert run(python, make_zip(tmp_path, 'four'), ENGINE_TEST_ZIPIMPORT_CACHE='off')[1] == 'four'
    assert entries(cache) == before

    subprocess.run([python, SCRIPT, 'uninstall'], check=True)
    try:
        assert run(python, make_zip(tmp_path, 'five'))[1] == 'five'
        assert entries(cache) == before
    finally:
        subprocess.run([python, SCRIPT, 'install'], check=True)


def load_script():
    """The script as a module of another name: loading it does not enable the cache in this process."""
    spec = importlib.util.spec_from_file_location('zipimport_cache_under_test', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_second_request_for_a_module_takes_the_first_code(tmp_path):
    compiled = []

    def compile_source(pathname, source):
        compiled.append(pathname)
        return compile(source, pathname, 'exec')

    get = load_script().cached_compile(compile_source, str(tmp_path))
    first = get('a.zip/m.py', b'x = 1\n')
    assert get('a.zip/m.py', b'x = 1\n') is first  # zipimport's find_spec, then its exec_module
    assert compiled == ['a.zip/m.py'] and len(os.listdir(str(tmp_path))) == 1

    # a new process (a new cached_compile) reads the stored entry once, then hands it on the same way
    again = load_script().cached_compile(compile_source, str(tmp_path))
    loaded = again('b.zip/m.py', b'x = 1\n')
    assert again('b.zip/m.py', b'x = 1\n') is loaded and loaded.co_filename == 'b.zip/m.py'
    assert compiled == ['a.zip/m.py']

    changed = get('a.zip/m.py', b'x = 2\n')
    assert changed is not first and compiled == ['a.zip/m.py', 'a.zip/m.py']
