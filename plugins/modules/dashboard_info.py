#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: dashboard_info
short_description: Read observability dashboards with their tiles, and export their definitions
version_added: 0.1.0
description:
  - With O(dashboard_id), returns that dashboard of the observability API (one C(GET)), with its tiles and the
    query each tile charts. A dashboard that does not exist fails the task with a message naming its id.
  - Without it, returns every dashboard of the token's team (one C(GET /api/v2/dashboards)), or with O(name) those of
    that name (names are not unique).
  - Each dashboard returned carries C(definition), the options of M(engine.cloud.dashboard) that describe it. Fed back
    to that module, a definition reports no change and sends no write; so a team can write its existing dashboards to
    YAML once, and manage them from then on.
  - The dashboard id is checked locally before any request is sent.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  dashboard_id:
    description:
      - Id of the dashboard, an object id of 24 hexadecimal digits.
      - Left out, every dashboard is returned (in RV(dashboards)).
    type: str
  name:
    description:
      - Without O(dashboard_id), return only the dashboards of this name. Mutually exclusive with O(dashboard_id).
    type: str
extends_documentation_fragment:
  - engine.cloud.observability
  - engine.cloud.cloud.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.OBSERVABILITY_GROUP
seealso:
  - module: engine.cloud.dashboard
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

- name: Export every dashboard
  engine.cloud.dashboard_info:
  register: every

- name: Write their definitions to a file, to manage them with engine.cloud.dashboard from then on
  ansible.builtin.copy:
    content: "{{ every.dashboards | map(attribute='definition') | list | to_nice_yaml(indent=2) }}"
    dest: "{{ playbook_dir }}/dashboards.yml"
    mode: "0644"
'''

RETURN = r'''
dashboards:
  description:
    - Without O(dashboard_id), every dashboard (of O(name), when given), as the API returns them, sorted by name
      descending as the API lists them, each with C(definition).
  returned: when O(dashboard_id) is not given
  type: list
  elements: dict
  sample:
    - id: 65a1b2c3d4e5f60718293a4b
      name: Service health
      tags: [production, sre]
      tiles: []
      definition:
        dashboard_id: 65a1b2c3d4e5f60718293a4b
        name: Service health
        tags: [production, sre]
        tiles: []
dashboard:
  description: With O(dashboard_id), the dashboard as the API returns it, with C(definition).
  returned: when O(dashboard_id) is given
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
    definition:
      description:
        - The options of M(engine.cloud.dashboard) that describe the dashboard (O(engine.cloud.dashboard#module:dashboard_id),
          O(engine.cloud.dashboard#module:name), O(engine.cloud.dashboard#module:tags),
          O(engine.cloud.dashboard#module:tiles)); each tile in series form (snake_case) when the server reads it so,
          else in config form, with its section and tab (C(container_id), C(tab_id)) when it has them; a V(number),
          V(search) or V(markdown) series with its first item only (all the server keeps). Tiles that share a name, or
          have none, keep their order. Fed back to that module, it reports no change and sends no write.
      type: dict
      sample:
        dashboard_id: 65a1b2c3d4e5f60718293a4b
        name: Service health
        tags: [production, sre]
        tiles:
          - name: CPU usage
            x: 0
            y: 0
            w: 6
            h: 3
            series:
              - type: time
                data_source: metrics
                agg_fn: avg
                field: cpu.usage
                where: service:prod-analytics
                group_by: [host]
'''

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.dashboard_rules import definition
from ansible_collections.engine.cloud.plugins.module_utils.observability import ObservabilityModule


def with_definition(dashboard):
    return dict(dashboard, definition=definition(dashboard))


def main():
    module = ObservabilityModule(dict(dashboard_id=dict(type='str'), name=dict(type='str')), mutually_exclusive=[('dashboard_id', 'name')])
    dashboard_id, name = module.params['dashboard_id'], module.params['name']
    module.fail_on_errors(validate.object_id('dashboard_id', dashboard_id))
    if dashboard_id is None:
        listed = module.read('/dashboards') or []
        module.exit(dashboards=[with_definition(item) for item in listed if name is None or item.get('name') == name])
    path = '/dashboards/%s' % dashboard_id
    dashboard = module.read(path, missing_ok=True)
    if dashboard is None:
        module.fail('dashboard %s not found (GET /api/v2%s answered HTTP 404)' % (dashboard_id, path),
                    status=404, method='GET', path='/api/v2' + path)
    module.exit(dashboard=with_definition(dashboard))


if __name__ == '__main__':
    main()
