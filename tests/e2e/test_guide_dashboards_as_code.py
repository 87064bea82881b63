# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guide "Dashboards and alerts as code" (docs/docsite/rst/guide_dashboards_as_code.rst) runs as printed
against the simulator, with the ENGINE_OBSERVABILITY_* variables: its playbooks, its console commands (git
included), and its YAML snippets put into the exported files where the guide says. What each step sent is
checked in the simulator's request log and state; the export applied again sends no write."""

import os
import re
import shlex
import subprocess

import pytest

from conftest import BIN, GUIDES, ansible_env, captioned, code_blocks, read, recap, writes
from tests.simulator import fixture_ids as ids

yaml = pytest.importorskip('yaml')

GUIDE = 'guide_dashboards_as_code.rst'
DASHBOARDS = '/api/v2/dashboards'
ALERTS = '/api/v2/alerts'


def commands():
    """Every '$ ' line of the guide's console blocks, in order."""
    return [line[2:] for dummy, dummy2, text in code_blocks(GUIDE, 'console') for line in text.splitlines() if line.startswith('$ ')]


class Project(object):
    """The guide's project directory and its runs against the simulator."""

    def __init__(self, path, simulator, env):
        self.path, self.simulator, self.env = path, simulator, env

    def run(self, command, fails=False, warnings=False):
        """Run one command line in the project; return (its output, the requests it sent). warnings: any warning
        may show (otherwise only the one expected)."""
        self.simulator.clear_requests()
        argv = shlex.split(command)
        if argv[0].startswith('ansible'):
            argv[0] = os.path.join(BIN, argv[0])
        done = subprocess.run(argv, cwd=str(self.path), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, check=False)
        assert (done.returncode != 0) == fails, done.stdout[-8000:]
        assert ids.TOKEN not in done.stdout
        # the one warning expected: the fixture's alert on a table tile, left as it is
        assert warnings or [line for line in done.stdout.splitlines() if 'WARNING' in line and 'cannot carry alerts' not in line] == []
        return done.stdout, self.simulator.requests()

    def definitions(self, name):
        return yaml.safe_load(read(self.path / 'definitions' / name))

    def write(self, name, data):
        with open(str(self.path / 'definitions' / name), 'w') as handle:
            yaml.safe_dump(data, handle, sort_keys=False)


@pytest.fixture
def project(tmp_path, simulator, collections_path):
    for name, text in captioned(GUIDE).items():
        if name.endswith(('.yml', '.j2')):
            (tmp_path / name).write_text(text)
    simulator.reset()
    env = ansible_env(collections_path, ENGINE_OBSERVABILITY_URL=simulator.url, ENGINE_OBSERVABILITY_TOKEN=ids.TOKEN,
                      GIT_AUTHOR_NAME='Guide', GIT_AUTHOR_EMAIL='guide@example.com', GIT_COMMITTER_NAME='Guide',
                      GIT_COMMITTER_EMAIL='guide@example.com', GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM='1')
    return Project(tmp_path, simulator, env)


def dashboard(simulator, name):
    found = [item for item in simulator.state()['dashboards'] if item['name'] == name]
    assert len(found) == 1, found
    return found[0]


def state_alerts(simulator, name):
    return [alert for alert in simulator.state()['alerts'] if alert.get('name') == name]


# One project goes through the guide in order: export, commit, apply again, then the merge request's --check of an added
# tile and its alert, the add, the move and the removal (each ansible-playbook run proves what follows it).
def test_export_commit_apply_then_add_move_and_remove_a_tile_with_its_alert(project, simulator):
    files = captioned(GUIDE)
    # Every file, snippet and command the guide prints runs here or in the next test.
    assert sorted(files) == ['apply.yml', 'checkout.yml.j2', 'environments.yml', 'export.yml', 'moved tile', 'new alert',
                             'new tile']
    assert commands() == ['ansible-playbook export.yml', 'git init --quiet', 'git add export.yml definitions',
                          'git commit --quiet -m "Dashboards and alerts as they are"',
                          'ansible-playbook apply.yml -e allow_alert_deletion=true']
    export, git_init, git_add, git_commit, delete = commands()
    output, log = project.run(export)
    assert writes(log) == []
    state = simulator.state()
    assert len(project.definitions('dashboards.yml')['dashboards']) == len(state['dashboards'])
    assert len(project.definitions('alerts.yml')['alerts']) == len(state['alerts'])
    for command in (git_init, git_add, git_commit):
        project.run(command)
    assert subprocess.check_output(['git', 'ls-files'], cwd=str(project.path), universal_newlines=True).split() == [
        'definitions/alerts.yml', 'definitions/dashboards.yml', 'export.yml']
    output, log = project.run('ansible-playbook apply.yml')
    assert writes(log) == []
    assert recap(output)[1] == 0
    health_tiles = [tile['id'] for tile in dashboard(simulator, 'Service health')['tiles']]

    # The guide suggests --check on a merge request; adding a tile and an alert on it is such a change: the guide's new
    # tile in Service health, its new alert at the end of alerts.yml. In check mode the alert on a tile that the same
    # plan adds is planned on the tile as the dashboard's entry leaves it: a create.
    dashboards, alerts = project.definitions('dashboards.yml'), project.definitions('alerts.yml')
    health = next(item for item in dashboards['dashboards'] if item['name'] == 'Service health')
    health['tiles'] += yaml.safe_load(files['new tile'])
    alerts['alerts'] += yaml.safe_load(files['new alert'])
    project.write('dashboards.yml', dashboards)
    project.write('alerts.yml', alerts)
    output, log = project.run('ansible-playbook apply.yml --check --diff', warnings=True)
    assert writes(log) == []
    assert recap(output)[1] == 1, output[-4000:]
    assert '+++ after: dashboard Service health' in output and '+++ after: alert Replica lag high' in output, output[-4000:]

    # add: the tile to Service health, the alert at the end of alerts.yml
    output, log = project.run('ansible-playbook apply.yml')
    sent = writes(log)
    expected = [('PUT', '%s/%s' % (DASHBOARDS, ids.DASHBOARD_HEALTH)), ('POST', ALERTS)]
    assert [(method, path) for method, path, dummy in sent] == expected
    assert [tile.get('id') for tile in sent[0][2]['tiles']] == health_tiles + [None]
    added = dict((tile['name'], tile) for tile in dashboard(simulator, 'Service health')['tiles'])['Replica lag']
    [alert] = state_alerts(simulator, 'Replica lag high')
    assert alert['tileId'] == added['id'] and alert['message'].startswith('Replicas of prod-analytics')
    assert writes(project.run('ansible-playbook apply.yml')[1]) == []

    # move: one PUT, every tile keeps its id, the alert stays on the moved tile
    moved = yaml.safe_load(files['moved tile'])[0]
    health['tiles'][-1] = moved
    project.write('dashboards.yml', dashboards)
    output, log = project.run('ansible-playbook apply.yml --check --diff')
    assert writes(log) == []
    assert 'Replica lag' in output
    # The diff shows the keys that the guide says differ, and only those.
    printed = re.search(r'with only what differs \(((?:``\w+``,?\s*)+)\)', read(GUIDES, GUIDE)).group(1)
    shown = re.findall(r'^[-+] +"(\w+)":', output, re.M)
    assert sorted(set(shown)) == sorted(re.findall(r'``(\w+)``', printed)) and len(shown) == 2 * len(set(shown)), output[-3000:]
    output, log = project.run('ansible-playbook apply.yml')
    assert [(method, path) for method, path, dummy in writes(log)] == [('PUT', '%s/%s' % (DASHBOARDS, ids.DASHBOARD_HEALTH))]
    tiles = dict((tile['name'], tile) for tile in dashboard(simulator, 'Service health')['tiles'])
    assert [tiles[name]['id'] for name in tiles] == health_tiles + [added['id']]
    assert (tiles['Replica lag']['x'], tiles['Replica lag']['y'], tiles['Replica lag']['h']) == (12, 0, 6)
    assert [item['tileId'] for item in state_alerts(simulator, 'Replica lag high')] == [added['id']]

    # remove: refused before any write, naming the alert; then let go with allow_alert_deletion
    health['tiles'].pop()
    alerts['alerts'].pop()
    project.write('dashboards.yml', dashboards)
    project.write('alerts.yml', alerts)
    output, log = project.run('ansible-playbook apply.yml', fails=True)
    assert writes(log) == []
    refusal = re.sub(r'\s+', ' ', code_blocks(GUIDE, 'text')[0][2]).strip()
    pattern = re.escape(refusal).replace(re.escape('68...'), '[0-9a-f]{24}')
    assert re.search(pattern, re.sub(r'\s+', ' ', output)), output[-4000:]
    output, log = project.run(delete)
    assert [(method, path) for method, path, dummy in writes(log)] == [('PUT', '%s/%s' % (DASHBOARDS, ids.DASHBOARD_HEALTH))]
    assert 'Replica lag' not in [tile['name'] for tile in dashboard(simulator, 'Service health')['tiles']]
    assert state_alerts(simulator, 'Replica lag high') == []
    assert writes(project.run('ansible-playbook apply.yml')[1]) == []


def test_one_template_makes_the_dashboard_of_each_environment(project, simulator):
    output, log = project.run('ansible-playbook environments.yml')
    assert [(method, path) for method, path, dummy in writes(log)] == [('POST', DASHBOARDS)] * 2 + [('POST', ALERTS)] * 2
    for env, webhook, limit in (('staging', ids.WEBHOOK_CHAT, 50), ('production', ids.WEBHOOK_PAGER, 10)):
        made = dashboard(simulator, 'Checkout (%s)' % env)
        assert made['tags'] == ['checkout', env]
        errors = next(tile for tile in made['tiles'] if tile['name'] == 'Errors')
        [alert] = state_alerts(simulator, 'Checkout errors (%s)' % env)
        assert (alert['tileId'], alert['threshold'], alert['channels'][0]['webhookId']) == (errors['id'], limit, webhook)
    output, log = project.run('ansible-playbook environments.yml')
    assert writes(log) == []
    assert recap(output)[1] == 0
