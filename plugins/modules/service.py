#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: service
short_description: Manage the basic settings of a database service
version_added: 0.1.0
description:
  - Sets the name, IP access list, private endpoints, release channel, endpoints, tags and core dumps of an
    existing database service, and rotates its transparent data encryption key.
  - Reads the service once, compares, and sends one C(PATCH) carrying only what differs; nothing
    is sent when the service already matches.
  - Before any write, the service just read is checked against what it allows; O(release_channel) on a service
    that is not a production one fails, naming the option and the service's tier.
  - Options left out (or V(null)) are not managed.
  - To change scaling use M(engine.cloud.service_scaling); to start or stop use M(engine.cloud.service_state).
author:
  - engine.cloud contributors (@engine-cloud)
options:
  name:
    description:
      - New name of the service.
      - 1 to 50 letters, digits, spaces or hyphens, starting and ending with a letter or digit.
    type: str
  ip_access_list:
    description:
      - Addresses allowed to connect to the service.
      - Entries are matched to the current ones by O(ip_access_list[].source), in any order.
      - A listed source that is missing is added; a listed source whose description differs is
        removed and added again with the new description.
      - Current entries that are not listed are kept unless O(purge_ip_access_list=true).
      - An empty list with O(purge_ip_access_list=true) removes every entry.
    type: list
    elements: dict
    suboptions:
      source:
        description:
          - An IPv4 address (V(198.51.100.17)) or CIDR block without host bits (V(203.0.113.0/24)).
          - V(198.51.100.17) and V(198.51.100.17/32) are the same source.
        type: str
        required: true
      description:
        description:
          - Description of the entry.
          - When left out, the description of an existing entry is kept, and a new entry gets none.
        type: str
  purge_ip_access_list:
    description:
      - Remove the current IP access list entries that O(ip_access_list) does not list.
      - Only has an effect when O(ip_access_list) is set.
    type: bool
    default: false
  private_endpoint_ids:
    description:
      - Private endpoint ids to attach to the service; each must be one of the service's
        C(availablePrivateEndpointIds).
      - Attached ids that are not listed are kept unless O(purge_private_endpoint_ids=true).
    type: list
    elements: str
  purge_private_endpoint_ids:
    description:
      - Detach the private endpoints that O(private_endpoint_ids) does not list.
      - Only has an effect when O(private_endpoint_ids) is set.
    type: bool
    default: false
  release_channel:
    description:
      - Release channel. V(fast) gets new releases as soon as they are available, V(slow) defers
        them, V(default) is the regular channel.
      - Only production services have a release channel.
    type: str
    choices: [slow, default, fast]
  endpoints:
    description:
      - Endpoints to enable or disable. Only the V(mysql) endpoint can be toggled.
      - The service lists an endpoint under C(endpoints) only while it is enabled.
    type: list
    elements: dict
    suboptions:
      protocol:
        description:
          - Protocol of the endpoint.
        type: str
        required: true
        choices: [mysql]
      enabled:
        description:
          - Whether the endpoint is enabled.
        type: bool
        required: true
  transparent_data_encryption_key_id:
    description:
      - Id of the transparent data encryption key to rotate to.
      - The key is rotated only when it differs from the service's current C(transparentDataEncryptionKeyId).
      - The service must have transparent data encryption enabled and be running; in check mode, a rotation on a
        service that is not running shows a warning, since the real run would be refused (HTTP 424).
    type: str
  tags:
    description:
      - Tags of the service, a dict of tag key to value.
      - A key is 1 to 128, a value up to 256 letters, digits, dots, underscores or hyphens; an integer value is taken as its
        digits, V(null) is a tag without a value. Both are checked before anything is sent.
      - A missing tag is added; a tag whose value differs is removed and added again with the new value (the API removes
        before it adds).
      - Current tags that are not listed are kept unless O(purge_tags=true).
      - A service holds at most 50 tags (the API's limit). More than 50 here, or a result of more than 50 together with the
        kept tags, fails before any write, naming the limit; no change is split over several requests.
    type: dict
  purge_tags:
    description:
      - Remove the current tags that O(tags) does not list.
      - Only has an effect when O(tags) is set; O(tags={}) with O(purge_tags=true) removes every tag.
    type: bool
    default: false
  enable_core_dumps:
    description:
      - Whether the service's infrastructure collects core dumps (the API's C(enableCoreDumps), an experimental feature).
    type: bool
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
  - The API removes entries before it adds them, so a description change is sent as a remove and an add of the same source.
  - When the answer to the C(PATCH) is lost (no response within O(api_timeout), a connection reset, HTTP 502, 503 or 504),
    the change may have been applied, so it is not sent again as it was. The service is read again and only what still
    differs is sent, with the IP access list, private endpoint and tag changes computed anew from that read (an entry
    that is already gone is not removed twice); nothing is sent when the first attempt did the work, and the task reports
    the change it made. At most O(api_retries) such rounds.
seealso:
  - module: engine.cloud.service_info
  - module: engine.cloud.service_scaling
  - module: engine.cloud.service_state
'''

EXAMPLES = r'''
- name: Allow the office and the CI runner, keep the other entries
  engine.cloud.service:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    ip_access_list:
      - source: 203.0.113.0/24
        description: Office Berlin
      - source: 198.51.100.17
        description: CI runner

- name: Allow exactly these addresses, removing every other entry
  engine.cloud.service:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    ip_access_list:
      - source: 203.0.113.0/24
        description: Office Berlin
    purge_ip_access_list: true

- name: Rename the service, follow the slow release channel and enable the MySQL endpoint
  engine.cloud.service:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    name: prod-analytics
    release_channel: slow
    endpoints:
      - protocol: mysql
        enabled: true

- name: Attach a private endpoint
  engine.cloud.service:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    private_endpoint_ids:
      - vpce-0f9e8d7c6b5a49382

- name: Rotate the data encryption key
  engine.cloud.service:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    transparent_data_encryption_key_id: tde-key-2025-01-15-d4e5f6

- name: Tag the service, keeping its other tags, and collect core dumps
  engine.cloud.service:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    tags:
      team: data-platform
      cost-center: 4711
    enable_core_dumps: true
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
    releaseChannel:
      description: Release channel, V(slow), V(default) or V(fast).
      type: str
      sample: default
    endpoints:
      description: Enabled endpoints, each with C(protocol), C(host), C(port) and C(username).
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
    availablePrivateEndpointIds:
      description: Private endpoints that can be attached.
      type: list
      elements: str
      sample: [vpce-0a1b2c3d4e5f60718, vpce-0f9e8d7c6b5a49382]
    hasTransparentDataEncryption:
      description: Whether transparent data encryption is enabled.
      type: bool
      sample: true
    transparentDataEncryptionKeyId:
      description: Id of the data-encryption key in use, where encryption is enabled.
      type: str
      sample: tde-key-2024-03-11-a1b2c3
    tier:
      description: Tier of the service, for example C(production) or C(development) (deprecated by the API, still returned).
      type: str
      sample: production
    tags:
      description: Tags of the service, each with C(key) and, where it has one, C(value).
      type: list
      elements: dict
      sample:
        - key: team
          value: data-platform
    enableCoreDumps:
      description: Whether the service's infrastructure collects core dumps.
      type: bool
      sample: false
'''

from ansible_collections.engine.cloud.plugins.module_utils import service as rules
from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule


def main():
    module = CloudModule(dict(
        name=dict(type='str'),
        ip_access_list=dict(type='list', elements='dict', options=dict(
            source=dict(type='str', required=True),
            description=dict(type='str'),
        )),
        purge_ip_access_list=dict(type='bool', default=False),
        private_endpoint_ids=dict(type='list', elements='str'),
        purge_private_endpoint_ids=dict(type='bool', default=False),
        release_channel=dict(type='str', choices=['slow', 'default', 'fast']),
        endpoints=dict(type='list', elements='dict', options=dict(
            protocol=dict(type='str', required=True, choices=list(rules.TOGGLEABLE_PROTOCOLS)),
            enabled=dict(type='bool', required=True),
        )),
        transparent_data_encryption_key_id=dict(type='str', no_log=False),
        tags=dict(type='dict'),
        purge_tags=dict(type='bool', default=False),
        enable_core_dumps=dict(type='bool'),
    ))
    tags, tag_errors = rules.check_tags('tags', module.params['tags'])
    params = dict(module.params, tags=tags)
    module.fail_on_errors(
        rules.name_error('name', params['name']),
        None if params['transparent_data_encryption_key_id'] is None or params['transparent_data_encryption_key_id'].strip()
        else 'transparent_data_encryption_key_id must not be empty',
        None if all((item or '').strip() for item in params['private_endpoint_ids'] or [])
        else 'private_endpoint_ids must not hold empty ids',
        *(rules.ip_access_list_errors('ip_access_list', params['ip_access_list'])
          + rules.endpoints_errors('endpoints', params['endpoints']) + tag_errors))

    def plan(current):
        module.fail_on_errors(*rules.service_errors(current, params))
        body, diff = rules.service_patch(current, params)
        module.warn_in_check_mode('transparentDataEncryptionKeyId' in body and rules.not_running_warning(current, 'a key rotation'))
        return body, diff

    module.converge('service', module.get, plan, lambda body: module.send('PATCH', body))


if __name__ == '__main__':
    main()
