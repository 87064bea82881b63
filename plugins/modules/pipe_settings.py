#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pipe_settings
short_description: Tune the settings of an ingestion pipe
version_added: 0.1.0
description:
  - Sets some of the twelve tuning settings of an ingestion pipe, leaves the others as they are,
    and returns all settings after the change.
  - Reads the current settings and sends one C(PUT) with only the keys that differ; nothing is sent when none differ.
  - A setting at its default may show as V(null) or as its default value; both count as "at the default", so asking
    for V(null) or for the default value changes nothing when the setting is at its default either way.
    C(object_storage_concurrency) has no published default, so for it only V(null) counts as "at the default".
author:
  - engine.cloud contributors (@engine-cloud)
options:
  pipe_id:
    description:
      - UUID of the pipe.
    type: str
    required: true
  settings:
    description:
      - The settings to set, by name (the notes list each with its range and default). Keys left out keep their value;
        a key set to V(null) goes back to its default.
      - Every value is checked before anything is sent. Integer settings take an integer (or a string of digits, as
        templating may give); boolean settings take V(true) or V(false). Ranges are inclusive.
    type: dict
    required: true
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
      - Returns the predicted settings (a key reset to V(null) shows its default value, C(object_storage_concurrency)
        V(null)) and sends no C(PUT).
      - When a C(PUT) would be sent, the service is read too, and a warning says what the real run would meet in its
        state (an idle service it would wake, a stopped one that may refuse the change); see M(engine.cloud.pipe).
  diff_mode:
    support: full
    details:
      - The diff holds exactly the keys that differ.
  idempotent:
    support: full
notes:
  - O(settings) - C(streaming_max_insert_wait_ms) (500 to 60000, default 5000) maximum wait before inserting streamed
    data.
  - O(settings) - C(object_storage_concurrency) (1 to 35, no published default, V(null) leaves it to the service)
    concurrent file-processing threads.
  - O(settings) - C(object_storage_polling_interval_ms) (100 to 3600000, default 30000) polling interval of
    continuous ingest.
  - O(settings) - C(object_storage_max_insert_bytes) (10485760 to 53687091200, default 10737418240) bytes in one
    insert batch.
  - O(settings) - C(object_storage_max_file_count) (1 to 10000, default 100) files in one insert batch.
  - O(settings) - C(engine_max_threads) (0 to 64, default 3, shown as auto) concurrent threads for file processing.
  - O(settings) - C(engine_max_insert_threads) (0 to 16, default 1) concurrent insert threads.
  - O(settings) - C(engine_min_insert_block_size_bytes) (0 to 10737418240, default 1073741824) minimum insert block
    size.
  - O(settings) - C(engine_max_download_threads) (0 to 32, default 4) concurrent download threads.
  - O(settings) - C(engine_parallel_distributed_insert_select) (0 to 2, default 2) parallel distributed insert-select
    mode.
  - O(settings) - C(object_storage_use_cluster_function) (boolean, default true) use the cluster function for
    distributed processing.
  - O(settings) - C(engine_parallel_view_processing) (boolean, default false) push to attached views concurrently.
  - O(settings) - an unknown key fails the task and lists the valid ones.
seealso:
  - module: engine.cloud.pipe_settings_info
  - module: engine.cloud.pipe_info
'''

EXAMPLES = r'''
- name: Process more files at once and insert less often
  engine.cloud.pipe_settings:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c62
    settings:
      object_storage_concurrency: 8
      object_storage_max_file_count: 1000
      object_storage_use_cluster_function: true

- name: Put the insert wait back to its default
  engine.cloud.pipe_settings:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61
    settings:
      streaming_max_insert_wait_ms: null
  register: result

- name: Show the settings now
  ansible.builtin.debug:
    var: result.settings
'''

RETURN = r'''
settings:
  description:
    - All twelve settings after the change, as the API returns them (in check mode, as they would be, a key reset to
      V(null) showing its default value, or V(null) for C(object_storage_concurrency)).
    - A setting at its default shows as V(null) or as its default value; after a reset with V(null) the API may show either.
  returned: success
  type: dict
  sample:
    streaming_max_insert_wait_ms: null
    object_storage_concurrency: 8
    object_storage_polling_interval_ms: null
    object_storage_max_insert_bytes: null
    object_storage_max_file_count: 1000
    engine_max_threads: null
    engine_max_insert_threads: null
    engine_min_insert_block_size_bytes: null
    engine_max_download_threads: null
    engine_parallel_distributed_insert_select: null
    object_storage_use_cluster_function: true
    engine_parallel_view_processing: null
'''

from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule
from ansible_collections.engine.cloud.plugins.module_utils.pipe_settings import check_settings, settings_plan, settings_writer


def main():
    module = CloudModule(dict(
        pipe_id=dict(type='str', required=True),
        settings=dict(type='dict', required=True),
    ), uuid_options=('pipe_id',))
    wanted, errors = check_settings(module.params['settings'])
    module.fail_on_errors(*errors)
    pipe_id = module.params['pipe_id']
    module.converge('settings', lambda: module.read('pipes', pipe_id, 'settings'),
                    module.foreseeing(lambda current: settings_plan(current, wanted), 'settings change'), settings_writer(module, pipe_id))


if __name__ == '__main__':
    main()
