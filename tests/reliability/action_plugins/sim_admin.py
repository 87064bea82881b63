# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Test-only action (tests/reliability): drive a simulator's admin interface from a playbook
without a module process, so a fault can be armed and the request log read around every task.

Arguments: url (admin base, .../_admin) and those of sim_steps.apply (requests, snapshot, clear,
reset, edits, faults, dump + dump_name); files go to the run's directory (RELIABILITY_DIR)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

from ansible.plugins.action import ActionBase

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/reliability
import sim_steps  # noqa: E402  pylint: disable=wrong-import-position


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self._task.args
        result.update(sim_steps.apply(args.get('url', ''), args, os.environ.get('RELIABILITY_DIR', '.')))
        result['changed'] = False
        return result
