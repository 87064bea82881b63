# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest
import requests
from ansible.module_utils.testing import patch_module_args

from ansible_collections.engine.cloud.plugins.module_utils import client
from ansible_collections.engine.cloud.plugins.modules import dashboard_info

DASHBOARD_ID = '65a1b2c3d4e5f60718293a4b'
DASHBOARD = {'id': DASHBOARD_ID, 'name': 'Service health', 'tags': ['sre'], 'tiles': [{'id': 't-cpu', 'series': []}]}


class FakeApi:
    """Stands in for the network below the real client: answer(request) gives (status, body)."""

    def __init__(self, answer):
        self.answer = answer
        self.requests = []

    def send(self, request, **kwargs):
        self.requests.append(request)
        status, body = self.answer(request)
        response = requests.Response()
        response.status_code = status
        if isinstance(body, str):
            response.headers['Content-Type'] = 'text/plain; charset=utf-8'
            response._content = body.encode()
        else:
            response.headers['Content-Type'] = 'application/json'
            response._content = json.dumps(body).encode()
        response.url, response.request = request.url, request
        return response

    def paths(self):
        return [(request.method, requests.utils.urlparse(request.url).path) for request in self.requests]


def run_module(main, args, answer, monkeypatch, capsys, check_mode=False):
    """Run a module's main() against answer; return (result, FakeApi)."""
    api = FakeApi(answer)
    monkeypatch.setattr(requests.adapters.HTTPAdapter, 'send', lambda adapter, request, **kwargs: api.send(request, **kwargs))
    full = dict(observability_url='http://obs.test', api_token='tok-secret-123', api_retries=0, _ansible_check_mode=check_mode)
    full.update(args)
    with patch_module_args(full):
        with pytest.raises(SystemExit):
            main()
    return json.loads(capsys.readouterr().out), api


def run(args, answer, monkeypatch, capsys, **kwargs):
    return run_module(dashboard_info.main, args, answer, monkeypatch, capsys, **kwargs)


@pytest.mark.parametrize('check_mode', [False, True])
def test_reads_the_dashboard_with_one_get(monkeypatch, capsys, check_mode):
    result, api = run(dict(dashboard_id=DASHBOARD_ID), lambda request: (200, {'data': DASHBOARD}), monkeypatch, capsys,
                      check_mode=check_mode)
    assert result['dashboard'] == DASHBOARD
    assert result['changed'] is False
    assert api.paths() == [('GET', '/api/v2/dashboards/' + DASHBOARD_ID)]
    assert api.requests[0].headers['Authorization'] == 'Bearer tok-secret-123'


@pytest.mark.parametrize('bad', ['xyz', '65a1b2c3d4e5f60718293a4', '65a1b2c3d4e5f60718293a4bb', '65a1b2c3d4e5f60718293a4g', ''])
def test_malformed_id_fails_before_sending(monkeypatch, capsys, bad):
    result, api = run(dict(dashboard_id=bad), lambda request: (200, {'data': DASHBOARD}), monkeypatch, capsys)
    assert result['failed'] is True
    assert result['msg'] == 'dashboard_id must be an object id of 24 hexadecimal digits, got %r' % bad
    assert api.requests == []


def test_missing_dashboard_fails_naming_the_id(monkeypatch, capsys):
    result, api = run(dict(dashboard_id='65a1b2c3d4e5f60718293a4f'), lambda request: (404, 'Not Found'), monkeypatch, capsys)
    assert result['failed'] is True
    assert result['msg'].startswith('dashboard 65a1b2c3d4e5f60718293a4f not found')
    assert 'HTTP 404' in result['msg']
    assert (result['status'], result['method'], result['path']) == (404, 'GET', '/api/v2/dashboards/65a1b2c3d4e5f60718293a4f')
    assert len(api.requests) == 1


def test_refused_token_says_so(monkeypatch, capsys):
    result, api = run(dict(dashboard_id=DASHBOARD_ID), lambda request: (401, 'Unauthorized'), monkeypatch, capsys)
    assert result['failed'] is True
    assert 'HTTP 401' in result['msg'] and 'refused the token' in result['msg'] and 'api_token' in result['msg']
    assert 'tok-secret-123' not in json.dumps(result)
    assert len(api.requests) == 1


def test_other_errors_are_not_reported_as_missing(monkeypatch, capsys):
    result, dummy = run(dict(dashboard_id=DASHBOARD_ID), lambda request: (500, {'message': 'Something went wrong :('}),
                        monkeypatch, capsys)
    assert result['failed'] is True
    assert 'not found' not in result['msg']
    assert result['msg'] == 'GET http://obs.test/api/v2/dashboards/%s failed: HTTP 500: Something went wrong :(' % DASHBOARD_ID


def test_a_429_is_retried(monkeypatch, capsys):
    answers = [(429, 'Too many requests, please try again later.'), (200, {'data': DASHBOARD})]
    monkeypatch.setattr(client.HttpClient, 'backoff', lambda self, attempt: 0)
    result, api = run(dict(dashboard_id=DASHBOARD_ID, api_retries=2), lambda request: answers.pop(0), monkeypatch, capsys)
    assert result['dashboard'] == DASHBOARD
    assert len(api.requests) == 2
