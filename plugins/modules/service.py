#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: service
short_description: Create, change and delete a database service
version_added: 0.1.0
description:
  - Creates a database service, converges it to the options given, and deletes it. The service is found by
    O(service_id), or by O(name) (one list request). To start or stop one, use M(engine.cloud.service_state).
  - A new service is created with every creation field given, its O(password) set, waited for (O(wait)), then given
    what the create request does not take (O(private_endpoint_ids)). An existing one converges in one C(PATCH) with
    only what differs, then its scaling options through the scaling endpoint; a field fixed at creation that differs
    fails the task before any write, naming the option and the current value. Options left out are not managed.
  - O(state=absent) stops the service first (the API deletes stopped services only), then deletes it.
  - The R(service lifecycle guide,ansible_collections.engine.cloud.docsite.guide_service_lifecycle) has the rules in
    detail (what is fixed, lists and tags, deletes, lost answers) and worked examples.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  state:
    description:
      - V(present) creates the service when it does not exist and converges it; V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  service_id:
    description:
      - UUID of the service. With it, O(name) is the service's desired name (a rename).
      - One of O(service_id) and O(name) is required. A service is created from its O(name) alone (without O(service_id)).
    type: str
  name:
    description:
      - Name of the service; 1 to 50 letters, digits, spaces or hyphens, starting and ending with a letter or digit.
      - Without O(service_id), the service of that name (none is created or, with V(absent), nothing to do); when
        several have it, the task fails before any write, listing their ids. With O(service_id), its desired name.
    type: str
  provider:
    description:
      - Cloud provider. Required to create a service; fixed at creation.
    type: str
    choices: [aws, gcp, azure]
  region:
    description:
      - The provider's region code, for example V(us-east-1) (aws), V(europe-west4) (gcp), V(eastus2) (azure).
      - Required to create a service; fixed at creation.
    type: str
  tier:
    description:
      - Tier of the service (deprecated by the API, which still takes it), for example V(production) or V(development).
      - Fixed at creation.
    type: str
  backup_id:
    description:
      - UUID of a backup to create the service from (same region and tier).
      - Used only when the service is created; no read shows it, so it is not compared on an existing service.
    type: str
  encryption_key:
    description:
      - Customer-provided disk encryption key (its identifier, for example a key ARN, not key material). Fixed at creation.
    type: str
  encryption_assumed_role_identifier:
    description:
      - Role to assume for the disk encryption. Fixed at creation.
    type: str
  transparent_data_encryption:
    description:
      - Whether the service has transparent data encryption (the API's C(hasTransparentDataEncryption)). Fixed at creation.
    type: bool
  compliance_type:
    description:
      - Regulatory compliance of the service. Fixed at creation.
    type: str
    choices: [hipaa, pci]
  profile:
    description:
      - Instance profile, for example V(v1-default) or V(v1-highmem-s). Fixed at creation.
    type: str
  byoc_id:
    description:
      - Id of a Bring Your Own Cloud region set-up. Fixed at creation.
    type: str
  data_warehouse_id:
    description:
      - Data warehouse the new service joins (without it, the service is the first of a new warehouse). Fixed at creation.
    type: str
  readonly:
    description:
      - Whether the service is read-only (the API's C(isReadonly)); a read-only service needs O(data_warehouse_id).
      - Fixed at creation.
    type: bool
  num_replicas:
    description:
      - Number of replicas, between 1 and 20 (at least 2 for the first service of a warehouse), for vertical autoscaling.
      - Sent at creation; on an existing service it converges through the scaling endpoint, as with
        M(engine.cloud.service_scaling) (the service must be running for a change).
      - Mutually exclusive with O(min_replicas) and O(max_replicas).
    type: int
  min_replica_memory_gb:
    description:
      - Lower memory bound of each replica, in GB; a multiple of 4 between 8 and 356 (the API allows at most 120 for
        organizations that do not pay).
      - Sent at creation only; a value that differs on an existing service fails (see the notes).
    type: int
  max_replica_memory_gb:
    description:
      - Upper memory bound of each replica, in GB; a multiple of 4 between 8 and 356 (120 for organizations that do not
        pay), at least O(min_replica_memory_gb). With O(autoscaling_mode=horizontal) both bounds are equal.
      - Sent at creation only; a value that differs on an existing service fails (see the notes).
    type: int
  autoscaling_mode:
    description:
      - V(vertical) (a fixed O(num_replicas), memory scales; the API's default) or V(horizontal) (the replica count scales
        between O(min_replicas) and O(max_replicas) at a fixed memory). Fixed at creation.
    type: str
    choices: [vertical, horizontal]
  min_replicas:
    description:
      - Lower bound of the replica count, 1 to 20, with O(autoscaling_mode=horizontal) (required to create one). Fixed at creation.
    type: int
  max_replicas:
    description:
      - Upper bound of the replica count, 1 to 20 and at least O(min_replicas), with O(autoscaling_mode=horizontal)
        (required to create one). Fixed at creation.
    type: int
  idle_scaling:
    description:
      - Whether the service may scale down to zero when idle (the API's default is V(true)).
      - Sent at creation; on an existing service it converges through the scaling endpoint.
    type: bool
  idle_timeout_minutes:
    description:
      - Minutes without queries before an idle service scales down; at least 5.
      - Sent at creation; on an existing service it converges through the scaling endpoint.
    type: int
  password:
    description:
      - Password of the service's default user; keep it in Ansible Vault. Only its two hashes are sent, never the
        password itself, and it is never returned or logged.
      - No read shows which password a service has, so it is set, not compared; see O(update_password).
    type: str
  update_password:
    description:
      - V(on_create) sets O(password) only right after the module created the service.
      - V(always) sets it on every run, which then reports C(changed) (as the update_password option of C(ansible.builtin.user) does).
    type: str
    choices: [on_create, always]
    default: on_create
  wait:
    description:
      - After a create, wait until the service is C(running) or C(idle) (C(failed) fails the task); after a delete,
        until reads show it gone. A stop before a delete is always waited for.
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds, at least 1, for the waits of a create or of a delete, and separately for the stop before a delete.
    type: int
    default: 1800
  ip_access_list:
    description:
      - Addresses allowed to connect to the service, matched to the current entries by source, in any order.
      - Current entries that are not listed are kept unless O(purge_ip_access_list=true); an empty list with it
        removes every entry.
    type: list
    elements: dict
    suboptions:
      source:
        description:
          - An IPv4 address (V(198.51.100.17), the same source as V(198.51.100.17/32)) or a CIDR block without host
            bits (V(203.0.113.0/24)).
        type: str
        required: true
      description:
        description:
          - Description of the entry; when left out, an existing entry keeps its own and a new one gets none.
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
        C(availablePrivateEndpointIds). A new service gets them by an update right after its create.
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
      - Id of the transparent data encryption key to rotate an existing service to (a new one is created with its
        first key); rotated only when it differs from the current one.
      - The service must have transparent data encryption enabled and be running.
    type: str
  tags:
    description:
      - Tags of the service, a dict of tag key to value (V(null) for a tag without a value); at most 50, the kept
        tags included.
      - Current tags that are not listed are kept unless O(purge_tags=true).
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
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.CLOUD_GROUP
attributes:
  check_mode:
    support: full
    details:
      - Reports what would be created, changed or deleted, and sends no write. A create shows the service the request
        would make; a delete, the service that would be deleted.
  diff_mode:
    support: full
    details:
      - The diff shows, in the API's field names, the before and after value of each field that changes; for a create,
        an empty before and the service to create (without a password, which the create request does not take; a given
        O(password) is set right after, by its hashes); for a delete, the service and an empty after. On an existing
        service, a password set with O(update_password=always) shows as C(password) with a masked value.
  idempotent:
    support: partial
    details:
      - Idempotent, except with O(update_password=always), which sets the password on every run and reports C(changed).
notes:
  - The fields fixed at creation are O(provider), O(region), O(tier), O(encryption_key),
    O(encryption_assumed_role_identifier), O(transparent_data_encryption), O(compliance_type), O(profile), O(byoc_id),
    O(data_warehouse_id), O(readonly), O(autoscaling_mode), O(min_replicas), O(max_replicas), and O(min_replica_memory_gb)
    and O(max_replica_memory_gb), which no request sets directly (the deprecated
    O(engine.cloud.service_scaling#module:min_total_memory_gb) and
    O(engine.cloud.service_scaling#module:max_total_memory_gb) move them).
  - A changed IP access list entry or tag is sent as a remove and an add (the API removes before it adds).
  - A new service without O(password) returns its generated password once, as C(initial_password), in the run that
    created it; no later read shows it. Register the result with C(no_log=true) and store the password (for example in
    a vault), or give O(password).
  - A create whose answer is lost is never sent again; the service is looked for by name for up to O(wait_timeout).
    A step after the create that fails leaves the created service (and C(initial_password)) in the result.
seealso:
  - module: engine.cloud.service_info
  - module: engine.cloud.service_scaling
  - module: engine.cloud.service_state
'''

EXAMPLES = r'''
- name: Create the staging service unless it exists (its password comes from Ansible Vault), and wait until it runs
  engine.cloud.service:
    name: staging-eu
    provider: aws
    region: eu-central-1
    num_replicas: 2
    min_replica_memory_gb: 16
    max_replica_memory_gb: 32
    idle_timeout_minutes: 30
    tags:
      env: staging
      team: data-platform
    ip_access_list:
      - source: 203.0.113.0/24
        description: Office Berlin
    password: "{{ vault_staging_password }}"

- name: Create a service without a password and keep the one the API generates (returned once, in this run only)
  engine.cloud.service:
    name: reporting-eu
    provider: aws
    region: eu-central-1
  register: reporting
  no_log: true

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

- name: Delete the staging service (stopped first, then deleted), without waiting until reads show it gone
  engine.cloud.service:
    name: staging-eu
    state: absent
    wait: false
'''

RETURN = r'''
service:
  description:
    - The service after the change, as the API returns it (the current service when nothing changed).
    - After a create, the service as last read (with O(wait=true), running or idle).
    - After a delete, the service as last read before it was gone; V({}) when there was nothing to delete.
    - In check mode, the current service with the changed fields as they would be; for a create, the fields of the
      create request with C(state) V(provisioning).
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
    provider:
      description: Cloud provider.
      type: str
      sample: aws
    region:
      description: Region of the service.
      type: str
      sample: eu-central-1
initial_password:
  description:
    - The password the API generated for the default user of a service this run created without O(password).
    - Returned once, in the run that created the service, and never again (no read shows it). When the answer to the
      create was lost, it is a password the API generated again for the service found by name afterwards.
      Register the result with C(no_log=true) and store it.
    - Also returned when a step after the create failed (the password, the wait, the update of the private endpoints),
      and, when O(password) was given but could not be set, the password the API generated instead.
  returned: when this run created the service and O(password) was not given, or a step after the create failed
  type: str
  sample: Tz8-0bXk3wLq9Rm2Yp4s
'''


from ansible_collections.engine.cloud.plugins.module_utils import service
from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule


def main():
    service.run(CloudModule(service.SPEC, **service.OPTIONS))


if __name__ == '__main__':
    main()
