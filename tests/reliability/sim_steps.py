# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One step on a simulator's admin interface, shared by the sim_admin action (in playbooks) and
module_runner.py (cases run without ansible-playbook).

Arguments (all optional), applied in this order: requests (true: return the request log, once no
request is in flight); snapshot (file name: save GET /_admin/state in directory, never in the
output); clear (true: empty the log); reset (dict of config keys, or true); edits (list of [kind,
id, changes]: PATCH /_admin/<kind>/<id>); faults (list of fault specs); dump + dump_name (save a
value in directory, not in the output)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys
import time

# The repository root, so that the simulator's admin client is this module's too.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from tests.simulator.process import admin_call as _call  # noqa: E402  pylint: disable=wrong-import-position

IN_FLIGHT_TIMEOUT = 15


def save(directory, name, value):
    path = os.path.join(directory, name)
    with open(path, 'w') as handle:
        json.dump(value, handle, indent=1, sort_keys=True, default=str)
    return path


def settled_log(base):
    """The request log once no request is in flight (a delayed answer still being written), or after 15 s."""
    deadline = time.time() + IN_FLIGHT_TIMEOUT
    log = _call(base, 'GET', '/requests')['requests']
    while any(entry['status'] is None and entry['fault'] != 'reset' for entry in log) and time.time() < deadline:
        time.sleep(0.2)
        log = _call(base, 'GET', '/requests')['requests']
    return log


def apply(base, args, directory):
    """First what happened (the log, the state), then the next set-up (reset, edits, faults); the result dict."""
    base = base.rstrip('/')
    result = {}
    if args.get('requests') or args.get('snapshot'):
        log = settled_log(base)
        if args.get('requests'):
            result['requests'] = log
    if args.get('snapshot'):
        result['snapshot'] = save(directory, args['snapshot'], _call(base, 'GET', '/state'))
    if args.get('clear'):
        _call(base, 'DELETE', '/requests')
    if args.get('reset') is not None:
        _call(base, 'POST', '/reset', args['reset'] if isinstance(args['reset'], dict) else {})
    for kind, object_id, changes in args.get('edits') or []:
        _call(base, 'PATCH', '/%s/%s' % (kind, object_id), changes)
    for fault in args.get('faults') or []:
        _call(base, 'POST', '/faults', fault)
    if args.get('dump_name'):
        result['dumped'] = save(directory, args['dump_name'] + '.json', args.get('dump'))
    return result
