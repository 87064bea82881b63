# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""No key secret, token or connection string in stdout, stderr, the JSON callback output or the
registered results of any run of the suite: every fault run (-vvv --diff), every bad-input run
(what the modules printed), every
module in check mode (-vvv --diff --check), the failure paths where a secret is at hand (wrong
credentials, an error body or a broken JSON body that holds the connection string), TLS and load.
A run that prints a secret on purpose proves that the scan finds one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

import pytest

import cases
from tests.simulator.fixture_ids import CONNECTION_STRING, KEY_ID, KEY_SECRET, TOKEN
from suite import BROKEN_TOKEN, WRONG_SECRET, WRONG_TOKEN

ACCOUNT_KEY = CONNECTION_STRING.split('AccountKey=')[1].split(';')[0]
SECRETS = {
    'api key secret': KEY_SECRET,
    'observability token': TOKEN,
    'connection string': CONNECTION_STRING,
    'connection string account key': ACCOUNT_KEY,
    'account key, decoded': base64.b64decode(ACCOUNT_KEY).decode('utf-8'),
    'Basic authorization header': base64.b64encode(('%s:%s' % (KEY_ID, KEY_SECRET)).encode('utf-8')).decode('ascii'),
    'wrong key secret given to a task': WRONG_SECRET,
    'wrong token given to a task': WRONG_TOKEN,
    'service password given to a task': cases.SERVICE_PASSWORD,
    # a token with a line break inside, as a message would quote it: whole, or escaped as repr() shows it
    'token with a line break inside': BROKEN_TOKEN,
    'token with a line break inside, escaped': BROKEN_TOKEN.replace('\n', '\\n'),
}
# The run that prints a secret on purpose is not part of the zero count.
EXCLUDED = ('planted',)


def scan(run):
    """[(channel, secret name)] for every secret found in any output channel of run."""
    return [(channel, name) for channel, text in run.outputs() for name, value in SECRETS.items() if value in text]


def test_the_scan_finds_a_planted_secret(suite):
    run = suite.result('planted')
    assert run.rc == 0, run.explain()
    found = set(channel for channel, name in scan(run) if name == 'api key secret')
    assert found == {'stdout', 'json callback', 'registered results'}, found
    suite.counts.set('secrets', 'planted_found', 1)


def test_no_secret_in_any_output(suite):
    suite.wait_all()
    runs = [run for run in suite.ansible.runs if not run.name.startswith(EXCLUDED)]
    channels = [(run, channel, text) for run in runs for channel, text in run.outputs()]
    found = [(run.name, hit) for run in runs for hit in scan(run)]
    counts = suite.counts
    counts.set('secrets', 'runs', len(runs))
    counts.set('secrets', 'channels', len(channels))
    counts.set('secrets', 'bytes', sum(len(text) for dummy, dummy2, text in channels))
    counts.set('secrets', 'values', len(SECRETS))
    counts.set('secrets', 'found', len(found))
    assert len(runs) >= 2 * len(cases.MODULES), 'every fault and bad-input run is scanned'
    assert not found, found


def test_check_mode_runs_every_module_and_writes_nothing(suite):
    check, real = suite.result('check')
    assert check.rc == 0, check.explain()
    registered = check.registered
    writes = [entry for entry in registered['check_log'] if entry['method'] in ('PATCH', 'PUT')]
    assert not writes, writes
    for module in cases.MODULES:
        result = registered['check_' + module.name]
        assert not result.get('failed'), (module.name, result.get('msg'))
        assert result.get('changed') is bool(module.write), module.name
        if module.write:
            assert result.get('diff'), '%s shows a diff in check mode' % module.name
    for module in cases.WRITERS:
        result = real.registered['real_' + module.name]
        assert result.get('changed') is True and result.get('diff'), (module.name, result.get('msg'))


@pytest.mark.parametrize('path,words', [
    ('wrong_secret', ['HTTP 401', 'api_key_secret']),
    ('wrong_token', ['HTTP 401', 'api_token']),
    ('missing_pipe', ['HTTP 404', 'NOT_FOUND']),
    ('truncated_secret_body', ['not valid JSON']),
    ('secret_in_error_body', ['HTTP 500']),
    ('html_page', ['HTTP 502', 'HTML']),
    ('broken_token', ['line break', 'nothing was sent']),
])
def test_failure_paths_fail_cleanly(suite, path, words):
    check, dummy = suite.result('check')
    result = check.registered['fail_' + path]
    assert result.get('failed'), result
    for word in words:
        assert word in result.get('msg', ''), (word, result.get('msg'))


def test_a_token_with_a_newline_at_the_end_works(suite):
    """What `echo ... | ansible-vault encrypt_string` gives: the newline is not sent (it made the task fail with a
    traceback that showed the token); test_no_secret_in_any_output scans this -vvv run too."""
    check, dummy = suite.result('check')
    result = check.registered['fail_newline_token']
    assert not result.get('failed') and result.get('dashboard'), result.get('msg')


def test_both_apis_credentials_in_group_all(suite):
    """Both APIs' credentials in group/engine.cloud.all (as DESIGN.md describes): every module takes them,
    and the other API's secret, which the module ignores, is not printed either."""
    run = suite.result('group_all')
    for name in ('all_service_info', 'all_dashboard_info'):
        assert not run.registered[name].get('failed'), run.registered[name].get('msg')
    assert not scan(run)
