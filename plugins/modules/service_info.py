#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: service_info
short_description: Read a database service, by id or by name, or list them all
version_added: 0.1.0
description:
  - Returns one database service of an organization as the cloud management API describes it.
  - With O(name) instead of O(service_id), finds the service of that name in the list (one request).
  - Without O(service_id) and O(name), returns every service of the organization, from one request.
  - Each service carries its C(definition), the options of M(engine.cloud.service) that describe it, to adopt it.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  service_id:
    description:
      - UUID of the service to read.
      - Without it, the module lists every service of the organization (one request) and returns them as RV(services).
    required: false
  name:
    description:
      - Name of the service to read, instead of O(service_id). One request lists the services; the one of that name
        is returned as RV(service) (a deleted service that the list still shows does not count).
      - When no service has the name, the task fails and lists the names there are; when several have it, the task
        fails and lists their ids (give O(service_id) then).
    type: str
    version_added: 0.2.0
  tags:
    description:
      - In list mode (without O(service_id) and O(name)), only the services that have every one of these tags, as a dict of tag key
        to value. A key whose value is V(null) (C(~)) matches the tag with any value, and a tag without a value.
    type: dict
    version_added: 0.1.0
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.cloud.SERVICE_ID
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.CLOUD_GROUP
notes:
  - O(tags) - the API filters the list (one C(filter=tag:Key=Value), or C(filter=tag:Key) for a null value, per tag,
    sent with the one list request); the module checks the services it gets again, so the result is the same
    whatever way the API combines several filters.
  - O(tags) - keys are 1 to 128, values 1 to 256 letters, digits, C(.), C(_) or C(-), as tags have them; values match
    exactly (case-sensitive).
  - O(tags) - cannot be used with O(service_id) or O(name).
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

- name: Find a service by its name (one list request)
  engine.cloud.service_info:
    name: prod-analytics
  register: by_name

- name: Show its id
  ansible.builtin.debug:
    msg: "{{ by_name.service.id }}"

- name: List every service of the organization
  engine.cloud.service_info:
  register: all_services

- name: Show the names of the development services
  ansible.builtin.debug:
    msg: "{{ all_services.services | selectattr('tier', 'equalto', 'development') | map(attribute='name') | list }}"

- name: List the services of team ingest that carry the gdpr tag, with any value (filtered by the API)
  engine.cloud.service_info:
    tags:
      team: ingest
      gdpr:
  register: gdpr_services

- name: Show their names
  ansible.builtin.debug:
    msg: "{{ gdpr_services.services | map(attribute='name') | list }}"
'''

RETURN = r'''
services:
  description:
    - Every service of the organization, as the API lists them; each element has the keys of RV(service).
    - With O(tags), only the services that have those tags.
  returned: when neither O(service_id) nor O(name) is set
  type: list
  elements: dict
  version_added: 0.1.0
  sample:
    - {id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51, name: prod-analytics, state: running, tier: production}
    - {id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e52, name: dev-sandbox, state: stopped, tier: development}
service:
  description: The service, as the API returns it (with O(name), as the list shows it).
  returned: when O(service_id) or O(name) is set
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
    definition:
      description:
        - The options of M(engine.cloud.service) that describe the service (no read shows its password). Fed back to
          M(engine.cloud.service), a definition reports no change; M(engine.cloud.organization) exports the same.
      type: dict
      version_added: 0.2.0
      sample: {service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51, name: prod-analytics, provider: aws, region: eu-central-1,
               tier: production, num_replicas: 3, idle_scaling: true, idle_timeout_minutes: 15, tags: {team: data-platform},
               ip_access_list: [{source: 203.0.113.0/24, description: Office Berlin}], release_channel: default}
    tier:
      description: C(production) or C(development) (deprecated by the API, still returned), or a dedicated tier.
      type: str
      sample: production
    provider:
      description: Cloud provider, C(aws), C(gcp) or C(azure).
      type: str
      sample: aws
    region:
      description: Region of the service at its provider.
      type: str
      sample: eu-central-1
    tags:
      description: Tags of the service, each with C(key) and, where it has one, C(value).
      type: list
      elements: dict
      sample: [{key: team, value: data-platform}, {key: env, value: production}]
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

from ansible_collections.engine.cloud.plugins.module_utils import service_filter
from ansible_collections.engine.cloud.plugins.module_utils.resource import one_named
from ansible_collections.engine.cloud.plugins.module_utils.cloud import TERMINAL, CloudModule
from ansible_collections.engine.cloud.plugins.module_utils.service import definition


def with_definition(service):
    return dict(service, definition=definition(service))


def main():
    module = CloudModule(dict(name=dict(type='str'), tags=dict(type='dict')), service_id_required=False,
                         mutually_exclusive=[('service_id', 'name')])
    tags, errors = service_filter.check_tag_filter('tags', module.params['tags'])
    if module.params['tags'] is not None and (module.params['service_id'] or module.params['name']) is not None:
        errors.append('tags filters the list of services: use it without service_id and name')
    module.fail_on_errors(*errors)
    if module.params['name'] is not None:
        service, error = one_named(module.list_services(), module.params['name'], 'service', 'service_id', gone=TERMINAL)
        if error:
            module.fail(error)
        module.exit(service=with_definition(service))
    if module.params['service_id'] is None:
        module.exit(services=[with_definition(service) for service in module.list_services(tags)])
    module.exit(service=with_definition(module.read()))


if __name__ == '__main__':
    main()
