"""Where a command's CPU time goes, process by process (the kernel's process accounting, acct(2)).

    sudo python3 scripts/cpu_profile.py [--top N] [--json FILE] -- make units VENV=/work/main/.venv [:: make lint ...]

Several commands, separated by `::`, run side by side and get a table each (acct(2) has one file
for the whole machine, so two profiles cannot run at once; one profile of several commands can).

Runs the command with process accounting on and prints, for the command's own process tree (other
users' processes on the machine are left out: CPU-seconds do not depend on the load, wall time
does), the CPU-seconds and the number of processes of each kind: a kind is the process's name
(`comm`: the interpreter or the script run) with, for a process that forked without exec (an
ansible-playbook worker), `(fork)`, and for an interpreter, the kind of process that started it
(`python3.11 < sh < ansible-playboo(fork)`: a module process). Needs root (acct(2)); the kernel
writes a record when a process ends, so the tree is built from the parent ids of the records.
Resolution: 1/100 s per process, and the kernel writes the record before it tears down the process's
memory: short processes (ansible-playbook's forked workers, the `sh` of a module task) count low in
the table (300 workers: 2.5 CPU-s in it, about 6 in rusage); the rusage total of the tree is exact.
"""

import argparse
import collections
import ctypes
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

RECORD = struct.Struct('<BBHIIIIIIfHHHHHHHH16s')  # struct acct_v3, linux/acct.h
AFORK = 0x01
TICKS = 100.0  # AHZ


def comp_t(value):
    """The kernel's 13-bit mantissa, 3-bit base-8 exponent."""
    return (value & 0x1fff) << (3 * (value >> 13))


def records(path):
    with open(path, 'rb') as handle:
        data = handle.read()
    for offset in range(0, len(data) - RECORD.size + 1, RECORD.size):
        fields = RECORD.unpack_from(data, offset)
        flag, dummy_version, dummy_tty, exitcode, dummy_uid, dummy_gid, pid, ppid, btime, etime, utime, stime = fields[:12]
        name = fields[-1].rstrip(b'\0').decode('utf-8', 'replace')
        yield dict(pid=pid, ppid=ppid, name=name + ('(fork)' if flag & AFORK else ''), btime=btime, etime=etime,
                   cpu=(comp_t(utime) + comp_t(stime)) / TICKS, exitcode=exitcode)


def descendants(entries, root, root_started):
    """The records of root's tree. Process ids are reused on a busy machine, so a record is a child of
    a process only if it started while that process lived (btime has a resolution of a second)."""
    children = collections.defaultdict(list)
    for entry in entries:
        children[entry['ppid']].append(entry)
    tree, todo, seen = [], [(root, root_started, float('inf'))], set()
    while todo:
        pid, born, died = todo.pop()
        for entry in children.get(pid, ()):
            key = (entry['pid'], entry['btime'])
            if key in seen or not born - 1 <= entry['btime'] <= died + 1:
                continue
            seen.add(key)
            tree.append(entry)
            todo.append((entry['pid'], entry['btime'], entry['btime'] + entry['etime'] / TICKS))
    return tree


def kind(entry, by_pid):
    name = entry['name']
    if name.startswith('python') or name in ('sh', 'bash'):
        parents, parent = [], by_pid.get(entry['ppid'])
        while parent is not None and len(parents) < 2:
            parents.append(parent['name'])
            if not (parent['name'] in ('sh', 'bash') or parent['name'].startswith('python')):
                break
            parent = by_pid.get(parent['ppid'])
        return ' < '.join([name] + parents)
    return name


def table_of(entries, root, root_started):
    tree = descendants(entries, root, root_started)
    by_pid = dict((entry['pid'], entry) for entry in tree)
    table = collections.defaultdict(lambda: [0, 0.0])
    for entry in tree:
        row = table[kind(entry, by_pid)]
        row[0] += 1
        row[1] += entry['cpu']
    return table


def print_table(command, table, rusage_cpu, top):
    print('cpu_profile: %s' % ' '.join(command))
    print('  %-60s %6s %8s' % ('process kind', 'count', 'CPU-s'))
    for name, (count, cpu) in sorted(table.items(), key=lambda item: -item[1][1])[:top]:
        print('  %-60s %6d %8.1f' % (name, count, cpu))
    count, cpu = sum(row[0] for row in table.values()), sum(row[1] for row in table.values())
    print('  %-60s %6d %8.1f   (rusage of the tree: %.1f)' % ('all', count, cpu, rusage_cpu))


def split_commands(words):
    commands, current = [], []
    for word in words:
        if word == '::':
            commands.append(current)
            current = []
        else:
            current.append(word)
    return [command for command in commands + [current] if command]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--top', type=int, default=25)
    parser.add_argument('--keep', action='store_true', help='keep the accounting file (its name is printed)')
    parser.add_argument('--json', help='write the per-kind tables as JSON here too')
    parser.add_argument('command', nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    commands = split_commands(args.command[1:] if args.command[:1] == ['--'] else args.command)
    libc = ctypes.CDLL(None, use_errno=True)
    fd, path = tempfile.mkstemp(prefix='cpu-profile.', suffix='.acct')
    os.close(fd)
    if libc.acct(path.encode()) != 0:
        sys.exit('cpu_profile: acct(2) failed (errno %d): run it as root' % ctypes.get_errno())
    try:
        started = int(time.time())
        processes = [subprocess.Popen(command) for command in commands]
        finished = dict((process.pid, os.wait4(process.pid, 0)[1:]) for process in processes)
    finally:
        libc.acct(None)
    entries = list(records(path))
    if args.keep:
        print('cpu_profile: accounting records kept in %s' % path)
    else:
        os.unlink(path)
    report, worst = [], 0
    for command, process in zip(commands, processes):
        status, usage = finished[process.pid]
        table = table_of(entries, process.pid, started)
        print_table(command, table, usage.ru_utime + usage.ru_stime, args.top)
        report.append(dict(command=command, rusage_cpu=usage.ru_utime + usage.ru_stime,
                           kinds=dict((k, dict(count=v[0], cpu=round(v[1], 2))) for k, v in table.items())))
        worst = worst or os.waitstatus_to_exitcode(status)
    if args.json:
        with open(args.json, 'w') as handle:
            json.dump(report, handle, indent=1, sort_keys=True)
    return worst


if __name__ == '__main__':
    sys.exit(main())
