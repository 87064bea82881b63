# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Faults injected through POST /_admin/faults on every module's read, and on every writer's
write: retryable faults within api_retries end in success after exactly count+1 attempts (from
the request log); beyond api_retries the task fails naming the status (or the failure) and the
attempts; non-retryable faults fail at once. A retried write leaves the state of one write."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

import cases
from suite import parse_time, resource

# Known, reported, not the suite's to fix: xfail(strict) so that the fix shows up as an XPASS.
KNOWN = {}
CASES = [pytest.param(case, id=case.key, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[case.key])] if case.key in KNOWN else [])
         for case in cases.all_fault_cases()]


def _matching(log, method, path):
    return [entry for entry in log if entry['method'] == method and re.search(path, entry['path'])]


def _assert_refused_repeat_was_checked(case, log, last, context):
    """A state command whose slow answer was lost may have been applied: the API then refuses
    the retry (409 services, 400 pipes), and the module must re-read the resource to see it done."""
    assert case.target == 'write' and case.fault.spec['kind'] == 'delay' and case.path.endswith('/state$'), context
    assert last['status'] in (400, 409), context
    after = log[log.index(last) + 1:]
    assert [entry['method'] for entry in after[:1]] == ['GET'] and after[0]['status'] == 200, 're-read after the refusal\n' + context


@pytest.mark.parametrize('case', CASES)
def test_fault(suite, case):
    counts = suite.counts
    if case.key in KNOWN:
        counts.set('notes', case.key, KNOWN[case.key])
    counts.add('faults', 'tried')
    counts.add('faults', 'kind:' + case.fault.name)
    counts.add('faults', 'module:' + case.module.name)
    outcome = suite.fault_outcome(case)
    result, log = outcome.result, outcome.log
    counts.add('faults', 'requests', len(log))
    hits = _matching(log, case.method, case.path)
    faulted = [entry for entry in hits if entry['fault']]
    context = 'result: %s\nlog: %s' % (result.get('msg'), [(e['method'], e['path'][-40:], e['status'], e['fault']) for e in log])

    assert len(faulted) == case.count, context
    assert hits[:case.count] == faulted, 'the faulted requests come first\n' + context
    writes = [entry for entry in log if entry['method'] in ('PATCH', 'PUT')]

    if case.succeeds:
        assert not result.get('failed'), context
        assert len(hits) == case.attempts, 'exactly %d attempts expected\n%s' % (case.attempts, context)
        assert hits[-1]['fault'] is None, context
        if hits[-1]['status'] >= 300:
            _assert_refused_repeat_was_checked(case, log, hits[-1], context)
        if case.fault.wait:
            times = [parse_time(entry['time']) for entry in hits]
            gaps = [(later - earlier).total_seconds() for earlier, later in zip(times, times[1:])]
            assert all(gap >= case.fault.wait - 0.05 for gap in gaps), 'waits %s shorter than the %s s asked for' % (gaps, case.fault.wait)
        if case.module.write:
            assert len(writes) == (case.attempts if case.target == 'write' else 1), context
            assert all(entry['body'] == writes[0]['body'] for entry in writes), 'every attempt sends the same body'
            assert result.get('changed') is True
    else:
        assert result.get('failed'), context
        assert len(hits) == case.attempts, 'no attempt after the last fault\n' + context
        message = result.get('msg', '')
        for word in case.fault.expect:
            assert word in message, '%r not in %r' % (word, message)
        if case.attempts > 1:
            assert 'after %d attempts' % case.attempts in message, message
            assert result.get('attempts') == case.attempts, result
        else:
            assert 'attempts' not in message, 'a non-retryable fault fails at once: ' + message
        assert 'Traceback' not in str(result), 'a clean failure, never a traceback'
        if case.module.write and case.target == 'read':
            assert not writes, 'nothing is written after a failed read'

    if case.target == 'write':
        initial, reference, dummy = suite.write_reference(case.module)
        after = resource(outcome.snapshot, *case.module.resource)
        expected = reference if case.succeeds or case.fault.spec['kind'] == 'delay' else initial
        counts.add('faults', 'retried_writes')
        assert after == expected, 'state after %s differs from %s' % (case.key, 'one write' if expected is reference else 'no write')
        counts.add('faults', 'idempotent_writes')
    counts.add('faults', 'passed')
    counts.add('faults', 'kind_passed:' + case.fault.name)


def test_every_module_is_under_faults(suite):
    all_cases = cases.all_fault_cases()
    names = set(case.module.name for case in all_cases)
    suite.counts.set('faults', 'modules', len(names))
    assert names == set(module.name for module in cases.MODULES)
    assert set(case.module.name for case in all_cases if case.target == 'write') == set(module.name for module in cases.WRITERS)


@pytest.mark.parametrize('module', cases.WRITERS, ids=lambda module: module.name)
def test_clean_write_changes_the_resource(suite, module):
    """The reference the retried writes are compared with is a real change."""
    initial, reference, result = suite.write_reference(module)
    assert not result.get('failed'), result.get('msg')
    assert result.get('changed') is True
    assert initial != reference
