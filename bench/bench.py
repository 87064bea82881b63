# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cost of an engine.cloud task, side by side with Ansible's floor (`make bench`).

What it runs, against a private simulator on 127.0.0.1 (see docs/performance.md for the results):

- Per-task cost: for every case (ansible.builtin.ping, the floor; ansible.builtin.uri sending the
  same single GET, what a user would write instead; every info module; every write module in its
  unchanged and its changed case), one ansible-playbook run of a play with N identical tasks
  (N=40), connection local, the interpreter running this script. The callback
  bench/callback_plugins/bench_timer.py records each task's wall time from its start (before the
  worker forks) to its result; a run's value is the median of its N tasks. Every case is run
  REPEATS times (>= 5), the cases interleaved in a different order in every round; the table shows
  the median over the rounds. HTTP requests per task come from the simulator's request log.
- Peak memory: a separate pass runs each case with ansible_python_interpreter set to a tiny wrapper
  that forks the real interpreter and reads the module process's own ru_maxrss with os.wait4 (so
  the wrapper's start-up never enters the timed runs).
- Polling cost: service_state stopped (wait: true) with a simulated transition of 5, 30 and 120 s.
- Scale: chart_series with 5 series over 10 000 buckets, alert_info with 5 000 alerts in pages.

This is a measurement, not a test: it never fails because a machine is slow. It exits non-zero
only when a task fails (a broken case would otherwise show up as a fast one).
"""

import argparse
import datetime
import json
import math
import os
import platform
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

# pylint: disable=wrong-import-position
from tests.simulator import catalog  # noqa: E402
from tests.simulator.fixture_ids import (KEY_ID, KEY_SECRET, SERVICE_PROD, SOURCE_METRICS, TOKEN, cloud_connection,  # noqa: E402
                                         observability_connection, service_path)
from tests.simulator.process import SimulatorProcess  # noqa: E402
# pylint: enable=wrong-import-position

# The bench's simulator has no rate limit: pace (the cost counts) under a limit no run reaches.
BENCH_RATE_LIMIT = '100000/1'
# A fixed, minute-aligned start: 10 000 one-minute buckets from here.
SCALE_START_MS = 1727740800000  # 2024-10-01T00:00:00Z
# The live read a writer makes besides its object before a write: a dashboard the alerts (allow_alert_deletion), an alert
# the dashboards (its tile, read live).
WRITE_READS = dict(dashboard=1, alert=1)


def sim_url(path):
    return '{{ sim_url }}' + path


def uri_task(method, path, body=None, obs=False, status=200):
    task = dict(url=sim_url(path), method=method, status_code=status, return_content=True)
    if obs:
        task['headers'] = dict(Authorization='Bearer ' + TOKEN)
    else:
        task.update(url_username=KEY_ID, url_password=KEY_SECRET, force_basic_auth=True)
    if body is not None:
        task.update(body_format='json', body=body)
    return {'ansible.builtin.uri': task}


def mod(module, **args):
    return {'engine.cloud.' + module: args}


def alternate(*variants):
    """Task i gets variants[i % len(variants)]: every task of a changed case really changes."""
    return lambda index: variants[index % len(variants)]


SERVICE_PATH = service_path()
# The uri task that sends the same single request as an info module that reads with this method.
BASELINE = {'GET': 'uri GET', 'POST': 'uri POST series'}


class Case:
    """One row of the table.

    kind: floor, baseline, info, unchanged or changed. task: a task (dict) or a function of the
    task's index. reset: the simulator config for the run. ref: the baseline rows whose overhead
    (minus the floor) adds up to what a user would pay with uri for the same requests."""

    def __init__(self, name, kind, task, module=None, reset=None, ref=('uri GET',), expect=None):
        self.name, self.kind, self.module = name, kind, module
        self.task = task if callable(task) else (lambda index, task=task: task)
        self.reset = dict(transition_delay=0, **(reset or {}))
        self.ref = ref
        self.expect = expect or {}


def cases():
    """The floor, the uri baselines, and every module of tests/simulator/catalog.py: an info module's
    read, a writer's unchanged case and its changed case (the catalog's toggle, alternating)."""
    rows = [Case('ping', 'floor', {'ansible.builtin.ping': {}}, ref=()),
            Case('uri GET', 'baseline', uri_task('GET', SERVICE_PATH), ref=()),
            Case('uri PATCH', 'baseline', lambda i: uri_task('PATCH', SERVICE_PATH, dict(name='bench %s' % 'ab'[i % 2])), ref=())]
    for module in catalog.MODULES:
        method = module.read[0]
        if module.write is None:
            rows.append(Case(module.name, 'info', mod(module.name, **module.args), module.name, ref=(BASELINE[method],),
                             expect={method: 1}))
            continue
        rows.append(Case(module.name + ' unchanged', 'unchanged', mod(module.name, **module.unchanged), module.name,
                         expect={method: 1}))
        rows.append(Case(module.name + ' changed', 'changed', alternate(*[mod(module.name, **args) for args in module.toggle]),
                         module.name, ref=('uri GET', 'uri PATCH'), expect={method: 1 + WRITE_READS.get(module.name, 0), module.write[0]: 1}))
    after_infos = len([row for row in rows if row.kind not in ('unchanged', 'changed')])
    rows.insert(after_infos, Case('uri POST series', 'baseline', uri_task('POST', '/api/v2/charts/series', dict(
        series=[dict(sourceId=SOURCE_METRICS, aggFn='count', where='level:error', groupBy=[])],
        startTime=SCALE_START_MS, endTime=SCALE_START_MS + 3600 * 1000, granularity='1m'), obs=True), ref=()))
    return rows


# Machine ------------------------------------------------------------------------------------------

def machine():
    model = 'unknown'
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as handle:
            for line in handle:
                if line.startswith('model name'):
                    model = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    memory = ''
    try:
        with open('/proc/meminfo', encoding='utf-8') as handle:
            memory = '%.1f GiB' % (int(handle.readline().split()[1]) / 1024 / 1024)
    except (OSError, ValueError, IndexError):
        pass
    from ansible.release import __version__ as ansible_version  # pylint: disable=import-outside-toplevel
    try:
        commit = subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True,
                                check=False).stdout.strip()
        dirty = subprocess.run(['git', '-C', ROOT, 'status', '--porcelain', '--', 'plugins'], capture_output=True, text=True,
                               check=False).stdout.strip()
    except OSError:
        commit, dirty = 'unknown', ''
    return dict(cpu=model, cores=os.cpu_count(), memory=memory, load=os.getloadavg(), platform=platform.platform(),
                python=platform.python_version(), ansible=ansible_version, commit=commit + (' + uncommitted plugins/' if dirty else ''),
                date=datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'))


# Running a play -----------------------------------------------------------------------------------

WRAPPER = '''#!%(python)s -S
# Runs the real interpreter as a child and records its own peak RSS (os.wait4) and wall time.
import json, os, sys, time
start = time.time()
pid = os.fork()
if pid == 0:
    os.execv(%(python)r, [%(python)r] + sys.argv[1:])
dummy, status, usage = os.wait4(pid, 0)
with open(%(log)r, 'a') as handle:
    handle.write(json.dumps(dict(argv=sys.argv[1:], maxrss_kb=usage.ru_maxrss, wall=time.time() - start,
                                 user=usage.ru_utime, sys=usage.ru_stime, start=start)) + '\\n')
sys.exit(os.waitstatus_to_exitcode(status))
'''


class Runner:
    def __init__(self, work, sim):
        self.work, self.sim = work, sim
        self.python = sys.executable
        self.memlog = os.path.join(work, 'memory.jsonl')
        self.last_cpu = 0.0
        self.wrapper = os.path.join(work, 'python-rusage')
        with open(self.wrapper, 'w', encoding='utf-8') as handle:
            handle.write(WRAPPER % dict(python=self.python, log=self.memlog))
        os.chmod(self.wrapper, 0o755)
        self.env = dict(os.environ)
        for name in list(self.env):
            if name.startswith('ANSIBLE_'):
                del self.env[name]
        self.env.update(
            ANSIBLE_COLLECTIONS_PATH=work, ANSIBLE_HOME=os.path.join(work, 'ansible-home'),
            ANSIBLE_LOCAL_TEMP=os.path.join(work, 'ansible-tmp'), ANSIBLE_STDOUT_CALLBACK='bench_timer',
            ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, 'callback_plugins'), ANSIBLE_RETRY_FILES_ENABLED='false',
            ANSIBLE_NOCOLOR='1', ANSIBLE_HOST_KEY_CHECKING='false', ANSIBLE_COLLECTIONS_ON_ANSIBLE_VERSION_MISMATCH='ignore')
        # The pacer runs on every request as it does for users, in a private directory and with a
        # limit this simulator (rate limit off) never comes near, so no case waits for a slot:
        # the tables show the pacer's cost, not the live limit. ENGINE_*_RATE_LIMIT=off from the
        # caller's environment measures without it (bench/NOTES.md, "Request pacing").
        self.env.setdefault('ENGINE_CLOUD_RATE_LIMIT', BENCH_RATE_LIMIT)
        self.env.setdefault('ENGINE_OBSERVABILITY_RATE_LIMIT', BENCH_RATE_LIMIT)
        self.env['ENGINE_CLOUD_PACING_DIR'] = os.path.join(work, 'pacing')
        self.env['PATH'] = os.path.dirname(self.python) + os.pathsep + self.env.get('PATH', '')
        self.playbook_bin = os.path.join(os.path.dirname(self.python), 'ansible-playbook')

    def play(self, tasks, interpreter=None, label='bench'):
        """Run one play; return (per-task records, the request log of the run)."""
        play = [dict(
            name='Bench ' + label, hosts='localhost', gather_facts=False,
            vars=dict(sim_url=self.sim.url),
            module_defaults={
                'group/engine.cloud.cloud': cloud_connection(self.sim.url),
                'group/engine.cloud.observability': observability_connection(self.sim.url)},
            tasks=[dict(name='Task %d' % index, **task) for index, task in enumerate(tasks)])]
        playbook = os.path.join(self.work, 'play.yml')
        with open(playbook, 'w', encoding='utf-8') as handle:
            json.dump(play, handle, indent=1)
        inventory = os.path.join(self.work, 'inventory.ini')
        with open(inventory, 'w', encoding='utf-8') as handle:
            handle.write('localhost ansible_connection=local ansible_python_interpreter=%s\n' % (interpreter or self.python))
        result = os.path.join(self.work, 'result.json')
        if os.path.exists(result):
            os.remove(result)
        self.sim.admin('DELETE', '/requests')
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([self.playbook_bin, '-i', inventory, playbook], cwd=self.work, env=dict(self.env, BENCH_RESULT=result),
                              capture_output=True, text=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.last_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        log = self.sim.requests()
        if not os.path.exists(result):
            raise RuntimeError('%s: ansible-playbook exited %d without a result:\n%s%s'
                               % (label, proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:]))
        with open(result, encoding='utf-8') as handle:
            records = json.load(handle)['tasks']
        failed = [record for record in records if record.get('status') != 'ok']
        if failed or proc.returncode:
            raise RuntimeError('%s: %d task(s) failed; first: %s' % (label, len(failed), failed[0].get('msg') if failed else proc.stderr[-2000:]))
        return records, log

    def run_case(self, case, n, interpreter=None):
        self.sim.admin('POST', '/reset', case.reset)
        records, log = self.play([case.task(index) for index in range(n)], interpreter, case.name)
        durations = [record['end'] - record['start'] for record in records]
        methods = {}
        for entry in log:
            methods[entry['method']] = methods.get(entry['method'], 0) + 1
        return dict(task=statistics.median(durations), mean=statistics.fmean(durations), methods=methods, n=n, cpu=self.last_cpu / n,
                    changed=sum(record['changed'] for record in records))

    def memory(self, case, n):
        if os.path.exists(self.memlog):
            os.remove(self.memlog)
        self.run_case(case, n, interpreter=self.wrapper)
        with open(self.memlog, encoding='utf-8') as handle:
            rows = [json.loads(line) for line in handle]
        modules = [row for row in rows if any('AnsiballZ_' in arg for arg in row['argv'])]
        return dict(maxrss_mb=statistics.median(row['maxrss_kb'] for row in modules) / 1024,
                    wall=statistics.median(row['wall'] for row in modules),
                    cpu=statistics.median(row['user'] + row['sys'] for row in modules), processes=len(modules))


# Benchmarks ---------------------------------------------------------------------------------------

def available(case, collection):
    return case.module is None or os.path.exists(os.path.join(collection, 'plugins', 'modules', case.module + '.py'))


def per_task(runner, selected, n, repeats, progress):
    samples = dict((case.name, []) for case in selected)
    for round_index in range(repeats):
        order = list(selected)
        random.Random(round_index).shuffle(order)
        for case in order:
            started = time.time()
            samples[case.name].append(runner.run_case(case, n))
            progress('round %d/%d %-28s %6.0f ms/task (%.0f s)'
                     % (round_index + 1, repeats, case.name, samples[case.name][-1]['task'] * 1000, time.time() - started))
    return samples


def summarize(selected, samples, memory):
    rows = dict()
    for case in selected:
        runs = samples[case.name]
        methods = {}
        for run in runs:
            for method, count in run['methods'].items():
                methods[method] = methods.get(method, 0) + count
        total = sum(run['n'] for run in runs)
        rows[case.name] = dict(
            case=case, task=statistics.median(run['task'] for run in runs), cpu=statistics.median(run['cpu'] for run in runs),
            spread=(min(run['task'] for run in runs), max(run['task'] for run in runs)),
            requests=dict((method, count / total) for method, count in sorted(methods.items())),
            changed=sum(run['changed'] for run in runs) / total, memory=memory.get(case.name))
    floor, cpu_floor = rows['ping']['task'], rows['ping']['cpu']
    for row in rows.values():
        case = row['case']
        if not case.ref or not all(name in rows for name in case.ref):
            row['ratio'] = row['overhead_ratio'] = row['cpu_ratio'] = None
            continue
        reference = sum(rows[name]['task'] - floor for name in case.ref)
        row['ratio'] = row['task'] / (rows[case.ref[0]]['task'] + sum(rows[name]['task'] - floor for name in case.ref[1:]))
        row['overhead_ratio'] = (row['task'] - floor) / reference if reference > 0 else None
        cpu_reference = sum(rows[name]['cpu'] - cpu_floor for name in case.ref)
        row['cpu_ratio'] = (row['cpu'] - cpu_floor) / cpu_reference if cpu_reference > 0 else None
        row['requests_ok'] = all(abs(row['requests'].get(method, 0) - count) < 1e-9 for method, count in case.expect.items()) and \
            sum(row['requests'].values()) == sum(case.expect.values())
    return rows


def polling(runner, delays, progress):
    results = []
    for delay in delays:
        runner.sim.admin('POST', '/reset', dict(transition_delay=delay))
        records, log = runner.play([mod('service_state', service_id=SERVICE_PROD, state='stopped', wait=True, wait_timeout=max(900, delay * 3))],
                                   label='polling %s s' % delay)
        write = next(entry for entry in log if entry['method'] == 'PATCH')
        write_at = parse_time(write['time'])
        polls = [entry for entry in log if entry['method'] == 'GET' and entry['seq'] > write['seq']]
        transition_end = write_at + delay
        late = records[0]['end'] - transition_end
        budget = 2 + math.log2(delay) + delay / 10.0
        results.append(dict(delay=delay, polls=len(polls), budget=budget, late=late, requests=len(log),
                            last_poll_after_end=parse_time(polls[-1]['time']) - transition_end if polls else None,
                            task=records[0]['end'] - records[0]['start']))
        progress('polling %4d s: %d polls, task ended %.1f s after the transition' % (delay, len(polls), late))
    return results


def parse_time(text):
    return datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=datetime.timezone.utc).timestamp()


def scale(runner, repeats, progress):
    series = [dict(source_id=SOURCE_METRICS, agg_fn=agg, where='level:error', group_by=[], **({} if agg == 'count' else dict(field='duration_ms')))
              for agg in ('count', 'avg', 'p95', 'max', 'sum')]
    chart = Case('chart_series 5 x 10 000 buckets', 'scale', mod(
        'chart_series', series=series, start_time=SCALE_START_MS, end_time=SCALE_START_MS + 10000 * 60 * 1000, granularity='1m'),
        'chart_series', expect=dict(POST=1))
    alerts = Case('alert_info 5 000 alerts', 'scale', mod('alert_info'), 'alert_info', reset=dict(alert_count=5000))
    results = []
    for case in (chart, alerts):
        runs = [runner.run_case(case, 1) for dummy in range(repeats)]
        memory = [runner.memory(case, 1) for dummy in range(repeats)]
        results.append(dict(name=case.name, task=statistics.median(run['task'] for run in runs),
                            module=statistics.median(run['wall'] for run in memory),
                            module_cpu=statistics.median(run['cpu'] for run in memory),
                            maxrss_mb=statistics.median(run['maxrss_mb'] for run in memory),
                            requests=sum(runs[0]['methods'].values()), methods=runs[0]['methods']))
        progress('scale %s: task %.2f s, module %.2f s (CPU %.2f s), %.0f MB, %d requests' % (
            case.name, results[-1]['task'], results[-1]['module'], results[-1]['module_cpu'], results[-1]['maxrss_mb'],
            results[-1]['requests']))
    return results


# Report -------------------------------------------------------------------------------------------

def fmt(value, pattern='%.2f'):
    return '-' if value is None else pattern % value


def requests_text(requests):
    if not requests:
        return '0'
    return ' + '.join('%s %s' % (('%g' % count), method) for method, count in requests.items())


def report(info, args, rows, polls, scales, notes):
    lines = []
    out = lines.append
    out('# Performance')
    out('')
    out('Written by `make bench` (`bench/bench.py`); do not edit by hand: the notes at the end come from `bench/NOTES.md`.')
    out('')
    out('## Machine')
    out('')
    out('| | |')
    out('|---|---|')
    out('| date | %s |' % info['date'])
    out('| CPU | %s, %s cores |' % (info['cpu'], info['cores']))
    out('| memory | %s |' % info['memory'])
    out('| load average at start | %s |' % ' / '.join('%.2f' % value for value in info['load']))
    out('| load average at end | %s |' % ' / '.join('%.2f' % value for value in os.getloadavg()))
    out('| platform | %s |' % info['platform'])
    out('| Python / ansible-core | %s / %s |' % (info['python'], info['ansible']))
    out('| collection commit | %s |' % info['commit'])
    out('| command | `%s` |' % args.command)
    out('')
    if rows:
        out('## Per-task cost')
        out('')
        out('N = %d tasks per play, %d rounds, cases interleaved in a different order every round. '
            '`ms/task`: median over the rounds of each run\'s median task wall time (task start to result, '
            'fork, module transfer and interpreter start included); `range`: the fastest and slowest round. '
            '`peak MB`: ru_maxrss of the module process (separate pass, %d tasks, median). `requests/task`: '
            'from the simulator\'s request log. `x uri`: ms/task divided by what uri costs for the same requests; '
            '`overhead x uri`: (module - ping) / (uri - ping), where for a changed case the uri side is the sum of '
            'the overheads of `uri GET` and `uri PATCH` (one task each, the same two requests). The target is '
            '`overhead x uri` <= 1.00. '
            '`CPU ms/task`: user + system CPU time of the whole run (controller, workers, module processes) divided by N, '
            'median over the rounds; it includes ansible-playbook\'s own start-up spread over N tasks, which cancels out in '
            '`CPU overhead x uri` (the same ratio as `overhead x uri`, on CPU time): on a busy machine wall times swing with '
            'the neighbours\' load, CPU time much less. `module ms`: wall and CPU time of the module process alone '
            '(memory pass).' % (args.n, args.repeats, args.memory_n))
        out('')
        out('| case | kind | ms/task | range | x uri | overhead x uri | CPU ms/task | CPU overhead x uri | module ms wall / CPU '
            '| peak MB | requests/task | changed |')
        out('|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|')
        for name, row in rows.items():
            memory = row['memory']
            flag = '' if row['case'].expect == {} or row.get('requests_ok', True) else ' (expected %s)' % requests_text(row['case'].expect)
            out('| %s | %s | %.0f | %.0f-%.0f | %s | %s | %.0f | %s | %s | %s | %s%s | %d%% |' % (
                name, row['case'].kind, row['task'] * 1000, row['spread'][0] * 1000, row['spread'][1] * 1000,
                fmt(row['ratio']), fmt(row['overhead_ratio']), row['cpu'] * 1000, fmt(row['cpu_ratio']),
                '%.0f / %.0f' % (memory['wall'] * 1000, memory['cpu'] * 1000) if memory else '-',
                fmt(memory and memory['maxrss_mb'], '%.1f'), requests_text(row['requests']), flag, round(row['changed'] * 100)))
        out('')
    if polls:
        out('## Polling cost (service_state stopped, wait: true)')
        out('')
        out('`late`: seconds from the end of the simulated transition (the PATCH\'s arrival + the delay) to the task\'s result. '
            'Targets: late <= 10 s, polls <= 2 + log2(T) + T/10.')
        out('')
        out('| transition T | polls | budget | late (s) | task (s) | requests |')
        out('|---:|---:|---:|---:|---:|---:|')
        for poll in polls:
            out('| %d s | %d | %.1f | %.1f | %.1f | %d |'
                % (poll['delay'], poll['polls'], poll['budget'], poll['late'], poll['task'], poll['requests']))
        out('')
    if scales:
        out('## Scale')
        out('')
        out('`task`: the task\'s wall time (controller included: the result travels back as JSON); `module`: wall time of the '
            'module process alone (it includes waiting for the simulator to compute the answer); `module CPU`: its user + system '
            'CPU time; `peak MB`: its ru_maxrss. Median of %d runs. Targets for chart_series: module < 2 s, < 150 MB.'
            % args.scale_repeats)
        out('')
        out('| case | task (s) | module (s) | module CPU (s) | peak MB | requests |')
        out('|---|---:|---:|---:|---:|---|')
        for item in scales:
            out('| %s | %.2f | %.2f | %.2f | %.1f | %s |'
                % (item['name'], item['task'], item['module'], item['module_cpu'], item['maxrss_mb'], requests_text(item['methods'])))
        out('')
    if notes:
        out(notes.rstrip())
        out('')
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=40, help='tasks per play (default 40)')
    parser.add_argument('--repeats', type=int, default=5, help='rounds of every case (default 5)')
    parser.add_argument('--memory-n', type=int, default=5, help='tasks per play in the memory pass (default 5)')
    parser.add_argument('--only', help='comma-separated case names or module names (ping and uri are always run)')
    parser.add_argument('--polling', default='5,30,120', help='transition delays in seconds for the polling cost; "" skips it')
    parser.add_argument('--no-scale', dest='scale', action='store_false', help='skip the scale runs')
    parser.add_argument('--no-tasks', dest='tasks', action='store_false', help='skip the per-task table')
    parser.add_argument('--scale-repeats', type=int, default=3)
    parser.add_argument('--output', default=os.path.join(ROOT, 'docs', 'performance.md'), help='"" prints only')
    parser.add_argument('--keep', action='store_true', help='keep the work directory')
    args = parser.parse_args(argv)
    args.command = ' '.join(['bench/bench.py'] + (argv if argv is not None else sys.argv[1:])) if (argv or sys.argv[1:]) else 'make bench'

    # A stopped run still stops its simulator and removes its work directory.
    signal.signal(signal.SIGTERM, lambda *dummy: sys.exit(143))
    info = machine()

    def progress(text):
        print('bench: ' + text, flush=True)

    progress('%s, %s cores, load %s, Python %s, ansible-core %s' % (info['cpu'], info['cores'],
                                                                    ' '.join('%.2f' % v for v in info['load']), info['python'], info['ansible']))
    work = tempfile.mkdtemp(prefix='engine-cloud-bench.')
    collection = os.path.join(work, 'ansible_collections', 'engine', 'cloud')
    subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT, collection], check=True,
                   stdout=subprocess.DEVNULL)
    try:
        sim = SimulatorProcess(work, root=collection).start()
    except RuntimeError as error:
        raise SystemExit('bench: %s' % error)
    failures = []
    try:
        runner = Runner(work, sim)
        all_cases = cases()
        wanted = set(args.only.split(',')) if args.only else None
        selected = [case for case in all_cases if available(case, collection) and (
            wanted is None or case.kind in ('floor', 'baseline') or case.name in wanted or case.module in wanted)]
        for case in selected:  # a broken case fails here, before minutes of runs
            [case.task(index) for index in range(args.n)]  # pylint: disable=expression-not-assigned
        missing = sorted(set(case.module for case in all_cases if case.module and not available(case, collection)))
        if missing:
            progress('not yet in plugins/modules (skipped): ' + ', '.join(missing))
        rows, polls, scales = {}, [], []
        if args.tasks:
            samples = per_task(runner, selected, args.n, args.repeats, progress)
            memory = {}
            for case in selected:
                memory[case.name] = runner.memory(case, args.memory_n)
                progress('memory %-28s %.1f MB' % (case.name, memory[case.name]['maxrss_mb']))
            rows = summarize(selected, samples, memory)
        delays = [int(value) for value in args.polling.split(',') if value.strip()]
        if delays and available(Case('x', 'x', {}, 'service_state'), collection):
            polls = polling(runner, delays, progress)
        if args.scale and available(Case('x', 'x', {}, 'chart_series'), collection) and available(Case('x', 'x', {}, 'alert_info'), collection):
            scales = scale(runner, args.scale_repeats, progress)
    except RuntimeError as error:
        failures.append(str(error))
        print('bench: FAILED: %s' % error, file=sys.stderr)
    finally:
        sim.stop()
        if args.keep:
            progress('work directory kept: ' + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if failures:
        return 1
    notes = ''
    notes_path = os.path.join(HERE, 'NOTES.md')
    if os.path.exists(notes_path):
        with open(notes_path, encoding='utf-8') as handle:
            notes = handle.read()
    text = report(info, args, rows, polls, scales, notes)
    print(text)
    if args.output:
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
        with open(args.output, 'w', encoding='utf-8') as handle:
            handle.write(text + '\n')
        progress('written to ' + os.path.relpath(args.output, ROOT))
    return 0


if __name__ == '__main__':
    sys.exit(main())
