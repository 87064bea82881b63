# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The chart_series lookup against the simulator in process (tests/unit/conftest.py): keyword
arguments checked as the module checks its options, the module's request and rows for the same
options, AnsibleErrors that name the option, the environment fallbacks, and no token in any
message. "Now" is the fake clock's, set to NOW for every test here."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

from ansible.errors import AnsibleError

from ansible_collections.engine.cloud.plugins.lookup.chart_series import LookupModule
from ansible_collections.engine.cloud.plugins.modules import chart_series
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SOURCE_METRICS, TOKEN, observability_connection

NOW = 1728740220125  # 2024-10-12T13:37:00.125Z
HOUR = 3600 * 1000
PATH = '/api/v2/charts/series'
SERIES = [dict(source_id=SOURCE_METRICS, agg_fn='count')]
ONE_HOUR = dict(series=SERIES, start_time='-1h')


@pytest.fixture(autouse=True)
def controller_at_now(controller, clock, monkeypatch):
    """The controller's process, at NOW, without the connection's environment variables."""
    clock.now = NOW / 1000.0
    for name in ('ENGINE_OBSERVABILITY_URL', 'ENGINE_OBSERVABILITY_TOKEN'):
        monkeypatch.delenv(name, raising=False)


def lookup(sim, *terms, **options):
    """The lookup's rows for these options, connected to the simulator unless options say otherwise."""
    return LookupModule().run(list(terms), variables={}, **dict(observability_connection(sim.url), **options))


def sent(sim):
    """The simulator's log as (method, path, body, status)."""
    return [(entry['method'], entry['path'], entry['body'], entry['status']) for entry in sim.requests()]


def test_the_rows_and_the_request_are_the_modules_for_the_same_options(sim, run):
    options = dict(series=[dict(source_id=SOURCE_METRICS, agg_fn='count', where='level:error', group_by=['host']),
                           dict(source_id=SOURCE_METRICS, agg_fn='p95', field='query.duration_ms', group_by=['host'])],
                   start_time='-1h', granularity='5m')
    body = {'series': [{'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': 'level:error', 'groupBy': ['host']},
                       {'sourceId': SOURCE_METRICS, 'aggFn': 'p95', 'field': 'query.duration_ms', 'where': '', 'groupBy': ['host']}],
            'startTime': NOW - HOUR, 'endTime': NOW, 'granularity': '5m'}
    module_rows = run(chart_series, options, requests=[('POST', PATH, body)])['rows']
    sim.clear_requests()
    rows = lookup(sim, **options)
    assert sent(sim) == [('POST', PATH, body, 200)]
    assert rows == module_rows and len(rows) > 12
    assert all(isinstance(row['series_0.data'], int) for row in rows if 'series_0.data' in row)  # the API's counts are strings


def test_rows_come_back_ascending_with_numeric_strings_as_numbers(sim):
    sim.faults(dict(kind='status', status=200, method='POST', path=PATH,
                    body={'data': [{'ts_bucket': 2, 'group': ['7'], 'series_0.data': '5'}, {'ts_bucket': 1, 'group': [], 'series_0.data': 4}]}))
    assert lookup(sim, **ONE_HOUR) == [{'ts_bucket': 1, 'group': [], 'series_0.data': 4}, {'ts_bucket': 2, 'group': ['7'], 'series_0.data': 5}]


def test_the_connection_options_reach_the_client(sim):
    """observability_url is the address asked (the simulator answers at its own only), api_timeout and api_retries bound the wait."""
    with pytest.raises(AnsibleError, match=re.escape("POST https://observability.engine.example%s failed: connection failed: Failed to resolve"
                                                     % PATH)):
        lookup(sim, observability_url='https://observability.engine.example', api_retries=0, **ONE_HOUR)
    assert sim.requests() == []
    sim.faults(dict(kind='delay', delay=10, method='POST', path=PATH, count=2))
    started, backoff = sim.clock.now, sim.clock.sleeps
    del backoff[:]
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, api_timeout=7, api_retries=1, **ONE_HOUR)
    assert str(raised.value) == 'POST %s%s failed: no response within api_timeout (7 s) (after 2 attempts)' % (sim.url, PATH)
    assert [entry['fault'] for entry in sim.requests()] == ['delay', 'delay']
    assert sim.clock.now - started == pytest.approx(7 + sum(backoff) + 7)


def test_connection_from_the_environment(sim, monkeypatch):
    monkeypatch.setenv('ENGINE_OBSERVABILITY_URL', sim.url)
    monkeypatch.setenv('ENGINE_OBSERVABILITY_TOKEN', TOKEN)
    assert LookupModule().run([], variables={}, **ONE_HOUR)
    assert [(method, path, status) for method, path, dummy, status in sent(sim)] == [('POST', PATH, 200)]


def test_a_token_the_api_refuses_fails_without_showing_it(sim):
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, api_token='not-the-token', **ONE_HOUR)
    assert str(raised.value).startswith('POST %s%s failed: HTTP 401: Unauthorized. ' % (sim.url, PATH))
    assert 'api_token' in str(raised.value) and 'not-the-token' not in str(raised.value)
    assert [status for dummy, dummy, dummy, status in sent(sim)] == [401]


@pytest.mark.parametrize('options, message', [
    (dict(series=[dict(source_id='metrics', agg_fn='count')], start_time='-1h'),
     "series[0].source_id must be an object id of 24 hexadecimal digits, got 'metrics'"),
    (dict(series=SERIES, start_time='-1h', end_time='-2h'), 'end_time (1728733020125, 2024-10-12T11:37:00.125Z) must be after start_time'),
    (dict(series=SERIES), 'missing required arguments: start_time'),
    (dict(series=SERIES, start_time='-1h', granularity='7m'), 'value of granularity must be one of: 30s, 1m,'),
    (dict(series=SERIES, start_time='-1h', step='5m'), 'Unsupported parameters for (engine.cloud.chart_series lookup): step. Supported'),
    (dict(series=SERIES, start_time='-1h', api_retries=-1), 'api_retries must be at least 0, got -1'),
    (dict(series=SERIES, start_time='-1h', observability_url='observability.example'), 'observability_url must be an http:// or https://'),
])
def test_bad_options_raise_naming_the_option_and_send_nothing(sim, options, message):
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, **options)
    assert message in str(raised.value)
    assert TOKEN not in str(raised.value)
    assert sim.requests() == []


def test_without_a_connection_the_missing_options_are_named(sim):
    with pytest.raises(AnsibleError, match='observability_url is required: set observability_url or the ENGINE_OBSERVABILITY_URL '
                                           'environment variable; api_token is required: set api_token or the '
                                           'ENGINE_OBSERVABILITY_TOKEN environment variable'):
        LookupModule().run([], variables={}, **ONE_HOUR)
    assert sim.requests() == []


def test_terms_are_refused(sim):
    with pytest.raises(AnsibleError, match=r'takes keyword arguments only \(series=..., start_time=...\), got 1 positional term'):
        lookup(sim, 'series', **ONE_HOUR)
    assert sim.requests() == []


def test_an_api_error_raises_the_modules_message(sim, run):
    options = dict(series=[dict(source_id=SOURCE_METRICS[:-1] + '9', agg_fn='count')], start_time='-1h')  # well formed, but no such source
    failed = run(chart_series, options, requests=[('POST', PATH)], fails='HTTP 404')
    sim.clear_requests()
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, **options)
    assert str(raised.value) == failed['msg'] == 'POST %s%s failed: HTTP 404: Source not found for series 1' % (sim.url, PATH)
    assert [status for dummy, dummy, dummy, status in sent(sim)] == [404]


def test_a_bad_token_in_a_message_is_masked(sim):
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, api_token='secret-token', validate_certs='secret-token', **ONE_HOUR)
    assert 'validate_certs' in str(raised.value) and 'secret-token' not in str(raised.value)
    assert sim.requests() == []
