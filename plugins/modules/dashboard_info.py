#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: dashboard_info
short_description: Read an observability dashboard with its tiles
version_added: 0.1.0
description:
  - Returns one dashboard of the observability API, with its tiles and the series each tile charts.
  - The dashboard id is checked locally before any request is sent.
  - A dashboard that does not exist fails the task with a message naming its id.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  dashboard_id:
    description:
      - Id of the dashboard, an object id of 24 hexadecimal digits.
    type: str
    required: true
extends_documentation_fragment:
  - engine.cloud.observability
  - engine.cloud.cloud.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.OBSERVABILITY_GROUP
seealso:
  - module: engine.cloud.alert_info
  - module: engine.cloud.chart_series
'''

EXAMPLES = r'''
- name: Read the Service health dashboard
  engine.cloud.dashboard_info:
    dashboard_id: 65a1b2c3d4e5f60718293a4b
  register: result

- name: List its tiles
  ansible.builtin.debug:
    msg: "{{ result.dashboard.name }}: {{ result.dashboard.tiles | map(attribute='name') | join(', ') }}"
'''

RETURN = r'''
dashboard:
  description: The dashboard, as the API returns it.
  returned: success
  type: dict
  contains:
    id:
      description: Id of the dashboard.
      type: str
      sample: 65a1b2c3d4e5f60718293a4b
    name:
      description: Name of the dashboard.
      type: str
      sample: Service health
    tags:
      description: Tags of the dashboard.
      type: list
      elements: str
      sample: [production, sre]
    tiles:
      description:
        - The tiles, each with C(id), C(name), grid position and size C(x), C(y), C(w), C(h), C(asRatio),
          and C(series).
        - Each element of C(series) has C(type), C(dataSource), C(aggFn), C(field), C(where) and C(groupBy).
      type: list
      elements: dict
      sample:
        - id: t-cpu
          name: CPU usage
          x: 0
          y: 0
          w: 6
          h: 3
          asRatio: false
          series:
            - type: time
              dataSource: metrics
              aggFn: avg
              field: cpu.usage
              where: service:prod-analytics
              groupBy: [host]
'''

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.observability import ObservabilityModule


def main():
    module = ObservabilityModule(dict(dashboard_id=dict(type='str', required=True)))
    dashboard_id = module.params['dashboard_id']
    module.fail_on_errors(validate.object_id('dashboard_id', dashboard_id))
    path = '/dashboards/%s' % dashboard_id
    dashboard = module.read(path, missing_ok=True)
    if dashboard is None:
        module.fail('dashboard %s not found (GET /api/v2%s answered HTTP 404)' % (dashboard_id, path),
                    status=404, method='GET', path='/api/v2' + path)
    module.exit(dashboard=dashboard)


if __name__ == '__main__':
    main()
