#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pipe_state
short_description: Start, stop or resync an ingestion pipe
version_added: 0.1.0
description:
  - Brings an ingestion pipe to the requested state and, by default, waits until it is there.
  - V(started) holds when the pipe is C(Running), C(Provisioning), C(Setup), C(Snapshot), C(Modifying) or C(Resync);
    otherwise C(start) is sent, which the API accepts only from C(Stopped), C(Paused) or C(Failed).
    A C(Stopping) or C(Pausing) pipe is first waited for (with O(wait=true)) and then started;
    from any other state (for example C(Completed), C(InternalError), C(Degraded), C(Unknown)) the module fails without sending anything.
  - V(stopped) holds when the pipe is C(Stopped), C(Stopping), C(Paused) or C(Pausing); otherwise C(stop) is sent.
  - V(resynced) always sends C(resync) and reports a change (it is a command); only postgres pipes can be resynced,
    for other source kinds the module fails before sending anything and names the pipe's source kind.
  - The pipe is returned with secret-bearing values (for example C(connectionString)) masked.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  pipe_id:
    description:
      - UUID of the pipe.
    type: str
    required: true
  state:
    description:
      - The state the pipe should be in.
      - V(resynced) asks a postgres pipe for a fresh resynchronisation each time the task runs.
    type: str
    required: true
    choices: [started, stopped, resynced]
  wait:
    description:
      - Whether to wait until the state has settled.
      - V(started) and V(resynced) settle at C(Running); V(stopped) settles at C(Stopped) (streaming and object storage pipes)
        or C(Paused) (postgres pipes).
      - The wait fails at once when the pipe enters C(Failed) or C(InternalError), naming the state.
        A C(Degraded) pipe may recover, so it is waited on until O(wait_timeout).
      - Polls after 1, 2, 4 and 8 seconds, then every 10 seconds.
    type: bool
    default: true
  wait_timeout:
    description:
      - How many seconds to wait, at least 1. The task fails at the timeout and names the last state.
    type: int
    default: 600
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
      - Reports the change that would be made, with the predicted state, and sends no command.
  diff_mode:
    support: full
    details:
      - The diff shows the pipe's C(state) before and after.
  idempotent:
    support: partial
    details:
      - V(started) and V(stopped) are idempotent; V(resynced) is a command and sends a resync every time.
seealso:
  - module: engine.cloud.pipe_info
  - module: engine.cloud.pipe_settings
'''

EXAMPLES = r'''
- name: Stop a pipe and wait until it has stopped
  engine.cloud.pipe_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61
    state: stopped

- name: Start it again, waiting at most five minutes
  engine.cloud.pipe_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61
    state: started
    wait_timeout: 300

- name: Resync a postgres pipe without waiting
  engine.cloud.pipe_state:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c64
    state: resynced
    wait: false
  register: result

- name: Show the state the resync left
  ansible.builtin.debug:
    msg: "{{ result.pipe.name }} is {{ result.pipe.state }}"
'''

RETURN = r'''
pipe:
  description:
    - The pipe after the change (after the wait, when O(wait=true)), with secret-bearing values masked.
    - In check mode, the current pipe with the predicted C(state).
    - When the wait fails, the failed task also returns the last pipe read.
  returned: success
  type: dict
  contains:
    id:
      description: UUID of the pipe.
      type: str
      sample: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61
    name:
      description: Name of the pipe.
      type: str
      sample: orders-kafka
    state:
      description: State of the pipe, for example C(Running), C(Stopped), C(Paused), C(Resync).
      type: str
      sample: Running
    source:
      description: The pipe's source; the key that holds an object (C(kafka), C(objectStorage), C(stream), C(postgres)) is its kind.
      type: dict
    settings:
      description: The pipe's tuning settings.
      type: dict
'''

from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule, wait_options
from ansible_collections.engine.cloud.plugins.module_utils.pipe import FAILED, SETTLED, STARTABLE, settled_state, state_command


def main():
    module = CloudModule(dict(
        pipe_id=dict(type='str', required=True),
        state=dict(type='str', required=True, choices=['started', 'stopped', 'resynced']),
        **wait_options(600)
    ), uuid_options=('pipe_id',))
    wanted, pipe_id = module.params['state'], module.params['pipe_id']

    def read():
        return module.get('pipes', pipe_id)

    def settle(pipe, goal=wanted):
        return module.settle(pipe, read, SETTLED[goal], FAILED, 'pipe %s' % pipe_id, 'pipe')

    pipe = read()
    command, error = state_command(wanted, pipe, module.params['wait'])
    module.fail_on_errors(error)
    if command is None:
        module.exit(changed=False, pipe=pipe if module.check_mode else settle(pipe))
    if command == 'start' and pipe.get('state') not in STARTABLE and not module.check_mode:
        pipe = settle(pipe, 'stopped')  # still stopping: start once it has stopped
    diff = dict(before=dict(state=pipe.get('state')), after=dict(state=settled_state(wanted, pipe)))

    def reached(seen):
        return state_command(wanted, dict(pipe, state=seen), module.params['wait'])[0] is None

    module.apply('pipe', pipe, dict(command=command), lambda body: settle(module.command(command, reached, 'pipes', pipe_id)), diff)


if __name__ == '__main__':
    main()
