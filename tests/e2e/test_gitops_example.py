# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The GitOps example of the service_config role, as its README and the guide print it: a site.yml
beside a services/ directory of one file per service, run with the ENGINE_CLOUD_* variables, against
the simulator. Each service gets its own changes, on its own paths (the simulator's request log)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, ansible_env
from tests.simulator import fixture_ids as ids

yaml = pytest.importorskip('yaml')

README = os.path.join(ROOT, 'roles', 'service_config', 'README.md')
GUIDE = os.path.join(ROOT, 'docs', 'docsite', 'rst', 'guide_service_config.rst')


def readme_example():
    with open(README) as handle:
        section = handle.read().split('## GitOps', 1)[1]
    return re.search(r'```yaml\n(.*?)```', section, re.S).group(1)


def guide_example():
    with open(GUIDE) as handle:
        section = handle.read().split('\nGitOps\n------\n', 1)[1]
    block = re.search(r'\.\. code-block:: yaml\+jinja\n\n((?:   .*\n|\n)+)', section).group(1)
    return '\n'.join(line[3:] for line in block.splitlines()) + '\n'


def test_the_readme_and_the_guide_print_the_same_example():
    assert yaml.safe_load(readme_example()) == yaml.safe_load(guide_example())


def test_the_example_applies_each_service_file(tmp_path, simulator, collections_path):
    (tmp_path / 'site.yml').write_text(readme_example())
    (tmp_path / 'services').mkdir()
    (tmp_path / 'services' / 'prod-analytics.yml').write_text(yaml.safe_dump(dict(
        id=ids.SERVICE_PROD, pipes=[dict(id=ids.PIPE_KAFKA, settings=dict(streaming_max_insert_wait_ms=1500), state='started')])))
    (tmp_path / 'services' / 'dev-sandbox.yml').write_text(yaml.safe_dump(dict(id=ids.SERVICE_DEV, name='dev-sandbox-eu')))
    simulator.reset()
    connection = ids.cloud_connection(simulator.url)
    env = ansible_env(collections_path, ENGINE_CLOUD_API_URL=connection['api_url'], ENGINE_CLOUD_KEY_ID=connection['api_key_id'],
                      ENGINE_CLOUD_KEY_SECRET=connection['api_key_secret'], ENGINE_CLOUD_ORGANIZATION_ID=connection['organization_id'])
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), 'site.yml'],
                         cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                         check=False)
    assert run.returncode == 0, run.stdout[-6000:]

    dev = '/v1/organizations/%s/services/%s' % (ids.ORGANIZATION, ids.SERVICE_DEV)
    kafka = '/v1/organizations/%s/services/%s/pipes/%s' % (ids.ORGANIZATION, ids.SERVICE_PROD, ids.PIPE_KAFKA)
    log = simulator.requests()
    assert [entry for entry in log if entry['status'] != 200] == []
    assert [(entry['method'], entry['path'], entry['body']) for entry in log if entry['method'] in ('PATCH', 'PUT')] == [
        ('PATCH', dev, {'name': 'dev-sandbox-eu'}),
        ('PUT', kafka + '/settings', {'streaming_max_insert_wait_ms': 1500}),
    ]
    assert set(entry['path'] for entry in log) <= {dev, kafka, kafka + '/settings'}
