"""The simulator's admin calls that runme.sh makes between its runs, in a Python process of their own (an
ansible-playbook run for each, as before, took about 1 CPU-second to start; a Python interpreter takes 0.02).

usage: admin.py ADMIN_URL reset
           the simulator back to its fixtures (state, request log, config)
       admin.py ADMIN_URL requests N LIST_PATH
           the simulator received N API requests since the last count (or the reset), each a GET of
           LIST_PATH (the organization's list of services); then the log is emptied. Exits 1, printing the
           requests, when not.
       admin.py ADMIN_URL inject TEMPLATE
           renames the service dev-sandbox to TEMPLATE and gives it the tag owner=TEMPLATE (the template never
           passes through Ansible on its way in); prints the service's id
       admin.py ADMIN_URL softdelete NAME NEW_NAME
           makes the service NAME softdeleted and renames it NEW_NAME (as the list of a live API may still show
           a deleted service); prints the service's id"""

import json
import sys
import urllib.request


def admin(url, method='GET', body=None):
    data = None if body is None else json.dumps(body).encode('utf-8')
    request = urllib.request.Request(url, data=data, method=method, headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def reset(admin_url):
    admin(admin_url + '/reset', 'POST')
    return 0


def requests(admin_url, expected, list_path):
    log = admin(admin_url + '/requests')['requests']
    if (len(log) != int(expected) or [entry for entry in log if entry['method'] != 'GET']
            or [entry for entry in log if entry['path'] != list_path]):
        print('expected %s list requests, got %s' % (expected, json.dumps(log)))
        return 1
    admin(admin_url + '/requests', 'DELETE')
    return 0


def edit_service(admin_url, name, changes):
    service_id = next(item['id'] for item in admin(admin_url + '/state')['services'] if item['name'] == name)
    admin('%s/services/%s' % (admin_url, service_id), 'PATCH', changes)
    print(service_id)
    return 0


def inject(admin_url, template):
    return edit_service(admin_url, 'dev-sandbox', {'name': template, 'tags': [{'key': 'owner', 'value': template}]})


def softdelete(admin_url, name, new_name):
    return edit_service(admin_url, name, {'name': new_name, 'state': 'softdeleted'})


COMMANDS = {'reset': reset, 'requests': requests, 'inject': inject, 'softdelete': softdelete}


if __name__ == '__main__':
    sys.exit(COMMANDS[sys.argv[2]](sys.argv[1], *sys.argv[3:]))
