# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The discovery guide's examples that run on localhost, as printed, in one ansible-playbook run against the
simulator with the ENGINE_* variables the getting-started guide exports: its task lists (each in a play of its own)
and its health gate, which passes on the simulator's series. The plays on inventory hosts run in the
playbook_nightly_stop and inventory_services integration targets; the metrics_gate guide's example runs in
test_guide_roles.py."""

import re

import pytest

from conftest import ansible, ansible_env, code_blocks, simulator_exports

yaml = pytest.importorskip('yaml')


def plays():
    """The guide's yaml+jinja blocks that run on localhost: its plays on localhost, and its task lists, each
    made a play."""
    found = []
    for dummy, dummy2, text in code_blocks('guide_discovery.rst', 'yaml+jinja'):
        data = yaml.safe_load(text)
        if not isinstance(data, list):
            continue  # an inventory source
        if 'hosts' not in data[0]:
            found.append(dict(name='Tasks of the guide: %s' % data[0]['name'], hosts='localhost', gather_facts=False, tasks=data))
        elif data[0]['hosts'] == 'localhost':
            found.extend(data)
    return found


def test_the_examples_on_localhost_run_as_printed(tmp_path, simulator, collections_path):
    books = plays()
    assert [play['name'] for play in books] == [
        'Tasks of the guide: List every service of the organization', 'Tasks of the guide: Find prod-analytics by its name',
        'Tasks of the guide: The services of team ingest that carry the gdpr tag', 'Gate the rollout on the last 15 minutes of prod-analytics']
    (tmp_path / 'discovery.yml').write_text(yaml.safe_dump(books, sort_keys=False))
    simulator.reset()
    exports = simulator_exports(simulator)
    run = ansible('ansible-playbook', tmp_path, ansible_env(collections_path, **exports), 'discovery.yml')
    assert run.returncode == 0, run.stdout[-6000:]
    assert [key for key, value in exports.items() if key.endswith(('_SECRET', '_TOKEN')) and value in run.stdout] == []
    assert re.findall(r'^PLAY \[(.*)\]', run.stdout, re.M) == [play['name'] for play in books], run.stdout[-6000:]
    assert '"msg": [\n        "ingest-staging"\n    ]' in run.stdout, run.stdout[-6000:]
    log = [(entry['method'], entry['path']) for entry in simulator.requests()]
    # three service reads and the health gate's series
    assert [method for method, path in log] == ['GET'] * 3 + ['POST'] and log[3][1] == '/api/v2/charts/series', log
