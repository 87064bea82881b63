#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pipe_info
short_description: Read an ingestion pipe, by id or by name, or list a service's pipes
version_added: 0.1.0
description:
  - Returns one ingestion pipe of a database service as the cloud management API describes it.
  - With O(name) instead of O(pipe_id), finds the pipe of that name in the service's list (one request).
  - Without O(pipe_id) and O(name), returns every pipe of the service, from one request.
  - Secret-bearing fields of the pipes, such as C(source.objectStorage.connectionString), are masked;
    their real values appear in no result, warning, error or log line.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  pipe_id:
    description:
      - UUID of the pipe.
      - Without it (and without O(name)), the module lists every pipe of the service (one request) and returns them
        as RV(pipes).
    type: str
  name:
    description:
      - Name of the pipe to read, instead of O(pipe_id). One request lists the service's pipes; the one of that name
        is returned as RV(pipe).
      - When no pipe has the name, the task fails and lists the names there are; when several have it, the task
        fails and lists their ids (give O(pipe_id) then).
    type: str
    version_added: 0.2.0
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.cloud.SERVICE_ID
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.CLOUD_GROUP
seealso:
  - module: engine.cloud.pipe_state
  - module: engine.cloud.pipe_settings_info
  - module: engine.cloud.rpe_info
'''

EXAMPLES = r'''
- name: Read a pipe
  engine.cloud.pipe_info:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c62
  register: result

- name: Show its state and source
  ansible.builtin.debug:
    msg: "{{ result.pipe.name }} is {{ result.pipe.state }}, reading {{ result.pipe.source.objectStorage.url }}"

- name: Find a pipe by its name (one list request)
  engine.cloud.pipe_info:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    name: orders-kafka
  register: kafka

- name: Show its id
  ansible.builtin.debug:
    msg: "{{ kafka.pipe.id }}"

- name: List every pipe of the service
  engine.cloud.pipe_info:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
  register: all_pipes

- name: Show the pipes that do not run
  ansible.builtin.debug:
    msg: "{{ all_pipes.pipes | rejectattr('state', 'equalto', 'Running') | map(attribute='name') | list }}"
'''

RETURN = r'''
pipes:
  description:
    - Every pipe of the service, as the API lists them; each element has the keys of RV(pipe), masked in the same way.
  returned: when neither O(pipe_id) nor O(name) is set
  type: list
  elements: dict
  version_added: 0.1.0
  sample:
    - {id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61, name: orders-kafka, state: Running}
    - {id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c63, name: clicks-stream, state: Stopped}
pipe:
  description:
    - The pipe, as the API returns it, with secret-bearing values (for example C(connectionString)) replaced by C(********).
  returned: when O(pipe_id) or O(name) is set
  type: dict
  contains:
    id:
      description: UUID of the pipe.
      type: str
      sample: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c62
    serviceId:
      description: UUID of the service that owns the pipe.
      type: str
      sample: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    name:
      description: Name of the pipe.
      type: str
      sample: events-objectstorage
    definition:
      description:
        - The options of M(engine.cloud.pipe) that describe the pipe, to adopt it. Its credentials are not in it (no read
          shows them), nor its settings (M(engine.cloud.pipe_settings_info) reads them; M(engine.cloud.organization)
          exports both). Fed back to M(engine.cloud.pipe) with the credentials added, a definition reports no change.
      type: dict
      version_added: 0.2.0
      sample: {service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51, pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61, name: clicks,
               source: {kafka: {type: kafka, format: JSONEachRow, brokers: 'broker-1:9092', topics: clicks}},
               destination: {database: default, table: clicks, managed_table: true}}
    state:
      description:
        - Current state. Streaming and object storage pipes use C(Provisioning), C(Running), C(Stopping), C(Stopped),
          C(Completed), C(Failed), C(InternalError), C(Unknown); postgres pipes use C(Provisioning), C(Setup), C(Snapshot),
          C(Running), C(Pausing), C(Paused), C(Modifying), C(Resync), C(Failed), C(Unknown); any pipe may show C(Degraded).
      type: str
      sample: Running
    scaling:
      description: Replicas, concurrency, CPU and memory of the pipe.
      type: dict
      sample: {"replicas": 1, "concurrency": 0}
    source:
      description:
        - One sub-object per source kind (C(kafka), C(objectStorage), C(stream), C(postgres)); the pipe's kind holds an object, the others are null.
        - Secret-bearing values inside it are masked.
      type: dict
      sample: {"objectStorage": {"url": "https://simacct.blob.core.windows.net/events/**/*.ndjson.gz", "connectionString": "********"},
               "kafka": null, "stream": null, "postgres": null}
    destination:
      description: Database, table and table definition the pipe writes to.
      type: dict
      sample: {"database": "analytics", "table": "events", "managedTable": true}
    fieldMappings:
      description: Source field to destination column mappings, each with C(sourceField) and C(destinationField).
      type: list
      elements: dict
      sample: [{"sourceField": "ts", "destinationField": "event_time"}]
    settings:
      description: The pipe's tuning settings (see M(engine.cloud.pipe_settings_info)).
      type: dict
      sample: {"object_storage_concurrency": 4, "engine_max_threads": null}
    createdAt:
      description: Creation time.
      type: str
      sample: "2024-04-02T12:00:00Z"
    updatedAt:
      description: Time of the last change.
      type: str
      sample: "2024-09-15T16:45:10Z"
'''

from ansible_collections.engine.cloud.plugins.module_utils.resource import one_named
from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule
from ansible_collections.engine.cloud.plugins.module_utils.pipe import definition


def with_definition(pipe):
    return dict(pipe, definition=dict(definition(pipe), service_id=pipe.get('serviceId')))


def main():
    module = CloudModule(dict(pipe_id=dict(type='str'), name=dict(type='str')), uuid_options=('pipe_id',),
                         mutually_exclusive=[('pipe_id', 'name')])
    if module.params['name'] is not None:
        pipe, error = one_named(module.read('pipes'), module.params['name'], 'pipe', 'pipe_id')
        if error:
            module.fail(error)
        module.exit(pipe=with_definition(pipe))
    if module.params['pipe_id'] is None:
        module.exit(pipes=[with_definition(pipe) for pipe in module.read('pipes')])
    module.exit(pipe=with_definition(module.read('pipes', module.params['pipe_id'])))


if __name__ == '__main__':
    main()
