# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""List reads kept for the later tasks of one playbook run, so that a play of many tasks on one API pays one
list read where every task paid its own read (a no-op apply of 30 dashboards and 200 alerts: 2 reads, not 430).

shared_reads.py shares a read among tasks that run at the same time (the forks of a fleet); this module keeps a
list answer for the tasks that come after it in the same run of ansible-playbook (a loop, the next task).

- Scope: one state file per API base address, credential (every connection option of the API, key or token
  included) and controller process (the ansible-playbook or ansible process that forked this task's worker,
  by its pid and start time: controller_process), named by a SHA-256 of them, in the pacer's private
  directory (pacer.state_directory, through its locked_file). No two tokens, URLs or playbook runs share a read.
- What is kept: the last answer of each list (secret-bearing fields masked) with the time its read was asked
  for (at or before the request left). Only the reads before acting of the lifecycle modules (service, pipe,
  dashboard, alert: Lifecycle.find, and the dashboards an alert resolves its tile on) take a kept answer;
  info modules, polls, the re-reads after a lost answer and every read after the first one of a task are live.
- Freshness: an answer serves while it is at most MAX_AGE seconds old and was asked for after the last write
  that any task of this run sent through this scope was answered (a write, its answer lost included, drops what
  is kept). An absent object is never taken from a kept answer: a task that does not find its object there
  reads it live. A task that finds a difference in a kept answer reads the object again, live, and plans and
  writes from that read (EngineModule.fresh): a write is never built on a kept answer.
- Why MAX_AGE is 60 s: it is the length of the observability API's rate window, so a play of any length pays
  at most one read of each list a minute (2 of the token's 100 requests: the dashboards and the alerts), and a
  change made outside the play (the UI, another controller) shows to the play's no-op decisions at most a
  minute late; a write is never built on it. ENGINE_CLOUD_READ_REUSE sets other seconds, or off.
- By id: a task that reads its object by id reads it alone (one GET, as without reuse) until the run has read
  SINGLES_BEFORE_LIST other objects of that list by id; the next one reads the list and keeps it. A play of
  one task pays no list; a loop of N pays SINGLES_BEFORE_LIST + 1 reads.
- Off, as the shared reads are, when the API is not paced (api_rate_limit=off), when no controller process
  can be found (a module run by other means), or without a private directory.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import hashlib
import json
import os

from ansible_collections.engine.cloud.plugins.module_utils import pacer as pacing
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets

SWITCH_ENV = 'ENGINE_CLOUD_READ_REUSE'
MAX_AGE = 60.0
SINGLES_BEFORE_LIST = 2
PREFIX = 'play-reads-'


def max_age():
    """The age bound in seconds from ENGINE_CLOUD_READ_REUSE (MAX_AGE when unset), or 0: off."""
    value = os.environ.get(SWITCH_ENV, '').strip().lower()
    if not value:
        return MAX_AGE
    if value in ('off', 'false', 'no'):
        return 0.0
    try:
        return max(float(value), 0.0)
    except ValueError:
        return MAX_AGE


def _stat(pid, proc):
    """(parent pid, start time in clock ticks) of a process, from /proc/<pid>/stat."""
    with open('%s/%d/stat' % (proc, pid), 'rb') as handle:
        fields = handle.read().decode('utf-8', 'replace').rpartition(')')[2].split()
    return int(fields[1]), fields[19]


def _cmdline(pid, proc):
    with open('%s/%d/cmdline' % (proc, pid), 'rb') as handle:
        return handle.read()


def controller_process(proc='/proc', pid=None):
    """'pid:start' of the ansible-playbook (or ansible) process whose worker runs this task, or None. A worker is a
    fork of it (no exec: the same command line as its parent); the module runs a few processes below the worker.
    The highest of a chain of processes with one command line that names ansible is the controller."""
    try:
        pid = pid or os.getpid()
        parent, dummy = _stat(pid, proc)
        line = _cmdline(pid, proc)
        found = None
        for dummy in range(12):
            if parent <= 1:
                break
            parent_line = _cmdline(parent, proc)
            if parent_line and parent_line == line and b'ansible' in line:
                found = parent
            elif found is not None:
                break
            pid, line = parent, parent_line
            parent, dummy = _stat(pid, proc)
        return None if found is None else '%d:%s' % (found, _stat(found, proc)[1])
    except (OSError, ValueError, IndexError):
        return None


def for_module(scope, paced, warn):
    """The kept reads of a module run: scope is (base address, every connection option value of the API). NONE
    (every read live) when the API is not paced, when switched off, outside a playbook run, or without a private
    directory."""
    age = max_age()
    if not paced or not age:
        return NONE
    play = controller_process()
    if play is None:
        return NONE
    try:
        directory = pacing.state_directory()
    except pacing.PacingUnavailable as error:
        warn('Reads are not kept for the next tasks: %s' % error)
        return NONE
    return PlayReads(directory, tuple(scope) + (play,), age)


def state_file_name(scope):
    identity = '\n'.join(('engine.cloud play reads',) + tuple('' if value is None else str(value) for value in scope))
    return PREFIX + hashlib.sha256(identity.encode('utf-8')).hexdigest() + '.json'


class NoReads:
    """Nothing kept: every read is live."""

    @staticmethod
    def item(collection, item_id, single, listing):
        return single()

    @staticmethod
    def listing(collection, listing, holds=None):
        return listing()

    @staticmethod
    def wrote():
        pass

    @staticmethod
    def kept(resource):
        return False


NONE = NoReads()


class PlayReads:
    """The kept list reads of one scope (API, credential, playbook run), for one task."""

    def __init__(self, directory, scope, age=MAX_AGE):
        self.directory, self.age = directory, age
        self.path = os.path.join(directory, state_file_name(scope))
        self.taken = []  # the kept answers this task took (lists of resources), to tell kept resources from live ones

    def item(self, collection, item_id, single, listing):
        """The resource item_id of the list at collection: from a kept answer that holds it; else single() (its own
        read, live); or, once the run has read SINGLES_BEFORE_LIST other resources of the list by id, from listing()
        (a live list read, then kept), or single() when that list does not hold it."""
        try:
            with self._state() as state:
                items = self._fresh(state, collection)
                found = None if items is None else _find(items, item_id)
                if found is not None:
                    self.taken.append(items)
                    return found
                singles = [other for other in state['singles'].get(collection, []) if other != item_id]
                by_list = len(singles) >= SINGLES_BEFORE_LIST
                state['singles'][collection] = (singles + [item_id])[-SINGLES_BEFORE_LIST:]
        except OSError:
            return single()
        if not by_list:
            return single()
        listed = self._read(collection, listing)
        found = _find(listed, item_id) if isinstance(listed, list) else None
        return single() if found is None else found

    def listing(self, collection, listing, holds=None):
        """Every item of the list at collection: a kept answer (that holds(items) says serves), or listing() (a live
        read, then kept)."""
        try:
            with self._state() as state:
                items = self._fresh(state, collection)
        except OSError:
            items = None
        if items is not None and (holds is None or holds(items)):
            self.taken.append(items)
            return items
        return self._read(collection, listing)

    def wrote(self):
        """A write of this scope was just answered (or its answer lost): nothing read before now serves any task."""
        try:
            with self._state() as state:
                state['wrote'] = CLOCK.time()
                state['lists'] = {}
        except OSError:
            pass

    def kept(self, resource):
        """Whether resource came from a kept answer (not from a read of this task)."""
        return any(resource is item for items in self.taken for item in items)

    # --- the state file --------------------------------------------------------------------------

    def _read(self, collection, listing):
        """listing() (live), kept for the next tasks when no write was answered since it was asked for."""
        asked = CLOCK.time()
        items = listing()
        if isinstance(items, list):
            try:
                with self._state() as state:
                    kept = state['lists'].get(collection)
                    if asked >= state['wrote'] and (kept is None or kept['asked'] <= asked):
                        state['lists'][collection] = dict(asked=asked, items=mask_secrets(items))
                self._sweep()
            except OSError:
                pass
        return items

    def _fresh(self, state, collection):
        kept = state['lists'].get(collection)
        now = CLOCK.time()
        if kept is None or kept['asked'] < state['wrote'] or not now - self.age <= kept['asked'] <= now:
            return None
        return kept['items']

    @contextlib.contextmanager
    def _state(self):
        """The state of the scope under its file lock (pacer.locked_file), written back when it changed."""
        with pacing.locked_file(self.path) as locked:
            state = _parse(locked.raw)
            yield state
            locked.write(json.dumps(state, sort_keys=True, separators=(',', ':')).encode('utf-8'))

    def _sweep(self):
        """Remove the files of runs that kept nothing for twice the age (what they hold can no longer serve)."""
        limit = CLOCK.time() - 2 * self.age
        try:
            for entry in os.scandir(self.directory):
                if entry.name.startswith(PREFIX) and entry.path != self.path and entry.stat(follow_symlinks=False).st_mtime < limit:
                    os.unlink(entry.path)
        except OSError:
            pass


def _parse(raw):
    """The state in raw bytes; an empty one when they are not a state this module wrote."""
    try:
        state = json.loads(raw.decode('utf-8'))
        if (isinstance(state['wrote'], (int, float)) and isinstance(state['lists'], dict) and isinstance(state['singles'], dict)
                and all(isinstance(kept['asked'], (int, float)) and isinstance(kept['items'], list) for kept in state['lists'].values())
                and all(isinstance(ids, list) for ids in state['singles'].values())):
            return state
    except (ValueError, TypeError, KeyError, UnicodeDecodeError, AttributeError):
        pass
    return dict(wrote=0.0, lists={}, singles={})


def _find(items, item_id):
    for resource in items:
        if isinstance(resource, dict) and resource.get('id') == item_id:
            return resource
    return None
