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
  - Returns every alert of the observability API, optionally filtered.
  - Reads all pages when the server pages the listing (C(limit)/C(offset), 1000 alerts a page), and also works
    against older servers that return every alert at once.
  - The filters are applied by the module to the alerts of all pages; each is an exact match, case-sensitive except
    for O(dashboard_id) (an object id, whose hexadecimal digits may be written in either case), and an alert must
    match every filter given. Without filters every alert is returned.
author:
  - engine.cloud contributors (@engine-cloud)
options:
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
      - Only the alerts on this dashboard (the alert's C(dashboard)), an object id of 24 hexadecimal digits, in either case.
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
    team:
      description: Id of the team that owns the alert.
      type: str
      sample: 65e000000000000000000001
    dashboard:
      description: Id of the dashboard the alert watches.
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
'''

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.observability import ObservabilityModule

# option -> field of an alert it filters on
FILTERS = dict(name='name', state='state', dashboard_id='dashboard', tile_id='tileId')
CASE_INSENSITIVE = ('dashboard',)


def main():
    module = ObservabilityModule(dict(
        name=dict(type='str'),
        state=dict(type='str', choices=['inactive', 'ALERT', 'OK', 'INSUFFICIENT_DATA', 'DISABLED', 'PENDING']),
        dashboard_id=dict(type='str'),
        tile_id=dict(type='str'),
    ))
    module.fail_on_errors(validate.object_id('dashboard_id', module.params['dashboard_id']))
    wanted = dict((field, module.params[option]) for option, field in FILTERS.items() if module.params[option] is not None)
    alerts = [alert for alert in module.list_all('/alerts')
              if all(matches(field, alert.get(field), value) for field, value in wanted.items())]
    module.exit(alerts=alerts)


def matches(field, actual, wanted):
    """An exact match; an object id (the dashboard) in any case, as hexadecimal digits are."""
    if field in CASE_INSENSITIVE and isinstance(actual, str):
        return actual.lower() == wanted.lower()
    return actual == wanted


if __name__ == '__main__':
    main()
