# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The AWX guide's rate limits (docs/docsite/rst/guide_awx.rst, "Rate limits: forks, slices and execution nodes"), on a
simulator with the live limit of the management API: two jobs that run at the same time on one key, each in a
container of its own (a home and a pacing directory of its own), send more than the key's budget together and meet
HTTP 429, which their retries absorb; with the key's budget split between them as the guide says, none is refused."""

import os
import re
import subprocess

import pytest

from conftest import BIN, GUIDES, ROOT, ansible_env, read, simulator_exports
from tests.simulator import fixture_ids as ids
from tests.simulator.process import SimulatorProcess

READS = 7  # per job, one per fork: together more than one window of the key's budget, sent at once
JOB = '''- name: A job of %d forks on one key
  hosts: all
  connection: local
  gather_facts: false
  tasks:
    - name: Read the service
      engine.cloud.service_info:
        service_id: %s
''' % (READS, ids.SERVICE_PROD)


def the_split():
    """(the api_rate_limit of each job, the number of jobs, the key's budget as requests per seconds) the guide prints."""
    text = ' '.join(read(GUIDES, 'guide_awx.rst').split())
    found = re.search(r'(\w+) jobs at ``(\d+/\d+)`` each stay within (\d+) requests per (\d+) seconds together', text)
    assert found, 'the guide no longer splits a key between jobs'
    return found.group(2), {'two': 2, 'three': 3}[found.group(1)], (int(found.group(3)), int(found.group(4)))


@pytest.fixture(scope='module')
def limited(tmp_path_factory):
    with SimulatorProcess(str(tmp_path_factory.mktemp('limited')), rate_limit=True, root=ROOT) as sim:
        yield sim


def jobs_at_once(tmp_path, simulator, collections_path, count, rate_limit=None):
    """count jobs run at the same time, each with a home and a pacing directory of its own: their runs, and the
    statuses the simulator answered."""
    (tmp_path / 'job.yml').write_text(JOB)
    simulator.reset(rate_limit=True)
    started = []
    for index in range(count):
        home = tmp_path / ('job%d' % index)
        home.mkdir()
        env = ansible_env(collections_path, HOME=str(home), ENGINE_CLOUD_PACING_DIR=str(home / 'pacing'),
                          **simulator_exports(simulator))
        env.pop('XDG_RUNTIME_DIR', None)
        if rate_limit:
            env['ENGINE_CLOUD_RATE_LIMIT'] = rate_limit
        hosts = ','.join('fork%d' % fork for fork in range(READS)) + ','
        started.append(subprocess.Popen([os.path.join(BIN, 'ansible-playbook'), 'job.yml', '-i', hosts, '-f', str(READS)],
                                        cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        universal_newlines=True))
    outputs = [job.communicate(timeout=300)[0] for job in started]
    failures = [line for output in outputs for line in output.splitlines() if line.startswith(('fatal:', 'failed:'))]
    assert [job.returncode for job in started] == [0] * count, failures or outputs
    return [entry['status'] for entry in simulator.requests()]


def test_jobs_on_one_key_send_more_than_its_budget_and_meet_429(tmp_path, limited, collections_path):
    dummy, count, budget = the_split()
    assert count * READS > budget[0]
    statuses = jobs_at_once(tmp_path, limited, collections_path, count)
    assert statuses.count(200) == count * READS and statuses.count(429) > 0, statuses


def test_jobs_that_split_the_budget_as_the_guide_says_meet_no_429(tmp_path, limited, collections_path):
    rate_limit, count, budget = the_split()
    requests, seconds = (int(part) for part in rate_limit.split('/'))
    assert count * requests <= budget[0] and seconds == budget[1]
    statuses = jobs_at_once(tmp_path, limited, collections_path, count, rate_limit)
    assert statuses == [200] * (count * READS), statuses
