"""A bytecode cache for zipimport, for this project's test virtualenvs only.

Every module task runs an AnsiballZ process, which imports ansible-core's module_utils and ours from
a zip in a new temporary directory. zipimport cannot write bytecode, so each process compiled every
one of those files from source again: about half of a module process's CPU (service_info 286 ms
against 143 with this cache; ansible.builtin.ping 190 against 108). The test suites start some
1,300 module processes.

With the cache, zipimport's compile step looks up the code by the SHA-1 of the file's source (and the
interpreter's bytecode tag and optimisation level) in <venv>/.zipimport-cache/, and compiles and
stores it only on a miss, as Python does with __pycache__ for files on disk. The module runs the
same source; only the compile is shared. Code read from the cache gets the file name of the zip it
was imported from (as importlib does for .pyc files), so tracebacks name the real path.

    python scripts/zipimport_cache.py install     # into the running interpreter's site-packages
    python scripts/zipimport_cache.py uninstall

Installed, it is a .pth file that imports this module in every process of that venv. It does
nothing for files that are not in a zip, nor when ENGINE_TEST_ZIPIMPORT_CACHE=off (the benchmarks
set it: they measure what a user's module process costs).
"""

import marshal
import os
import sys
import zipimport

NAME = 'engine_cloud_zipimport_cache'
CACHE_DIR = os.path.join(sys.prefix, '.zipimport-cache')


def cached_compile(compile_source, cache_dir=CACHE_DIR):
    """zipimport's _compile_source(pathname, source), with compiled code kept in cache_dir."""
    tag = ('%s-O%d' % (sys.implementation.cache_tag, sys.flags.optimize)).encode()
    # zipimport gets each module's code twice: its find_spec asks for the file name, and zipimport
    # answers that by getting the code (CPython 3.11 to 3.13), then exec_module gets it again. The
    # second request takes the first's code from here instead of reading the cache again.
    fetched = {}

    def compile_or_load(pathname, source):
        first = fetched.pop(pathname, None)
        if first is not None and first[0] == source:
            return first[1]
        code = load_or_compile(pathname, source)
        fetched[pathname] = (source, code)
        return code

    def load_or_compile(pathname, source):
        import _imp
        import hashlib

        key = hashlib.sha1(tag + b'\0' + source, usedforsecurity=False).hexdigest()
        path = os.path.join(cache_dir, key)
        try:
            with open(path, 'rb') as stored:
                code = marshal.load(stored)
        except (OSError, EOFError, ValueError, TypeError):
            code = compile_source(pathname, source)
            _store(path, code)
        else:
            _imp._fix_co_filename(code, pathname)
        return code

    return compile_or_load


def _store(path, code):
    """Write atomically: processes running side by side read a whole entry or none."""
    partial = '%s.%d.tmp' % (path, os.getpid())
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, 'wb') as out:
            marshal.dump(code, out)
        os.replace(partial, path)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass


def enable():
    if os.environ.get('ENGINE_TEST_ZIPIMPORT_CACHE', '').lower() in ('off', '0', 'false', 'no'):
        return
    if not getattr(zipimport._compile_source, 'engine_cloud_cached', False):
        zipimport._compile_source = cached_compile(zipimport._compile_source)
        zipimport._compile_source.engine_cloud_cached = True


if __name__ == '__main__':
    import site_hook  # beside this script; the installed copy is imported as NAME and never gets here
    commands = site_hook.commands(__file__, NAME)
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        sys.exit('usage: %s install|uninstall' % sys.argv[0])
    commands[sys.argv[1]]()
elif __name__ == NAME:
    enable()
