# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Request pacing under an API's rate limit, shared by every process of one controller that uses the same key or token
against the same address (the forks of a play): together they send at most N requests in any W + MARGIN seconds, so
the server's fixed windows never see more than N. The state (store.py) holds monotonic times only: the sends of the last
window, the slots reserved by waiting processes (first come, first served) and the hold a 429 sets. The server counts a
request when it arrives, which is between when it leaves and when its answer comes: a send counts from when it leaves
plus MARGIN, then from its answer (answered), and a waiting process checks its slot again when it wakes, moving it
as far as the window needs. On a loaded controller a request can take longer than MARGIN to arrive (measured: 4 ms to
over a second)."""

import collections
import os
import re

from ansible_collections.engine.cloud.plugins.module_utils import store
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK

MARGIN = 0.5
UNNAMED_HOLD = 1.0
HOLD_CAP = 60.0
WAIT_WARNING_SECONDS = 5.0  # a task that waited longer in all (for its slots, or after a 429) says so
_LIMIT = re.compile(r'^\s*([0-9]+)\s*/\s*([0-9]+(?:\.[0-9]+)?)\s*\Z')

# An API's live limit per credential, the environment variable that can change it, the option holding the credential.
ApiLimit = collections.namedtuple('ApiLimit', 'requests seconds env credential')


def rate_limit(option, value, live):
    """(limit, error): limit is (requests, seconds), or None for off."""
    if value is None or value == '':
        return live, None
    if value is False or (isinstance(value, str) and value.strip().lower() == 'off'):
        return None, None
    match = _LIMIT.match(value) if isinstance(value, str) else None
    if match and int(match.group(1)) >= 1 and float(match.group(2)) > 0:
        return (int(match.group(1)), float(match.group(2))), None
    return live, '%s must be REQUESTS/SECONDS with at least 1 request and more than 0 seconds (for example 20/10), or off; got %r' % (
        option, value)


def shared_pacer(limit, base_url, credential, warn):
    """The pacer of (base_url, credential) at limit; Unpaced when limit is None or no private directory can be had."""
    if limit is None:
        return Unpaced()
    try:
        directory = store.directory()
    except store.Unavailable as error:
        warn(store.REFUSED % (error, store.DIRECTORY_ENV))
        return Unpaced()
    return Pacer(os.path.join(directory, store.file_name('pacing', base_url.rstrip('/'), credential)), limit[0], limit[1], warn)


class Pacer:
    """At most `requests` sends in any `seconds` + MARGIN among the processes that share one state file."""

    def __init__(self, path, requests, seconds, warn):
        self.path, self.requests, self.seconds, self.warn = path, requests, seconds, warn
        self.span = None if seconds is None else seconds + MARGIN
        self.broken, self.waited = False, 0.0

    def acquire(self):
        """Wait until one more request fits, and count it: its slot, for answered (None: pacing broke)."""
        slot, now = self._update(self._reserve)
        while slot is not None and slot > now:
            self.waited += slot - now
            CLOCK.sleep(slot - now)
            slot, now = self._update(lambda state, now, reserved=slot: self._recheck(state, reserved, now))
        return slot

    def answered(self, slot):
        """The request sent in slot has its answer (or failed): it counts from now, the latest moment the server can
        have counted it."""
        def move(state, now):
            sends = state['sends']
            if slot in sends and slot < now:
                sends[sends.index(slot)] = now
                sends.sort()
        if slot is not None:
            self._update(move)

    def refused(self, wait):
        """The server answered 429: hold every process back `wait` seconds (None: UNNAMED_HOLD)."""
        seconds = UNNAMED_HOLD if wait is None else min(wait, HOLD_CAP)
        self._update(lambda state, now: state.update(hold=max(state['hold'], now + seconds)))

    def _reserve(self, state, now):
        sends = state['sends']
        slot = max([now, state['hold']] + sends[-1:])
        if len(sends) >= self.requests:
            slot = max(slot, sends[-self.requests] + self.span)
        sends.append(slot)
        return slot

    def _recheck(self, state, slot, now):
        """The slot, kept unless a hold has overtaken it or the sends before it, counted from their answers since, leave
        it no room; then the earliest moment from now that fits: it moves only as far as the window needs (a later
        waiting process whose window it then crowds moves in turn when it wakes)."""
        sends = state['sends']
        if slot in sends:
            sends.remove(slot)
        start = max(now, state['hold'])
        later = sorted(set([start] + [sent + self.span for sent in sends if sent + self.span > start]))
        moment = next(moment for moment in ([slot] if state['hold'] <= slot else []) + later
                      if sum(1 for sent in sends if moment - self.span < sent <= moment) < self.requests)
        sends.append(moment)
        sends.sort()
        return moment

    def _update(self, change):
        """(change(state, now), now) under the file lock; on a file that cannot be used, pacing ends for this task."""
        if self.broken:
            return None, CLOCK.monotonic()
        try:
            with store.locked(self.path) as locked:
                now = CLOCK.monotonic()
                state = self._parse(locked, now)
                result = change(state, now)
                locked.data = dict(sends=[sent for sent in state['sends'] if sent > now - self.span],
                                   hold=state['hold'] if state['hold'] > now else 0.0)
                return result, now
        except OSError as error:
            self.broken = True
            self.warn('Request pacing is off for the rest of this task: %s: %s' % (self.path, error.strerror or error))
            return None, CLOCK.monotonic()

    def _parse(self, locked, now):
        """The state; times further ahead than any reservation or hold can reach (a reboot) are dropped, and a file that
        is not a pacing state starts afresh with a warning."""
        data = locked.data
        if not (isinstance(data, dict) and isinstance(data.get('sends'), list) and all(map(store.is_time, data['sends']))
                and store.is_time(data.get('hold'))):
            if locked.raw:
                self.warn('Request pacing started afresh: the state file %s was ignored (it is not a pacing state)' % self.path)
            return dict(sends=[], hold=0.0)
        reach = now + HOLD_CAP + (len(data['sends']) // self.requests + 1) * self.span
        return dict(sends=sorted(sent for sent in data['sends'] if sent <= reach), hold=data['hold'] if data['hold'] <= now + HOLD_CAP else 0.0)


class Unpaced(Pacer):
    """Pacing off: every request goes at once, as once a state file fails; the waits after a 429 are still counted."""

    def __init__(self):
        super(Unpaced, self).__init__(None, None, None, None)
        self.broken = True


def wait_warning(waited, pacer, per, option):
    if waited <= WAIT_WARNING_SECONDS:
        return None
    budget = '' if pacer.requests is None else ('at most %d requests per %g s per %s, shared by every process of this controller '
                                                'that uses the same %s; ' % (pacer.requests, pacer.seconds, per, per))
    return ("waited %.1f s in all for the API's rate limit: %s%s sets that budget "
            "(raise it only where the server allows more)" % (waited, budget, option))
