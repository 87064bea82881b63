# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The lifecycle of a service under lost answers and transitions (cases.LIFECYCLE_CASES): a create whose answer
was lost leaves exactly one service (read by name before anything is sent again); a delete whose answer was lost
is confirmed by a read; a stopping service is deleted once stopped, without a stop; absent on a service being
deleted sends nothing. Asserted from the request log and the state the run left."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import cases

WRITES = ('POST', 'PATCH', 'PUT', 'DELETE')


@pytest.mark.parametrize('case', cases.LIFECYCLE_CASES, ids=repr)
def test_lifecycle(suite, case):
    counts = suite.counts
    counts.add('lifecycle', 'tried')
    outcome = suite.lifecycle_outcome(case)
    result, log, snapshot = outcome.result, outcome.log, outcome.snapshot
    context = 'result: %s\nlog: %s' % (result.get('msg'), [(e['method'], e['path'][-40:], e['status'], e['fault']) for e in log])
    writes = [entry for entry in log if entry['method'] in WRITES]
    # a path of None: the created service's, unknown in advance
    assert [(entry['method'], entry['path'] if path is not None else None) for entry, (dummy, path) in zip(writes, case.writes)] \
        == [tuple(write) for write in case.writes] and len(writes) == len(case.writes), context
    assert cases.SERVICE_PASSWORD not in str(log), 'the password itself never goes over the wire'
    for write in writes:
        if write['fault'] is not None:
            counts.add('lifecycle', 'lost_answers')
            following = log[log.index(write) + 1:]
            assert following and following[0]['method'] == 'GET', 'a read right after the lost answer\n' + context
            counts.add('lifecycle', 'lost_answers_read_again')
    if case.expect is None:
        assert not result.get('failed'), context
        assert result.get('changed') is case.changed, context
    else:
        assert result.get('failed'), context
        for word in case.expect:
            assert word in result.get('msg', ''), context
    if case.named is not None:
        assert len([service for service in snapshot['services'] if service['name'] == cases.NEW_NAME]) == case.named, context
        counts.add('lifecycle', 'services_as_expected')
    if case.gone is not None:
        left = [service for service in snapshot['services'] if service['id'] == case.gone]
        assert not left or left[0]['state'] in ('terminated', 'softdeleted'), context
    assert 'Traceback' not in str(result)
    counts.add('lifecycle', 'passed')


def test_no_password_in_any_output_of_the_lifecycle_run(suite):
    """The run is -vvv --diff: the password given to its tasks is in no output channel (test_secrets scans every run too)."""
    run = suite.result('lifecycle')
    channels = [channel for channel, text in run.outputs()]
    assert len(channels) >= 3
    assert [channel for channel, text in run.outputs() if cases.SERVICE_PASSWORD in text] == []
