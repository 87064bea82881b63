# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Bad input for every option of every module, generated from each module's DOCUMENTATION (types,
choices, ranges and lengths stated there) plus the shared options: wrong type, out of range, wrong
enum, malformed id or address, unknown key in a dict, empty list where 1 or more is needed,
over-long name. Each fails naming the option and what is allowed, and sends nothing. They run
without ansible-playbook (suite.py, _bad_inputs: each module's main() in one process per module)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import cases

CASES = [pytest.param(case, id=case.key, marks=[pytest.mark.xfail(strict=True, reason=cases.CORE_LIMITATIONS[case.kind])]
                      if case.kind in cases.CORE_LIMITATIONS else [])
         for module in cases.MODULES for case in cases.bad_inputs(module)]


@pytest.mark.parametrize('case', CASES)
def test_bad_input(suite, case):
    counts = suite.counts
    if case.kind in cases.CORE_LIMITATIONS:
        counts.set('notes', 'bad input: ' + case.kind, 'bad input, %s: %s' % (case.kind, cases.CORE_LIMITATIONS[case.kind]))
    counts.add('bad_input', 'tried')
    counts.add('bad_input', 'kind:' + case.kind)
    counts.add('bad_input', 'module:' + case.module.name)
    outcome = suite.bad_outcome(case)
    result, log = outcome.result, outcome.log
    suite.counts.set('bad_input', 'requests_sent:' + case.module.name, len(log))
    message = result.get('msg', '')
    assert result.get('failed'), 'accepted %s=%r: %s' % (case.option, case.args, result)
    # The log is read once after every bad input of the module: empty means none of them sent anything.
    assert not log, 'the bad inputs of %s sent %s' % (case.module.name, [(entry['method'], entry['path'], entry['body']) for entry in log])
    missing = [word for word in case.expect if str(word).lower() not in message.lower()]
    assert not missing, 'the message lacks %s: %s' % (missing, message)
    assert 'Traceback' not in message
    counts.add('bad_input', 'passed')
    counts.add('bad_input', 'kind_passed:' + case.kind)


def test_every_option_is_covered(suite):
    """Each option either has bad-input cases or takes any string (free text, or checked by the API only)."""
    total = covered = 0
    uncovered = {}
    for module in cases.MODULES:
        options = cases.options_of(module)
        hit = set(case.option.split('[')[0].split('.')[0] for case in cases.bad_inputs(module))
        total += len(options)
        covered += len(hit & set(options))
        free = [option for option in options if option not in hit]
        if free:
            uncovered[module.name] = free
    suite.counts.set('bad_input', 'options', total)
    suite.counts.set('bad_input', 'options_covered', covered)
    # Free-text options: credentials, names used as exact-match filters, descriptions, queries; and the service's
    # creation fields that only the API can judge (a provider's region codes, tiers and profiles, ids and keys of other
    # systems) and its password (any text); an alert's dashboard and tile (an id or a name), the field a saved-search
    # alert groups by, and its schedule start (a time the API judges).
    allowed = {'api_key_id', 'api_key_secret', 'api_token', 'name', 'tile_id', 'transparent_data_encryption_key_id',
               'region', 'tier', 'profile', 'byoc_id', 'data_warehouse_id', 'encryption_key', 'encryption_assumed_role_identifier',
               'password', 'dashboard', 'tile', 'group_by', 'schedule_start_at'}
    assert set(option for free in uncovered.values() for option in free) <= allowed, uncovered
