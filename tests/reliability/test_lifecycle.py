# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The lifecycle of each kind of resource under lost answers and transitions (cases.LIFECYCLE_CASES): a create
whose answer was lost (or that runs on the server longer than api_timeout) is never sent twice and leaves one
resource, or none and a failure that says so; a delete whose answer was lost is confirmed by a read, and a DELETE
answered 404 while reads linger ends the task; a stopping service is deleted once stopped, without a stop; absent
on a service being deleted sends nothing. Asserted from the request log and the state the run left."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import cases

WRITES = ('POST', 'PATCH', 'PUT', 'DELETE')


@pytest.mark.parametrize('case', cases.LIFECYCLE_CASES, ids=repr)
def test_lifecycle(suite, case):
    counts = suite.counts
    counts.add('lifecycle', 'tried')
    topic = case.topic and 'kind:%s %s' % (case.kind.name, case.topic)
    if topic:
        counts.add('lifecycle', topic)
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
        name = case.kind.create['name']
        assert len([item for item in snapshot[case.kind.state_key] if item['name'] == name]) == case.named, context
        counts.add('lifecycle', 'resources_as_expected')
    if case.topic == 'slow create':
        assert [entry['method'] for entry in log].count('POST') == 1, 'one create, never sent twice\n' + context
    if case.gone is not None:
        left = [service for service in snapshot['services'] if service['id'] == case.gone]
        assert not left or left[0]['state'] in ('terminated', 'softdeleted'), context
    assert 'Traceback' not in str(result)
    counts.add('lifecycle', 'passed')
    if topic:
        counts.add('lifecycle', topic + ' passed')


def test_no_password_in_any_output_of_the_lifecycle_run(suite):
    """The run is -vvv --diff: the password given to its tasks is in no output channel (test_secrets scans every run too)."""
    run = suite.result('lifecycle')
    channels = [channel for channel, text in run.outputs()]
    assert len(channels) >= 3
    assert [channel for channel, text in run.outputs() if cases.SERVICE_PASSWORD in text] == []
