# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rulebooks of extensions/eda/rulebooks/, run by the real ansible-rulebook (.venv-eda, `make events`) against a
private simulator with the live rate limits: both rulebooks' rulesets in one ansible-rulebook process (one JVM start),
the collection from a layout copy on the collections path, every step proved from the simulator's request log.

The CPU alert fires: the service is scaled up once; a poll fails (an injected 500) while the alert clears: that poll
reports nothing, the next one reports the clear once, and the service is scaled back once; the alert then flaps twice:
reported each time, throttled, scaled no more. A production service stops: it is started once; it goes idle: it is
woken once. No 429 all along, and no secret in what ansible-rulebook printed."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# pylint: disable=wrong-import-position
from rulebook_run import Run, layout, listings, service_state, writes  # noqa: E402
from tests.simulator import fixture_ids as ids  # noqa: E402
from tests.simulator.process import SimulatorProcess  # noqa: E402

HIGH_CPU = ids.ALERTS[0]
ALERTS = '/api/v2/alerts'
POLL = 2  # seconds: two sources polling every 2 s leave the modules most of the management API's 10 requests per 10 s
RULEBOOKS = ('scale_on_cpu_alert.yml', 'keep_production_up.yml')
VARIABLES = dict(service_id=ids.SERVICE_PROD, cpu_alert_name='High CPU', replicas_up=5, replicas_down=3, poll_interval=POLL)


@pytest.fixture(scope='module')
def collection(tmp_path_factory):
    return layout(str(tmp_path_factory.mktemp('collections')))


@pytest.fixture(scope='module')
def sim(tmp_path_factory):
    with SimulatorProcess(str(tmp_path_factory.mktemp('simulator')), rate_limit=True, transition_delay=1) as simulator:
        yield simulator


def test_the_rulebooks_act_once_per_transition(sim, collection, tmp_path):
    services = '/v1/organizations/%s/services' % ids.ORGANIZATION
    scaling = ids.service_path(ids.SERVICE_PROD, '/scaling')
    state = ids.service_path(ids.SERVICE_INGEST_EU, '/state')
    run = Run(sim, collection, str(tmp_path), RULEBOOKS, VARIABLES)
    try:
        run.wait_for('first listings', lambda log: listings(log, ALERTS) and listings(log, services))
        run.next_poll(ALERTS)

        sim.edit('alerts', HIGH_CPU, {'state': 'ALERT'})
        run.wait_for('scale-up', lambda log: writes(log, scaling))
        sim.faults({'path': '^%s$' % ALERTS, 'kind': 'status', 'status': 500, 'count': 1})
        sim.edit('alerts', HIGH_CPU, {'state': 'OK'})
        run.wait_for('scale-down', lambda log: len(writes(log, scaling)) == 2)
        for flap in ('ALERT', 'OK', 'ALERT', 'OK'):
            sim.edit('alerts', HIGH_CPU, {'state': flap})
            run.next_poll(ALERTS)

        sim.edit('services', ids.SERVICE_INGEST_EU, {'state': 'stopped'})
        run.wait_for('start', lambda log: writes(log, state))
        run.wait_for('running', lambda log: service_state(sim, ids.SERVICE_INGEST_EU) == 'running')
        run.next_poll(services)
        sim.edit('services', ids.SERVICE_INGEST_EU, {'state': 'idle'})
        run.wait_for('awake', lambda log: len(writes(log, state)) == 2)
        for dummy in range(3):  # time for a throttled action, had one been taken, to reach the API
            run.next_poll(ALERTS)
    finally:
        run.stop()
    log, output = run.log(), run.output()

    assert writes(log, scaling) == [{'numReplicas': 5}, {'numReplicas': 3}]
    assert writes(log, state) == [{'command': 'start'}, {'command': 'awake'}]
    assert [entry['status'] for entry in listings(log, ALERTS) if entry['status'] != 200] == [500]
    assert [entry for entry in log if entry['status'] == 429] == []
    alert_events = [(event['alert']['previous_state'], event['alert']['state']) for dummy, event in run.events() if 'alert' in event]
    assert alert_events == [('OK', 'ALERT'), ('ALERT', 'OK'), ('OK', 'ALERT'), ('ALERT', 'OK'), ('OK', 'ALERT'), ('ALERT', 'OK')]
    service_events = [(event['service']['name'], event['service']['state']) for dummy, event in run.events() if 'service' in event]
    assert service_events == [('ingest-eu', 'stopped'), ('ingest-eu', 'idle')]
    assert 'engine.cloud.alert_events: the poll failed, so it reports nothing' in output
    assert not [secret for secret in (ids.KEY_SECRET, ids.TOKEN) if secret in output]
