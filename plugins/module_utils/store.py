# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""State the processes of one controller share (the pacing windows, the shared reads): small JSON files in a directory
only this user can change, each read and rewritten under an exclusive lock."""

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import stat
import tempfile
import types

from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK

DIRECTORY_ENV = 'ENGINE_CLOUD_PACING_DIR'
LOCK_SECONDS = 10.0  # nobody holds a lock longer than a read and a rewrite
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, 'O_NOFOLLOW', 0) | getattr(os, 'O_CLOEXEC', 0)

REFUSED = ('Request pacing and shared reads are off for this task: %s. Their state is kept only in a directory of this '
           'user that no one else can write, below directories that only this user or root can change (or sticky ones, '
           'such as /tmp); set %s to such a directory (a missing one is created with mode 0700): the module never changes '
           'an existing directory')


class Unavailable(Exception):
    """No private directory for the shared state could be had."""


def directory():
    """The state directory: $ENGINE_CLOUD_PACING_DIR, else the first usable of ~/.cache/engine.cloud,
    $XDG_RUNTIME_DIR/engine.cloud and <temporary directory>/engine.cloud-<uid>. The last one is what an execution
    environment offers: its HOME (/runner) is root's and writable by group 0, which the job's arbitrary user is in."""
    explicit = os.environ.get(DIRECTORY_ENV)
    if explicit:
        return private_directory(explicit, os.path.dirname(os.path.abspath(explicit)))
    home, runtime = os.path.expanduser('~'), os.environ.get('XDG_RUNTIME_DIR', '')
    candidates = [(os.path.join(home, '.cache', 'engine.cloud'), home), (os.path.join(runtime, 'engine.cloud'), runtime),
                  (os.path.join(tempfile.gettempdir(), 'engine.cloud-%d' % os.geteuid()), tempfile.gettempdir())]
    refusals = []
    for path, base in candidates:
        if os.path.isabs(base) and os.path.isdir(base):
            try:
                return private_directory(path, base)
            except Unavailable as error:
                refusals.append(str(error))
    raise Unavailable('; '.join(refusals) or 'no usable home or temporary directory')


def private_directory(path, base):
    """The real path of path, a directory of this user that nobody else can write, each directory above it changeable by
    this user or root only (or sticky). Missing directories below base are made with mode 0700; none is ever changed."""
    real, base = os.path.realpath(path), os.path.realpath(base)
    if not os.path.isdir(base):
        raise Unavailable('%s does not exist' % base)
    names = [name for name in real.split(os.sep) if name]
    for depth in range(len(names) + 1):
        current = os.sep + os.sep.join(names[:depth])
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            if not current.startswith(base.rstrip(os.sep) + os.sep):
                raise Unavailable('%s does not exist' % current)
            info = _made(current)
        except OSError as error:
            raise Unavailable('%s: %s' % (current, error.strerror))
        problem = _unsafe_directory(info, depth == len(names))
        if problem:
            raise Unavailable('%s %s' % (current, problem))
    return real


def _made(path):
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass  # made meanwhile by another process: checked as any other
    except OSError as error:
        raise Unavailable('%s cannot be created: %s' % (path, error.strerror))
    return os.lstat(path)


def _unsafe_directory(info, last):
    user, mode = os.geteuid(), stat.S_IMODE(info.st_mode)
    if not stat.S_ISDIR(info.st_mode):
        return 'is not a directory'
    if last:
        if info.st_uid != user:
            return 'belongs to user id %d, not to this user (%d)' % (info.st_uid, user)
        if mode & 0o022:
            return 'can be written by its group or others (mode %04o)' % mode
    elif info.st_uid not in (user, 0):
        return 'belongs to user id %d, neither this user (%d) nor root' % (info.st_uid, user)
    elif mode & 0o022 and not mode & stat.S_ISVTX:
        return 'can be written by its group or others and is not sticky (mode %04o)' % mode
    return None


def file_name(*identity):
    """A file name for what identifies a shared state (an address, a key and its secret, a list), revealing none of it."""
    return hashlib.sha256('\n'.join(('engine.cloud',) + identity).encode('utf-8')).hexdigest() + '.json'


def is_time(value):
    """Whether a value read from a state file is a time (JSON also has NaN, Infinity and huge integers)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and -1e12 <= value <= 1e12


@contextlib.contextmanager
def locked(path):
    """The file at path (made with mode 0600; a link is not followed, a file not this user's alone is refused) under an
    exclusive lock, as its bytes (raw) and JSON value (data, None when it held none or something unreadable); data is
    written back when it changed. A write that fails leaves the file empty, never cut. OSError when the lock cannot be
    had within LOCK_SECONDS."""
    descriptor = os.open(path, _OPEN_FLAGS, 0o600)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            raise PermissionError(errno.EPERM, 'not a regular file of this user alone', path)
        deadline, step = CLOCK.monotonic() + LOCK_SECONDS, 0.001
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if CLOCK.monotonic() > deadline:
                    raise OSError(errno.ETIMEDOUT, 'its lock was held for more than %d s' % LOCK_SECONDS, path)
                CLOCK.sleep(step)
                step = min(step * 2, 0.05)
        raw = b''.join(iter(lambda: os.read(descriptor, 1 << 20), b''))
        try:
            data = json.loads(raw.decode('utf-8')) if raw else None
        except (ValueError, RecursionError):
            data = None
        state = types.SimpleNamespace(raw=raw, data=data)
        yield state
        new = json.dumps(state.data, sort_keys=True, separators=(',', ':')).encode('utf-8')
        if new != raw:
            try:  # in place: truncating first frees and reallocates the file's block on every write
                with os.fdopen(descriptor, 'wb', closefd=False) as handle:
                    handle.seek(0)
                    handle.write(new)
                    handle.truncate()
            except OSError:
                os.ftruncate(descriptor, 0)
                raise
    finally:
        os.close(descriptor)
