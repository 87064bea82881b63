# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # The query of the chart_series module and lookup, which share one implementation
    # (plugins/module_utils/chart.py).
    DOCUMENTATION = r'''
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
notes:
  - Counts, which the API may send as strings, are returned as numbers.
  - "The series keys contain a dot: read them as C(row['series_0.data']), not C(row.series_0.data)."
  - A bucket without data has no row, and a series without data in a bucket has no key in that row.
'''
