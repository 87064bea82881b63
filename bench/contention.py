# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a process costs in CPU time when more processes want a CPU than there are CPUs.

    python bench/contention.py [--rounds 3] [--runs 20] [--copies 1,2,4,8] [-- COMMAND ...]

For each number of --copies, starts that many loops at once, each running COMMAND --runs times
(default: an interpreter that imports ansible.module_utils.basic, the floor of every module
process), and prints the CPU time per run (user + system of every loop and its children, from
wait4) and the wall time. The rounds are interleaved, so that a drift in the machine's speed
touches every column alike; each figure is the median of the rounds, with their range.

On 2 cores, copies beyond 2 only queue for a CPU, yet each run takes more CPU time: the processes
evict each other from the CPU's caches at every switch. That is why make test runs its stages in
few lanes (CONTRIBUTING.md). It prints figures and never fails because a machine is slow.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

DEFAULT_COMMAND = [sys.executable, '-c', 'import ansible.module_utils.basic']


def loop(runs, command):
    for dummy in range(runs):
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)


def measure(copies, runs, command):
    """CPU-ms per run and wall seconds of `copies` loops running at once."""
    begin = time.monotonic()
    loops = [subprocess.Popen([sys.executable, __file__, '--loop', str(runs), '--'] + command) for dummy in range(copies)]
    cpu = 0.0
    for process in loops:
        # wait4, not wait: its rusage is the loop's CPU and its runs'. The Popen objects are kept so
        # that subprocess never reaps a loop itself before this wait4 does.
        dummy, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            raise SystemExit('contention: the command failed: %s' % ' '.join(command))
        cpu += usage.ru_utime + usage.ru_stime
    return 1000.0 * cpu / (copies * runs), time.monotonic() - begin


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--runs', type=int, default=20, help='runs of the command in each loop')
    parser.add_argument('--copies', default='1,2,4,8', help='numbers of loops at once, comma-separated')
    parser.add_argument('--loop', type=int, help=argparse.SUPPRESS)
    parser.add_argument('command', nargs='*', help='the command to run (default: import ansible.module_utils.basic)')
    args = parser.parse_args()
    command = args.command or DEFAULT_COMMAND
    if args.loop is not None:
        loop(args.loop, command)
        return
    copies = [int(value) for value in args.copies.split(',')]
    figures = dict((count, []) for count in copies)
    for dummy in range(args.rounds):
        for count in copies:
            figures[count].append(measure(count, args.runs, command))
    print('command: %s; %d CPUs; %d runs a loop, %d rounds' % (' '.join(command), os.cpu_count(), args.runs, args.rounds))
    print('%8s %16s %16s %10s' % ('copies', 'CPU ms a run', 'range', 'wall s'))
    for count in copies:
        cpu = [value[0] for value in figures[count]]
        wall = [value[1] for value in figures[count]]
        print('%8d %16.1f %16s %10.1f' % (count, statistics.median(cpu), '%.0f-%.0f' % (min(cpu), max(cpu)), statistics.median(wall)))


if __name__ == '__main__':
    main()
