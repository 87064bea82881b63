# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import pytest
from hypothesis import given, strategies as st

from ansible_collections.engine.cloud.plugins.module_utils import alert_rules
from ansible_collections.engine.cloud.plugins.module_utils.dashboard_rules import display_type

HOOK_A, HOOK_B, HOOK_C = '65d000000000000000000001', '65d000000000000000000002', '65d000000000000000000003'
DASHBOARD, TILE = '65a1b2c3d4e5f60718293a4b', '65f000000000000000000010'
NOW = 1767225600  # 2026-01-01T00:00:00Z

# An alert as the newest servers read it (channels known, teamId/dashboardId).
NEW = {
    'id': '65c000000000000000000009', 'name': 'High CPU', 'message': 'CPU above 85%', 'note': None, 'threshold': 85,
    'interval': '5m', 'thresholdType': 'above', 'source': 'tile', 'state': 'OK',
    'channel': {'type': 'webhook', 'webhookId': HOOK_A},
    'channels': [{'type': 'webhook', 'webhookId': HOOK_A}, {'type': 'webhook', 'webhookId': HOOK_B}],
    'teamId': '65e000000000000000000001', 'tileId': TILE, 'dashboardId': DASHBOARD, 'numConsecutiveWindows': None,
    'silenced': None, 'executionErrors': [], 'createdAt': '2026-01-01T00:00:00.000Z', 'updatedAt': '2026-01-01T00:00:00.000Z',
}
# The same alert as the contract's older servers read it: team/dashboard, one channel, no channels.
NOT_IN_OLD = ('teamId', 'dashboardId', 'channels', 'note', 'numConsecutiveWindows', 'silenced', 'executionErrors')
OLD = dict((key, value) for key, value in NEW.items() if key not in NOT_IN_OLD)
OLD.update(team='65e000000000000000000001', dashboard=DASHBOARD)
SEARCH = {
    'id': '65c00000000000000000000a', 'name': 'Slow queries', 'message': None, 'note': 'see runbook', 'threshold': 1,
    'thresholdMax': 5, 'interval': '1h', 'thresholdType': 'between', 'source': 'saved_search', 'savedSearchId': '65f0000000000000000000aa',
    'groupBy': 'service', 'channel': {'type': 'webhook', 'webhookId': HOOK_C}, 'channels': [{'type': 'webhook', 'webhookId': HOOK_C}],
    'numConsecutiveWindows': 3, 'scheduleStartAt': '2026-01-01T00:00:00.000Z',
}


def params(**given):
    """The module's options: None for every one not given, as AnsibleModule leaves them."""
    options = dict((option, None) for option in alert_rules.DESCRIBING + alert_rules.TILE_SOURCE + alert_rules.SEARCH_SOURCE)
    options.update(given)
    return options


# --- definition ------------------------------------------------------------------------------------

TILE_DEFINITION = dict(alert_id=NEW['id'], name='High CPU', dashboard=DASHBOARD, tile=TILE, threshold=85, threshold_type='above', interval='5m',
                       alert_message='CPU above 85%')


@pytest.mark.parametrize('alert, definition', [
    (NEW, dict(TILE_DEFINITION, channels=[HOOK_A, HOOK_B])),
    (OLD, dict(TILE_DEFINITION, channels=[HOOK_A])),  # the older form read the same way, with its one channel
    (SEARCH, dict(alert_id=SEARCH['id'], name='Slow queries', saved_search_id='65f0000000000000000000aa', group_by='service', threshold=1,
                  threshold_type='between', threshold_max=5, interval='1h', note='see runbook', num_consecutive_windows=3,
                  schedule_start_at='2026-01-01T00:00:00.000Z', channels=[HOOK_C])),
    (dict(NEW, name=None, message=None),
     dict((key, value) for key, value in dict(TILE_DEFINITION, channels=[HOOK_A, HOOK_B]).items() if key not in ('name', 'alert_message'))),
    # The PUT keeps thresholdMax when it is left out: an alert turned from between to above still stores it.
    (dict(NEW, thresholdMax=99), dict(TILE_DEFINITION, channels=[HOOK_A, HOOK_B])),
], ids=['new', 'old', 'search', 'unnamed', 'a stored maximum of a kind without range'])
def test_the_definition_of_a_read_alert_fed_back_plans_nothing(alert, definition):
    assert alert_rules.definition(alert) == definition
    source = dict((option, definition[option]) for option in alert_rules.TILE_SOURCE + ('saved_search_id',) if option in definition)
    assert alert_rules.plan(alert, params(**definition), source) == (None, None)
    assert alert_rules.option_errors(params(**definition)) == []
    assert alert_rules.merged_errors(alert_rules.merge(definition, params(**definition), source), params(**definition), False) == []


# --- merge and the whole body ----------------------------------------------------------------------

def test_a_threshold_change_sends_the_whole_alert_and_keeps_the_message():
    body, diff = alert_rules.plan(NEW, params(threshold=90), None)
    assert body == {
        'source': 'tile', 'dashboardId': DASHBOARD, 'tileId': TILE, 'name': 'High CPU', 'threshold': 90, 'thresholdType': 'above',
        'interval': '5m', 'message': 'CPU above 85%',
        'channels': [{'type': 'webhook', 'webhookId': HOOK_A}, {'type': 'webhook', 'webhookId': HOOK_B}],
        'channel': {'type': 'webhook', 'webhookId': HOOK_A}}
    assert diff == dict(before=dict(threshold=85), after=dict(threshold=90))


ABSENT = 'not in the body'
CHANNEL_A, CHANNEL_B = ({'type': 'webhook', 'webhookId': hook} for hook in (HOOK_A, HOOK_B))


@pytest.mark.parametrize('alert, given, sent, diff', [
    (OLD, dict(alert_message='CPU high'), dict(channel=CHANNEL_A, channels=[CHANNEL_A], dashboardId=DASHBOARD, dashboard=ABSENT, team=ABSENT),
     dict(before=dict(message='CPU above 85%'), after=dict(message='CPU high'))),
    (NEW, dict(channels=[HOOK_B, HOOK_A]), dict(channel=CHANNEL_B),
     dict(before=dict(channel=CHANNEL_A, channels=[CHANNEL_A, CHANNEL_B]), after=dict(channel=CHANNEL_B, channels=[CHANNEL_B, CHANNEL_A]))),
    (NEW, dict(alert_message=''), dict(message=ABSENT, name='High CPU'), dict(before=dict(message='CPU above 85%'), after=dict(message=None))),
    (SEARCH, dict(group_by='', schedule_start_at='', num_consecutive_windows=0),
     dict(groupBy=None, scheduleStartAt=None, numConsecutiveWindows=ABSENT),
     dict(before=dict(groupBy='service', numConsecutiveWindows=3, scheduleStartAt='2026-01-01T00:00:00.000Z'),
          after=dict(groupBy=None, numConsecutiveWindows=None, scheduleStartAt=None))),
    (SEARCH, dict(schedule_start_at='2026-01-01T00:00:01Z'), {},
     dict(before=dict(scheduleStartAt='2026-01-01T00:00:00.000Z'), after=dict(scheduleStartAt='2026-01-01T00:00:01Z'))),
    (dict(NEW, scheduleOffsetMinutes=0), dict(schedule_offset_minutes=3), dict(scheduleOffsetMinutes=3),
     dict(before=dict(scheduleOffsetMinutes=0), after=dict(scheduleOffsetMinutes=3))),
], ids=['an old form read: updated with channels and channel', 'channels compare in their order', 'an empty message removes it alone',
        'removing values: null where a PUT would keep the field', 'a later start', 'a new offset'])
def test_what_a_change_sends_and_shows(alert, given, sent, diff):
    body, planned = alert_rules.plan(alert, params(**given), None)
    assert dict((key, body.get(key, ABSENT)) for key in sent) == sent and planned == diff


def test_a_new_source_replaces_the_other_kind():
    merged = alert_rules.merge(alert_rules.definition(SEARCH), params(), dict(dashboard=DASHBOARD, tile=TILE))
    assert 'saved_search_id' not in merged and 'group_by' not in merged
    sent = alert_rules.body(merged)
    assert sent['source'] == 'tile' and sent['tileId'] == TILE and 'savedSearchId' not in sent and 'groupBy' not in sent
    merged = alert_rules.merge(alert_rules.definition(NEW), params(group_by='host'), dict(saved_search_id='65f0000000000000000000ab'))
    assert alert_rules.body(merged)['source'] == 'saved_search' and merged['group_by'] == 'host' and 'tile' not in merged


def test_the_range_kinds_send_their_maximum_and_the_others_do_not():
    assert alert_rules.body(dict(threshold=1, threshold_type='between', threshold_max=2, tile='t', dashboard=DASHBOARD))['thresholdMax'] == 2
    assert 'thresholdMax' not in alert_rules.body(dict(threshold=1, threshold_type='above', threshold_max=2, tile='t', dashboard=DASHBOARD))


@given(st.lists(st.sampled_from([HOOK_A, HOOK_B, HOOK_C, '65d000000000000000000004']), min_size=1, max_size=4, unique=True),
       st.sampled_from([NEW, OLD]), st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_after_an_update_the_read_back_plans_nothing(channels, alert, threshold):
    """What a server that knows channels stores from the body plans nothing on the next run."""
    body, dummy = alert_rules.plan(alert, params(channels=channels, threshold=threshold), None)
    stored = dict(alert, **(body or {}))
    assert alert_rules.plan(stored, params(channels=channels, threshold=threshold), None) == (None, None)


# --- checks before any request ---------------------------------------------------------------------

@pytest.mark.parametrize('given, message', [
    (dict(threshold_type='not_between', threshold=5, threshold_max=4), 'threshold_max (4) must be at least threshold (5)'),
    (dict(threshold_type='above', threshold_max=4), 'threshold_max goes only with threshold_type between or not_between, got threshold_type=above'),
    (dict(channels=['65d%021d' % index for index in range(11)]), 'channels must hold 1 to 10 webhook ids, got 11'),
    (dict(channels=[HOOK_A, HOOK_B, HOOK_A]), 'channels must not name a webhook twice, got %s more than once' % HOOK_A),
    (dict(channels=[HOOK_A, ' ']), 'channels must not hold an empty webhook id'),
    (dict(name=''), 'name must be 1 to 512 characters long, got 0'), (dict(name='n' * 513), 'name must be 1 to 512 characters long, got 513'),
    (dict(note='n' * 4097), 'note must be 0 to 4096 characters long, got 4097'),
    (dict(num_consecutive_windows=-1), 'num_consecutive_windows must be at least 1 (0 removes it), got -1'),
    (dict(schedule_offset_minutes=-5), 'schedule_offset_minutes must be 0 to 1439, got -5'),
    (dict(schedule_offset_minutes=1440), 'schedule_offset_minutes must be 0 to 1439, got 1440'),
    (dict(channels=['sre-pager']), "each of channels must be an object id of 24 hexadecimal digits, got 'sre-pager'"),
] + [(dict(schedule_start_at=value), 'schedule_start_at must be a UTC date-time ending in Z')
     for value in ('2026-01-01T00:00:00+02:00', '2026-01-01T00:00:00', '2026-01-01', '2026-02-30T00:00:00Z')] + [
    (dict(schedule_start_at=value), 'schedule_start_at must be within one year ahead and ten years back of now')
    for value in ('2027-01-02T00:00:00Z', '2015-12-31T23:59:59Z')])
def test_bad_options(given, message):
    errors = alert_rules.option_errors(params(**given), now=NOW)
    assert len(errors) == 1 and errors[0].startswith(message), errors


@pytest.mark.parametrize('given', [
    dict(schedule_start_at='2027-01-01T00:00:00Z'), dict(schedule_start_at='2016-01-01T00:00:00.000Z'),
    dict(schedule_start_at='2026-01-01T00:00:00.123456Z'), dict(schedule_start_at=''),
    dict(num_consecutive_windows=0, group_by='', schedule_offset_minutes=1439),
    dict(channels=['65d%021d' % index for index in range(10)], threshold_type='between', threshold=1, threshold_max=1, name='x' * 512,
         alert_message=''),
])
def test_good_options(given):
    assert alert_rules.option_errors(params(**given), now=NOW) == []


@pytest.mark.parametrize('current, given, message', [
    (NEW, dict(schedule_offset_minutes=5), 'schedule_offset_minutes (5) must be below the minutes of the interval (5m: 5)'),
    (dict(NEW, scheduleOffsetMinutes=10, interval='15m'), dict(interval='1m'),
     'schedule_offset_minutes (10) must be below the minutes of the interval (1m: 1)'),
    (SEARCH, dict(schedule_offset_minutes=3), 'schedule_offset_minutes must be 0 when schedule_start_at is set'),
    (SEARCH, dict(threshold=9), 'threshold_max (5) must be at least threshold (9)'),
    (NEW, dict(threshold_max=9), 'threshold_max goes only with threshold_type between or not_between, and the alert is above'),
    (NEW, dict(group_by='host'), 'group_by goes only with an alert on a saved search (saved_search_id), and this one is on a tile'),
])
def test_the_rules_hold_for_the_alert_as_it_would_be(current, given, message):
    errors = alert_rules.merged_errors(alert_rules.merge(alert_rules.definition(current), params(**given), None), params(**given), False)
    assert len(errors) == 1 and errors[0].startswith(message), errors


# --- the source -------------------------------------------------------------------------------------

TILES = [dict(id='65f000000000000000000010', name='CPU usage'), dict(id='t-mem', name='Memory'), dict(id='t-mem2', name='Memory'),
         dict(id='t-x', name='t-mem')]


def test_a_tile_is_found_by_id_before_name_and_an_object_id_in_any_case():
    assert alert_rules.matching(TILES, 't-mem') == [TILES[1]]
    assert alert_rules.matching(TILES, '65F000000000000000000010') == [TILES[0]]
    assert alert_rules.matching(TILES, 'CPU usage') == [TILES[0]]
    assert alert_rules.matching_error('tile', 'CPU usage', [TILES[0]], '') is None


def test_none_or_several_fail_naming_what_was_looked_for():
    assert alert_rules.matching_error('tile', 'Disk', [], ' on dashboard Ops (65a1b2c3d4e5f60718293a4b)') == (
        'no tile on dashboard Ops (65a1b2c3d4e5f60718293a4b) has the id or name "Disk". Nothing was sent')
    assert alert_rules.matching_error('dashboard', 'Memory', alert_rules.matching(TILES, 'Memory'), '') == (
        '2 dashboards are named "Memory" (t-mem, t-mem2): give the id of one. Nothing was sent')


@pytest.mark.parametrize('tile, carries', [
    (dict(series=[dict(type='time', sourceId='s', aggFn='count', where='', groupBy=[])]), True),
    (dict(series=[dict(type='time', sourceId='s', aggFn='count', where='', groupBy=[], displayType='stacked_bar')]), True),
    (dict(series=[dict(type='number', sourceId='s', aggFn='count', where='')]), True),
    (dict(config=dict(displayType='markdown', markdown='# hi')), False),
] + [(dict(config=dict(displayType=display, sourceId='s', select=[dict(aggFn='count')])), display in ('line', 'stacked_bar', 'number'))
     for display in ('line', 'stacked_bar', 'number', 'table', 'pie', 'bar', 'heatmap', 'search', 'event_patterns')])
def test_only_line_stacked_bar_and_number_tiles_carry_alerts(tile, carries):
    tile = dict(tile, id='t1', name='T', x=0, y=0, w=6, h=3)
    error = alert_rules.tile_error(tile, dict(name='Ops'))
    assert (error is None) == carries
    if not carries:
        assert error.startswith('tile "T" (t1) of dashboard "Ops" is a %s tile, which cannot carry alerts (only line, number, '
                                'stacked_bar can)' % display_type(tile))


def test_on_tile_reads_either_form_and_an_object_id_in_any_case():
    assert alert_rules.on_tile(NEW, DASHBOARD.upper(), TILE) and alert_rules.on_tile(OLD, DASHBOARD, TILE)
    assert not alert_rules.on_tile(NEW, DASHBOARD, 't-other') and not alert_rules.on_tile(SEARCH, DASHBOARD, TILE)


# --- what the server keeps, as its reads show it ------------------------------------------------------

def test_reads_prove_the_server_older_than_the_fields_they_do_not_show():
    sent = alert_rules.body(alert_rules.merge(alert_rules.definition(SEARCH), params(), None))
    assert alert_rules.era_errors(sent, [NEW, SEARCH]) == []
    errors = alert_rules.era_errors(sent, [NEW, OLD])  # OLD reads neither note nor numConsecutiveWindows: before 2.25
    assert [error.split(' needs')[0] for error in errors] == ['num_consecutive_windows', 'note']
    assert errors[0] == ('num_consecutive_windows needs a server of version 2.30 or later, which keeps numConsecutiveWindows; this one is '
                         'older (alert "High CPU" reads no note), so it would drop it and every run would send it again: leave '
                         'num_consecutive_windows out')
    no_windows = dict((key, value) for key, value in NEW.items() if key != 'numConsecutiveWindows')  # 2.25 to 2.29
    assert [error.split(' needs')[0] for error in alert_rules.era_errors(sent, [no_windows])] == ['num_consecutive_windows']
    # the schedule and thresholdMax show only when set: their absence proves nothing
    assert alert_rules.era_errors(dict(scheduleStartAt='2026-01-01T00:00:00Z', scheduleOffsetMinutes=0), [OLD]) == []
    assert alert_rules.older_than([NEW, SEARCH]) is None


def test_the_answer_to_a_write_shows_what_the_server_dropped():
    given = params(threshold=1, threshold_type='above', interval='5m', channels=[HOOK_A, HOOK_B], schedule_start_at='2026-01-01T00:00:00Z',
                   schedule_offset_minutes=0)
    sent = alert_rules.body(alert_rules.merge({}, given, dict(saved_search_id=SEARCH['savedSearchId'])))
    answer = dict(OLD, scheduleOffsetMinutes=0)
    assert alert_rules.dropped_errors(sent, answer) == [
        'the server dropped scheduleStartAt: servers before version 2.21 do, so leave schedule_start_at out',
        'the server kept the first of the channels only (servers before version 2.36 keep one): give one']
    assert alert_rules.dropped_errors(sent, dict(NEW, scheduleStartAt='2026-01-01T00:00:00.000Z')) == []


# --- comparing the schedule, legacy alerts ----------------------------------------------------

REMOVED = dict((key, value) for key, value in SEARCH.items() if key not in ('groupBy', 'scheduleStartAt', 'numConsecutiveWindows'))


@pytest.mark.parametrize('alert, given', [
    (dict(NEW, threshold='85'), dict(threshold=85.0)), (NEW, dict(schedule_offset_minutes=0)),
    (SEARCH, dict(schedule_start_at='2026-01-01T00:00:00Z')), (SEARCH, dict(schedule_start_at='2026-01-01T00:00:00.0009Z')),
    (REMOVED, dict(group_by='', schedule_start_at='', num_consecutive_windows=0)),
    (dict(SEARCH, groupBy=''), alert_rules.definition(dict(SEARCH, groupBy=''))),
], ids=['numbers as numbers', 'no offset as zero', 'a start as an instant', 'below a millisecond', 'removed', 'an empty group_by'])
def test_the_same_meaning_plans_nothing(alert, given):
    assert alert_rules.plan(alert, params(**given), None) == (None, None)


LEGACY = dict((key, value) for key, value in SEARCH.items() if key not in ('channel', 'channels'))


def test_a_write_of_a_legacy_alert_needs_channels_and_a_create_with_none_names_them():
    assert alert_rules.write_errors(LEGACY, alert_rules.plan(LEGACY, params(threshold=2), None)[0]).startswith('alert "Slow queries" has no')
    assert alert_rules.write_errors(LEGACY, alert_rules.plan(LEGACY, params(threshold=2, channels=[HOOK_A]), None)[0]) is None
    assert alert_rules.merged_errors(alert_rules.merge({}, params(channels=[], threshold=1, threshold_type='above', interval='1m'),
                                                       dict(saved_search_id='65f0000000000000000000aa')), params(), True) == [
        'creating alert null needs channels']
