# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The events guide's steps on the simulator (docs/docsite/rst/guide_events.rst, "Trying it on the simulator"): its
scale.yml holds exactly the variables of the shipped rulebook, with a faster poll, for the simulator's alert and
service; its ansible-rulebook line names files of the collection; its admin commands, run as printed (on this
simulator's port), make that alert fire and clear. The rulebook itself runs in tests/eda (make events)."""

import os
import re
import subprocess

import pytest

from conftest import ROOT, console_blocks, read
from tests.simulator import fixture_ids as ids

yaml = pytest.importorskip('yaml')

SECTION = 'Trying it on the simulator'
RULEBOOK = os.path.join(ROOT, 'extensions', 'eda', 'rulebooks', 'scale_on_cpu_alert.yml')


def steps():
    """(scale.yml as printed, the ansible-rulebook command, the admin commands)."""
    [run, admin] = console_blocks(SECTION, 'guide_events.rst', output=True)
    assert run[0] == '$ cat scale.yml', run
    return yaml.safe_load('\n'.join(run[1:-1])), run[-1][2:], [line[2:] for line in admin]


def alert_state(simulator, alert_id):
    return next(alert['state'] for alert in simulator.state()['alerts'] if alert['id'] == alert_id)


def test_scale_yml_holds_the_rulebooks_variables_for_the_simulator():
    scale, dummy, admin = steps()
    used = set(re.findall(r'\{\{ *([a-z_]+)', read(RULEBOOK))) - {'event'}
    assert sorted(scale) == sorted(used)
    assert scale['poll_interval'] < 30 and scale['service_id'] == ids.SERVICE_PROD
    [alert_id] = set(re.findall(r'/_admin/alerts/(\w+)', ' '.join(admin)))
    assert ids.ALERTS.index(alert_id) == 0 and scale['cpu_alert_name'] == 'High CPU'


def test_the_rulebook_line_names_the_collections_files():
    dummy, command, dummy = steps()
    words = command.split()
    assert words[0] == 'ansible-rulebook' and words[words.index('--vars') + 1] == 'scale.yml'
    assert os.path.isfile(os.path.join(ROOT, words[words.index('-i') + 1]))
    namespace, name, rulebook = words[words.index('--rulebook') + 1].split('.')
    assert (namespace, name) == ('engine', 'cloud') and os.path.join(os.path.dirname(RULEBOOK), rulebook + '.yml') == RULEBOOK


def test_the_admin_commands_fire_and_clear_the_alert(simulator):
    dummy, dummy, admin = steps()
    alert_id = re.search(r'/_admin/alerts/(\w+)', admin[0]).group(1)
    simulator.reset()
    assert alert_state(simulator, alert_id) == 'OK'
    seen = []
    for command in admin:
        subprocess.run(['bash', '-c', command.replace('http://127.0.0.1:8080', simulator.url)], check=True, capture_output=True)
        seen.append(alert_state(simulator, alert_id))
    assert seen == ['ALERT', 'OK']
