# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.alert against the simulator in process (tests/unit/conftest.py): create, update (the whole
alert), delete, the refusals before any write, channels on both kinds of server, lost create answers, and the
definition round trip of every alert of the simulator's data in every read form."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.engine.cloud.plugins.module_utils.alert_rules import definition
from ansible_collections.engine.cloud.plugins.modules import alert, alert_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    ALERT_BETWEEN, ALERT_PROMQL, ALERT_STAGING_A, ALERT_STAGING_B, ALERT_TABLE, ALERTS, DASHBOARD_GALLERY, DASHBOARD_HEALTH,
    SAVED_SEARCH, WEBHOOK_CHAT, WEBHOOK_PAGER, gallery_tile)

LIST = ('GET', '/api/v2/alerts?limit=1000&offset=0')
DASHBOARDS = ('GET', '/api/v2/dashboards')
POST = ('POST', '/api/v2/alerts')
HIGH_CPU = ALERTS[0]


def one(alert_id):
    return '/api/v2/alerts/' + alert_id


NEW = dict(name='Disk almost full', dashboard='Service health', tile='CPU usage', threshold=90, threshold_type='above',
           interval='5m', channels=[WEBHOOK_PAGER], alert_message='CPU above 90%')


def stored(sim, alert_id):
    return sim.find('alerts', alert_id)


def named(sim, name):
    return [item for item in sim.state()['alerts'] if item.get('name') == name]


def writes(sim):
    return [entry for entry in sim.requests() if entry['method'] != 'GET']


CASES = {
    'check mode reads, predicts and sends nothing': dict(
        args=NEW, check=True, diff=True, requests=[LIST, DASHBOARDS],
        result={'changed': True, 'alert.threshold': 90, 'alert.dashboardId': DASHBOARD_HEALTH, 'diff.before': {}},
        verify=lambda result, sim: not named(sim, NEW['name'])),
    'a create resolves the dashboard and tile by name and sends channels and channel': dict(
        args=NEW, requests=[LIST, DASHBOARDS, POST + ({
            'source': 'tile', 'dashboardId': DASHBOARD_HEALTH, 'tileId': 't-cpu', 'name': 'Disk almost full', 'threshold': 90.0,
            'thresholdType': 'above', 'interval': '5m', 'message': 'CPU above 90%',
            'channels': [{'type': 'webhook', 'webhookId': WEBHOOK_PAGER}], 'channel': {'type': 'webhook', 'webhookId': WEBHOOK_PAGER}},)],
        result={'changed': True, 'alert.name': 'Disk almost full'},
        verify=lambda result, sim: len(named(sim, NEW['name'])) == 1,
        then=dict(args=NEW, requests=[LIST, DASHBOARDS], result={'changed': False})),
    'a threshold change sends the whole alert and keeps the message': dict(
        args=dict(alert_id=ALERT_BETWEEN, threshold=0.5), diff=True, requests=[('GET', one(ALERT_BETWEEN)), ('PUT', one(ALERT_BETWEEN))],
        result={'changed': True, 'diff.before.threshold': 0.8, 'diff.after.threshold': 0.5},
        verify=lambda result, sim: all(stored(sim, ALERT_BETWEEN)[key] is not None
                                       for key in ('name', 'message', 'note', 'numConsecutiveWindows', 'thresholdMax'))
        and len(stored(sim, ALERT_BETWEEN)['channels']) == 2,
        then=dict(args=dict(alert_id=ALERT_BETWEEN, threshold=0.5), requests=[('GET', one(ALERT_BETWEEN))], result={'changed': False})),
    'check mode of an update predicts it and sends nothing': dict(
        args=dict(alert_id=ALERT_BETWEEN, threshold=0.5), check=True, diff=True, requests=[('GET', one(ALERT_BETWEEN))],
        result={'changed': True, 'alert.threshold': 0.5, 'diff.after': {'threshold': 0.5}},
        verify=lambda result, sim: stored(sim, ALERT_BETWEEN)['threshold'] == 0.8),
    'an empty message removes it': dict(
        args=dict(alert_id=HIGH_CPU, alert_message=''), requests=[('GET', one(HIGH_CPU)), ('PUT', one(HIGH_CPU))],
        verify=lambda result, sim: stored(sim, HIGH_CPU)['message'] is None and stored(sim, HIGH_CPU)['name'] == 'High CPU'),
    'an alert on a table tile is refused before any write': dict(
        args=dict(NEW, dashboard=DASHBOARD_GALLERY, tile='Top hosts'), requests=[LIST, DASHBOARDS],
        fails='is a table tile, which cannot carry alerts (only line, number, stacked_bar can)'),
    'an alert on a markdown tile is refused by id too': dict(
        args=dict(NEW, dashboard='Tile gallery', tile=gallery_tile('Notes')), requests=[LIST, DASHBOARDS],
        fails='is a markdown tile, which cannot carry alerts'),
    'an unknown tile fails naming the dashboard': dict(
        args=dict(NEW, tile='Disk usage'), requests=[LIST, DASHBOARDS],
        fails='no tile on dashboard "Service health" (%s) has the id or name "Disk usage". Nothing was sent' % DASHBOARD_HEALTH),
    'two dashboards of one name fail listing their ids': dict(
        args=dict(NEW, dashboard='Staging overview'), requests=[LIST, DASHBOARDS], fails='2 dashboards are named "Staging overview"'),
    'two alerts of one name fail listing their ids': dict(
        args=dict(name='Staging errors', threshold=3), requests=[LIST],
        fails='2 alerts are named "Staging errors" (%s): a alert found by name' % ', '.join(sorted([ALERT_STAGING_A, ALERT_STAGING_B]))),
    'a create without what it needs fails before any write': dict(
        args=dict(name='Half an alert', threshold=3), requests=[LIST],
        fails='creating alert "Half an alert" needs threshold_type, interval, channels, dashboard and tile, or saved_search_id'),
    'an alert_id that does not exist is not created': dict(
        args=dict(NEW, alert_id='65c0000000000000000000ff'), requests=[('GET', one('65c0000000000000000000ff')), DASHBOARDS],
        fails='alert 65c0000000000000000000ff does not exist'),
    'a saved-search alert': dict(
        args=dict(name='Errors by host', saved_search_id=SAVED_SEARCH, group_by='host', threshold=10, threshold_type='above',
                  interval='15m', channels=[WEBHOOK_CHAT]),
        requests=[LIST, POST], result={'changed': True, 'alert.source': 'saved_search', 'alert.groupBy': 'host'},
        then=dict(args=dict(name='Errors by host', saved_search_id=SAVED_SEARCH, group_by='host', threshold=10), requests=[LIST],
                  result={'changed': False})),
    'several channels where the server knows channels': dict(
        args=dict(alert_id=HIGH_CPU, channels=[WEBHOOK_PAGER, WEBHOOK_CHAT]), requests=[('GET', one(HIGH_CPU)), ('PUT', one(HIGH_CPU))],
        verify=lambda result, sim: [item['webhookId'] for item in stored(sim, HIGH_CPU)['channels']] == [WEBHOOK_PAGER, WEBHOOK_CHAT],
        then=dict(args=dict(alert_id=HIGH_CPU, channels=[WEBHOOK_PAGER, WEBHOOK_CHAT]), requests=[('GET', one(HIGH_CPU))],
                  result={'changed': False})),
    'several channels where the server keeps one fail before any write': dict(
        args=dict(alert_id=HIGH_CPU, channels=[WEBHOOK_PAGER, WEBHOOK_CHAT]), config={'alert_channels': False},
        requests=[('GET', one(HIGH_CPU))], fails='this server keeps one channel per alert'),
    'one channel where the server keeps one': dict(
        args=dict(alert_id=HIGH_CPU, channels=[WEBHOOK_PAGER]), config={'alert_channels': False},
        requests=[('GET', one(HIGH_CPU)), ('PUT', one(HIGH_CPU))], result={'changed': True},
        then=dict(args=dict(alert_id=HIGH_CPU, channels=[WEBHOOK_PAGER]), requests=[('GET', one(HIGH_CPU))], result={'changed': False})),
    'a create with several channels where the server keeps one fails after it, naming the alert': dict(
        args=dict(NEW, channels=[WEBHOOK_PAGER, WEBHOOK_CHAT]), config={'alert_channels': False}, requests=[LIST, DASHBOARDS, POST],
        fails='was created with its first channel only', result={'changed': True},
        then=dict(args=dict(NEW, channels=[WEBHOOK_PAGER, WEBHOOK_CHAT]), config={'alert_channels': False}, requests=[LIST, DASHBOARDS],
                  fails='this server keeps one channel per alert')),
    'a lost create answer is read again by name: one alert': dict(
        args=NEW, faults=[dict(method='POST', path='^/api/v2/alerts$', kind='status', status=503, apply=True, count=1)],
        requests=[LIST, DASHBOARDS, POST, LIST], result={'changed': True},
        verify=lambda result, sim: len(named(sim, NEW['name'])) == 1 and result['alert']['id'] == named(sim, NEW['name'])[0]['id']),
    'a create lost before it was applied is not sent again: reads by name until wait_timeout, then a failure': dict(
        args=dict(NEW, wait_timeout=10), faults=[dict(method='POST', path='^/api/v2/alerts$', kind='status', status=503, count=1)],
        requests=[LIST, DASHBOARDS, POST, LIST, LIST, LIST, LIST], sleeps=[1, 2, 4, 3],
        fails='the create was not sent again: reads of the alerts by name for 10 seconds (wait_timeout) showed none named "Disk almost full"',
        verify=lambda result, sim: not named(sim, NEW['name'])),
    'a delete is confirmed by a read': dict(
        args=dict(alert_id=HIGH_CPU, state='absent'), requests=[('GET', one(HIGH_CPU)), ('DELETE', one(HIGH_CPU)), ('GET', one(HIGH_CPU))],
        result={'changed': True}, verify=lambda result, sim: not [item for item in sim.state()['alerts'] if item['id'] == HIGH_CPU],
        then=dict(args=dict(alert_id=HIGH_CPU, state='absent'), requests=[('GET', one(HIGH_CPU))], result={'changed': False})),
    'a missing alert by name is absent with one read': dict(
        args=dict(name='No such alert', state='absent'), requests=[LIST], result={'changed': False, 'alert': {}}),
    'check mode of a delete sends nothing': dict(
        args=dict(name='High CPU', state='absent'), check=True, requests=[LIST], result={'changed': True},
        verify=lambda result, sim: named(sim, 'High CPU')),
}

BAD = {
    'a between kind without its maximum': (dict(threshold_type='between', threshold=1), 'threshold_type=between needs threshold_max'),
    'a maximum below the threshold': (dict(threshold_type='not_between', threshold=5, threshold_max=1),
                                      'threshold_max (1.0) must be at least threshold (5.0)'),
    'eleven channels': (dict(channels=['65d%021d' % index for index in range(11)]), 'channels must hold 1 to 10 webhook ids, got 11'),
    'a channel twice': (dict(channels=[WEBHOOK_PAGER, WEBHOOK_PAGER]), 'channels must not name a webhook twice'),
    'an unknown interval': (dict(interval='2m'), 'value of interval must be one of'),
    'an unknown threshold type': (dict(threshold_type='over'), 'value of threshold_type must be one of'),
    'a tile without its dashboard': (dict(tile='CPU usage'), 'parameters are required together: dashboard, tile'),
    'a tile and a saved search': (dict(dashboard='x', tile='y', saved_search_id=SAVED_SEARCH), 'mutually exclusive'),
    'a malformed alert_id': (dict(alert_id='65c0'), "alert_id must be an object id of 24 hexadecimal digits, got '65c0'"),
    'neither id nor name': (dict(name=None), 'one of the following is required: alert_id, name'),
    'a zero wait_timeout': (dict(wait_timeout=0), 'wait_timeout must be at least 1 second, got 0'),
}


def test_alert(run, case):
    run(alert, **case)


@pytest.mark.parametrize('options, message', BAD.values(), ids=list(BAD))
def test_bad_input_sends_nothing(run, options, message):
    args = dict(name='Bad input', threshold=1, threshold_type='above', interval='5m', channels=[WEBHOOK_PAGER])
    args.update(options)
    run(alert, dict((key, value) for key, value in args.items() if value is not None), requests=[], fails=message)


def test_an_alert_already_on_a_table_tile_is_left_alone_with_a_warning_and_never_written(run):
    exported = definition(run(alert_info, dict(alert_id=ALERT_TABLE), requests=[('GET', one(ALERT_TABLE))])['alerts'][0])
    assert exported.pop('definition', None) is None
    run(alert, exported, requests=[('GET', one(ALERT_TABLE)), DASHBOARDS], result={'changed': False},
        verify=lambda result, sim: 'cannot carry alerts' in json.dumps(result.get('warnings')))
    run(alert, dict(exported, threshold=exported['threshold'] + 1), requests=[('GET', one(ALERT_TABLE)), DASHBOARDS],
        fails='cannot carry alerts (only line, number, stacked_bar can): the API accepts an alert on it, and the next update of the '
              'dashboard deletes it. Nothing was sent')


@pytest.mark.parametrize('read_form', ['contract', 'current'])
@pytest.mark.parametrize('channels', [True, False], ids=['channels', 'one-channel'])
@pytest.mark.parametrize('dashboard_form', ['as_sent', 'series', 'config'])
def test_every_alert_of_the_simulator_round_trips(run, sim, read_form, channels, dashboard_form):
    """alert_info's definition of each alert, fed back: no change, reads only (a PromQL tile hidden from reads too)."""
    config = dict(alert_read_form=read_form, alert_channels=channels, dashboard_read_form=dashboard_form)
    exported = run(alert_info, {}, config=config, requests=[LIST])['alerts']
    assert ALERT_PROMQL in [item['id'] for item in exported] and len(exported) == len(ALERTS)
    for item in exported:
        reads = [('GET', one(item['id']))] + ([DASHBOARDS] if 'tile' in item['definition'] else [])
        run(alert, item['definition'], requests=reads, result={'changed': False})
    assert not writes(sim)


@pytest.mark.parametrize('answer', [404, 200])
def test_deletes_whatever_a_delete_of_a_missing_alert_answers(run, answer):
    """Servers answer a DELETE of a missing alert with 404 (newer) or 200 (older): the module reads before it deletes,
    confirms by a read, and a lost answer to a DELETE that was applied is read again, not sent again."""
    config = dict(alert_delete_missing=answer)
    gone = [('GET', one(HIGH_CPU))]
    run(alert, dict(alert_id=HIGH_CPU, state='absent'), config=config, requests=gone + [('DELETE', one(HIGH_CPU))] + gone,
        result={'changed': True}, sleeps=[1])
    run(alert, dict(alert_id=HIGH_CPU, state='absent'), config=config, requests=gone, result={'changed': False})
    run(alert, dict(name='High CPU', state='absent'), config=config, requests=[LIST], result={'changed': False})
    lost = dict(method='DELETE', path=one(ALERT_BETWEEN), kind='status', status=503, apply=True, count=1)
    run(alert, dict(alert_id=ALERT_BETWEEN, state='absent', wait=False), config=config, faults=[lost],
        requests=[('GET', one(ALERT_BETWEEN)), ('DELETE', one(ALERT_BETWEEN)), ('GET', one(ALERT_BETWEEN))], result={'changed': True})
