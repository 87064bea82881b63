# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.service_info against the simulator in process (tests/unit/conftest.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.engine.cloud.plugins.modules import service_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import ORGANIZATION, SERVICE_PROD, service_path

MISSING = '00000000-0000-4000-8000-000000000000'
# Each connection option and its environment variable, as the failure names them.
CLOUD_OPTIONS = (('api_url', 'ENGINE_CLOUD_API_URL'), ('api_key_id', 'ENGINE_CLOUD_KEY_ID'),
                 ('api_key_secret', 'ENGINE_CLOUD_KEY_SECRET'), ('organization_id', 'ENGINE_CLOUD_ORGANIZATION_ID'))


def names_every_empty_option(result, sim):
    return result['msg'] == '; '.join('%s is required: set %s or the %s environment variable (got an empty value)' % (name, name, env)
                                      for name, env in CLOUD_OPTIONS)


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
    'empty connection options, as AWX injects empty credential fields, fail naming each and its variable': dict(
        args=dict(service_id=SERVICE_PROD, api_url='', api_key_id='', api_key_secret='', organization_id=''),
        requests=[], fails='', verify=names_every_empty_option),
    'an api_url that ends in /v1 is refused, naming the part to drop': dict(
        args=dict(service_id=SERVICE_PROD, api_url='http://simulator.test/v1/'),
        requests=[], fails="api_url must be the base address without the API path: drop /v1 and use 'http://simulator.test'"),
    'an API error names the whole URL, without the credentials of the address': dict(
        args=dict(service_id=MISSING, api_url='http://someone:url-password@simulator.test'),
        requests=[('GET', service_path(MISSING))],
        fails='GET http://simulator.test%s failed: HTTP 404 NOT_FOUND' % service_path(MISSING),
        verify=lambda result, sim: 'url-password' not in result['msg'] and 'someone' not in result['msg']),
    'without service_id, lists every service of the organization with one GET': dict(
        args=dict(), check=True,
        requests=[('GET', '/v1/organizations/%s/services' % ORGANIZATION)],
        result={'changed': False}, absent=['service'],
        verify=lambda result, sim: [item['id'] for item in result['services']] == [item['id'] for item in sim.state()['services']]),
}


def test_service_info(run, case):
    run(service_info, **case)
