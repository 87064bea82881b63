# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every module's EXAMPLES really run: each becomes a play with the connection set once through
module_defaults for group/engine.cloud.all, against a simulator reset to its fixtures first."""

import ast
import glob
import os

import pytest

from conftest import ROOT, ansible, ansible_env
from tests.simulator.fixture_ids import cloud_connection, observability_connection

yaml = pytest.importorskip('yaml')

MODULES = sorted(glob.glob(os.path.join(ROOT, 'plugins', 'modules', '*.py')))
# The lookup that sends the simulator's admin calls from the controller (in the collection's copy).
ADMIN_LOOKUPS = os.path.join('tests', 'integration', 'targets', 'setup_simulator', 'lookup_plugins')


def example_play(name, tasks, url):
    """A play: reset the simulator, run the module's examples, check what the simulator received."""
    admin = url + '/_admin'
    return dict(
        name='Examples of engine.cloud.%s' % name, hosts='localhost', connection='local', gather_facts=False,
        # What a vault would hold for the examples that read one.
        vars=dict(vault_staging_password='Examples-Vault-Pw-8', vault_kafka_password='Examples-Kafka-Pw-9',
                  # What a reader supplies to organization's examples: the digest a person reviewed, the team's entries.
                  reviewed_digest='{{ drift.plan_digest }}', team_dashboards='{{ organization.gathered.dashboards }}',
                  team_alerts='{{ organization.gathered.alerts }}'),
        # Both APIs' connection once, for group/engine.cloud.all, as the README shows: every module takes the other
        # API's options and ignores them, and organization (in group all only) needs both.
        module_defaults={'group/engine.cloud.all': dict(cloud_connection(url), api_retries=0, **observability_connection(url))},
        # The simulator's admin calls go through the integration targets' sim_admin lookup (ADMIN_LOOKUPS), on the
        # controller: an ansible.builtin.uri task would start a module process for each (0.3 CPU-s).
        pre_tasks=[{'name': 'Reset the simulator before the examples of %s' % name, 'ansible.builtin.set_fact': dict(
            examples_reset="{{ lookup('sim_admin', '%s/reset', method='POST', body={'transition_delay': 0.2}) }}" % admin)}],
        tasks=tasks,
        post_tasks=[
            {'name': 'Read what the examples of %s sent' % name, 'ansible.builtin.set_fact': dict(
                examples_log="{{ query('sim_admin', '%s/requests')[0].requests }}" % admin)},
            {'name': 'Check that the examples of %s sent requests the simulator accepted' % name, 'ansible.builtin.assert': dict(
                # A read answered 404 after a DELETE of its path is how a delete is seen to be done.
                that=['examples_log | length > 0',
                      "examples_log | selectattr('status', '>=', 400) | rejectattr('path', 'in', examples_log"
                      " | selectattr('method', 'eq', 'DELETE') | map(attribute='path') | list) | list | length == 0"],
                fail_msg='{{ examples_log | to_json }}')},
        ])


def module_examples(path):
    """(name, EXAMPLES as a list of tasks) of a module file, read without importing it."""
    name = os.path.basename(path)[:-3]
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    texts = [ast.literal_eval(node.value) for node in tree.body
             if isinstance(node, ast.Assign) and any(getattr(target, 'id', None) == 'EXAMPLES' for target in node.targets)]
    assert texts and texts[0].strip(), '%s has no EXAMPLES' % name
    tasks = yaml.safe_load(texts[0])
    assert isinstance(tasks, list) and tasks, '%s: EXAMPLES must be a list of tasks' % name
    return name, tasks


@pytest.mark.parametrize('path', MODULES, ids=[os.path.basename(path)[:-3] for path in MODULES])
def test_examples_are_tasks_that_call_the_module(path):
    name, tasks = module_examples(path)
    assert any(('engine.cloud.%s' % name) in task for task in tasks), '%s: no example calls engine.cloud.%s' % (name, name)
    assert all(task.get('name') for task in tasks), '%s: every example task needs a name' % name


def test_examples_run_against_the_simulator(tmp_path, simulator, collections_path):
    """One ansible-playbook run, one play per module (a play fails on its first failed task)."""
    plays = [example_play(name, tasks, simulator.url) for name, tasks in (module_examples(path) for path in MODULES)]
    playbook = tmp_path / 'examples.yml'
    playbook.write_text(yaml.safe_dump(plays, sort_keys=False))
    lookups = os.path.join(collections_path, 'ansible_collections', 'engine', 'cloud', ADMIN_LOOKUPS)
    env = ansible_env(collections_path, ANSIBLE_LOOKUP_PLUGINS=lookups)
    run = ansible('ansible-playbook', tmp_path, env, '-i', 'localhost,', str(playbook))
    assert run.returncode == 0, run.stdout[-6000:]
    played = [line for line in run.stdout.splitlines() if line.startswith('PLAY [Examples of engine.cloud.')]
    assert len(played) == len(MODULES), run.stdout[-6000:]
