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
    'without service_id, lists every service of the organization with one GET': dict(
        args=dict(), check=True,
        requests=[('GET', '/v1/organizations/%s/services' % ORGANIZATION)],
        result={'changed': False}, absent=['service'],
        verify=lambda result, sim: [item['id'] for item in result['services']] == [item['id'] for item in sim.state()['services']]),
}


def test_service_info(run, case):
    run(service_info, **case)
