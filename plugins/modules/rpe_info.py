#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rpe_info
short_description: Read a reverse private endpoint, or list a service's
version_added: 0.1.0
description:
  - Returns one reverse private endpoint of a database service, which pipes use to reach a data source privately,
    as the cloud management API gives it.
  - Without O(reverse_private_endpoint_id), returns every reverse private endpoint of the service, from one request.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  reverse_private_endpoint_id:
    description:
      - UUID of the reverse private endpoint.
      - Without it, the module lists every reverse private endpoint of the service (one request) and returns them as
        RV(reverse_private_endpoints).
    type: str
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.cloud.SERVICE_ID
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.CLOUD_GROUP
seealso:
  - module: engine.cloud.pipe_info
'''

EXAMPLES = r'''
- name: Read a reverse private endpoint
  engine.cloud.rpe_info:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    reverse_private_endpoint_id: 5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d81
  register: result

- name: Check that it is ready
  ansible.builtin.assert:
    that: result.reverse_private_endpoint.status == 'Ready'

- name: List every reverse private endpoint of the service
  engine.cloud.rpe_info:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
  register: all_endpoints

- name: Check that all of them are ready
  ansible.builtin.assert:
    that: all_endpoints.reverse_private_endpoints | rejectattr('status', 'equalto', 'Ready') | list | length == 0
'''

RETURN = r'''
reverse_private_endpoints:
  description:
    - Every reverse private endpoint of the service, as the API lists them; each element has the keys of RV(reverse_private_endpoint).
  returned: when O(reverse_private_endpoint_id) is not set
  type: list
  elements: dict
  version_added: 0.1.0
  sample:
    - {id: 5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d81, type: VPC_ENDPOINT_SERVICE, status: Ready}
reverse_private_endpoint:
  description: The reverse private endpoint, as the API returns it.
  returned: when O(reverse_private_endpoint_id) is set
  type: dict
  contains:
    id:
      description: UUID of the endpoint.
      type: str
      sample: 5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d81
    serviceId:
      description: UUID of the service that owns it.
      type: str
      sample: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    description:
      description: Free-text description.
      type: str
      sample: MSK brokers for orders
    type:
      description: C(VPC_ENDPOINT_SERVICE), C(VPC_RESOURCE), C(STREAM_MULTI_VPC) or C(GCP_PSC_SERVICE_ATTACHMENT).
      type: str
      sample: VPC_ENDPOINT_SERVICE
    vpcEndpointServiceName:
      description: Name of the VPC endpoint service, for C(VPC_ENDPOINT_SERVICE) endpoints.
      type: str
      sample: com.amazonaws.vpce.eu-central-1.vpce-svc-0c1d2e3f4a5b6c7d8
    vpcResourceConfigurationId:
      description: Resource configuration id, for C(VPC_RESOURCE) endpoints.
      type: str
    vpcResourceShareArn:
      description: Resource share ARN, for C(VPC_RESOURCE) endpoints.
      type: str
    streamClusterArn:
      description: Cluster ARN, for C(STREAM_MULTI_VPC) endpoints.
      type: str
    streamAuthentication:
      description: C(SASL_IAM) or C(SASL_SCRAM), for C(STREAM_MULTI_VPC) endpoints.
      type: str
    endpointId:
      description: Id of the endpoint in the cloud provider.
      type: str
      sample: vpce-07a8b9c0d1e2f3a4b
    dnsNames:
      description: DNS names of the endpoint.
      type: list
      elements: str
    privateDnsNames:
      description: Private DNS names of the endpoint.
      type: list
      elements: str
      sample: [orders-kafka.internal.example.com]
    status:
      description: C(Unknown), C(Provisioning), C(Deleting), C(Ready), C(Failed), C(PendingAcceptance), C(Rejected) or C(Expired).
      type: str
      sample: Ready
'''

from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule


def main():
    module = CloudModule(dict(reverse_private_endpoint_id=dict(type='str')), uuid_options=('reverse_private_endpoint_id',))
    if module.params['reverse_private_endpoint_id'] is None:
        module.exit(reverse_private_endpoints=module.read('pipesReversePrivateEndpoints'))
    module.exit(reverse_private_endpoint=module.read('pipesReversePrivateEndpoints', module.params['reverse_private_endpoint_id']))


if __name__ == '__main__':
    main()
