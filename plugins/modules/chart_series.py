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
options: {}
extends_documentation_fragment:
  - engine.cloud.chart_series
  - engine.cloud.observability
  - engine.cloud.cloud.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.OBSERVABILITY_GROUP
seealso:
  - plugin: engine.cloud.chart_series
    plugin_type: lookup
    description: The same query inline, in a template or a condition.
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
    - Each row also holds the value of the first series in its bucket under the key C(series_0.data), of the second
      under C(series_1.data), and so on (numbers); a key is missing where its series has no data in that bucket. The
      keys hold a dot, so a template reads them by key, C(row['series_0.data']), not with dot notation.
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

from ansible_collections.engine.cloud.plugins.module_utils import chart
from ansible_collections.engine.cloud.plugins.module_utils.observability import ObservabilityModule


def main():
    module = ObservabilityModule(chart.SPEC)
    body, errors = chart.request(module.params)
    module.fail_on_errors(*errors)
    rows = chart.rows(module.post(chart.PATH, body))
    module.exit(rows=rows, start_time_ms=body['startTime'], end_time_ms=body['endTime'])


if __name__ == '__main__':
    main()
