# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Issue 48's guarantees for dashboards, alerts and answers, each from the simulator's request log: no setting lost
behind an empty diff, no write on a read of an earlier task, every shape a server holds adopted, bad input stopped
before any request (or, in check mode, before any write, as the API would refuse it), and a requested change sent (a
2xx answer without the API's envelope: test_http.py)."""

import pytest

from ansible_collections.engine.cloud.plugins.modules import alert, dashboard, dashboard_info
from ansible_collections.engine.cloud.tests.simulator import fixture_ids as ids

LIST, SOURCES, WEBHOOKS = ('GET', '/api/v2/dashboards'), ('GET', '/api/v2/sources'), ('GET', '/api/v2/webhooks')
ALERTS_PAGE = ('GET', '/api/v2/alerts?limit=1000&offset=0')
BOARD = ids.DASHBOARD_INGESTION


def item(dashboard_id=BOARD):
    return ('GET', '/api/v2/dashboards/%s' % dashboard_id)


def stored(sim, **config):
    """The Ingestion dashboard holding one line tile in config form, as the web console saves it (config: its keys)."""
    tile = dict(id='6f00000000000000000000aa', name='Rows', x=0, y=0, w=6, h=3, config=dict(
        dict(displayType='line', sourceId=ids.SOURCE_METRICS, select=[dict(aggFn='sum', valueExpression='rows', where='', whereLanguage='lucene')],
             asRatio=False, fillNulls=True), **config))
    sim.edit('dashboards', BOARD, {'tiles': [tile]})
    return tile


SERIES_ROWS = dict(name='Rows', x=0, y=0, w=6, h=3, series=[
    dict(type='time', source_id=ids.SOURCE_METRICS, agg_fn='sum', field='rows', where='', group_by=[])])


def test_a_series_tile_over_a_console_config_keeps_every_key_and_a_change_shows_in_its_diff(run, sim):
    console = dict(fillNulls=False, alignDateRangeToGranularity=True, fitYAxisToData=True)
    stored(sim, **console)
    sim.config(dashboard_read_form='config')  # a series-era read shows none of those keys: nothing can carry them there
    run(dashboard, dict(dashboard_id=BOARD, tiles=[SERIES_ROWS]), requests=[item()], result={'changed': False})
    changed = dict(SERIES_ROWS, series=[dict(SERIES_ROWS['series'][0], where='pipe:orders')])
    result = run(dashboard, dict(dashboard_id=BOARD, tiles=[changed], allow_alert_deletion=True), diff=True,
                 requests=[item(), ALERTS_PAGE, ('PUT', '/api/v2/dashboards/%s' % BOARD)])
    assert result['diff']['before']['tiles'] and result['diff']['after']['tiles']
    sent = sim.requests()[-1]['body']['tiles'][0]
    assert sent['config']['select'][0]['where'] == 'pipe:orders' and all(sent['config'][key] == value for key, value in console.items())
    assert sent['id'] == '6f00000000000000000000aa'


def test_what_no_form_can_send_whole_is_refused_naming_it_before_any_write(run, sim):
    stored(sim, fillNulls=False, select=[dict(aggFn='sum', valueExpression='', where='', whereLanguage='lucene')])
    sim.config(dashboard_read_form='config')
    result = run(dashboard, dict(dashboard_id=BOARD, name='Ingestion v2'), requests=[item()], fails='neither form the API takes keeps it whole')
    assert 'fillNulls' in result['msg']


def test_an_alerts_tile_is_read_live_so_a_tile_renamed_since_the_last_task_is_not_written_to(run, sim):
    args = dict(name='Lag high', dashboard='Ingestion', tile='Consumer lag', threshold=100, threshold_type='above', interval='5m',
                channels=[ids.WEBHOOK_PAGER])
    run(alert, args, requests=[ALERTS_PAGE, LIST, ('POST', '/api/v2/alerts')], result={'changed': True})
    board = sim.find('dashboards', BOARD)
    sim.edit('dashboards', BOARD, {'tiles': [dict(tile, name='Lag (renamed)') if tile['name'] == 'Consumer lag' else tile
                                             for tile in board['tiles']]})
    run(alert, dict(args, threshold=200), requests=[ALERTS_PAGE, LIST], fails='no tile on dashboard "Ingestion"')


@pytest.mark.parametrize('era', ['as_sent', 'series', 'config'])
@pytest.mark.parametrize('series', [
    dict(type='time', source_id=ids.SOURCE_METRICS, agg_fn='avg', where='', group_by=[]),
    dict(type='time', source_id=ids.SOURCE_METRICS, agg_fn='count', field='query.count', where='', group_by=[]),
], ids=['an aggregation without a field', 'a count with a field'])
def test_a_series_task_converges_in_one_run_and_its_export_feeds_back(run, sim, era, series):
    sim.config(dashboard_read_form=era)
    tile = dict(name='Odd', x=0, y=0, w=6, h=3, series=[series])
    run(dashboard, dict(dashboard_id=BOARD, tiles=[tile], allow_alert_deletion=True), requests=[
        item(), ALERTS_PAGE, ('PUT', '/api/v2/dashboards/%s' % BOARD)], result={'changed': True})
    run(dashboard, dict(dashboard_id=BOARD, tiles=[tile]), requests=[item()], result={'changed': False})
    exported = run(dashboard_info, dict(dashboard_id=BOARD), requests=[item()])['dashboard']['definition']
    run(dashboard, exported, requests=[item()], result={'changed': False})


def test_check_mode_predicts_a_refusal_of_a_source_or_webhook_the_team_does_not_have(run, sim):
    stranger = '65b0000000000000000000ff'
    tile = dict(SERIES_ROWS, series=[dict(SERIES_ROWS['series'][0], source_id=stranger)])
    run(dashboard, dict(name='Fresh', tiles=[tile]), check=True, requests=[LIST, SOURCES], fails='sourceId "%s" is not one of the team' % stranger)
    run(alert, dict(name='Fresh', saved_search_id=ids.SAVED_SEARCH, threshold=1, threshold_type='above', interval='5m',
                    channels=['65d0000000000000000000ff']), check=True, requests=[ALERTS_PAGE, WEBHOOKS], fails='is not one of the team')


def test_a_sort_order_change_is_sent_where_the_server_keeps_it_and_refused_where_none_can(run, sim):
    table = dict(name='Top', x=0, y=0, w=6, h=3, series=[
        dict(type='table', source_id=ids.SOURCE_METRICS, agg_fn='avg', field='cpu', where='', group_by=['host'], sort_order='asc')])
    run(dashboard, dict(dashboard_id=BOARD, tiles=[table], allow_alert_deletion=True), requests=[item(), ALERTS_PAGE, ('PUT', '/api/v2/dashboards/%s' % BOARD)])
    desc = dict(table, series=[dict(table['series'][0], sort_order='desc')])
    run(dashboard, dict(dashboard_id=BOARD, tiles=[desc]), requests=[item(), ALERTS_PAGE, ('PUT', '/api/v2/dashboards/%s' % BOARD)],
        result={'changed': True}, verify=lambda result, sim: sim.requests()[-1]['body']['tiles'][0]['series'][0]['sortOrder'] == 'desc')
    sim.config(dashboard_read_form='config')
    run(dashboard, dict(dashboard_id=BOARD, tiles=[table]), requests=[item()], fails='sort_order cannot be kept by this server')
