# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stdout callback of the benchmark (bench/bench.py): records, per task, the wall-clock time from
the task's start (before the worker forks) to its result, and writes them as JSON to the file named
by $BENCH_RESULT when the playbook ends. Prints one line per failed task, nothing else."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: bench_timer
type: stdout
short_description: per-task wall times for the engine.cloud benchmark
description:
  - Writes every task's start, end, status and message to the JSON file named by C(BENCH_RESULT).
options: {}
'''

import json
import os
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'bench_timer'

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self.tasks = []
        self.current = None

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.current = dict(name=task.get_name(), start=time.time())
        self.tasks.append(self.current)

    def _record(self, result, status):
        task = self.current
        task['end'] = time.time()
        task['status'] = status
        data = result._result  # pylint: disable=protected-access  # the documented way callbacks read results
        task['changed'] = bool(data.get('changed'))
        if status != 'ok':
            task['msg'] = str(data.get('msg') or data.get('module_stderr') or data)[:2000]
            self._display.display('FAILED %s: %s' % (task['name'], task['msg']), stderr=True)

    def v2_runner_on_ok(self, result):
        self._record(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, 'failed')

    def v2_runner_on_unreachable(self, result):
        self._record(result, 'unreachable')

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get('BENCH_RESULT')
        if path:
            with open(path, 'w', encoding='utf-8') as handle:
                json.dump(dict(tasks=self.tasks), handle)
