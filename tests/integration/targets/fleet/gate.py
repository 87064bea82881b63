"""Holds a fleet's requests back until every task of it is live on the list it shares, so that how many list reads
the fleet sends before acting does not depend on how fast the forks start on a busy machine (runme.sh).

usage: gate.py PACING_DIR API_URL KEY_ID TASKS READY_FILE

Takes the lock of the pacer's state file for API_URL and KEY_ID in PACING_DIR (module_utils/pacer.py: every request
of the fleet waits for it), creates READY_FILE, waits until a shared-reads state file in PACING_DIR (reads-*) shows
TASKS live tasks, then lets go. Exits 1 when that has not happened within 300 s."""

import fcntl
import glob
import json
import os
import sys
import time

HERE = os.path.abspath(__file__)
sys.path.insert(0, HERE[:HERE.rindex(os.sep + 'ansible_collections' + os.sep)])
# pylint: disable-next=wrong-import-position
from ansible_collections.engine.cloud.plugins.module_utils.pacer import state_file_name  # noqa: E402 (after its path)


def live_tasks(directory):
    most = 0
    for path in glob.glob(os.path.join(directory, 'reads-*')):
        if path.endswith('.lead'):
            continue
        try:
            with open(path) as handle:
                most = max(most, len(json.load(handle)['live']))
        except (OSError, ValueError, KeyError, TypeError):
            pass  # being rewritten: read again
    return most


def main(directory, api_url, key_id, tasks, ready):
    os.makedirs(directory, 0o700, exist_ok=True)
    descriptor = os.open(os.path.join(directory, state_file_name(api_url, key_id)), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    open(ready, 'w').close()
    deadline = time.monotonic() + 300
    while live_tasks(directory) < int(tasks):
        if time.monotonic() > deadline:
            print('gate: %d of %s tasks live on one list after 300 s' % (live_tasks(directory), tasks), file=sys.stderr)
            return 1
        time.sleep(0.05)
    os.close(descriptor)
    return 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
