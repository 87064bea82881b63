# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Faults injected through POST /_admin/faults on every module's read, and on every writer's write
(plus a purge, a start and a resync): retryable faults within api_retries end in success after
exactly count+1 attempts (from the request log); beyond api_retries the task fails naming the status
(or the failure) and the attempts; non-retryable faults fail at once.

A write whose answer is lost (a timeout, a reset, a 502, 503 or 504 to a PATCH) is never sent again
as it was: the module reads the resource, and sends again only what still differs (after a read,
never twice in a row), nothing when the first attempt was applied, and never a second resync. Every
faulted write ends in the resource's state of one write (or of none, where the task failed)."""

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
LOST = 'The answer to this write was lost'


def _matching(log, method, path):
    return [entry for entry in log if entry['method'] == method and re.search(path, entry['path'])]


def _read_between_writes(case, log, writes, context):
    """After every lost answer the resource was read before anything else was written."""
    read_method, read_path = case.module.read
    for write in writes:
        if write['fault'] is None and write is writes[-1]:
            continue
        after = log[log.index(write) + 1:]
        assert after and (after[0]['method'], after[0]['path']) == (read_method, read_path), \
            'a read right after the write %s\n%s' % (write['seq'], context)


def _assert_lost_answer_handled(case, result, log, hits, writes, counts, context):
    counts.add('faults', 'lost_answers')
    _read_between_writes(case, log, writes, context)
    counts.add('faults', 'lost_answers_read_again')
    if case.fault.applied:
        counts.add('faults', 'lost_applied')
        assert len(writes) == 1, 'the first attempt was applied: nothing may be sent again\n' + context
        counts.add('faults', 'lost_applied_one_write')
    elif len(hits) > 1:
        counts.add('faults', 'lost_resent_after_a_read')
    if not case.succeeds:
        message = result.get('msg', '')
        assert LOST in message, message
        assert ('was not sent again' if cases.command_once(case.module) else 'allows no further attempt') in message, message


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
    # A read case counts the first read, the one before any write (a state module's polls after its
    # command read the same path).
    writes_at = [index for index, entry in enumerate(log) if entry['method'] in ('PATCH', 'PUT')]
    hits = _matching(log[:writes_at[0]] if case.target == 'read' and writes_at else log, case.method, case.path)
    faulted = [entry for entry in hits if entry['fault']]
    context = 'result: %s\nlog: %s' % (result.get('msg'), [(e['method'], e['path'][-40:], e['status'], e['fault']) for e in log])

    assert len(faulted) == case.count, context
    assert hits[:case.count] == faulted, 'the faulted requests come first\n' + context
    if case.attempts is None:
        assert 1 <= len(hits) <= 2, 'a late write is sent again at most once\n' + context
    else:
        assert len(hits) == case.attempts, 'exactly %d attempts expected\n%s' % (case.attempts, context)
    writes = [entry for entry in log if entry['method'] in ('PATCH', 'PUT')]

    if case.succeeds:
        assert not result.get('failed'), context
        # A late write (attempts None) may end after its one faulted attempt: when the read after the
        # lost answer already shows it applied, nothing is sent again (the state check below proves
        # it took effect once).
        assert hits[-1]['fault'] is None or case.fault.applied or case.attempts is None, context
        if case.fault.wait and not case.read_again:
            times = [parse_time(entry['time']) for entry in hits]
            gaps = [(later - earlier).total_seconds() for earlier, later in zip(times, times[1:])]
            assert all(gap >= case.fault.wait - 0.05 for gap in gaps), 'waits %s shorter than the %s s asked for' % (gaps, case.fault.wait)
        if case.module.write:
            assert result.get('changed') is True
            if case.target == 'read':
                assert len(writes) == 1, context
        if case.target == 'write' and not case.read_again:
            assert len(writes) == case.attempts, context
            assert all(entry['body'] == writes[0]['body'] for entry in writes), 'a refused (429) or idempotent write is sent as it was'
    else:
        assert result.get('failed'), context
        message = result.get('msg', '')
        for word in case.fault.expect:
            assert word in message, '%r not in %r' % (word, message)
        if case.read_again:
            pass  # the client sent it once; the module's own rounds are checked below
        elif case.attempts > 1:
            assert 'after %d attempts' % case.attempts in message, message
            assert result.get('attempts') == case.attempts, result
        else:
            assert 'attempts' not in message, 'a non-retryable fault fails at once: ' + message
        assert 'Traceback' not in str(result), 'a clean failure, never a traceback'
        if case.module.write and case.target == 'read':
            assert not writes, 'nothing is written after a failed read'
    if case.read_again:
        _assert_lost_answer_handled(case, result, log, hits, writes, counts, context)

    if case.target == 'write':
        initial, reference, dummy = suite.write_reference(case.module)
        after = resource(outcome.snapshot, *case.module.resource)
        expected = reference if case.succeeds else initial
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


@pytest.mark.parametrize('module', cases.FAULTED_WRITES, ids=cases.label)
def test_clean_write_changes_the_resource(suite, module):
    """The reference the faulted writes are compared with is a real change."""
    initial, reference, result = suite.write_reference(module)
    assert not result.get('failed'), result.get('msg')
    assert result.get('changed') is True
    assert initial != reference
