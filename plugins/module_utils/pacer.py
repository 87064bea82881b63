# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Request pacing under an API's rate limit, shared by every process of one controller.

The live APIs count requests per key or token, whatever process sends them (10 per 10 s on the
management API, 100 per 60 s on the observability API). Every process of one user on one machine
that uses the same key (or token) against the same base address (the forks of a play, an ad-hoc
``ansible -f 20``, ansible-runner jobs) shares one small state file, so that together they send at
most N requests in any W seconds. That sliding window stays under any fixed-window count the
server keeps; a process that would go over waits for its slot instead of being refused with 429.

- The file holds times only: the sends of the last window, the reservations of the processes
  waiting for a slot (first come, first served, so a polling wait cannot starve) and the hold that a
  429 sets. It is named by a SHA-256 of the base address and the key id or token, in a directory
  that only this user can change, checked in every component once per run (see state_directory). ``fcntl.flock`` on the file guards each read and
  rewrite; nobody sleeps holding it. A file is opened without following a link and used only if fstat shows a
  regular file of this user that no one else may read or write; what it holds is checked (a file that is not a state
  this module wrote starts afresh, with a warning), and a write that fails (a full disk) leaves it empty, never cut.
- A slot opens MARGIN seconds after the window: the server counts a request when it arrives, the
  pacer when it lets it go. The time in between differs from request to request (a process the
  scheduler runs late, a new connection and its TLS handshake), and if a request was slower than the
  one sent a window later, both would land in one server window. Measured under load against the
  simulator: 4 to 125 ms; 0.5 s also covers a TLS handshake to a remote API, for 5 % of throughput.
- A 429 that comes anyway (another controller with the same key, say) holds every process back
  until the time the server named, or UNNAMED_HOLD seconds when it named none.
- Standard library on purpose: pyrate-limiter (an SQLite bucket behind a file lock) was measured
  against this module (bench/pacer.py, docs/performance.md). It would add two packages to every
  controller and execution environment and about 90 ms of CPU to every task (this module: about
  3 ms, 0.1 ms per request), and it knows neither CLOCK (tests on fake time) nor a hold shared by
  all processes after a 429.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import stat

from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK

DIRECTORY_ENV = 'ENGINE_CLOUD_PACING_DIR'
MARGIN = 0.5
UNNAMED_HOLD = 1.0
# A task or lookup that waited longer than this in all for its slots says so (wait_warning).
WAIT_WARNING_SECONDS = 5.0
# The client never waits longer than this for one 429 (client.RETRY_AFTER_CAP); nor does a hold.
HOLD_CAP = 60.0
_LIMIT = re.compile(r'^\s*([0-9]+)\s*/\s*([0-9]+(?:\.[0-9]+)?)\s*\Z')
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, 'O_NOFOLLOW', 0) | getattr(os, 'O_CLOEXEC', 0)

# An API's live limit per credential, the environment variable that can change it, and the option
# whose value identifies the credential the server counts by.
ApiLimit = collections.namedtuple('ApiLimit', 'requests seconds env credential')


class PacingUnavailable(Exception):
    """No private directory for the pacing state could be had."""


# The warning when no directory is private enough: why, and what to do (the module never changes an existing directory).
REFUSED = ('Request pacing and shared reads are off for this task: %s. Their state (service lists included) is kept only in a '
           'directory of this user that no one else can write, below directories that only this user or root can change; '
           'set %s to such a directory (a missing one is created with mode 0700), or narrow the one named (chmod go-w): '
           'the module never changes an existing directory')


def rate_limit(option, value, live):
    """(limit, error) for a value of the option: limit is (requests, seconds) or None for off, and
    error a message naming the option and the allowed form, or None. No value: the live limit."""
    if value is None or value == '':
        return live, None
    if value is False or (isinstance(value, str) and value.strip().lower() == 'off'):
        return None, None
    match = _LIMIT.match(value) if isinstance(value, str) else None
    if match and int(match.group(1)) >= 1 and float(match.group(2)) > 0:
        return (int(match.group(1)), float(match.group(2))), None
    return live, '%s must be REQUESTS/SECONDS with at least 1 request and more than 0 seconds (for example 20/10), or off; got %r' % (
        option, value)


def state_file_name(base_url, credential):
    """A file name for (base address, key id or token) that reveals neither."""
    identity = 'engine.cloud pacing\n%s\n%s' % (base_url.rstrip('/'), credential)
    return hashlib.sha256(identity.encode('utf-8')).hexdigest() + '.json'


def private_directory(path):
    """The real path of path, a directory of this user that no one else can write, in directories that no one but this
    user or root can change (a sticky one, such as /tmp, aside: no one else can rename or remove what is ours in it).
    Each missing component is created with mode 0700; an existing one is never changed. PacingUnavailable says which
    component is refused and why. Symbolic links are resolved first; a component that is one when checked is refused
    (it was swapped meanwhile). Once checked, no other user can change the path: files are opened in it by path."""
    user = os.geteuid()
    real = os.path.realpath(path)
    current = os.sep
    names = [name for name in real.split(os.sep) if name]
    for depth in range(len(names) + 1):
        current = os.path.join(current, names[depth - 1]) if depth else current
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            info = _made(current)
        except OSError as error:
            raise PacingUnavailable('%s: %s' % (current, error.strerror))
        problem = _unsafe_directory(info, user, depth == len(names))
        if problem:
            raise PacingUnavailable('%s %s' % (current, problem))
    return real


def _made(path):
    """os.lstat of path after creating it with mode 0700 (or finding it, made meanwhile)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass  # made meanwhile: checked as any existing one
    except OSError as error:
        raise PacingUnavailable('%s cannot be created: %s' % (path, error.strerror))
    return os.lstat(path)


def _unsafe_directory(info, user, last):
    """Why a directory (last: the state directory itself, else one above it) is refused, or None."""
    if not stat.S_ISDIR(info.st_mode):
        return 'is not a directory'
    mode = stat.S_IMODE(info.st_mode)
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


def default_directories():
    """Where the state goes without ENGINE_CLOUD_PACING_DIR, first choice first: the user's cache directory in the home
    directory, else the user's runtime directory (XDG_RUNTIME_DIR: /run/user/<uid>, made by the login manager for this
    user alone). Never a name in a shared temporary directory, which another user could take first."""
    home = os.path.expanduser('~')
    if os.path.isabs(home):
        yield os.path.join(home, '.cache', 'engine.cloud', 'pacing')
    runtime = os.environ.get('XDG_RUNTIME_DIR', '')
    if os.path.isabs(runtime):
        yield os.path.join(runtime, 'engine.cloud', 'pacing')


def state_directory():
    """The directory of the pacing and shared-reads files, checked as private_directory does: $ENGINE_CLOUD_PACING_DIR
    when set, else the first of default_directories that is usable. PacingUnavailable says why none is."""
    explicit = os.environ.get(DIRECTORY_ENV)
    if explicit:
        return private_directory(explicit)
    refusals = []
    for path in default_directories():
        try:
            return private_directory(path)
        except PacingUnavailable as error:
            refusals.append(str(error))
    raise PacingUnavailable('; '.join(refusals) or 'no home directory and no XDG_RUNTIME_DIR')


def shared_pacer(limit, base_url, credential, warn):
    """The pacer of (base_url, credential) at limit (requests, seconds); UNPACED when limit is None,
    or when no private directory can be had (warn then says why)."""
    if limit is None:
        return UNPACED
    try:
        directory = state_directory()
    except PacingUnavailable as error:
        warn(REFUSED % (error, DIRECTORY_ENV))
        return UNPACED
    return Pacer(os.path.join(directory, state_file_name(base_url, credential)), limit[0], limit[1], warn=warn)


class Window:
    """The shared state: sends (ascending times; those in the future are reservations) and hold_until."""

    def __init__(self, sends, hold_until):
        self.sends, self.hold_until = sends, hold_until

    @classmethod
    def parse(cls, raw, now, requests, span):
        """(the state in raw bytes, None) or, for bytes that are not a state this module wrote, (an empty state, why).
        An empty file, or times further ahead than a full queue and a hold reach (the clock went back), is an empty
        state without a why."""
        if not raw:
            return cls([], 0.0), None
        data = load_json(raw)
        if not (isinstance(data, dict) and isinstance(data.get('sends'), list) and all(map(is_time, data['sends']))
                and is_time(data.get('hold_until'))):
            return cls([], 0.0), 'it is not a pacing state'
        sends, hold_until = [float(value) for value in data['sends']], float(data['hold_until'])
        reach = now + HOLD_CAP + (len(sends) // requests + 1) * span
        if hold_until > now + HOLD_CAP or any(value > reach for value in sends) or sends != sorted(sends):
            return cls([], 0.0), None
        return cls(sends, hold_until), None

    def dump(self, now, span):
        """The state as text, without the sends that no longer count."""
        recent = [value for value in self.sends if value > now - span]
        return json.dumps(dict(sends=recent, hold_until=self.hold_until if self.hold_until > now else 0.0))

    def reserve(self, now, requests, span):
        """The earliest slot at or after now, after the hold and every earlier reservation, that keeps
        `requests` sends or fewer in any `span`; it is counted at once."""
        slot = max([now, self.hold_until] + self.sends[-1:])
        if len(self.sends) >= requests:
            slot = max(slot, self.sends[-requests] + span)
        self.sends.append(slot)
        return slot

    def keeps(self, slot):
        """Whether a reserved slot still stands; one that a hold has overtaken since is given up."""
        if self.hold_until <= slot:
            return True
        if slot in self.sends:
            self.sends.remove(slot)
        return False


def is_time(value):
    """Whether a value read from a state file is a time: a number (JSON has NaN, Infinity and integers too big for a
    float too) within a trillion seconds of the epoch."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and -1e12 < value < 1e12


def load_json(raw):
    """The JSON value in raw bytes, or None when they hold none (cut, not UTF-8, nested beyond the recursion limit)."""
    try:
        return json.loads(raw.decode('utf-8'))
    except (ValueError, RecursionError):
        return None


class LockedFile:
    """A state file's bytes as read under its lock (raw), and write(new) to put new bytes in their place."""

    def __init__(self, descriptor, raw):
        self.descriptor, self.raw = descriptor, raw

    def write(self, new):
        """Overwritten in place, only when it changed: truncating to 0 first would free the file's block and cost
        most of a pacer acquire's CPU time (bench/pacer.py). A write that fails (a full disk, a file size limit) after
        a part of it leaves the file empty (a fresh state), never cut short, and raises."""
        if new == self.raw:
            return
        try:
            os.lseek(self.descriptor, 0, os.SEEK_SET)
            done = 0
            while done < len(new):
                written = os.write(self.descriptor, new[done:])
                if not written:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                done += written
            if len(new) < len(self.raw):
                os.ftruncate(self.descriptor, len(new))
        except OSError:
            os.ftruncate(self.descriptor, 0)
            self.raw = b''
            raise
        self.raw = new


def unsafe_file(info):
    """Why a state file (os.fstat of it) is not used, or None: it must be a regular file of this user that no one else
    may read or write."""
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISREG(info.st_mode):
        return 'is not a regular file'
    if info.st_uid != os.geteuid():
        return 'belongs to user id %d, not to this user (%d)' % (info.st_uid, os.geteuid())
    if mode & 0o077:
        return 'can be read or written by its group or others (mode %04o)' % mode
    return None


def open_private(path, flags=_OPEN_FLAGS):
    """A descriptor of the file at path (made with mode 0600 when missing, with the default flags), opened without
    following a link and checked by fstat (unsafe_file); a PermissionError names what is wrong."""
    descriptor = os.open(path, flags, 0o600)
    try:
        problem = unsafe_file(os.fstat(descriptor))
    except OSError:
        os.close(descriptor)
        raise
    if problem:
        os.close(descriptor)
        raise PermissionError(errno.EPERM, problem, path)
    return descriptor


@contextlib.contextmanager
def locked_file(path):
    """A private state file (made when missing, checked by open_private) under an exclusive lock, shared by the
    controller's processes (the pacer's window, the shared reads' lists); the lock goes with the close."""
    descriptor = open_private(path)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        chunks = []
        while True:
            chunk = os.read(descriptor, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        yield LockedFile(descriptor, b''.join(chunks))
    finally:
        os.close(descriptor)


class Pacer:
    """At most `requests` sends in any `seconds` (+ margin) among all processes that use one state file."""

    def __init__(self, path, requests, seconds, margin=MARGIN, warn=None):
        self.path, self.requests, self.span = path, requests, seconds + margin
        self.seconds = seconds
        self.warn = warn
        self.broken = False
        self.doubted = False  # a bad state file was warned of
        self.waited = 0.0  # the seconds this process slept for its slots (wait_warning)

    def acquire(self):
        """Wait until one more request fits, count it, and return the time its slot opened."""
        if self.broken:
            return CLOCK.time()
        try:
            return self._acquire()
        except OSError as error:
            self._give_up(error)
            return CLOCK.time()

    def refused(self, wait):
        """The server answered 429: hold every process back `wait` seconds (None: UNNAMED_HOLD)."""
        if self.broken:
            return
        try:
            with self._window() as (window, now):
                seconds = UNNAMED_HOLD if wait is None else min(wait, HOLD_CAP)
                window.hold_until = max(window.hold_until, now + seconds)
        except OSError as error:
            self._give_up(error)

    def _acquire(self):
        while True:
            with self._window() as (window, now):
                slot = window.reserve(now, self.requests, self.span)
            if slot <= now:
                return slot
            self.waited += slot - now
            CLOCK.sleep(slot - now)
            with self._window() as (window, now):
                if window.keeps(slot):
                    return slot

    @contextlib.contextmanager
    def _window(self):
        """The state under the file lock, written back when it changed."""
        with locked_file(self.path) as locked:
            now = CLOCK.time()
            window, problem = Window.parse(locked.raw, now, self.requests, self.span)
            if problem and self.warn and not self.doubted:
                self.doubted = True
                self.warn('Request pacing started afresh: the state file %s was ignored (%s)' % (self.path, problem))
            yield window, now
            locked.write(window.dump(now, self.span).encode('utf-8'))

    def _give_up(self, error):
        self.broken = True
        if self.warn:
            self.warn('Request pacing is off for the rest of this task: %s: %s' % (self.path, error.strerror or error))


def wait_warning(pacer, per, option):
    """A warning for a task (or lookup) that waited more than WAIT_WARNING_SECONDS in all for its slots, or None: how
    long, the budget (per: what the server counts by, 'token'), and option, where the budget is set."""
    waited = getattr(pacer, 'waited', 0.0)
    if waited <= WAIT_WARNING_SECONDS:
        return None
    return ("waited %.1f s in all for the API's rate limit: at most %d requests per %g s per %s, shared by every process of this "
            "controller that uses the same %s; %s sets that budget (raise it only where the server allows more)"
            % (waited, pacer.requests, pacer.seconds, per, per, option))


class Unpaced:
    """Pacing off: every request goes at once."""

    waited = 0.0

    @staticmethod
    def acquire():
        return CLOCK.time()

    @staticmethod
    def refused(wait):
        pass


UNPACED = Unpaced()
