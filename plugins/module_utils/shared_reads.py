# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Reads shared by the processes of one controller: one list request serves every task that needs a
resource of that list at about the same time (a fleet job: one host per service, forks N).

A task reads one service (GET S) or one pipe before it acts and on every poll while it waits. When other
tasks of this controller read resources of the same list (the organization's services, a service's
pipes) at the same time, the read becomes a list read (GET .../services, GET .../pipes) that all of them
share, so that a fleet of N costs about N commands and a few list reads instead of 3N requests under
the rate limit. A task alone sends the single GET it sends without sharing.

- Scope: one state file per base address, API key (id and secret), organization and list path, named by
  a SHA-256 of them, in the pacer's private directory (pacer.state_directory). No two keys and no two
  organizations ever share a read. The file holds times, the resources of the last list answer with
  their secret-bearing fields masked (compare.mask_secrets), and no credential.
- Freshness: a read before acting (fresh) is served only by a list request SENT after the task asked
  for it: whoever asks while a list read is queued (waiting in the pacer) joins it; a list already on
  its way is not fresh enough, and the task queues a new one. A poll (max_age: the seconds since the
  task last looked; base.Wait) may take a list answer sent up to that many seconds ago, never one sent
  before this process's last write was answered, nor one older than what it saw last or than its own last read. A
  stored answer expires after ANSWER_SECONDS (it is then neither served nor kept), and leaves the file with the last
  live task.
- Settle times: a task that saw its resource settle after a command writes down how long that took
  (settled); a task waiting for the same transition polls no sooner than the soonest of them
  (settle_hint, kept SETTLED_SECONDS): the last task of a fleet, alone once the others are done, polls
  when the transition ends instead of every few seconds before.
- Fleet or alone: a task that finds no other live task on the list, and that its play runs alone (no other worker
  of its ansible-playbook at work: play_tasks), reads alone (its own GET, as without sharing). The first task of a
  fleet finds no other task live yet, but its play's other workers already run: it leads the fleet's first list
  read instead of sending a GET of its own that serves nobody else. A task is live from its first shared read
  until its module exits (or for LIVE_SECONDS after its last read, when a process was killed).
- A leader gathers joiners for GATHER_SECONDS, or until every task its play runs is live on the list. When
  nobody joined, it reads alone after all.
- The leader of a list read holds an fcntl lock on a file of its own until the answer is in the state
  file; the tasks that joined wait on that lock for JOIN_SECONDS at most, then read alone (a leader that dies releases
  it; the next task that finds its read takes it off the list and removes its file). Nobody sleeps holding the state
  file's lock.
- A list read that failed (the list endpoint answered an error) is not sent again by the next task: the tasks that
  joined it, and every task for LIST_FAILED_SECONDS, read alone (their own GET reports the error as without sharing).
- The files are the pacer's (pacer.locked_file, pacer.open_private: no link followed, this user's only); a state file
  that is not a state this module wrote is ignored with a warning.
- ENGINE_CLOUD_SHARED_READS=off turns sharing off; so does api_rate_limit=off (no pacing: the reads
  share the pacer's directory and purpose).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re

from ansible_collections.engine.cloud.plugins.module_utils import pacer as pacing
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets

SWITCH_ENV = 'ENGINE_CLOUD_SHARED_READS'
# The leader of a list read waits this long before it asks the pacer for a slot, so that the tasks of a
# fleet that start at about the same time join one read (a task alone never waits: it reads alone).
GATHER_SECONDS = 1.0
GATHER_STEP = 0.1
# A task that read last this long ago, and did not say it left, is no longer live (a killed process).
LIVE_SECONDS = 30.0
# How long, and how many, of the fleet's settle times (a command's answer to the read that showed it done) are kept.
SETTLED_SECONDS, SETTLED_KEPT = 600.0, 50
# A list answer older than this is never served (a poll's max_age may be a whole wait_timeout) and leaves the file.
ANSWER_SECONDS = 60.0
# The longest a task waits for the list read of another task that it joined; then it reads alone.
JOIN_SECONDS = 60.0
JOIN_STEP = 0.05
# After a list read failed, the tasks read alone this long instead of sending the failing list read again.
LIST_FAILED_SECONDS = 60.0
_PROBE_FLAGS = os.O_RDONLY | getattr(os, 'O_NOFOLLOW', 0) | getattr(os, 'O_CLOEXEC', 0)
_TOKEN = re.compile(r'^[0-9a-f]{32}\Z')
# What a list answer says of a resource it does not hold: gone (a 404 of its own GET).
ABSENT = object()


def _process(pid, proc='/proc'):
    """(name, parent pid, state letter) of a process, from /proc/<pid>/stat (Linux)."""
    with open('%s/%d/stat' % (proc, pid), 'rb') as handle:
        data = handle.read().decode('utf-8', 'replace')
    name_end = data.rindex(')')
    fields = data[name_end + 2:].split()
    return data[data.index('(') + 1:name_end], int(fields[1]), fields[0]


def play_tasks(proc='/proc', pid=None):
    """How many tasks this task's ansible-playbook (or ansible) runs right now, this one included: its live workers.
    ansible-playbook forks a worker per task and host without exec, so a worker has its name; this module runs a few
    processes below one (sh, sh, python). Of each process above this one whose parent has its name, the parent's
    children of that name are counted, and the most is the answer. Found through /proc: 1 where it cannot be read."""
    try:
        pairs = []
        name, parent, dummy = _process(pid or os.getpid(), proc)
        for dummy in range(8):
            if parent <= 1:
                break
            parent_name, grandparent, dummy = _process(parent, proc)
            if parent_name == name:
                pairs.append((parent, name))
            name, parent = parent_name, grandparent
        return max([_live_children(parent, name, proc) for parent, name in pairs] or [1]) or 1
    except (OSError, ValueError, IndexError):
        return 1


def _live_children(parent, name, proc):
    """How many live children named name the process parent has: from its main thread's children file where the kernel
    keeps one (ansible-playbook forks its workers from its main thread), else from every process's stat."""
    try:
        with open('%s/%d/task/%d/children' % (proc, parent, parent), 'rb') as handle:
            candidates = [int(pid) for pid in handle.read().split()]
    except (OSError, ValueError):
        candidates = [int(entry) for entry in os.listdir(proc) if entry.isdigit()]
    count = 0
    for pid in candidates:
        try:
            child_name, child_parent, state = _process(pid, proc)
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
        count += child_parent == parent and child_name == name and state not in ('Z', 'X')
    return count


def switched_off():
    return os.environ.get(SWITCH_ENV, '').strip().lower() in ('off', 'false', 'no', '0')


def state_file_name(base_url, key_id, key_secret, organization_id, collection):
    """A file name for the list of one organization as one key sees it, revealing none of them."""
    identity = '\n'.join(('engine.cloud shared reads', base_url.rstrip('/'), key_id, key_secret, organization_id, collection))
    return 'reads-' + hashlib.sha256(identity.encode('utf-8')).hexdigest()


def for_client(client, paced, credentials, warn):
    """The shared reads of a module run: credentials (base_url, key_id, key_secret, organization_id). ALONE
    (every read alone) when switched off, when pacing is off (paced false), or without a private directory."""
    if not paced or switched_off():
        return ALONE
    try:
        directory = pacing.state_directory()
    except pacing.PacingUnavailable as error:
        warn(pacing.REFUSED % (error, pacing.DIRECTORY_ENV))
        return ALONE
    return SharedReads(directory, credentials, warn=warn)


class Alone:
    """Sharing off: every read is the task's own."""

    @staticmethod
    def item(collection, item_id, single, send_list, max_age=0):
        return single()

    @staticmethod
    def listing(collection, send_list):
        return None

    @staticmethod
    def peek(collection, item_id):
        return False

    @staticmethod
    def wrote():
        pass

    @staticmethod
    def settled(collection, what, seconds):
        pass

    @staticmethod
    def settle_hint(collection, what):
        return None

    @staticmethod
    def leave():
        pass


ALONE = Alone()


class SharedReads:
    """The shared reads of one module run (one task) on one key and organization."""

    def __init__(self, directory, credentials, play_size=None, warn=None):
        self.directory, self.credentials = directory, credentials
        self._count_play, self._play = play_size, None
        self.warn = warn
        self.token = os.urandom(16).hex()
        self.wrote_at = 0.0
        self.collections = set()
        self.seen = {}  # per list: the send time of the newest answer this task took, or when it last read alone
        self.doubted = set()  # the lists whose bad state file was warned of

    # --- what callers use ----------------------------------------------------------------------

    def play_size(self):
        """How many tasks this task's play runs at once (play_tasks, or the count given), asked once."""
        if self._play is None:
            self._play = (self._count_play or play_tasks)()
        return self._play

    def item(self, collection, item_id, single, send_list, max_age=0):
        """The resource item_id of the list at collection, as a shared read shows it (ABSENT when the list does not
        hold it), or single() (the task's own GET) when it reads alone. The read was sent after this call (max_age
        0: a read before acting), or at most max_age seconds ago (a poll). send_list(on_send) sends the list read
        and returns its items (None when it failed)."""
        found = self._shared(collection, send_list, max_age)
        if found is None:
            self.seen[collection] = CLOCK.time()  # its own read: no answer sent before it serves a later one
            return single()
        return _find(found, item_id)

    def listing(self, collection, send_list):
        """Every item of the list at collection from a shared list read sent after this call, or None: the task
        reads the list alone."""
        found = self._shared(collection, send_list, 0)
        if found is None:
            self.seen[collection] = CLOCK.time()
        return found

    def peek(self, collection, item_id):
        """Without a request: the resource from a shared answer newer than anything this task has seen (and than
        its last write), None when there is none yet, False when no other task reads this list (nothing will come)."""
        self.collections.add(collection)
        try:
            with self._state(collection) as state:
                now = CLOCK.time()
                if self._live(state, now) < 2:
                    return False
                answer = state['answer']
                if answer is None or answer['sent'] <= max(self.wrote_at, self.seen.get(collection, 0.0), now - ANSWER_SECONDS):
                    return None
                self.seen[collection] = answer['sent']
                items = answer['items']
        except OSError:
            return False
        return _find(items, item_id)

    def wrote(self):
        """This task's write was just answered: no list read sent before now may serve its next reads."""
        self.wrote_at = CLOCK.time()

    def settled(self, collection, what, seconds):
        """This task saw its resource of the list settle this many seconds after the answer to its command what (a state
        command, or create)."""
        try:
            with self._state(collection) as state:
                now = CLOCK.time()
                state['settled'] = [entry for entry in state['settled'] if entry[0] > now - SETTLED_SECONDS][-SETTLED_KEPT + 1:]
                state['settled'].append([now, seconds, what])
        except OSError:
            pass

    def settle_hint(self, collection, what):
        """The seconds after which the tasks of this list saw their resource settle after the command what, at the soonest
        (in the last SETTLED_SECONDS), or None: when a task that waits alone for the same may poll first, instead of
        every few seconds before."""
        try:
            with self._state(collection) as state:
                recent = [seconds for at, seconds, done in state['settled'] if done == what and at > CLOCK.time() - SETTLED_SECONDS]
        except OSError:
            return None
        return min(recent) if recent else None

    def leave(self):
        """This task is done: it no longer makes other tasks read lists."""
        for collection in self.collections:
            try:
                with self._state(collection) as state:
                    state['live'].pop(self.token, None)
                    now = CLOCK.time()
                    if not any(seen >= now - LIVE_SECONDS for seen in state['live'].values()):
                        state['answer'] = None  # nobody left to serve: the list does not stay on disk
            except OSError:
                pass

    # --- the protocol --------------------------------------------------------------------------

    def _shared(self, collection, send_list, max_age):
        """The items of a list read sent at most max_age seconds ago and after this task's last write, or None:
        read alone. A read before acting (max_age 0) gathers joiners first; a poll, already late, does not."""
        self.collections.add(collection)
        since = max(CLOCK.time() - max_age, self.wrote_at)
        try:
            while True:
                with self._state(collection) as state:
                    decision = self._decide(state, collection, since, max_age == 0)
                if decision == 'lead':
                    return self._lead(collection, send_list, GATHER_SECONDS if max_age == 0 else 0)
                if decision == 'alone':
                    return None
                if isinstance(decision, list):
                    return decision
                if not _wait_for(self._lock_path(collection, decision), JOIN_SECONDS):
                    return None  # the leader takes too long: read alone
        except OSError:
            return None

    def _decide(self, state, collection, since, before_acting):
        """Under the state lock: the items of a shared answer that may serve, the token of a read to join,
        'lead' (this task queued a list read) or 'alone'. The first read before acting of a play's fleet leads."""
        now = CLOCK.time()
        live = self._live(state, now)
        answer, seen = state['answer'], self.seen.get(collection, 0.0)
        if answer is not None and answer['sent'] >= since and answer['sent'] > seen:
            self.seen[collection] = answer['sent']
            return answer['items']
        for read in list(state['reads']):
            if not _leader_alive(self._lock_path(collection, read['leader'])):
                state['reads'].remove(read)  # its leader died: its read is taken over, and its file removed
                _remove(self._lock_path(collection, read['leader']))
            elif read['sent'] is None or (read['sent'] >= since and read['sent'] > seen):
                return read['leader']
        if state['failed'] > now - LIST_FAILED_SECONDS or (live < 2 and not (before_acting and self.play_size() > 1)):
            return 'alone'
        if not self._hold_lock(collection):
            return 'alone'
        state['reads'].append(dict(leader=self.token, sent=None))
        return 'lead'

    def _live(self, state, now):
        """Mark this task live; the number of live tasks on the list (those that read last long ago are dropped)."""
        live = state['live']
        for token, seen in list(live.items()):
            if seen < now - LIVE_SECONDS:
                del live[token]
        live[self.token] = now
        return len(live)

    def _lead(self, collection, send_list, gather):
        """Wait up to gather seconds for the play's other tasks to join, send the queued list read (or, when nobody joined,
        nothing: the task reads alone), publish its answer, and let the joined tasks go."""
        if gather and not self._gathered(collection, gather):
            self._withdraw(collection)
            return None

        def on_send():
            with self._state(collection) as state:
                for read in state['reads']:
                    if read['leader'] == self.token:
                        read['sent'] = CLOCK.time()
        items = None
        try:
            items = send_list(on_send)
        finally:
            self._withdraw(collection, items)
        return items

    def _gathered(self, collection, gather):
        """Wait until every task of the play is live on the list, or gather seconds; whether another task is live."""
        for step in range(int(round(gather / GATHER_STEP)) + 1):
            if step:
                CLOCK.sleep(GATHER_STEP)
            with self._state(collection) as state:
                live = self._live(state, CLOCK.time())
            if live >= self.play_size() > 1:
                break
        return live >= 2

    def _withdraw(self, collection, items=None):
        """Take this task's read off the list, publish its answer (items, when it was sent and answered), and let the
        tasks that joined it go."""
        with self._state(collection) as state:
            mine = [read for read in state['reads'] if read['leader'] == self.token]
            for read in mine:
                state['reads'].remove(read)
            answer = state['answer']
            if items is not None and mine and mine[0]['sent'] is not None:
                self.seen[collection] = max(mine[0]['sent'], self.seen.get(collection, 0.0))
                if answer is None or answer['sent'] <= mine[0]['sent']:
                    state['answer'] = dict(sent=mine[0]['sent'], items=mask_secrets(items))
            elif mine and mine[0]['sent'] is not None:
                state['failed'] = CLOCK.time()  # the joined tasks, and the next ones, read alone
        self._release_lock(collection)

    # --- files ---------------------------------------------------------------------------------

    def _path(self, collection):
        return os.path.join(self.directory, state_file_name(*(tuple(self.credentials) + (collection,))))

    def _lock_path(self, collection, token):
        return '%s.%s.lead' % (self._path(collection), token)

    def _hold_lock(self, collection):
        """Create and lock this task's leader file; False when it cannot be had."""
        path = self._lock_path(collection, self.token)
        try:
            descriptor = pacing.open_private(path)
        except OSError:
            return False
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            return False
        self._held = descriptor
        return True

    def _release_lock(self, collection):
        _remove(self._lock_path(collection, self.token))
        os.close(self._held)

    @contextlib.contextmanager
    def _state(self, collection):
        """The state of a list under its file lock, written back when it changed."""
        path = self._path(collection)
        with pacing.locked_file(path) as locked:
            state = _parse(locked.raw)
            if state is None:
                state = _empty()
                if self.warn and collection not in self.doubted:
                    self.doubted.add(collection)
                    self.warn('Shared reads started afresh: the state file %s was ignored (it is not a shared-reads state)' % path)
            answer = state['answer']
            if answer is not None and answer['sent'] < CLOCK.time() - ANSWER_SECONDS:
                state['answer'] = None  # expired
            yield state
            locked.write(json.dumps(state, sort_keys=True, separators=(',', ':')).encode('utf-8'))


def _empty():
    return dict(live={}, reads=[], answer=None, settled=[], failed=0.0)


def _parse(raw):
    """The state in raw bytes (an empty one for none), or None when they are not a state this module wrote: every
    field and its type are checked, so that no value of a wrong type reaches the protocol."""
    if not raw:
        return _empty()
    state = pacing.load_json(raw)
    if not isinstance(state, dict):
        return None
    state.setdefault('settled', [])
    state.setdefault('failed', 0.0)
    if set(state) != set(_empty()) or not pacing.is_time(state['failed']):
        return None
    checks = ((state['live'], dict, lambda token: _TOKEN.match(token) and pacing.is_time(state['live'][token])),
              (state['reads'], list, _is_read), (state['settled'], list, _is_settled))
    if not all(isinstance(value, kind) and all(map(check, value)) for value, kind, check in checks):
        return None
    return state if state['answer'] is None or _is_answer(state['answer']) else None


def _is_read(read):
    return (isinstance(read, dict) and set(read) == {'leader', 'sent'} and isinstance(read['leader'], str)
            and _TOKEN.match(read['leader']) and (read['sent'] is None or pacing.is_time(read['sent'])))


def _is_answer(answer):
    return (isinstance(answer, dict) and set(answer) == {'sent', 'items'} and pacing.is_time(answer['sent'])
            and isinstance(answer['items'], list) and all(isinstance(item, dict) for item in answer['items']))


def _is_settled(entry):
    return (isinstance(entry, list) and len(entry) == 3 and pacing.is_time(entry[0]) and pacing.is_time(entry[1])
            and isinstance(entry[2], str))


def _find(items, item_id):
    for resource in items:
        if resource.get('id') == item_id:
            return resource
    return ABSENT


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _held(descriptor):
    """Whether another process holds the lock of a leader's file (a process that died has released it)."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return True
        raise
    fcntl.flock(descriptor, fcntl.LOCK_UN)
    return False


def _leader_alive(path):
    """Whether the leader of a read still holds its file."""
    try:
        descriptor = pacing.open_private(path, _PROBE_FLAGS)
    except OSError:
        return False
    try:
        return _held(descriptor)
    finally:
        os.close(descriptor)


def _wait_for(path, seconds):
    """Wait until the leader of a read releases its file (its answer is then in the state): True, or False when it
    still holds it after seconds. The lock is tried every JOIN_STEP at most, on the one descriptor."""
    try:
        descriptor = pacing.open_private(path, _PROBE_FLAGS)
    except OSError:
        return True  # gone: released
    try:
        deadline, step = CLOCK.monotonic() + seconds, JOIN_STEP / 8
        while _held(descriptor):
            left = deadline - CLOCK.monotonic()
            if left <= 0:
                return False
            CLOCK.sleep(min(step, left))
            step = min(step * 2, JOIN_STEP)
        return True
    finally:
        os.close(descriptor)
