# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Runs modules of the collection one after another in this process, each the way its module
process runs it (main() with its arguments, the JSON it prints, the exit), without ansible-playbook:

    python module_runner.py CASES_JSON RESULTS_JSON

CASES_JSON holds [{"key": ..., "module": "service_info", "args": {...}}]; RESULTS_JSON gets
{key: {"result": the module's JSON}}. The suite runs its bad inputs this way: each fails in the
module's own argument checks, so ansible-playbook would add only its cost (0.74 CPU-s a case) and
nothing under test. The collection must be importable: PYTHONPATH holds the collections directory."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import importlib
import io
import json
import sys
import traceback

from ansible.module_utils.testing import patch_module_args


def run(module_name, args):
    """The result the module prints for args, or a failure holding the traceback of what it raised."""
    module = importlib.import_module('ansible_collections.engine.cloud.plugins.modules.' + module_name)
    printed = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(printed):
        try:
            module.main()
        except SystemExit:
            pass
        except Exception:  # pylint: disable=broad-except  # what a module process would show
            return dict(failed=True, msg='module raised:\n' + traceback.format_exc())
    return json.loads(printed.getvalue())


def main(cases_path, results_path):
    with open(cases_path, encoding='utf-8') as handle:
        cases = json.load(handle)
    results = dict((case['key'], dict(result=run(case['module'], case['args']))) for case in cases)
    with open(results_path, 'w', encoding='utf-8') as handle:
        json.dump(results, handle, indent=1, sort_keys=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
