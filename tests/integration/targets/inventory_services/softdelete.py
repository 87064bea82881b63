"""Makes the service NAME softdeleted and renames it NEW_NAME, through the simulator's admin interface (run by
runme.sh: as the list of a live API may still show a deleted service). Prints the service's id.

usage: softdelete.py ADMIN_URL NAME NEW_NAME"""

import json
import sys
import urllib.request


def admin(url, method='GET', body=None):
    data = None if body is None else json.dumps(body).encode('utf-8')
    request = urllib.request.Request(url, data=data, method=method, headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def main(admin_url, name, new_name):
    service_id = next(item['id'] for item in admin(admin_url + '/state')['services'] if item['name'] == name)
    admin('%s/services/%s' % (admin_url, service_id), 'PATCH', {'name': new_name, 'state': 'softdeleted'})
    print(service_id)


if __name__ == '__main__':
    main(*sys.argv[1:])
