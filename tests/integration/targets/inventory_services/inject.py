"""Renames the service dev-sandbox to TEMPLATE and gives it the tag owner=TEMPLATE, through the simulator's admin
interface (run by runme.sh: the template never passes through Ansible on its way in). Prints the service's id.

usage: inject.py ADMIN_URL TEMPLATE"""

import json
import sys
import urllib.request


def admin(url, method='GET', body=None):
    data = None if body is None else json.dumps(body).encode('utf-8')
    request = urllib.request.Request(url, data=data, method=method, headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def main(admin_url, template):
    service_id = next(item['id'] for item in admin(admin_url + '/state')['services'] if item['name'] == 'dev-sandbox')
    admin('%s/services/%s' % (admin_url, service_id), 'PATCH', {'name': template, 'tags': [{'key': 'owner', 'value': template}]})
    print(service_id)


if __name__ == '__main__':
    main(*sys.argv[1:])
