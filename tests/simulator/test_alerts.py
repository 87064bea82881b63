"""Alerts as code: read one, create, update (nulls and keeps), delete, validation, channels, read forms."""

from datetime import datetime, timedelta, timezone

import pytest

from .fixture_ids import (ALERT_BETWEEN, ALERT_LEGACY, ALERT_PROMQL, ALERT_SAVED_SEARCH, ALERTS, DASHBOARD_GALLERY, DASHBOARD_HEALTH, SAVED_SEARCH, TEAM,
                          WEBHOOK_CHAT, WEBHOOK_INGEST, WEBHOOK_PAGER, gallery_tile)

ALERTS_PATH = '/api/v2/alerts'
MISSING_ALERT = '65c0000000000000000000ff'


def hook(webhook_id):
    return {'type': 'webhook', 'webhookId': webhook_id}


def tile_alert(**changes):
    """A valid alert body on the Service health dashboard's CPU tile."""
    body = {'name': 'CPU hot', 'message': 'CPU above 95%', 'threshold': 95, 'thresholdType': 'above', 'interval': '5m',
            'source': 'tile', 'dashboardId': DASHBOARD_HEALTH, 'tileId': 't-cpu', 'channel': hook(WEBHOOK_PAGER)}
    body.update(changes)
    return {key: value for key, value in body.items() if value is not DROP}


DROP = object()


def iso(days=0, **more):
    """A UTC date-time that many days from now (to the second), as the API takes it: ending in Z."""
    moment = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=days, **more)
    return moment.strftime('%Y-%m-%dT%H:%M:%SZ')


def message(reply, status=400):
    assert reply.status == status, reply.text[:500]
    return reply.json()['message']


def create(sim, body):
    reply = sim.obs('POST', ALERTS_PATH, body)
    assert reply.status == 200, reply.text[:500]
    return reply.json()['data']


def read(sim, alert_id):
    return sim.obs('GET', '%s/%s' % (ALERTS_PATH, alert_id)).json()['data']


def stored_alerts(sim):
    return sim.admin('GET', 'state')['alerts']


# Read -------------------------------------------------------------------------------------------------

def test_read_one_alert_as_the_listing_shows_it(sim):
    listed = {alert['id']: alert for alert in sim.obs('GET', ALERTS_PATH).json()['data']}
    for alert_id in ALERTS:
        assert read(sim, alert_id) == listed[alert_id]
    between = listed[ALERT_BETWEEN]
    assert between['note'].startswith('Check the cache') and between['thresholdMax'] == 0.99
    assert between['scheduleOffsetMinutes'] == 5 and 'scheduleStartAt' not in between
    assert between['channels'] == [hook(WEBHOOK_PAGER), hook(WEBHOOK_INGEST)] and between['channel'] == hook(WEBHOOK_PAGER)
    saved = listed[ALERT_SAVED_SEARCH]
    assert saved['savedSearchId'] == SAVED_SEARCH and saved['groupBy'] == 'service' and 'tileId' not in saved
    assert saved['scheduleStartAt'] == '2024-09-10T00:00:00.000Z' and 'scheduleOffsetMinutes' not in saved


def test_read_of_a_missing_or_malformed_alert(sim):
    assert message(sim.obs('GET', '%s/%s' % (ALERTS_PATH, MISSING_ALERT)), 404) == 'Alert not found'
    assert message(sim.obs('GET', ALERTS_PATH + '/nope')) == 'Params validation failed: id: Invalid ObjectId'


@pytest.mark.parametrize('form, team_key, dashboard_key', [('contract', 'team', 'dashboard'), ('current', 'teamId', 'dashboardId')])
def test_read_forms(sim, form, team_key, dashboard_key):
    sim.admin('PATCH', 'config', {'alert_read_form': form})
    for alert in [read(sim, ALERTS[0]), sim.obs('GET', ALERTS_PATH).json()['data'][0], create(sim, tile_alert())]:
        assert alert[team_key] == TEAM and alert[dashboard_key] == DASHBOARD_HEALTH
        assert not {'team', 'teamId', 'dashboard', 'dashboardId'} - {team_key, dashboard_key} & set(alert)


def test_older_servers_read_no_channels(sim):
    sim.admin('PATCH', 'config', {'alert_channels': False})
    assert 'channels' not in read(sim, ALERT_BETWEEN) and read(sim, ALERT_BETWEEN)['channel'] == hook(WEBHOOK_PAGER)


# Create -----------------------------------------------------------------------------------------------

def test_create_a_tile_alert(sim):
    sim.admin('PATCH', 'config', {'alert_read_form': 'current'})
    alert = create(sim, tile_alert(extra='dropped', state='ALERT', id=ALERTS[0]))
    assert alert['id'] not in ALERTS and len(alert['id']) == 24 and 'extra' not in alert
    assert alert['state'] == 'OK' and alert['note'] is None and alert['numConsecutiveWindows'] is None
    assert alert['channels'] == [hook(WEBHOOK_PAGER)] and alert['teamId'] == TEAM
    assert alert['createdAt'] == alert['updatedAt'] and alert['createdAt'].endswith('Z')
    assert 'thresholdMax' not in alert and 'scheduleStartAt' not in alert
    assert read(sim, alert['id']) == alert
    assert sim.obs('GET', ALERTS_PATH).json()['data'][-1] == alert
    assert create(sim, tile_alert())['id'] != alert['id']  # names are not unique


def test_create_a_saved_search_alert(sim):
    alert = create(sim, {'source': 'saved_search', 'savedSearchId': SAVED_SEARCH, 'groupBy': 'host', 'threshold': 1,
                         'thresholdType': 'above', 'interval': '1h', 'channel': hook(WEBHOOK_CHAT), 'tileId': 'ignored'})
    assert alert['savedSearchId'] == SAVED_SEARCH and alert['groupBy'] == 'host'
    assert 'tileId' not in alert and 'dashboard' not in alert and alert['name'] is None and alert['message'] is None


def test_create_with_everything(sim):
    body = tile_alert(note='n' * 4096, thresholdType='between', threshold=1, thresholdMax=1, numConsecutiveWindows=2,
                      interval='15m', scheduleOffsetMinutes=14, channels=[hook(WEBHOOK_PAGER), hook(WEBHOOK_CHAT)])
    alert = create(sim, body)
    for key in ('note', 'thresholdMax', 'numConsecutiveWindows', 'scheduleOffsetMinutes', 'channels'):
        assert alert[key] == body[key]
    started = create(sim, tile_alert(scheduleOffsetMinutes=0, scheduleStartAt=iso(days=30)))
    assert started['scheduleOffsetMinutes'] == 0 and started['scheduleStartAt'] == iso(days=30)[:-1] + '.000Z'


@pytest.mark.parametrize('changes, fragment', [
    ({'threshold': DROP}, 'threshold: Required'),
    ({'threshold': '5'}, 'threshold: Expected number, received string'),
    ({'thresholdType': 'over'}, 'thresholdType: Invalid enum value'),
    ({'interval': '2m'}, 'interval: Invalid enum value'),
    ({'interval': DROP}, 'interval: Required'),
    ({'source': DROP}, 'source: Required'),
    ({'source': 'search'}, 'source: Invalid enum value'),
    ({'name': ''}, 'name: String must contain at least 1 character(s)'),
    ({'name': 'n' * 513}, 'name: String must contain at most 512 character(s)'),
    ({'message': 'm' * 4097}, 'message: String must contain at most 4096 character(s)'),
    ({'note': ''}, 'note: String must contain at least 1 character(s)'),
    ({'thresholdType': 'between'}, 'thresholdMax: Required for thresholdType between'),
    ({'thresholdType': 'not_between', 'thresholdMax': 94}, 'thresholdMax: Must be greater than or equal to threshold'),
    ({'thresholdMax': 90}, 'thresholdMax: Must be greater than or equal to threshold'),
    ({'numConsecutiveWindows': 0}, 'numConsecutiveWindows: Number must be greater than or equal to 1'),
    ({'numConsecutiveWindows': 1.5}, 'numConsecutiveWindows: Expected integer, received float'),
    ({'scheduleOffsetMinutes': -1}, 'scheduleOffsetMinutes: Number must be greater than or equal to 0'),
    ({'scheduleStartAt': 'tomorrow'}, 'scheduleStartAt: Invalid datetime'),
    ({'channel': DROP}, 'channel: Provide either "channel" or "channels"'),
    ({'channel': {'type': 'email', 'webhookId': WEBHOOK_PAGER}}, 'channel.type: Invalid enum value'),
    ({'channel': {'type': 'webhook', 'webhookId': 7}}, 'channel.webhookId: Expected string, received number'),
    ({'channels': []}, 'channels: Array must contain at least 1 element(s)'),
    ({'channels': [hook('65d%021x' % index) for index in range(11)]}, 'channels: Array must contain at most 10 element(s)'),
    ({'channels': [hook(WEBHOOK_PAGER), hook(WEBHOOK_PAGER)]}, 'channels: Channels must be unique'),
    ({'channels': [hook(WEBHOOK_CHAT), hook(WEBHOOK_PAGER)]}, 'channel: Must equal channels[0] when both are sent'),
])
def test_alert_body_validation(sim, changes, fragment):
    text = message(sim.obs('POST', ALERTS_PATH, tile_alert(**changes)))
    assert text.startswith('Body validation failed: ') and fragment in text, text
    assert len(stored_alerts(sim)) == len(ALERTS)


def test_null_texts_are_allowed(sim):
    alert = create(sim, tile_alert(name=None, message=None, note=None, numConsecutiveWindows=None))
    assert alert['name'] is None and alert['message'] is None


@pytest.mark.parametrize('changes, text', [
    ({'dashboardId': DROP}, 'Invalid dashboard ID'),
    ({'dashboardId': 'health'}, 'Invalid dashboard ID'),
    ({'dashboardId': '65a1b2c3d4e5f60718293a4f'}, 'Dashboard not found'),
    ({'tileId': 't-rows'}, 'Tile not found'),
    ({'tileId': DROP}, 'Tile not found'),
    ({'channel': hook('65d0000000000000000000ff')}, 'Webhook not found'),  # an object id, not the team's
    ({'channel': hook('pager')}, 'Invalid webhook ID'),
    ({'channels': [hook(WEBHOOK_PAGER), hook('65d0000000000000000000FF')], 'channel': DROP}, 'Webhook not found'),
    ({'source': 'saved_search', 'savedSearchId': '65f0000000000000000000ff'}, 'Saved search not found'),
])
def test_source_and_webhook_refusals(sim, changes, text):
    assert message(sim.obs('POST', ALERTS_PATH, tile_alert(**changes))) == text
    assert len(stored_alerts(sim)) == len(ALERTS)


def test_saved_search_alert_needs_its_id(sim):
    body = tile_alert(source='saved_search', dashboardId=DROP, tileId=DROP)
    assert message(sim.obs('POST', ALERTS_PATH, body)) == 'Body validation failed: savedSearchId: Required'


def test_an_alert_on_a_tile_that_cannot_carry_alerts_is_accepted(sim):
    alert = create(sim, tile_alert(dashboardId=DASHBOARD_GALLERY, tileId=gallery_tile('Runbook')))
    assert read(sim, alert['id'])['tileId'] == gallery_tile('Runbook')


def test_channels_alone_set_channel(sim):
    alert = create(sim, tile_alert(channel=DROP, channels=[hook(WEBHOOK_CHAT), hook(WEBHOOK_PAGER)]))
    assert alert['channel'] == hook(WEBHOOK_CHAT)


def test_older_servers_drop_channels_and_need_channel(sim):
    sim.admin('PATCH', 'config', {'alert_channels': False})
    alert = create(sim, tile_alert(channels=[hook(WEBHOOK_PAGER), hook(WEBHOOK_CHAT)]))
    assert 'channels' not in alert and alert['channel'] == hook(WEBHOOK_PAGER)
    sim.admin('PATCH', 'config', {'alert_channels': True})
    assert read(sim, alert['id'])['channels'] == [hook(WEBHOOK_PAGER)]
    sim.admin('PATCH', 'config', {'alert_channels': False})
    text = message(sim.obs('POST', ALERTS_PATH, tile_alert(channel=DROP, channels=[hook(WEBHOOK_CHAT)])))
    assert text == 'Body validation failed: channel: Required'


# Update -----------------------------------------------------------------------------------------------

def test_update_nulls_texts_left_out_and_keeps_threshold_max_and_schedule(sim):
    before = read(sim, ALERT_BETWEEN)
    body = {'threshold': 0.5, 'thresholdType': 'between', 'interval': '1h', 'source': 'tile', 'dashboardId': DASHBOARD_GALLERY,
            'tileId': gallery_tile('Cache hit ratio'), 'channel': hook(WEBHOOK_CHAT)}
    reply = sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERT_BETWEEN), body)
    assert reply.status == 200
    after = reply.json()['data']
    assert after['name'] is None and after['message'] is None and after['note'] is None and after['numConsecutiveWindows'] is None
    assert after['thresholdMax'] == before['thresholdMax'] and after['scheduleOffsetMinutes'] == before['scheduleOffsetMinutes'] == 5
    assert after['channels'] == [hook(WEBHOOK_CHAT)] and after['threshold'] == 0.5 and after['interval'] == '1h'
    assert after['createdAt'] == before['createdAt'] and after['state'] == before['state'] and after['id'] == ALERT_BETWEEN
    assert read(sim, ALERT_BETWEEN) == after


def test_update_sending_the_whole_alert_changes_only_what_it_changes(sim):
    before = read(sim, ALERT_BETWEEN)
    body = {key: before[key] for key in ('name', 'message', 'note', 'threshold', 'thresholdMax', 'interval', 'thresholdType', 'source',
                                         'channel', 'channels', 'tileId', 'numConsecutiveWindows', 'scheduleOffsetMinutes')}
    after = sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERT_BETWEEN), dict(body, dashboardId=before['dashboard'], threshold=0.7)).json()['data']
    assert {k: v for k, v in after.items() if k not in ('threshold', 'updatedAt')} == \
        {k: v for k, v in before.items() if k not in ('threshold', 'updatedAt')}


def test_update_checks_the_kept_threshold_max(sim):
    body = tile_alert(dashboardId=DASHBOARD_GALLERY, tileId=gallery_tile('Cache hit ratio'), threshold=2, thresholdType='between',
                      interval='15m')
    text = message(sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERT_BETWEEN), body))
    assert text == 'Body validation failed: thresholdMax: Must be greater than or equal to threshold'


def test_update_moves_an_alert_to_a_saved_search(sim):
    body = {'threshold': 1, 'thresholdType': 'above', 'interval': '5m', 'source': 'saved_search', 'savedSearchId': SAVED_SEARCH,
            'channel': hook(WEBHOOK_PAGER)}
    after = sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERTS[0]), body).json()['data']
    assert after['source'] == 'saved_search' and 'tileId' not in after and 'dashboard' not in after


def test_update_of_a_missing_alert(sim):
    assert message(sim.obs('PUT', '%s/%s' % (ALERTS_PATH, MISSING_ALERT), tile_alert()), 404) == 'Alert not found'


# Delete -----------------------------------------------------------------------------------------------

def test_delete(sim):
    reply = sim.obs('DELETE', '%s/%s' % (ALERTS_PATH, ALERTS[0]))
    assert reply.status == 200 and reply.json() == {}
    assert ALERTS[0] not in {alert['id'] for alert in stored_alerts(sim)}
    assert message(sim.obs('DELETE', '%s/%s' % (ALERTS_PATH, ALERTS[0])), 404) == 'Alert not found'
    assert message(sim.obs('DELETE', ALERTS_PATH + '/x')) == 'Params validation failed: id: Invalid ObjectId'


def test_older_servers_answer_200_for_a_missing_alert(sim):
    sim.admin('PATCH', 'config', {'alert_delete_missing': 200})
    reply = sim.obs('DELETE', '%s/%s' % (ALERTS_PATH, MISSING_ALERT))
    assert reply.status == 200 and reply.json() == {}


# Faults -----------------------------------------------------------------------------------------------

def test_a_lost_create_answer_leaves_one_alert(sim):
    sim.admin('POST', 'faults', {'method': 'POST', 'path': '^/api/v2/alerts$', 'kind': 'status', 'status': 502, 'apply': True})
    assert sim.obs('POST', ALERTS_PATH, tile_alert(name='Lost')).status == 502
    assert [alert['name'] for alert in sim.obs('GET', ALERTS_PATH).json()['data']].count('Lost') == 1


def test_slow_create_applies_and_answers_504(sim):
    sim.admin('PATCH', 'config', {'slow_observability_create': True})
    reply = sim.obs('POST', ALERTS_PATH, tile_alert(name='Slow'))
    assert reply.status == 504
    assert [alert['name'] for alert in stored_alerts(sim)].count('Slow') == 1


def test_every_alert_route_is_logged(sim):
    alert = create(sim, tile_alert())
    sim.obs('PUT', '%s/%s' % (ALERTS_PATH, alert['id']), tile_alert(threshold=1))
    sim.obs('GET', '%s/%s' % (ALERTS_PATH, alert['id']))
    sim.obs('DELETE', '%s/%s' % (ALERTS_PATH, alert['id']))
    path = '%s/%s' % (ALERTS_PATH, alert['id'])
    assert [(entry['method'], entry['path'], entry['status']) for entry in sim.requests_log()] == [
        ('POST', ALERTS_PATH, 200), ('PUT', path, 200), ('GET', path, 200), ('DELETE', path, 200)]
    assert sim.requests_log()[1]['body']['threshold'] == 1


def test_put_checks_the_body_before_it_looks_for_the_alert(sim):
    text = message(sim.obs('PUT', '%s/%s' % (ALERTS_PATH, MISSING_ALERT), tile_alert(interval='2m')))
    assert text.startswith('Body validation failed: interval')
    assert message(sim.obs('PUT', '%s/%s' % (ALERTS_PATH, MISSING_ALERT), tile_alert(tileId='t-none')), 404) == 'Alert not found'


def test_optional_keys_set_to_null_leave_the_read(sim):
    body = tile_alert(dashboardId=DASHBOARD_GALLERY, tileId=gallery_tile('Cache hit ratio'), threshold=0.8, interval='15m',
                      thresholdType='not_between', scheduleOffsetMinutes=None)
    after = sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERT_BETWEEN), body).json()['data']
    assert 'scheduleOffsetMinutes' not in after and after['thresholdMax'] == 0.99 and after['note'] is None
    body = {'threshold': 1, 'thresholdType': 'above', 'interval': '5m', 'source': 'saved_search', 'savedSearchId': SAVED_SEARCH,
            'groupBy': None, 'scheduleStartAt': None, 'numConsecutiveWindows': None, 'channel': hook(WEBHOOK_PAGER)}
    after = sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERT_SAVED_SEARCH), body).json()['data']
    assert 'groupBy' not in after and 'scheduleStartAt' not in after and after['numConsecutiveWindows'] is None


def test_generated_alerts_stay_on_the_fixture_tiles_whatever_happens_to_them(sim):
    sim.admin('PATCH', 'config', {'alert_count': 4})
    sim.obs('PUT', '/api/v2/dashboards/' + DASHBOARD_HEALTH, {'name': 'Emptied', 'tiles': []})
    generated = [alert for alert in sim.obs('GET', ALERTS_PATH).json()['data'] if alert['id'].startswith('66')]
    assert [alert['tileId'] for alert in generated] == ['t-cpu', 't-lag', 't-qps', 't-rows']


def test_server_side_fields_are_set_through_the_admin_interface_and_kept_by_a_put(sim):
    sim.admin('PATCH', 'alerts/' + ALERTS[0], {'state': 'ALERT', 'silenced': {'by': 'me', 'until': '2030-01-01T00:00:00.000Z'}})
    body = tile_alert(channel=hook(WEBHOOK_CHAT))
    after = sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERTS[0]), body).json()['data']
    assert after['state'] == 'ALERT' and after['silenced']['by'] == 'me' and after['channel'] == hook(WEBHOOK_CHAT)
    assert read(sim, ALERT_PROMQL)['executionErrors'][0]['type'] == 'QUERY_ERROR'
    assert sim.request('PATCH', '/_admin/alerts/' + ALERTS[0], {'state': 'FIRING'}).status == 400
    assert sim.request('PATCH', '/_admin/alerts/' + MISSING_ALERT, {'state': 'OK'}).status == 404


# Schedules, eras, legacy alerts -----------------------------------------------------------------------

@pytest.mark.parametrize('changes, fragment', [
    ({'scheduleOffsetMinutes': 5}, 'scheduleOffsetMinutes: Must be less than the interval in minutes (5)'),
    ({'interval': '1d', 'scheduleOffsetMinutes': 1440}, 'scheduleOffsetMinutes: Number must be less than or equal to 1439'),
    ({'interval': '1h', 'scheduleOffsetMinutes': 1.5}, 'scheduleOffsetMinutes: Expected integer, received float'),
    ({'interval': '1h', 'scheduleOffsetMinutes': 1, 'scheduleStartAt': iso(days=1)}, 'scheduleOffsetMinutes: Must be 0 when scheduleStartAt is set'),
    ({'scheduleStartAt': iso(days=1)[:-1] + '+02:00'}, 'scheduleStartAt: Invalid datetime'),
    ({'scheduleStartAt': iso(days=1)[:-1]}, 'scheduleStartAt: Invalid datetime'),
    ({'scheduleStartAt': iso(days=1)[:10]}, 'scheduleStartAt: Invalid datetime'),
    ({'scheduleStartAt': iso(days=1)[:16] + 'Z'}, 'scheduleStartAt: Invalid datetime'),
    ({'scheduleStartAt': '2026-02-30T00:00:00Z'}, 'scheduleStartAt: Invalid datetime'),
    ({'scheduleStartAt': iso(days=367)}, 'scheduleStartAt: Date must be within one year ahead and ten years back'),
    ({'scheduleStartAt': iso(days=-3660)}, 'scheduleStartAt: Date must be within one year ahead and ten years back'),
])
def test_schedules_are_checked_as_the_reference_says(sim, changes, fragment):
    text = message(sim.obs('POST', ALERTS_PATH, tile_alert(**changes)))
    assert text.startswith('Body validation failed: ') and fragment in text, text
    assert len(stored_alerts(sim)) == len(ALERTS)


def test_a_start_is_stored_as_a_date_and_read_with_milliseconds(sim):
    day = iso(days=2)[:-1]
    assert create(sim, tile_alert(scheduleStartAt=day + 'Z'))['scheduleStartAt'] == day + '.000Z'
    assert create(sim, tile_alert(scheduleStartAt=day + '.123456Z'))['scheduleStartAt'] == day + '.123Z'
    assert create(sim, tile_alert(scheduleStartAt=iso(days=-3650 + 2)))['scheduleStartAt'].endswith('.000Z')
    assert create(sim, tile_alert(scheduleStartAt=iso(days=364)))['scheduleStartAt'].endswith('.000Z')


def test_a_put_that_sets_a_start_counts_the_kept_offset(sim):
    body = tile_alert(dashboardId=DASHBOARD_GALLERY, tileId=gallery_tile('Cache hit ratio'), threshold=0.8, thresholdType='not_between',
                      interval='15m', scheduleStartAt=iso(days=1))
    text = message(sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERT_BETWEEN), body))
    assert text == 'Body validation failed: scheduleOffsetMinutes: Must be 0 when scheduleStartAt is set'
    after = sim.obs('PUT', '%s/%s' % (ALERTS_PATH, ALERT_BETWEEN), dict(body, scheduleOffsetMinutes=0)).json()['data']
    assert after['scheduleOffsetMinutes'] == 0 and after['scheduleStartAt'].endswith('.000Z')


def test_every_fixture_alert_is_one_the_server_takes_back(sim):
    """Each fixture alert, sent back as its read shows it, is valid (the legacy one needs a channel, as any PUT does)."""
    sim.admin('PATCH', 'config', {'alert_read_form': 'current'})
    for alert_id in ALERTS:
        body = {key: value for key, value in read(sim, alert_id).items() if value is not None}
        reply = sim.obs('PUT', '%s/%s' % (ALERTS_PATH, alert_id), body)
        if alert_id == ALERT_LEGACY:
            assert message(reply) == 'Body validation failed: channel: Provide either "channel" or "channels"'
        else:
            assert reply.status == 200, (alert_id, reply.text)


@pytest.mark.parametrize('version, kept', [
    ('2.36', {'channels', 'numConsecutiveWindows', 'note', 'thresholdMax', 'scheduleOffsetMinutes', 'scheduleStartAt'}),
    ('2.30', {'numConsecutiveWindows', 'note', 'thresholdMax', 'scheduleOffsetMinutes', 'scheduleStartAt'}),
    ('2.25', {'note', 'thresholdMax', 'scheduleOffsetMinutes', 'scheduleStartAt'}),
    ('2.24', {'thresholdMax', 'scheduleOffsetMinutes', 'scheduleStartAt'}),
    ('2.21', {'scheduleOffsetMinutes', 'scheduleStartAt'}),
    ('2.18', set()),
])
def test_older_servers_drop_the_fields_they_do_not_know(sim, version, kept):
    sim.admin('PATCH', 'config', {'alert_version': version})
    era = {'channels': [hook(WEBHOOK_PAGER), hook(WEBHOOK_CHAT)], 'numConsecutiveWindows': 2, 'note': 'n', 'thresholdMax': 99,
           'scheduleOffsetMinutes': 0, 'scheduleStartAt': iso(days=1)}
    alert = create(sim, tile_alert(**era))
    assert {key for key in era if key in alert} == kept
    assert {key for key in era if key in read(sim, alert['id'])} == kept
    # texts that a server keeps read null when unset; one that does not keep them never shows them
    assert {key for key in ('note', 'numConsecutiveWindows') if key in read(sim, ALERTS[0])} == kept & {'note', 'numConsecutiveWindows'}
    between = sim.obs('POST', ALERTS_PATH, tile_alert(thresholdType='between', thresholdMax=99))
    assert between.status == 200 if 'thresholdMax' in kept else 'thresholdType: Invalid enum value' in message(between)
    listing = sim.obs('GET', ALERTS_PATH).json()
    assert ('meta' in listing) == (version >= '2.30')


def test_legacy_alerts_read_with_no_channel_where_channels_are_known_and_as_stored_before(sim):
    assert not {'channel', 'channels'} & set(read(sim, ALERT_LEGACY))
    sim.admin('PATCH', 'config', {'alert_channels': False})
    assert read(sim, ALERT_LEGACY)['channel'] == {'type': None} and 'channels' not in read(sim, ALERT_LEGACY)
    sim.admin('PATCH', 'alerts/' + ALERT_LEGACY, {'channel': None})
    sim.admin('PATCH', 'config', {'alert_version': '2.30'})
    assert 'channel' not in read(sim, ALERT_LEGACY) and 'channels' not in read(sim, ALERT_LEGACY)
    assert read(sim, ALERTS[0])['channel'] == hook('65d000000000000000000002') and 'channels' not in read(sim, ALERTS[0])
