"""The simulator's admin calls that runme.sh makes between its runs, in a Python process of their own (an
ansible-playbook run for each, as before, took about 1 CPU-second to start; a Python interpreter takes 0.02).

usage: admin.py ADMIN_URL reset
           the simulator back to its fixtures (state, request log, config)
       admin.py ADMIN_URL requests N LIST_PATH
           the simulator received N API requests since the last count (or the reset), each a GET of
           LIST_PATH (the organization's list of services); then the log is emptied. Exits 1, printing the
           requests, when not."""

import json
import sys
import urllib.request


def admin(url, method='GET', body=None):
    data = None if body is None else json.dumps(body).encode('utf-8')
    request = urllib.request.Request(url, data=data, method=method, headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def requests(admin_url, expected, list_path):
    log = admin(admin_url + '/requests')['requests']
    if (len(log) != int(expected) or [entry for entry in log if entry['method'] != 'GET']
            or [entry for entry in log if entry['path'] != list_path]):
        print('expected %s list requests, got %s' % (expected, json.dumps(log)))
        return 1
    admin(admin_url + '/requests', 'DELETE')
    return 0


def main(admin_url, command, *args):
    if command == 'reset':
        admin(admin_url + '/reset', 'POST')
        return 0
    return requests(admin_url, *args)


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
