# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The discovery guide's examples that run on localhost, as printed, in one ansible-playbook run against the
simulator with the ENGINE_* variables: its task lists (each in a play of its own) and its health gate, which
passes on the simulator's series. The plays on inventory hosts run in the playbook_nightly_stop and
inventory_services integration targets. The metrics_gate guide's example ends the same run (a failing play ends
a run): on the simulator's fixture it fails with the message the guide prints."""

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

GUIDE = os.path.join(ROOT, 'docs', 'docsite', 'rst', 'guide_discovery.rst')
GATE_GUIDE = os.path.join(ROOT, 'docs', 'docsite', 'rst', 'guide_metrics_gate.rst')


def plays():
    """The guide's yaml+jinja blocks that run on localhost: its plays on localhost, and its task lists, each
    made a play."""
    with open(GUIDE) as handle:
        text = handle.read()
    found = []
    for block in re.findall(r'\.\. code-block:: yaml\+jinja\n\n((?:   .*\n|\n)+)', text):
        data = yaml.safe_load('\n'.join(line[3:] for line in block.splitlines()))
        if not isinstance(data, list):
            continue  # an inventory source
        if 'hosts' not in data[0]:
            found.append(dict(name='Tasks of the guide: %s' % data[0]['name'], hosts='localhost', gather_facts=False, tasks=data))
        elif data[0]['hosts'] == 'localhost':
            found.extend(data)
    return found


def gate_example():
    """The metrics_gate guide's play (its only code block) and the failure message it prints, on one line."""
    with open(GATE_GUIDE) as handle:
        text = handle.read()
    [block] = re.findall(r'\.\. code-block:: yaml\+jinja\n\n((?:   .*\n|\n)+)', text)
    message = re.search(r'one message::\n\n((?:   .*\n)+)', text).group(1)
    return yaml.safe_load('\n'.join(line[3:] for line in block.splitlines())), ' '.join(message.split())


def test_the_examples_on_localhost_run_as_printed(tmp_path, simulator, collections_path):
    books = plays()
    assert [play['name'] for play in books] == [
        'Tasks of the guide: List every service of the organization', 'Tasks of the guide: Find prod-analytics by its name',
        'Tasks of the guide: The services of team ingest that carry the gdpr tag', 'Gate the rollout on the last 15 minutes of prod-analytics']
    [gate], failure = gate_example()
    # Only the API's address is the simulator's; the token is the vault variable the guide names.
    gate['module_defaults']['group/engine.cloud.observability']['observability_url'] = simulator.url
    (tmp_path / 'discovery.yml').write_text(yaml.safe_dump(books + [gate], sort_keys=False))
    simulator.reset()
    connection = ids.cloud_connection(simulator.url)
    env = ansible_env(collections_path, ENGINE_CLOUD_API_URL=connection['api_url'], ENGINE_CLOUD_KEY_ID=connection['api_key_id'],
                      ENGINE_CLOUD_KEY_SECRET=connection['api_key_secret'], ENGINE_CLOUD_ORGANIZATION_ID=connection['organization_id'],
                      ENGINE_OBSERVABILITY_URL=simulator.url, ENGINE_OBSERVABILITY_TOKEN=ids.TOKEN)
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), 'discovery.yml',
                          '-e', 'vault_engine_obs_token=%s' % ids.TOKEN], cwd=str(tmp_path),
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    # The discovery plays pass; the gate, last, fails with the guide's message and nothing else fails.
    assert run.returncode == 2, run.stdout[-6000:]
    assert re.findall(r'^PLAY \[(.*)\]', run.stdout, re.M) == [play['name'] for play in books] + [gate['name']], run.stdout[-6000:]
    # the series' value is the simulator's of the moment, not the guide's 812.4
    pattern = re.escape(failure).replace(re.escape('max = 812.4 '), r'max = [0-9.]+ ')
    assert pattern != re.escape(failure) and re.search(pattern, ' '.join(run.stdout.split())), run.stdout[-6000:]
    assert len(re.findall(r'^fatal:', run.stdout, re.M)) == 1, run.stdout[-6000:]
    assert ids.TOKEN not in run.stdout
    assert '"msg": [\n        "ingest-staging"\n    ]' in run.stdout, run.stdout[-6000:]
    log = [(entry['method'], entry['path']) for entry in simulator.requests()]
    # the discovery plays: three service reads and the health gate's series; the gate: its two series, the alerts
    assert [method for method, path in log[:4]] == ['GET'] * 3 + ['POST'] and log[3][1] == '/api/v2/charts/series', log
    assert log[4:6] == [('POST', '/api/v2/charts/series')] * 2 and all(method == 'GET' for method, path in log[6:]), log
