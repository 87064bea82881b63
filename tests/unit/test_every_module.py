# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every module of tests/simulator/catalog.py promises: check mode sends no write and predicts the change the
real run makes (the same diff), a second run changes nothing and sends no write, and no secret shows in any output
(every run of the unit tests is scanned: conftest.leaks), here also where a secret is at hand on a failure path."""

import json

import pytest

from ansible_collections.engine.cloud.tests.simulator import catalog
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    CONNECTION_STRING, DASHBOARD_HEALTH, PIPE_OBJECT_STORAGE, SERVICE_PROD, pipe_path)
from ansible_collections.engine.cloud.tests.unit.conftest import SECRETS, leaks, module_of

WRONG_SECRET, WRONG_TOKEN = 'sim-key-secret-WRONG-7c3b91', 'sim-obs-token-WRONG-5e8a02'


@pytest.mark.parametrize('module', catalog.MODULES, ids=repr)
def test_check_mode_sends_no_write_and_predicts_the_real_run(run, sim, module):
    checked = run.main(module_of(module.name), module.args, check=True, diff=True)
    assert not checked.get('failed') and sim.writes() == [], checked.get('msg')
    assert checked['changed'] is bool(module.write)
    if module.write:
        sim.clear_requests()
        applied = run.main(module_of(module.name), module.args, check=False, diff=True)
        assert applied['changed'] is True and applied['diff'] == checked['diff'] and sim.writes()


@pytest.mark.parametrize('module', catalog.WRITERS, ids=repr)
def test_a_second_run_changes_nothing_and_sends_no_write(run, sim, module):
    for args in (module.args, module.unchanged):
        run.main(module_of(module.name), args, check=False, diff=False)
        sim.clear_requests()
        again = run.main(module_of(module.name), args, check=False, diff=True)
        assert again['changed'] is False and 'diff' not in again and sim.writes() == [], (args, again.get('msg'), sim.writes())


@pytest.mark.parametrize('name', sorted(SECRETS))
def test_the_scan_finds_each_secret(name):
    assert name in leaks(json.dumps({'msg': 'quoted: %s.' % SECRETS[name]}))
    assert leaks('a token %s' % WRONG_TOKEN, WRONG_TOKEN) == [WRONG_TOKEN]


PIPE_INFO = dict(service_id=SERVICE_PROD, pipe_id=PIPE_OBJECT_STORAGE)
# A secret the client does not know, such as a pipe's connection string, quoted in an error: test_errors.py (masked by
# its field's name, in any text a message quotes).
FAILURES = {
    'a wrong key secret': ('pipe_info', dict(PIPE_INFO, api_key_secret=WRONG_SECRET), ['HTTP 401', 'api_key_secret']),
    'a wrong token': ('dashboard_info', dict(dashboard_id=DASHBOARD_HEALTH, api_token=WRONG_TOKEN), ['HTTP 401', 'api_token']),
}


@pytest.mark.parametrize('check', [True, False], ids=['check mode', 'real'])
@pytest.mark.parametrize('failure', sorted(FAILURES))
def test_a_failure_where_a_secret_is_at_hand_shows_none(run, failure, check):
    name, args, words = FAILURES[failure]
    result = run.main(module_of(name), args, check=check, diff=True)
    assert result.get('failed') and all(word in result['msg'] for word in words), result
    assert not leaks(json.dumps(result), WRONG_SECRET, WRONG_TOKEN)


def test_no_secret_in_a_pipe_written_read_and_diffed(run, sim):
    """The connection string is held by the simulator and masked in the result and the diff of a change."""
    result = run.main(module_of('pipe'), dict(PIPE_INFO, name='renamed'), check=False, diff=True)
    assert result['changed'] and result['pipe']['source']['objectStorage']['connectionString'] == '********'
    assert sim.find('pipes', PIPE_OBJECT_STORAGE)['source']['objectStorage']['connectionString'] == CONNECTION_STRING
    assert pipe_path(PIPE_OBJECT_STORAGE) in [entry['path'] for entry in sim.requests()]
