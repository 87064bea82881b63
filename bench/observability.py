# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A team's whole observability as code under the token's budget: the guide's export and apply, one task each.

    python bench/observability.py [--dashboards 30] [--alerts 200] [--before] [--keep]

A private simulator holds D dashboards (four line tiles each) and A alerts on their tiles (built as its fixtures: no
request), and enforces the live limit (100 requests in any 60 s per token, every /api/v2 route). One ansible-playbook
run per case, the guide's playbooks (docs/docsite/rst/guide_dashboards_as_code.rst), the pacer on at the live limit
in a private directory:

- export: dashboard_info and alert_info write every definition to YAML;
- apply, apply again: the export applied as it is (no change), twice;
- apply, one alert changed: the threshold of one alert raised in the file;
- with --before: the no-op apply with ENGINE_CLOUD_SHARED_READS=off (shared reads serve tasks that run at the same
  time: the apply is one task, so it sends the same requests);
- first, with --services N (default 20): a play of one engine.cloud.service task for each service (the fixtures' and N more)
  and one engine.cloud.pipe task for each pipe of the production service, by name, nothing to change, at the
  management API's live limit (10 requests per 10 s per key), with shared reads and without (one task after another:
  the same requests);
- the unpaced floor, last: the no-op apply with api_rate_limit off (no pacing, no shared reads) against the simulator with
  its refusal off: the requests every task sends alone, and the wall and CPU time of the module runs themselves.

It prints, for each case: requests (GETs, writes), 429 answers, the most requests in any 60 s, tasks changed, wall
and CPU seconds (the ansible-playbook process tree). A measurement, not a test: it fails only when a run fails.
"""

import argparse
import copy
import datetime
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

# pylint: disable=wrong-import-position
import fleet  # noqa: E402  # bench/fleet.py, beside this script
from tests.simulator.fixture_ids import SERVICE_PROD, TOKEN, WEBHOOK_PAGER, cloud_connection  # noqa: E402
from tests.simulator.process import SimulatorProcess  # noqa: E402
# pylint: enable=wrong-import-position

LIMIT, WINDOW = 100, 60
GUIDE = os.path.join(ROOT, 'docs', 'docsite', 'rst', 'guide_dashboards_as_code.rst')


def fixtures(path, dashboards, alerts, services):
    """The simulator's fixtures with `dashboards` copies of its first dashboard, `alerts` alerts on their line tiles, and
    `services` more services (bench/fleet.py's)."""
    fleet.fleet_fixtures(path, services)
    with open(path, encoding='utf-8') as handle:
        data = json.load(handle)
    model, alert = data['dashboards'][0], data['alerts'][0]
    data['dashboards'], data['alerts'] = [], []
    for index in range(dashboards):
        board = copy.deepcopy(model)
        board.update(id='6a%022x' % index, name='Bench dashboard %02d' % index)
        for number, tile in enumerate(board['tiles']):
            tile['id'] = '6b%06x%016x' % (index, number)
        data['dashboards'].append(board)
    for index in range(alerts):
        board = data['dashboards'][index % dashboards]
        tile = board['tiles'][(index // dashboards) % len(board['tiles'])]
        data['alerts'].append(dict(alert, id='6c%022x' % index, name='Bench alert %03d' % index, threshold=50 + index % 40,
                                   dashboard=board['id'], tileId=tile['id'], channel=dict(type='webhook', webhookId=WEBHOOK_PAGER),
                                   createdAt='2024-09-01T08:%02d:%02d.000Z' % (index // 60, index % 60)))
    with open(path, 'w', encoding='utf-8') as handle:
        json.dump(data, handle)


def guide_playbooks(directory):
    """export.yml and apply.yml as the guide prints them."""
    with open(GUIDE, encoding='utf-8') as handle:
        text = handle.read()
    for name in ('export.yml', 'apply.yml'):
        start = text.index(':caption: %s' % name)
        block = text[start:].split('\n\n', 1)[1]
        lines = []
        for line in block.split('\n'):
            if line.strip() and not line.startswith('   '):
                break
            lines.append(line[3:])
        with open(os.path.join(directory, name), 'w', encoding='utf-8') as out:
            out.write('\n'.join(lines).rstrip() + '\n')


def parse_time(text):
    return datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=datetime.timezone.utc).timestamp()


def busiest_minute(log):
    """The most requests of the log in any WINDOW seconds."""
    times = sorted(parse_time(entry['time']) for entry in log)
    most, first = 0, 0
    for last, moment in enumerate(times):
        while times[first] <= moment - WINDOW:
            first += 1
        most = max(most, last - first + 1)
    return most


class Bench:
    def __init__(self, work, sim):
        self.work, self.sim = work, sim
        self.bin = os.path.dirname(sys.executable)
        self.env = dict((name, value) for name, value in os.environ.items() if not name.startswith(('ANSIBLE_', 'ENGINE_')))
        self.env.update(ANSIBLE_COLLECTIONS_PATH=work, ANSIBLE_HOME=os.path.join(work, 'ansible-home'),
                        ANSIBLE_LOCAL_TEMP=os.path.join(work, 'ansible-tmp'), ANSIBLE_RETRY_FILES_ENABLED='false',
                        ANSIBLE_NOCOLOR='1', ANSIBLE_PYTHON_INTERPRETER=sys.executable,
                        ANSIBLE_COLLECTIONS_ON_ANSIBLE_VERSION_MISMATCH='ignore', ENGINE_OBSERVABILITY_URL=sim.url,
                        ENGINE_OBSERVABILITY_TOKEN=TOKEN, ENGINE_CLOUD_PACING_DIR=os.path.join(work, 'pacing'),
                        PATH=self.bin + os.pathsep + os.environ.get('PATH', ''))
        self.env.update(('ENGINE_CLOUD_' + name, value) for name, value in (
            ('API_URL', sim.url), ('KEY_ID', cloud_connection(sim.url)['api_key_id']),
            ('KEY_SECRET', cloud_connection(sim.url)['api_key_secret']), ('ORGANIZATION_ID', cloud_connection(sim.url)['organization_id'])))

    def run(self, case, playbook, **env):
        """One ansible-playbook run: its row (requests from the simulator's log, wall and CPU seconds)."""
        self.sim.admin('DELETE', '/requests')
        before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
        done = subprocess.run([os.path.join(self.bin, 'ansible-playbook'), playbook], cwd=self.work, env=dict(self.env, **env),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        wall, after = time.time() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise RuntimeError('%s failed (exit %d):\n%s' % (case, done.returncode, done.stdout[-4000:]))
        log = self.sim.requests()
        recap = [line for line in done.stdout.splitlines() if line.startswith('localhost')]
        changed = recap[-1].split('changed=')[1].split()[0] if recap else '?'
        return dict(case=case, requests=len(log), gets=sum(entry['method'] == 'GET' for entry in log),
                    writes=sum(entry['method'] != 'GET' for entry in log), refused=sum(entry['status'] == 429 for entry in log),
                    minute=busiest_minute(log) if log else 0, changed=changed, wall=wall,
                    cpu=after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                    warnings=sum('WARNING' in line and 'waited' in line for line in done.stdout.splitlines()))


def cloud_playbook(directory, services, pipes):
    """A play of one engine.cloud.service task per service and one engine.cloud.pipe task per pipe of the production
    service, each by name with nothing to change: the reads before acting are all it sends."""
    play = [dict(name='Services and pipes as they are', hosts='localhost', connection='local', gather_facts=False, tasks=[
        dict(name='Each service', **{'engine.cloud.service': dict(name='{{ item }}')}, loop=services),
        dict(name='Each pipe of the production service', **{'engine.cloud.pipe': dict(service_id=SERVICE_PROD, name='{{ item }}')},
             loop=pipes)])]
    path = os.path.join(directory, 'cloud.yml')
    with open(path, 'w', encoding='utf-8') as handle:
        json.dump(play, handle)
    return path


def change_one_alert(path):
    with open(path, encoding='utf-8') as handle:
        text = handle.read()
    import yaml  # pylint: disable=import-outside-toplevel  # ansible-core's requirement, in the venv
    data = yaml.safe_load(text)
    alert = data['alerts'][len(data['alerts']) // 2]
    alert['threshold'] = alert['threshold'] + 1
    with open(path, 'w', encoding='utf-8') as handle:
        yaml.safe_dump(data, handle, sort_keys=False)
    return alert['name']


def table(rows, dashboards, alerts):
    out = ['| case (%d dashboards, %d alerts) | requests | GETs | writes | 429 | most in 60 s | changed | wall (s) | CPU (s) | '
           'rate-limit warnings |' % (dashboards, alerts), '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|']
    for row in rows:
        out.append('| %(case)s | %(requests)d | %(gets)d | %(writes)d | %(refused)d | %(minute)d | %(changed)s | %(wall).1f | '
                   '%(cpu).1f | %(warnings)d |' % row)
    return '\n'.join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--dashboards', type=int, default=30)
    parser.add_argument('--alerts', type=int, default=200)
    parser.add_argument('--services', type=int, default=20, help='services of the management API play (0 skips it)')
    parser.add_argument('--before', action='store_true', help='also the no-op apply with shared reads off')
    parser.add_argument('--keep', action='store_true', help='keep the work directory')
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *dummy: sys.exit(143))

    def progress(text):
        print('bench-observability: ' + text, flush=True)

    work = tempfile.mkdtemp(prefix='engine-cloud-observability.')
    collection = os.path.join(work, 'ansible_collections', 'engine', 'cloud')
    subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT, collection], check=True,
                   stdout=subprocess.DEVNULL)
    fixtures(os.path.join(work, 'fixtures.json'), args.dashboards, args.alerts, args.services)
    guide_playbooks(work)
    progress('load %s at start' % ' / '.join('%.2f' % value for value in os.getloadavg()))
    sim = SimulatorProcess(work, root=collection, fixtures=os.path.join(work, 'fixtures.json'), rate_limit=True).start()
    rows = []
    try:
        bench = Bench(work, sim)
        cases = [('export', 'export.yml', {}), ('apply (no change)', 'apply.yml', {}), ('apply again (no change)', 'apply.yml', {}),
                 ('apply, one alert changed', 'apply.yml', {})]
        if not args.dashboards:
            cases = []
        if args.before:
            cases.append(('apply (no change), shared reads off', 'apply.yml', dict(ENGINE_CLOUD_SHARED_READS='off')))
        if args.services:
            with open(os.path.join(work, 'fixtures.json'), encoding='utf-8') as handle:
                data = json.load(handle)
            playbook = cloud_playbook(work, [item['name'] for item in data['services']],
                                      [item['name'] for item in data['pipes'] if item['serviceId'] == SERVICE_PROD])
            tasks = len(data['services']) + len([item for item in data['pipes'] if item['serviceId'] == SERVICE_PROD])
            cases = [('%d service and pipe tasks (no change)' % tasks, playbook, {}),
                     ('%d service and pipe tasks (no change), shared reads off' % tasks, playbook, dict(ENGINE_CLOUD_SHARED_READS='off'))] + cases
        for case, playbook, env in cases:
            if case.startswith('apply, one alert'):
                progress('changed the threshold of %s' % change_one_alert(os.path.join(work, 'definitions', 'alerts.yml')))
            rows.append(bench.run(case, playbook, **env))
            progress('%(case)s: %(requests)d requests (%(gets)d GETs, %(writes)d writes), %(refused)d x 429, wall %(wall).1f s, '
                     'CPU %(cpu).1f s' % rows[-1])
        if args.dashboards:
            sim.admin('PATCH', '/config', {'rate_limit': False})
            rows.append(bench.run('apply (no change), unpaced floor: api_rate_limit off', 'apply.yml', ENGINE_OBSERVABILITY_RATE_LIMIT='off'))
            progress('%(case)s: %(requests)d requests, wall %(wall).1f s, CPU %(cpu).1f s' % rows[-1])
    finally:
        sim.stop()
        if args.keep:
            progress('work directory kept: ' + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print('')
    print('Load average at the end: %s' % ' / '.join('%.2f' % value for value in os.getloadavg()))
    print('')
    print(table(rows, args.dashboards, args.alerts))
    return 0


if __name__ == '__main__':
    sys.exit(main())
