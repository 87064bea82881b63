# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Load across hosts, a measurement of whole processes (CI runs it, make test does not):

    python -m pytest tests/load -q -s        (from the repository root, with the venv's ansible-core)

50 services, one inventory host each, at forks 10 and forks 50, against a simulator with the live rate limit (10
requests per 10 s per API key) and the default api_retries: every task succeeds, every service ends in the desired
state with one write, and the modules' shared pacing keeps the 429s at 1 % of the requests or fewer. Prints the 429s
and the time against the floor (the requests at the limit's pace)."""

import copy
import datetime
import ipaddress
import json
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tests.simulator.fixture_ids import FIXTURES_PATH, SERVICE_DEV, cloud_connection  # noqa: E402  pylint: disable=wrong-import-position
from tests.simulator.process import SimulatorProcess  # noqa: E402  pylint: disable=wrong-import-position

HOSTS = 50
LIMIT, WINDOW = 10, 10


@pytest.fixture(scope='module')
def collections(tmp_path_factory):
    """A layout copy of the collection, as ansible-playbook finds collections."""
    path = tmp_path_factory.mktemp('collections')
    subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT,
                    str(path / 'ansible_collections' / 'engine' / 'cloud')], check=True, capture_output=True)
    return path


def services(directory):
    """The simulator's fixtures plus HOSTS running copies of the development service; their (host, id) pairs."""
    with open(FIXTURES_PATH, encoding='utf-8') as handle:
        fixtures = json.load(handle)
    template = next(service for service in fixtures['services'] if service['id'] == SERVICE_DEV)
    hosts = [('load-%02d' % index, '3f1c2d4e-5a6b-4c7d-8e9f-1%011d' % index) for index in range(1, HOSTS + 1)]
    fixtures['services'] += [dict(copy.deepcopy(template), id=service_id, name=host, state='running') for host, service_id in hosts]
    with open(str(directory / 'fixtures.json'), 'w', encoding='utf-8') as handle:
        json.dump(fixtures, handle)
    return str(directory / 'fixtures.json'), hosts


def when(entry):
    return datetime.datetime.strptime(entry['time'], '%Y-%m-%dT%H:%M:%S.%fZ')


@pytest.mark.parametrize('forks', [10, 50])
def test_every_service_reaches_the_desired_state_under_the_rate_limit(collections, tmp_path, forks):
    fixtures, hosts = services(tmp_path)
    with open(str(tmp_path / 'inventory.ini'), 'w', encoding='utf-8') as handle:
        handle.write('[services]\n' + ''.join('%s service_id=%s ansible_connection=local ansible_python_interpreter=%s\n'
                                              % (host, service_id, sys.executable) for host, service_id in hosts))
    with SimulatorProcess(str(tmp_path / 'simulator'), fixtures=fixtures, rate_limit=True, transition_delay=0) as sim:
        play = dict(name='Load across %d services' % HOSTS, hosts='services', gather_facts=False,
                    module_defaults={'group/engine.cloud.cloud': cloud_connection(sim.url)},
                    tasks=[{'name': 'Set the name and an IP access list entry of each service',
                            'engine.cloud.service': {'service_id': '{{ service_id }}', 'name': '{{ inventory_hostname }}-done',
                                                     'ip_access_list': [{'source': "10.60.{{ groups['services'].index(inventory_hostname) }}.0/24",
                                                                         'description': 'load test'}]}}])
        with open(str(tmp_path / 'playbook.yml'), 'w', encoding='utf-8') as handle:
            json.dump([play], handle)
        environment = dict((key, value) for key, value in os.environ.items() if not key.startswith(('ANSIBLE_', 'ENGINE_')))
        environment.update(ANSIBLE_COLLECTIONS_PATH=str(collections), ANSIBLE_FORKS=str(forks), ENGINE_CLOUD_PACING_DIR=str(tmp_path / 'pacing'),
                           ANSIBLE_LOCAL_TEMP=str(tmp_path / 'tmp'), ANSIBLE_LOCALHOST_WARNING='false', NO_PROXY='127.0.0.1', no_proxy='127.0.0.1')
        started = time.monotonic()
        run = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), '-i', str(tmp_path / 'inventory.ini'),
                              str(tmp_path / 'playbook.yml')], env=environment, cwd=str(tmp_path), capture_output=True, text=True, check=False)
        elapsed = time.monotonic() - started
        requests, state = sim.requests(), dict((service['id'], service) for service in sim.state()['services'])
    limited = [entry for entry in requests if entry['status'] == 429]
    writes = [entry for entry in requests if entry['method'] == 'PATCH' and entry['status'] == 200]
    reads = [entry for entry in requests if entry['method'] == 'GET' and entry['status'] != 429]
    floor = len(requests) * WINDOW / float(LIMIT)
    print('\nload: %d hosts, forks %d, %d requests, %d answered 429, %.1f s (floor %.0f s: %.2fx; first to last request %.1f s)'
          % (HOSTS, forks, len(requests), len(limited), elapsed, floor, elapsed / floor,
             (when(requests[-1]) - when(requests[0])).total_seconds()))
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-3000:]
    for index, (host, service_id) in enumerate(hosts):
        service = state[service_id]
        assert service['name'] == host + '-done'
        assert str(ipaddress.ip_network('10.60.%d.0/24' % index)) in [entry['source'] for entry in service['ipAccessList']]
    assert len(writes) == HOSTS, 'one write per service'
    assert len(requests) - len(limited) == len(writes) + len(reads) and len(reads) <= HOSTS, 'at most one read per service besides its write'
    assert len(limited) <= 0.01 * len(requests), '%d of %d requests answered 429' % (len(limited), len(requests))
