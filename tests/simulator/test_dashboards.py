"""Dashboards as code: list, create, update, delete, validation, the three read forms, alerts deleted by updates."""

import copy

import pytest

from .fixture_ids import (ALERT_BETWEEN, ALERT_PROMQL, ALERT_TABLE, DASHBOARD_GALLERY, DASHBOARD_HEALTH, DASHBOARD_INGESTION,
                          DASHBOARD_STAGING_A, DASHBOARD_STAGING_B, SOURCE_LOGS, SOURCE_METRICS, gallery_tile)

DASHBOARDS = '/api/v2/dashboards'
MISSING_DASHBOARD = '65a1b2c3d4e5f60718293a4f'


def time_tile(name='Errors', x=0, y=0, w=6, h=3, **item):
    """A series-form tile with one time item."""
    series_item = dict({'type': 'time', 'sourceId': SOURCE_LOGS, 'aggFn': 'count', 'where': 'level:error', 'groupBy': []}, **item)
    return {'name': name, 'x': x, 'y': y, 'w': w, 'h': h, 'series': [series_item]}


def config_tile(name='Latency', **config):
    """A config-form line tile."""
    config = dict({'displayType': 'line', 'sourceId': SOURCE_METRICS,
                   'select': [{'aggFn': 'avg', 'valueExpression': 'query.duration_ms'}]}, **config)
    return {'name': name, 'x': 0, 'y': 3, 'w': 12, 'h': 3, 'config': config}


def dashboard_body(*tiles, name='Team board', **extra):
    return dict({'name': name, 'tiles': list(tiles) if tiles else [time_tile()]}, **extra)


def message(reply, status=400):
    assert reply.status == status, reply.text[:500]
    return reply.json()['message']


def create(sim, body):
    reply = sim.obs('POST', DASHBOARDS, body)
    assert reply.status == 200, reply.text[:500]
    return reply.json()['data']


def read(sim, dashboard_id):
    return sim.obs('GET', '%s/%s' % (DASHBOARDS, dashboard_id)).json()['data']


def alert_ids(sim):
    return {alert['id'] for alert in sim.admin('GET', 'state')['alerts']}


def stored(sim, dashboard_id):
    return next(item for item in sim.admin('GET', 'state')['dashboards'] if item['id'] == dashboard_id)


# List and read ----------------------------------------------------------------------------------------

def test_list_is_every_dashboard_sorted_by_name_descending(sim):
    reply = sim.obs('GET', DASHBOARDS)
    assert reply.status == 200 and set(reply.json()) == {'data'}
    dashboards = reply.json()['data']
    assert [d['name'] for d in dashboards] == ['Tile gallery', 'Staging overview', 'Staging overview', 'Service health', 'Ingestion']
    assert {d['id'] for d in dashboards if d['name'] == 'Staging overview'} == {DASHBOARD_STAGING_A, DASHBOARD_STAGING_B}
    assert all(d == read(sim, d['id']) for d in dashboards)


def test_promql_tiles_are_left_out_of_every_read(sim):
    promql = gallery_tile('PromQL CPU')
    for form in ('as_sent', 'series', 'config'):
        sim.admin('PATCH', 'config', {'dashboard_read_form': form})
        tiles = read(sim, DASHBOARD_GALLERY)['tiles']
        assert len(tiles) == 14 and promql not in {tile['id'] for tile in tiles}
    assert promql in {tile['id'] for tile in stored(sim, DASHBOARD_GALLERY)['tiles']}


# Create ------------------------------------------------------------------------------------------------

def test_create_gives_new_ids_and_drops_unknown_keys(sim):
    body = dashboard_body(dict(time_tile(), id='my-own-id', color='red'), config_tile(), tags=['a', 'b', 'a'],
                          id='65a1b2c3d4e5f60718293a4b', owner='me')
    dashboard = create(sim, body)
    assert dashboard['id'] not in (DASHBOARD_HEALTH, body['id']) and len(dashboard['id']) == 24
    assert dashboard['tags'] == ['a', 'b'] and 'owner' not in dashboard
    ids = [tile['id'] for tile in dashboard['tiles']]
    assert len(set(ids)) == 2 and 'my-own-id' not in ids and all(len(tile_id) == 24 for tile_id in ids)
    assert 'color' not in dashboard['tiles'][0]
    assert read(sim, dashboard['id']) == dashboard
    assert create(sim, body)['id'] != dashboard['id']  # names are not unique: a second POST is a second dashboard


def test_create_answers_the_tiles_as_sent_by_default(sim):
    tile, config = time_tile(alias='errors'), config_tile()
    dashboard = create(sim, dashboard_body(tile, config))
    assert [{k: v for k, v in t.items() if k != 'id'} for t in dashboard['tiles']] == [tile, config]


def test_an_empty_tile_list_is_allowed(sim):
    assert create(sim, dashboard_body(name='Empty', tiles=[]))['tiles'] == []


TOO_MANY_TAGS = ['t%d' % index for index in range(51)]


@pytest.mark.parametrize('change, fragment', [
    ({'name': None}, 'name: Expected string, received null'),
    ({'name': ''}, 'name: String must contain at least 1 character(s)'),
    ({'name': 'n' * 1025}, 'name: String must contain at most 1024 character(s)'),
    ({'tiles': None}, 'tiles: Expected array, received null'),
    ({'tiles': [time_tile()] * 501}, 'tiles: Array must contain at most 500 element(s)'),
    ({'tags': TOO_MANY_TAGS}, 'tags: Array must contain at most 50 element(s)'),
    ({'tags': ['x' * 33]}, 'tags.0: String must contain at most 32 character(s)'),
    ({'tags': [1]}, 'tags.0: Expected string, received number'),
    ({'savedQueryLanguage': 'kql'}, "savedQueryLanguage: Invalid enum value"),
])
def test_dashboard_body_validation(sim, change, fragment):
    body = dashboard_body(**{key: value for key, value in change.items() if key != 'name'})
    body.update(change)
    text = message(sim.obs('POST', DASHBOARDS, body))
    assert text.startswith('Body validation failed: ') and fragment in text


def test_name_and_tiles_are_required(sim):
    text = message(sim.obs('POST', DASHBOARDS, {}))
    assert text == 'Body validation failed: name: Required; tiles: Required'
    assert 'body: Expected object, received array' in message(sim.obs('POST', DASHBOARDS, [dashboard_body()]))


def _without(mapping, key):
    return {k: v for k, v in mapping.items() if k != key}


@pytest.mark.parametrize('tile, fragment', [
    (_without(time_tile(), 'name'), 'tiles.0.name: Required'),
    (dict(time_tile(), x=24), 'tiles.0.x: Number must be less than or equal to 23'),
    (dict(time_tile(), x=-1), 'tiles.0.x: Number must be greater than or equal to 0'),
    (dict(time_tile(), y=-1), 'tiles.0.y: Number must be greater than or equal to 0'),
    (dict(time_tile(), w=0), 'tiles.0.w: Number must be greater than or equal to 1'),
    (dict(time_tile(), w=25), 'tiles.0.w: Number must be less than or equal to 24'),
    (dict(time_tile(), h=0), 'tiles.0.h: Number must be greater than or equal to 1'),
    (dict(time_tile(), x=1.5), 'tiles.0.x: Expected integer, received float'),
    (_without(time_tile(), 'h'), 'tiles.0.h: Required'),
    (dict(time_tile(), config=config_tile()['config']), 'tiles.0: Tile cannot have both series and config'),
    (_without(time_tile(), 'series'), 'tiles.0: Tile must have either series or config'),
    (dict(config_tile(), asRatio=True), 'tiles.0.asRatio: asRatio is only allowed with series'),
    (dict(time_tile(), series=[]), 'tiles.0.series: Array must contain at least 1 element(s)'),
    (dict(time_tile(), series=[time_tile()['series'][0], dict(time_tile()['series'][0], type='table')]),
     'tiles.0.series: All series must have the same type'),
    (time_tile(type='graph'), "tiles.0.series.0.type: Invalid enum value"),
    (time_tile(sourceId=None), 'tiles.0.series.0.sourceId: Expected string, received null'),
    (time_tile(sourceId='metrics'), 'tiles.0.series.0.sourceId: Invalid ObjectId'),
    (time_tile(aggFn='median'), "tiles.0.series.0.aggFn: Invalid enum value"),
    (time_tile(where=None), 'tiles.0.series.0.where: Expected string, received null'),
    (time_tile(groupBy=['g%d' % index for index in range(11)]), 'tiles.0.series.0.groupBy: Array must contain at most 10'),
    (time_tile(level=1.5), 'tiles.0.series.0.level: Number must be less than or equal to 1'),
    (time_tile(whereLanguage='kql'), "tiles.0.series.0.whereLanguage: Invalid enum value"),
    (time_tile(displayType='pie'), "tiles.0.series.0.displayType: Invalid enum value"),
    (config_tile(displayType='gauge'), "tiles.0.config.displayType: Invalid enum value"),
    (config_tile(select=[]), 'tiles.0.config.select: Array must contain at least 1 element(s)'),
    (config_tile(select=[{'aggFn': 'count'}] * 21), 'tiles.0.config.select: Array must contain at most 20 element(s)'),
    (config_tile(displayType='number', select=[{'aggFn': 'count'}] * 2),
     'tiles.0.config.select: Array must contain exactly 1 element(s) for displayType number'),
    (config_tile(displayType='pie', select=[{'aggFn': 'count'}] * 2), 'exactly 1 element(s) for displayType pie'),
    (config_tile(select=[{'aggFn': 'count', 'valueExpression': 'x'}]), 'tiles.0.config.select.0.valueExpression: Not allowed for aggFn count'),
    (config_tile(select=[{'aggFn': 'avg'}]), 'tiles.0.config.select.0.valueExpression: Required for aggFn avg'),
    (config_tile(select=[{'aggFn': 'sum', 'valueExpression': ''}]), 'tiles.0.config.select.0.valueExpression: Required for aggFn sum'),
    (config_tile(asRatio=True), 'tiles.0.config.asRatio: asRatio needs exactly 2 select items'),
    ({'name': 'Notes', 'x': 0, 'y': 0, 'w': 4, 'h': 2, 'config': {'displayType': 'markdown'}}, 'tiles.0.config.markdown: Required'),
    (config_tile(sourceId=None), 'tiles.0.config.sourceId: Expected string, received null'),
    (config_tile(groupBy=['host']), 'tiles.0.config.groupBy: Expected string, received array'),
])
def test_tile_validation(sim, tile, fragment):
    text = message(sim.obs('POST', DASHBOARDS, dashboard_body(tile)))
    assert text.startswith('Body validation failed: ') and fragment in text, text
    assert len(sim.admin('GET', 'state')['dashboards']) == 5


def test_the_contracts_items_without_source_id_are_refused(sim):
    contract_item = {'type': 'time', 'dataSource': 'metrics', 'aggFn': 'count', 'field': 'query.count', 'where': '', 'groupBy': []}
    tile = dict(time_tile(), series=[contract_item])
    assert 'tiles.0.series.0.sourceId: Required' in message(sim.obs('POST', DASHBOARDS, dashboard_body(tile)))


def test_every_problem_is_listed(sim):
    text = message(sim.obs('POST', DASHBOARDS, dashboard_body(dict(time_tile(), x=30, w=0), name='')))
    assert text == ('Body validation failed: name: String must contain at least 1 character(s); '
                    'tiles.0.x: Number must be less than or equal to 23; tiles.0.w: Number must be greater than or equal to 1')


def test_unknown_source_ids_are_refused(sim):
    unknown = '65b0000000000000000000ff'
    body = dashboard_body(time_tile(sourceId=unknown), config_tile(sourceId='65b0000000000000000000fe'))
    assert message(sim.obs('POST', DASHBOARDS, body)) == \
        'Could not find the following source IDs: 65b0000000000000000000fe, 65b0000000000000000000ff'


def test_duplicate_tile_ids_are_refused(sim):
    body = dashboard_body(dict(time_tile(), id='same'), dict(config_tile(), id='same'))
    assert 'tiles: Duplicate tile ID: same' in message(sim.obs('POST', DASHBOARDS, body))


def test_unknown_keys_inside_config_are_dropped(sim):
    tile = config_tile(colour='blue', select=[{'aggFn': 'count', 'where': 'a:b', 'shade': 1}])
    stored_tile = create(sim, dashboard_body(tile))['tiles'][0]
    assert stored_tile['config'] == {'displayType': 'line', 'sourceId': SOURCE_METRICS, 'select': [{'aggFn': 'count', 'where': 'a:b'}]}


# Update -----------------------------------------------------------------------------------------------

def test_update_replaces_name_and_tiles_and_keeps_the_rest(sim):
    dashboard = create(sim, dashboard_body(time_tile('A'), time_tile('B'), tags=['x'], savedQuery='level:error',
                                           filters=[{'type': 'QUERY_EXPRESSION', 'expression': 'service'}]))
    kept, dropped = dashboard['tiles']
    body = {'name': 'Renamed', 'tiles': [dict(kept, x=6), time_tile('C')]}
    reply = sim.obs('PUT', '%s/%s' % (DASHBOARDS, dashboard['id']), body)
    assert reply.status == 200
    updated = reply.json()['data']
    assert updated['name'] == 'Renamed' and updated['tags'] == ['x'] and updated['savedQuery'] == 'level:error'
    assert updated['filters'] == [{'type': 'QUERY_EXPRESSION', 'expression': 'service'}]
    assert updated['tiles'][0]['id'] == kept['id'] and updated['tiles'][0]['x'] == 6
    assert updated['tiles'][1]['id'] not in (kept['id'], dropped['id'])
    assert read(sim, dashboard['id']) == updated


def test_a_tile_keeps_its_id_only_when_it_is_stored_on_that_dashboard(sim):
    other = stored(sim, DASHBOARD_HEALTH)['tiles'][0]['id']
    dashboard = create(sim, dashboard_body(time_tile('A')))
    body = {'name': 'Board', 'tiles': [dict(time_tile('A'), id=other), dict(time_tile('B'), id=dashboard['tiles'][0]['id'])]}
    tiles = sim.obs('PUT', '%s/%s' % (DASHBOARDS, dashboard['id']), body).json()['data']['tiles']
    assert tiles[0]['id'] not in (other, dashboard['tiles'][0]['id']) and tiles[1]['id'] == dashboard['tiles'][0]['id']


def test_update_of_a_missing_dashboard_and_malformed_ids(sim):
    reply = sim.obs('PUT', '%s/%s' % (DASHBOARDS, MISSING_DASHBOARD), dashboard_body())
    assert reply.status == 404 and reply.text == 'Not Found' and reply.headers['Content-Type'].startswith('text/plain')
    for method in ('GET', 'PUT', 'DELETE'):
        assert message(sim.obs(method, DASHBOARDS + '/not-an-id', dashboard_body())) == 'Params validation failed: id: Invalid ObjectId'


def test_update_validates_as_create_does(sim):
    body = {'name': 'Service health', 'tiles': [dict(time_tile(), id='t-cpu'), dict(time_tile('B'), id='t-cpu')]}
    assert 'Duplicate tile ID: t-cpu' in message(sim.obs('PUT', '%s/%s' % (DASHBOARDS, DASHBOARD_HEALTH), body))
    assert read(sim, DASHBOARD_HEALTH)['tiles'][0]['name'] == 'CPU usage'


def test_update_deletes_the_alerts_of_removed_tiles_and_of_tiles_sent_without_their_id(sim):
    dashboard = read(sim, DASHBOARD_HEALTH)
    before = alert_ids(sim)
    cpu, mem, qps, err = dashboard['tiles']
    body = {'name': dashboard['name'], 'tiles': [cpu, _without(mem, 'id'), dict(err, x=12)]}  # qps removed, mem without id
    sim.obs('PUT', '%s/%s' % (DASHBOARDS, DASHBOARD_HEALTH), body)
    gone = {alert['id'] for alert in sim.admin('GET', 'state')['alerts']} ^ before
    fixture = {alert['tileId']: alert['id'] for alert in _fixture_alerts() if alert.get('dashboard') == DASHBOARD_HEALTH}
    assert gone == {fixture['t-mem'], fixture['t-qps']}
    assert [tile['id'] for tile in read(sim, DASHBOARD_HEALTH)['tiles']][0::2] == ['t-cpu', 't-err']


def test_every_update_deletes_the_alerts_of_tiles_that_cannot_carry_alerts(sim):
    gallery = read(sim, DASHBOARD_GALLERY)
    assert ALERT_TABLE in alert_ids(sim)
    sim.obs('PUT', '%s/%s' % (DASHBOARDS, DASHBOARD_GALLERY), {'name': gallery['name'], 'tiles': gallery['tiles']})
    remaining = alert_ids(sim)
    # the table tile's alert goes; so does the PromQL tile's (the read left its tile out); the others stay
    assert ALERT_TABLE not in remaining and ALERT_PROMQL not in remaining and ALERT_BETWEEN in remaining
    assert [tile['id'] for tile in read(sim, DASHBOARD_GALLERY)['tiles']] == [tile['id'] for tile in gallery['tiles']]


def test_an_alert_on_a_number_tile_survives_an_update(sim):
    gallery = read(sim, DASHBOARD_GALLERY)
    before = {alert['id'] for alert in _fixture_alerts() if alert.get('tileId') == gallery_tile('Error count')}
    sim.obs('PUT', '%s/%s' % (DASHBOARDS, DASHBOARD_GALLERY), {'name': gallery['name'], 'tiles': gallery['tiles']})
    assert before and before <= alert_ids(sim)


def _fixture_alerts():
    from .fixture_ids import _FIXTURES  # pylint: disable=import-outside-toplevel
    return copy.deepcopy(_FIXTURES['alerts'])


# Delete -----------------------------------------------------------------------------------------------

def test_delete_answers_200_whether_or_not_it_existed_and_deletes_its_alerts(sim):
    on_ingestion = {alert['id'] for alert in _fixture_alerts() if alert.get('dashboard') == DASHBOARD_INGESTION}
    for _attempt in range(2):
        reply = sim.obs('DELETE', '%s/%s' % (DASHBOARDS, DASHBOARD_INGESTION))
        assert reply.status == 200 and reply.json() == {}
    assert sim.obs('GET', '%s/%s' % (DASHBOARDS, DASHBOARD_INGESTION)).status == 404
    assert not on_ingestion & alert_ids(sim) and len(alert_ids(sim)) == len(_fixture_alerts()) - len(on_ingestion)
    assert sim.obs('DELETE', '%s/%s' % (DASHBOARDS, MISSING_DASHBOARD)).json() == {}


# Read forms ---------------------------------------------------------------------------------------------

def _gallery_tile(sim, name, form):
    sim.admin('PATCH', 'config', {'dashboard_read_form': form})
    return next(tile for tile in read(sim, DASHBOARD_GALLERY)['tiles'] if tile['name'] == name)


def test_series_tile_in_config_form_follows_the_reference(sim):
    tile = _gallery_tile(sim, 'Rows by pipe', 'config')
    assert tile == {'id': gallery_tile('Rows by pipe'), 'name': 'Rows by pipe', 'x': 0, 'y': 0, 'w': 12, 'h': 3, 'config': {
        'displayType': 'stacked_bar', 'sourceId': SOURCE_METRICS,
        'select': [{'aggFn': 'sum', 'alias': 'rows', 'valueExpression': 'pipe.rows', 'where': 'pipe:*', 'whereLanguage': 'lucene'}],
        'groupBy': 'pipe', 'numberFormat': {'output': 'number', 'mantissa': 0}, 'asRatio': False, 'fillNulls': True}}


def test_ratio_of_two_series_and_a_count_in_config_form(sim):
    body = dashboard_body({'name': 'Ratio', 'x': 0, 'y': 0, 'w': 6, 'h': 3, 'asRatio': True, 'series': [
        {'type': 'time', 'sourceId': SOURCE_LOGS, 'aggFn': 'count', 'where': 'level:error', 'groupBy': ['service', 'host'],
         'metricDataType': 'sum', 'metricName': 'errors'},
        {'type': 'time', 'sourceId': SOURCE_LOGS, 'aggFn': 'count', 'where': '', 'groupBy': ['service', 'host'],
         'whereLanguage': 'sql'}]})
    sim.admin('PATCH', 'config', {'dashboard_read_form': 'config'})
    config = create(sim, body)['tiles'][0]['config']
    assert config == {'displayType': 'line', 'sourceId': SOURCE_LOGS, 'groupBy': 'service,host', 'asRatio': True, 'fillNulls': True,
                      'select': [{'aggFn': 'count', 'metricName': 'errors', 'metricType': 'sum', 'where': 'level:error',
                                  'whereLanguage': 'lucene'},
                                 {'aggFn': 'count', 'where': '', 'whereLanguage': 'sql'}]}


def test_as_ratio_with_three_series_is_stored_false(sim):
    tile = dict(time_tile(), asRatio=True)
    tile['series'] = tile['series'] * 3
    sim.admin('PATCH', 'config', {'dashboard_read_form': 'config'})
    assert create(sim, dashboard_body(tile))['tiles'][0]['config']['asRatio'] is False


def test_config_tiles_get_the_defaults_in_config_form(sim):
    assert _gallery_tile(sim, 'Cache hit ratio', 'config')['config'] == {
        'displayType': 'line', 'sourceId': SOURCE_METRICS, 'asRatio': True, 'fillNulls': False,
        'select': [{'aggFn': 'sum', 'valueExpression': 'cache.hits', 'where': '', 'whereLanguage': 'lucene'},
                   {'aggFn': 'sum', 'valueExpression': 'cache.requests', 'where': '', 'whereLanguage': 'lucene'}]}
    assert _gallery_tile(sim, 'Runbook', 'config')['config'] == {'displayType': 'markdown', 'markdown': '# Runbook\nPage the on-call engineer.'}


def test_series_form_reads_convert_back_from_the_stored_config(sim):
    tile = _gallery_tile(sim, 'Latency p95', 'series')
    assert tile == {'id': gallery_tile('Latency p95'), 'name': 'Latency p95', 'x': 12, 'y': 0, 'w': 12, 'h': 3, 'asRatio': False,
                    'series': [{'type': 'time', 'sourceId': SOURCE_METRICS, 'aggFn': 'quantile', 'field': 'query.duration_ms',
                                'where': 'service:prod-analytics', 'whereLanguage': 'lucene', 'level': 0.95, 'groupBy': ['host'],
                                'displayType': 'line'}]}
    notes = _gallery_tile(sim, 'Notes', 'series')
    assert notes['series'] == [{'type': 'markdown', 'content': 'Dashboards are code: edit them in Git.'}]
    assert 'config' in _gallery_tile(sim, 'Queries by kind', 'series')  # a pie has no series form


def test_every_form_of_every_fixture_dashboard_is_accepted_back(sim):
    """A PUT built from a read, in any form, is valid (what a module that adopts a dashboard sends)."""
    for form in ('as_sent', 'series', 'config'):
        sim.admin('POST', 'reset', {'dashboard_read_form': form})
        for dashboard in sim.obs('GET', DASHBOARDS).json()['data']:
            reply = sim.obs('PUT', '%s/%s' % (DASHBOARDS, dashboard['id']), dashboard)
            assert reply.status == 200, (form, dashboard['name'], reply.text)
            assert [t['id'] for t in reply.json()['data']['tiles']] == [t['id'] for t in dashboard['tiles']]


def test_a_config_form_read_sent_back_reads_the_same(sim):
    sim.admin('PATCH', 'config', {'dashboard_read_form': 'config'})
    gallery = read(sim, DASHBOARD_GALLERY)
    sim.obs('PUT', '%s/%s' % (DASHBOARDS, DASHBOARD_GALLERY), gallery)
    assert read(sim, DASHBOARD_GALLERY) == gallery


# Log, faults, rate limit --------------------------------------------------------------------------------

def test_every_route_is_logged_with_its_body(sim):
    dashboard = create(sim, dashboard_body())
    sim.obs('PUT', '%s/%s' % (DASHBOARDS, dashboard['id']), dashboard_body(name='B'))
    sim.obs('DELETE', '%s/%s' % (DASHBOARDS, dashboard['id']))
    sim.obs('GET', DASHBOARDS)
    log = [(entry['method'], entry['path'], entry['status'], entry['api']) for entry in sim.requests_log()]
    path = '%s/%s' % (DASHBOARDS, dashboard['id'])
    assert log == [('POST', DASHBOARDS, 200, 'observability'), ('PUT', path, 200, 'observability'),
                   ('DELETE', path, 200, 'observability'), ('GET', DASHBOARDS, 200, 'observability')]
    assert sim.requests_log()[1]['body']['name'] == 'B'


def test_a_lost_create_answer_leaves_the_dashboard(sim):
    sim.admin('POST', 'faults', {'method': 'POST', 'path': '^/api/v2/dashboards$', 'kind': 'reset', 'apply': True})
    with pytest.raises(Exception):
        sim.obs('POST', DASHBOARDS, dashboard_body(name='Lost answer'))
    assert [d['name'] for d in sim.obs('GET', DASHBOARDS).json()['data']].count('Lost answer') == 1
    assert sim.requests_log()[0]['handled'] is True and sim.requests_log()[0]['fault'] == 'reset'


def test_slow_create_applies_and_answers_504(sim):
    sim.admin('PATCH', 'config', {'slow_observability_create': True})
    reply = sim.obs('POST', DASHBOARDS, dashboard_body(name='Slow'))
    assert reply.status == 504 and reply.text == 'Gateway Timeout'
    assert [d['name'] for d in sim.obs('GET', DASHBOARDS).json()['data']].count('Slow') == 1


def test_one_rate_limit_budget_for_every_route(sim):
    sim.admin('POST', 'reset', {'rate_limit': True})
    routes = [('GET', DASHBOARDS, None), ('GET', '/api/v2/alerts', None), ('GET', '%s/%s' % (DASHBOARDS, DASHBOARD_HEALTH), None),
              ('POST', DASHBOARDS, dashboard_body()), ('DELETE', '%s/%s' % (DASHBOARDS, MISSING_DASHBOARD), None)]
    statuses = [sim.obs(*routes[index % len(routes)]).status for index in range(100)]
    assert 429 not in statuses
    refused = sim.obs('POST', DASHBOARDS, dashboard_body(name='One too many'))
    assert refused.status == 429 and refused.text == 'Too many requests, please try again later.'
    assert refused.headers['Retry-After'] == '60'
    assert 'One too many' not in {d['name'] for d in sim.admin('GET', 'state')['dashboards']}


def test_put_checks_the_body_before_it_looks_for_the_dashboard(sim):
    assert 'name: Required' in message(sim.obs('PUT', '%s/%s' % (DASHBOARDS, MISSING_DASHBOARD), {'tiles': []}))
    body = dashboard_body(time_tile(sourceId='65b0000000000000000000ff'))
    assert sim.obs('PUT', '%s/%s' % (DASHBOARDS, MISSING_DASHBOARD), body).status == 404


def test_a_dashboard_is_edited_through_the_admin_interface(sim):
    promql = dict(time_tile('PromQL edit', whereLanguage='promql'), id='6f00000000000000000000ff')
    tiles = stored(sim, DASHBOARD_HEALTH)['tiles'] + [promql]
    assert sim.admin('PATCH', 'dashboards/' + DASHBOARD_HEALTH, {'tiles': tiles})['tiles'][-1]['id'] == promql['id']
    assert len(read(sim, DASHBOARD_HEALTH)['tiles']) == 4  # the PromQL tile is stored, not read
    assert sim.request('PATCH', '/_admin/dashboards/' + DASHBOARD_HEALTH, {'id': 'x'}).status == 400


def test_table_number_and_search_tiles_in_config_and_series_forms(sim):
    assert _gallery_tile(sim, 'Top hosts', 'config')['config'] == {
        'displayType': 'table', 'sourceId': SOURCE_METRICS, 'groupBy': 'host', 'asRatio': False,
        'select': [{'aggFn': 'avg', 'valueExpression': 'cpu.usage', 'where': '', 'whereLanguage': 'lucene'}]}
    assert _gallery_tile(sim, 'Top hosts', 'series')['series'] == [
        {'type': 'table', 'sourceId': SOURCE_METRICS, 'aggFn': 'avg', 'field': 'cpu.usage', 'where': '', 'whereLanguage': 'lucene',
         'groupBy': ['host']}]
    assert _gallery_tile(sim, 'Open errors', 'config')['config'] == {
        'displayType': 'number', 'sourceId': SOURCE_LOGS, 'numberFormat': {'output': 'number'},
        'select': [{'aggFn': 'count', 'where': 'level:error', 'whereLanguage': 'lucene'}]}
    assert _gallery_tile(sim, 'Error count', 'series')['series'] == [
        {'type': 'number', 'sourceId': SOURCE_LOGS, 'aggFn': 'count', 'field': '', 'where': 'level:error', 'whereLanguage': 'lucene'}]
    assert _gallery_tile(sim, 'Recent errors', 'series')['series'] == [
        {'type': 'search', 'sourceId': SOURCE_LOGS, 'where': 'level:error', 'whereLanguage': 'lucene',
         'fields': ['timestamp', 'service', 'message']}]
    assert _gallery_tile(sim, 'Recent errors', 'config')['config'] == {
        'displayType': 'search', 'sourceId': SOURCE_LOGS, 'select': 'timestamp,service,message', 'where': 'level:error',
        'whereLanguage': 'lucene'}
    for name in ('Latency heatmap', 'Log patterns', 'Errors by service'):
        assert 'series' not in _gallery_tile(sim, name, 'series')


def test_the_as_sent_form_shows_each_tile_as_it_was_sent(sim):
    from .fixture_ids import _FIXTURES  # pylint: disable=import-outside-toplevel
    sent = next(d for d in _FIXTURES['dashboards'] if d['id'] == DASHBOARD_GALLERY)['tiles']
    assert read(sim, DASHBOARD_GALLERY)['tiles'] == [tile for tile in sent if tile['name'] != 'PromQL CPU']


def test_a_null_form_counts_as_left_out(sim):
    tile = dict(config_tile(), series=None)
    stored_tile = create(sim, dashboard_body(tile))['tiles'][0]
    assert 'series' not in stored_tile and stored_tile['config']['displayType'] == 'line'
    sim.admin('PATCH', 'config', {'dashboard_read_form': 'series'})
    assert sim.obs('GET', DASHBOARDS).status == 200
    both_null = dict(time_tile(), series=None, config=None)
    assert 'tiles.0: Tile must have either series or config' in message(sim.obs('POST', DASHBOARDS, dashboard_body(both_null)))


# Sections and tabs, names, what reads keep, the config schema (reference, "dashboards and alerts as code") ------

SECTIONS = [{'id': 'ops', 'type': 'section', 'tabs': [{'id': 'cpu'}, {'id': 'io'}]}, {'id': 'misc', 'type': 'section'}]


def _placed_tile(name='Placed', **place):
    return dict(time_tile(name), **place)


@pytest.mark.parametrize('form', ['as_sent', 'series', 'config'])
def test_tiles_keep_their_container_and_tab_in_every_read_form(sim, form):
    sim.admin('PATCH', 'config', {'dashboard_read_form': form})
    dashboard = create(sim, dashboard_body(_placed_tile(containerId='ops', tabId='io'), _placed_tile('Loose'), containers=SECTIONS))
    placed, loose = read(sim, dashboard['id'])['tiles']
    assert (placed['containerId'], placed['tabId']) == ('ops', 'io') and 'containerId' not in loose
    # a PUT replaces the tiles: a tile sent without its container leaves it (the containers are kept)
    body = {'name': dashboard['name'], 'tiles': [{k: v for k, v in placed.items() if k not in ('containerId', 'tabId')}]}
    assert 'containerId' not in sim.obs('PUT', '%s/%s' % (DASHBOARDS, dashboard['id']), body).json()['data']['tiles'][0]
    assert read(sim, dashboard['id'])['containers'] == SECTIONS


@pytest.mark.parametrize('place, fragment', [
    ({'tabId': 'io'}, 'Body validation failed: tiles.0.tabId: tabId needs containerId'),
    ({'containerId': ''}, 'tiles.0.containerId: String must contain at least 1 character(s)'),
    ({'containerId': 'c' * 257}, 'tiles.0.containerId: String must contain at most 256 character(s)'),
    ({'containerId': 'gone'}, 'Could not find the following containers or tabs: gone'),
    ({'containerId': 'misc', 'tabId': 'io'}, 'Could not find the following containers or tabs: misc/io'),
])
def test_a_placement_is_checked_and_must_resolve(sim, place, fragment):
    assert fragment in message(sim.obs('POST', DASHBOARDS, dashboard_body(_placed_tile(**place), containers=SECTIONS)))


def test_a_put_resolves_against_the_stored_containers_and_a_gone_container_is_dropped_on_read(sim):
    dashboard = create(sim, dashboard_body(_placed_tile(containerId='ops', tabId='cpu'), _placed_tile('B', containerId='misc'),
                                           containers=SECTIONS))
    tiles = read(sim, dashboard['id'])['tiles']
    assert sim.obs('PUT', '%s/%s' % (DASHBOARDS, dashboard['id']), {'name': 'n', 'tiles': tiles}).status == 200
    sim.admin('PATCH', 'dashboards/' + dashboard['id'], {'containers': [{'id': 'ops', 'tabs': [{'id': 'io'}]}]})
    placed, other = read(sim, dashboard['id'])['tiles']
    assert placed['containerId'] == 'ops' and 'tabId' not in placed and 'containerId' not in other
    assert stored(sim, dashboard['id'])['tiles'][1]['containerId'] == 'misc'  # stored, not read


def test_a_tile_name_may_be_empty_and_two_tiles_may_share_one(sim):
    dashboard = create(sim, dashboard_body(time_tile(''), time_tile('Twin'), time_tile('Twin')))
    assert [tile['name'] for tile in read(sim, dashboard['id'])['tiles']] == ['', 'Twin', 'Twin']


def test_what_config_reads_keep_of_a_series(sim):
    sim.admin('PATCH', 'config', {'dashboard_read_form': 'config'})
    number = {'name': 'N', 'x': 0, 'y': 0, 'w': 6, 'h': 3, 'asRatio': True, 'series': [
        {'type': 'number', 'sourceId': SOURCE_LOGS, 'aggFn': 'count', 'where': 'a', 'groupBy': ['host'], 'alias': ''},
        {'type': 'number', 'sourceId': SOURCE_LOGS, 'aggFn': 'avg', 'field': 'x', 'where': 'b'}]}
    levels = time_tile('L', aggFn='avg', field='x', level=0.5, alias='', metricName='')
    levels['series'] += [dict(levels['series'][0], aggFn='quantile', level=0.95), dict(levels['series'][0], aggFn='quantile', level=0.3)]
    search = {'name': 'S', 'x': 0, 'y': 0, 'w': 6, 'h': 3, 'series': [
        {'type': 'search', 'sourceId': SOURCE_LOGS, 'where': 'a', 'fields': ['ts', 'msg']},
        {'type': 'search', 'sourceId': SOURCE_LOGS, 'where': 'b', 'fields': ['other']}]}
    tiles = create(sim, dashboard_body(number, levels, search))['tiles']
    assert tiles[0]['config'] == {'displayType': 'number', 'sourceId': SOURCE_LOGS, 'select': [
        {'aggFn': 'count', 'where': 'a', 'whereLanguage': 'lucene'}]}
    assert [item.get('level') for item in tiles[1]['config']['select']] == [None, 0.95, None]
    assert not {'alias', 'metricName'} & set(tiles[1]['config']['select'][0])
    assert tiles[2]['config']['select'] == 'ts, msg' and tiles[2]['config']['where'] == 'a'
    sim.admin('PATCH', 'config', {'dashboard_read_form': 'series'})
    assert create(sim, dashboard_body(search))['tiles'][0]['series'] == [
        {'type': 'search', 'sourceId': SOURCE_LOGS, 'where': 'a', 'whereLanguage': 'lucene', 'fields': ['ts', 'msg']}]


def _config_of(sim, config, form='config'):
    sim.admin('PATCH', 'config', {'dashboard_read_form': form})
    tile = {'name': 'C', 'x': 0, 'y': 0, 'w': 6, 'h': 3, 'config': config}
    return create(sim, dashboard_body(tile))['tiles'][0]


def test_the_config_schema_keeps_its_keys_by_display_type_and_drops_the_rest(sim):
    line = {'displayType': 'line', 'sourceId': SOURCE_METRICS, 'fitYAxisToData': True, 'seriesLimit': 5, 'showOperandSeries': False,
            'formulas': [{'expression': 'a/b'}], 'fillNull': False, 'color': 'red',
            'select': [{'aggFn': 'sum', 'valueExpression': 'x', 'periodAggFn': 'delta', 'shade': 1}]}
    config = _config_of(sim, line)['config']
    assert config['fitYAxisToData'] is True and config['seriesLimit'] == 5 and config['formulas'] == [{'expression': 'a/b'}]
    assert not {'fillNull', 'color'} & set(config) and config['select'][0]['periodAggFn'] == 'delta' and 'shade' not in config['select'][0]
    number = {'displayType': 'number', 'sourceId': SOURCE_METRICS, 'fillNulls': False, 'asRatio': False, 'fitYAxisToData': True,
              'formulas': [{'expression': 'a+b'}], 'select': [{'aggFn': 'count'}, {'aggFn': 'sum', 'valueExpression': 'x'}]}
    config = _config_of(sim, number)['config']
    assert not {'fillNulls', 'asRatio', 'fitYAxisToData'} & set(config) and len(config['select']) == 2


def test_a_raw_sql_tile_is_stored_read_in_config_form_and_gets_fill_nulls(sim):
    raw = {'displayType': 'line', 'configType': 'sql', 'connectionId': 'conn-1', 'sqlTemplate': 'SELECT 1'}
    assert _config_of(sim, raw)['config'] == dict(raw, fillNulls=True)
    assert _config_of(sim, raw, 'series')['config'] == raw
    heatmap = create(sim, dashboard_body(config_tile(displayType='heatmap', configType='sql', connectionId='c', sqlTemplate='x')))
    assert not {'configType', 'sqlTemplate'} & set(heatmap['tiles'][0]['config'])  # not a key of a heatmap: dropped
    assert 'tiles.0.config.sqlTemplate: Required' in message(sim.obs('POST', DASHBOARDS, dashboard_body(config_tile(configType='sql', connectionId='c'))))


@pytest.mark.parametrize('select, fragment', [
    ({'aggFn': 'quantile', 'valueExpression': 'x', 'level': 0.3}, 'select.0.level: Level must be one of 0.5, 0.9, 0.95, 0.99'),
    ({'aggFn': 'avg', 'valueExpression': 'x', 'level': 0.5}, 'select.0.level: Level is only allowed with aggFn quantile'),
    ({'aggFn': 'sum', 'valueExpression': 'x', 'periodAggFn': 'rate'}, "select.0.periodAggFn: Invalid enum value"),
])
def test_config_levels_and_period_aggregations_are_checked(sim, select, fragment):
    assert fragment in message(sim.obs('POST', DASHBOARDS, dashboard_body(config_tile(select=[select])))), fragment
