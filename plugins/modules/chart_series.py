#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: chart_series
short_description: Query observability time series
version_added: 0.1.0
description:
  - Queries one to five aggregated time series over a time range and returns one row per time bucket.
  - Every option is checked before the query is sent; a bad value fails the task and sends nothing.
  - The query only reads, so it also runs in check mode, and the module never reports C(changed).
author:
  - engine.cloud contributors (@engine-cloud)
options:
  series:
    description:
      - The series to query, 1 to 5 of them. In the rows, the value of the series at index N (from 0) is under C(series_N.data).
      - Every series must have the same O(series[].group_by).
    type: list
    elements: dict
    required: true
    suboptions:
      source_id:
        description:
          - Id of the data source, an object id of 24 hexadecimal digits.
        type: str
        required: true
      agg_fn:
        description:
          - How the values of a bucket are aggregated.
          - V(count) and V(count_distinct) count events; every other function needs O(series[].field).
        type: str
        required: true
        choices: [count, count_distinct, sum, avg, min, max, p50, p90, p95, p99]
      field:
        description:
          - The field to aggregate, for example C(cpu.usage).
          - Required unless O(series[].agg_fn) is V(count) or V(count_distinct).
        type: str
      where:
        description:
          - Filter in Lucene query syntax, for example C(service:prod-analytics AND level:error).
          - Empty means every event of the source.
        type: str
        default: ''
      group_by:
        description:
          - Fields to group the series by, at most 10; each row then carries the group's values in C(group).
          - Must be the same list, in the same order, in every series.
        type: list
        elements: str
        default: []
  start_time:
    description:
      - Start of the time range.
      - Epoch milliseconds (an integer or a string of 13 digits or more), an ISO 8601 date-time such as
        C(2024-10-12T13:37:00Z) or C(2024-10-12T15:37:00+02:00) (without a time zone it is read as UTC; a date
        alone means its midnight UTC), or a time relative to now such as V(now), C(now-15m), C(now+1h) or C(-2h),
        with the units C(s), C(m), C(h), C(d) and C(w).
      - Relative times of one task are all resolved against the same moment, so O(start_time=-1h) and
        O(end_time=now) span exactly one hour.
    type: raw
    required: true
  end_time:
    description:
      - End of the time range, in any form O(start_time) takes. Must be after O(start_time).
    type: raw
    default: now
  granularity:
    description:
      - Size of a time bucket. Buckets start on a grid of this size, so the first one may start before O(start_time).
      - V(auto), like leaving it out, lets the API pick a size from the length of the range.
    type: str
    choices: [30s, 1m, 5m, 10m, 15m, 30m, 1h, 2h, 6h, 12h, 1d, 2d, 7d, 30d, auto]
  series_return_type:
    description:
      - V(ratio), like leaving it out, merges the series into one row per bucket (and group).
      - V(column) returns one row per series and bucket.
    type: str
    choices: [ratio, column]
extends_documentation_fragment:
  - engine.cloud.observability
  - engine.cloud.cloud.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.OBSERVABILITY_GROUP
notes:
  - Counts, which the API may send as strings, are returned as numbers.
  - "The series keys contain a dot: read them as C(row['series_0.data']), not C(row.series_0.data)."
  - A bucket without data has no row, and a series without data in a bucket has no key in that row.
seealso:
  - module: engine.cloud.dashboard_info
'''

EXAMPLES = r'''
- name: Error ratio of the last hour, in 5-minute buckets
  engine.cloud.chart_series:
    series:
      - source_id: 65b000000000000000000001
        agg_fn: count
        where: service:prod-analytics AND status:error
      - source_id: 65b000000000000000000001
        agg_fn: count
        where: service:prod-analytics
    start_time: -1h
    end_time: now
    granularity: 5m
  register: errors

- name: Average CPU per host on one day
  engine.cloud.chart_series:
    series:
      - source_id: 65b000000000000000000001
        agg_fn: avg
        field: cpu.usage
        where: service:prod-analytics
        group_by: [host]
    start_time: "2024-10-12T00:00:00Z"
    end_time: "2024-10-13T00:00:00Z"
    granularity: 1h
  register: cpu

- name: Show each bucket (the key names hold a dot, so use the bracket form)
  ansible.builtin.debug:
    msg: "{{ item.ts_bucket }} {{ item.group | join(',') }}: {{ item['series_0.data'] | default('no data') }}"
  loop: "{{ cpu.rows }}"
'''

RETURN = r'''
rows:
  description:
    - The API's rows, in ascending C(ts_bucket) order. Numeric strings among the series values are numbers.
  returned: success
  type: list
  elements: dict
  contains:
    ts_bucket:
      description: Start of the time bucket, epoch milliseconds.
      type: int
      sample: 1728738000000
    group:
      description: Values of the O(series[].group_by) fields for this row, empty without grouping.
      type: list
      elements: str
      sample: [ip-10-0-1-17]
    series_0.data:
      description: Value of the first series in this bucket; C(series_1.data) and so on hold the others. Missing where the series has no data.
      type: float
      sample: 42
  sample:
    - {ts_bucket: 1728738000000, group: [], series_0.data: 12, series_1.data: 480}
    - {ts_bucket: 1728738300000, group: [], series_0.data: 3, series_1.data: 455}
start_time_ms:
  description: The start of the range that was queried, epoch milliseconds.
  returned: success
  type: int
  sample: 1728734400000
end_time_ms:
  description: The end of the range that was queried, epoch milliseconds.
  returned: success
  type: int
  sample: 1728738000000
'''

import re

from ansible_collections.engine.cloud.plugins.module_utils import timespec, validate
from ansible_collections.engine.cloud.plugins.module_utils.compare import normalize
from ansible_collections.engine.cloud.plugins.module_utils.observability import ObservabilityModule

AGG_FNS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p95', 'p99']
COUNTING = ('count', 'count_distinct')
MAX_SERIES = 5
MAX_GROUP_BY = 10
_VALUE_KEY = re.compile(r'^(ts_bucket|series_\d+\.data)$')


def series_errors(series):
    """Messages for every problem of the series list, naming the element and suboption."""
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


def as_row(row):
    """A row with numeric strings among its values turned into numbers (group values stay strings)."""
    return dict((key, normalize(value) if _VALUE_KEY.match(key) and isinstance(value, str) else value) for key, value in row.items())


def main():
    module = ObservabilityModule(dict(
        series=dict(type='list', elements='dict', required=True, options=dict(
            source_id=dict(type='str', required=True),
            agg_fn=dict(type='str', required=True, choices=AGG_FNS),
            field=dict(type='str'),
            where=dict(type='str', default=''),
            group_by=dict(type='list', elements='str', default=[]),
        )),
        start_time=dict(type='raw', required=True),
        end_time=dict(type='raw', default='now'),
        granularity=dict(type='str', choices=['30s', '1m', '5m', '10m', '15m', '30m', '1h', '2h', '6h', '12h', '1d', '2d', '7d', '30d', 'auto']),
        series_return_type=dict(type='str', choices=['ratio', 'column']),
    ))
    params = module.params
    now = timespec.now_ms()
    start, start_error = timespec.resolve('start_time', params['start_time'], now)
    end, end_error = timespec.resolve('end_time', params['end_time'], now)
    module.fail_on_errors(*series_errors(params['series']) + [start_error, end_error, timespec.order_error('start_time', start, 'end_time', end)])
    body = dict(startTime=start, endTime=end, series=[
        dict(sourceId=item['source_id'], aggFn=item['agg_fn'], where=item['where'], groupBy=item['group_by'],
             **(dict(field=item['field']) if item['field'] else {}))
        for item in params['series']])
    for option, key in (('granularity', 'granularity'), ('series_return_type', 'seriesReturnType')):
        if params[option] is not None:
            body[key] = params[option]
    rows = sorted((as_row(row) for row in module.post('/charts/series', body) or []), key=lambda row: row.get('ts_bucket', 0))
    module.exit(rows=rows, start_time_ms=start, end_time_ms=end)


if __name__ == '__main__':
    main()
