#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: service_scaling
short_description: Manage the scaling settings of a database service
version_added: 0.1.0
description:
  - Sets the number of replicas, the idle scaling and the (deprecated) total memory bounds of a database service.
  - Every bound is checked before anything is sent; the service is read once, and one C(PATCH)
    carrying only the fields that differ is sent; nothing is sent when the service already matches.
  - Options left out are not managed.
  - Before any write, the service just read is checked against what it allows, and the task fails naming the option
    when it does not allow it. A service with horizontal autoscaling (C(autoscalingMode=horizontal)) has no
    C(numReplicas), C(minTotalMemoryGb) or C(maxTotalMemoryGb), so O(num_replicas), O(min_total_memory_gb) and
    O(max_total_memory_gb) fail on it (the message names the autoscaling mode). The memory bounds are for production
    services only (the message names the tier). O(num_replicas) below 2 fails on the primary service of a warehouse
    (C(isPrimary)).
  - The API changes scaling only while the service is C(running); use M(engine.cloud.service_state) with
    O(engine.cloud.service_state#module:state=awake) first, which starts or wakes the service and waits until it runs.
    In check mode, a change to a service that is not running shows a warning, since the real run would be refused
    (HTTP 424).
author:
  - engine.cloud contributors (@engine-cloud)
options:
  min_total_memory_gb:
    description:
      - Minimum total memory of the service during autoscaling, in GB (the API's C(minTotalMemoryGb)).
      - Between 24 and 1068, and a multiple of 12.
      - Production services with vertical autoscaling only.
      - Deprecated by the API, inaccurate for services with a non-default number of replicas; setting it
        shows a deprecation warning, and the option will be removed in engine.cloud 2.0.0.
    type: int
  max_total_memory_gb:
    description:
      - Maximum total memory of the service during autoscaling, in GB (the API's C(maxTotalMemoryGb)).
      - Between 24 and 1068, a multiple of 12, and at least the minimum (O(min_total_memory_gb),
        or else the service's current C(minTotalMemoryGb)).
      - The API allows at most 360 for services that are not paid.
      - Production services with vertical autoscaling only.
      - Deprecated by the API, inaccurate for services with a non-default number of replicas; setting it
        shows a deprecation warning, and the option will be removed in engine.cloud 2.0.0.
    type: int
  num_replicas:
    description:
      - Number of replicas, between 1 and 20.
      - At least 2 for the first (primary) service of a warehouse.
      - Services with vertical autoscaling only; a horizontal one scales its replica count between C(minReplicas) and
        C(maxReplicas) by itself.
    type: int
  idle_scaling:
    description:
      - Whether the service may scale down to zero when idle.
    type: bool
  idle_timeout_minutes:
    description:
      - Minutes without queries before an idle service scales down; at least 5.
    type: int
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.cloud.SERVICE_ID
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.CLOUD_GROUP
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details:
      - The diff shows, in the API's field names, the before and after value of each field that changes.
  idempotent:
    support: full
notes:
  - When the answer to the C(PATCH) is lost (no response within O(api_timeout), a connection reset, HTTP 502, 503 or 504),
    the change may have been applied, so it is not sent again as it was. The service is read again and only what still
    differs is sent (nothing, when the first attempt did the work; the task reports the change it made), at most
    O(api_retries) times.
seealso:
  - module: engine.cloud.service_info
  - module: engine.cloud.service
  - module: engine.cloud.service_state
'''

EXAMPLES = r'''
- name: Run four replicas and scale to zero after 30 idle minutes
  engine.cloud.service_scaling:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    num_replicas: 4
    idle_scaling: true
    idle_timeout_minutes: 30

- name: Set the memory bounds (deprecated API fields, shows a deprecation warning)
  engine.cloud.service_scaling:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    min_total_memory_gb: 48
    max_total_memory_gb: 192
'''

RETURN = r'''
service:
  description:
    - The service after the change, as the API returns it (the current service when nothing changed).
    - In check mode, the current service with the changed fields as they would be.
  returned: success
  type: dict
  contains:
    id:
      description: UUID of the service.
      type: str
      sample: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    name:
      description: Name of the service.
      type: str
      sample: prod-analytics
    state:
      description: Current state, for example C(running), C(stopped), C(idle).
      type: str
      sample: running
    autoscalingMode:
      description: C(vertical) (a fixed number of replicas, memory scales) or C(horizontal) (the number of replicas scales).
      type: str
      sample: vertical
    tier:
      description: Tier of the service, for example C(production) or C(development) (deprecated by the API, still returned).
      type: str
      sample: production
    numReplicas:
      description: Number of replicas (absent for horizontal autoscaling).
      type: int
      sample: 3
    minReplicas:
      description: Lower bound of the replica count (horizontal autoscaling only).
      type: int
      sample: 2
    maxReplicas:
      description: Upper bound of the replica count (horizontal autoscaling only).
      type: int
      sample: 6
    replicaMemoryGb:
      description: Memory of each replica, in GB (horizontal autoscaling only).
      type: int
      sample: 32
    idleScaling:
      description: Whether the service scales to zero when idle.
      type: bool
      sample: true
    idleTimeoutMinutes:
      description: Minutes without queries before the service idles.
      type: int
      sample: 15
    minTotalMemoryGb:
      description: Deprecated lower memory bound of the service, in GB (absent for horizontal autoscaling).
      type: int
      sample: 48
    maxTotalMemoryGb:
      description: Deprecated upper memory bound of the service, in GB (absent for horizontal autoscaling).
      type: int
      sample: 360
    minReplicaMemoryGb:
      description: Lower memory bound of each replica, in GB.
      type: int
      sample: 16
    maxReplicaMemoryGb:
      description: Upper memory bound of each replica, in GB.
      type: int
      sample: 120
'''

from ansible_collections.engine.cloud.plugins.module_utils import service_rules
from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule


def main():
    module = CloudModule(dict(
        min_total_memory_gb=dict(type='int'),
        max_total_memory_gb=dict(type='int'),
        num_replicas=dict(type='int'),
        idle_scaling=dict(type='bool'),
        idle_timeout_minutes=dict(type='int'),
    ))
    params = module.params
    module.fail_on_errors(*service_rules.limit_errors(params) + [service_rules.memory_order_error(params)])
    for option in service_rules.DEPRECATED_SCALING_OPTIONS:
        if params[option] is not None:
            module.deprecate(
                '%s sets %s, a field the API deprecates as inaccurate for services with a non-default number of replicas'
                % (option, dict(service_rules.SCALING_FIELDS)[option]),
                version='2.0.0', collection_name='engine.cloud')
    module.converge('service', module.read, *service_rules.scaling_step(module, params))


if __name__ == '__main__':
    main()
