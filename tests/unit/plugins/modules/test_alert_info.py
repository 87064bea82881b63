# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.alert_info against the simulator in process (tests/unit/conftest.py): the fixture's
alerts plus alert_count generated ones, paged (newer servers) or all at once (alerts_paging off)."""

import pytest

from ansible_collections.engine.cloud.plugins.modules import alert_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import ALERTS, DASHBOARD_INGESTION
from ansible_collections.engine.cloud.tests.simulator.observability import all_alerts


def alert_dashboard(alert):
    return alert.get('dashboardId', alert.get('dashboard'))  # the contract's older form names it dashboard


FIELDS = dict(name=lambda alert: alert.get('name'), state=lambda alert: alert.get('state'), dashboard_id=alert_dashboard,
              tile_id=lambda alert: alert.get('tileId'))


def page(number):
    return ('GET', '/api/v2/alerts?limit=1000&offset=%d' % (1000 * number))


def alert_count(total):
    """The config for total alerts in all."""
    return {'alert_count': total - len(ALERTS)}


def the_alerts(beyond_the_second_page=False, **filters):
    """A predicate: the result holds exactly the simulator's alerts that match every filter, in its
    order (and, when asked, one that only the third page holds)."""
    def holds(result, sim):
        alerts = all_alerts(sim.store)
        later = set(alert['id'] for alert in alerts[2000:])
        return (exported(result['alerts']) == [alert for alert in alerts if all(FIELDS[option](alert) == value for option, value in filters.items())]
                and (not beyond_the_second_page or any(alert['id'] in later for alert in result['alerts'])))
    return holds


def exported(alerts):
    """The alerts of a result without their definitions, each checked to describe its own alert (test_alert.py feeds
    them back)."""
    assert all(alert['definition']['alert_id'] == alert['id'] for alert in alerts)
    return [dict((key, value) for key, value in alert.items() if key != 'definition') for alert in alerts]


CASES = {
    'a server without paging is read once': dict(
        args={}, config=dict(alert_count(2500), alerts_paging=False),
        requests=[page(0)], result={'changed': False}, verify=the_alerts()),
    'no match gives an empty list': dict(
        args=dict(name='generated alert 3'), config=alert_count(20),
        requests=[page(0)], result={'alerts': []}),
    'one alert by alert_id, one request': dict(
        args=dict(alert_id=ALERTS[2]), requests=[('GET', '/api/v2/alerts/' + ALERTS[2])],
        verify=lambda result, sim: [alert['id'] for alert in result['alerts']] == [ALERTS[2]]
        and result['alerts'][0]['definition']['alert_id'] == ALERTS[2] and result['alerts'][0]['definition']['channels']),
    'alert_id and a filter it does not match give an empty list': dict(
        args=dict(alert_id=ALERTS[2], state='inactive'), requests=[('GET', '/api/v2/alerts/' + ALERTS[2])], result={'alerts': []}),
    'a missing alert_id fails': dict(
        args=dict(alert_id='65c0000000000000000000ff'), requests=[('GET', '/api/v2/alerts/65c0000000000000000000ff')],
        fails='alert 65c0000000000000000000ff not found (GET /api/v2/alerts/65c0000000000000000000ff answered HTTP 404)'),
    'a refused token says so': dict(
        args=dict(api_token='wrong-token-4d1f'),
        requests=[page(0)], fails='GET http://simulator.test/api/v2/alerts failed: HTTP 401: Unauthorized',
        verify=lambda result, sim: 'refused the token' in result['msg']),
    'no alerts is one request and an empty list': dict(
        args={}, faults=[dict(kind='status', status=200, body={'data': [], 'meta': {'total': 0, 'limit': 1000, 'offset': 0}})],
        requests=[page(0)], result={'changed': False, 'alerts': []}),
    'dashboard_id matches in any case': dict(
        args=dict(dashboard_id=DASHBOARD_INGESTION.upper()), requests=[page(0)],
        verify=lambda result, sim: result['alerts'] and exported(result['alerts']) == [
            alert for alert in all_alerts(sim.store) if alert_dashboard(alert) == DASHBOARD_INGESTION]),
}

FILTERS = [
    dict(name='Generated alert 2222'),
    dict(state='ALERT'),
    dict(dashboard_id=DASHBOARD_INGESTION),
    dict(tile_id='t-lag'),
    dict(state='ALERT', dashboard_id=DASHBOARD_INGESTION, tile_id='t-rows'),
    dict(name='Generated alert 2100', state='OK'),
]


def test_alert_info(run, case):
    run(alert_info, **case)


@pytest.mark.parametrize('total, pages', [(len(ALERTS), 1), (1000, 1), (1001, 2), (3000, 3)])
def test_every_page_is_read(run, total, pages):
    run(alert_info, {}, config=alert_count(total),
        requests=[page(number) for number in range(pages)], result={'changed': False}, verify=the_alerts())


@pytest.mark.parametrize('filters', FILTERS)
def test_filters_are_exact_and_apply_to_every_page(run, filters):
    run(alert_info, filters, config=alert_count(2300), requests=[page(number) for number in range(3)],
        verify=the_alerts(beyond_the_second_page=True, **filters))
