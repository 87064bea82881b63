# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The CPU time of one module process, two versions of the collection side by side in one run.

python bench/module_ab.py --old 8555107 [--n 15] [--pacing]

Makes the AnsiballZ file of ansible.builtin.ping (the floor), of ansible.builtin.uri sending one GET of a
service, and of engine.cloud.service_state unchanged (one GET) from --old (a git commit) and from the
working tree, against a private simulator; then runs the four files in turn, N rounds (the order reversed
every other round), and reads each process's CPU time with os.wait4. Prints the medians and each version's
CPU overhead over ping as a multiple of uri's. Without --pacing the module runs with api_rate_limit: off (no
pacer, no shared reads); with it, as a user's task runs by default and as bench/bench.py runs it: the pacer and
the shared reads on, in a private directory, at a limit of 100000/1 that is never near. A measurement, not a
test."""

import argparse
import base64
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from tests.simulator import fixture_ids as f  # noqa: E402  pylint: disable=wrong-import-position


def collection(work, name, ref):
    """A collection tree (ANSIBLE_COLLECTIONS_PATH) of the working tree (ref None) or of a commit."""
    src = ROOT
    if ref:
        src = os.path.join(work, 'src-' + name)
        os.makedirs(src)
        archive = subprocess.run(['git', '-C', ROOT, 'archive', ref], check=True, capture_output=True).stdout
        subprocess.run(['tar', '-x', '-C', src], input=archive, check=True)
    path = os.path.join(work, 'coll-' + name)
    subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', src,
                    os.path.join(path, 'ansible_collections', 'engine', 'cloud')], check=True, capture_output=True)
    return path


def payload(work, env, name, collections, task):
    """The AnsiballZ file that a one-task play of task leaves behind (ANSIBLE_KEEP_REMOTE_FILES)."""
    keep = os.path.join(work, 'keep-' + name)
    os.makedirs(keep)
    play = os.path.join(keep, 'play.yml')
    with open(play, 'w', encoding='utf-8') as handle:
        json.dump([{'hosts': 'localhost', 'gather_facts': False, 'tasks': [task]}], handle)
    run_env = dict(env, ANSIBLE_COLLECTIONS_PATH=collections, ANSIBLE_KEEP_REMOTE_FILES='1', ANSIBLE_REMOTE_TMP=keep,
                   ANSIBLE_LOCAL_TEMP=keep)
    result = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), '-i', 'localhost,', '-c', 'local',
                             '-e', 'ansible_python_interpreter=' + sys.executable, play], env=run_env, capture_output=True, text=True, check=False)
    if result.returncode:
        raise SystemExit('%s failed:\n%s%s' % (name, result.stdout, result.stderr))
    return glob.glob(os.path.join(keep, '**', 'AnsiballZ_*.py'), recursive=True)[0]


def wait_for_port(port_file):
    while True:
        if os.path.exists(port_file):
            with open(port_file, encoding='utf-8') as handle:
                port = handle.read().strip()
            if port:
                return port
        time.sleep(0.1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--old', required=True, help='a git commit of this repository')
    parser.add_argument('--n', type=int, default=15, help='rounds (default 15)')
    parser.add_argument('--pacing', action='store_true', help='the pacer and the shared reads on (the default of a task)')
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix='module-ab-')
    env = dict((name, value) for name, value in os.environ.items() if not name.startswith('ANSIBLE_'))
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    if args.pacing:
        env.update(ENGINE_CLOUD_RATE_LIMIT='100000/1', ENGINE_CLOUD_PACING_DIR=os.path.join(work, 'pacing'))
    port_file = os.path.join(work, 'port')
    simulator = subprocess.Popen([sys.executable, '-m', 'tests.simulator', '--host', '127.0.0.1', '--port', '0', '--port-file', port_file,
                                  '--quiet'], cwd=ROOT, env=env)
    try:
        url = 'http://127.0.0.1:%s' % wait_for_port(port_file)
        path = '/v1/organizations/%s/services/%s' % (f.ORGANIZATION, f.SERVICE_DEV)
        auth = 'Basic ' + base64.b64encode(('%s:%s' % (f.KEY_ID, f.KEY_SECRET)).encode()).decode()
        with urllib.request.urlopen(urllib.request.Request(url + path, headers={'Authorization': auth})) as answer:
            state = json.load(answer)['result']['state']
        goal = 'started' if state in ('running', 'idle') else 'stopped'
        module = {'engine.cloud.service_state': dict(api_url=url, api_key_id=f.KEY_ID, api_key_secret=f.KEY_SECRET,
                                                     organization_id=f.ORGANIZATION, service_id=f.SERVICE_DEV, state=goal)}
        if not args.pacing:
            module['engine.cloud.service_state']['api_rate_limit'] = 'off'
        new, old = collection(work, 'new', None), collection(work, 'old', args.old)
        cases = [('ping', payload(work, env, 'ping', new, {'ansible.builtin.ping': {}})),
                 ('uri GET', payload(work, env, 'uri', new, {'ansible.builtin.uri': {'url': url + path, 'headers': {'Authorization': auth}}})),
                 ('service_state %s' % args.old, payload(work, env, 'old', old, module)),
                 ('service_state worktree', payload(work, env, 'new', new, module))]
        cpu = dict((name, []) for name, dummy in cases)
        for round_ in range(args.n):
            for name, file_ in (cases if round_ % 2 == 0 else cases[::-1]):
                process = subprocess.Popen([sys.executable, file_], env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                out = process.stdout.read()
                dummy, dummy, usage = os.wait4(process.pid, 0)
                process.returncode = 0
                if b'"failed": true' in out:
                    raise SystemExit('%s failed: %s' % (name, out[:800]))
                cpu[name].append((usage.ru_utime + usage.ru_stime) * 1000)
    finally:
        simulator.terminate()
        simulator.wait()
        shutil.rmtree(work, ignore_errors=True)
    median = dict((name, statistics.median(values)) for name, values in cpu.items())
    print('module_ab: %d rounds, %s, load average %.1f %.1f %.1f' % ((args.n, 'pacing on' if args.pacing else 'api_rate_limit off') + os.getloadavg()))
    for name, dummy in cases:
        print('  %-32s CPU median %6.1f ms, min %6.1f' % (name, median[name], min(cpu[name])))
    uri = median['uri GET'] - median['ping']
    for name, dummy in cases[2:]:
        print('  %-32s CPU overhead over ping %6.1f ms = %.2f x uri GET' % (name, median[name] - median['ping'], (median[name] - median['ping']) / uri))


if __name__ == '__main__':
    main()
