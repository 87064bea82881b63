# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guide "Pipes as code" runs as written: its vault file (encrypted with ansible-vault), pipes.yml twice,
add_table.yml and teardown.yml, against the simulator, with the ENGINE_* variables the getting-started guide
exports; what each sent is checked in the simulator's request log, and no credential appears in any output."""

import re

import pytest

from conftest import ansible, ansible_env, code_blocks, simulator_exports, writes
from tests.simulator import fixture_ids as ids

yaml = pytest.importorskip('yaml')


def guide_files():
    """{file name: content} of the guide's code blocks, each named by its first line (# name)."""
    return dict((re.match(r'# (\S+)', text).group(1), text) for dummy, caption, text in
                code_blocks('guide_pipes_as_code.rst', 'yaml', 'yaml+jinja') if not caption)


def test_the_guide_names_its_files():
    assert sorted(guide_files()) == ['add_table.yml', 'pipes.yml', 'teardown.yml', 'vault.yml']


def test_the_guide_runs_as_written(tmp_path, simulator, collections_path):
    files = guide_files()
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    secrets = list(yaml.safe_load(files['vault.yml']).values())
    (tmp_path / 'vault-pass').write_text('guide-vault-password\n')
    env = ansible_env(collections_path, ANSIBLE_VAULT_PASSWORD_FILE=str(tmp_path / 'vault-pass'))
    assert ansible('ansible-vault', tmp_path, env, 'encrypt', 'vault.yml').returncode == 0
    assert not any(secret in (tmp_path / 'vault.yml').read_text() for secret in secrets)
    simulator.reset(transition_delay=0)
    env.update(simulator_exports(simulator))

    def play(name):
        simulator.clear_requests()
        run = ansible('ansible-playbook', tmp_path, env, '-v', name)
        assert run.returncode == 0, run.stdout[-6000:]
        assert not any(secret in run.stdout for secret in secrets)
        return [(method, path.rsplit('/', 1)[-1], body) for method, path, body in writes(simulator.requests())]

    created = play('pipes.yml')
    assert [method for method, dummy, dummy2 in created] == ['POST', 'PATCH', 'POST']
    assert created[0][2]['source']['kafka']['credentials']['password'] == secrets[0]
    assert created[2][2]['source']['postgres']['credentials']['password'] == secrets[1]
    assert play('pipes.yml') == []
    added = play('add_table.yml')
    assert [(method, path) for method, path, dummy in added] == [('PATCH', 'state'), ('PATCH', added[1][1])]
    assert added[1][2] == {'source': {'postgres': {'tableMappingsToAdd': [
        {'sourceSchemaName': 'public', 'sourceTable': 'invoices', 'targetTable': 'shop_invoices'}]}}}
    assert [method for method, dummy, dummy2 in play('teardown.yml')] == ['DELETE', 'DELETE']
    assert [pipe['name'] for pipe in simulator.state()['pipes'] if pipe['serviceId'] == ids.SERVICE_PROD] == [
        'orders-kafka', 'events-objectstorage', 'clicks-stream', 'users-postgres']
