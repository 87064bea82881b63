# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The chart_series lookup: keyword arguments checked as the module checks its options, the same
request through the same client, the rows as the module returns them, AnsibleErrors that name the
option, the environment fallbacks, and no token in any message."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleError

from ansible_collections.engine.cloud.plugins.lookup.chart_series import LookupModule
from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils import timespec
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SOURCE_METRICS, TOKEN

NOW = 1728740220123
URL = 'https://observability.example'
SERIES = [dict(source_id=SOURCE_METRICS, agg_fn='count')]


class Api(object):
    """Stands in for HttpClient.request: records each call and answers with data, or raises the next
    of errors."""

    def __init__(self, data):
        self.data, self.errors, self.calls = data, [], []

    def __call__(self, client, method, path, params=None, body=None):
        self.calls.append(dict(url=client.base_url, authorization=client.session.headers.get('Authorization'), timeout=client.timeout,
                               retries=client.retries, method=method, path=path, body=body))
        if self.errors:
            raise self.errors.pop(0)
        return {'data': self.data}


@pytest.fixture
def api(monkeypatch, controller):
    monkeypatch.setattr(timespec, 'now_ms', lambda: NOW)
    for name in ('ENGINE_OBSERVABILITY_URL', 'ENGINE_OBSERVABILITY_TOKEN'):
        monkeypatch.delenv(name, raising=False)
    fake = Api([{'ts_bucket': 2, 'group': [], 'series_0.data': '5'}, {'ts_bucket': 1, 'group': [], 'series_0.data': 4}])

    def request(client, *args, **kwargs):
        return fake(client, *args, **kwargs)

    monkeypatch.setattr(http.HttpClient, 'request', request)
    return fake


def run(*terms, **options):
    connection = dict(observability_url=URL, api_token=TOKEN)
    connection.update(options)
    return LookupModule().run(list(terms), variables={}, **connection)


def test_rows_of_one_query_with_the_modules_body(api):
    rows = run(series=SERIES, start_time='-1h', granularity='5m', api_timeout=7, api_retries=1)
    assert rows == [{'ts_bucket': 1, 'group': [], 'series_0.data': 4}, {'ts_bucket': 2, 'group': [], 'series_0.data': 5}]
    assert api.calls == [dict(url=URL, authorization='Bearer ' + TOKEN, timeout=7, retries=1, method='POST', path='/api/v2/charts/series',
                              body={'startTime': NOW - 3600000, 'endTime': NOW, 'granularity': '5m',
                                    'series': [{'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': '', 'groupBy': []}]})]


def test_connection_from_the_environment(api, monkeypatch):
    monkeypatch.setenv('ENGINE_OBSERVABILITY_URL', URL + '/from-env')
    monkeypatch.setenv('ENGINE_OBSERVABILITY_TOKEN', 'token-from-env')
    LookupModule().run([], variables={}, series=SERIES, start_time='-1h')
    assert (api.calls[0]['url'], api.calls[0]['authorization']) == (URL + '/from-env', 'Bearer token-from-env')


@pytest.mark.parametrize('options, message', [
    (dict(series=[dict(source_id='metrics', agg_fn='count')], start_time='-1h'),
     "series[0].source_id must be an object id of 24 hexadecimal digits, got 'metrics'"),
    (dict(series=SERIES, start_time='-1h', end_time='-2h'), 'end_time (1728733020123, 2024-10-12T11:37:00.123Z) must be after start_time'),
    (dict(series=SERIES), 'missing required arguments: start_time'),
    (dict(series=SERIES, start_time='-1h', granularity='7m'), 'value of granularity must be one of: 30s, 1m,'),
    (dict(series=SERIES, start_time='-1h', step='5m'), 'Unsupported parameters for (engine.cloud.chart_series lookup): step. Supported'),
    (dict(series=SERIES, start_time='-1h', api_retries=-1), 'api_retries must be at least 0, got -1'),
    (dict(series=SERIES, start_time='-1h', observability_url='observability.example'), 'observability_url must be an http:// or https://'),
])
def test_bad_options_raise_naming_the_option_and_send_nothing(api, options, message):
    with pytest.raises(AnsibleError) as raised:
        run(**options)
    assert message in str(raised.value)
    assert TOKEN not in str(raised.value)
    assert api.calls == []


def test_without_a_connection_the_missing_options_are_named(api):
    with pytest.raises(AnsibleError, match='observability_url is required: set observability_url or the ENGINE_OBSERVABILITY_URL '
                                           'environment variable; api_token is required: set api_token or the '
                                           'ENGINE_OBSERVABILITY_TOKEN environment variable'):
        LookupModule().run([], variables={}, series=SERIES, start_time='-1h')
    assert api.calls == []


def test_terms_are_refused(api):
    with pytest.raises(AnsibleError, match=r'takes keyword arguments only \(series=..., start_time=...\), got 1 positional term'):
        run('series', series=SERIES, start_time='-1h')
    assert api.calls == []


def test_an_api_error_raises_the_modules_message(api):
    api.errors.append(http.ApiError('Source not found for series 1', status=404, method='POST', path='/api/v2/charts/series'))
    with pytest.raises(AnsibleError) as raised:
        run(series=SERIES, start_time='-1h')
    assert str(raised.value) == 'POST /api/v2/charts/series failed: HTTP 404: Source not found for series 1'


def test_a_bad_token_in_a_message_is_masked(api):
    with pytest.raises(AnsibleError) as raised:
        run(series=SERIES, start_time='-1h', api_token='secret-token', validate_certs='secret-token')
    assert 'validate_certs' in str(raised.value) and 'secret-token' not in str(raised.value)
