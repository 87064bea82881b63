# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import timespec
from ansible_collections.engine.cloud.plugins.modules import chart_series
from ansible_collections.engine.cloud.tests.unit.plugins.modules.test_dashboard_info import run_module

NOW = 1728740220123
HOUR = 3600 * 1000
METRICS = '65b000000000000000000001'
ROWS = [{'ts_bucket': NOW - HOUR, 'group': [], 'series_0.data': '3'}]


def series(count=1, **item):
    base = dict(source_id=METRICS, agg_fn='count')
    base.update(item)
    return [dict(base) for dummy in range(count)]


def run(args, monkeypatch, capsys, rows=None, **kwargs):
    monkeypatch.setattr(timespec, 'now_ms', lambda: NOW)
    full = dict(series=series(), start_time='-1h')
    full.update(args)
    return run_module(chart_series.main, full, lambda request: (200, {'data': ROWS if rows is None else rows}),
                      monkeypatch, capsys, **kwargs)


def sent_body(api):
    assert [(request.method, request.path_url) for request in api.requests] == [('POST', '/api/v2/charts/series')]
    assert api.requests[0].headers['Content-Type'] == 'application/json'
    return json.loads(api.requests[0].body)


def test_sends_the_query_in_the_api_terms(monkeypatch, capsys):
    result, api = run(dict(series=[dict(source_id=METRICS, agg_fn='avg', field='cpu.usage', where='service:prod', group_by=['host']),
                                   dict(source_id=METRICS, agg_fn='count', group_by=['host'])],
                           start_time='2024-10-12T12:00:00Z', end_time='2024-10-12T15:37:00.123+02:00',
                           granularity='5m', series_return_type='column'), monkeypatch, capsys)
    assert sent_body(api) == {
        'series': [{'sourceId': METRICS, 'aggFn': 'avg', 'field': 'cpu.usage', 'where': 'service:prod', 'groupBy': ['host']},
                   {'sourceId': METRICS, 'aggFn': 'count', 'where': '', 'groupBy': ['host']}],
        'startTime': 1728734400000, 'endTime': NOW, 'granularity': '5m', 'seriesReturnType': 'column'}
    assert (result['start_time_ms'], result['end_time_ms'], result['changed']) == (1728734400000, NOW, False)


def test_defaults_leave_optional_keys_out_and_end_at_now(monkeypatch, capsys):
    result, api = run({}, monkeypatch, capsys)
    assert sent_body(api) == {'series': [{'sourceId': METRICS, 'aggFn': 'count', 'where': '', 'groupBy': []}],
                              'startTime': NOW - HOUR, 'endTime': NOW}
    assert (result['start_time_ms'], result['end_time_ms']) == (NOW - HOUR, NOW)


@pytest.mark.parametrize('start, end, expected', [
    ('now-15m', 'now', (NOW - 15 * 60000, NOW)),
    ('-2h', '-1h', (NOW - 2 * HOUR, NOW - HOUR)),
    ('now-1d', 'now+1h', (NOW - 24 * HOUR, NOW + HOUR)),
    (1728700000000, '1728740000000', (1728700000000, 1728740000000)),
    ('2024-10-12T00:00:00Z', 'now', (1728691200000, NOW)),
])
def test_times_in_every_form(monkeypatch, capsys, start, end, expected):
    result, api = run(dict(start_time=start, end_time=end), monkeypatch, capsys)
    body = sent_body(api)
    assert (body['startTime'], body['endTime']) == expected == (result['start_time_ms'], result['end_time_ms'])


def test_rows_come_back_ascending_with_numbers(monkeypatch, capsys):
    rows = [{'ts_bucket': 3000000000000, 'group': ['500'], 'series_0.data': '7', 'series_1.data': 0.5},
            {'ts_bucket': 1000000000000, 'group': ['b'], 'series_0.data': '2.5'},
            {'ts_bucket': '2000000000000', 'group': ['a'], 'series_1.data': None},
            {'ts_bucket': 1000000000000, 'group': ['a'], 'series_0.data': 4}]
    result, dummy = run(dict(start_time=999999999999 + 1, end_time=3000000000001), monkeypatch, capsys, rows=rows)
    assert result['rows'] == [
        {'ts_bucket': 1000000000000, 'group': ['b'], 'series_0.data': 2.5},
        {'ts_bucket': 1000000000000, 'group': ['a'], 'series_0.data': 4},
        {'ts_bucket': 2000000000000, 'group': ['a'], 'series_1.data': None},
        {'ts_bucket': 3000000000000, 'group': ['500'], 'series_0.data': 7, 'series_1.data': 0.5}]


def test_no_rows(monkeypatch, capsys):
    result, dummy = run({}, monkeypatch, capsys, rows=[])
    assert result['rows'] == []


def test_check_mode_runs_the_query(monkeypatch, capsys):
    result, api = run({}, monkeypatch, capsys, check_mode=True)
    assert result['changed'] is False
    assert result['rows'] == [{'ts_bucket': NOW - HOUR, 'group': [], 'series_0.data': 3}]
    assert len(api.requests) == 1


@pytest.mark.parametrize('args, message', [
    (dict(series=[]), 'series must have 1 to 5 elements, got 0'),
    (dict(series=series(6)), 'series must have 1 to 5 elements, got 6'),
    (dict(series=series(source_id='metrics')), "series[0].source_id must be an object id of 24 hexadecimal digits, got 'metrics'"),
    (dict(series=series(agg_fn='avg')), 'series[0].field is required for agg_fn avg (only count and count_distinct work without it)'),
    (dict(series=series(agg_fn='p99', field='')), 'series[0].field is required for agg_fn p99'),
    (dict(series=series(group_by=['f%d' % index for index in range(11)])), 'series[0].group_by must have at most 10 fields, got 11'),
    (dict(series=series(group_by=['host']) + series(group_by=['service'])), "series[1].group_by must equal series[0].group_by"),
    (dict(series=series(group_by=['host', 'level']) + series(group_by=['level', 'host'])), "got ['level', 'host'] and ['host', 'level']"),
    (dict(series=series() + series(group_by=['host'])), 'series[1].group_by must equal series[0].group_by'),
    (dict(start_time='yesterday'), "start_time must be epoch milliseconds (13 digits or more), an ISO 8601 date-time"),
    (dict(end_time='now-5x'), "end_time must be epoch milliseconds"),
    (dict(start_time=1728740220), 'start_time must be in epoch milliseconds (13 digits or more), got 1728740220'),
    (dict(start_time='2024-10-12T25:00:00Z'), 'start_time is no valid date-time'),
    (dict(start_time='now', end_time='-1h'), 'end_time (1728736620123, 2024-10-12T12:37:00.123Z) must be after start_time'),
    (dict(start_time='now', end_time='now'), 'end_time (1728740220123, 2024-10-12T13:37:00.123Z) must be after start_time'),
    (dict(granularity='3m'), 'granularity'),
    (dict(series_return_type='rows'), 'series_return_type'),
    (dict(series=series(agg_fn='median')), 'agg_fn'),
    (dict(series=[dict(agg_fn='count')]), 'source_id'),
])
def test_bad_input_fails_before_sending(monkeypatch, capsys, args, message):
    result, api = run(args, monkeypatch, capsys)
    assert result['failed'] is True
    assert message in result['msg']
    assert api.requests == []


def test_every_problem_is_reported_at_once(monkeypatch, capsys):
    result, api = run(dict(series=series(agg_fn='sum', source_id='x'), start_time='soon', end_time='-1h'), monkeypatch, capsys)
    for fragment in ('series[0].source_id', 'series[0].field', 'start_time must be'):
        assert fragment in result['msg']
    assert api.requests == []


def test_api_errors_fail_with_the_api_message(monkeypatch, capsys):
    monkeypatch.setattr(timespec, 'now_ms', lambda: NOW)
    result, dummy = run_module(chart_series.main, dict(series=series(), start_time='-1h'),
                               lambda request: (404, {'error': 'Source not found for series 1'}), monkeypatch, capsys)
    assert result['failed'] is True
    assert result['msg'] == 'POST http://obs.test/api/v2/charts/series failed: HTTP 404: Source not found for series 1'
