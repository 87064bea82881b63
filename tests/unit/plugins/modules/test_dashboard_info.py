# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from ansible_collections.engine.cloud.plugins.modules import dashboard_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import DASHBOARD_HEALTH

GET = ('GET', '/api/v2/dashboards/' + DASHBOARD_HEALTH)
UNKNOWN = DASHBOARD_HEALTH[:-1] + 'f'  # a well-formed id of no dashboard


def the_fixture_dashboard(result, sim):
    stored = next(item for item in sim.state()['dashboards'] if item['id'] == DASHBOARD_HEALTH)
    definition = result['dashboard'].pop('definition')  # test_dashboard.py feeds every definition back
    return result['dashboard'] == stored and (definition['dashboard_id'], definition['name']) == (stored['id'], stored['name'])


CASES = {
    'an unknown dashboard fails naming the id': dict(
        args=dict(dashboard_id=UNKNOWN),
        requests=[('GET', '/api/v2/dashboards/' + UNKNOWN)],
        fails='HTTP 404', result={'status': 404, 'method': 'GET', 'path': '/api/v2/dashboards/' + UNKNOWN},
        verify=lambda result, sim: result['msg'].startswith('dashboard %s not found' % UNKNOWN)),
    'other errors are not reported as a missing dashboard': dict(
        args=dict(dashboard_id=DASHBOARD_HEALTH, api_retries=0), faults=[dict(kind='status', status=500)],
        requests=[GET], fails='',
        result={'msg': 'GET http://simulator.test/api/v2/dashboards/%s failed: HTTP 500: Something went wrong :(' % DASHBOARD_HEALTH}),
    'reads the dashboard with one GET': dict(
        args=dict(dashboard_id=DASHBOARD_HEALTH), requests=[GET], result={'changed': False}, verify=the_fixture_dashboard),
    'an id and a name fail before any request': dict(
        args=dict(dashboard_id=DASHBOARD_HEALTH, name='Service health'), requests=[],
        fails='parameters are mutually exclusive: dashboard_id|name'),
}


def test_dashboard_info(run, case):
    run(dashboard_info, **case)


def test_without_an_id_every_dashboard_is_listed_with_its_definition(run, sim):
    result = run(dashboard_info, {}, requests=[('GET', '/api/v2/dashboards')], result={'changed': False})
    listed = result['dashboards']
    assert sorted(item['id'] for item in listed) == sorted(item['id'] for item in sim.state()['dashboards'])
    assert [item['name'] for item in listed] == sorted((item['name'] for item in listed), reverse=True)
    assert all((item['definition']['dashboard_id'], item['definition']['name']) == (item['id'], item['name']) for item in listed)
    assert 'dashboard' not in result


def test_a_name_keeps_the_dashboards_of_that_name(run):
    result = run(dashboard_info, dict(name='Service health'), requests=[('GET', '/api/v2/dashboards')])
    assert [item['id'] for item in result['dashboards']] == [DASHBOARD_HEALTH]
    assert run(dashboard_info, dict(name='nothing of that name'), requests=[('GET', '/api/v2/dashboards')])['dashboards'] == []
