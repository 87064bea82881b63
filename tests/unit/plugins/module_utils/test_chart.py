# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The chart query that the chart_series module and lookup share: options in, request body or
every problem out, rows back. (The module's own tests cover each check through the module.)"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.engine.cloud.plugins.module_utils import chart, timespec
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SOURCE_LOGS, SOURCE_METRICS

NOW = 1728740220123


def options(**values):
    """values completed by the argument spec, as a module or the lookup sees them."""
    result = ArgumentSpecValidator(chart.SPEC).validate(values)
    assert result.error_messages == []
    return result.validated_parameters


def test_request_body_in_the_api_terms_with_one_now(monkeypatch):
    monkeypatch.setattr(timespec, 'now_ms', lambda: NOW)
    body, errors = chart.request(options(series=[dict(source_id=SOURCE_METRICS, agg_fn='p95', field='duration', group_by=['host']),
                                                 dict(source_id=SOURCE_LOGS, agg_fn='count', group_by=['host'])],
                                         start_time='now-1h', end_time='now', series_return_type='column'))
    assert errors == []
    assert body == {'startTime': NOW - 3600000, 'endTime': NOW, 'seriesReturnType': 'column', 'series': [
        {'sourceId': SOURCE_METRICS, 'aggFn': 'p95', 'field': 'duration', 'where': '', 'groupBy': ['host']},
        {'sourceId': SOURCE_LOGS, 'aggFn': 'count', 'where': '', 'groupBy': ['host']}]}


def test_request_reports_every_problem_and_no_body():
    body, errors = chart.request(options(series=[dict(source_id='x', agg_fn='sum')], start_time='soon', end_time='-1h'))
    assert body is None
    assert [error.split(' ')[0] for error in errors] == ['series[0].source_id', 'series[0].field', 'start_time']


def test_rows_ascending_with_counts_as_numbers():
    data = [{'ts_bucket': 2, 'group': ['7'], 'series_0.data': '3'}, {'ts_bucket': 1, 'group': [], 'series_0.data': 0.5}]
    assert chart.rows(data) == [{'ts_bucket': 1, 'group': [], 'series_0.data': 0.5}, {'ts_bucket': 2, 'group': ['7'], 'series_0.data': 3}]
    assert chart.rows(None) == []
