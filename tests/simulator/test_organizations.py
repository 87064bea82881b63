"""A whole organization: seeded at scale (POST /_admin/seed), and a second, empty one that its key and token reach alone."""

import base64

import pytest

from .fixture_ids import (DASHBOARD_HEALTH, ORGANIZATION, SECOND_KEY_ID, SECOND_KEY_SECRET, SECOND_ORGANIZATION, SECOND_SOURCE_LOGS,
                          SECOND_TOKEN, SECOND_WEBHOOK_PAGER, SERVICE_PROD, SOURCE_LOGS, WEBHOOK_PAGER, seeded_alert, seeded_dashboard,
                          seeded_pipe, seeded_service, seeded_tile, service_path)

SCALE = {'services': 20, 'pipes_per_service': 3, 'dashboards': 30, 'alerts': 200}
SECOND = {'Authorization': 'Basic ' + base64.b64encode(('%s:%s' % (SECOND_KEY_ID, SECOND_KEY_SECRET)).encode()).decode()}
SECOND_BEARER = {'Authorization': 'Bearer ' + SECOND_TOKEN}
SERVICES, SECOND_SERVICES = ('/v1/organizations/%s/services' % organization for organization in (ORGANIZATION, SECOND_ORGANIZATION))


def data(reply):
    assert reply.status == 200, reply.text[:300]
    return reply.json()['data']


def test_the_seed_holds_the_organization_at_scale_with_every_shape(local):
    seeded = local.admin('POST', 'seed', SCALE)['seeded']
    assert seeded['services'] == [seeded_service(number) for number in range(1, 21)]
    assert seeded['pipes'][:4] == [seeded_pipe(1, 1), seeded_pipe(1, 2), seeded_pipe(1, 3), seeded_pipe(2, 1)]
    services = local.cloud('GET', SERVICES).result
    assert [service['id'] for service in services] == seeded['services']
    assert {service['autoscalingMode'] for service in services} == {'vertical', 'horizontal'}
    assert {service['provider'] for service in services} == {'aws', 'gcp', 'azure'}
    assert {len(service['ipAccessList']) for service in services} == {0, 1, 2}
    assert any(service['privateEndpointIds'] for service in services) and all(service['tags'] for service in services)
    pipes = [pipe for service in seeded['services'] for pipe in local.cloud('GET', service_path(service, '/pipes')).result]
    assert len(pipes) == 60 and {kind for pipe in pipes for kind, source in pipe['source'].items() if source} == {
        'kafka', 'objectStorage', 'stream', 'postgres'}
    dashboards = data(local.obs('GET', '/api/v2/dashboards'))
    assert sorted(dashboard['id'] for dashboard in dashboards) == [seeded_dashboard(number) for number in range(1, 31)]
    assert any('containers' in dashboard for dashboard in dashboards) and any('series' in dashboard['tiles'][0] for dashboard in dashboards)
    assert {tile['config']['displayType'] for tile in dashboards[0]['tiles']} == {'line', 'table', 'number'}
    alerts = data(local.obs('GET', '/api/v2/alerts'))
    assert [alert['id'] for alert in alerts] == [seeded_alert(number) for number in range(1, 201)]
    assert {alert['thresholdType'] for alert in alerts} == {'above', 'below', 'between', 'not_between'}
    assert {alert['source'] for alert in alerts} == {'tile', 'saved_search'}
    assert {len(alert['channels']) for alert in alerts} == {1, 2, 3}


def test_the_seed_is_deterministic_and_replaces_the_fixture_objects_unless_kept(local):
    local.admin('POST', 'seed', {'services': 2, 'dashboards': 1, 'alerts': 3})
    first = local.admin('GET', 'state')
    local.admin('POST', 'reset')
    local.admin('POST', 'seed', {'services': 2, 'dashboards': 1, 'alerts': 3})
    assert local.admin('GET', 'state') == first
    assert local.cloud('GET', service_path(SERVICE_PROD)).status == 404
    local.admin('POST', 'reset')
    local.admin('POST', 'seed', {'services': 1, 'keep_fixtures': True})
    assert len(local.cloud('GET', SERVICES).result) == 7 and local.cloud('GET', service_path(SERVICE_PROD)).status == 200


@pytest.mark.parametrize('form', ['as_sent', 'series', 'config'])
def test_every_seeded_dashboard_and_alert_is_accepted_back_as_read(local, form):
    local.admin('POST', 'reset', {'alert_read_form': 'current', 'dashboard_read_form': form})
    local.admin('POST', 'seed', SCALE)
    for dashboard in data(local.obs('GET', '/api/v2/dashboards')):
        assert local.obs('PUT', '/api/v2/dashboards/' + dashboard['id'], dashboard).status == 200, dashboard['name']
    for alert in data(local.obs('GET', '/api/v2/alerts')):
        assert local.obs('PUT', '/api/v2/alerts/' + alert['id'], alert).status == 200, alert['name']
    assert len(data(local.obs('GET', '/api/v2/alerts'))) == 200  # no update deleted one
    assert local.admin('GET', 'state')['dashboards'][0]['tiles'][0]['id'] == seeded_tile(1, 1)


@pytest.mark.parametrize('body', [{'services': -1}, {'alerts': 5001}, {'dashboards': True}, {'pipes': 3}, {'keep_fixtures': 'yes'}, []])
def test_a_bad_seed_is_refused(local, body):
    assert local.request('POST', '/_admin/seed', body).status == 400


def test_the_second_organization_is_empty_and_its_key_sees_only_its_own(local):
    assert local.request('GET', SECOND_SERVICES, headers=SECOND).result == []
    assert local.request('GET', '%s/%s' % (SECOND_SERVICES, SERVICE_PROD), headers=SECOND).status == 404
    assert local.cloud('GET', SECOND_SERVICES).status == 403  # the first key, the second organization
    assert local.request('GET', SERVICES, headers=SECOND).status == 403
    wrong = {'Authorization': 'Basic ' + base64.b64encode(('%s:nope' % SECOND_KEY_ID).encode()).decode()}
    assert local.request('GET', SECOND_SERVICES, headers=wrong).status == 401
    created = local.request('POST', SECOND_SERVICES, {'name': 'promoted', 'provider': 'aws', 'region': 'eu-central-1'}, SECOND)
    service_id = created.result['service']['id']
    assert [service['id'] for service in local.request('GET', SECOND_SERVICES, headers=SECOND).result] == [service_id]
    assert service_id not in [service['id'] for service in local.cloud('GET', SERVICES).result]
    assert local.cloud('GET', '%s/%s' % (SERVICES, service_id)).status == 404


def test_the_second_team_sees_only_its_own_dashboards_alerts_sources_and_webhooks(local):
    def second(method, path, body=None):
        return local.request(method, path, body, SECOND_BEARER)
    assert data(second('GET', '/api/v2/dashboards')) == [] and data(second('GET', '/api/v2/alerts')) == []
    assert second('GET', '/api/v2/dashboards/' + DASHBOARD_HEALTH).text == 'Not Found'
    assert second('PUT', '/api/v2/dashboards/' + DASHBOARD_HEALTH, {'name': 'x', 'tiles': []}).status == 404
    assert second('DELETE', '/api/v2/dashboards/' + DASHBOARD_HEALTH).status == 200  # answers 200 either way...
    assert local.obs('GET', '/api/v2/dashboards/' + DASHBOARD_HEALTH).status == 200  # ...and deletes nothing of another team
    tile = {'name': 't', 'x': 0, 'y': 0, 'w': 6, 'h': 3,
            'config': {'displayType': 'number', 'sourceId': SOURCE_LOGS, 'select': [{'aggFn': 'count'}]}}
    assert 'Could not find the following source IDs' in second('POST', '/api/v2/dashboards', {'name': 'd', 'tiles': [tile]}).text
    tile['config']['sourceId'] = SECOND_SOURCE_LOGS
    dashboard = data(second('POST', '/api/v2/dashboards', {'name': 'd', 'tiles': [tile]}))
    assert local.obs('GET', '/api/v2/dashboards/' + dashboard['id']).status == 404
    alert = {'threshold': 1, 'thresholdType': 'above', 'interval': '5m', 'source': 'tile', 'dashboardId': dashboard['id'],
             'tileId': dashboard['tiles'][0]['id'], 'channel': {'type': 'webhook', 'webhookId': WEBHOOK_PAGER}}
    assert second('POST', '/api/v2/alerts', alert).json() == {'message': 'Webhook not found'}
    alert['channel']['webhookId'] = SECOND_WEBHOOK_PAGER
    created = data(second('POST', '/api/v2/alerts', alert))
    assert created['teamId' if 'teamId' in created else 'team'] == '65e000000000000000000002'
    assert local.obs('POST', '/api/v2/alerts', alert).json() == {'message': 'Webhook not found'}
    assert local.obs('GET', '/api/v2/alerts/' + created['id']).status == 404
    assert [source['id'] for source in data(second('GET', '/api/v2/sources'))] == ['65b000000000000000000011', SECOND_SOURCE_LOGS]
    assert [hook['id'] for hook in data(second('GET', '/api/v2/webhooks'))][0] == SECOND_WEBHOOK_PAGER
