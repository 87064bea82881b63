# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How many processes want a CPU while a command runs: the run queue, sampled.

    python bench/run_queue.py [--interval 0.25] -- make test

Reads procs_running of /proc/stat (the machine's runnable tasks, less this sampler) every
--interval seconds while the command runs, then prints the mean, the share of the samples with no
more runnable tasks than CPUs, and the distribution. The count is the whole machine's: on a machine
where nothing else runs, it is the command's own demand. make test's lanes are set from it
(CONTRIBUTING.md, and bench/contention.py for what a queue costs). Exits with the command's status.
"""

import argparse
import collections
import os
import subprocess
import sys
import time


def runnable():
    with open('/proc/stat') as stat:
        for line in stat:
            if line.startswith('procs_running '):
                return int(line.split()[1]) - 1
    raise RuntimeError('no procs_running in /proc/stat')


def report(samples, elapsed):
    count = sum(samples.values())
    cpus = os.cpu_count()
    mean = sum(value * times for value, times in samples.items()) / count
    within = sum(times for value, times in samples.items() if value <= cpus)
    print('run queue: %d samples over %.0f s; mean %.2f runnable on %d CPUs; %.0f %% of samples at %d or fewer'
          % (count, elapsed, mean, cpus, 100.0 * within / count, cpus))
    for value in sorted(samples):
        print('%4d %6d %s' % (value, samples[value], '#' * round(60.0 * samples[value] / count)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--interval', type=float, default=0.25)
    parser.add_argument('command', nargs='+')
    args = parser.parse_args()
    samples = collections.Counter()
    begin = time.monotonic()
    process = subprocess.Popen(args.command)
    while process.poll() is None:
        samples[runnable()] += 1
        time.sleep(args.interval)
    if samples:
        report(samples, time.monotonic() - begin)
    sys.exit(process.returncode)


if __name__ == '__main__':
    main()
