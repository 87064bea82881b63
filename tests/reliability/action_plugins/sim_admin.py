# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Test-only action (tests/reliability): drive a simulator's admin interface from a playbook
without a module process, so a fault can be armed and the request log read around every task.

Arguments (all optional except url), applied in this order: url (admin base, .../_admin);
requests (true: return the request log, once no request is in flight); snapshot (file name: save
GET /_admin/state in the run's directory, never in the output); clear (true: empty the log);
reset (dict of config keys, or true); edits (list of [kind, id, changes]: PATCH /_admin/<kind>/<id>);
faults (list of fault specs); dump + dump_name (save a value in the run's directory, not in the output)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys
import time

from ansible.plugins.action import ActionBase

# The repository root, so that the simulator's admin client is this plugin's too.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
from tests.simulator.process import admin_call as _call  # noqa: E402  pylint: disable=wrong-import-position


def _save(name, value):
    path = os.path.join(os.environ.get('RELIABILITY_DIR', '.'), name)
    with open(path, 'w') as handle:
        json.dump(value, handle, indent=1, sort_keys=True, default=str)
    return path


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self._task.args
        base = args.get('url', '').rstrip('/')
        # First what happened (the log, the state), then the next set-up (reset, faults).
        if args.get('requests') or args.get('snapshot'):
            deadline = time.time() + 15
            log = _call(base, 'GET', '/requests')['requests']
            while any(entry['status'] is None and entry['fault'] != 'reset' for entry in log) and time.time() < deadline:
                time.sleep(0.2)
                log = _call(base, 'GET', '/requests')['requests']
            if args.get('requests'):
                result['requests'] = log
        if args.get('snapshot'):
            result['snapshot'] = _save(args['snapshot'], _call(base, 'GET', '/state'))
        if args.get('clear'):
            _call(base, 'DELETE', '/requests')
        if args.get('reset') is not None:
            _call(base, 'POST', '/reset', args['reset'] if isinstance(args['reset'], dict) else {})
        for kind, object_id, changes in args.get('edits') or []:
            _call(base, 'PATCH', '/%s/%s' % (kind, object_id), changes)
        for fault in args.get('faults') or []:
            _call(base, 'POST', '/faults', fault)
        if args.get('dump_name'):
            result['dumped'] = _save(args['dump_name'] + '.json', args.get('dump'))
        result['changed'] = False
        return result
