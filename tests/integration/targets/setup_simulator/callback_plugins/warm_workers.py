# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: warm_workers
type: aggregate
short_description: Load in ansible-playbook's own process what every forked worker would load again (test only)
description:
  - ansible-playbook forks a worker process for every task. A worker that templates finds the Jinja2
    lexer and the filter and test plugins not loaded, unless ansible-playbook's process loaded them
    before the fork, which ansible-core leaves to chance (its own note in the Jinja2 environment says the
    lexer should be made before forking). So each worker compiled the lexer's regular expressions and
    imported every builtin filter and test plugin again.
  - At the start of each play, this callback templates one expression with a filter and a test in
    ansible-playbook's process, and imports C(http.client), which the C(sim_admin) lookup of the
    setup_simulator role needs in every task that resets or reads the simulator. The workers forked
    after it inherit all of that. The tasks and their results are the same; the callback prints nothing.
  - The integration targets load it from C(tests/integration/integration.cfg), for 5 % less CPU for the
    same tasks (300 C(set_fact) and C(assert) tasks, 18 % less). The demo, the e2e tests and the
    benchmarks run without it, as a user runs; so does the reliability suite, whose short playbooks
    gained nothing measurable from it (the warming costs about 20 ms a play).
'''

import http.client  # noqa: F401  # pylint: disable=unused-import  # loaded here once, for every worker

from ansible.parsing.dataloader import DataLoader
from ansible.plugins.callback import CallbackBase
from ansible.template import Templar

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core before 2.19 templates any string
    def trust_as_template(text):
        return text


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'warm_workers'
    CALLBACK_NEEDS_ENABLED = False

    def v2_playbook_on_play_start(self, play):
        Templar(loader=DataLoader()).template(trust_as_template('{{ [0] | length is number }}'))
