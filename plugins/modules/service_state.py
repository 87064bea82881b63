#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: service_state
short_description: Start, stop or wake a database service
version_added: 0.1.0
description:
  - Brings a database service to the requested state and, by default, waits until it is there.
  - The service is read once and the table below decides what happens. A command (C(start), C(stop), C(awake))
    is sent only where the table names one; nothing is sent to a service that is already in, or on its way to,
    the requested state.
  - A service in a transition (C(starting), C(stopping), C(awaking), C(provisioning)) may refuse commands, so a
    transition away from the requested state is waited out first (within O(wait_timeout), also with O(wait=false)),
    and the row of the state it ends in decides.
  - 'State table: each row is the current state of the service, then what V(started) / V(awake) / V(stopped) do.
    C(-) sends no command; C(start), C(stop), C(awake) send that command; C(wait) waits the transition out, then
    decides again; C(fail) fails before any write, naming the state.'
  - 'C(running), C(partially_running): C(-) / C(-) / C(stop)'
  - 'C(idle): C(-) / C(awake) / C(stop)'
  - 'C(starting), C(awaking), C(provisioning): C(-) / C(-) / C(wait)'
  - 'C(stopped): C(start) / C(start) / C(-)'
  - 'C(stopping): C(wait) / C(wait) / C(-)'
  - 'C(degraded): C(fail) / C(fail) / C(stop)'
  - 'C(failed), C(terminating), C(terminated), C(softdeleting), C(softdeleted): C(fail) / C(fail) / C(fail)'
author:
  - engine.cloud contributors (@engine-cloud)
options:
  state:
    description:
      - V(started) holds for a service that is C(running) or C(idle) (an C(idle) service counts as started and is not woken).
      - V(awake) is like V(started), but holds for a C(running) service only; an C(idle) one is woken with the
        C(awake) command. Use it before changes the API allows only on a running service (scaling, key rotation).
      - V(stopped) holds for a C(stopped) service.
    type: str
    required: true
    choices: [started, awake, stopped]
  wait:
    description:
      - Wait until the service is C(running) or C(idle) (V(started)), C(running) (V(awake)) or C(stopped) (V(stopped)).
      - Also waits, without sending a command, for a service that is already on its way there (for example C(stopping)
        with O(state=stopped), or C(starting) with O(state=started)).
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds, at least 1, for all the waiting of one task together, the wait for a transition to end before a
        command (also with O(wait=false)) and the wait for the requested state.
    type: int
    default: 900
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.cloud.SERVICE_ID
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.CLOUD_GROUP
attributes:
  check_mode:
    support: full
    details:
      - Reports whether a command would be sent, from the state read, and sends none. It does not wait; a
        transition in progress is taken as ended in the state it leads to (C(stopping) in C(stopped), the others in
        C(running)).
  diff_mode:
    support: full
    details:
      - When a command is sent, the diff shows the state first read and the state requested (C(running) or C(stopped)).
  idempotent:
    support: full
notes:
  - C(changed) is true when a command was sent (or would be, in check mode); waiting alone does not change anything.
  - When the answer to a command is lost (no response within O(api_timeout), a connection reset, HTTP 502, 503 or 504),
    the command may have been applied, so it is not sent again as it was. The service is read again and the table
    decides from what it shows. A command that took effect is not sent again; one that did not is sent again, since it
    was not applied, at most O(api_retries) times.
  - A command the API refuses in the service's current state (HTTP 409, for example because someone else started a
    transition) is decided again from a fresh read, at most three times within O(wait_timeout).
  - O(wait) - after a command, the service is read 1, 2, 4, 8, then every 10 seconds; the answer to the command is
    never taken as the end of the wait.
  - O(wait) - in a fleet (other tasks of this controller reading services of the same organization at the same time),
    one list read serves them all and the wait reads at least every 5 seconds; once the fleet's tasks have seen the
    same transition end, a task waiting alone reads no sooner than that after its command (see the troubleshooting
    guide, rate limits).
  - O(wait) - the task fails when the service enters C(failed) or a terminal state (C(terminating), C(terminated),
    C(softdeleting), C(softdeleted)), and for V(started) and V(awake) also C(degraded). A failure state the service
    already showed before the command counts only once a read has shown another state (the command may not have
    taken effect yet).
  - O(wait) - at O(wait_timeout) the task fails with the last state seen, and says so when that is still the state
    from before the command, which may then not have taken effect.
  - O(wait) - with O(wait=false) the task returns after the command (or at once without one); a transition in
    progress is still waited out before a command.
seealso:
  - module: engine.cloud.service_info
  - module: engine.cloud.service
  - module: engine.cloud.service_scaling
'''

EXAMPLES = r'''
- name: Stop the sandbox service and wait until it is stopped
  engine.cloud.service_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e52
    state: stopped

- name: Start it again, without waiting (a stop still in progress is waited out first)
  engine.cloud.service_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e52
    state: started
    wait: false

- name: Make sure the production service runs, waiting at most 10 minutes
  engine.cloud.service_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    state: started
    wait_timeout: 600

- name: Wake the service if it idles, before a scaling change (the API scales only a running service)
  engine.cloud.service_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    state: awake
'''

RETURN = r'''
service:
  description:
    - The service as last read, after the command and the wait; with O(wait=false), as the answer to the command
      shows it (C(starting), C(stopping) or C(awaking)), or as read when no command was sent.
    - In check mode, the current service, with the state the command leads to (C(running) or C(stopped)) when one would
      be sent.
    - When the wait fails, the failed task also returns the service as last read.
  returned: success and when a wait fails
  type: dict
  contains:
    id:
      description: UUID of the service.
      type: str
      sample: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e52
    name:
      description: Name of the service.
      type: str
      sample: dev-sandbox
    state:
      description:
        - State of the service, one of C(starting), C(stopping), C(terminating), C(softdeleting), C(awaking),
          C(partially_running), C(provisioning), C(running), C(stopped), C(terminated), C(softdeleted),
          C(degraded), C(failed), C(idle).
      type: str
      sample: stopped
'''

from ansible_collections.engine.cloud.plugins.module_utils.module import wait_options
from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule
from ansible_collections.engine.cloud.plugins.module_utils.cloud import SERVICE_TABLE


def main():
    module = CloudModule(dict(state=dict(type='str', required=True, choices=['started', 'awake', 'stopped']), **wait_options(900)))
    module.reach(SERVICE_TABLE, module.params['state'], 'service')


if __name__ == '__main__':
    main()
