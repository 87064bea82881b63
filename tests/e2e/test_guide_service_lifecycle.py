# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The playbooks of the guide "The life of a service" (docs/docsite/rst/guide_service_lifecycle.rst), as printed, run
against the simulator with the ENGINE_* variables the getting-started guide exports and a password in an encrypted
vault file: each creates, converges or deletes what it says, from the simulator's request log, and no output holds
the password."""

import os
import re
import stat

import pytest

from conftest import GUIDES, ansible, ansible_env, captioned, read, simulator_exports, writes
from tests.simulator import fixture_ids as ids
from tests.simulator.cloud import PASSWORD_FIELDS, password_hashes

yaml = pytest.importorskip('yaml')

GUIDE = 'guide_service_lifecycle.rst'
PASSWORD = 'Guide-Vault-Secret-31'
SERVICES = '/v1/organizations/%s/services' % ids.ORGANIZATION


def run_lines():
    """Every ``ansible-playbook ...`` command the guide prints, as argument lists."""
    return [line.split() for line in re.findall(r'``(ansible-playbook [^`]+)``', read(GUIDES, GUIDE))]


def as_run_here(argv):
    """A printed command line as this test runs it: the vault password from a file (nobody types it here)."""
    return [('--vault-password-file=vault-pass' if arg == '--ask-vault-pass' else arg) for arg in argv[1:]]


@pytest.fixture
def project(tmp_path, simulator, collections_path):
    """A project directory with the guide's playbooks and an encrypted group_vars/all/vault.yml; run(name)
    runs one of them against the simulator (reset once, here)."""
    for caption, text in captioned(GUIDE).items():
        (tmp_path / caption).write_text(text)
    (tmp_path / 'group_vars' / 'all').mkdir(parents=True)
    vault = tmp_path / 'group_vars' / 'all' / 'vault.yml'
    vault.write_text(yaml.safe_dump({'vault_analytics_password': PASSWORD}))
    (tmp_path / 'vault-pass').write_text('guide-vault-key\n')
    encrypted = ansible('ansible-vault', tmp_path, None, 'encrypt', '--vault-password-file', 'vault-pass', str(vault))
    assert encrypted.returncode == 0 and PASSWORD not in vault.read_text(), encrypted.stdout
    simulator.reset(transition_delay=0)
    env = ansible_env(collections_path, **simulator_exports(simulator))

    def run(name, *extra):
        """The guide's run line of the playbook name (the first one printed, or -v with the vault file for one
        without, staging.yml), with extra arguments; its request log (and its output as run.output)."""
        printed = next((as_run_here(argv) for argv in run_lines() if argv[1] == name), ['-v', '--vault-password-file=vault-pass', name])
        simulator.clear_requests()
        done = ansible('ansible-playbook', tmp_path, env, *(printed + list(extra)))
        assert done.returncode == 0, done.stdout[-6000:]
        assert PASSWORD not in done.stdout
        log = simulator.requests()
        assert [entry for entry in log if entry['status'] >= 400 and entry['method'] != 'GET'] == []
        assert PASSWORD not in str(log)
        run.output = done.stdout
        return log

    run.path = tmp_path
    return run


# One project, one encrypted vault, the guide's runs in the order a reader makes them: analytics.yml with --check --diff
# first (it writes nothing), then for real (created once: the run after it sends only reads), reporting.yml, staging.yml.
def test_the_guides_runs_in_order(project, simulator):
    assert sorted(captioned(GUIDE)) == ['analytics.yml', 'reporting.yml', 'staging.yml']
    # staging.yml runs from an AWX job template (the guide's last section) with a Vault credential.
    assert [argv[1] for argv in run_lines()] == ['analytics.yml', 'analytics.yml', 'reporting.yml']
    [check] = [argv for argv in run_lines() if '--check' in argv]
    assert check == run_lines()[0] + ['--check', '--diff']
    assert writes(project('analytics.yml', '--check', '--diff')) == []
    assert '"name": "analytics-eu"' in project.output and 'changed=1' in project.output, project.output[-4000:]

    log = project('analytics.yml')
    created = writes(log)
    assert [(method, path) for method, path, dummy in created] == [('POST', SERVICES), ('PATCH', created[1][1])]
    tags = [{'key': 'env', 'value': 'production'}, {'key': 'team', 'value': 'data-platform'}]
    assert created[0][2]['name'] == 'analytics-eu' and created[0][2]['tags'] == tags
    assert created[1][1].endswith('/password') and created[1][2] == dict(zip(PASSWORD_FIELDS, password_hashes(PASSWORD)))
    assert writes(project('analytics.yml')) == []

    # reporting.yml keeps the generated password in a private file
    project('reporting.yml')
    kept = project.path / 'reporting-eu.password'
    assert stat.S_IMODE(os.stat(str(kept)).st_mode) == 0o600
    service = next(item for item in simulator.state()['services'] if item['name'] == 'reporting-eu')
    assert password_hashes(kept.read_text())[0] == service['sim']['passwordHash']

    # staging.yml creates, uses and deletes its service in one play
    log = project('staging.yml', '-e', 'staging_run=e2e')
    assert [(method, re.sub(r'/[0-9a-f-]{36}', '/S', path[len(SERVICES):])) for method, path, dummy in writes(log)] == [
        ('POST', ''), ('PATCH', '/S/password'), ('PATCH', '/S/state'), ('DELETE', '/S')]
    assert [item for item in simulator.state()['services'] if item['name'] == 'staging-e2e'] == []
