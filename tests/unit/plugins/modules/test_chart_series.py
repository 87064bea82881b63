# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.chart_series against the simulator in process (tests/unit/conftest.py); "now" is
the fake clock's, which starts at NOW."""

import pytest

from ansible_collections.engine.cloud.plugins.modules import chart_series
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SOURCE_METRICS

NOW = 1728740220125  # conftest.START in milliseconds: 2024-10-12T13:37:00.125Z
HOUR = 3600 * 1000
SERIES = '/api/v2/charts/series'


def series(count=1, **item):
    base = dict(source_id=SOURCE_METRICS, agg_fn='count')
    base.update(item)
    return [dict(base) for dummy in range(count)]


def query(**args):
    """The module's arguments: one count series over the last hour, unless args say otherwise."""
    return dict(dict(series=series(), start_time='-1h'), **args)


def post(body):
    return ('POST', SERIES, body)


def answer(rows):
    """A fault that makes the API answer these rows."""
    return dict(kind='status', status=200, method='POST', path=SERIES, body={'data': rows})


UNSORTED = [{'ts_bucket': 3000000000000, 'group': ['500'], 'series_0.data': '7', 'series_1.data': 0.5},
            {'ts_bucket': 1000000000000, 'group': ['b'], 'series_0.data': '2.5'},
            {'ts_bucket': '2000000000000', 'group': ['a'], 'series_1.data': None},
            {'ts_bucket': 1000000000000, 'group': ['a'], 'series_0.data': 4}]

CASES = {
    'the query is sent in the API terms': dict(
        args=dict(series=[dict(source_id=SOURCE_METRICS, agg_fn='avg', field='cpu.usage', where='service:prod', group_by=['host']),
                          dict(source_id=SOURCE_METRICS, agg_fn='count', group_by=['host'])],
                  start_time='2024-10-12T12:00:00Z', end_time='2024-10-12T15:37:00.123+02:00', granularity='5m',
                  series_return_type='column'),
        requests=[post({'series': [{'sourceId': SOURCE_METRICS, 'aggFn': 'avg', 'field': 'cpu.usage', 'where': 'service:prod',
                                    'groupBy': ['host']},
                                   {'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': '', 'groupBy': ['host']}],
                        'startTime': 1728734400000, 'endTime': 1728740220123, 'granularity': '5m', 'seriesReturnType': 'column'})],
        result={'changed': False, 'start_time_ms': 1728734400000, 'end_time_ms': 1728740220123}),
    'defaults leave optional keys out and end now': dict(
        args=query(),
        requests=[post({'series': [{'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': '', 'groupBy': []}],
                        'startTime': NOW - HOUR, 'endTime': NOW})],
        result={'start_time_ms': NOW - HOUR, 'end_time_ms': NOW}),
    'rows come back ascending, numeric strings as numbers': dict(
        args=query(start_time=1000000000000, end_time=3000000000001), faults=[answer(UNSORTED)],
        requests=[post({'series': [{'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': '', 'groupBy': []}],
                        'startTime': 1000000000000, 'endTime': 3000000000001})],
        result={'rows': [{'ts_bucket': 1000000000000, 'group': ['b'], 'series_0.data': 2.5},
                         {'ts_bucket': 1000000000000, 'group': ['a'], 'series_0.data': 4},
                         {'ts_bucket': 2000000000000, 'group': ['a'], 'series_1.data': None},
                         {'ts_bucket': 3000000000000, 'group': ['500'], 'series_0.data': 7, 'series_1.data': 0.5}]}),
    'no rows': dict(
        args=query(), faults=[answer([])], requests=[('POST', SERIES)], result={'rows': []}),
    'every problem is reported at once': dict(
        args=query(series=series(agg_fn='sum', source_id='x'), start_time='soon', end_time='-1h'),
        requests=[], fails='series[0].source_id',
        verify=lambda result, sim: 'series[0].field' in result['msg'] and 'start_time must be' in result['msg']),
    'an API error fails with the API message': dict(
        args=query(series=series(source_id=SOURCE_METRICS[:-1] + '9')),  # well formed, but no such source
        requests=[('POST', SERIES)], fails='', result={'msg': 'POST http://simulator.test%s failed: HTTP 404: Source not found for series 1' % SERIES}),
}

# Besides what test_bad_input.py generates from the documentation.
BAD_INPUT = [
    (dict(series=series(6)), 'series must have 1 to 5 elements, got 6'),
    (dict(series=series(agg_fn='avg')), 'series[0].field is required for agg_fn avg (only count and count_distinct work without it)'),
    (dict(series=series(agg_fn='p99', field='')), 'series[0].field is required for agg_fn p99'),
    (dict(series=series(group_by=['f%d' % index for index in range(11)])), 'series[0].group_by must have at most 10 fields, got 11'),
    (dict(series=series(group_by=['host']) + series(group_by=['service'])), "series[1].group_by must equal series[0].group_by"),
    (dict(series=series(group_by=['host', 'level']) + series(group_by=['level', 'host'])), "got ['level', 'host'] and ['host', 'level']"),
    (dict(series=series() + series(group_by=['host'])), 'series[1].group_by must equal series[0].group_by'),
    (dict(start_time='now', end_time='-1h'), 'end_time (1728736620125, 2024-10-12T12:37:00.125Z) must be after start_time'),
    (dict(series=[dict(agg_fn='count')]), 'source_id'),
]


def test_chart_series(run, case):
    run(chart_series, **case)


@pytest.mark.parametrize('args, text', BAD_INPUT)
def test_bad_input_fails_before_any_request(run, args, text):
    run(chart_series, query(**args), requests=[], fails=text)
