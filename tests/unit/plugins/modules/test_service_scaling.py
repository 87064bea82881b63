# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import json

from ansible_collections.engine.cloud.plugins.modules import service_scaling
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SERVICE_DEV, SERVICE_HORIZONTAL, SERVICE_PROD, service_path

PROD = dict(service_id=SERVICE_PROD)
GET = ('GET', service_path())


def deprecates_both_memory_options(result, sim):
    """One deprecation per memory option, for 2.0.0 of engine.cloud (the wire format of a module's
    deprecations differs between ansible-core versions: look inside)."""
    texts = [json.dumps(item) for item in result['deprecations']]
    return len(texts) == 2 and all(
        len([text for text in texts if '%s sets %s' % (option, field) in text and '2.0.0' in text and 'engine.cloud' in text]) == 1
        for option, field in (('min_total_memory_gb', 'minTotalMemoryGb'), ('max_total_memory_gb', 'maxTotalMemoryGb')))


CASES = {
    'sends only what differs, then a rerun changes nothing': dict(
        args=dict(PROD, num_replicas=4, idle_scaling=True, idle_timeout_minutes='15'), diff=True,
        requests=[GET, ('PATCH', service_path(suffix='/scaling'), {'numReplicas': 4})],
        result={'changed': True, 'diff': {'before': {'numReplicas': 3}, 'after': {'numReplicas': 4}}, 'service.numReplicas': 4},
        verify=lambda result, sim: not result.get('deprecations'),
        then=dict(args=dict(PROD, num_replicas=4), requests=[GET], result={'changed': False})),
    'the memory options work and are deprecated': dict(
        args=dict(PROD, min_total_memory_gb=48, max_total_memory_gb=96),
        requests=[GET, ('PATCH', service_path(suffix='/scaling'), {'maxTotalMemoryGb': 96})],
        result={'changed': True, 'service.maxTotalMemoryGb': 96},
        verify=deprecates_both_memory_options),
    'a horizontal service converges on the fields it has': dict(
        args=dict(service_id=SERVICE_HORIZONTAL, idle_scaling=True),
        requests=[('GET', service_path(SERVICE_HORIZONTAL)), ('PATCH', service_path(SERVICE_HORIZONTAL, '/scaling'), {'idleScaling': True})],
        result={'changed': True},
        then=dict(args=dict(service_id=SERVICE_HORIZONTAL, idle_scaling=True), requests=[('GET', service_path(SERVICE_HORIZONTAL))],
                  result={'changed': False})),
    'check mode on a stopped service warns that the real run would be refused': dict(
        args=dict(service_id=SERVICE_DEV, idle_timeout_minutes=10), check=True,
        requests=[('GET', service_path(SERVICE_DEV))], result={'changed': True},
        verify=lambda result, sim: all(text in json.dumps(result['warnings']) for text in ('dev-sandbox is stopped, not running',
                                                                                           'HTTP 424', 'state=awake'))),
    'a maximum below the current minimum fails after the read only': dict(
        args=dict(PROD, max_total_memory_gb=24),
        requests=[GET],
        result={'msg': 'max_total_memory_gb (24) must be at least the current minTotalMemoryGb (48)'}, fails=''),
}


def test_service_scaling(run, case):
    run(service_scaling, **case)
