# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What request pacing costs: the collection's pacer (plugins/module_utils/pacing.py) next to
pyrate-limiter with its SQLite bucket behind a file lock, the candidate library of issue 13.

    python bench/pacer.py [--pyrate-site DIR] [--rounds 9] [--acquires 2000] [--processes 4]

--pyrate-site is the site-packages directory of a throwaway virtualenv that has pyrate-limiter and
filelock (python -m venv /tmp/pyrate && /tmp/pyrate/bin/pip install pyrate-limiter filelock); the
collection never depends on it. Without it only the collection's pacer is measured.

Every figure is the median over --rounds fresh interpreters, as CPU time (time.process_time: user +
system of that process, the robust figure on a shared machine) and wall time:

- import: the pacer's import, after what a module process has already imported (ansible's
  module_utils.basic, json, hashlib, ...);
- module start: what one module process pays besides the import: making the pacer (the private
  directory's checks) and its first two requests' acquires (a read and a write);
- per acquire: one acquire in a long run of one process, with a limit never near;
- contended: --processes processes acquiring at once on one state file, per acquire.

It prints figures and never fails because a machine is slow.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# A limit the measurement never comes near, over a window so short that the state holds only the
# last few sends: the cost of an acquire when no limit is near (the live limits keep at most 10 or
# 100 sends in the state; --full measures the acquire with 99 of them).
NEVER_NEAR, SHORT_WINDOW = 10 ** 6, 0.001
PRELOADED = 'import ansible.module_utils.basic, json, hashlib, os, re, stat, tempfile, fcntl, errno, collections, contextlib'


# What runs inside the fresh interpreters ---------------------------------------------------------

def ours_import():
    from ansible_collections.engine.cloud.plugins.module_utils import pacing  # noqa: F401 pylint: disable=unused-import,import-outside-toplevel


def ours_make(directory):
    from ansible_collections.engine.cloud.plugins.module_utils import pacing, store  # pylint: disable=import-outside-toplevel
    os.environ[store.DIRECTORY_ENV] = directory
    made = pacing.shared_pacer((NEVER_NEAR, SHORT_WINDOW), 'https://api.engine.example', 'bench-key-id', warn=print)
    made.span = SHORT_WINDOW  # no margin: a margin would keep 0.5 s of sends in the state
    return lambda: made.answered(made.acquire())  # a request: its slot, then its answer


def pyrate_import():
    import pyrate_limiter  # noqa: F401 pylint: disable=unused-import,import-outside-toplevel,import-error
    import filelock  # noqa: F401 pylint: disable=unused-import,import-outside-toplevel,import-error


def pyrate_make(directory):
    from pyrate_limiter import Duration, limiter_factory  # pylint: disable=import-outside-toplevel,import-error
    limiter = limiter_factory.create_sqlite_limiter(rate_per_duration=NEVER_NEAR, duration=int(SHORT_WINDOW * Duration.SECOND.value),
                                                    db_path=os.path.join(directory, 'bucket.sqlite'), use_file_lock=True)
    return lambda: limiter.try_acquire('bench-key-id')


def full_state_acquires(directory, acquires):
    """CPU and wall time of `acquires` acquires, each on a state that holds 99 sends of the last
    minute (the observability API's 100 / 60 s one send short of a wait)."""
    from ansible_collections.engine.cloud.plugins.module_utils import pacing  # pylint: disable=import-outside-toplevel
    made = pacing.Pacer(os.path.join(directory, 'full.json'), 100, 60, warn=print)
    cpu = wall = 0.0
    for dummy in range(acquires):
        now = time.monotonic()  # the pacer's clock
        with os.fdopen(os.open(made.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'w') as handle:  # private, as the pacer wants
            json.dump(dict(sends=[now - 50 + index * 0.5 for index in range(99)], hold=0.0), handle)
        start = clocks()
        made.answered(made.acquire())
        spent = since(start)
        cpu, wall = cpu + spent['cpu'], wall + spent['wall']
    return dict(cpu=cpu, wall=wall)


IMPLEMENTATIONS = dict(ours=(ours_import, ours_make), pyrate=(pyrate_import, pyrate_make))


def clocks():
    return time.process_time(), time.perf_counter()


def since(start):
    cpu, wall = clocks()
    return dict(cpu=cpu - start[0], wall=wall - start[1])


def worker(kind, what, directory, acquires, start_at):
    """One measurement in this fresh interpreter; prints it as JSON."""
    do_import, make = IMPLEMENTATIONS[kind]
    start = clocks()
    do_import()
    result = dict(imported=since(start))
    start = clocks()
    acquire = make(directory)
    acquire()
    acquire()
    result['module_start'] = since(start)
    if what == 'full':
        result['run'] = full_state_acquires(directory, acquires)
    if what == 'run':
        while time.time() < start_at:
            time.sleep(0.001)
        start = clocks()
        for dummy in range(acquires):
            acquire()
        result['run'] = since(start)
    print(json.dumps(result))


# The driver --------------------------------------------------------------------------------------

def spawn(kind, what, directory, acquires, env, start_at=0.0):
    code = '%s\nimport sys\nsys.path.insert(0, %r)\nimport pacer as bench\nbench.worker(%r, %r, %r, %d, %r)' % (
        PRELOADED, HERE, kind, what, directory, acquires, start_at)
    return subprocess.Popen([sys.executable, '-c', code], env=env, stdout=subprocess.PIPE, text=True)


def collect(process):
    out, dummy = process.communicate()
    if process.returncode:
        raise SystemExit('bench/pacer.py: a worker failed (exit %d)' % process.returncode)
    return json.loads(out.strip().splitlines()[-1])


def measure(kind, args, env, work):
    """Medians in milliseconds (per acquire in microseconds) of every figure, over args.rounds."""
    samples = dict(imported=[], module_start=[], run=[], contended=[], full=[])
    for index in range(args.rounds):
        directory = tempfile.mkdtemp(prefix='%s-%d-' % (kind, index), dir=work)
        fresh = collect(spawn(kind, 'start', directory, 0, env))
        samples['imported'].append(fresh['imported'])
        samples['module_start'].append(fresh['module_start'])
        samples['run'].append(collect(spawn(kind, 'run', directory, args.acquires, env))['run'])
        if kind == 'ours':
            samples['full'].append(collect(spawn(kind, 'full', directory, args.acquires, env))['run'])
        start_at = time.time() + 2.0  # every process imported and ready before the first acquire
        together = [spawn(kind, 'run', directory, args.acquires, env, start_at) for dummy in range(args.processes)]
        runs = [collect(process)['run'] for process in together]
        samples['contended'].append(dict(cpu=sum(run['cpu'] for run in runs), wall=max(run['wall'] for run in runs)))

    def median(name, field, scale):
        return statistics.median(sample[field] for sample in samples[name]) * scale if samples[name] else None

    per_acquire = 1e6 / args.acquires
    return dict(
        import_cpu=median('imported', 'cpu', 1e3), import_wall=median('imported', 'wall', 1e3),
        start_cpu=median('module_start', 'cpu', 1e3), start_wall=median('module_start', 'wall', 1e3),
        acquire_cpu=median('run', 'cpu', per_acquire), acquire_wall=median('run', 'wall', per_acquire),
        full_cpu=median('full', 'cpu', per_acquire), full_wall=median('full', 'wall', per_acquire),
        contended_cpu=median('contended', 'cpu', per_acquire / args.processes),
        contended_wall=median('contended', 'wall', per_acquire / args.processes))


def layout(work):
    collections = os.path.join(work, 'collections')
    subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), '--src', ROOT,
                    os.path.join(collections, 'ansible_collections', 'engine', 'cloud')], check=True, stdout=subprocess.DEVNULL)
    return collections


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--pyrate-site', help='site-packages of a throwaway venv with pyrate-limiter and filelock')
    parser.add_argument('--rounds', type=int, default=9)
    parser.add_argument('--acquires', type=int, default=2000, help='acquires per process in the per-acquire runs')
    parser.add_argument('--processes', type=int, default=4, help='processes of the contended run')
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix='engine-cloud-bench-pacer.')
    path = [layout(work)] + ([args.pyrate_site] if args.pyrate_site else []) + [os.environ.get('PYTHONPATH', '')]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(part for part in path if part))
    kinds = ['ours'] + (['pyrate'] if args.pyrate_site else [])
    print('bench/pacer.py: load average %s, %d rounds, %d acquires per run, %d processes contended'
          % (' / '.join('%.2f' % value for value in os.getloadavg()), args.rounds, args.acquires, args.processes), flush=True)
    results = dict((kind, measure(kind, args, env, work)) for kind in kinds)
    names = dict(ours='engine.cloud pacer (fcntl + JSON file)', pyrate='pyrate-limiter SQLite bucket + filelock')
    print('| | import ms CPU / wall | module start ms CPU / wall | per acquire us CPU / wall | '
          '%d processes, per acquire us CPU / wall | per acquire, 99 sends in the state, us CPU / wall |' % args.processes)
    print('|---|---:|---:|---:|---:|---:|')
    for kind in kinds:
        row = results[kind]
        full = '%.0f / %.0f' % (row['full_cpu'], row['full_wall']) if row['full_cpu'] is not None else '-'
        print('| %s | %.1f / %.1f | %.2f / %.2f | %.0f / %.0f | %.0f / %.0f | %s |' % (
            names[kind], row['import_cpu'], row['import_wall'], row['start_cpu'], row['start_wall'],
            row['acquire_cpu'], row['acquire_wall'], row['contended_cpu'], row['contended_wall'], full))
    subprocess.run(['rm', '-rf', work], check=False)
    return 0


if __name__ == '__main__':
    sys.exit(main())
