# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A task that waited more than 5 s in all for the rate limit (module_utils/pacer.py) says so in a warning: how long,
the budget and the option that sets it; one that waited less says nothing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pacer
from ansible_collections.engine.cloud.plugins.modules import alert, service_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import ORGANIZATION, WEBHOOK_PAGER

NEW = dict(name='Paced', dashboard='Service health', tile='CPU usage', threshold=90, threshold_type='above', interval='5m',
           channels=[WEBHOOK_PAGER])
SENT = [('GET', '/api/v2/alerts?limit=1000&offset=0'), ('GET', '/api/v2/dashboards'), ('POST', '/api/v2/alerts')]


def test_the_pacer_counts_the_seconds_it_waited_and_the_warning_names_them_the_budget_and_the_option(clock, tmp_path):
    paced = pacer.Pacer(str(tmp_path / 'state'), 2, 10)
    for dummy in range(3):
        paced.acquire()
    assert paced.waited == pytest.approx(10.5) and sum(clock.sleeps) == pytest.approx(10.5)
    text = pacer.wait_warning(paced, 'token', 'api_rate_limit (or ENGINE_OBSERVABILITY_RATE_LIMIT)')
    assert text.startswith('waited 10.5 s in all for the API\'s rate limit: at most 2 requests per 10 s per token')
    assert 'api_rate_limit (or ENGINE_OBSERVABILITY_RATE_LIMIT) sets that budget' in text
    assert pacer.wait_warning(pacer.UNPACED, 'token', 'api_rate_limit') is None


def test_five_seconds_of_waits_or_less_say_nothing(clock, tmp_path):
    paced = pacer.Pacer(str(tmp_path / 'state'), 1, 4.5, margin=0.5)
    paced.acquire()
    paced.acquire()
    assert paced.waited == pytest.approx(5.0)
    assert pacer.wait_warning(paced, 'token', 'api_rate_limit') is None


def warnings_of(result):
    """The texts of the result's warnings about the rate limit (a text, or from ansible-core 2.19 on a summary of one)."""
    texts = [item if isinstance(item, str) else item['event']['msg'] for item in result.get('warnings', [])]
    return [text for text in texts if 'rate limit' in text]


def test_a_module_that_waited_long_warns_with_the_budget_and_the_option(run):
    result = run(alert, dict(NEW, api_rate_limit='1/4'), requests=SENT, result={'changed': True}, sleeps=[4.5, 4.5])
    assert warnings_of(result) == ["This task waited 9.0 s in all for the API's rate limit: at most 1 requests per 4 s per token, "
                                   "shared by every process of this controller that uses the same token; api_rate_limit (or "
                                   "ENGINE_OBSERVABILITY_RATE_LIMIT) sets that budget (raise it only where the server allows more)"]


def test_a_failing_module_of_the_management_api_warns_naming_its_key_and_a_short_wait_says_nothing(run, sim):
    listed = [('GET', '/v1/organizations/%s/services' % ORGANIZATION)]
    assert warnings_of(run(service_info, dict(api_rate_limit='1/4'), requests=listed)) == []
    assert warnings_of(run(service_info, dict(api_rate_limit='1/4'), requests=listed)) == []
    assert sim.clock.sleeps == [pytest.approx(4.5)]
    result = run(service_info, dict(api_rate_limit='1/6', api_retries=0), fails='HTTP 401',
                 faults=[dict(method='GET', kind='status', status=401, count=1)], requests=listed)
    assert warnings_of(result) == ["This task waited 6.5 s in all for the API's rate limit: at most 1 requests per 6 s per API key, shared "
                                   "by every process of this controller that uses the same API key; api_rate_limit (or "
                                   "ENGINE_CLOUD_RATE_LIMIT) sets that budget (raise it only where the server allows more)"]
