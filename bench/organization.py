# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A whole organization at the API's speed (issue 49, item 5).

    python bench/organization.py [--services 20] [--pipes 3] [--dashboards 30] [--alerts 200] [--loop]

A private simulator with the live rate limits (10 requests per 10 s per key; 100 per 60 s per token, one grid) holds an
organization seeded at that scale. Each case is one ansible-playbook run with the pacer on at the live limits, its
requests read from the simulator's log:

- ping: a play of one ansible.builtin.ping (ansible-playbook's own start: the part of the floor no request causes);
- export: ansible-playbook engine.cloud.org_export;
- no-op apply: ansible-playbook engine.cloud.org_apply of that export (state overridden: nothing to change);
- with --loop, the same organization converged with the per-object modules: one service, pipe, dashboard or alert task
  per object, as a playbook of per-object tasks would.

The floor of a run: ping's wall time plus the time the live limits need for its requests (the R-th request of a key
leaves (R - 1) // 10 windows of 10.5 s after its first: the pacer's window and margin; the token's likewise at 100 per
60.5 s; the two APIs are paced apart). It prints one row per case: requests by API, 429 answers, writes, wall, floor,
wall / floor and CPU (the ansible-playbook process tree). A measurement: it fails only when a run fails.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.simulator import fixture_ids as ids  # noqa: E402  pylint: disable=wrong-import-position
from tests.simulator.process import SimulatorProcess  # noqa: E402  pylint: disable=wrong-import-position

BIN = os.path.dirname(sys.executable)
KEY_LIMIT, KEY_SPAN, TOKEN_LIMIT, TOKEN_SPAN = 10, 10.5, 100, 60.5


def run(argv, env, cwd):
    """(wall seconds, CPU seconds of the process tree, output) of one command."""
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    wall, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit('%s failed:\n%s' % (' '.join(argv), done.stdout[-4000:]))
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.stdout


def counted(sim):
    """Requests of the log by API, 429s and writes; then the log is cleared."""
    log = sim.requests()
    sim.clear_requests()
    cloud = sum(1 for entry in log if entry['api'] == 'cloud')
    return dict(cloud=cloud, observability=len(log) - cloud, refused=sum(1 for entry in log if entry['status'] == 429),
                writes=sum(1 for entry in log if entry['method'] not in ('GET',) and not entry['path'].endswith('/charts/series')))


def floor(ping, found):
    waits = [(found[api] - 1) // limit * span for api, limit, span in (('cloud', KEY_LIMIT, KEY_SPAN), ('observability', TOKEN_LIMIT, TOKEN_SPAN))
             if found[api]]
    return ping + max(waits or [0])


def loop_playbook(org_dir):
    """The same organization as one per-object task per service, pipe, dashboard and alert."""
    def load(kind):
        with open(os.path.join(org_dir, kind + '.yml'), encoding='utf-8') as handle:
            import yaml  # pylint: disable=import-outside-toplevel
            return yaml.safe_load(handle) or []
    services = load('services')
    by_name = dict((entry['name'], entry['service_id']) for entry in services)
    tasks = [{'engine.cloud.service': dict(entry, purge_tags=True, purge_ip_access_list=True, purge_private_endpoint_ids=True)}
             for entry in services]
    for entry in load('pipes'):
        owner = entry.pop('service')
        tasks.append({'engine.cloud.pipe': dict(entry, service_id=by_name.get(owner, owner))})
    tasks += [{'engine.cloud.dashboard': entry} for entry in load('dashboards')] + [{'engine.cloud.alert': entry} for entry in load('alerts')]
    return [dict(name='The organization, one task per object', hosts='localhost', connection='local', gather_facts=False, tasks=tasks)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--services', type=int, default=20)
    parser.add_argument('--pipes', type=int, default=3)
    parser.add_argument('--dashboards', type=int, default=30)
    parser.add_argument('--alerts', type=int, default=200)
    parser.add_argument('--loop', action='store_true', help='also converge it with the per-object modules (minutes)')
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix='engine-cloud-bench-organization.')
    try:
        collections = os.path.join(work, 'collections')
        subprocess.check_call([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), os.path.join(collections, 'ansible_collections', 'engine', 'cloud')],
                              stdout=subprocess.DEVNULL)
        with SimulatorProcess(os.path.join(work, 'simulator'), rate_limit=True) as sim:
            sim.admin('POST', 'seed', dict(services=args.services, pipes_per_service=args.pipes, dashboards=args.dashboards, alerts=args.alerts))
            cloud, observability = ids.cloud_connection(sim.url), ids.observability_connection(sim.url)
            env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections, ANSIBLE_LOCALHOST_WARNING='false', ANSIBLE_INVENTORY_UNPARSED_WARNING='false',
                       ENGINE_CLOUD_PACING_DIR=os.path.join(work, 'pacing'), ENGINE_CLOUD_API_URL=cloud['api_url'],
                       ENGINE_CLOUD_KEY_ID=cloud['api_key_id'], ENGINE_CLOUD_KEY_SECRET=cloud['api_key_secret'],
                       ENGINE_CLOUD_ORGANIZATION_ID=cloud['organization_id'], ENGINE_OBSERVABILITY_URL=observability['observability_url'],
                       ENGINE_OBSERVABILITY_TOKEN=observability['api_token'], ANSIBLE_PYTHON_INTERPRETER=sys.executable)
            playbook = os.path.join(BIN, 'ansible-playbook')
            with open(os.path.join(work, 'ping.yml'), 'w', encoding='utf-8') as handle:
                json.dump([dict(hosts='localhost', connection='local', gather_facts=False, tasks=[{'ansible.builtin.ping': {}}])], handle)
            ping = run([playbook, 'ping.yml'], env, work)[0]
            rows = []
            org_dir = os.path.join(work, 'org')
            for case, argv in (('export (gathered)', [playbook, 'engine.cloud.org_export', '-e', 'org_dir=' + org_dir]),
                               ('no-op apply (overridden)', [playbook, 'engine.cloud.org_apply', '-e', 'org_dir=' + org_dir])):
                sim.clear_requests()
                wall, cpu, dummy = run(argv, env, work)
                rows.append((case, counted(sim), wall, cpu))
            if args.loop:
                with open(os.path.join(work, 'loop.yml'), 'w', encoding='utf-8') as handle:
                    json.dump(loop_playbook(org_dir), handle)
                sim.clear_requests()
                wall, cpu, dummy = run([playbook, 'loop.yml'], env, work)
                rows.append(('no-op, one per-object task per object', counted(sim), wall, cpu))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print('%d services of %d pipes, %d dashboards, %d alerts; live limits; ansible-playbook ping %.1f s\n' % (
        args.services, args.pipes, args.dashboards, args.alerts, ping))
    print('| case | cloud requests | observability requests | 429 | writes | wall (s) | floor (s) | wall / floor | CPU (s) |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for case, found, wall, cpu in rows:
        bound = floor(ping, found)
        print('| %s | %d | %d | %d | %d | %.1f | %.1f | %.2f | %.1f |' % (case, found['cloud'], found['observability'], found['refused'],
                                                                       found['writes'], wall, bound, wall / bound, cpu))


if __name__ == '__main__':
    main()
