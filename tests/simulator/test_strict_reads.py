"""What the live server's reads add and leave out (reference: "what reads add and leave out", "eras"), and its rate window:
the simulator no more lenient than the server (issue 48, item 7)."""

import pytest

from .fixture_ids import DASHBOARD_HEALTH, DASHBOARD_INGESTION, SOURCE_METRICS

DASHBOARDS = '/api/v2/dashboards'
ERAS = ['as_sent', 'series', 'config']


def tile(config, **place):
    return dict({'name': 'T', 'x': 0, 'y': 0, 'w': 6, 'h': 3, 'config': dict({'sourceId': SOURCE_METRICS}, **config)}, **place)


def created(local, form, *tiles, **body):
    local.admin('PATCH', 'config', {'dashboard_read_form': form})
    reply = local.obs('POST', DASHBOARDS, dict({'name': 'Reads', 'tiles': list(tiles)}, **body))
    assert reply.status == 200, reply.text
    return reply.json()['data']


@pytest.mark.parametrize('form', ['series', 'config'])
@pytest.mark.parametrize('kind', ['heatmap', 'event_patterns'])
def test_heatmap_and_event_patterns_read_with_a_config_level_where(local, form, kind):
    bare = tile({'displayType': kind, 'select': [{'aggFn': 'count'}]})
    sent = tile({'displayType': kind, 'select': [{'aggFn': 'count'}], 'where': 'level:error', 'whereLanguage': 'sql'})
    configs = [read['config'] for read in created(local, form, bare, sent)['tiles']]
    assert [(config['where'], config['whereLanguage']) for config in configs] == [('', 'lucene'), ('level:error', 'sql')]


def series_tile(**item):
    return {'name': 'S', 'x': 0, 'y': 0, 'w': 6, 'h': 3,
            'series': [dict({'type': 'time', 'sourceId': SOURCE_METRICS, 'where': '', 'groupBy': []}, **item)]}


def test_a_count_loses_its_leftover_value_expression_and_other_aggregations_keep_theirs(local):
    tiles = created(local, 'config', series_tile(aggFn='count', field='bytes'), series_tile(aggFn='avg'),
                    tile({'displayType': 'pie', 'select': [{'aggFn': 'count', 'valueExpression': ''}]}))['tiles']
    assert [tile_read['config']['select'][0].get('valueExpression') for tile_read in tiles] == [None, '', None]
    pie = created(local, 'series', tile({'displayType': 'pie', 'select': [{'aggFn': 'count', 'valueExpression': ''}]}))
    assert 'valueExpression' not in pie['tiles'][0]['config']['select'][0]


@pytest.mark.parametrize('form', ['series', 'config'])
def test_an_empty_group_by_is_left_out(local, form):
    read = created(local, form, tile({'displayType': 'bar', 'select': [{'aggFn': 'count'}], 'groupBy': ''}))['tiles'][0]
    assert 'groupBy' not in read['config']


@pytest.mark.parametrize('form', ERAS)
def test_containers_show_only_when_the_dashboard_has_sections(local, form):
    assert 'containers' not in created(local, form, containers=[])
    sections = [{'id': 'top', 'tabs': []}]
    assert created(local, form, containers=sections)['containers'] == sections


READ_DEFAULTS = {'filters': [], 'savedQuery': None, 'savedQueryLanguage': None, 'savedFilterValues': []}


@pytest.mark.parametrize('form', ERAS)
def test_list_and_read_items_carry_the_unset_filters_and_saved_query(local, form):
    created(local, form)
    defaults = {} if form == 'as_sent' else READ_DEFAULTS  # the oldest servers show what the contract shows
    for dashboard in local.obs('GET', DASHBOARDS).json()['data']:
        assert {key: dashboard[key] for key in READ_DEFAULTS if key in dashboard} == defaults
    kept = created(local, form, savedQuery='level:error', savedQueryLanguage='lucene', filters=[{'key': 'env'}])
    assert (kept['savedQuery'], kept['savedQueryLanguage'], kept['filters']) == ('level:error', 'lucene', [{'key': 'env'}])


def test_contract_form_tiles_make_series_and_config_reads_answer_500(local):
    contract = [{'id': 't-old', 'name': 'CPU', 'x': 0, 'y': 0, 'w': 6, 'h': 3, 'asRatio': False, 'series': [
        {'type': 'time', 'dataSource': 'metrics', 'aggFn': 'avg', 'field': 'cpu', 'where': '', 'groupBy': []}]}]
    local.admin('PATCH', 'dashboards/' + DASHBOARD_HEALTH, {'tiles': contract})  # stored by an oldest server
    for form, status in (('as_sent', 200), ('series', 500), ('config', 500)):
        local.admin('PATCH', 'config', {'dashboard_read_form': form})
        one, listed = local.obs('GET', '%s/%s' % (DASHBOARDS, DASHBOARD_HEALTH)), local.obs('GET', DASHBOARDS)
        assert (one.status, listed.status) == (status, status)
        assert local.obs('GET', '%s/%s' % (DASHBOARDS, DASHBOARD_INGESTION)).status == 200
    assert one.json() == {'message': 'Something went wrong :('}
    assert local.obs('DELETE', '%s/%s' % (DASHBOARDS, DASHBOARD_HEALTH)).status == 200  # what needs no read still works


def test_the_rate_window_is_one_grid_for_every_token_from_the_servers_start(local):
    local.admin('PATCH', 'config', {'rate_limit': True})
    local.clock.advance(45)  # the first window of the grid has 15 s left
    first = local.obs('GET', DASHBOARDS)
    assert (first.headers['RateLimit-Remaining'], first.headers['RateLimit-Reset']) == ('99', '15')
    for _request in range(99):
        local.obs('GET', DASHBOARDS)
    assert local.obs('GET', DASHBOARDS).status == 429
    other = local.request('GET', DASHBOARDS, headers={'Authorization': 'Bearer other'})
    assert (other.status, other.headers['RateLimit-Reset']) == (401, '15')  # another value: its own count, the same grid
    local.clock.advance(15)  # 60 s after the start, not 60 s after the token's first request
    again = local.obs('GET', DASHBOARDS)
    assert (again.status, again.headers['RateLimit-Reset']) == (200, '60')


def test_a_source_id_is_compared_exactly(local):
    shouting = tile({'displayType': 'number', 'select': [{'aggFn': 'count'}], 'sourceId': SOURCE_METRICS.upper()})
    local.admin('PATCH', 'config', {'dashboard_read_form': 'config'})
    refused = local.obs('POST', DASHBOARDS, {'name': 'Upper', 'tiles': [shouting]})
    assert refused.json() == {'message': 'Could not find the following source IDs: ' + SOURCE_METRICS.upper()}
