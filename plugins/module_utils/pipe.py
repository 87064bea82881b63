# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Ingestion pipes: the settings table (types, ranges, defaults), settings comparison with
null/default semantics, and the rules that map a pipe's state to started/stopped."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.engine.cloud.plugins.module_utils import validate

# name: (type, minimum, maximum, default). Ranges are inclusive (contract, pipe settings table);
# defaults are the live service's (reference); object_storage_concurrency's is not published and
# is taken from the API document's example (1), as the simulator does.
SETTINGS = {
    'streaming_max_insert_wait_ms': ('int', 500, 60000, 5000),
    'object_storage_concurrency': ('int', 1, 35, 1),
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
# States in which a pipe counts as started or stopped (the request is then already met).
STARTED = frozenset(('Running', 'Provisioning', 'Setup', 'Snapshot', 'Modifying', 'Resync'))
STOPPED = frozenset(('Stopped', 'Stopping', 'Paused', 'Pausing'))
# The API accepts `start` only from these states; a pipe still stopping gets there by itself.
STARTABLE = frozenset(('Stopped', 'Paused', 'Failed'))
STOPPING = frozenset(('Stopping', 'Pausing'))
# Where a wait ends: Running once started (or resynced); Stopped (streaming, object storage) or
# Paused (postgres) once stopped. Failed and InternalError end it with a failure; Degraded does
# not (a degraded pipe may recover), so it is waited on until wait_timeout.
SETTLED = {'started': frozenset(('Running',)), 'stopped': frozenset(('Stopped', 'Paused')),
           'resynced': frozenset(('Running',))}
FAILED = frozenset(('Failed', 'InternalError'))

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
    """A current value of null or equal to the default both mean "at the default"."""
    return value is None or value == SETTINGS[name][3]


def same_setting(name, current, wanted):
    if wanted is None or wanted == SETTINGS[name][3]:
        return at_default(name, current)
    return current == wanted and isinstance(current, bool) == isinstance(wanted, bool)


def settings_changes(current, wanted):
    """The PUT body: the requested keys whose value differs from the current one."""
    return dict((name, value) for name, value in wanted.items() if not same_setting(name, current.get(name), value))


def predict_settings(current, body):
    """The settings a PUT of body would leave: null shows as the default value."""
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


def state_command(wanted, pipe, wait=True):
    """(command to send or None, error or None) to bring pipe to wanted (started, stopped, resynced).

    A pipe that is still stopping can be started once it has stopped: the caller waits first,
    which needs wait=true."""
    state = pipe.get('state')
    if wanted == 'resynced':
        kind = source_kind(pipe)
        if kind != 'postgres':
            return None, ('state=resynced is only possible for postgres pipes; pipe %s has a %s source'
                          % (pipe.get('name') or pipe.get('id'), kind))
        return 'resync', None
    if wanted == 'stopped':
        return (None if state in STOPPED else 'stop'), None
    if state in STARTED:
        return None, None
    if state in STARTABLE or (wait and state in STOPPING):
        return 'start', None
    return None, ('pipe %s cannot be started from state %s; start is possible only from %s%s'
                  % (pipe.get('name') or pipe.get('id'), state, ', '.join(sorted(STARTABLE)),
                     ' (with wait=true a Stopping or Pausing pipe is started once it has stopped)' if state in STOPPING else ''))


def settled_state(wanted, pipe):
    """The state the pipe shows once wanted is reached, for check mode and diff."""
    if wanted == 'stopped':
        return 'Paused' if source_kind(pipe) == 'postgres' else 'Stopped'
    return 'Resync' if wanted == 'resynced' else 'Running'
