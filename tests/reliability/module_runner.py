# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Runs modules of the collection one after another in this process, each the way its module
process runs it (main() with its arguments, the JSON it prints, the exit), without ansible-playbook:

    python module_runner.py CASES_JSON RESULTS_JSON

CASES_JSON holds [{"key": ..., "module": "service_info", "args": {...}}]; RESULTS_JSON gets
{key: {"result": the module's JSON}}. A case may also name a simulator (admin_url) and the admin
steps around its run (before, after: lists of sim_steps.apply arguments, e.g. reset and arm a fault
before, read the request log and save a state snapshot after); the requests an after step read are
the case's "log". The collection must be importable: PYTHONPATH holds the collections directory.

The suite runs its bad inputs and its fault matrix this way: what they test is the module's own
code (argument checks; the client's retries and the module's reads after a lost answer), and
ansible-playbook would add only its cost (0.74 CPU-s a case: a worker, a module process, the admin
tasks) and nothing under test. The runs that test what ansible-playbook adds (check mode, --diff,
-vvv output, module_defaults groups, forks) stay playbooks."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import importlib
import io
import json
import os
import sys
import traceback

from ansible.module_utils.common import warnings
from ansible.module_utils.testing import patch_module_args

import sim_steps


def run(module_name, args):
    """The result the module prints for args, or a failure holding the traceback of what it raised."""
    module = importlib.import_module('ansible_collections.engine.cloud.plugins.modules.' + module_name)
    # A module process starts with no warnings or deprecations; in this process the last case's are still there.
    for recorded in (getattr(warnings, '_global_warnings', None), getattr(warnings, '_global_deprecations', None)):
        if recorded is not None:
            recorded.clear()
    printed = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(printed):
        try:
            module.main()
        except SystemExit:
            pass
        except Exception:  # pylint: disable=broad-except  # what a module process would show
            return dict(failed=True, msg='module raised:\n' + traceback.format_exc())
    return json.loads(printed.getvalue())


def run_case(case, directory):
    admin_url = case.get('admin_url')
    for step in case.get('before', ()):
        sim_steps.apply(admin_url, step, directory)
    entry = dict(result=run(case['module'], case['args']))
    for step in case.get('after', ()):
        done = sim_steps.apply(admin_url, step, directory)
        if 'requests' in done:
            entry['log'] = done['requests']
    return entry


def main(cases_path, results_path):
    with open(cases_path, encoding='utf-8') as handle:
        cases = json.load(handle)
    directory = os.path.dirname(os.path.abspath(results_path))
    results = dict((case['key'], run_case(case, directory)) for case in cases)
    with open(results_path, 'w', encoding='utf-8') as handle:
        json.dump(results, handle, indent=1, sort_keys=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
