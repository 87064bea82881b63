#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pipe_settings_info
short_description: Read the tuning settings of an ingestion pipe
version_added: 0.1.0
description:
  - Returns the twelve tuning settings of one ingestion pipe, as the cloud management API gives them.
  - A setting at its default may show as V(null) or as the default value itself. C(object_storage_concurrency) has no
    published default; V(null) is the only value that means "at the default" for it.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  pipe_id:
    description:
      - UUID of the pipe.
    type: str
    required: true
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.cloud.SERVICE_ID
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.INFO_MODULE
  - engine.cloud.attributes.CLOUD_GROUP
seealso:
  - module: engine.cloud.pipe_settings
  - module: engine.cloud.pipe_info
'''

EXAMPLES = r'''
- name: Read the settings of a pipe
  engine.cloud.pipe_settings_info:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c62
  register: result

- name: Show the object storage concurrency
  ansible.builtin.debug:
    msg: "concurrency {{ result.settings.object_storage_concurrency | default('default', true) }}"
'''

RETURN = r'''
settings:
  description:
    - The pipe's settings, as the API returns them.
    - A setting at its default shows as V(null) or as its default value; after a reset with V(null) the API may show either.
    - See M(engine.cloud.pipe_settings) for the ranges and defaults of each key.
  returned: success
  type: dict
  sample:
    streaming_max_insert_wait_ms: null
    object_storage_concurrency: 4
    object_storage_polling_interval_ms: null
    object_storage_max_insert_bytes: null
    object_storage_max_file_count: 500
    engine_max_threads: null
    engine_max_insert_threads: null
    engine_min_insert_block_size_bytes: null
    engine_max_download_threads: null
    engine_parallel_distributed_insert_select: null
    object_storage_use_cluster_function: false
    engine_parallel_view_processing: null
'''

from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule


def main():
    module = CloudModule(dict(pipe_id=dict(type='str', required=True)),
                         uuid_options=('pipe_id',))
    module.exit(settings=module.read('pipes', module.params['pipe_id'], 'settings'))


if __name__ == '__main__':
    main()
