"""Run `make` stages in lanes side by side and print a summary (what `make test` does).

    python scripts/stages.py --log-dir DIR [--only "lint units"] "integration" "reliability e2e" "sanity lint units"

Each argument is a lane: its stages run one after another, and the lanes run at the same time.
Every stage works in its own temporary copy with its own simulator, so lanes never share a port,
a directory or a file. A stage's output goes to DIR/<stage>.log; a progress line is printed when it
starts and when it ends, the whole log of a failed stage is printed at the end, then a summary with
each stage's result, wall time and CPU time (user and system, its processes included). Every stage
runs even when another fails; the exit status is 1 if any stage failed.
"""

import argparse
import os
import subprocess
import sys
import threading
import time


def run_lane(stages, log_dir, results, lock, started):
    for stage in stages:
        log_path = os.path.join(log_dir, stage + '.log')
        begin = time.monotonic()
        with lock:
            print('%6.0fs  %-16s started' % (begin - started, stage), flush=True)
        with open(log_path, 'w', encoding='utf-8') as log:
            process = subprocess.Popen(['make', '--no-print-directory', stage], stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
            # wait4, not wait: its rusage is the CPU of the stage and of every process it waited for.
            dummy, status, usage = os.wait4(process.pid, 0)
            process.returncode = code = os.waitstatus_to_exitcode(status)
        seconds, cpu = time.monotonic() - begin, usage.ru_utime + usage.ru_stime
        with lock:
            results[stage] = (code == 0, seconds, cpu, log_path)
            print('%6.0fs  %-16s %s in %.0f s (CPU %.0f s)' % (
                time.monotonic() - started, stage, 'ok' if code == 0 else 'FAILED', seconds, cpu), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--log-dir', required=True)
    parser.add_argument('--only', help='run only these stages (names separated by spaces); a stage in no lane gets a lane of its own')
    parser.add_argument('lanes', nargs='+', help='a lane: stage names separated by spaces')
    args = parser.parse_args(argv)
    os.makedirs(args.log_dir, exist_ok=True)
    lanes = [lane.split() for lane in args.lanes]
    if args.only is not None:
        wanted = args.only.split()
        lanes = [[stage for stage in lane if stage in wanted] for lane in lanes]
        placed = set(stage for lane in lanes for stage in lane)
        lanes += [[stage] for stage in wanted if stage not in placed]
    lanes = [lane for lane in lanes if lane]
    order = [stage for lane in lanes for stage in lane]
    results, lock, started = {}, threading.Lock(), time.monotonic()
    print('stages: %s' % ' | '.join(' '.join(lane) for lane in lanes), flush=True)
    threads = [threading.Thread(target=run_lane, args=(lane, args.log_dir, results, lock, started)) for lane in lanes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [stage for stage in order if not results[stage][0]]
    for stage in failed:
        print('==================== %s (FAILED): %s' % (stage, results[stage][3]))
        with open(results[stage][3], encoding='utf-8', errors='replace') as log:
            sys.stdout.write(log.read())
    print('==================== summary (logs in %s)' % args.log_dir)
    print('  %-16s %-7s %6s %6s' % ('stage', 'result', 'wall', 'CPU'))
    for stage in order:
        ok, seconds, cpu, dummy = results[stage]
        print('  %-16s %-7s %5.0fs %5.0fs' % (stage, 'ok' if ok else 'FAILED', seconds, cpu))
    print('  %-16s %-7s %5.0fs %5.0fs' % ('wall time', '', time.monotonic() - started,
                                          sum(result[2] for result in results.values())))
    print('make test: %s' % ('FAILED: ' + ' '.join(failed) if failed else 'all stages passed'))
    print('stages: %d passed, %d failed' % (len(order) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
