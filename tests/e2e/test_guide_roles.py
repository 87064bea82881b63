# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The examples of the maintenance_window, service_config and metrics_gate guides, as printed, run the way the guides
say, with the connection in the environment as the getting-started guide exports it for the simulator (the guides'
ids are the simulator's fixture). The maintenance window and the GitOps playbook, with a services/ file that holds the
variable as printed and a second one, run ``--check --diff`` first, then for real: the check run writes nothing; each
run reports exactly the changes it makes (a probe of the roles is no change) and shows each diff once. The gate fails
as its guide prints."""

import re

import pytest

from conftest import GUIDES, ansible, ansible_env, captioned, code_blocks, read, recap, simulator_exports, writes
from tests.simulator import fixture_ids as ids

yaml = pytest.importorskip('yaml')


def printed(guide, language):
    """The texts of a guide's code blocks of one language that have no caption."""
    return [text for dummy, caption, text in code_blocks(guide, language) if not caption]


@pytest.fixture
def project(tmp_path, simulator, collections_path):
    """A project with both guides' playbooks: the service_config one, site.yml, beside the services/ directory its
    guide shows, a file per service that holds the variable as the guide prints it (a second one for dev-sandbox);
    run(*args) runs window.yml and site.yml in one ansible-playbook run."""
    [window] = printed('guide_maintenance_window.rst', 'yaml+jinja')
    (tmp_path / 'window.yml').write_text(window)
    [variable] = printed('guide_service_config.rst', 'yaml')
    [layout] = printed('guide_service_config.rst', 'text')
    assert layout.split() == ['site.yml', 'services/', 'prod-analytics.yml', 'dev-sandbox.yml'], layout
    (tmp_path / 'services').mkdir()
    (tmp_path / 'services' / 'prod-analytics.yml').write_text(variable)
    dev = dict(service_config_service=dict(id=ids.SERVICE_DEV, name='dev-sandbox-eu'))
    (tmp_path / 'services' / 'dev-sandbox.yml').write_text(yaml.safe_dump(dev))
    (tmp_path / 'site.yml').write_text(captioned('guide_service_config.rst')['site.yml'])
    (tmp_path / 'both.yml').write_text('- ansible.builtin.import_playbook: window.yml\n- ansible.builtin.import_playbook: site.yml\n')
    simulator.reset(transition_delay=0)
    env = ansible_env(collections_path, **simulator_exports(simulator))

    def run(*args):
        simulator.clear_requests()
        done = ansible('ansible-playbook', tmp_path, env, 'both.yml', *args)
        assert done.returncode == 0, done.stdout[-6000:]
        return done.stdout, simulator.requests()
    return run


def test_check_diff_then_run_report_each_change_once(project):
    output, log = project('--check', '--diff')
    assert writes(log) == []
    # Each scaling diff once: the window's (3 to 5 replicas) and the service_config variable's (3 to 4).
    scaling_diffs = re.findall(r'^[-+] *"numReplicas": \d+', output, re.M)
    assert sorted(scaling_diffs) == ['+    "numReplicas": 4', '+    "numReplicas": 5', '-    "numReplicas": 3',
                                     '-    "numReplicas": 3'], output[-6000:]
    # The window stops its pipes, scales, stops the service (in check mode it still runs: no start);
    # service_config changes prod-analytics' details (its IP access list) and scaling, and dev-sandbox's name.
    assert recap(output)[1] == 6, output[-6000:]

    output, log = project()
    prod, dev = ids.service_path(), ids.service_path(ids.SERVICE_DEV)
    kafka, objects = ids.pipe_path(ids.PIPE_KAFKA, '/state'), ids.pipe_path(ids.PIPE_OBJECT_STORAGE, '/state')
    sent = [(method, path) for method, path, dummy in writes(log)]
    assert sent == [('PATCH', kafka), ('PATCH', objects), ('PATCH', prod + '/scaling'), ('PATCH', prod + '/state'),
                    ('PATCH', prod + '/state'), ('PATCH', kafka), ('PATCH', objects), ('PATCH', dev), ('PATCH', prod),
                    ('PATCH', prod + '/scaling')], sent
    assert [entry['body'] for entry in log if entry['path'] == dev and entry['method'] == 'PATCH'] == [{'name': 'dev-sandbox-eu'}]
    # One change per task that wrote: both pipe stops are one task, both starts another.
    assert recap(output)[1] == 8, output[-6000:]


def without_names(data):
    """data with every task's and play's name left out (the README and the guide name them differently)."""
    if isinstance(data, list):
        return [without_names(item) for item in data]
    if isinstance(data, dict):
        return dict((key, without_names(value)) for key, value in data.items() if key != 'name' or not isinstance(value, str)
                    or 'engine.cloud.' in value)
    return data


def test_the_maintenance_window_readme_prints_the_guides_play():
    """roles/maintenance_window/README.md prints the play that the guide prints and the runs above run."""
    readme = re.search(r'## Credentials\n.*?```yaml\n(.*?)```', read('roles', 'maintenance_window', 'README.md'), re.S).group(1)
    [window] = printed('guide_maintenance_window.rst', 'yaml+jinja')
    assert without_names(yaml.safe_load(readme)) == without_names(yaml.safe_load(window))


def test_the_service_config_readme_prints_the_guides_gitops_example():
    """The GitOps example of the service_config role: its README and the guide print the same playbook (the runs above
    run the guide's, beside a services/ directory of one file per service that holds the variable as printed)."""
    readme = re.search(r'```yaml\n(.*?)```', read('roles', 'service_config', 'README.md').split('## GitOps', 1)[1], re.S).group(1)
    assert yaml.safe_load(readme) == yaml.safe_load(captioned('guide_service_config.rst')['site.yml'])


def test_the_metrics_gate_fails_as_its_guide_prints(tmp_path, simulator, collections_path):
    """Against the simulator the guide's gate fails on the latency series and the firing alert, with the message the
    guide prints (its values are the simulator's), and the passed check reads as the guide quotes it."""
    [gate] = printed('guide_metrics_gate.rst', 'yaml+jinja')
    (tmp_path / 'gate.yml').write_text(gate)
    text = read(GUIDES, 'guide_metrics_gate.rst')
    failure = ' '.join(re.search(r'in one message[^:]*::\n\n((?:   .*\n)+)', text).group(1).split())
    passed = re.search(r'passed ones included \(``(.*?)``\)', text, re.S).group(1).replace('\n', ' ')
    simulator.reset()
    done = ansible('ansible-playbook', tmp_path, ansible_env(collections_path, **simulator_exports(simulator)), 'gate.yml')
    assert done.returncode == 2 and len(re.findall(r'^fatal:', done.stdout, re.M)) == 1, done.stdout[-4000:]
    assert ids.TOKEN not in done.stdout
    assert re.search(any_values(failure), done.stdout) and re.search(any_values(passed), done.stdout), done.stdout[-4000:]
    assert writes(simulator.requests()) == []


def any_values(message):
    """A regular expression for a message the guide prints with example values: any number after '= '."""
    return r'\d+(?:\.\d+)?'.join(re.escape(part) for part in re.split(r'(?<== )\d+(?:\.\d+)?', message))
