# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Ingestion pipes: the settings table (types, ranges, defaults), settings comparison with
null/default semantics, and pipe_state's state table."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import re

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.states import FAIL, WAIT, StateTable

# name: (type, minimum, maximum, default). Ranges are inclusive (contract, pipe settings table);
# defaults are the live service's (reference). object_storage_concurrency has no published default
# (None): only null counts as "at the default" for it.
SETTINGS = {
    'streaming_max_insert_wait_ms': ('int', 500, 60000, 5000),
    'object_storage_concurrency': ('int', 1, 35, None),
    'object_storage_polling_interval_ms': ('int', 100, 3600000, 30000),
    'object_storage_max_insert_bytes': ('int', 10485760, 53687091200, 10737418240),
    'object_storage_max_file_count': ('int', 1, 10000, 100),
    'engine_max_threads': ('int', 0, 64, 3),
    'engine_max_insert_threads': ('int', 0, 16, 1),
    'engine_min_insert_block_size_bytes': ('int', 0, 10737418240, 1073741824),
    'engine_max_download_threads': ('int', 0, 32, 4),
    'engine_parallel_distributed_insert_select': ('int', 0, 2, 2),
    'object_storage_use_cluster_function': ('bool', None, None, True),
    'engine_parallel_view_processing': ('bool', None, None, False),
}

SOURCE_KINDS = ('kafka', 'objectStorage', 'stream', 'postgres')

# --- pipe_state: the state table --------------------------------------------------------------
# The reference's pipe states: streaming and object storage pipes Unknown, Provisioning, Running,
# Stopping, Stopped, Completed, Failed, InternalError; postgres pipes Provisioning, Setup, Snapshot,
# Running, Pausing, Paused, Modifying, Resync, Failed, Unknown; any pipe may be Degraded. `stop`
# works from any state, `start` only from Stopped, Paused or Failed, `resync` (postgres only) from any.
STARTABLE = ('Stopped', 'Paused', 'Failed')
TRANSITIONS = {'Stopping': 'Stopped', 'Pausing': 'Paused'}
# States a resync passes through; a wait for resynced must see one of them (or other evidence, see done).
RESYNCING = frozenset(('Resync', 'Snapshot', 'Setup', 'Modifying'))
# goal -> state -> what pipe_state does (None: no command; WAIT: wait the transition out, then decide
# again; FAIL: fail before any write). The module documentation shows the same table.
PIPE_ACTIONS = {
    'started': dict(Running=None, Provisioning=None, Setup=None, Snapshot=None, Modifying=None, Resync=None, Degraded=None,
                    Stopped='start', Paused='start', Failed='start', Stopping=WAIT, Pausing=WAIT,
                    Completed=FAIL, InternalError=FAIL, Unknown=FAIL),
    'stopped': dict(Running='stop', Provisioning='stop', Setup='stop', Snapshot='stop', Modifying='stop', Resync='stop',
                    Degraded='stop', Stopped=None, Paused=None, Failed='stop', Stopping=None, Pausing=None,
                    Completed=None, InternalError='stop', Unknown='stop'),
}
PIPE_ACTIONS['resynced'] = dict((state, 'resync') for state in PIPE_ACTIONS['started'])
PIPE_STATES = tuple(PIPE_ACTIONS['started'])


def later(moment, than):
    """Whether the ISO 8601 time moment is later than than (False when either does not parse)."""
    instants = [_instant(value) for value in (moment, than)]
    return None not in instants and instants[0] > instants[1]


def _instant(value):
    try:
        return datetime.datetime.fromisoformat(value.strip().replace('Z', '+00:00'))
    except (AttributeError, TypeError, ValueError):
        return None


class PipeStates(StateTable):
    """pipe_state's table: only a postgres pipe can be resynced, a stopped postgres pipe settles as Paused,
    and a resync must be seen to have run."""

    def action(self, goal, resource, predict=False):
        if goal == 'resynced' and source_kind(resource) != 'postgres':
            return FAIL
        return super(PipeStates, self).action(goal, resource, predict)

    def refusal(self, goal, resource, name):
        state = resource.get('state')
        if goal == 'resynced' and source_kind(resource) != 'postgres':
            return 'state=resynced is only possible for postgres pipes; pipe %s has a %s source' % (
                resource.get('name') or name, source_kind(resource))
        if goal == 'started' and state in PIPE_STATES:
            return ('pipe %s cannot be started from state %s; the API starts a pipe only from %s, and stops it from any state '
                    '(state=stopped)' % (name, state, ', '.join(STARTABLE)))
        return super(PipeStates, self).refusal(goal, resource, name)

    def goal_text(self, goal, resource):
        if goal == 'stopped':
            return 'Paused' if source_kind(resource) == 'postgres' else 'Completed or Stopped'
        return 'Running after a resync' if goal == 'resynced' else 'Running'

    def target(self, goal, resource):
        if goal == 'stopped':
            return 'Paused' if source_kind(resource) == 'postgres' else 'Stopped'
        return 'Resync' if goal == 'resynced' else 'Running'

    def done(self, goal, before, wait=True):
        """resynced is reached once the resync has run: a state it passes through was seen, or (a resync
        over between two reads) the pipe shows an updatedAt later than before the command; with wait, the
        pipe must also be Running again. The other goals end in their settled states."""
        if goal != 'resynced':
            return super(PipeStates, self).done(goal, before, wait)
        seen = []

        def resynced(pipe):
            if pipe.get('state') in RESYNCING or later(pipe.get('updatedAt'), before.get('updatedAt')):
                seen.append(pipe.get('state'))
            return bool(seen) and (not wait or pipe.get('state') == 'Running')
        return resynced


PIPE_TABLE = PipeStates(
    'pipe', PIPE_ACTIONS,
    settled={'started': frozenset(('Running',)), 'stopped': frozenset(('Stopped', 'Paused', 'Completed')),
             'resynced': frozenset(('Running',))},
    failures=dict((goal, frozenset(('Failed', 'InternalError'))) for goal in PIPE_ACTIONS),
    targets={}, transitions=TRANSITIONS, once=('resync',))

_INTEGER = re.compile(r'^\s*-?\d+\s*$')
_BOOLEAN = {'true': True, 'false': False}


def check_setting(name, value):
    """(value in the API's type, None) or (None, error message naming the setting and what is allowed)."""
    option = 'settings.%s' % name
    if name not in SETTINGS:
        return None, 'settings has an unknown key %r; valid keys: %s' % (name, ', '.join(sorted(SETTINGS)))
    kind, minimum, maximum, dummy = SETTINGS[name]
    if value is None:
        return None, None
    if kind == 'bool':
        if isinstance(value, str) and value.strip().lower() in _BOOLEAN:
            return _BOOLEAN[value.strip().lower()], None
        if isinstance(value, bool):
            return value, None
        return None, '%s must be true, false or null, got %r' % (option, value)
    if isinstance(value, str) and _INTEGER.match(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None, '%s must be an integer %s or null, got %r' % (option, validate.describe_range(minimum, maximum), value)
    error = validate.number_range(option, value, minimum, maximum)
    return (None, error) if error else (value, None)


def check_settings(settings):
    """(settings in the API's types, [error messages]) for a requested settings dict."""
    checked, errors = {}, []
    for name in sorted(settings):
        value, error = check_setting(name, settings[name])
        if error:
            errors.append(error)
        else:
            checked[name] = value
    return checked, errors


def at_default(name, value):
    """A current value of null or equal to the (published) default both mean "at the default"."""
    default = SETTINGS[name][3]
    return value is None or (default is not None and value == default)


def same_setting(name, current, wanted):
    if wanted is None or (SETTINGS[name][3] is not None and wanted == SETTINGS[name][3]):
        return at_default(name, current)
    return current == wanted and isinstance(current, bool) == isinstance(wanted, bool)


def settings_changes(current, wanted):
    """The PUT body: the requested keys whose value differs from the current one."""
    return dict((name, value) for name, value in wanted.items() if not same_setting(name, current.get(name), value))


def predict_settings(current, body):
    """The settings a PUT of body would leave: null shows as the default value (or null, without one)."""
    predicted = dict(current)
    predicted.update((name, SETTINGS[name][3] if value is None else value) for name, value in body.items())
    return predicted


def source_kind(pipe):
    """kafka, objectStorage, stream or postgres: the key under source that holds an object."""
    source = pipe.get('source') or {}
    for kind in SOURCE_KINDS:
        if source.get(kind):
            return kind
    return next((kind for kind, value in source.items() if value), 'unknown')
