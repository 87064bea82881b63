# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from ansible_collections.engine.cloud.plugins.modules import rpe_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import RPE, SERVICE_PROD, service_path

CASES = {
    'returns the endpoint the API holds': dict(
        args=dict(service_id=SERVICE_PROD, reverse_private_endpoint_id=RPE),
        requests=[('GET', service_path(suffix='/pipesReversePrivateEndpoints/' + RPE))],
        result={'changed': False, 'reverse_private_endpoint.id': RPE, 'reverse_private_endpoint.status': 'Ready'},
        verify=lambda result, sim: result['reverse_private_endpoint'] == sim.state()['reversePrivateEndpoints'][0]),
    'without reverse_private_endpoint_id, lists the endpoints of the service with one GET': dict(
        args=dict(service_id=SERVICE_PROD),
        requests=[('GET', service_path(suffix='/pipesReversePrivateEndpoints'))],
        result={'changed': False, 'reverse_private_endpoints.0.id': RPE}, absent=['reverse_private_endpoint'],
        verify=lambda result, sim: result['reverse_private_endpoints'] == sim.state()['reversePrivateEndpoints']),
}


def test_rpe_info(run, case):
    run(rpe_info, **case)
