# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A create whose answer is lost (a 502 or 504 from a gateway, a reset; applied by the API or not) is
never sent twice: the module reads the collection by name, takes the resource it finds as created
(applied: exactly one remains), or fails saying that the create was not sent again (not applied: none)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

import cases


@pytest.mark.parametrize('case', cases.LOST_CREATES, ids=repr)
def test_a_lost_create_is_sent_once_and_leaves_at_most_one(suite, case):
    outcome = suite.lost_create_outcome(case)
    result, log = outcome.result, outcome.log
    context = 'result: %s\nlog: %s' % (result.get('msg'), [(e['method'], e['path'][-40:], e['status'], e['fault']) for e in log])
    posts = [index for index, entry in enumerate(log) if entry['method'] == 'POST']
    assert len(posts) == 1, context
    after = log[posts[0] + 1]
    assert (after['method'], after['path']) == ('GET', case.collection), 'a read by name after the lost answer\n' + context
    if case.named:
        assert not result.get('failed') and result.get('changed') is True, context
    else:
        assert result.get('failed') and 'the create was not sent again' in result.get('msg', ''), context
    named = [item for item in outcome.snapshot[case.objects] if item['name'] == case.args['name']]
    assert len(named) == case.named, context
