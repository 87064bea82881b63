"""The simulator's admin calls of the runme.sh targets, between their ansible runs (a Python process takes 0.02
CPU-s to start, an ansible-playbook run about 1).

usage: admin.py ADMIN_URL reset [CONFIG]
           the simulator back to its fixtures, with CONFIG (a JSON object of admin config keys) if given
       admin.py ADMIN_URL calls
           prints the requests since the last reset or calls, one a line, as the method and the path under the
           API's root (GET services, PATCH services/<id>/state), then empties the log
       admin.py ADMIN_URL edit KIND NAME CHANGES
           sets CHANGES (a JSON object) on the object of KIND (services, pipes) named NAME, without the API (so a
           template in them never passes through Ansible on its way in); prints the object's id
       admin.py ADMIN_URL fault FAULT
           adds FAULT (a JSON object, tests/simulator/README.md) for the next request it matches (so a secret in it
           is never in Ansible's output)"""

import json
import re
import sys
import urllib.request

API_ROOT = re.compile(r'^/v1/organizations/[^/]+/?|^/api/v2/?')


def admin(url, method='GET', body=None):
    data = None if body is None else json.dumps(body).encode('utf-8')
    request = urllib.request.Request(url, data=data, method=method, headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def reset(admin_url, config='{}'):
    admin(admin_url + '/reset', 'POST', json.loads(config))


def calls(admin_url):
    for entry in admin(admin_url + '/requests')['requests']:
        print('%s %s' % (entry['method'], API_ROOT.sub('', entry['path'])))
    admin(admin_url + '/requests', 'DELETE')


def edit(admin_url, kind, name, changes):
    object_id = next(item['id'] for item in admin(admin_url + '/state')[kind] if item['name'] == name)
    admin('%s/%s/%s' % (admin_url, kind, object_id), 'PATCH', json.loads(changes))
    print(object_id)


def fault(admin_url, spec):
    admin(admin_url + '/faults', 'POST', json.loads(spec))


if __name__ == '__main__':
    {'reset': reset, 'calls': calls, 'edit': edit, 'fault': fault}[sys.argv[2]](sys.argv[1], *sys.argv[3:])
