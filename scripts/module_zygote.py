"""A module zygote for this project's test stages (a test-suite accelerator): the integration stages and the version
matrix's demos (scripts/zygote.sh starts theirs), e2e and the reliability suite (tests/zygote.py).

Every module task starts a Python process that imports the standard library, requests and ansible-core's
module_utils before it runs the module from its AnsiballZ payload, and tears its heap down at exit. The
zygote is a server that has imported those once; for each module process it forks a child that takes over
that process's stdin/stdout/stderr (passed as file descriptors), argv, environment, cwd, umask, and its pid
and parent pid as os.getpid() and os.getppid() answer them, and runs the wrapper as a fresh interpreter
would. The child imports ansible_collections.* from the module's own payload, and ansible.* too unless the
payload holds byte-identical copies of what the zygote preloaded (below), so what runs is exactly what
ansible built.

    python scripts/module_zygote.py serve SOCKET   # scripts/zygote.sh and tests/zygote.py, for one stage
    python scripts/module_zygote.py install        # the hook, into the interpreter's site-packages
    python scripts/module_zygote.py uninstall

The hook is a .pth file that imports this module in every process of the venv. A module process
(python reading the wrapper from stdin, as ansible's pipelining runs it, or python AnsiballZ_x.py)
looks for the zygote of its stage: the socket `module-zygote.sock` in the directory above
`ansible_collections/` of its ANSIBLE_CONFIG or cwd (ansible-test passes few variables on, but
points both into its copy of the collection under scripts/integration.sh's work directory). Found,
the process hands over, passes SIGINT, SIGTERM and SIGHUP on to the child, and exits as the child
exits (by the same signal when a signal killed it); when it dies without a word (SIGKILL, e.g. a
task's timeout) the zygote kills the child. Not found, refused (another interpreter, other flags or
PYTHON* variables, a PYTHONPATH entry that holds a package the zygote imported), or any error: the
process runs the module itself. ENGINE_TEST_MODULE_ZYGOTE=off turns the hook off (and no stage
starts a zygote then); ENGINE_TEST_MODULE_ZYGOTE=/absolute/socket names the zygote instead of the
search (tests/e2e, the reliability suite and the matrix's demos, whose runs are not under ansible_collections/).
The children share the zygote's hash seed.

The preload: the zygote imports the module_utils of its interpreter's own ansible-core that every
module imports (the payload's loader, basic, and what they import: 49 files of 2.19, 0.05 CPU-s a
module process), under stand-ins for the payload's stub packages; it keeps them out of sys.modules and
undoes what they changed elsewhere (ansible-core's patches of sys.intern, socket.getaddrinfo and
dataclasses, six's finder). A child takes them over only when the payload its first `import ansible`
finds holds byte-identical copies of every file the preload ran: the child then runs the payload's own
stubs for `ansible` and `ansible.module_utils`, redoes those changes, and places each module as if
imported from the payload (its __file__, __spec__, __loader__, __path__ and __cached__, its functions'
co_filename, and its globals derived from the package's location point into the payload). Any other
payload (another ansible-core, an edited or missing copy) imports its own. The zygote's last line counts
both (tests/tools/test_module_zygote.py compares what a module sees of its imports either way). What
the preload leaves as it is: the caches of the standard library (re, typing, encodings) and
sys.path_importer_cache, and the shared libraries ansible's selinux shim loads.
"""

import os
import sys

NAME = 'engine_cloud_module_zygote'
SOCKET_NAME = 'module-zygote.sock'
OFF = ('off', '0', 'false', 'no')
# What a module process imports before it imports ansible: imported once, in the zygote.
PREIMPORT = (
    'argparse', 'ast', 'base64', 'binascii', 'bisect', 'calendar', 'collections', 'contextlib', 'copy',
    'dataclasses', 'datetime', 'decimal', 'email.message', 'email.parser', 'email.utils', 'encodings.idna',
    'enum', 'errno', 'fcntl', 'fnmatch', 'functools', 'gettext', 'glob', 'grp', 'hashlib', 'heapq',
    'hmac', 'http.client', 'http.cookiejar', 'importlib.metadata', 'inspect', 'io', 'ipaddress', 'json',
    'locale', 'logging', 'mimetypes', 'numbers', 'pathlib', 'pkgutil', 'platform', 'pwd', 'queue',
    'random', 're', 'runpy', 'select', 'selectors', 'shlex', 'shutil', 'signal', 'socket', 'ssl',
    'string', 'struct', 'subprocess', 'syslog', 'tempfile', 'textwrap', 'threading', 'time',
    'traceback', 'types', 'typing', 'unicodedata', 'urllib.parse', 'urllib.request', 'uuid', 'zipfile',
    'zipimport',
    'certifi', 'charset_normalizer', 'idna', 'requests', 'urllib3',
    'ctypes', 'distro', 'typing_extensions',  # what ansible-core's module_utils import beside the standard library
)
# What every module imports from its payload: 2.19's loader (the wrapper's first import) and basic (2.16's first).
PRELOAD = ('ansible.module_utils._internal._ansiballz._loader', 'ansible.module_utils.basic')
# The payload's own stubs (a path extended over sys.path, ansible-core's version): each child runs them.
STUBS = ('ansible', 'ansible.module_utils')


def _compatibility():
    """What a fresh interpreter fixes at start-up: the zygote serves processes that agree on it."""
    return repr((sys.executable, sys.version, tuple(sys.flags), sys.getfilesystemencoding(),
                 sorted((k, v) for k, v in os.environ.items() if k.startswith('PYTHON') and k != 'PYTHONPATH')))


def _is_module_process():
    """python AnsiballZ_x.py, or python reading the wrapper from its stdin (ansible's pipelining)."""
    if sys.argv == ['']:
        return not os.isatty(0)
    return bool(sys.argv) and os.path.basename(sys.argv[0]).startswith('AnsiballZ_')


def _socket_path():
    named = os.environ.get('ENGINE_TEST_MODULE_ZYGOTE', '')
    if named.startswith('/'):  # a stage that names its zygote (tests/e2e/conftest.py)
        return named if os.path.exists(named) else None
    for place in (os.environ.get('ANSIBLE_CONFIG', ''), os.getcwd()):
        top, found, dummy = place.partition('/ansible_collections/')
        if found:
            path = os.path.join(top, SOCKET_NAME)
            if os.path.exists(path):
                return path
    return None


# ---- the hook: runs in the module process, from the .pth file, before site is done ----

def _recv_exact(conn, size):
    data = b''
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def hand_over():
    """Run this process's module in the zygote; return only when it cannot be done."""
    if os.environ.get('ENGINE_TEST_MODULE_ZYGOTE', '').lower() in OFF:
        return
    if not _is_module_process():
        return
    try:
        path = _socket_path()
        if path is None:
            return
        import _socket
        import marshal
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        conn.connect(path)
    except Exception:  # never fail because of the accelerator
        return
    umask = os.umask(0o22)
    os.umask(umask)
    streams = [(s.encoding, s.errors, s.line_buffering, s.write_through, type(s.buffer).__name__ == 'FileIO')
               if s is not None else None
               for s in (sys.stdin, sys.stdout, sys.stderr)]
    request = marshal.dumps((_compatibility(), list(sys.argv), list(getattr(sys, 'orig_argv', sys.argv)),
                             dict(os.environ), os.getcwd(), umask, list(sys.path), streams, (os.getpid(), os.getppid())))
    fds = [fd for fd in (0, 1, 2) if _is_open(fd)]
    try:
        conn.sendmsg([len(request).to_bytes(8, 'big'), request],
                     [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, bytes(_fd_array(fds)))])
        answer = _recv_exact(conn, 8)
    except Exception:
        conn.close()
        return
    child = int.from_bytes(answer, 'big', signed=True)
    if child <= 0:  # refused
        conn.close()
        return
    # From here on the child runs the module: this process only waits and passes its signals on.
    import _signal
    for number in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
        _signal.signal(number, lambda signum, frame: os.kill(child, signum))
    while True:
        try:
            status = int.from_bytes(_recv_exact(conn, 8), 'big', signed=True)
            break
        except InterruptedError:
            continue
        except Exception:
            os._exit(1)
    if status < 0:  # the child died of signal -status: so does this process
        try:
            _signal.signal(-status, _signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL and SIGSTOP keep theirs
            pass
        os.kill(os.getpid(), -status)
        status = 128 - status
    os._exit(status)


def _is_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def _fd_array(fds):
    import array
    return array.array('i', fds)


# ---- ansible-core's module_utils: imported in the zygote, taken over by a child whose payload holds the same ----

class Preloaded:
    """The module_utils of the zygote's own ansible-core, imported once and kept out of sys.modules."""

    def __init__(self, modules, base, sources, functions, located, changes):
        self.modules = modules  # name -> module, the stubs' stand-ins and what six makes included
        self.base = base  # the ansible package's directory they were imported from
        self.sources = sources  # name -> (path under base, the bytes run, (the spec imported, its attributes as found):
        # None when sys.modules holds another module than its file made: ansible.module_utils.distro puts the system's)
        self.functions = functions  # every function whose code was compiled from a file under base
        self.located = located  # (module name, global name) of the globals that hold a path under base
        self.changes = changes  # what importing them changed outside ansible.*: undone here, redone on adoption

    @classmethod
    def load(cls):
        """Import PRELOAD from this interpreter's ansible-core; None when it has none or a module is not plain source."""
        import gc
        import importlib
        import importlib.util
        import pathlib
        import types

        spec = importlib.util.find_spec('ansible')  # finds, does not run, ansible-core's own __init__
        if spec is None or not spec.submodule_search_locations or 'ansible' in sys.modules:
            return None
        base = spec.submodule_search_locations[0]
        before = _global_state()
        for name in STUBS:
            stand_in = types.ModuleType(name)
            stand_in.__path__ = [os.path.join(base, *name.split('.')[1:])]
            stand_in.__file__ = os.path.join(stand_in.__path__[0], '__init__.py')
            sys.modules[name] = stand_in
        sys.modules['ansible'].module_utils = sys.modules['ansible.module_utils']
        recorder = _Recorder(base)
        sys.meta_path.insert(0, recorder)
        try:
            for name in PRELOAD:
                try:
                    importlib.import_module(name)
                except ModuleNotFoundError as error:  # 2.16 has no _ansiballz; any other failure preloads nothing
                    if not name.startswith(error.name or '-'):
                        raise
        finally:
            sys.meta_path.remove(recorder)
            modules = {name: sys.modules.pop(name) for name in list(sys.modules)
                       if name == 'ansible' or name.startswith('ansible.')}
            changes = _changes(before, _global_state())
            _undo(changes)
        sources = {}
        for name, (found, as_found) in recorder.found.items():
            if not found.origin.endswith('.py'):
                return None  # only a plain source file can be compared with the payload's copy
            with open(found.origin, 'rb') as source:
                sources[name] = (found.origin[len(base) + 1:], source.read(),
                                 (found, as_found) if getattr(modules.get(name), '__spec__', None) is found else None)
        if not sources:
            return None
        functions = [obj for obj in gc.get_objects()
                     if isinstance(obj, types.FunctionType) and obj.__code__.co_filename.startswith(base + os.sep)]
        located = [(name, key) for name, module in modules.items() if name in sources and sources[name][2]
                   for key, value in vars(module).items()
                   if not key.startswith('__') and isinstance(value, (str, pathlib.PurePath))
                   and (str(value) == base or str(value).startswith(base + os.sep))]
        return cls(modules, base, sources, functions, located, changes)

    def matches(self, loader):
        """Whether the payload of a zipimporter holds byte-identical copies of every preloaded module."""
        top = os.path.join(loader.archive, loader.prefix, 'ansible')
        try:
            return all(loader.get_data(os.path.join(top, source[0])) == source[1] for source in self.sources.values())
        except OSError:
            return False

    def adopt(self, ansible_spec):
        """Make the preloaded modules this child's, as if imported from the payload that ansible_spec is in."""
        import importlib.machinery
        import importlib.util
        import pkgutil

        top = os.path.dirname(ansible_spec.origin)
        for name in sorted(self.modules, key=lambda name: name.count('.')):  # parents first
            module = self.modules[name]
            parent = name.rpartition('.')[0]
            if name in STUBS:  # the payload's own stub runs in the stand-in, as a fresh import would run it
                spec = importlib.machinery.PathFinder.find_spec(name, sys.modules[parent].__path__) if parent else ansible_spec
                children = {key: value for key, value in vars(module).items() if isinstance(value, type(sys))}
                module.__dict__.clear()
                module.__init__(name)  # as a new module: its name, and __doc__, __package__, __loader__, __spec__ None
                _place(module, name, spec)
                spec.loader.exec_module(module)
                vars(module).update(children)  # the submodules the import system set on it in the zygote
            elif name in self.sources and self.sources[name][2]:
                path, dummy, (imported, as_found) = self.sources[name]
                origin = os.path.join(top, path)
                package = as_found['submodule_search_locations'] is not None
                entry = os.path.dirname(os.path.dirname(origin) if package else origin)
                spec = importlib.util.spec_from_file_location(name, origin, loader=pkgutil.get_importer(entry),
                                                              submodule_search_locations=[] if package else None)
                for key, value in vars(imported).items():  # what the module's code changed in its spec (six's search path)
                    if key not in ('_initializing', '_cached') and as_found.get(key, _MISSING) is not value:
                        setattr(spec, key, value)
                _place(module, name, spec, imported, as_found)
            else:
                sys.modules[name] = module
        _redo(self.changes)
        relocated = {}
        for function in self.functions:
            function.__code__ = _relocate(function.__code__, self.base, top, relocated)
        for name, key in self.located:
            value = getattr(self.modules[name], key)
            setattr(self.modules[name], key, type(value)(top + str(value)[len(self.base):]))


_LISTS = ('meta_path', 'path_hooks', 'path')  # the lists of sys that steer imports (six adds a finder)
_MISSING = object()


def _global_state():
    """The globals of every module outside ansible.* (bindings, not their caches' contents), and sys's lists."""
    modules = {name: (module, dict(vars(module))) for name, module in list(sys.modules.items())
               if module is not None and name != '__main__' and name != 'ansible' and not name.startswith('ansible.')}
    return modules, {name: list(getattr(sys, name)) for name in _LISTS}


def _changes(before, after):
    """What changed between two _global_state(): (module, name, old, new) of each rebound global, and for each
    list of sys what was added and removed. ansible-core's module_utils patch sys.intern, socket.getaddrinfo and
    dataclasses._is_type where the interpreter needs it."""
    rebound = []
    for name, (module, old_globals) in before[0].items():
        new_globals = after[0].get(name, (module, vars(module)))[1]
        for key in set(old_globals) | set(new_globals):
            old, new = old_globals.get(key, _MISSING), new_globals.get(key, _MISSING)
            if old is not new:
                rebound.append((module, key, old, new))
    lists = [(name, [item for item in after[1][name] if item not in before[1][name]],
              [item for item in before[1][name] if item not in after[1][name]], before[1][name]) for name in _LISTS]
    return rebound, lists


def _set(module, key, value):
    if value is _MISSING:
        if hasattr(module, key):
            delattr(module, key)
    else:
        setattr(module, key, value)


def _undo(changes):
    rebound, lists = changes
    for module, key, old, dummy in rebound:
        _set(module, key, old)
    for name, dummy, dummy, old in lists:
        getattr(sys, name)[:] = old


def _redo(changes):
    rebound, lists = changes
    for module, key, dummy, new in rebound:
        _set(module, key, new)
    for name, added, removed, dummy in lists:
        items = getattr(sys, name)
        items[:] = [item for item in items if item not in removed] + added


class _Recorder:
    """The preload's first finder: notes the spec of every module found in a file under base, as found."""

    def __init__(self, base):
        self.base = base
        self.found = {}

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery
        if not name.startswith('ansible.'):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and (spec.origin or '').startswith(self.base + os.sep):
            self.found[name] = (spec, dict(vars(spec)))  # and its attributes before the module's code ran
        return spec


def _place(module, name, spec, imported=None, as_found=None):
    """Give a module the attributes the import system gives one it loads from spec. A module the zygote imported
    from spec imported (whose attributes were as_found) keeps those its own code changed (six sets __path__ to [])."""
    import importlib.util
    new = {'__spec__': spec, '__loader__': spec.loader, '__package__': spec.parent}
    if spec.submodule_search_locations is not None:
        new['__path__'] = spec.submodule_search_locations
    if spec.has_location:
        new['__file__'] = spec.origin
        if spec.cached is not None:
            new['__cached__'] = spec.cached
    if imported is not None:
        old = {'__spec__': imported, '__loader__': as_found['loader'], '__package__': imported.parent,
               '__path__': as_found['submodule_search_locations'], '__file__': as_found['origin'],
               '__cached__': importlib.util.cache_from_source(as_found['origin'])}
        new = {key: value for key, value in new.items() if _same(vars(module).get(key, _MISSING), old[key])}
    for key, value in new.items():
        setattr(module, key, value)
    sys.modules[name] = module


def _same(value, imported):
    return value is imported or isinstance(imported, str) and value == imported


def _relocate(code, old, new, done):
    """code, and the code objects it holds, as compiled from the file of the same name under new."""
    if id(code) not in done:  # by identity: code objects of equal content compare equal whatever their file
        consts = tuple(_relocate(const, old, new, done) if isinstance(const, type(code)) else const
                       for const in code.co_consts)
        filename = code.co_filename
        if filename.startswith(old + os.sep):
            filename = new + filename[len(old):]
        done[id(code)] = code.replace(co_filename=filename, co_consts=consts)
    return done[id(code)]


class _Adoption:
    """A child's first finder: at the first `import ansible` it decides whether the child takes over the preloaded
    module_utils (the payload found holds the same bytes) or imports its own; either way it then leaves sys.meta_path."""

    def __init__(self, preloaded, report):
        self.preloaded = preloaded
        self.report = report  # the zygote's count: b'A' taken over, b'O' its own

    def find_spec(self, name, path=None, target=None):
        import importlib.util
        import zipimport
        if name != 'ansible':
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)  # what the other finders answer
        if spec is None or not isinstance(spec.loader, zipimport.zipimporter) or not self.preloaded.matches(spec.loader):
            self.report(b'O')
            return spec
        self.report(b'A')
        import copy
        adopting = copy.copy(spec)
        adopting.loader = _AdoptingLoader(self.preloaded, spec)
        return adopting


class _AdoptingLoader:
    """The loader of `ansible` in a child that takes the preload over: the stand-in is the module, adopt() runs in it."""

    def __init__(self, preloaded, spec):
        self.preloaded = preloaded
        self.spec = spec

    def create_module(self, spec):
        return self.preloaded.modules['ansible']

    def exec_module(self, module):
        self.preloaded.adopt(self.spec)


# ---- the zygote ----

def serve(path):
    import gc
    import importlib
    import selectors
    import signal
    import socket
    import threading

    for name in PREIMPORT:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    try:
        preloaded = Preloaded.load()
    except Exception as error:  # never fail because of the accelerator: the children import their own
        sys.stderr.write('module zygote: ansible-core\'s module_utils not preloaded (%r)\n' % (error,))
        preloaded = None
    reports, report = os.pipe()  # each child that imports ansible writes a byte: b'A' taken over, b'O' its own
    os.set_blocking(reports, False)
    counts = {b'A': 0, b'O': 0}
    compatibility = _compatibility()
    gc.freeze()  # the children's collections leave the zygote's objects alone (and their pages shared)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)
    listener.bind(path + '.new')
    listener.listen(64)
    os.replace(path + '.new', path)  # a client finds the socket only once it accepts
    stop_signals = {signal.SIGTERM, signal.SIGINT}

    def stop(*args):
        raise _Stop

    for number in stop_signals:
        signal.signal(number, stop)
    select = selectors.DefaultSelector()
    select.register(listener, selectors.EVENT_READ, 'listener')
    select.register(reports, selectors.EVENT_READ, 'reports')
    children = {}  # pid -> (connection, pidfd)
    parent = os.getpid()
    served = 0
    try:
        while True:
            events = select.select()
            # A stop request waits while the bookkeeping of the children is half done.
            signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
            for key, dummy in events:
                kind = key.data
                if kind == 'listener':
                    conn = listener.accept()[0]
                    job = _receive(conn, compatibility)
                    if job is None:
                        conn.close()
                        continue
                    if threading.active_count() != 1:
                        raise RuntimeError('module zygote: a thread started; it must fork single-threaded')
                    pid = os.fork()
                    if pid == 0:
                        signal.pthread_sigmask(signal.SIG_UNBLOCK, stop_signals)
                        select.close()
                        listener.close()
                        for other, pidfd in children.values():
                            other.close()
                            os.close(pidfd)
                        conn.close()
                        os.close(reports)
                        job['preloaded'], job['report'] = preloaded, report
                        return job
                    for fd in job['fds']:
                        os.close(fd)
                    served += 1
                    pidfd = os.pidfd_open(pid)
                    children[pid] = (conn, pidfd)
                    select.register(pidfd, selectors.EVENT_READ, ('exited', pid))
                    select.register(conn, selectors.EVENT_READ, ('client', pid))
                    conn.sendall(pid.to_bytes(8, 'big', signed=True))
                elif kind == 'reports':
                    _count(reports, counts)
                elif kind[0] == 'exited':
                    status = os.waitpid(kind[1], 0)[1]
                    conn, pidfd = children.pop(kind[1])
                    select.unregister(pidfd)
                    if conn in select.get_map():
                        select.unregister(conn)
                    os.close(pidfd)
                    code = os.waitstatus_to_exitcode(status)
                    try:
                        conn.sendall(code.to_bytes(8, 'big', signed=True))
                    except OSError:
                        pass
                    conn.close()
                elif kind[0] == 'client' and kind[1] in children:
                    # the module process went away (killed, e.g. a task's timeout): so does its child
                    if not key.fileobj.recv(1, socket.MSG_PEEK):
                        os.kill(kind[1], signal.SIGKILL)
                        select.unregister(key.fileobj)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, stop_signals)
    except _Stop:
        pass
    finally:
        if os.getpid() == parent:
            for pid in children:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)  # reaped here, so that the stage's CPU figures count them
            try:
                os.unlink(path)
            except OSError:
                pass
            import resource
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            _count(reports, counts)
            sys.stderr.write('module zygote: %d module processes forked (%.1f CPU-s), %d refused; '
                             '%d took over the preloaded module_utils of ansible-core, %d imported their own%s\n'
                             % (served, usage.ru_utime + usage.ru_stime, _receive.refused, counts[b'A'], counts[b'O'],
                                '' if preloaded else ' (none preloaded)'))
    return None


def _count(reports, counts):
    """Add what the children have written to the reports pipe so far."""
    while True:
        try:
            data = os.read(reports, 4096)
        except BlockingIOError:
            return
        if not data:
            return
        for byte in counts:
            counts[byte] += data.count(byte)


def _receive(conn, compatibility):
    import array
    import marshal
    import socket
    try:
        head, fds = b'', []
        msg, ancdata = conn.recvmsg(8, socket.CMSG_SPACE(3 * array.array('i').itemsize))[:2]
        for level, kind, data in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.extend(array.array('i', data[:len(data) - len(data) % 4]))
        head = msg + _recv_exact(conn, 8 - len(msg)) if len(msg) < 8 else msg
        request = marshal.loads(_recv_exact(conn, int.from_bytes(head, 'big')))
        wanted, argv, orig_argv, environ, cwd, umask, path, streams, identity = request
    except Exception:
        return None
    if wanted != compatibility or _shadows(path) or len(fds) != sum(1 for s in streams if s is not None):
        _receive.refused += 1
        if _receive.refused == 1:
            sys.stderr.write('module zygote: a module process of another interpreter or settings runs '
                             'by itself (%s against %s)\n' % (wanted, compatibility))
        for fd in fds:
            os.close(fd)
        conn.sendall((0).to_bytes(8, 'big', signed=True))
        return None
    return {'fds': fds, 'argv': argv, 'orig_argv': orig_argv, 'environ': environ, 'cwd': cwd,
            'umask': umask, 'path': path, 'streams': streams, 'identity': identity}


_receive.refused = 0


class _Stop(Exception):
    pass


_SHADOWS = {}


def _shadows(path, _seen=None):
    """Whether a directory on the client's sys.path (PYTHONPATH) but not the zygote's holds a
    package the zygote imported: the client would import its own, so it runs by itself."""
    _seen = _SHADOWS if _seen is None else _seen
    extra = tuple(entry for entry in path if entry not in sys.path)
    if extra not in _seen:
        names = {name.partition('.')[0] for name in PREIMPORT}
        _seen[extra] = any(os.path.exists(os.path.join(entry or '.', name + suffix))
                           for entry in extra for name in names for suffix in ('', '.py'))
    return _seen[extra]


def run_child(job):
    """In the forked child: become the module process, run the AnsiballZ file, exit as python would."""
    import builtins
    import importlib.machinery
    import io
    import locale
    import signal
    import types

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    fds = iter(job['fds'])
    for target, stream in enumerate(job['streams']):
        if stream is not None:
            fd = next(fds)
            os.dup2(fd, target)
            os.close(fd)
    os.environ.clear()
    os.environ.update(job['environ'])
    # The module process's pid and parent: a module that finds its ansible-playbook through /proc from os.getpid()
    # (the collection's play_reads and shared_reads) must find the one that started the module process, not the
    # zygote. That process lives exactly as long as the child, and a signal sent to it reaches the child.
    _OWN_PID[0] = os.getpid()
    pid, ppid = job['identity']
    os.getpid = lambda: pid
    os.getppid = lambda: ppid
    os.chdir(job['cwd'])
    os.umask(job['umask'])
    try:
        locale.setlocale(locale.LC_CTYPE, '')
    except locale.Error:
        pass
    new = []
    for fd, stream in enumerate(job['streams']):
        if stream is None:
            new.append(None)
            continue
        encoding, errors, line_buffering, write_through, raw = stream
        binary = io.open(fd, 'rb' if fd == 0 else 'wb', buffering=0 if raw else -1, closefd=False)
        new.append(io.TextIOWrapper(binary, encoding, errors, newline='\n', line_buffering=line_buffering,
                                    write_through=write_through))
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__ = new
    sys.argv = job['argv']
    sys.orig_argv = job['orig_argv']
    sys.path[:] = job['path']
    main = types.ModuleType('__main__')
    main.__builtins__ = builtins
    if sys.argv == ['']:  # the script is the whole of stdin, as python reads it
        script = '<stdin>'
        path0 = ''
        main.__file__ = script
        main.__loader__ = importlib.machinery.BuiltinImporter
    else:  # named as python names its script: joined to the cwd, not normalised
        script = os.path.join(job['cwd'], sys.argv[0])
        path0 = os.path.dirname(os.path.realpath(script))
        main.__file__ = script
        main.__loader__ = importlib.machinery.SourceFileLoader('__main__', script)
    if not sys.flags.safe_path:
        sys.path.insert(0, path0)
    sys.modules['__main__'] = main
    if job['preloaded'] is not None:
        sys.meta_path.insert(0, _Adoption(job['preloaded'], lambda byte: os.write(job['report'], byte)))
    try:
        if script == '<stdin>':
            code = compile(sys.stdin.buffer.read(), script, 'exec')
        else:
            with open(script, 'rb') as source:
                code = compile(source.read(), script, 'exec')
        exec(code, main.__dict__)
        status = 0
    except SystemExit as error:
        status = _exit_status(error)
    except BaseException as error:
        # The traceback as a fresh interpreter prints it: from the script's own frame on.
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next
        error.__traceback__ = tb  # None for a SyntaxError of the script: python prints no traceback then
        sys.excepthook(type(error), error, error.__traceback__)
        status = -signal.SIGINT if isinstance(error, KeyboardInterrupt) else 1
    _exit(status)


_OWN_PID = [None]


def _exit_status(error):
    """python's own handling of an uncaught SystemExit."""
    if error.code is None:
        return 0
    if isinstance(error.code, int):
        return error.code
    try:
        sys.stderr.write('%s\n' % (error.code,))
    except Exception:
        pass
    return 1


def _exit(status):
    """Exit as python's finalisation does what a module can see (threads joined, atexit, stdout and
    stderr flushed), without tearing down the zygote's inherited heap object by object: that alone
    cost a child about as much CPU as its module."""
    import atexit
    import signal
    import threading
    try:
        threading._shutdown()
    except Exception:
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            status = 120 if status == 0 else status
    if status < 0:  # died of an uncaught KeyboardInterrupt: python re-raises SIGINT
        signal.signal(-status, signal.SIG_DFL)
        os.kill(_OWN_PID[0], -status)  # this process, whatever os.getpid() answers the module
    os._exit(status & 0xff if isinstance(status, int) else 1)


def main(args):
    if args[:1] == ['serve'] and len(args) == 2:
        job = serve(args[1])
        if job is not None:
            run_child(job)
        return
    import site_hook  # pylint: disable=import-outside-toplevel  # beside this script; the installed copy never runs main
    commands = site_hook.commands(__file__, NAME)
    if len(args) != 1 or args[0] not in commands:
        sys.exit('usage: %s serve SOCKET | install | uninstall' % sys.argv[0])
    commands[args[0]]()


if __name__ == '__main__':
    main(sys.argv[1:])
elif __name__ == NAME:
    hand_over()
