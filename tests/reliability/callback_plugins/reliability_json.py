# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Test-only callback (tests/reliability): every task result of a run as JSON, in the file named
by RELIABILITY_JSON. ansible-core ships no JSON callback (ansible.posix.json is not installed),
so this stands in for it; it writes what callbacks receive, the same data the JSON callback prints."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = '''
name: reliability_json
type: aggregate
short_description: Write every task result as JSON (reliability tests only)
description:
  - Writes the results a callback receives to the file named by E(RELIABILITY_JSON).
options: {}
'''

import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'reliability_json'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self.events = []

    def _record(self, status, result):
        data = getattr(result, 'result', None)
        if data is None:
            data = result._result
        self.events.append(dict(status=status, host=result._host.get_name(), task=result._task.get_name(), result=data))

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get('RELIABILITY_JSON')
        if path:
            with open(path, 'w') as handle:
                json.dump(self.events, handle, indent=1, sort_keys=True, default=str)

    def v2_runner_on_ok(self, result):
        self._record('ok', result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record('failed', result)

    def v2_runner_on_skipped(self, result):
        self._record('skipped', result)

    def v2_runner_on_unreachable(self, result):
        self._record('unreachable', result)
