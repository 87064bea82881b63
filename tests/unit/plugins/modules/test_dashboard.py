# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import pytest

from ansible_collections.engine.cloud.plugins.modules import dashboard, dashboard_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    ALERT_PROMQL, ALERT_STAGING_A, ALERT_TABLE, ALERTS, DASHBOARD_GALLERY, DASHBOARD_HEALTH, DASHBOARD_INGESTION, DASHBOARD_STAGING_A,
    SOURCE_LOGS, SOURCE_METRICS)

LIST = ('GET', '/api/v2/dashboards')
POST = ('POST', '/api/v2/dashboards')
ALERTS_PAGE = ('GET', '/api/v2/alerts?limit=1000&offset=0')
SOURCES = ('GET', '/api/v2/sources')  # check mode reads the team's sources
ERAS = ('as_sent', 'series', 'config')
HIGH_CPU = ALERTS[0]  # on Service health's CPU usage tile


def item(dashboard_id):
    return '/api/v2/dashboards/' + dashboard_id


REQUESTS = dict(name='Requests', x=0, y=0, w=12, h=3,
                series=[dict(type='time', source_id=SOURCE_METRICS, agg_fn='count', where='service:it', group_by=['host'])])
RATIO = dict(name='Slow ratio', x=12, y=0, w=12, h=3, as_ratio=True, series=[
    dict(type='time', source_id=SOURCE_METRICS, agg_fn='count', where='duration > 1000', where_language='sql', display_type='stacked_bar',
         group_by=[]),
    dict(type='time', source_id=SOURCE_METRICS, agg_fn='avg', field='duration', where='', group_by=[], level=0.5)])
ERRORS = dict(name='Errors', x=0, y=3, w=6, h=3,
              config=dict(displayType='number', sourceId=SOURCE_METRICS, select=[dict(aggFn='count', where='level:error')]))
NOTES = dict(name='Notes', x=6, y=3, w=6, h=2, config=dict(displayType='markdown', markdown='Runbook'))
NEW = dict(name='it', tags=['it', 'ops', 'it'], tiles=[REQUESTS, RATIO, ERRORS, NOTES])


def stored(sim, dashboard_id):
    return next((item for item in sim.state()['dashboards'] if item['id'] == dashboard_id), None)


def alert_ids(sim):
    return [alert['id'] for alert in sim.state()['alerts']]


def exported(run, dashboard_id, era=None):
    """The definition of a dashboard, as dashboard_info exports it (in that read form)."""
    return run(dashboard_info, dict(dashboard_id=dashboard_id), config=era and {'dashboard_read_form': era},
               requests=[('GET', item(dashboard_id))])['dashboard']['definition']


def without(tiles, name):
    return [tile for tile in tiles if tile['name'] != name]


CASES = {
    'check mode predicts the create and sends only reads: the list by name, the sources': dict(
        args=NEW, check=True, diff=True, requests=[LIST, SOURCES],
        result={'changed': True, 'dashboard.tags': ['it', 'ops'], 'diff.before': {}},
        verify=lambda result, sim: sim.named('dashboards', 'it') == [] and [tile['name'] for tile in result['dashboard']['tiles']] == [
            'Requests', 'Slow ratio', 'Errors', 'Notes']),
    'a create is one POST of the tiles in the API form, without ids': dict(
        args=NEW, requests=[LIST, POST], result={'changed': True, 'deleted_alerts': []},
        verify=lambda result, sim: (len(sim.named('dashboards', 'it')) == 1 and sim.requests()[1]['body']['tags'] == ['it', 'ops']
                                    and sim.requests()[1]['body']['tiles'][0]['series'][0]['sourceId'] == SOURCE_METRICS
                                    and all('id' not in tile for tile in sim.requests()[1]['body']['tiles']))),
    'with an id and a name, the dashboard of that id gets the name, its tiles sent back with their ids': dict(
        args=dict(dashboard_id=DASHBOARD_INGESTION, name='Ingestion 2'), diff=True,
        requests=[('GET', item(DASHBOARD_INGESTION)), ALERTS_PAGE, ('PUT', item(DASHBOARD_INGESTION))],
        result={'changed': True, 'diff': dict(before=dict(name='Ingestion'), after=dict(name='Ingestion 2')), 'deleted_alerts': []},
        verify=lambda result, sim: (stored(sim, DASHBOARD_INGESTION)['name'] == 'Ingestion 2'
                                    and [tile['id'] for tile in sim.requests()[2]['body']['tiles']] == ['t-rows', 't-lag', 't-fail']
                                    and 'tags' not in sim.requests()[2]['body'])),
    'an absent dashboard is no change and no DELETE': dict(
        args=dict(name='it', state='absent'), requests=[LIST], result={'changed': False, 'dashboard': {}, 'deleted_alerts': []}),
    'an absent dashboard id is no change': dict(
        args=dict(dashboard_id=DASHBOARD_HEALTH[:-1] + 'f', state='absent'), requests=[('GET', item(DASHBOARD_HEALTH[:-1] + 'f'))],
        result={'changed': False}),
    'a delete of a dashboard with tile alerts fails naming them, after reads only': dict(
        args=dict(dashboard_id=DASHBOARD_HEALTH, state='absent'), requests=[('GET', item(DASHBOARD_HEALTH)), ALERTS_PAGE],
        fails='this change would delete 4 alerts: "High CPU" (%s) on tile "CPU usage": its dashboard is deleted' % HIGH_CPU,
        verify=lambda result, sim: stored(sim, DASHBOARD_HEALTH) is not None and [alert['id'] for alert in result['alerts']] == list(ALERTS[:4])),
    'allowed, the delete is one DELETE, confirmed by a read a second later, and names the alerts': dict(
        args=dict(dashboard_id=DASHBOARD_HEALTH, state='absent', allow_alert_deletion=True),
        requests=[('GET', item(DASHBOARD_HEALTH)), ALERTS_PAGE, ('DELETE', item(DASHBOARD_HEALTH)), ('GET', item(DASHBOARD_HEALTH))],
        sleeps=[1], result={'changed': True, 'dashboard.id': DASHBOARD_HEALTH},
        verify=lambda result, sim: ([alert['id'] for alert in result['deleted_alerts']] == list(ALERTS[:4]) and stored(sim, DASHBOARD_HEALTH) is None
                                    and not set(ALERTS[:4]) & set(alert_ids(sim)))),
    'a delete in check mode names the alerts, in the diff too, and sends nothing': dict(
        args=dict(dashboard_id=DASHBOARD_HEALTH, state='absent', allow_alert_deletion=True), check=True, diff=True,
        requests=[('GET', item(DASHBOARD_HEALTH)), ALERTS_PAGE],
        result={'changed': True, 'diff.after': {}, 'diff.before.id': DASHBOARD_HEALTH, 'diff.before.alerts.0': 'High CPU (%s)' % HIGH_CPU},
        verify=lambda result, sim: len(result['deleted_alerts']) == 4 and stored(sim, DASHBOARD_HEALTH) is not None),
    'an edit of the gallery names the alerts of its table tile and of its PromQL tile, which reads leave out': dict(
        args=dict(dashboard_id=DASHBOARD_GALLERY, tags=['gallery']), requests=[('GET', item(DASHBOARD_GALLERY)), ALERTS_PAGE],
        fails='this change would delete 2 alerts',
        verify=lambda result, sim: (sorted(alert['id'] for alert in result['alerts']) == sorted((ALERT_PROMQL, ALERT_TABLE))
                                    and 'its tile becomes a table tile' in result['msg'] and 'PromQL' in result['msg'])),
}


def without_key(mapping, key):
    return dict((name, value) for name, value in mapping.items() if name != key)


# Besides the tile rules test_dashboard_rules.py holds.
BAD = {
    'a time item without where': (dict(tiles=[dict(REQUESTS, series=[dict(REQUESTS['series'][0], where=None)])]),
                                  'tiles[0].series[0].where is required for a time item'),
    'a table item without group_by': (dict(tiles=[dict(REQUESTS, series=[dict(REQUESTS['series'][0], type='table', group_by=None)])]),
                                      'tiles[0].series[0].group_by is required for a table item'),
    'an item without agg_fn': (dict(tiles=[dict(REQUESTS, series=[without_key(REQUESTS['series'][0], 'agg_fn')])]),
                               'tiles[0].series[0].agg_fn is required for a time item'),
    'an item without source_id': (dict(tiles=[dict(REQUESTS, series=[dict(REQUESTS['series'][0], source_id=None)])]),
                                  'tiles[0].series[0].source_id is required for a time item'),
    'a source id that is no object id': (dict(tiles=[dict(REQUESTS, series=[dict(REQUESTS['series'][0], source_id='metrics')])]),
                                         'tiles[0].series[0].source_id must be an object id of 24 lowercase hexadecimal digits'),
    'an uppercase source id': (dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], sourceId=SOURCE_METRICS.upper()))]),
                               'tiles[0].config.sourceId must be an object id of 24 lowercase'),
    'a valueExpression with count': (dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], select=[dict(aggFn='count', valueExpression='x')]))]),
                                     'tiles[0].config.select[0].valueExpression is not allowed with aggFn count'),
    'no valueExpression with avg': (dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], select=[dict(aggFn='avg')]))]),
                                    'tiles[0].config.select[0].valueExpression is required with aggFn avg'),
    'a config groupBy as a list': (dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], displayType='line', groupBy=['host']))]),
                                   'tiles[0].config.groupBy must be a string, the fields joined by commas'),
    'a config level the server does not take': (
        dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], select=[dict(aggFn='quantile', valueExpression='x', level=0.3)]))]),
        'tiles[0].config.select[0].level must be one of 0.5, 0.9, 0.95, 0.99, and only with aggFn quantile, got 0.3'),
    'a config key the server drops': (dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], displayType='line', fillNull=False))]),
                                      'tiles[0].config.fillNull is not a key of a line tile (the server drops it'),
    'a key of another display type': (dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], fitYAxisToData=True))]),
                                      'tiles[0].config.fitYAxisToData is not a key of a number tile'),
    'a select key the server drops': (dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], select=[dict(aggFn='count', colour='red')]))]),
                                      'tiles[0].config.select[0].colour is not a key of a select item'),
    'a PromQL series tile': (dict(tiles=[dict(REQUESTS, series=[dict(REQUESTS['series'][0], where_language='promql')])]),
                             'tiles[0].series[0].where_language: PromQL tiles cannot be managed: the server leaves them out of every read'),
    'a PromQL config tile': (dict(tiles=[dict(ERRORS, config=dict(ERRORS['config'], select=[dict(aggFn='count', whereLanguage='promql')]))]),
                             'tiles[0].config.select[0].whereLanguage: PromQL tiles cannot be managed'),
    'a number series of two items': (dict(tiles=[dict(REQUESTS, series=[dict(REQUESTS['series'][0], type='number')] * 2)]),
                                     'tiles[0].series of type number must hold one item: the server keeps the first only, got 2'),
    'a markdown tile without its text': (dict(tiles=[dict(NOTES, config=dict(displayType='markdown'))]),
                                         'tiles[0].config.markdown is required for a markdown tile'),
    'a tab without its container': (dict(tiles=[dict(NOTES, tab_id='t')]), 'tiles[0].tab_id needs container_id'),
    'as_ratio with config': (dict(tiles=[dict(NOTES, as_ratio=True)]), "missing parameter(s) required by 'as_ratio': series found in tiles"),
}


def test_dashboard(run, case):
    run(dashboard, **case)


@pytest.mark.parametrize('check_mode', [False, True])
@pytest.mark.parametrize('bad', sorted(BAD))
def test_bad_input_fails_before_any_request(run, bad, check_mode):
    args, message = BAD[bad]
    run(dashboard, dict(NEW, **args), check=check_mode, requests=[], fails=message)


@pytest.mark.parametrize('era', ERAS)
def test_a_second_run_only_reads_and_an_edit_keeps_every_tile_id_in_every_read_form(run, sim, era):
    created = run(dashboard, NEW, config={'dashboard_read_form': era}, requests=[LIST, POST], result={'changed': True},
                  then=dict(args=NEW, requests=[LIST], result={'changed': False}))
    ids = dict((tile['name'], tile['id']) for tile in stored(sim, created['dashboard']['id'])['tiles'])
    moved = dict(name='it', tiles=[NOTES, dict(REQUESTS, x=12, y=6), RATIO, dict(ERRORS, config=dict(ERRORS['config'], select=[
        dict(aggFn='count', where='level:fatal')])), dict(name='New', x=0, y=6, w=12, h=3, config=dict(NOTES['config']))])
    edited = run(dashboard, moved, diff=True, requests=[LIST, ALERTS_PAGE, ('PUT', item(created['dashboard']['id']))],
                 result={'changed': True, 'diff.before.tiles.Requests': dict(x=0, y=0), 'diff.after.tiles.Requests': dict(x=12, y=6)})
    assert sorted(edited['diff']['after']['tiles']) == ['Errors', 'New', 'Requests']
    fatal = dict(aggFn='count', where='level:fatal', valueExpression='', whereLanguage='lucene')
    assert edited['diff']['after']['tiles']['Errors'] == dict(config=dict(select=[fatal]))
    after = dict((tile['name'], tile['id']) for tile in stored(sim, created['dashboard']['id'])['tiles'])
    assert dict((name, after[name]) for name in ids) == ids and after['New'] not in ids.values()
    run(dashboard, moved, requests=[LIST], result={'changed': False})


@pytest.mark.parametrize('era', ERAS)
def test_every_definition_dashboard_info_exports_fed_back_changes_nothing(run, sim, era):
    exported = run(dashboard_info, {}, config={'dashboard_read_form': era}, requests=[LIST])['dashboards']
    assert len(exported) == len(sim.state()['dashboards'])
    for each in exported:
        run(dashboard, each['definition'], requests=[('GET', item(each['id']))], result={'changed': False})


def test_removing_a_tile_with_an_alert_fails_naming_it_then_is_allowed(run, sim):
    tiles = without(exported(run, DASHBOARD_HEALTH)['tiles'], 'CPU usage')
    run(dashboard, dict(dashboard_id=DASHBOARD_HEALTH, tiles=tiles), requests=[('GET', item(DASHBOARD_HEALTH)), ALERTS_PAGE],
        fails='this change would delete 1 alert: "High CPU" (%s) on tile "CPU usage": its tile is left out' % HIGH_CPU)
    run(dashboard, dict(dashboard_id=DASHBOARD_HEALTH, tiles=tiles, allow_alert_deletion=True), check=True, diff=True,
        requests=[('GET', item(DASHBOARD_HEALTH)), SOURCES, ALERTS_PAGE],
        result={'changed': True, 'diff.before.alerts': ['High CPU (%s)' % HIGH_CPU], 'diff.after.alerts': [], 'deleted_alerts.0.id': HIGH_CPU})
    run(dashboard, dict(dashboard_id=DASHBOARD_HEALTH, tiles=tiles, allow_alert_deletion=True),
        requests=[('GET', item(DASHBOARD_HEALTH)), ALERTS_PAGE, ('PUT', item(DASHBOARD_HEALTH))],
        result={'changed': True, 'deleted_alerts.0.name': 'High CPU'},
        verify=lambda result, sim: HIGH_CPU not in alert_ids(sim) and set(ALERTS[1:4]) <= set(alert_ids(sim)))


# Issue 36: sections and tabs, the server's conversions, the config schema, tiles that share a name -----------------

STAGING_TILE = '6f0000000000000000000014'  # Staging overview A's tile; ALERT_STAGING_A is on it
SECTIONS = [dict(id='ops', tabs=[dict(id='cpu'), dict(id='io')]), dict(id='misc')]


def staging_tile(name, tile_id, **more):
    return dict(dict(id=tile_id, name=name, x=0, y=0, w=12, h=3, series=[
        dict(type='time', sourceId=SOURCE_METRICS, aggFn='count', where='env:staging', groupBy=[])]), **more)


@pytest.mark.parametrize('era', ERAS)
def test_an_update_keeps_each_tiles_section_and_tab_and_the_definition_exports_them(run, sim, era):
    sim.edit('dashboards', DASHBOARD_STAGING_A, dict(containers=SECTIONS, tiles=[
        staging_tile('Staging errors', STAGING_TILE, containerId='ops', tabId='io'), staging_tile('Loose', '6f00000000000000000000a1')]))
    definition = exported(run, DASHBOARD_STAGING_A, era)
    assert [(tile.get('container_id'), tile.get('tab_id')) for tile in definition['tiles']] == [('ops', 'io'), (None, None)]
    run(dashboard, definition, requests=[('GET', item(DASHBOARD_STAGING_A))], result={'changed': False})
    moved = [dict(tile, y=5) for tile in definition['tiles']]
    for tile in moved:
        tile.pop('container_id', None), tile.pop('tab_id', None)
    run(dashboard, dict(dashboard_id=DASHBOARD_STAGING_A, tiles=moved), diff=True,
        requests=[('GET', item(DASHBOARD_STAGING_A)), ALERTS_PAGE, ('PUT', item(DASHBOARD_STAGING_A))],
        result={'changed': True, 'diff.after.tiles': {'Staging errors': dict(y=5), 'Loose': dict(y=5)}},
        verify=lambda result, sim: (sim.writes()[0]['body']['tiles'][0]['containerId'], sim.writes()[0]['body']['tiles'][0]['tabId']) == ('ops', 'io')
        and 'containerId' not in sim.writes()[0]['body']['tiles'][1])
    moved[0].update(container_id='misc')
    moved[1].update(container_id='ops', tab_id='cpu')
    run(dashboard, dict(dashboard_id=DASHBOARD_STAGING_A, tiles=moved), diff=True,
        requests=[('GET', item(DASHBOARD_STAGING_A)), ALERTS_PAGE, ('PUT', item(DASHBOARD_STAGING_A))],
        result={'changed': True, 'diff.before.tiles': {'Staging errors': dict(containerId='ops', tabId='io'), 'Loose': {}},
                'diff.after.tiles': {'Staging errors': dict(containerId='misc'), 'Loose': dict(containerId='ops', tabId='cpu')}},
        then=dict(args=dict(dashboard_id=DASHBOARD_STAGING_A, tiles=moved), requests=[('GET', item(DASHBOARD_STAGING_A))],
                  result={'changed': False}))
    moved[0].update(container_id='')
    run(dashboard, dict(dashboard_id=DASHBOARD_STAGING_A, tiles=moved),
        requests=[('GET', item(DASHBOARD_STAGING_A)), ALERTS_PAGE, ('PUT', item(DASHBOARD_STAGING_A))],
        verify=lambda result, sim: 'containerId' not in stored(sim, DASHBOARD_STAGING_A)['tiles'][0])


SHAPES = [  # what the server holds and the module must adopt: each a tile of the task and its second run quiet
    # (the first: the server keeps no groupBy on a number series, so it is not compared)
    dict(name='Open errors', x=0, y=0, w=6, h=2, series=[
        dict(type='number', source_id=SOURCE_LOGS, agg_fn='count', where='level:error', group_by=['service'])]),
    dict(name='Fields', x=6, y=0, w=6, h=2, series=[
        dict(type='search', source_id=SOURCE_LOGS, where='level:error', fields=['timestamp', 'message'])]),
    dict(name='Levels', x=12, y=0, w=12, h=3, series=[
        dict(type='time', source_id=SOURCE_METRICS, agg_fn='avg', field='x', where='', group_by=[], level=0.5, alias='', metric_name=''),
        dict(type='time', source_id=SOURCE_METRICS, agg_fn='quantile', field='x', where='', group_by=[], level=0.3),
        dict(type='time', source_id=SOURCE_METRICS, agg_fn='quantile', field='x', where='', group_by=[], level=0.99)]),
    dict(name='Kept keys', x=0, y=3, w=12, h=3, config=dict(
        displayType='line', sourceId=SOURCE_METRICS, fitYAxisToData=True, seriesLimit=5, showOperandSeries=False,
        formulas=[dict(expression='a / b')], select=[dict(aggFn='sum', valueExpression='x', periodAggFn='delta'),
                                                     dict(aggFn='count')])),
    dict(name='Raw SQL', x=12, y=3, w=12, h=3, config=dict(displayType='stacked_bar', configType='sql', connectionId='c1',
                                                           sqlTemplate='SELECT 1')),
    dict(name='Formulas', x=0, y=6, w=6, h=3, config=dict(displayType='number', sourceId=SOURCE_METRICS, formulas=[dict(expression='a+b')],
                                                          select=[dict(aggFn='count'), dict(aggFn='sum', valueExpression='x')])),
]


@pytest.mark.parametrize('era', ERAS)
def test_the_servers_conversions_and_kept_config_keys_give_no_change_on_the_second_run(run, sim, era):
    args = dict(name='shapes', tiles=SHAPES)
    created = run(dashboard, args, config={'dashboard_read_form': era}, requests=[LIST, POST], result={'changed': True},
                  then=dict(args=args, requests=[LIST], result={'changed': False}))
    changed = [dict(SHAPES[3], config=dict(SHAPES[3]['config'], fitYAxisToData=False))] + SHAPES[4:]
    seen = era != 'series' or 'series' not in created['dashboard']['tiles'][3]
    run(dashboard, dict(args, tiles=SHAPES[:3] + changed), diff=True,
        requests=[LIST, ALERTS_PAGE, ('PUT', item(created['dashboard']['id']))] if seen else [LIST],
        result={'changed': seen})


# Config shapes of the web console the module has no options of its own for, but adopts as it reads them.
ADOPTED = [dict(displayType='heatmap', sourceId=SOURCE_METRICS, select=[dict(aggFn='count', countExpression='1')]),
           dict(displayType='event_patterns', sourceId=SOURCE_LOGS, select=[dict(aggFn='count')]),
           dict(displayType='table', sourceId=SOURCE_METRICS, groupBy='', select=[dict(aggFn='avg', valueExpression='cpu')])]


@pytest.mark.parametrize('era', ERAS)
def test_definitions_of_what_the_server_holds_feed_back_with_no_change(run, sim, era):
    """Two tiles of one name (one with an alert), an unnamed tile, a raw SQL tile, a number tile with formulas, the
    console's shapes, and (on the oldest servers, which read as sent) a series item of the contract's oldest form."""
    legacy = dict(id='6f00000000000000000000a5', name='Legacy', x=0, y=9, w=6, h=3, series=[
        dict(type='time', dataSource='metrics', aggFn='count', where='', groupBy=[])])
    sim.edit('dashboards', DASHBOARD_STAGING_A, dict(tiles=[
        staging_tile('Twin', STAGING_TILE), staging_tile('Twin', '6f00000000000000000000a1', x=12), staging_tile('', '6f00000000000000000000a2', y=3),
        dict(id='6f00000000000000000000a3', name='Raw', x=0, y=6, w=6, h=3, config=SHAPES[4]['config']),
        dict(id='6f00000000000000000000a4', name='Formulas', x=6, y=6, w=6, h=3, config=SHAPES[5]['config'])] + [
        dict(id='6f00000000000000000000b%d' % index, name='Odd %d' % index, x=0, y=12 + 3 * index, w=6, h=3, config=config)
        for index, config in enumerate(ADOPTED)] + ([legacy] if era == 'as_sent' else [])))
    definition = exported(run, DASHBOARD_STAGING_A, era)
    assert [tile['name'] for tile in definition['tiles']] == ['Twin', 'Twin', '', 'Raw', 'Formulas', 'Odd 0', 'Odd 1', 'Odd 2'] + (
        ['Legacy'] if era == 'as_sent' else [])
    assert era != 'as_sent' or definition['tiles'][-1]['series'][0]['data_source'] == 'metrics'
    run(dashboard, definition, requests=[('GET', item(DASHBOARD_STAGING_A))], result={'changed': False})


def test_a_task_with_only_the_name_of_a_dashboard_whose_tiles_share_a_name_sends_nothing(run, sim):
    sim.edit('dashboards', DASHBOARD_STAGING_A, dict(name='Twins', tiles=[
        staging_tile('Twin', STAGING_TILE), staging_tile('Twin', '6f00000000000000000000a1', x=12)]))
    run(dashboard, dict(name='Twins'), requests=[LIST], result={'changed': False})
    # tags need a PUT: it sends the tiles as read, each with its own id
    run(dashboard, dict(name='Twins', tags=['twins']), requests=[LIST, ALERTS_PAGE, ('PUT', item(DASHBOARD_STAGING_A))],
        result={'changed': True, 'deleted_alerts': []},
        verify=lambda result, sim: [tile['id'] for tile in sim.writes()[0]['body']['tiles']] == [STAGING_TILE, '6f00000000000000000000a1'])


def test_tiles_that_share_a_name_are_matched_in_order_and_one_left_out_is_removed(run, sim):
    sim.edit('dashboards', DASHBOARD_STAGING_A, dict(tiles=[
        staging_tile('Twin', '6f00000000000000000000a1', x=12), staging_tile('Twin', STAGING_TILE)]))
    tiles = exported(run, DASHBOARD_STAGING_A)['tiles']
    run(dashboard, dict(dashboard_id=DASHBOARD_STAGING_A, tiles=[tiles[0], dict(tiles[1], h=4)]), diff=True,
        requests=[('GET', item(DASHBOARD_STAGING_A)), ALERTS_PAGE, ('PUT', item(DASHBOARD_STAGING_A))],
        result={'changed': True, 'diff.after.tiles': {'Twin #2': dict(h=4)}},
        verify=lambda result, sim: [tile['id'] for tile in sim.writes()[0]['body']['tiles']] == ['6f00000000000000000000a1', STAGING_TILE])
    run(dashboard, dict(dashboard_id=DASHBOARD_STAGING_A, tiles=tiles[:1]),
        requests=[('GET', item(DASHBOARD_STAGING_A)), ALERTS_PAGE],
        fails='"Staging errors" (%s) on tile "Twin": its tile is left out' % ALERT_STAGING_A)


def test_a_tile_named_for_a_secret_is_shown_in_the_diff(run, sim):
    token = dict(NOTES, name='API token usage')
    created = run(dashboard, dict(name='it', tiles=[token]), requests=[LIST, POST])
    run(dashboard, dict(name='it', tiles=[dict(token, x=12)]), diff=True, requests=[LIST, ALERTS_PAGE, ('PUT', item(created['dashboard']['id']))],
        result={'diff.before.tiles': {'API token usage': dict(x=6)}, 'diff.after.tiles': {'API token usage': dict(x=12)}})


def test_a_section_or_tab_the_dashboard_does_not_have_fails_before_any_write(run, sim):
    sim.edit('dashboards', DASHBOARD_STAGING_A, dict(containers=SECTIONS))
    tile = dict(exported(run, DASHBOARD_STAGING_A)['tiles'][0], container_id='nope')
    run(dashboard, dict(dashboard_id=DASHBOARD_STAGING_A, tiles=[tile]), requests=[('GET', item(DASHBOARD_STAGING_A))],
        fails='tiles[0].container_id: the dashboard has no section "nope" (its sections: "ops", "misc")')
    run(dashboard, dict(dashboard_id=DASHBOARD_STAGING_A, tiles=[dict(tile, container_id='misc', tab_id='io')]),
        requests=[('GET', item(DASHBOARD_STAGING_A))], fails='tiles[0].tab_id: section "misc" has no tab "io"')
    # a new dashboard, and one without sections, in check mode too
    for task, read in ((NEW, LIST), (dict(dashboard_id=DASHBOARD_INGESTION, allow_alert_deletion=True), ('GET', item(DASHBOARD_INGESTION)))):
        for check in (True, False):
            run(dashboard, dict(task, tiles=[dict(NOTES, container_id='ops')]), check=check, requests=[read],
                fails='tiles[0].container_id: the dashboard has no section "ops" (its sections: none)')
