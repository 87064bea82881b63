#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: alert
short_description: Create, change and delete an observability alert
version_added: 0.2.0
description:
  - Manages one alert of the observability API as code. The alert is found by O(alert_id), or by O(name) among the
    alerts of every page of the listing; two or more alerts of that name fail the task before any write, listing their
    ids (the API does not keep names unique).
  - An alert watches a tile of a dashboard (O(dashboard) and O(tile), each an id or a name, resolved by one read of the
    dashboards) or a saved search (O(saved_search_id), optionally O(group_by)).
  - With O(state=present), an alert that does not exist is created (one C(POST)). An existing alert converges; the
    module compares the alert as read with the alert the task describes and, when they differ, sends the whole alert
    in one C(PUT), the current alert merged with the options given. The API sets the texts a C(PUT) leaves out
    (C(name), C(message), C(note), C(numConsecutiveWindows)) to null, so a task that changes only the threshold keeps
    the message. Options left out keep their current value. A field once set is removed by an empty O(alert_message),
    O(note), O(group_by) or O(schedule_start_at), or by O(num_consecutive_windows=0); O(schedule_offset_minutes=0) is
    no offset.
  - A new alert on a tile whose display type cannot carry alerts (only C(line), C(stacked_bar) and C(number) can), or
    an alert moved to one, fails before any write, naming the tile and its type (the API would accept it, and the next
    update of the dashboard would delete it). An alert that already is on such a tile is updated as asked, with a warning
    saying so (the dashboards are read once to check the tile, also when the task does not name it).
  - The tile an existing alert is on may be missing from reads (the API leaves PromQL tiles out of them); given by the
    id the alert holds, the alert keeps it.
  - Servers read and write alerts in different forms (C(dashboard)/C(team) or C(dashboardId)/C(teamId)); the module
    reads either. It sends C(channels) (all webhooks) and C(channel) (the first) on every write.
  - Older servers drop the fields they do not know (C(channels) before version 2.36, C(numConsecutiveWindows) before
    2.30, C(note) before 2.25, C(thresholdMax) before 2.24, the schedule before 2.21), and no answer names the version.
    The module tells it from the reads it makes anyway (the alert, and the listing when it finds an alert by name). A
    server that keeps C(note) or C(numConsecutiveWindows) shows it in every read, as null when unset, and one that
    keeps C(channels) shows them beside C(channel). A task that gives such a field (or several channels) where the
    reads show the server older fails before any write, naming the field and the read that shows it, instead of
    sending it again on every run. The range maximum and the schedule show only when set, so no read tells whether a
    server older than 2.25 keeps them; there the write goes out, and when its answer lacks a field it sent, the task
    fails, naming it (the alert is written without it; leave the option out). A server older than 2.24 refuses
    O(threshold_type=between) and O(threshold_type=not_between) with HTTP 400.
  - An alert made before alerts needed a channel (a legacy alert) reads with none; its definition has C(channels=[]),
    and fed back it reports no change. The API refuses any write without a channel, so a change of such an alert
    fails before any write unless the task gives O(channels).
  - In check mode, a dashboard or tile that does not exist (not yet, when an earlier task of the same play would add it) is
    reported as a change with a warning, so that a preview of a new tile and its alert is green; a real run fails
    there before any write.
  - With O(state=absent), the alert is deleted and, with O(wait=true), a read confirms that it is gone. An alert that
    is not there (a read answers 404) reports no change and nothing is sent, whether the server answers a delete of a
    missing alert with 404 or with 200.
  - M(engine.cloud.alert_info) returns, with each alert, its C(definition), these options as they describe the alert.
    Fed back to this module, a definition reports no change and sends no write.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  state:
    description:
      - V(present) creates or changes the alert, V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  alert_id:
    description:
      - Id of the alert, an object id of 24 hexadecimal digits. With O(name) too, the alert of this id gets that name.
      - An alert is created from its O(name) alone; an O(alert_id) that does not exist fails the task.
      - One of O(alert_id) and O(name) is required.
    type: str
  name:
    description:
      - Name of the alert, 1 to 512 characters. Without O(alert_id) it finds the alert, which must be the only one of
        that name.
    type: str
  dashboard:
    description:
      - The dashboard of the tile the alert watches, by id or by name (a name must be the only one of its dashboards).
      - Goes with O(tile). Left out with O(tile) and O(saved_search_id), an existing alert keeps its source.
    type: str
  tile:
    description:
      - The tile of O(dashboard) that the alert watches, by id or by name. Its display type must be able to carry
        alerts (C(line), C(stacked_bar) or C(number)).
    type: str
  saved_search_id:
    description:
      - Id of the saved search the alert watches, instead of a tile (an object id of 24 hexadecimal digits, in either
        case; sent and compared in lowercase, as the server keeps it).
    type: str
  group_by:
    description:
      - The field a saved-search alert groups by. Only for alerts on a saved search. An empty string removes it.
    type: str
  threshold:
    description:
      - The value the watched value is compared with. Required to create an alert.
    type: float
  threshold_type:
    description:
      - How the value is compared with O(threshold). V(between) and V(not_between) need O(threshold_max).
      - Required to create an alert.
    type: str
    choices: [above, below, above_exclusive, below_or_equal, equal, not_equal, between, not_between]
  threshold_max:
    description:
      - Upper end of the range of O(threshold_type=between) and O(threshold_type=not_between), at least O(threshold).
        Only for those two kinds.
    type: float
  interval:
    description:
      - How often the alert is evaluated. Required to create an alert.
    type: str
    choices: [1m, 5m, 15m, 30m, 1h, 6h, 12h, 1d]
  channels:
    description:
      - Ids of the webhooks the alert notifies (object ids of 24 hexadecimal digits, compared as written, as the
        server keeps them as sent), 1 to 10, none twice; the first is the alert's C(channel).
      - Servers that keep one channel per alert take one only.
      - Required to create an alert. V([]) only describes a legacy alert that has none (see the description).
    type: list
    elements: str
  alert_message:
    description:
      - Text the alert sends (the alert's C(message)), up to 4096 characters. An empty string removes it.
      - Named so because ansible-core keeps the argument name C(message) for itself.
    type: str
  note:
    description:
      - A note on the alert, up to 4096 characters. An empty string removes it. Servers older than 2.25 do not keep it.
    type: str
  num_consecutive_windows:
    description:
      - How many consecutive evaluation windows must cross the threshold before the alert fires, at least 1; V(0)
        removes it. Servers older than 2.30 do not keep it.
    type: int
  schedule_offset_minutes:
    description:
      - Minutes by which the evaluation windows are offset, 0 to 1439 and below the minutes of O(interval); V(0) is
        no offset. Must be 0 when O(schedule_start_at) is set.
    type: int
  schedule_start_at:
    description:
      - When the evaluation schedule starts, a UTC date-time ending in C(Z) (V(2026-09-01T00:00:00Z)), within one year
        ahead and ten years back; an offset such as C(+02:00), a time without a zone or a bare date is refused before
        any request. Compared as an instant (the server reads it back with milliseconds). An empty string removes it.
    type: str
  wait:
    description:
      - With O(state=absent), read the alert again after the delete until the API answers 404 (older servers answer a
        delete with 200 whether or not the alert was there).
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds, at least 1, for that wait, and for the reads by name after the lost answer of a create.
    type: int
    default: 60
extends_documentation_fragment:
  - engine.cloud.observability
  - engine.cloud.cloud.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.OBSERVABILITY_GROUP
attributes:
  check_mode:
    support: full
    details:
      - Reports what would be created, changed or deleted, with the predicted alert, and sends no write. The reads that
        find the alert and resolve its tile are sent. A dashboard or tile not there yet is a change with a warning.
  diff_mode:
    support: full
    details:
      - A create shows the alert to be sent, a change the fields that differ, a delete the alert.
  idempotent:
    support: full
    details:
      - A second run, and a definition from M(engine.cloud.alert_info), report no change and send only reads.
notes:
  - An update is not sent again blindly either. When its answer is lost, the alert is read again and only what still
    differs is sent (nothing, if the first attempt did the work).
  - A create is never sent twice. When its answer is lost (a timeout, a reset, HTTP 502, 503 or 504) it may have been
    applied, or may still be running on the server; the alerts are read by name (after 1, 2, 4, 8, then every 10
    seconds, within O(wait_timeout)) and the alert of that name is taken as the one created, with a warning. When none
    shows, the task fails and says so; the next run reads by name first.
  - Requests are paced under the API's limit of 100 requests a minute per token, shared by every process of the
    controller that uses the same token (O(api_rate_limit)).
seealso:
  - module: engine.cloud.alert_info
  - module: engine.cloud.dashboard_info
'''

EXAMPLES = r'''
- name: Alert when the CPU tile of the Service health dashboard goes above 90
  engine.cloud.alert:
    name: CPU above 90
    dashboard: Service health
    tile: CPU usage
    threshold: 90
    threshold_type: above
    interval: 5m
    channels:
      - 65d000000000000000000001
    alert_message: CPU above 90% on prod-analytics
  register: cpu_alert

- name: Raise its threshold; the message and the channels stay as they are
  engine.cloud.alert:
    alert_id: "{{ cpu_alert.alert.id }}"
    threshold: 95

- name: Alert while the error ratio is outside 0 to 0.05, on two webhooks
  engine.cloud.alert:
    name: Error ratio out of range
    dashboard: 65a1b2c3d4e5f60718293a4b
    tile: Error ratio
    threshold: 0
    threshold_type: not_between
    threshold_max: 0.05
    interval: 15m
    num_consecutive_windows: 2
    channels:
      - 65d000000000000000000001
      - 65d000000000000000000002

- name: Export an alert, then manage it from its definition
  engine.cloud.alert_info:
    name: Consumer lag
  register: exported

- name: Apply the definition (no change, no write)
  engine.cloud.alert: "{{ exported.alerts[0].definition }}"

- name: Start the evaluations at a fixed time, and stop grouping a saved-search alert
  engine.cloud.alert:
    name: Production errors
    schedule_start_at: "2026-09-01T00:00:00Z"
    schedule_offset_minutes: 0
    group_by: ""

- name: Delete the CPU alert
  engine.cloud.alert:
    alert_id: "{{ cpu_alert.alert.id }}"
    state: absent
'''

RETURN = r'''
alert:
  description:
    - The alert after the task, as the API returned it (in check mode, as predicted); an empty dict when O(state=absent).
    - Which fields a read holds depends on the server (C(dashboardId) and C(teamId), or C(dashboard) and C(team); C(channels) or only C(channel)).
  returned: success
  type: dict
  contains:
    id:
      description: Id of the alert.
      type: str
      sample: 65c000000000000000000009
    name:
      description: Name of the alert, or null.
      type: str
      sample: CPU above 90
    message:
      description: Text the alert sends, or null.
      type: str
      sample: CPU above 90% on prod-analytics
    threshold:
      description: The threshold.
      type: float
      sample: 90
    thresholdType:
      description: How the value is compared with the threshold.
      type: str
      sample: above
    interval:
      description: Evaluation interval.
      type: str
      sample: 5m
    source:
      description: What the alert watches, C(tile) or C(saved_search).
      type: str
      sample: tile
    tileId:
      description: Id of the tile the alert watches.
      type: str
      sample: 65f000000000000000000010
    channel:
      description: The first channel, with C(type) and C(webhookId).
      type: dict
      sample: {type: webhook, webhookId: 65d000000000000000000001}
    channels:
      description: Every channel, on servers that keep several.
      type: list
      elements: dict
      sample: [{type: webhook, webhookId: 65d000000000000000000001}]
'''

from ansible_collections.engine.cloud.plugins.module_utils import alert
from ansible_collections.engine.cloud.plugins.module_utils.observability import ObservabilityModule


def main():
    alert.run(ObservabilityModule(alert.SPEC, **alert.OPTIONS))


if __name__ == '__main__':
    main()
