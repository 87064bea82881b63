# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Load across hosts: 50 services, one inventory host each, forks 10 and forks 50, the simulator's
live rate limit on (10 requests per 10 s per API key) and the default api_retries: every task
succeeds, every service ends in the desired state, and the modules' shared pacing keeps the 429s
at 1 % of the requests or fewer. The 429 count and the total time against the floor (requests at
the limit's 1 per second) are printed and recorded."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import os

import pytest

from suite import LOAD_FORKS, LOAD_HOSTS, parse_time

pytestmark = pytest.mark.skipif(os.environ.get('RELIABILITY_LOAD', '1') == '0', reason='RELIABILITY_LOAD=0')
# The management API's live limit, which the simulator enforces with rate_limit on.
LIMIT_REQUESTS, LIMIT_SECONDS = 10, 10


@pytest.mark.parametrize('forks', LOAD_FORKS)
def test_every_service_reaches_the_desired_state_under_the_rate_limit(suite, forks):
    load = suite.result(('load', forks))
    run, requests = load['run'], load['requests']
    events = [event for event in run.events if event['task'].startswith('Set the name')]
    ok = [event for event in events if event['status'] == 'ok']
    limited = [entry for entry in requests if entry['status'] == 429]
    writes = [entry for entry in requests if entry['method'] == 'PATCH' and entry['status'] == 200]
    services = dict((service['id'], service) for service in load['state']['services'])
    in_state = 0
    for index, (host, service_id) in enumerate(load['hosts']):
        service = services[service_id]
        sources = [entry['source'] for entry in service['ipAccessList']]
        if service['name'] == host + '-done' and str(ipaddress.ip_network('10.60.%d.0/24' % index)) in sources:
            in_state += 1
    floor = len(requests) * LIMIT_SECONDS / float(LIMIT_REQUESTS)
    # The paced part: ansible's start-up (all the forks' module processes on the controller's cores)
    # comes before the first request.
    paced = (parse_time(requests[-1]['time']) - parse_time(requests[0]['time'])).total_seconds()
    counts = suite.counts
    counts.set('load', 'hosts', LOAD_HOSTS)
    counts.set('load', 'api_retries', 'default')
    counts.set('load', 'rate_limit', '%d requests / %d s per key' % (LIMIT_REQUESTS, LIMIT_SECONDS) if load['config']['rate_limit'] else 'off')
    counts.set('load', 'forks %d' % forks, dict(
        tasks_ok=len(ok), tasks_failed=len(events) - len(ok), services_in_desired_state=in_state, requests=len(requests),
        answered_429=len(limited), seconds=round(load['seconds'], 1), floor_seconds=floor, against_floor=round(load['seconds'] / floor, 3),
        first_to_last_request_seconds=round(paced, 1)))
    print('\nload: %d hosts, forks %d, %d requests, %d answered 429, %d writes, %.1f s (floor %.0f s: %.2fx; first to last request %.1f s)'
          % (LOAD_HOSTS, forks, len(requests), len(limited), len(writes), load['seconds'], floor, load['seconds'] / floor, paced))
    assert load['config']['rate_limit'] is True
    assert run.rc == 0, run.explain()
    assert len(ok) == LOAD_HOSTS and all(event['result'].get('changed') for event in ok), run.explain()
    assert in_state == LOAD_HOSTS
    assert len(writes) == LOAD_HOSTS, 'one write per service'
    # Each task reads its service before it writes; tasks that ask at about the same time share one list read
    # (module_utils/shared_reads.py), so a service costs at most one read besides its write.
    reads = [entry for entry in requests if entry['method'] == 'GET' and entry['status'] != 429]
    assert len(requests) - len(limited) == len(writes) + len(reads), 'only reads and the writes were accepted'
    assert len(reads) <= LOAD_HOSTS, 'at most one read per service'
    assert len(limited) <= 0.01 * len(requests), '%d of %d requests answered 429' % (len(limited), len(requests))
