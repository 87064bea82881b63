# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A pipe's tuning settings: their table, the checks of a requested value, and the plan of pipe_settings (also the pipe
module's settings step), where null and the published default both mean "at the default"."""

import re

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.compare import diff as make_diff

# name: (type, minimum, maximum, default). Ranges are inclusive (contract, pipe settings table); defaults are the live
# service's (reference). object_storage_concurrency has no published default: only null is "at the default" for it.
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
        value = _BOOLEAN.get(value.strip().lower(), value) if isinstance(value, str) else value
        return (value, None) if isinstance(value, bool) else (None, '%s must be true, false or null, got %r' % (option, value))
    if isinstance(value, str) and _INTEGER.match(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None, '%s must be an integer %s or null, got %r' % (option, validate.describe_range(minimum, maximum), value)
    error = validate.number_range(option, value, minimum, maximum)
    return (None, error) if error else (value, None)


def check_settings(settings):
    """(settings in the API's types, [error messages])."""
    checked, errors = {}, []
    for name in sorted(settings):
        value, error = check_setting(name, settings[name])
        if error:
            errors.append(error)
        else:
            checked[name] = value
    return checked, errors


def same_setting(name, current, wanted):
    at_default = (None, SETTINGS[name][3])
    if wanted in at_default:
        return current in at_default
    return current == wanted and isinstance(current, bool) == isinstance(wanted, bool)


def settings_plan(current, wanted):
    """(PUT body, diff) of the keys that differ; the diff shows a key reset to null as the value it would show: its
    default, or null without one."""
    body = dict((name, value) for name, value in wanted.items() if not same_setting(name, current.get(name), value))
    return body, make_diff(current, dict((name, SETTINGS[name][3] if value is None else value) for name, value in body.items()))


def settings_writer(module, pipe_id):
    """write(changes): the PUT, and the settings after it (a PUT answer without every key is completed by a read)."""
    def write(changes):
        result = module.write('PUT', changes, 'pipes', pipe_id, 'settings')
        return result if isinstance(result, dict) and set(SETTINGS) <= set(result) else module.read('pipes', pipe_id, 'settings')
    return write
