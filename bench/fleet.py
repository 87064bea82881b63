# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet jobs at the live rate limit: what shared reads (plugins/module_utils/reads.py) save.

    python bench/fleet.py [--sizes 20,50] [--two-controllers 25] [--sharing on,off] [--timeline] [--keep]

Against a private simulator that enforces the live limit (10 requests per 10 s per key, fixed
windows) with transitions of 10 s, one ansible-playbook run per case, forks N, one host per
service (connection local), the pacer on at the live limit in a private directory (one per
controller):

- start N stopped services (engine.cloud.service_state started), then stop them again (stopped);
- create N pipes of one service (engine.cloud.pipe, by name), then delete them again (state absent);
- the floor of each case, measured in the same run: the same inventory and forks running
  ansible.builtin.ping (a module task that sends nothing), plus the time the rate limit needs for
  the case's requests (N commands and the list reads it sent: the R-th request of a paced run
  leaves (R - 1) // 10 windows of 10.5 s after the first, the pacer's window and margin), plus one
  transition (10 s; none for deleting pipes, which are gone at once);
- two controllers (two ansible-playbook runs at once, each with its own pacing directory) starting
  --two-controllers services each with one key: the 429 answers their retries absorbed, and the
  time next to one controller starting as many.

It prints, for each case: requests sent (and per service), 429 answers, wall time, floor and wall
÷ floor. --sharing on,off runs every case also with ENGINE_CLOUD_SHARED_READS=off (each task reads
alone, as before shared reads); --sharing off only that way. A measurement, not a test: it fails only when a task fails.
"""

import argparse
import copy
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

# pylint: disable=wrong-import-position
from tests.simulator.fixture_ids import SERVICE_DEV, SERVICE_PROD, cloud_connection  # noqa: E402
from tests.simulator.process import SimulatorProcess  # noqa: E402
# pylint: enable=wrong-import-position

TRANSITION = 10
LIMIT, WINDOW = 10, 10.5  # the live limit, and the pacer's window with its margin (module_utils/pacing.py)
CONFIG = dict(rate_limit=True, transition_delay=TRANSITION)
PIPE_SOURCE = dict(kafka=dict(type='kafka', format='JSONEachRow', brokers='b-1.example:9092', topics='fleet.events',
                              authentication='PLAIN', credentials=dict(username='fleet-reader', password='fleet-secret-1')))
PIPE_DESTINATION = dict(database='analytics', table='fleet_events', managed_table=True, columns=[dict(name='id', type='UInt64')])


def fleet_fixtures(path, count):
    """The simulator's fixtures with count more stopped development services (copies of dev-sandbox)."""
    with open(os.path.join(ROOT, 'tests', 'simulator', 'fixtures.json'), encoding='utf-8') as handle:
        fixtures = json.load(handle)
    template = next(service for service in fixtures['services'] if service['id'] == SERVICE_DEV)
    ids = []
    for index in range(count):
        service = copy.deepcopy(template)
        service['id'] = str(uuid.UUID(int=(0xf1ee7 << 96) + index))
        service['name'] = 'fleet-%02d' % index
        fixtures['services'].append(service)
        ids.append(service['id'])
    with open(path, 'w', encoding='utf-8') as handle:
        json.dump(fixtures, handle)
    return ids


class Bench:
    def __init__(self, work, sim, ids, shared):
        self.work, self.sim, self.ids, self.shared = work, sim, ids, shared
        self.python = sys.executable
        self.playbook_bin = os.path.join(os.path.dirname(self.python), 'ansible-playbook')
        self.env = dict((name, value) for name, value in os.environ.items() if not name.startswith(('ANSIBLE_', 'ENGINE_')))
        self.env.update(ANSIBLE_COLLECTIONS_PATH=work, ANSIBLE_HOME=os.path.join(work, 'ansible-home'),
                        ANSIBLE_LOCAL_TEMP=os.path.join(work, 'ansible-tmp'), ANSIBLE_RETRY_FILES_ENABLED='false',
                        ANSIBLE_NOCOLOR='1', ANSIBLE_HOST_KEY_CHECKING='false', ANSIBLE_STDOUT_CALLBACK='default',
                        ANSIBLE_COLLECTIONS_ON_ANSIBLE_VERSION_MISMATCH='ignore',
                        PATH=os.path.dirname(self.python) + os.pathsep + os.environ.get('PATH', ''))
        if not shared:
            self.env['ENGINE_CLOUD_SHARED_READS'] = 'off'
        self.runs = 0
        self.timeline = False

    def inventory(self, name, hosts):
        path = os.path.join(self.work, name + '.ini')
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write('[fleet]\n')
            for host, variables in hosts:
                handle.write('%s ansible_connection=local ansible_python_interpreter=%s %s\n' % (
                    host, self.python, ' '.join('%s=%s' % item for item in variables.items())))
        return path

    def playbook(self, name, task):
        path = os.path.join(self.work, name + '.yml')
        play = [dict(name=name, hosts='fleet', gather_facts=False,
                     module_defaults={'group/engine.cloud.cloud': dict(cloud_connection(self.sim.url), api_rate_limit='10/10')},
                     tasks=[dict(name=name, **task)])]
        with open(path, 'w', encoding='utf-8') as handle:
            json.dump(play, handle)
        return path

    def start(self, inventory, playbook, forks, pacing):
        env = dict(self.env, ENGINE_CLOUD_PACING_DIR=os.path.join(self.work, pacing))
        return subprocess.Popen([self.playbook_bin, '-i', inventory, '-f', str(forks), playbook], cwd=self.work, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def run(self, inventory, playbook, forks, pacing):
        """(wall seconds, the requests of the run); a failed task raises."""
        self.sim.admin('DELETE', '/requests')
        started = time.time()
        proc = self.start(inventory, playbook, forks, pacing)
        output = proc.communicate()[0]
        wall = time.time() - started
        if proc.returncode:
            raise RuntimeError('%s failed (exit %d):\n%s' % (playbook, proc.returncode, output[-4000:]))
        return wall, self.sim.requests()


def counts(log):
    """requests, 429s, list reads, single GETs and writes of a request log."""
    lists = [entry for entry in log if entry['method'] == 'GET' and entry['path'].endswith(('/services', '/pipes'))]
    gets = [entry for entry in log if entry['method'] == 'GET' and entry not in lists]
    return dict(requests=len(log), refused=sum(entry['status'] == 429 for entry in log),
                lists=sum(entry['status'] != 429 for entry in lists), gets=sum(entry['status'] != 429 for entry in gets),
                writes=sum(entry['method'] != 'GET' and entry['status'] != 429 for entry in log))


def rate_time(requests):
    """Seconds the pacer needs for this many requests: the last leaves (R - 1) // 10 windows after the first."""
    return ((requests - 1) // LIMIT) * WINDOW if requests else 0.0


def row(name, n, wall, log, ping, transition):
    figures = counts(log)
    needed = n + figures['lists']
    floor = ping + rate_time(needed) + transition
    return dict(case=name, n=n, wall=wall, floor=floor, ping=ping, ratio=wall / floor, per=figures['requests'] / float(n), **figures)


def fleet_cases(bench, n, progress):
    """Start, stop, create pipes, delete pipes: rows of the table."""
    rows = []
    ids = bench.ids[:n]
    hosts = bench.inventory('services-%d' % n, [('svc%02d' % index, dict(engine_id=service_id)) for index, service_id in enumerate(ids)])
    pipes = bench.inventory('pipes-%d' % n, [('pipe%02d' % index, dict(fleet_pipe='fleet-pipe-%02d' % index)) for index in range(n)])
    ping = bench.playbook('ping', {'ansible.builtin.ping': {}})
    bench.sim.admin('POST', '/reset', CONFIG)
    pacing = 'pacing-%d-%d' % (n, bench.runs)
    bench.runs += 1
    for name, inventory, task in (
            ('start %d services' % n, hosts, {'engine.cloud.service_state': dict(service_id='{{ engine_id }}', state='started')}),
            ('stop %d services' % n, hosts, {'engine.cloud.service_state': dict(service_id='{{ engine_id }}', state='stopped')}),
            ('create %d pipes' % n, pipes, {'engine.cloud.pipe': dict(
                service_id=SERVICE_PROD, name='{{ fleet_pipe }}', source=PIPE_SOURCE, destination=PIPE_DESTINATION,
                field_mappings=[dict(source_field='id', destination_field='id')])}),
            ('delete %d pipes' % n, pipes, {'engine.cloud.pipe': dict(service_id=SERVICE_PROD, name='{{ fleet_pipe }}', state='absent')})):
        ping_wall, dummy = bench.run(inventory, ping, n, pacing)
        wall, log = bench.run(inventory, bench.playbook(name.replace(' ', '-'), task), n, pacing)
        # a deleted pipe is gone at once (the simulator's default deleted_pipe_reads: 0): no transition to wait out
        rows.append(row(name, n, wall, log, ping_wall, 0 if name.startswith('delete') else TRANSITION))
        progress('%-22s %s' % (name, line(rows[-1])))
        if bench.timeline:
            show_timeline(log, progress)
    return rows


def two_controllers(bench, each, progress):
    """Two ansible-playbook runs at once, separate pacing directories, one key, `each` services each; then one
    controller with all of them."""
    ids = bench.ids[:2 * each]
    halves = [bench.inventory('half-%d' % part, [('svc%02d' % index, dict(engine_id=service_id))
                                                 for index, service_id in enumerate(ids[part * each:(part + 1) * each])])
              for part in (0, 1)]
    start = bench.playbook('start', {'engine.cloud.service_state': dict(service_id='{{ engine_id }}', state='started')})
    bench.sim.admin('POST', '/reset', CONFIG)
    bench.sim.admin('DELETE', '/requests')
    began = time.time()
    procs = [bench.start(half, start, each, 'pacing-two-%d-%d' % (part, bench.runs)) for part, half in enumerate(halves)]
    outputs = [proc.communicate()[0] for proc in procs]
    wall = time.time() - began
    for proc, output in zip(procs, outputs):
        if proc.returncode:
            raise RuntimeError('a controller failed (exit %d):\n%s' % (proc.returncode, output[-4000:]))
    log = bench.sim.requests()
    bench.runs += 1
    together = dict(case='2 controllers x %d services' % each, n=2 * each, wall=wall, per=len(log) / float(2 * each), **counts(log))
    progress('%-22s %s' % (together['case'], line(together)))
    return together


def show_timeline(log, progress):
    """Each request of a run: seconds after the first, method, the end of its path, status."""
    if not log:
        return
    first = parse_time(log[0]['time'])
    for entry in log:
        progress('  %6.2f %-5s %-40s %d' % (parse_time(entry['time']) - first, entry['method'], entry['path'][-40:], entry['status']))


def parse_time(text):
    return datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=datetime.timezone.utc).timestamp()


def line(item):
    text = '%d requests (%.2f per service: %d lists, %d GETs, %d writes), %d x 429, wall %.1f s' % (
        item['requests'], item['per'], item['lists'], item['gets'], item['writes'], item['refused'], item['wall'])
    if 'floor' in item:
        text += ', floor %.1f s (ping %.1f s), wall/floor %.2f' % (item['floor'], item['ping'], item['ratio'])
    return text


def table(rows, title):
    out = ['### %s' % title, '',
           '| case | requests | per service | list reads | single GETs | writes | 429 | wall (s) | ping (s) | floor (s) | wall / floor |',
           '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|']
    for item in rows:
        out.append('| %s | %d | %.2f | %d | %d | %d | %d | %.1f | %s | %s | %s |' % (
            item['case'], item['requests'], item['per'], item['lists'], item['gets'], item['writes'], item['refused'], item['wall'],
            '%.1f' % item['ping'] if 'ping' in item else '-', '%.1f' % item['floor'] if 'floor' in item else '-',
            '%.2f' % item['ratio'] if 'ratio' in item else '-'))
    return '\n'.join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sizes', default='20,50', help='fleet sizes N (default 20,50)')
    parser.add_argument('--two-controllers', type=int, default=25, help='services per controller (0 skips)')
    parser.add_argument('--sharing', default='on', help='on, off or on,off: with shared reads, without (ENGINE_CLOUD_SHARED_READS=off), or both')
    parser.add_argument('--keep', action='store_true', help='keep the work directory')
    parser.add_argument('--timeline', action='store_true', help='print every request of every case')
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *dummy: sys.exit(143))
    sizes = [int(value) for value in args.sizes.split(',') if value.strip()]

    def progress(text):
        print('fleet: ' + text, flush=True)

    work = tempfile.mkdtemp(prefix='engine-cloud-fleet.')
    collection = os.path.join(work, 'ansible_collections', 'engine', 'cloud')
    subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT, collection], check=True,
                   stdout=subprocess.DEVNULL)
    fixtures = os.path.join(work, 'fixtures.json')
    ids = fleet_fixtures(fixtures, max(sizes + [2 * args.two_controllers]))
    progress('load %s at start' % ' / '.join('%.2f' % value for value in os.getloadavg()))
    sim = SimulatorProcess(work, root=collection, fixtures=fixtures, rate_limit=True, transition_delay=TRANSITION).start()
    tables = []
    try:
        for shared in [mode.strip() == 'on' for mode in args.sharing.split(',')]:
            bench = Bench(work, sim, ids, shared)
            bench.timeline = args.timeline
            label = 'shared reads on' if shared else 'shared reads off (ENGINE_CLOUD_SHARED_READS=off)'
            rows = []
            for n in sizes:
                rows.extend(fleet_cases(bench, n, progress))
            if args.two_controllers:
                rows.append(two_controllers(bench, args.two_controllers, progress))
            tables.append(table(rows, label))
    finally:
        sim.stop()
        if args.keep:
            progress('work directory kept: ' + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print('')
    print('Load average at the end: %s' % ' / '.join('%.2f' % value for value in os.getloadavg()))
    print('')
    print('\n\n'.join(tables))
    return 0


if __name__ == '__main__':
    sys.exit(main())
