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
  - The pipe is read once and the table below decides what happens. The API takes C(stop) from any state, C(start)
    only from C(Stopped), C(Paused) or C(Failed), and C(resync) only for postgres pipes.
  - A pipe that is C(Stopping) or C(Pausing) is waited for (within O(wait_timeout), also with O(wait=false)) before
    it is started, and the row of the state it ends in decides.
  - 'State table: each row is the current state of the pipe, then what V(started) / V(stopped) do. C(-) sends no
    command (the pipe is there, on its way, or C(Degraded), that is running but degraded); C(start), C(stop) send that
    command; C(wait) waits the transition out, then decides again; C(fail) fails before any write, naming the state and
    what is possible.'
  - 'C(Running), C(Provisioning), C(Setup), C(Snapshot), C(Modifying), C(Resync), C(Degraded): C(-) / C(stop)'
  - 'C(Stopped), C(Paused): C(start) / C(-)'
  - 'C(Failed): C(start) / C(stop)'
  - 'C(Stopping), C(Pausing): C(wait) / C(-)'
  - 'C(Completed): C(fail) / C(-)'
  - 'C(InternalError), C(Unknown): C(fail) / C(stop)'
  - V(resynced) sends C(resync) from any state and reports a change (it is a command). Only postgres pipes can be
    resynced; for other source kinds the module fails after reading the pipe, before sending anything, and names the
    pipe's source kind.
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
      - V(started) settles at C(Running); V(stopped) at C(Stopped) (streaming and object storage pipes), C(Paused)
        (postgres pipes) or C(Completed) (a finished object storage pipe ingests nothing).
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds, at least 1, for all the waiting of one task together, the wait for C(Stopping) or C(Pausing) to end
        before a start (also with O(wait=false)) and the wait for the requested state.
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
      - Reports the change that would be made, with the predicted state, and sends no command. It does not wait; a
        C(Stopping) or C(Pausing) pipe is taken as C(Stopped) or C(Paused).
      - When a command would be sent, the service is read too, and a warning says what the real run would meet in its
        state (an idle service it would wake, a stopped one that may refuse the command); see M(engine.cloud.pipe).
  diff_mode:
    support: full
    details:
      - The diff shows the pipe's C(state) before and after.
  idempotent:
    support: partial
    details:
      - V(started) and V(stopped) are idempotent; V(resynced) is a command and sends a resync every time.
notes:
  - When the answer to a command is lost (no response within O(api_timeout), a connection reset, HTTP 502, 503 or
    504), the command may have been applied, so it is not sent again as it was. The pipe is read again and the table
    decides from what it shows. A C(start) or C(stop) that took effect is not sent again; one that did not is sent again,
    since it was not applied, at most O(api_retries) times.
  - A C(resync) is never sent twice in one task, since a second one would start a second resync. After a lost answer
    the module looks for the resync in the pipe's state and C(updatedAt) until O(wait_timeout), also with O(wait=false),
    and fails, without sending it again, if it sees none.
  - A C(start) the API refuses because the pipe is already running (HTTP 400) is decided again from a fresh read, at most
    three times within O(wait_timeout).
  - O(wait) - V(resynced) settles once the resync has run and the pipe is C(Running) again, that is, after a read has
    shown a state the resync passes through (C(Resync), C(Snapshot), C(Setup), C(Modifying)). A resync that is over
    between two reads is recognised by the pipe's C(updatedAt), later than before the command; a C(Running) pipe
    with an unchanged C(updatedAt) does not end the wait.
  - O(wait) - after a command the pipe is read 1, 2, 4, 8, then every 10 seconds; the answer to the command is never
    taken as the end of the wait (it may still show the state from before the command).
  - O(wait) - in a fleet (other tasks of this controller reading pipes of the same service at the same time), one
    list read serves them all and the wait reads at least every 5 seconds; once the fleet's tasks have seen the same
    transition end, a task waiting alone reads no sooner than that after its command (see the troubleshooting guide,
    rate limits).
  - O(wait) - the wait fails when the pipe enters C(Failed) or C(InternalError), naming the state; a failure state
    the pipe already showed before the command (a start from C(Failed)) counts only once a read has shown another
    state. A C(Degraded) pipe may recover, so it is waited on until O(wait_timeout).
  - O(wait) - at O(wait_timeout) the task fails naming the last state, and says so when that is still the state from
    before the command, which may then not have taken effect.
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
    - With O(wait=false), the answer to the command, which may still show the state from before it, or the pipe as read
      when no command was sent.
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

from ansible_collections.engine.cloud.plugins.module_utils.module import wait_options
from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule
from ansible_collections.engine.cloud.plugins.module_utils.pipe_rules import PIPE_TABLE


def main():
    module = CloudModule(dict(
        pipe_id=dict(type='str', required=True),
        state=dict(type='str', required=True, choices=['started', 'stopped', 'resynced']),
        **wait_options(600)
    ), uuid_options=('pipe_id',))
    module.reach(PIPE_TABLE, module.params['state'], 'pipe', 'pipes', module.params['pipe_id'])


if __name__ == '__main__':
    main()
