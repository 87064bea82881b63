# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A chart series query, behind the chart_series module and lookup: its options, their checks, the request body and
the API's rows as both return them."""

import re

from ansible_collections.engine.cloud.plugins.module_utils import timespec, validate
from ansible_collections.engine.cloud.plugins.module_utils.compare import normalize

PATH = '/charts/series'
AGG_FNS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p95', 'p99']
COUNTING = ('count', 'count_distinct')
GRANULARITIES = ['30s', '1m', '5m', '10m', '15m', '30m', '1h', '2h', '6h', '12h', '1d', '2d', '7d', '30d', 'auto']
MAX_SERIES = 5
MAX_GROUP_BY = 10
OPTIONAL_KEYS = (('granularity', 'granularity'), ('series_return_type', 'seriesReturnType'))
_VALUE_KEY = re.compile(r'^(ts_bucket|series_\d+\.data)$')

SPEC = dict(
    series=dict(type='list', elements='dict', required=True, options=dict(
        source_id=dict(type='str', required=True),
        agg_fn=dict(type='str', required=True, choices=AGG_FNS),
        field=dict(type='str'),
        where=dict(type='str', default=''),
        group_by=dict(type='list', elements='str', default=[]),
    )),
    start_time=dict(type='raw', required=True),
    end_time=dict(type='raw', default='now'),
    granularity=dict(type='str', choices=GRANULARITIES),
    series_return_type=dict(type='str', choices=['ratio', 'column']),
)


def series_errors(series):
    errors = [None if 1 <= len(series) <= MAX_SERIES else 'series must have 1 to %d elements, got %d' % (MAX_SERIES, len(series))]
    for index, item in enumerate(series):
        name = 'series[%d]' % index
        errors.append(validate.object_id(name + '.source_id', item['source_id']))
        if item['agg_fn'] not in COUNTING and not item['field']:
            errors.append('%s.field is required for agg_fn %s (only %s work without it)' % (name, item['agg_fn'], ' and '.join(COUNTING)))
        if len(item['group_by']) > MAX_GROUP_BY:
            errors.append('%s.group_by must have at most %d fields, got %d' % (name, MAX_GROUP_BY, len(item['group_by'])))
        if item['group_by'] != series[0]['group_by']:
            errors.append('%s.group_by must equal series[0].group_by (the API requires the same fields, in the same order, in every series), '
                          'got %s and %s' % (name, item['group_by'], series[0]['group_by']))
    return errors


def request(params):
    """(the API's request body, []) with every relative time resolved against the same now, or (None, errors)."""
    now = timespec.now_ms()
    start, start_error = timespec.resolve('start_time', params['start_time'], now)
    end, end_error = timespec.resolve('end_time', params['end_time'], now)
    errors = series_errors(params['series']) + [start_error, end_error, timespec.order_error('start_time', start, 'end_time', end)]
    errors = [error for error in errors if error]
    if errors:
        return None, errors
    body = dict(startTime=start, endTime=end, series=[
        dict(sourceId=item['source_id'], aggFn=item['agg_fn'], where=item['where'], groupBy=item['group_by'],
             **(dict(field=item['field']) if item['field'] else {}))
        for item in params['series']])
    body.update((key, params[option]) for option, key in OPTIONAL_KEYS if params[option] is not None)
    return body, []


def as_row(row):
    """A row with numeric strings among its values turned into numbers (group values stay strings)."""
    return dict((key, normalize(value) if _VALUE_KEY.match(key) and isinstance(value, str) else value) for key, value in row.items())


def rows(data):
    """The API's rows in ascending ts_bucket order, counts as numbers."""
    return sorted((as_row(row) for row in data or []), key=lambda row: row.get('ts_bucket', 0))
