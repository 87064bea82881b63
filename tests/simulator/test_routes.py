"""The observability API's other routes (reference, "other routes"): the team's sources and webhooks, and from 2.30 the
dashboard validation route."""

import pytest

from .fixture_ids import _FIXTURES, SOURCE_LOGS

VALIDATE = '/api/v2/dashboards/validate'
TILE = {'name': 'Errors', 'x': 0, 'y': 0, 'w': 6, 'h': 3, 'id': 'mine', 'color': 'red',
        'config': {'displayType': 'number', 'sourceId': SOURCE_LOGS, 'select': [{'aggFn': 'count'}]}}


@pytest.mark.parametrize('path, fixture', [('/api/v2/sources', 'sources'), ('/api/v2/webhooks', 'webhooks')])
def test_the_teams_sources_and_webhooks_with_the_same_token_and_budget(local, path, fixture):
    answer = local.obs('GET', path)
    assert answer.status == 200 and answer.json() == {'data': _FIXTURES[fixture]}
    assert answer.headers['RateLimit-Remaining'] == '99'
    assert local.obs('GET', '/api/v2/dashboards').headers['RateLimit-Remaining'] == '98'
    assert local.request('GET', path).status == 401


def validated(local, body, version='2.30'):
    local.admin('PATCH', 'config', {'alert_version': version})
    answer = local.obs('POST', VALIDATE, body)
    assert answer.status == 200, answer.text
    return answer.json()


def test_a_valid_body_is_normalized_and_never_stored(local):
    before = local.admin('GET', 'state')['dashboards']
    result = validated(local, {'name': 'Board', 'tags': ['a', 'a'], 'owner': 'me', 'tiles': [TILE]})
    assert result == {'valid': True, 'errors': [], 'normalized': {'name': 'Board', 'tags': ['a'], 'tiles': [
        {'name': 'Errors', 'x': 0, 'y': 0, 'w': 6, 'h': 3, 'config': TILE['config']}]}}
    assert local.admin('GET', 'state')['dashboards'] == before
    assert [(entry['method'], entry['path'], entry['status']) for entry in local.requests_log()] == [('POST', VALIDATE, 200)]


@pytest.mark.parametrize('body, errors', [
    ({'tiles': [dict(TILE, x=30)]}, [{'path': 'name', 'message': 'Required'},
                                     {'path': 'tiles.0.x', 'message': 'Number must be less than or equal to 23'}]),
    ([], [{'path': 'body', 'message': 'Expected object, received array'}]),
    ({'name': 'B', 'tiles': [dict(TILE, config=dict(TILE['config'], sourceId='65b0000000000000000000ff'))]},
     [{'path': 'tiles.0.config.sourceId', 'message': 'Could not find the following source IDs: 65b0000000000000000000ff'}]),
    ({'name': 'B', 'containers': [{'id': 'top', 'tabs': []}],
      'tiles': [dict(TILE, containerId='top', tabId='now'), dict(TILE, id='other', containerId='gone')]},
     [{'path': 'tiles.0.tabId', 'message': 'Could not find the following containers or tabs: top/now'},
      {'path': 'tiles.1.containerId', 'message': 'Could not find the following containers or tabs: gone'}]),
])
def test_an_invalid_body_answers_200_with_every_error(local, body, errors):
    assert validated(local, body) == {'valid': False, 'errors': errors, 'normalized': None}


@pytest.mark.parametrize('version, status', [('2.25', 404), ('2.30', 200), ('2.36', 200)])
def test_the_validate_route_is_there_from_2_30(local, version, status):
    local.admin('PATCH', 'config', {'alert_version': version})
    answer = local.obs('POST', VALIDATE, {'name': 'B', 'tiles': []})
    assert answer.status == status and (status == 200 or answer.text == 'Not Found')
