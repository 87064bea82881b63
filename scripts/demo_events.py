"""make demo-events: the loop of extensions/eda/rulebooks/scale_on_cpu_alert.yml against a private simulator.

ansible-rulebook (of .venv-eda) runs the rulebook as shipped, polling every 2 seconds; the simulator's admin interface
makes the CPU alert fire, then clear; the rulebook scales prod-analytics up, then back. Each step is shown as the
simulator's request log saw it. Exit status 0 when the service was scaled up once and back once."""

import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'eda'))
sys.path.insert(0, ROOT)

# pylint: disable=wrong-import-position
from rulebook_run import Run, layout, listings, writes  # noqa: E402
from tests.simulator import fixture_ids as ids  # noqa: E402
from tests.simulator.process import SimulatorProcess  # noqa: E402

ALERTS = '/api/v2/alerts'
VARIABLES = dict(service_id=ids.SERVICE_PROD, cpu_alert_name='High CPU', replicas_up=5, replicas_down=3, poll_interval=2)


def main():
    started = time.monotonic()

    def say(text):
        print('demo-events %5.1fs  %s' % (time.monotonic() - started, text), flush=True)

    with tempfile.TemporaryDirectory(prefix='engine-cloud-demo-events.') as work:
        collection = layout(os.path.join(work, 'collections'))
        with SimulatorProcess(os.path.join(work, 'simulator'), rate_limit=True) as sim:
            scaling = ids.service_path(ids.SERVICE_PROD, '/scaling')
            say('simulator at %s (the live rate limits); starting ansible-rulebook with extensions/eda/rulebooks/'
                'scale_on_cpu_alert.yml (alert "High CPU", service prod-analytics, 3 replicas, a poll every 2 s)' % sim.url)
            run = Run(sim, collection, work, ['scale_on_cpu_alert.yml'], VARIABLES)
            try:
                run.wait_for('first poll', lambda log: listings(log, ALERTS))
                run.next_poll(ALERTS)
                say('engine.cloud.alert_events polls (GET %s every 2 s)' % ALERTS)
                sim.edit('alerts', ids.ALERTS[0], {'state': 'ALERT'})
                fired = time.monotonic()
                say('the alert "High CPU" fires (the simulator sets its state to ALERT)')
                run.wait_for('scale-up', lambda log: writes(log, scaling))
                say('the rulebook ran engine.cloud.service_scaling: PATCH .../scaling %s, %.1f s after the alert fired'
                    % (writes(run.log(), scaling)[0], time.monotonic() - fired))
                sim.edit('alerts', ids.ALERTS[0], {'state': 'OK'})
                cleared = time.monotonic()
                say('the alert clears (state OK)')
                run.wait_for('scale-down', lambda log: len(writes(log, scaling)) == 2)
                say('scaled back: PATCH .../scaling %s, %.1f s after the alert cleared'
                    % (writes(run.log(), scaling)[1], time.monotonic() - cleared))
            finally:
                run.stop()
            log = run.log()
            events = ['%s -> %s' % (event['alert']['previous_state'], event['alert']['state']) for dummy, event in run.events()]
            say('ansible-rulebook stopped. Events: %s; alert listings: %d; scaling writes: %d; 429 answers: %d'
                % (', '.join(events), len(listings(log, ALERTS)), len(writes(log, scaling)),
                   sum(1 for entry in log if entry['status'] == 429)))
            return 0 if len(writes(log, scaling)) == 2 and len(events) == 2 else 1


if __name__ == '__main__':
    sys.exit(main())
