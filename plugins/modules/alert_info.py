#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: alert_info
short_description: List observability alerts
version_added: 0.1.0
description:
  - Returns every alert of the observability API, optionally filtered, or one alert by O(alert_id).
  - Reads all pages when the server pages the listing (C(limit)/C(offset), 1000 alerts a page), and also works
    against older servers that return every alert at once.
  - The filters are applied by the module to the alerts of all pages; each is an exact match, case-sensitive except
    for O(dashboard_id) (an object id, whose hexadecimal digits may be written in either case), and an alert must
    match every filter given. Without filters every alert is returned.
  - Each alert carries its C(definition), the options of M(engine.cloud.alert) that describe it. Write them to a
    file once and manage the alerts from it; fed back to M(engine.cloud.alert), a definition reports no change and
    sends no write.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  alert_id:
    description:
      - Read only this alert (one C(GET) of it), an object id of 24 hexadecimal digits. The task fails when it does not
        exist. The other filters apply to it too.
    type: str
  name:
    description:
      - Only the alerts whose C(name) is exactly this.
    type: str
  state:
    description:
      - Only the alerts in this state.
    type: str
    choices: [inactive, ALERT, OK, INSUFFICIENT_DATA, DISABLED, PENDING]
  dashboard_id:
    description:
      - Only the alerts on this dashboard (the alert's C(dashboardId), or C(dashboard) on older servers), an object id
        of 24 hexadecimal digits, in either case.
    type: str
  tile_id:
    description:
      - Only the alerts on this tile (the alert's C(tileId)).
    type: str
extends_documentation_fragment:
  - engine.cloud.observability
  - engine.cloud.cloud.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.OBSERVABILITY_GROUP
seealso:
  - module: engine.cloud.dashboard_info
  - module: engine.cloud.alert
'''

EXAMPLES = r'''
- name: List the alerts that fire on the Service health dashboard
  engine.cloud.alert_info:
    dashboard_id: 65a1b2c3d4e5f60718293a4b
    state: ALERT
  register: firing

- name: Name them
  ansible.builtin.debug:
    msg: "{{ firing.alerts | map(attribute='name') | list }}"

- name: Read every alert
  engine.cloud.alert_info:
  register: everything

- name: Read one alert by its id
  engine.cloud.alert_info:
    alert_id: 65c000000000000000000001
  register: high_cpu

- name: Export every alert's definition to a file, to manage them with engine.cloud.alert from then on
  ansible.builtin.copy:
    content: "{{ everything.alerts | map(attribute='definition') | list | to_nice_yaml }}"
    dest: "{{ playbook_dir }}/alerts.yml"
    mode: "0644"
'''

RETURN = r'''
alerts:
  description: The alerts that match every filter given, in the order the API lists them; empty if none match.
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: Id of the alert.
      type: str
      sample: 65c000000000000000000003
    name:
      description: Name of the alert.
      type: str
      sample: QPS drop
    message:
      description: Message the alert sends.
      type: str
      sample: Query rate fell below 10/s
    state:
      description: Current state, for example C(inactive), C(ALERT), C(OK), C(INSUFFICIENT_DATA), C(DISABLED), C(PENDING).
      type: str
      sample: ALERT
    threshold:
      description: Threshold the tile's value is compared with.
      type: float
      sample: 10
    thresholdType:
      description: How the value is compared with the threshold, for example C(above) or C(below).
      type: str
      sample: below
    interval:
      description: Evaluation interval, for example C(5m).
      type: str
      sample: 5m
    source:
      description: What the alert watches, for example C(tile).
      type: str
      sample: tile
    channel:
      description: Where the alert is sent, with C(type) and C(webhookId).
      type: dict
      sample: {type: webhook, webhookId: 65d000000000000000000002}
    channels:
      description: Every channel, on servers that keep several.
      type: list
      elements: dict
      sample: [{type: webhook, webhookId: 65d000000000000000000002}]
    team:
      description: Id of the team that owns the alert (older servers; newer ones name it C(teamId)).
      type: str
      sample: 65e000000000000000000001
    dashboard:
      description: Id of the dashboard the alert watches (older servers; newer ones name it C(dashboardId)).
      type: str
      sample: 65a1b2c3d4e5f60718293a4b
    tileId:
      description: Id of the tile the alert watches.
      type: str
      sample: t-qps
    createdAt:
      description: Creation time, ISO 8601.
      type: str
      sample: "2024-09-02T09:00:00.000Z"
    updatedAt:
      description: Time of the last change, ISO 8601.
      type: str
      sample: "2024-10-12T13:37:00.000Z"
    definition:
      description:
        - The options of M(engine.cloud.alert) that describe the alert (C(alert_id), C(name), C(dashboard) and C(tile)
          or C(saved_search_id) and C(group_by), C(threshold), C(threshold_type), C(threshold_max), C(interval),
          C(channels), C(alert_message), C(note), C(num_consecutive_windows), C(schedule_offset_minutes),
          C(schedule_start_at)), each only when set. Fed back to M(engine.cloud.alert) it changes nothing.
        - C(channels) is always there; it is empty for a legacy alert that has no channel (servers from version 2.36 read
          such an alert with neither C(channel) nor C(channels)).
      type: dict
      sample:
        alert_id: 65c000000000000000000003
        name: QPS drop
        dashboard: 65a1b2c3d4e5f60718293a4b
        tile: t-qps
        threshold: 10
        threshold_type: below
        interval: 5m
        alert_message: Query rate fell below 10/s
        channels: [65d000000000000000000002]
'''

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.alert_rules import definition
from ansible_collections.engine.cloud.plugins.module_utils.dashboard_rules import alert_dashboard
from ansible_collections.engine.cloud.plugins.module_utils.observability import ObservabilityModule

# option -> how an alert's value for it is read (the dashboard in either era's form)
FILTERS = dict(name=lambda alert: alert.get('name'), state=lambda alert: alert.get('state'), dashboard_id=alert_dashboard,
               tile_id=lambda alert: alert.get('tileId'))
CASE_INSENSITIVE = ('dashboard_id',)


def main():
    module = ObservabilityModule(dict(
        alert_id=dict(type='str'),
        name=dict(type='str'),
        state=dict(type='str', choices=['inactive', 'ALERT', 'OK', 'INSUFFICIENT_DATA', 'DISABLED', 'PENDING']),
        dashboard_id=dict(type='str'),
        tile_id=dict(type='str'),
    ))
    params = module.params
    module.fail_on_errors(validate.object_id('alert_id', params['alert_id']), validate.object_id('dashboard_id', params['dashboard_id']))
    wanted = dict((option, params[option]) for option in FILTERS if params[option] is not None)
    alerts = [dict(alert, definition=definition(alert)) for alert in read_alerts(module)
              if all(matches(option, FILTERS[option](alert), value) for option, value in wanted.items())]
    module.exit(alerts=alerts)


def read_alerts(module):
    """Every alert (all pages), or the one of alert_id (which must exist)."""
    alert_id = module.params['alert_id']
    if alert_id is None:
        return module.list_all('/alerts')
    path = '/alerts/%s' % alert_id
    alert = module.read(path, missing_ok=True)
    if alert is None:
        module.fail('alert %s not found (GET /api/v2%s answered HTTP 404)' % (alert_id, path), status=404, method='GET', path='/api/v2' + path)
    return [alert]


def matches(option, actual, wanted):
    """An exact match; an object id (the dashboard) in any case, as hexadecimal digits are."""
    if option in CASE_INSENSITIVE and isinstance(actual, str):
        return actual.lower() == wanted.lower()
    return actual == wanted


if __name__ == '__main__':
    main()
