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
  only this user can enter (see state_directory). ``fcntl.flock`` on the file guards each read and
  rewrite; nobody sleeps holding it.
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
import fcntl
import hashlib
import json
import os
import re
import stat
import tempfile

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
    """path as a directory only this user can enter: created with mode 0700 when missing, narrowed to
    0700 when wider; refused when it is not a directory (a symbolic link included) or not ours."""
    try:
        os.makedirs(path, 0o700)
    except FileExistsError:
        pass  # what it is, is checked next
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise PacingUnavailable('%s is not a directory' % path)
    if info.st_uid != os.geteuid():
        raise PacingUnavailable('%s belongs to user id %d, not to this user (%d)' % (path, info.st_uid, os.geteuid()))
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path


def state_directory():
    """The directory of the pacing files: $ENGINE_CLOUD_PACING_DIR when set; else ~/.cache/engine.cloud/pacing;
    else, where HOME is missing or read-only (some execution environments), <temp dir>/engine.cloud-pacing-<uid>."""
    explicit = os.environ.get(DIRECTORY_ENV)
    if explicit:
        return _usable(explicit)
    try:
        return _usable(os.path.join(os.path.expanduser('~'), '.cache', 'engine.cloud', 'pacing'))
    except PacingUnavailable as in_home:
        try:
            return _usable(os.path.join(tempfile.gettempdir(), 'engine.cloud-pacing-%d' % os.geteuid()))
        except PacingUnavailable as in_temp:
            raise PacingUnavailable('%s; %s' % (in_home, in_temp))


def _usable(path):
    try:
        return private_directory(path)
    except OSError as error:
        raise PacingUnavailable('%s: %s' % (path, error.strerror))


def shared_pacer(limit, base_url, credential, warn):
    """The pacer of (base_url, credential) at limit (requests, seconds); UNPACED when limit is None,
    or when no private directory can be had (warn then says why)."""
    if limit is None:
        return UNPACED
    try:
        directory = state_directory()
    except PacingUnavailable as error:
        warn('Request pacing is off for this task: %s. Set %s to a directory that only this user can write.' % (error, DIRECTORY_ENV))
        return UNPACED
    return Pacer(os.path.join(directory, state_file_name(base_url, credential)), limit[0], limit[1], warn=warn)


class Window:
    """The shared state: sends (ascending times; those in the future are reservations) and hold_until."""

    def __init__(self, sends, hold_until):
        self.sends, self.hold_until = sends, hold_until

    @classmethod
    def parse(cls, text, now, requests, span):
        """The state in text; an empty one when text is not a state this clock could have written
        (unreadable, or times further ahead than a full queue and a hold reach: the clock went back)."""
        try:
            data = json.loads(text)
            sends, hold_until = [float(value) for value in data['sends']], float(data['hold_until'])
        except (ValueError, TypeError, KeyError):
            return cls([], 0.0)
        reach = now + HOLD_CAP + (len(sends) // requests + 1) * span
        if hold_until > now + HOLD_CAP or any(value > reach for value in sends) or sends != sorted(sends):
            return cls([], 0.0)
        return cls(sends, hold_until)

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


class LockedFile:
    """A state file's bytes as read under its lock (raw), and write(new) to put new bytes in their place."""

    def __init__(self, descriptor, raw):
        self.descriptor, self.raw = descriptor, raw

    def write(self, new):
        """Overwritten in place, only when it changed: truncating to 0 first would free the file's block and cost
        most of a pacer acquire's CPU time (bench/pacer.py)."""
        if new == self.raw:
            return
        os.lseek(self.descriptor, 0, os.SEEK_SET)
        os.write(self.descriptor, new)
        if len(new) < len(self.raw):
            os.ftruncate(self.descriptor, len(new))


@contextlib.contextmanager
def locked_file(path):
    """A private state file (made when missing) under an exclusive lock, shared by the controller's processes (the pacer's
    window, the shared reads' lists); the lock goes with the close."""
    descriptor = os.open(path, _OPEN_FLAGS, 0o600)
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
            window = Window.parse(locked.raw.decode('utf-8', 'replace'), now, self.requests, self.span)
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
