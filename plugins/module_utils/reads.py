# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Reads shared by the tasks of one controller that need resources of one list at the same time (a fleet job): one list
request serves them all, so a fleet of N costs about N commands and a few list reads instead of 3N requests. One state
file (store.py) per address, credential, organization and list holds monotonic times and the last list answer, masked.
Every answer is live for the task it serves: a read before acting takes only a list read sent after it asked, a poll
one sent since it last looked (max_age), never one sent before its own last write was answered. A task reads alone
unless another task is live on the list or its play runs other tasks now (play_tasks). A task that saw its resource
settle after a command writes down how long it took; one waiting for the same transition polls no sooner."""

import os

from ansible_collections.engine.cloud.plugins.module_utils import store
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets

SWITCH_ENV = 'ENGINE_CLOUD_SHARED_READS'
GATHER_SECONDS = 1.0
LIVE_SECONDS = 30.0  # a task that read last this long ago and did not leave was killed
ANSWER_SECONDS = 60.0  # an answer older than this serves nobody
JOIN_SECONDS = 60.0  # the longest a task waits for another task's list read
LIST_FAILED_SECONDS = 60.0  # after a failed list read, tasks read alone this long
SETTLED_SECONDS, SETTLED_KEPT = 600.0, 50
ABSENT = object()  # a list answer that does not hold the resource: gone


def for_module(pacer, identity, warn):
    """identity: (address, key id, key secret, organization). Only a paced task shares, in its pacer's directory."""
    if pacer.requests is None or os.environ.get(SWITCH_ENV, '').strip().lower() in ('off', 'false', 'no', '0'):
        return Alone()
    directory = os.path.dirname(pacer.path)
    return SharedReads(lambda collection: os.path.join(directory, store.file_name('reads', *(tuple(identity) + (collection,)))), warn)


class SharedReads:
    def __init__(self, path, warn, play_size=None):
        self.path, self.warn, self.play_size = path, warn, play_size or play_tasks
        self.token, self.wrote_at, self.broken = os.urandom(16).hex(), -1e12, False
        self.seen = {}  # per list: the send time of the newest answer this task took, or of its own last read
        self.lists = set()

    def item(self, collection, item_id, single, send_list, max_age=0):
        """The resource from a shared list read (ABSENT when it does not hold it), or single()."""
        items = self.listing(collection, send_list, max_age)
        return single() if items is None else _find(items, item_id)

    def listing(self, collection, send_list, max_age=0):
        """Every item of the list from a shared read sent after this call (a poll: at most max_age seconds before it), or
        None: the task reads it alone."""
        since, step = max(CLOCK.monotonic() - max_age, self.wrote_at), 0.02
        while True:
            decision = self._update(collection, lambda state, now: self._decide(state, now, collection, since, max_age == 0))
            if decision != 'wait':
                break
            CLOCK.sleep(step)  # another task's list read that serves this one is on its way
            step = min(step * 2, 0.2)
        items = self._lead(collection, send_list, max_age == 0) if decision == 'lead' else decision
        if items is None:
            self.seen[collection] = CLOCK.monotonic()
        return items

    def peek(self, collection, item_id):
        """Without a request: the resource from an answer newer than what this task saw, None for none yet, False when
        no other task reads this list (nothing will come)."""
        def look(state, now):
            if self._live(state, now) < 2:
                return False
            answer = state['answer']
            if answer is None or answer['sent'] <= max(self.wrote_at, self.seen.get(collection, -1e12)):
                return None
            self.seen[collection] = answer['sent']
            return _find(answer['items'], item_id)
        return self._update(collection, look, False)

    def wrote(self):
        self.wrote_at = CLOCK.monotonic()

    def settled(self, collection, what, seconds):
        def add(state, now):
            state['settled'] = [entry for entry in state['settled'] if entry[0] > now - SETTLED_SECONDS][1 - SETTLED_KEPT:]
            state['settled'].append([now, seconds, what])
        self._update(collection, add)

    def settle_hint(self, collection, what):
        """The soonest the tasks of this list saw their resource settle after the command what, or None."""
        recent = self._update(collection, lambda state, now: [seconds for at, seconds, done in state['settled']
                                                              if done == what and at > now - SETTLED_SECONDS])
        return min(recent) if recent else None

    def leave(self):
        def drop(state, now):
            state['live'].pop(self.token, None)
            if not any(seen > now - LIVE_SECONDS for seen in state['live'].values()):
                state['answer'] = None  # nobody left to serve
        for collection in self.lists:
            self._update(collection, drop)

    def _decide(self, state, now, collection, since, before_acting):
        """Under the lock: the items of an answer that serves, 'wait' for a list read on its way, 'lead' one, or None."""
        live = self._live(state, now)
        answer, seen, reading = state['answer'], self.seen.get(collection, -1e12), state['reading']
        if answer is not None and answer['sent'] >= since and answer['sent'] > seen:
            self.seen[collection] = answer['sent']
            return answer['items']
        if reading is not None and (reading['at'] < now - JOIN_SECONDS or not _running(reading['pid'])):
            reading = state['reading'] = None  # its task died or hangs
        if reading is not None:
            return 'wait'
        if state['failed'] > now - LIST_FAILED_SECONDS or (live < 2 and not (before_acting and self.play_size() > 1)):
            return None
        state['reading'] = dict(token=self.token, pid=os.getpid(), at=now, sent=None)
        return 'lead'

    def _lead(self, collection, send_list, gather):
        """Gather the play's other tasks (before acting), send the list read, publish its answer."""
        if gather:
            deadline = CLOCK.monotonic() + GATHER_SECONDS
            while self._update(collection, self._live, 0) < self.play_size() and CLOCK.monotonic() < deadline:
                CLOCK.sleep(0.1)
            if self._update(collection, self._live, 0) < 2:
                self._update(collection, self._publish)
                return None

        def on_send():
            self._update(collection, lambda state, now: state['reading'] and state['reading'].update(sent=now))
        items = None
        try:
            items = send_list(on_send)
        finally:
            self._update(collection, lambda state, now: self._publish(state, now, items, collection))
        return items

    def _publish(self, state, now, items=None, collection=None):
        reading = state['reading']
        if reading is None or reading['token'] != self.token:
            return
        state['reading'] = None
        if reading['sent'] is None:
            return
        if items is None:
            state['failed'] = now  # the tasks that waited, and the next ones, read alone
        elif state['answer'] is None or state['answer']['sent'] <= reading['sent']:
            state['answer'] = dict(sent=reading['sent'], items=mask_secrets(items))
            self.seen[collection] = reading['sent']

    def _live(self, state, now):
        """Mark this task live; how many tasks are."""
        state['live'] = dict((token, seen) for token, seen in state['live'].items() if seen >= now - LIVE_SECONDS)
        state['live'][self.token] = now
        return len(state['live'])

    def _update(self, collection, change, failed=None):
        """change(state, now) under the list's file lock; failed once the file cannot be used (sharing ends)."""
        if self.broken:
            return failed
        self.lists.add(collection)
        try:
            with store.locked(self.path(collection)) as locked:
                state = _valid(locked.data)
                if state is None:
                    if locked.raw:
                        self.warn('Shared reads started afresh: the state file %s was ignored' % self.path(collection))
                    state = dict(live={}, reading=None, answer=None, settled=[], failed=-1e12)
                now = CLOCK.monotonic()
                if state['answer'] is not None and state['answer']['sent'] < now - ANSWER_SECONDS:
                    state['answer'] = None
                result = change(state, now)
                locked.data = state
                return result
        except OSError as error:
            self.broken = True
            self.warn('Shared reads are off for the rest of this task: %s' % error)
            return failed


class Alone(SharedReads):
    """Sharing off: every read is the task's own, as once a state file cannot be used."""

    def __init__(self):
        super(Alone, self).__init__(None, None)
        self.broken = True


def _valid(data):
    """data when it is a state this module wrote (every field and type checked), else None."""
    if not (isinstance(data, dict) and set(data) == {'live', 'reading', 'answer', 'settled', 'failed'} and store.is_time(data['failed'])):
        return None
    live, reading, answer, settled = data['live'], data['reading'], data['answer'], data['settled']
    checks = (isinstance(live, dict) and all(store.is_time(seen) for seen in live.values()),
              reading is None or (isinstance(reading, dict) and set(reading) == {'token', 'pid', 'at', 'sent'}
                                  and isinstance(reading['pid'], int) and store.is_time(reading['at'])
                                  and (reading['sent'] is None or store.is_time(reading['sent']))),
              answer is None or (isinstance(answer, dict) and store.is_time(answer.get('sent'))
                                 and isinstance(answer.get('items'), list) and all(isinstance(item, dict) for item in answer['items'])),
              isinstance(settled, list) and all(isinstance(entry, list) and len(entry) == 3 and store.is_time(entry[0])
                                                and store.is_time(entry[1]) for entry in settled))
    return data if all(checks) else None


def _find(items, item_id):
    return next((item for item in items if item.get('id') == item_id), ABSENT)


def _running(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # another user's: alive
    return True


def _stat(pid, proc):
    """(name, parent pid, state letter) of a process."""
    with open('%s/%d/stat' % (proc, pid), 'rb') as handle:
        data = handle.read().decode('utf-8', 'replace')
    end = data.rindex(')')
    fields = data[end + 2:].split()
    return data[data.index('(') + 1:end], int(fields[1]), fields[0]


def play_tasks(proc='/proc', pid=None):
    """How many tasks this task's ansible-playbook (or ansible) runs now, from /proc (1 where it cannot be read). It forks
    a worker per task and host without exec, so its workers bear its name: of each process above this one whose parent
    has its name, the parent's live children of that name are counted; the most is the answer."""
    counts = [1]
    try:
        name, parent, dummy = _stat(pid or os.getpid(), proc)
        for dummy in range(8):
            if parent <= 1:
                break
            parent_name, grandparent, dummy = _stat(parent, proc)
            if parent_name == name:
                counts.append(_children(parent, name, proc))
            name, parent = parent_name, grandparent
    except (OSError, ValueError, IndexError):
        pass
    return max(counts)


def _children(parent, name, proc):
    try:
        with open('%s/%d/task/%d/children' % (proc, parent, parent), 'rb') as handle:
            candidates = [int(pid) for pid in handle.read().split()]
    except (OSError, ValueError):
        candidates = [int(entry) for entry in os.listdir(proc) if entry.isdigit()]
    count = 0
    for pid in candidates:
        try:
            child_name, child_parent, state = _stat(pid, proc)
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
        count += child_parent == parent and child_name == name and state not in ('Z', 'X')
    return count
