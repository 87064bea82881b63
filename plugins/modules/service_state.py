#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: service_state
short_description: Start or stop a database service
version_added: 0.1.0
description:
  - Starts or stops a database service, and by default waits until it is there.
  - The service is read once; a C(start) or C(stop) command is sent only when the service is not
    already in, or on its way to, the requested state.
  - V(started) already holds for a service that is C(running), C(starting), C(awaking), C(idle) or
    C(partially_running); V(stopped) for one that is C(stopped) or C(stopping). An C(idle) service
    counts as started and is not woken.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  state:
    description:
      - V(started) sends C(start) unless the service already counts as started (see above).
      - V(stopped) sends C(stop) unless the service is C(stopped) or C(stopping).
    type: str
    required: true
    choices: [started, stopped]
  wait:
    description:
      - Wait until the service is C(running) or C(idle) (for V(started)) or C(stopped) (for V(stopped)).
      - Also waits, without sending a command, for a service that is already on its way there (for
        example C(stopping) with O(state=stopped), or C(starting) with O(state=started)).
      - The service is read every 1, 2, 4, 8, then 10 seconds.
      - The task fails at once when the service enters C(failed) or C(degraded), and at O(wait_timeout)
        with the last state seen.
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds to wait, at least 1. Only used with O(wait=true).
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
      - Reports whether a command would be sent; sends none and does not wait.
  diff_mode:
    support: full
    details:
      - When a command is sent, the diff shows the state before and the state requested (C(running) or C(stopped)).
  idempotent:
    support: full
notes:
  - C(changed) is true when a command was sent (or would be, in check mode); waiting alone does not change anything.
seealso:
  - module: engine.cloud.service_info
  - module: engine.cloud.service
'''

EXAMPLES = r'''
- name: Stop the sandbox service and wait until it is stopped
  engine.cloud.service_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e52
    state: stopped

- name: Start it again, without waiting
  engine.cloud.service_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e52
    state: started
    wait: false

- name: Make sure the production service runs, waiting at most 10 minutes
  engine.cloud.service_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    state: started
    wait_timeout: 600
'''

RETURN = r'''
service:
  description:
    - The service as last read, after the command and the wait; with O(wait=false), as the command's
      response shows it (C(starting) or C(stopping)).
    - In check mode, the current service, with the requested state when a command would be sent.
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

from ansible_collections.engine.cloud.plugins.module_utils import service as rules
from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule, wait_options


def main():
    module = CloudModule(dict(state=dict(type='str', required=True, choices=['started', 'stopped']), **wait_options(900)))
    state = module.params['state']

    def settle(service):
        return module.settle(service, module.get, rules.SETTLED[state], rules.FAILURE_STATES,
                             'service %s' % module.params['service_id'], 'service')

    current = module.get()
    command = rules.state_command(state, current.get('state'))
    if command is None:
        module.exit(changed=False, service=current if module.check_mode else settle(current))
    diff = dict(before=dict(state=current.get('state')), after=dict(state=rules.TARGET_STATES[state]))

    def reached(seen):
        return rules.state_command(state, seen) is None

    module.apply('service', current, dict(command=command), lambda body: settle(module.command(command, reached)), diff=diff)


if __name__ == '__main__':
    main()
