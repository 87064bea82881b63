# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rules of the alert modules (reference: "dashboards and alerts as code"): the checks of the options
before any request, the definition of a read alert (the options of engine.cloud.alert that describe it),
the merge of the current alert with what a task gives, the whole body a create or an update sends, and
the compare of two alerts in that body's terms."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.engine.cloud.plugins.module_utils.compare import equal, mask_secrets
from ansible_collections.engine.cloud.plugins.module_utils.dashboard_rules import CAN_CARRY_ALERTS, alert_dashboard

INTERVALS = ('1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d')
THRESHOLD_TYPES = ('above', 'below', 'above_exclusive', 'below_or_equal', 'equal', 'not_equal', 'between', 'not_between')
BETWEEN = ('between', 'not_between')
MAX_CHANNELS = 10
NAME_LENGTH = 512
TEXT_LENGTH = 4096

# option -> field of the alert body, for the options that are one field each
FIELDS = (
    ('name', 'name'), ('threshold', 'threshold'), ('threshold_type', 'thresholdType'), ('threshold_max', 'thresholdMax'),
    ('interval', 'interval'), ('alert_message', 'message'), ('note', 'note'), ('num_consecutive_windows', 'numConsecutiveWindows'),
    ('schedule_offset_minutes', 'scheduleOffsetMinutes'), ('schedule_start_at', 'scheduleStartAt'),
)
# The options that describe an alert besides its source, in the order a definition lists them.
DESCRIBING = tuple(option for option, field in FIELDS) + ('channels', 'group_by')
TILE_SOURCE = ('dashboard', 'tile')
SEARCH_SOURCE = ('saved_search_id', 'group_by')
# Texts an empty string removes (the API takes 1 to 4096 characters or null). The option of the alert's message is
# alert_message: ansible-core keeps the argument name message for itself.
CLEARABLE = ('alert_message', 'note')
# What a create cannot do without.
REQUIRED = ('threshold', 'threshold_type', 'interval', 'channels')


# --- checks before any request --------------------------------------------------------------------

def option_errors(params):
    """A message for each option that the API would refuse, whatever the alert holds now."""
    lengths = [_length_error('name', params.get('name'), 1, NAME_LENGTH)]
    lengths += [_length_error(option, params.get(option), 0, TEXT_LENGTH) for option in CLEARABLE]
    minimums = [_at_least('num_consecutive_windows', params.get('num_consecutive_windows'), 1),
                _at_least('schedule_offset_minutes', params.get('schedule_offset_minutes'), 0)]
    errors = lengths + channel_errors(params.get('channels')) + threshold_errors(params) + minimums
    return [error for error in errors if error]


def _length_error(option, value, shortest, longest):
    if value is None or shortest <= len(value) <= longest:
        return None
    return '%s must be %d to %d characters long, got %d' % (option, shortest, longest, len(value))


def _at_least(option, value, minimum):
    if value is None or value >= minimum:
        return None
    return '%s must be at least %d, got %s' % (option, minimum, value)


def channel_errors(channels):
    """channels: 1 to 10 webhook ids, none twice, none empty."""
    if channels is None:
        return []
    if not 1 <= len(channels) <= MAX_CHANNELS:
        return ['channels must hold 1 to %d webhook ids, got %d' % (MAX_CHANNELS, len(channels))]
    errors = ['channels must not hold an empty webhook id'] if any(not channel.strip() for channel in channels) else []
    repeated = sorted(set(channel for channel in channels if channels.count(channel) > 1))
    if repeated:
        errors.append('channels must not name a webhook twice, got %s more than once' % ', '.join(repeated))
    return errors


def threshold_errors(params):
    """The threshold kinds' rules as far as the options alone tell them (the merge with the current alert
    is checked again by merged_errors)."""
    kind, maximum, threshold = params.get('threshold_type'), params.get('threshold_max'), params.get('threshold')
    if kind in BETWEEN and maximum is None:
        return ['threshold_type=%s needs threshold_max (the upper end of the range)' % kind]
    if kind is not None and kind not in BETWEEN and maximum is not None:
        return ['threshold_max goes only with threshold_type between or not_between, got threshold_type=%s' % kind]
    if maximum is not None and threshold is not None and maximum < threshold:
        return ['threshold_max (%s) must be at least threshold (%s)' % (maximum, threshold)]
    return []


def merged_errors(merged, params, creating):
    """What the alert the module would send (the current one merged with the task, params) lacks or breaks."""
    errors = []
    if creating:
        missing = [option for option in REQUIRED if merged.get(option) is None]
        if merged.get('tile') is None and merged.get('saved_search_id') is None:
            missing.append('dashboard and tile, or saved_search_id')
        if missing:
            errors.append('creating alert %s needs %s' % (json.dumps(merged.get('name')), ', '.join(missing)))
    kind, maximum, threshold = merged.get('threshold_type'), merged.get('threshold_max'), merged.get('threshold')
    if kind in BETWEEN and maximum is None:
        errors.append('threshold_type=%s needs threshold_max (the upper end of the range)' % kind)
    elif kind in BETWEEN and threshold is not None and maximum < threshold:
        errors.append('threshold_max (%s) must be at least threshold (%s)' % (maximum, threshold))
    if params.get('threshold_max') is not None and kind not in BETWEEN:
        errors.append('threshold_max goes only with threshold_type between or not_between, and the alert is %s' % kind)
    if params.get('group_by') is not None and merged.get('saved_search_id') is None:
        errors.append('group_by goes only with an alert on a saved search (saved_search_id), and this one is on a tile')
    return errors


# --- reads ----------------------------------------------------------------------------------------

def channel_ids(alert):
    """The webhook ids of a read alert, in order: channels where the server knows them, else its one channel."""
    channels = alert.get('channels')
    if isinstance(channels, list) and channels:
        return [channel.get('webhookId') for channel in channels]
    channel = alert.get('channel')
    return [channel.get('webhookId')] if isinstance(channel, dict) and channel.get('webhookId') else []


def knows_channels(alert):
    """Whether the server that answered with alert keeps several channels (older ones drop channels)."""
    return isinstance(alert.get('channels'), list)


def definition(alert):
    """The options of engine.cloud.alert that describe a read alert: fed back, they change nothing."""
    found = dict(alert_id=alert.get('id'))
    if alert.get('name') is not None:
        found['name'] = alert['name']
    if alert.get('source') == 'saved_search':
        found['saved_search_id'] = alert.get('savedSearchId')
        if alert.get('groupBy') not in (None, '', []):
            found['group_by'] = alert['groupBy']
    else:
        found.update(dashboard=alert_dashboard(alert), tile=alert.get('tileId'))
    for option, field in FIELDS:
        if option != 'name' and alert.get(field) is not None and (option != 'threshold_max' or alert.get('thresholdType') in BETWEEN):
            found[option] = alert[field]
    found['channels'] = channel_ids(alert)
    return found


# --- the source: a tile of a dashboard -------------------------------------------------------------

def matching(items, wanted):
    """The items (dashboards, or tiles of one) whose id is wanted (an object id in any case), else whose name is."""
    by_id = [item for item in items if str(item.get('id')).lower() == wanted.lower()]
    return by_id or [item for item in items if item.get('name') == wanted]


def matching_error(noun, wanted, found, where):
    """None for exactly one item found; otherwise why the source cannot be resolved."""
    if len(found) == 1:
        return None
    if not found:
        return 'no %s%s has the id or name %s. Nothing was sent' % (noun, where, json.dumps(wanted))
    return ('%d %ss%s are named %s (%s): give the id of one. Nothing was sent'
            % (len(found), noun, where, json.dumps(wanted), ', '.join(sorted(str(item.get('id')) for item in found))))


def on_tile(alert, dashboard_id, tile_id):
    """Whether a read alert is on that tile of that dashboard."""
    return alert.get('source', 'tile') == 'tile' and alert.get('tileId') == tile_id and str(alert_dashboard(alert)).lower() == dashboard_id.lower()


def tile_error(tile, display_type, dashboard):
    """None for a tile that can carry alerts; the API accepts an alert on any tile, and the next update of its
    dashboard deletes the alerts of the others."""
    if display_type in CAN_CARRY_ALERTS:
        return None
    return ('tile %s (%s) of dashboard %s is a %s tile, which cannot carry alerts (only %s can): the API accepts an '
            'alert on it, and the next update of the dashboard deletes it'
            % (json.dumps(tile.get('name')), tile.get('id'), json.dumps(dashboard.get('name')), display_type,
               ', '.join(sorted(CAN_CARRY_ALERTS))))


# --- what a task sends ------------------------------------------------------------------------------

def merge(current, params, source):
    """The alert as the task wants it: current (a definition, {} for a create) with every option the task
    gives (None: keep), source (the resolved dashboard and tile, or the saved search; None: keep) replacing the
    current one. An empty alert_message or note removes it."""
    merged = dict((option, value) for option, value in current.items() if option != 'alert_id')
    if source:
        for option in (SEARCH_SOURCE if 'tile' in source else TILE_SOURCE):
            merged.pop(option, None)
        merged.update(source)
    for option in DESCRIBING:
        value = params.get(option)
        if value is None or (option == 'group_by' and 'tile' in merged):
            continue
        if option in CLEARABLE and value == '':
            merged.pop(option, None)
        else:
            merged[option] = value
    return merged


def body(alert):
    """The whole API body of an alert given as options: every field it has (a PUT nulls the texts left out),
    channels and channel (its first) both, thresholdMax only for the range kinds."""
    sent = dict(source='saved_search' if alert.get('saved_search_id') is not None else 'tile')
    if sent['source'] == 'tile':
        sent.update(dashboardId=alert.get('dashboard'), tileId=alert.get('tile'))
    else:
        sent['savedSearchId'] = alert['saved_search_id']
        if alert.get('group_by') is not None:
            sent['groupBy'] = alert['group_by']
    for option, field in FIELDS:
        if alert.get(option) is not None and (option != 'threshold_max' or alert.get('threshold_type') in BETWEEN):
            sent[field] = alert[option]
    channels = [dict(type='webhook', webhookId=webhook) for webhook in alert.get('channels') or []]
    if channels:
        sent.update(channels=channels, channel=channels[0])
    return sent


def same(field, current, desired):
    """One field compared: channels in their order (the first is the alert's channel), the rest normalised."""
    if field == 'channels':
        return [item.get('webhookId') for item in current or []] == [item.get('webhookId') for item in desired or []]
    return equal(current, desired)


def plan(current, params, source):
    """(the PUT body, its diff) for an existing alert as read, or (None, None) when nothing differs. The body
    is the whole alert (the current one merged with the task); the diff names the fields that differ."""
    before = body(definition(current))
    after = body(merge(definition(current), params, source))
    differing = [field for field in sorted(set(before) | set(after)) if not same(field, before.get(field), after.get(field))]
    if not differing:
        return None, None
    return after, dict(before=mask_secrets(dict((field, before.get(field)) for field in differing)),
                       after=mask_secrets(dict((field, after.get(field)) for field in differing)))


def channels_error(alert, wanted):
    """A server that keeps one channel only (its alert reads no channels) cannot hold several: the task would
    report a change on every run. None when wanted fits."""
    if wanted is None or len(wanted) < 2 or knows_channels(alert):
        return None
    return ('this server keeps one channel per alert (alert %s reads channel, and no channels), so channels cannot '
            'hold %d webhooks (%s): give one' % (json.dumps(alert.get('name') or alert.get('id')), len(wanted), ', '.join(wanted)))


def predicted(merged, current=None):
    """The alert a check-mode create or update reports: current with the body's fields."""
    alert = dict(current or {})
    alert.update(body(merged))
    return alert
