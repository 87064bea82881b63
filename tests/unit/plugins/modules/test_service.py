# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.service against the simulator in process (tests/unit/conftest.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.engine.cloud.plugins.modules import service
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SERVICE_DEV, SERVICE_PROD, service_path

PROD = dict(service_id=SERVICE_PROD)
ATTACHABLE = 'vpce-0f9e8d7c6b5a49382'  # available to prod-analytics, not attached
CHANGE = dict(PROD, name='prod analytics',
              ip_access_list=[{'source': '10.0.0.0/8', 'description': 'VPC'}, {'source': '198.51.100.17/32', 'description': 'CI 2'}],
              purge_ip_access_list=True, private_endpoint_ids=[ATTACHABLE], endpoints=[{'protocol': 'mysql', 'enabled': True}])
CHANGE_BODY = {
    'name': 'prod analytics',
    'ipAccessList': {'remove': [{'source': '203.0.113.0/24', 'description': 'Office Berlin'},
                                {'source': '198.51.100.17', 'description': 'CI runner'},
                                {'source': '192.0.2.64/26', 'description': 'VPN egress'}],
                     'add': [{'source': '198.51.100.17', 'description': 'CI 2'}, {'source': '10.0.0.0/8', 'description': 'VPC'}]},
    'privateEndpointIds': {'add': [ATTACHABLE]},
    'endpoints': [{'protocol': 'mysql', 'enabled': True}],
}


def prod_is_unchanged(result, sim):
    return sim.find('services', SERVICE_PROD)['name'] == 'prod-analytics'


CASES = {
    'check mode predicts the change without writing': dict(
        args=CHANGE, check=True, diff=True,
        requests=[('GET', service_path())],
        result={'changed': True, 'service.name': 'prod analytics'},
        verify=lambda result, sim: (sorted(result['diff']['after']) == ['endpoints', 'ipAccessList', 'name', 'privateEndpointIds']
                                    and prod_is_unchanged(result, sim))),
    'the diff shows an enabled endpoint as the service will list it, not the request': dict(
        args=dict(PROD, endpoints=[{'protocol': 'mysql', 'enabled': True}]), diff=True,
        requests=[('GET', service_path()), ('PATCH', service_path(), {'endpoints': [{'protocol': 'mysql', 'enabled': True}]})],
        result={'changed': True, 'diff.after.endpoints.2': {'protocol': 'mysql'}},
        verify=lambda result, sim: ([item['protocol'] for item in result['diff']['after']['endpoints']]
                                    == [item['protocol'] for item in result['service']['endpoints']])),
    'without diff mode there is no diff': dict(
        args=dict(PROD, name='renamed'),
        requests=[('GET', service_path()), ('PATCH', service_path(), {'name': 'renamed'})],
        result={'changed': True, 'service.name': 'renamed'}, absent=['diff']),
    'a changed tag is a remove plus an add; core dumps; a rerun changes nothing': dict(
        args=dict(PROD, tags={'env': 'prod', 'cost-center': 4711}, enable_core_dumps=True), diff=True,
        requests=[('GET', service_path()), ('PATCH', service_path(), {
            'tags': {'remove': [{'key': 'env', 'value': 'production'}],
                     'add': [{'key': 'env', 'value': 'prod'}, {'key': 'cost-center', 'value': '4711'}]},
            'enableCoreDumps': True})],
        result={'changed': True, 'service.enableCoreDumps': True, 'diff.before.enableCoreDumps': False},
        then=dict(args=dict(PROD, tags={'cost-center': '4711'}, purge_tags=True),
                  requests=[('GET', service_path()), ('PATCH', service_path(), {
                      'tags': {'remove': [{'key': 'team', 'value': 'data-platform'}, {'key': 'env', 'value': 'prod'}]}})],
                  result={'changed': True, 'service.tags': [{'key': 'cost-center', 'value': '4711'}]},
                  then=dict(args=dict(PROD, tags={'cost-center': '4711'}, purge_tags=True, enable_core_dumps=True),
                            requests=[('GET', service_path())], result={'changed': False}))),
    'a purge applied before its answer was lost is not sent again (its entries are gone)': dict(
        args=dict(PROD, ip_access_list=[{'source': '203.0.113.0/24'}], purge_ip_access_list=True), diff=True,
        faults=[dict(kind='status', status=504, apply=True, method='PATCH')],
        requests=[('GET', service_path()), ('PATCH', service_path(), {'ipAccessList': {'remove': [
            {'source': '198.51.100.17', 'description': 'CI runner'}, {'source': '192.0.2.64/26', 'description': 'VPN egress'}]}}),
            ('GET', service_path())],
        result={'changed': True, 'service.ipAccessList': [{'source': '203.0.113.0/24', 'description': 'Office Berlin'}],
                'diff.after.ipAccessList': [{'source': '203.0.113.0/24', 'description': 'Office Berlin'}]}),
    'a write not applied before its answer was lost sends, after a read, only what still differs': dict(
        args=dict(PROD, name='renamed', ip_access_list=[{'source': '10.0.0.0/8'}]),
        faults=[dict(kind='reset', method='PATCH')],
        edits=[],
        requests=[('GET', service_path()), ('PATCH', service_path(), {'name': 'renamed', 'ipAccessList': {'add': [{'source': '10.0.0.0/8'}]}}),
                  ('GET', service_path()),
                  ('PATCH', service_path(), {'name': 'renamed', 'ipAccessList': {'add': [{'source': '10.0.0.0/8'}]}})],
        result={'changed': True, 'service.name': 'renamed'}),
    'a release channel for a development service fails after the read, naming the tier': dict(
        args=dict(service_id=SERVICE_DEV, release_channel='fast'),
        requests=[('GET', service_path(SERVICE_DEV))],
        fails='release_channel is for production services only; service dev-sandbox is a development service (tier development)'),
    'key rotation in check mode on a service that is not running warns': dict(
        args=dict(PROD, transparent_data_encryption_key_id='tde-2'), check=True, edits=[('services', SERVICE_PROD, {'state': 'idle'})],
        requests=[('GET', service_path())], result={'changed': True},
        verify=lambda result, sim: 'allows a key rotation only while a service is running' in json.dumps(result['warnings'])),
}

BAD_INPUT = [
    (dict(name='bad_name'), 'name must be 1 to 50 letters'),
    (dict(ip_access_list=[{'source': '10.0.0.1/8'}]), 'ip_access_list[0].source must be an IPv4 address or CIDR block'),
    (dict(ip_access_list=[{'source': '10.0.0.1'}, {'source': '10.0.0.1/32'}]), 'ip_access_list lists the source'),
    (dict(endpoints=[{'protocol': 'mysql', 'enabled': True}, {'protocol': 'mysql', 'enabled': False}]), 'endpoints lists the protocol mysql'),
    (dict(endpoints=[{'protocol': 'https', 'enabled': True}]), 'value of protocol must be one of: mysql'),
    (dict(transparent_data_encryption_key_id=' '), 'transparent_data_encryption_key_id must not be empty'),
    (dict(private_endpoint_ids=['']), 'private_endpoint_ids must not hold empty ids'),
    (dict(service_id='prod'), 'service_id must be a UUID'),
    (dict(tags={'cost center': 'x'}), "tags keys must be 1 to 128 letters, digits, dots, underscores or hyphens, got 'cost center'"),
    (dict(tags={'env': 'a/b'}), 'tags.env must be 1 to 256 letters, digits, dots, underscores or hyphens, or null'),
]


def test_service(run, case):
    run(service, **case)


def test_apply_sends_one_patch_with_the_checked_diff_then_a_rerun_sends_one_get(run):
    checked = run(service, CHANGE, check=True, diff=True, requests=[('GET', service_path())])
    run(service, CHANGE, diff=True,
        requests=[('GET', service_path()), ('PATCH', service_path(), CHANGE_BODY)],
        result={'changed': True, 'diff': checked['diff'], 'service.name': 'prod analytics'},
        verify=lambda result, sim: [e['protocol'] for e in result['service']['endpoints']] == ['https', 'nativesecure', 'mysql'],
        then=dict(args=CHANGE, diff=True, requests=[('GET', service_path())], result={'changed': False}, absent=['diff']))


@pytest.mark.parametrize('args, text', BAD_INPUT)
def test_bad_input_fails_before_any_request(run, args, text):
    run(service, dict(PROD, **args), requests=[], fails=text)
