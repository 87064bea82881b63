# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from requests.utils import urlparse

from ansible_collections.engine.cloud.plugins.modules import alert_info
from ansible_collections.engine.cloud.tests.unit.plugins.modules.test_dashboard_info import run_module

DASH_A, DASH_B = '65a1b2c3d4e5f60718293a4b', '65a1b2c3d4e5f60718293a4c'
STATES = ('OK', 'ALERT', 'inactive', 'INSUFFICIENT_DATA', 'DISABLED', 'PENDING')


def make_alerts(count):
    return [dict(id='66%022x' % index, name='alert %d' % (index % 7), state=STATES[index % len(STATES)],
                 dashboard=(DASH_A, DASH_B)[index % 2], tileId='t-%d' % (index % 3)) for index in range(count)]


def paged(alerts):
    """A newer server: limit/offset with meta.total."""
    def answer(request):
        query = dict(pair.split('=') for pair in urlparse(request.url).query.split('&'))
        limit, offset = int(query['limit']), int(query['offset'])
        return 200, {'data': alerts[offset:offset + limit], 'meta': {'total': len(alerts), 'limit': limit, 'offset': offset}}
    return answer


def unpaged(alerts):
    """An older server: every alert at once, no meta."""
    return lambda request: (200, {'data': alerts})


def run(args, answer, monkeypatch, capsys, **kwargs):
    return run_module(alert_info.main, args, answer, monkeypatch, capsys, **kwargs)


@pytest.mark.parametrize('count, pages', [(0, 1), (5, 1), (1000, 1), (1001, 2), (2500, 3), (3000, 3)])
def test_reads_every_page(monkeypatch, capsys, count, pages):
    alerts = make_alerts(count)
    result, api = run({}, paged(alerts), monkeypatch, capsys)
    assert result['alerts'] == alerts
    assert result['changed'] is False
    assert len(api.requests) == pages
    assert [urlparse(request.url).query for request in api.requests] == ['limit=1000&offset=%d' % (1000 * page) for page in range(pages)]


def test_server_without_paging_is_read_once(monkeypatch, capsys):
    alerts = make_alerts(2500)
    result, api = run({}, unpaged(alerts), monkeypatch, capsys)
    assert result['alerts'] == alerts
    assert len(api.requests) == 1


@pytest.mark.parametrize('server', [paged, unpaged])
@pytest.mark.parametrize('filters', [
    dict(name='alert 3'),
    dict(state='ALERT'),
    dict(dashboard_id=DASH_B),
    dict(tile_id='t-2'),
    dict(state='inactive', dashboard_id=DASH_A, tile_id='t-2'),
    dict(name='alert 1', state='OK'),
])
def test_filters_are_exact_and_apply_to_every_page(monkeypatch, capsys, server, filters):
    alerts = make_alerts(2300)
    fields = dict(name='name', state='state', dashboard_id='dashboard', tile_id='tileId')
    expected = [alert for alert in alerts if all(alert[fields[key]] == value for key, value in filters.items())]
    result, dummy = run(filters, server(alerts), monkeypatch, capsys)
    assert result['alerts'] == expected
    assert expected and any(alert['id'] >= '66%022x' % 2000 for alert in expected)


def test_no_match_gives_an_empty_list(monkeypatch, capsys):
    result, dummy = run(dict(name='ALERT 3'), paged(make_alerts(20)), monkeypatch, capsys)
    assert result['alerts'] == [] and not result.get('failed')


def test_check_mode_reads_the_same(monkeypatch, capsys):
    alerts = make_alerts(1200)
    result, api = run(dict(state='OK'), paged(alerts), monkeypatch, capsys, check_mode=True)
    assert result['changed'] is False
    assert result['alerts'] == [alert for alert in alerts if alert['state'] == 'OK']
    assert len(api.requests) == 2


def test_bad_dashboard_id_fails_before_sending(monkeypatch, capsys):
    result, api = run(dict(dashboard_id='dash-1'), paged([]), monkeypatch, capsys)
    assert result['failed'] is True
    assert result['msg'] == "dashboard_id must be an object id of 24 hexadecimal digits, got 'dash-1'"
    assert api.requests == []


def test_bad_state_fails_naming_the_choices(monkeypatch, capsys):
    result, api = run(dict(state='alert'), paged([]), monkeypatch, capsys)
    assert result['failed'] is True
    assert 'state' in result['msg'] and 'ALERT' in result['msg'] and 'INSUFFICIENT_DATA' in result['msg']
    assert api.requests == []


def test_refused_token(monkeypatch, capsys):
    result, api = run({}, lambda request: (401, 'Unauthorized'), monkeypatch, capsys)
    assert result['failed'] is True
    assert result['msg'].startswith('GET http://obs.test/api/v2/alerts failed: HTTP 401: Unauthorized')
    assert 'refused the token' in result['msg']
    assert len(api.requests) == 1
