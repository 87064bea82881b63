# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Load across hosts: 50 services, one inventory host each, forks 10, the simulator's live rate
limit on (10 requests per 10 s per API key): every task succeeds, every service ends in the
desired state, and the run's 429 count and total time are printed (and recorded)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import os

import pytest

from suite import LOAD_API_RETRIES, LOAD_FORKS, LOAD_HOSTS

pytestmark = pytest.mark.skipif(os.environ.get('RELIABILITY_LOAD', '1') == '0', reason='RELIABILITY_LOAD=0')


def test_every_service_reaches_the_desired_state_under_the_rate_limit(suite):
    load = suite.result('load')
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
    counts = suite.counts
    counts.set('load', 'hosts', LOAD_HOSTS)
    counts.set('load', 'forks', LOAD_FORKS)
    counts.set('load', 'api_retries', LOAD_API_RETRIES)
    counts.set('load', 'rate_limit', '10 requests / 10 s per key' if load['config']['rate_limit'] else 'off')
    counts.set('load', 'tasks_ok', len(ok))
    counts.set('load', 'tasks_failed', len(events) - len(ok))
    counts.set('load', 'services_in_desired_state', in_state)
    counts.set('load', 'requests', len(requests))
    counts.set('load', '429s', len(limited))
    counts.set('load', 'seconds', round(load['seconds'], 1))
    print('\nload: %d hosts, forks %d, %d requests, %d answered 429, %d writes, %.1f s'
          % (LOAD_HOSTS, LOAD_FORKS, len(requests), len(limited), len(writes), load['seconds']))
    assert load['config']['rate_limit'] is True
    assert run.rc == 0, run.explain()
    assert len(ok) == LOAD_HOSTS and all(event['result'].get('changed') for event in ok), run.explain()
    assert in_state == LOAD_HOSTS
    assert len(writes) == LOAD_HOSTS, 'one write per service'
    # The limit really was in force: at most 10 accepted requests in any 10 s window.
    assert len(requests) - len(limited) == 2 * LOAD_HOSTS
