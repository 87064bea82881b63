# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import copy

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import dashboard_rules as rules
from ansible_collections.engine.cloud.plugins.module_utils import tiles

SOURCE = '65b000000000000000000001'

# A series tile as a task writes it (snake_case options, unset suboptions None as ansible-core fills them).
OPTION_TILE = dict(name='Error ratio', x=6, y=3, w=6, h=3, as_ratio=True, config=None, series=[
    dict(type='time', source_id=SOURCE, agg_fn='count', field=None, where='status:error', where_language=None,
         group_by=['host', 'zone'], alias='errors', level=None, metric_data_type=None, metric_name=None,
         number_format=dict(output='percent'), display_type='stacked_bar', data_source=None),
    dict(type='time', source_id=SOURCE, agg_fn='quantile', field='latency', where='', where_language='sql',
         group_by=['host', 'zone'], alias=None, level=0.5, metric_data_type='gauge', metric_name='latency', number_format=None,
         display_type=None, data_source=None),
])

# The same tile as the newest servers read it back: config form, defaults added.
CONFIG_READ = dict(id='t1', name='Error ratio', x=6, y=3, w=6, h=3, config=dict(
    displayType='stacked_bar', sourceId=SOURCE, groupBy='host,zone', asRatio=True, fillNulls=True,
    numberFormat=dict(output='percent'), select=[
        dict(aggFn='count', alias='errors', valueExpression='', where='status:error', whereLanguage='lucene'),
        dict(aggFn='quantile', level=0.5, metricName='latency', metricType='gauge', valueExpression='latency', where='',
             whereLanguage='sql')]))


def test_the_series_and_config_reads_and_the_task_meet_in_one_normal_form():
    desired = tiles.normal_tile(tiles.api_tile(OPTION_TILE))
    assert tiles.normal_tile(dict(tiles.api_tile(OPTION_TILE), id='t1')) == desired  # read back as sent (the oldest servers)
    assert tiles.normal_tile(CONFIG_READ) == desired
    assert 'id' not in desired


def test_as_ratio_holds_only_with_exactly_two_items_and_line_is_the_default_display():
    tile = dict(name='one', x=0, y=0, w=1, h=1, asRatio=True, series=[dict(type='time', sourceId=SOURCE, aggFn='count', where='', groupBy=[])])
    config = tiles.normal_tile(tile)['config']
    assert (config['asRatio'], config['displayType'], 'groupBy' in config) == (False, 'line', False)


def config_tile(name='n', **config):
    return dict(name=name, x=0, y=0, w=4, h=2, config=config)


NUMBER = config_tile(displayType='number', sourceId=SOURCE, select=[dict(aggFn='count')])
TWO = [dict(aggFn='count'), dict(aggFn='avg', valueExpression='x')]
MARKDOWN = config_tile(displayType='markdown', markdown='hi')
SENT = config_tile(displayType='line', sourceId=SOURCE, fillNulls=False, having='x > 1',
                   select=[dict(aggFn='count', numberFormat=dict(output='percent'))])
SERIES_READ = dict(name='n', x=0, y=0, w=4, h=2, asRatio=False, series=[
    dict(type='time', sourceId=SOURCE, aggFn='count', field='', where='', whereLanguage='lucene', groupBy=[], displayType='line')])


@pytest.mark.parametrize('read, sent, differ', [
    pytest.param([dict(NUMBER, id='x', config=dict(NUMBER['config'], fillNulls=True, asRatio=False, select=[
        dict(aggFn='count', where='', whereLanguage='lucene', valueExpression='')]))], [NUMBER], False, id='the defaults a read adds'),
    pytest.param([config_tile(displayType='line', select=[dict(aggFn='count')], fillNulls=True)],
                 [config_tile(displayType='line', select=[dict(aggFn='count')], fillNulls=False)], True, id='a setting other than the default'),
    pytest.param([config_tile(displayType='line', select=TWO)], [config_tile(displayType='line', select=TWO[::-1])], True, id='select order'),
    pytest.param([config_tile(displayType='line', select=TWO), config_tile('m', displayType='line', select=TWO)],
                 [config_tile('m', displayType='line', select=TWO), config_tile(displayType='line', select=TWO)], False, id='tile order'),
    pytest.param([MARKDOWN, MARKDOWN], [MARKDOWN], True, id='two read tiles of one name'),
    pytest.param([SERIES_READ], [SENT], False, id='what a series read cannot show'),
    pytest.param([dict(SERIES_READ, series=[dict(SERIES_READ['series'][0], aggFn='sum')])], [SENT], True, id='what a series read shows'),
    pytest.param([config_tile(**dict(SENT['config'], fillNulls=True))], [SENT], True, id='a config read shows every setting'),
])
def test_tiles_differ(read, sent, differ):
    assert (tiles.tiles_diff(read, sent) != ({}, {})) is differ


def test_the_diff_shows_tiles_by_name_with_only_what_differs():
    current = [CONFIG_READ, dict(name='Gone', x=0, y=9, w=2, h=2, id='t9', config=dict(displayType='markdown', markdown='bye'))]
    moved = dict(tiles.api_tile(OPTION_TILE), x=0)
    added = dict(name='New', x=0, y=6, w=2, h=2, config=dict(displayType='markdown', markdown='hi'))
    before, after = tiles.tiles_diff(current, [moved, added])
    assert before == {'Error ratio': dict(x=6), 'Gone': dict(x=0, y=9, w=2, h=2, config=dict(displayType='markdown', markdown='bye'))}
    assert after == {'Error ratio': dict(x=0), 'New': dict(x=0, y=6, w=2, h=2, config=dict(displayType='markdown', markdown='hi'))}


def test_a_tile_the_task_gives_in_series_form_shows_in_series_form_on_both_sides():
    changed = copy.deepcopy(OPTION_TILE)
    changed['series'][0]['where'] = 'status:fatal'
    before, after = tiles.tiles_diff([CONFIG_READ], [tiles.api_tile(changed)])
    assert set(before['Error ratio']) == set(after['Error ratio']) == {'series'}
    assert [item['where'] for item in before['Error ratio']['series']] == ['status:error', '']
    assert after['Error ratio']['series'][0] == dict(type='time', source_id=SOURCE, agg_fn='count', field='', where='status:fatal',
                                                     where_language='lucene', alias='errors', group_by=['host', 'zone'],
                                                     display_type='stacked_bar', number_format=dict(output='percent'))


DASHBOARD = dict(id='65a1b2c3d4e5f60718293a4b', name='d', tiles=[
    dict(id='t-line', name='Line', config=dict(displayType='line')),
    dict(id='t-gone', name='Gone', config=dict(displayType='line')),
])
ALERTS = [
    dict(id='a1', name='on line', source='tile', tileId='t-line', dashboardId=DASHBOARD['id']),
    dict(id='a2', name='on gone', source='tile', tileId='t-gone', dashboard=DASHBOARD['id']),
    dict(id='a3', name='on promql', source='tile', tileId='t-promql', dashboardId=DASHBOARD['id']),
    dict(id='a4', name='elsewhere', source='tile', tileId='t-line', dashboardId='65a1b2c3d4e5f60718293a4c'),
    dict(id='a5', name='search', source='saved_search', savedSearchId='s1'),
]


def test_an_update_deletes_the_alerts_of_tiles_left_out_and_read_never_and_a_delete_every_tile_alert_in_either_form():
    body = [dict(id='t-line', name='Line', x=0, y=0, w=1, h=1, config=dict(displayType='line'))]
    doomed = rules.deleted_alerts(ALERTS, DASHBOARD, body)
    assert [alert['id'] for alert in doomed] == ['a2', 'a3']
    assert doomed[0] == dict(id='a2', name='on gone', tile_id='t-gone', tile='Gone', reason='its tile is left out')
    assert 'PromQL' in doomed[1]['reason']
    assert [alert['id'] for alert in rules.deleted_alerts(ALERTS, DASHBOARD)] == ['a1', 'a2', 'a3']


TIME = dict(type='time', source_id=SOURCE, agg_fn='count', where='', group_by=[])
GOOD = dict(name='t', x=0, y=0, w=24, h=1, series=None, as_ratio=None, config=dict(displayType='markdown', markdown='hi'))


@pytest.mark.parametrize('change, message', [
    (dict(x=24), 'tiles[0].x must be between 0 and 23, got 24'),
    (dict(x=-1), 'tiles[0].x must be between 0 and 23, got -1'),
    (dict(y=-1), 'tiles[0].y must be at least 0, got -1'),
    (dict(w=0), 'tiles[0].w must be between 1 and 24, got 0'),
    (dict(w=25), 'tiles[0].w must be between 1 and 24, got 25'),
    (dict(h=0), 'tiles[0].h must be at least 1, got 0'),
    (dict(series=[dict(type='time')]), 'tiles[0] must have exactly one of series and config'),
    (dict(config=None), 'tiles[0] must have exactly one of series and config'),
    (dict(config=None, series=[]), 'tiles[0].series must hold at least one item'),
    (dict(config=None, series=[dict(type='time'), dict(type='number')]), 'tiles[0].series must be all of one type, got number, time'),
    (dict(config=None, series=[dict(TIME, level=2)]), 'tiles[0].series[0].level must be between 0 and 1, got 2'),
    (dict(config=None, series=[dict(TIME, group_by=list('abcdefghijk'))]), 'tiles[0].series[0].group_by must hold at most 10 fields, got 11'),
    (dict(config=dict(displayType='line', select=[dict(aggFn='count')])), 'tiles[0].config.sourceId is required for a line tile'),
    (dict(config=dict(displayType='graph')), 'tiles[0].config.displayType must be one of line, stacked_bar'),
    (dict(config=dict(displayType='number', sourceId=SOURCE, select=[dict(aggFn='count'), dict(aggFn='count')])),
     'tiles[0].config.select of a number tile must hold exactly 1 items, got 2'),
    (dict(config=dict(displayType='line', sourceId=SOURCE, select=[dict(aggFn='count')] * 21)),
     'tiles[0].config.select of a line tile must hold between 1 and 20'),
    (dict(config=dict(displayType='line', sourceId=SOURCE)),
     'tiles[0].config.select of a line tile must hold between 1 and 20 items, got null'),
    (dict(config=dict(displayType='line', sourceId=SOURCE, select=[dict(aggFn='median')])), 'tiles[0].config.select[0].aggFn must be one of avg'),
    (dict(config=dict(displayType='line', sourceId=SOURCE, select=[dict(aggFn='count', whereLanguage='kql')])),
     'tiles[0].config.select[0].whereLanguage must be one of'),
    (dict(config=dict(displayType='line', sourceId=SOURCE, select=[dict(aggFn='count')], asRatio=True)),
     'tiles[0].config.asRatio needs exactly 2 select items'),
])
def test_bad_tiles_are_refused_with_a_message_naming_the_option(change, message):
    errors = rules.option_errors(dict(name='d', tiles=[dict(GOOD, **change)]))
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_good_options_pass_and_bad_ids_tags_and_names_do_not():
    twins_and_unnamed = [GOOD, dict(GOOD, y=1), dict(GOOD, name=''), dict(GOOD, name='')]
    assert rules.option_errors(dict(name='d', dashboard_id='65a1b2c3d4e5f60718293a4b', tags=['a'] * 60, tiles=twins_and_unnamed)) == []
    errors = rules.option_errors(dict(name='x' * 1025, dashboard_id='42', tags=['t%d' % n for n in range(51)] + ['y' * 33]))
    assert errors == ["dashboard_id must be an object id of 24 hexadecimal digits, got '42'",
                      'name must be at most 1024 characters long, got 1025',
                      'tags[51] must be at most 32 characters long, got 33', 'tags must hold at most 50 different tags, got 52']


def params(**given):
    return dict(dict(name=None, tags=None, tiles=None), **given)


def test_the_plan_puts_name_tiles_with_ids_and_tags_only_when_given_and_predicts_the_update():
    current = dict(id='d1', name='d', tags=['a'], tiles=[CONFIG_READ])
    assert rules.plan(params(name='d', tags=['a', 'a'], tiles=[OPTION_TILE]), current) == ({}, None)  # read back in config form
    moved = dict(OPTION_TILE, x=0)
    body, diff = rules.plan(params(name='e', tiles=[moved]), current)
    sent = body['tiles'][0]  # over a stored config tile, sent as a config that keeps every key of it
    assert body['name'] == 'e' and sent['id'] == 't1' and 'series' not in sent
    assert tiles.normal_tile(sent) == dict(tiles.normal_tile(CONFIG_READ), x=0)
    assert diff == dict(before=dict(name='d', tiles={'Error ratio': dict(x=6)}), after=dict(name='e', tiles={'Error ratio': dict(x=0)}))
    body, diff = rules.plan(params(tags=['b', 'b']), current)
    assert body == dict(name='d', tiles=[CONFIG_READ], tags=['b'])
    assert diff == dict(before=dict(tags=['a']), after=dict(tags=['b']))
    assert rules.predicted(current, dict(name='e', tiles=[])) == dict(id='d1', name='e', tags=['a'], tiles=[])


def test_a_create_body_has_no_tile_ids_and_empty_tiles_when_left_out():
    assert rules.dashboard_body(params(name='d'), {}) == dict(name='d', tiles=[])
    assert rules.dashboard_body(params(name='d', tiles=[OPTION_TILE], tags=['x']), {})['tiles'] == [tiles.api_tile(OPTION_TILE)]


@pytest.mark.parametrize('item, config', [
    (dict(type='number', sourceId=SOURCE, aggFn='count', where='level:error'),
     dict(displayType='number', sourceId=SOURCE, select=[dict(aggFn='count', valueExpression='', where='level:error', whereLanguage='lucene')])),
    (dict(type='table', sourceId=SOURCE, aggFn='avg', field='cpu', where='', groupBy=['host']),
     dict(displayType='table', sourceId=SOURCE, groupBy='host', select=[dict(aggFn='avg', valueExpression='cpu', where='', whereLanguage='lucene')])),
    (dict(type='markdown', content='# Runbook'), dict(displayType='markdown', markdown='# Runbook')),
    (dict(type='search', sourceId=SOURCE, where='level:error', fields=['timestamp', 'message']),
     dict(displayType='search', sourceId=SOURCE, select='timestamp, message', where='level:error', whereLanguage='lucene')),
])
def test_a_series_tile_of_each_type_is_stored_as_the_config_of_that_kind(item, config):
    tile = dict(name='n', x=0, y=0, w=1, h=1, series=[item])
    assert tiles.normal_tile(tile) == tiles.normal_tile(dict(name='n', x=0, y=0, w=1, h=1, config=config))
    assert rules.display_type(tile) == config['displayType']


def _fixture_tiles():
    from ansible_collections.engine.cloud.tests.simulator import dashboards, fixture_ids
    return [(dashboard['name'], tile) for dashboard in fixture_ids._FIXTURES['dashboards'] for tile in dashboard['tiles']
            if not dashboards.is_promql(tile)]


@pytest.mark.parametrize('form', ['as_sent', 'series', 'config'])
def test_every_fixture_tile_read_in_every_form_has_the_normal_form_of_the_tile_sent(form):
    from ansible_collections.engine.cloud.tests.simulator import dashboards
    for dashboard, tile in _fixture_tiles():
        read = dashboards.read_tile(tile, form)
        assert tiles.normal_tile(read) == tiles.seen_as(tiles.normal_tile(tile), read), (dashboard, tile['name'])
        assert tiles.tiles_diff([read], [tile]) == ({}, {}), (dashboard, tile['name'])
        assert rules.display_type(read) == dashboards.display_type(tile), (dashboard, tile['name'])
        fed_back = tiles.api_tile(dict(dict(series=None, config=None, as_ratio=None), **tiles.option_tile(read)))
        assert tiles.tiles_diff([read], [fed_back]) == ({}, {}), (dashboard, tile['name'])
