# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the event sources' polls cost, from the simulator's request log: both sources (their main(), the code
ansible-rulebook runs, without the rules engine) poll every --interval seconds against a simulator with the live rate
limits and more than one page of alerts (--alerts), while a playbook of --tasks engine.cloud.service_info tasks runs
beside them on the same key, sharing the controller's pacer. Prints, per source: polls, listing requests per poll, the
mean interval between polls; for the management API the most requests in any 10-second window; the playbook's wall
time and result; every 429. A measurement, not a test: it never fails on a slow machine.

    .venv/bin/python bench/eda_polls.py [--interval 10] [--polls 10] [--tasks 10] [--alerts 1500]
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import asyncio
import calendar
import os
import runpy
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

# pylint: disable=wrong-import-position
from tests.simulator import fixture_ids as ids  # noqa: E402
from tests.simulator.process import SimulatorProcess  # noqa: E402

ALERTS = '/api/v2/alerts'
SERVICES = '/v1/organizations/%s/services' % ids.ORGANIZATION
PLAYBOOK = '''- name: service_info beside the event sources
  hosts: localhost
  gather_facts: false
  tasks:
%s'''
TASK = '''    - name: Read prod-analytics (%d)
      engine.cloud.service_info:
        service_id: %s
'''


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--interval', type=int, default=10, help='seconds between polls (default 10)')
    parser.add_argument('--polls', type=int, default=10, help='polls of each source (default 10)')
    parser.add_argument('--tasks', type=int, default=10, help='service_info tasks of the playbook (default 10)')
    parser.add_argument('--alerts', type=int, default=1500,
                        help='generated alerts besides the 15 of the fixture (default 1500: two pages of 1000)')
    return parser.parse_args(argv)


def epoch(stamp):
    """Seconds since the epoch of the log's 2026-11-28T00:00:00.000Z."""
    return calendar.timegm(time.strptime(stamp[:19], '%Y-%m-%dT%H:%M:%S')) + int(stamp[20:23]) / 1000.0


def most_in_window(times, seconds):
    times = sorted(times)
    return max([sum(1 for other in times[index:] if other < start + seconds) for index, start in enumerate(times)] or [0])


async def poll(sources, polls, sim):
    """Run both sources' main() until each has polled `polls` times (its first page counted from the request log)."""
    queue = asyncio.Queue()
    tasks = [asyncio.ensure_future(main(queue, args)) for main, args in sources]
    try:
        while True:
            log = sim.requests()
            done = [sum(1 for entry in log if entry['method'] == 'GET' and entry['path'] == path and entry['query'].get('offset', '0') == '0')
                    for path in (ALERTS, SERVICES)]
            if min(done) >= polls or any(task.done() for task in tasks):
                break
            await asyncio.sleep(0.2)
        for task in tasks:
            if task.done():
                task.result()  # a source that stopped: its exception
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(1)  # a page the cancelled alert poll still sends is logged before the log is read


def main(argv=None):
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix='engine-cloud-eda-bench.') as work:
        collections = os.path.join(work, 'collections')
        subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), os.path.join(collections, 'ansible_collections', 'engine', 'cloud')],
                       check=True, stdout=subprocess.DEVNULL)
        sys.path.insert(0, collections)
        source_dir = os.path.join(collections, 'ansible_collections', 'engine', 'cloud', 'extensions', 'eda', 'plugins', 'event_source')
        with SimulatorProcess(os.path.join(work, 'simulator'), rate_limit=True) as sim:
            sim.config(alert_count=args.alerts)
            os.environ.update(ENGINE_CLOUD_API_URL=sim.url, ENGINE_OBSERVABILITY_URL=sim.url, ENGINE_CLOUD_KEY_ID=ids.KEY_ID,
                              ENGINE_CLOUD_KEY_SECRET=ids.KEY_SECRET, ENGINE_CLOUD_ORGANIZATION_ID=ids.ORGANIZATION,
                              ENGINE_OBSERVABILITY_TOKEN=ids.TOKEN, ENGINE_CLOUD_PACING_DIR=os.path.join(work, 'pacing'),
                              ANSIBLE_COLLECTIONS_PATH=collections, ANSIBLE_LOCALHOST_WARNING='false')
            playbook = os.path.join(work, 'service_info.yml')
            with open(playbook, 'w', encoding='utf-8') as handle:
                handle.write(PLAYBOOK % ''.join(TASK % (index + 1, ids.SERVICE_PROD) for index in range(args.tasks)))
            sources = [(runpy.run_path(os.path.join(source_dir, name + '.py'))['main'], dict(interval=args.interval))
                       for name in ('alert_events', 'service_events')]
            sim.clear_requests()
            started = time.monotonic()
            # the playbook starts with the sources, after their first polls, and runs beside them
            play = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), '-i', 'localhost,', '-c', 'local',
                                     '-e', 'ansible_python_interpreter=%s' % sys.executable, playbook],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            ended = {}
            waiter = threading.Thread(target=lambda: ended.update(output=play.communicate()[0], at=time.monotonic()))
            waiter.start()
            asyncio.run(poll(sources, args.polls, sim))
            waiter.join()
            output, play_seconds = ended['output'], ended['at'] - started
            log = sim.requests()
        print_figures(args, log, play.returncode, output, play_seconds)


def print_figures(args, log, play_code, play_output, play_seconds):
    alert_pages = [entry for entry in log if entry['path'] == ALERTS]
    alert_polls = [entry for entry in alert_pages if entry['query'].get('offset', '0') == '0']
    service_polls = [entry for entry in log if entry['path'] == SERVICES]
    reads = [entry for entry in log if entry['path'] == ids.service_path()]
    cloud_times = [epoch(entry['time']) for entry in log if entry['path'].startswith('/v1/')]

    def spacing(entries):
        times = [epoch(entry['time']) for entry in entries]
        return (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else 0.0
    print('eda_polls: both sources polling every %d s, %d alerts (%d pages of 1000), a playbook of %d service_info tasks beside them'
          % (args.interval, args.alerts + 15, -(-(args.alerts + 15) // 1000), args.tasks))
    print('| source | polls | listing requests | per poll | mean s between polls | 429 |')
    print('|---|---:|---:|---:|---:|---:|')
    for name, polls, requests in (('alert_events', alert_polls, alert_pages), ('service_events', service_polls, service_polls)):
        refused = sum(1 for entry in requests if entry['status'] == 429)
        print('| %s | %d | %d | %.2f | %.1f | %d |' % (name, len(polls), len(requests), len(requests) / max(1, len(polls)), spacing(polls), refused))
    recap = [line for line in play_output.splitlines() if line.startswith('localhost')]
    print('playbook: exit %d, %s; %d GETs of the service; %.1f s from the start of the polls to its end' % (
        play_code, recap[-1].split(':', 1)[1].strip() if recap else 'no recap', len(reads), play_seconds))
    print('management API: %d requests, at most %d in any 10 s (the limit: 10); 429 answers in the whole log: %d'
          % (len(cloud_times), most_in_window(cloud_times, 10), sum(1 for entry in log if entry['status'] == 429)))


if __name__ == '__main__':
    main()
