# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from urllib.parse import urlencode

from ansible_collections.engine.cloud.plugins.modules import service, service_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    ORGANIZATION, SERVICE_DEV, SERVICE_HORIZONTAL, SERVICE_IDLE, SERVICE_INGEST_EU, SERVICE_INGEST_STAGING, SERVICE_PROD, service_path)

MISSING = '00000000-0000-4000-8000-000000000000'
LIST = '/v1/organizations/%s/services' % ORGANIZATION


def filtered(*filters):
    """The list request with these tag filters, as the log shows it."""
    return ('GET', '%s?%s' % (LIST, urlencode([('filter', item) for item in filters])))


def ids(*expected):
    return lambda result, sim: [item['id'] for item in result['services']] == list(expected)


CASES = {
    'reads once and never changes, in check mode too': dict(
        args=dict(service_id=SERVICE_PROD), check=True,
        requests=[('GET', service_path())],
        result={'changed': False, 'service.id': SERVICE_PROD, 'service.name': 'prod-analytics', 'service.state': 'running'},
        verify=lambda result, sim: sim.find('services', SERVICE_PROD)['name'] == result['service']['name']),
    'an unknown service fails naming the status, code and request id': dict(
        args=dict(service_id=MISSING),
        requests=[('GET', service_path(MISSING))],
        fails='HTTP 404 NOT_FOUND: Service %s not found' % MISSING,
        result={'status': 404, 'code': 'NOT_FOUND', 'method': 'GET', 'path': service_path(MISSING)},
        verify=lambda result, sim: '(request id %s)' % result['request_id'] in result['msg']),
    'name: the one service of that name, from one list request': dict(
        args=dict(name='prod-analytics'), check=True,
        requests=[('GET', LIST)],
        result={'changed': False, 'service.id': SERVICE_PROD, 'service.numReplicas': 3}, absent=['services']),
    'name: a deleted service that the list still shows does not count': dict(
        args=dict(name='dev-sandbox'), edits=[('services', SERVICE_IDLE, dict(name='dev-sandbox', state='softdeleted'))],
        requests=[('GET', LIST)], result={'service.id': SERVICE_DEV}),
    'name: none of that name fails naming the names there are': dict(
        args=dict(name='prod-analytic'),
        requests=[('GET', LIST)],
        fails='no service is named "prod-analytic"; the services are: "dev-sandbox", "events-horizontal", "ingest-eu", '
              '"ingest-staging", "prod-analytics", "reporting replica"'),
    'name: two of that name fail listing their ids': dict(
        args=dict(name='dev-sandbox'), edits=[('services', SERVICE_IDLE, dict(name='dev-sandbox'))],
        requests=[('GET', LIST)],
        fails='2 services are named "dev-sandbox" (%s, %s): give service_id to choose one' % (SERVICE_DEV, SERVICE_IDLE)),
    'name and service_id: one or the other, before any request': dict(
        args=dict(name='prod-analytics', service_id=SERVICE_PROD), requests=[], fails='mutually exclusive: service_id|name'),
    'name and tags: tags filters a list, before any request': dict(
        args=dict(name='prod-analytics', tags=dict(team='ingest')), requests=[],
        fails='tags filters the list of services: use it without service_id and name'),
    'a service_id that is not a UUID says how to find the id of a name': dict(
        args=dict(service_id='prod-analytics'), requests=[],
        fails="service_id must be a UUID (8-4-4-4-12 hexadecimal digits), got 'prod-analytics'; engine.cloud.service_info "
              "with name returns the id of a service of that name"),
    'without service_id, lists every service of the organization with one GET': dict(
        args=dict(), check=True,
        requests=[('GET', '/v1/organizations/%s/services' % ORGANIZATION)],
        result={'changed': False}, absent=['service'],
        verify=lambda result, sim: [item['id'] for item in result['services']] == [item['id'] for item in sim.state()['services']]),
    'tags: the API filters the list, one filter per tag in key order': dict(
        args=dict(tags=dict(team='ingest', env='production')), check=True,
        requests=[filtered('tag:env=production', 'tag:team=ingest')],
        result={'changed': False}, absent=['service'], verify=ids(SERVICE_INGEST_EU)),
    'tags: an empty dict filters nothing': dict(
        args=dict(tags={}), requests=[('GET', LIST)],
        verify=ids(SERVICE_PROD, SERVICE_DEV, SERVICE_IDLE, SERVICE_INGEST_STAGING, SERVICE_INGEST_EU, SERVICE_HORIZONTAL)),
    'tags with service_id fail before any request': dict(
        args=dict(service_id=SERVICE_PROD, tags=dict(team='ingest')),
        requests=[], fails='tags filters the list of services: use it without service_id'),
    'tags: keys and values the API cannot hold fail before any request, naming each': dict(
        args=dict(tags={'team': 'in gest', 'en v': 'dev', 'ok': True, 'empty': '', 'long': 'v' * 257}),
        requests=[], fails='tags',
        verify=lambda result, sim: result['msg'].split('; ') == [
            "tags.empty must be 1 to 256 letters, digits, dots, underscores or hyphens, or null for any value, got ''",
            "tags keys must be 1 to 128 letters, digits, dots, underscores or hyphens, got 'en v'",
            "tags.long must be 1 to 256 letters, digits, dots, underscores or hyphens, or null for any value, got '%s'" % ('v' * 257),
            "tags.ok must be 1 to 256 letters, digits, dots, underscores or hyphens, or null for any value, got True",
            "tags.team must be 1 to 256 letters, digits, dots, underscores or hyphens, or null for any value, got 'in gest'"]),
}


def test_service_info(run, case):
    run(service_info, **case)


def test_tags_what_the_api_sends_is_checked_again(run, sim):
    """The reference does not say how the API combines several filters: an API that ORed them (here, one that
    answers every service) still gives only the services that have every tag."""
    everything = {'status': 200, 'requestId': 'r-1', 'result': run(service_info, requests=[('GET', LIST)])['services']}
    result = run(service_info, args=dict(tags=dict(team='ingest', env='staging')),
                 faults=[dict(kind='status', status=200, method='GET', path=LIST, body=everything)],
                 requests=[filtered('tag:env=staging', 'tag:team=ingest')])
    assert len(everything['result']) == 6 and [item['id'] for item in result['services']] == [SERVICE_INGEST_STAGING]


def test_each_listed_service_s_definition_fed_back_to_service_changes_nothing(run, sim):
    listed = run(service_info, dict(), requests=[('GET', LIST)])['services']
    assert listed and all('definition' in item for item in listed)
    for item in listed:
        run(service, item['definition'], requests=[('GET', service_path(item['id']))], result={'changed': False})
