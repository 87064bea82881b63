#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: service_info
short_description: Read a database service
version_added: 0.1.0
description:
  - Returns one database service of an organization as the cloud management API describes it.
author:
  - engine.cloud contributors (@engine-cloud)
options: {}
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.CLOUD_GROUP
seealso:
  - module: engine.cloud.service
  - module: engine.cloud.service_scaling
  - module: engine.cloud.service_state
'''

EXAMPLES = r'''
- name: Read a service
  engine.cloud.service_info:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
  register: result

- name: Show its state
  ansible.builtin.debug:
    msg: "{{ result.service.name }} is {{ result.service.state }}"
'''

RETURN = r'''
service:
  description: The service, as the API returns it.
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
    engineVersion:
      description: Version of the database engine.
      type: str
      sample: "24.8"
    releaseChannel:
      description: Release channel of a production service, V(slow), V(default) or V(fast).
      type: str
      sample: default
    endpoints:
      description: Enabled endpoints, each with C(protocol), C(host), C(port) and C(username); a disabled endpoint is not listed.
      type: list
      elements: dict
      sample:
        - protocol: https
          host: prod-analytics-x7k2p9.eu-central-1.aws.engine.cloud
          port: 8443
          username: default
    ipAccessList:
      description: Addresses allowed to connect, each with C(source) and C(description).
      type: list
      elements: dict
      sample:
        - source: 203.0.113.0/24
          description: Office Berlin
    privateEndpointIds:
      description: Private endpoints attached to the service.
      type: list
      elements: str
      sample: [vpce-0a1b2c3d4e5f60718]
    numReplicas:
      description: Number of replicas.
      type: int
      sample: 3
    idleScaling:
      description: Whether the service scales to zero when idle.
      type: bool
      sample: true
    idleTimeoutMinutes:
      description: Minutes without queries before the service idles.
      type: int
      sample: 15
    minTotalMemoryGb:
      description: Deprecated lower memory bound of the service, in GB (absent on some services).
      type: int
      sample: 48
    maxTotalMemoryGb:
      description: Deprecated upper memory bound of the service, in GB (absent on some services).
      type: int
      sample: 360
    transparentDataEncryptionKeyId:
      description: Id of the data-encryption key in use, where encryption is enabled.
      type: str
      sample: tde-key-2024-03-11-a1b2c3
'''

from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule


def main():
    module = CloudModule({})
    module.exit(service=module.get())


if __name__ == '__main__':
    main()
