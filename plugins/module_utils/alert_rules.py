# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rules of the alert modules (reference: "dashboards and alerts as code"): the checks of the options, the definition of
a read alert, its merge with what a task gives, the whole body a write sends, and two alerts compared in its terms."""

import datetime
import json
import re

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import diff, equal
from ansible_collections.engine.cloud.plugins.module_utils.dashboard_rules import CAN_CARRY_ALERTS, alert_dashboard, display_type

INTERVAL_MINUTES = {'1m': 1, '5m': 5, '15m': 15, '30m': 30, '1h': 60, '6h': 360, '12h': 720, '1d': 1440}
THRESHOLD_TYPES = ('above', 'below', 'above_exclusive', 'below_or_equal', 'equal', 'not_equal', 'between', 'not_between')
BETWEEN = ('between', 'not_between')
MAX_CHANNELS = 10
NAME_LENGTH = 512
TEXT_LENGTH = 4096

FIELDS = (
    ('name', 'name'), ('threshold', 'threshold'), ('threshold_type', 'thresholdType'), ('threshold_max', 'thresholdMax'),
    ('interval', 'interval'), ('alert_message', 'message'), ('note', 'note'), ('num_consecutive_windows', 'numConsecutiveWindows'),
    ('schedule_offset_minutes', 'scheduleOffsetMinutes'), ('schedule_start_at', 'scheduleStartAt'),
)
DESCRIBING = tuple(option for option, field in FIELDS) + ('channels', 'group_by')
TILE_SOURCE = ('dashboard', 'tile')
SEARCH_SOURCE = ('saved_search_id', 'group_by')
# Texts an empty string removes (the API takes 1 to 4096 characters or null).
CLEARABLE = ('alert_message', 'note')
# The value of an option that removes its field (the API takes null for each; an int option has no empty value, and
# a window count of 0 is otherwise refused). schedule_offset_minutes needs none: 0 is no offset, as null is.
REMOVING = dict(alert_message='', note='', group_by='', schedule_start_at='', num_consecutive_windows=0)
# Removed fields that a PUT must send as null: it keeps scheduleStartAt when left out; groupBy is said explicitly.
SENT_NULL = ('group_by', 'schedule_start_at')
REQUIRED = ('threshold', 'threshold_type', 'interval', 'channels')
MAX_OFFSET = 1439
# scheduleStartAt as the API takes it: a UTC date-time ending in Z (an offset, no zone or a bare date is refused).
UTC_DATETIME = re.compile(r'\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d{1,3})\d*)?Z\Z')
# The version from which a server keeps each field (reference, "older servers"): an older one drops it as an unknown
# key and never shows it. Before 2.24 the between kinds are unknown values (refused).
SINCE = (('numConsecutiveWindows', 'num_consecutive_windows', (2, 30)), ('note', 'note', (2, 25)),
         ('thresholdMax', 'threshold_max', (2, 24)), ('scheduleOffsetMinutes', 'schedule_offset_minutes', (2, 21)),
         ('scheduleStartAt', 'schedule_start_at', (2, 21)))
CHANNELS_SINCE = (2, 36)
# Fields that every server which keeps them shows in each read, as null when unset: a read without one proves an
# older server.
ALWAYS_READ = ('numConsecutiveWindows', 'note')


def option_errors(params, now=None):
    """A message for each option that the API would refuse, whatever the alert holds now (now: epoch seconds)."""
    lengths = [_length_error('name', params.get('name'), 1, NAME_LENGTH)]
    lengths += [_length_error(option, params.get(option), 0, TEXT_LENGTH) for option in CLEARABLE]
    windows, offset = params.get('num_consecutive_windows'), params.get('schedule_offset_minutes')
    ranges = [None if windows is None or windows >= 0 else 'num_consecutive_windows must be at least 1 (0 removes it), got %d' % windows,
              None if offset is None or 0 <= offset <= MAX_OFFSET else 'schedule_offset_minutes must be 0 to %d, got %d' % (MAX_OFFSET, offset),
              start_at_error(params.get('schedule_start_at'), CLOCK.time() if now is None else now)]
    errors = lengths + channel_errors(params.get('channels')) + threshold_errors(params) + ranges
    errors = [error for error in errors if error]
    return errors or schedule_errors(params)  # what the task's own options say; merged_errors checks the merged alert


def instant(text):
    """A date-time as the API takes it (UTC, ending in Z) to the millisecond, as the server stores it, else None."""
    match = UTC_DATETIME.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    try:
        return datetime.datetime.fromisoformat('%s.%s' % (text[:19], (match.group(1) or '').ljust(3, '0')))  # 3.10 reads 3 or 6 digits only
    except ValueError:  # a date that does not exist
        return None


def _years_from(moment, years):
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:  # 29 February
        return moment.replace(year=moment.year + years, day=28)


def start_at_error(value, now):
    if not value:
        return None
    moment = instant(value)
    if moment is None:
        return ('schedule_start_at must be a UTC date-time ending in Z, such as 2026-09-01T00:00:00Z (the API refuses an offset, '
                'a time without a zone or a bare date), got %s' % json.dumps(value))
    today = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=int(now))
    if not _years_from(today, -10) <= moment <= _years_from(today, 1):
        return 'schedule_start_at must be within one year ahead and ten years back of now (the API refuses others), got %s' % value
    return None


def _length_error(option, value, shortest, longest):
    if value is None or shortest <= len(value) <= longest:
        return None
    return '%s must be %d to %d characters long, got %d' % (option, shortest, longest, len(value))


def channel_errors(channels):
    """channels: up to 10 webhook ids, none twice, none empty ([], a legacy alert's, is checked by write_errors)."""
    if channels is None:
        return []
    if len(channels) > MAX_CHANNELS:
        return ['channels must hold 1 to %d webhook ids, got %d' % (MAX_CHANNELS, len(channels))]
    errors = ['channels must not hold an empty webhook id'] if any(not channel.strip() for channel in channels) else []
    errors += [validate.object_id('each of channels', channel) for channel in channels if channel.strip()]
    repeated = sorted(set(channel for channel in channels if channels.count(channel) > 1))
    if repeated:
        errors.append('channels must not name a webhook twice, got %s more than once' % ', '.join(repeated))
    return errors


def threshold_errors(params):
    """The threshold kinds' rules as far as the options alone tell them (the spec asks a range kind for threshold_max;
    merged_errors checks the merged alert)."""
    kind, maximum, threshold = params.get('threshold_type'), params.get('threshold_max'), params.get('threshold')
    if kind is not None and kind not in BETWEEN and maximum is not None:
        return ['threshold_max goes only with threshold_type between or not_between, got threshold_type=%s' % kind]
    if maximum is not None and threshold is not None and maximum < threshold:
        return ['threshold_max (%s) must be at least threshold (%s)' % (maximum, threshold)]
    return []


def merged_errors(merged, params, creating):
    """What the alert the module would send (the current one merged with the task) lacks or breaks."""
    errors = []
    if creating:
        missing = [option for option in REQUIRED if merged.get(option) in (None, [])]
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
    if params.get('group_by') and merged.get('saved_search_id') is None:
        errors.append('group_by goes only with an alert on a saved search (saved_search_id), and this one is on a tile')
    return errors + schedule_errors(merged)


def schedule_errors(merged):
    offset, interval, start = merged.get('schedule_offset_minutes') or 0, merged.get('interval'), merged.get('schedule_start_at')
    errors = []
    if offset and interval in INTERVAL_MINUTES and offset >= INTERVAL_MINUTES[interval]:
        errors.append('schedule_offset_minutes (%d) must be below the minutes of the interval (%s: %d)'
                      % (offset, interval, INTERVAL_MINUTES[interval]))
    if offset and start:
        errors.append('schedule_offset_minutes must be 0 when schedule_start_at is set (got %d and %s): the API takes one or the other'
                      % (offset, start))
    return errors


def write_errors(alert, sent):
    if sent.get('channels'):
        return None
    return ('alert %s has no channel (a legacy alert, made before alerts needed one), and the API refuses any write without one: '
            'give channels (1 to %d webhook ids) with this change' % (_named(alert), MAX_CHANNELS))


def channel_ids(alert):
    channels = alert.get('channels')
    if isinstance(channels, list) and channels:
        return [channel.get('webhookId') for channel in channels]
    channel = alert.get('channel')
    return [channel.get('webhookId')] if isinstance(channel, dict) and channel.get('webhookId') else []


def older_than(alerts):
    """(the version, which read shows it) that the reads of alerts prove the server older than, or None. Only the
    fields of ALWAYS_READ and channels prove anything missing; the others show only when set."""
    bounds = [(version, 'alert %s reads no %s' % (_named(alert), field))
              for alert in alerts for field, option, version in SINCE if field in ALWAYS_READ and field not in alert]
    bounds += [(CHANNELS_SINCE, 'alert %s reads channel and no channels' % _named(alert))
               for alert in alerts if 'channel' in alert and 'channels' not in alert]
    return min(bounds, default=None, key=lambda bound: bound[0])


def _named(alert):
    return json.dumps(alert.get('name') or alert.get('id'))


def _meaningful(field, value):
    """Whether a sent value asks the server to keep something (null asks nothing, an offset of 0 is no offset)."""
    return value is not None and not (field == 'scheduleOffsetMinutes' and value == 0)


def era_errors(sent, alerts):
    """A message for each field of the body sent that the server, as the reads of alerts show it, does not keep: it
    would drop the field, and every run would send it again (the answer to a write shows the rest: dropped_errors)."""
    high = older_than(alerts)
    if high is None:
        return []
    return ['%s needs a server of version %s or later, which keeps %s; this one is older (%s), so it would drop it and every run '
            'would send it again: leave %s out' % (option, '%d.%d' % version, field, high[1], option)
            for field, option, version in SINCE if _meaningful(field, sent.get(field)) and high[0] <= version]


def dropped_errors(sent, answer):
    errors = ['the server dropped %s: servers before version %s do, so leave %s out' % (field, '%d.%d' % version, option)
              for field, option, version in SINCE if _meaningful(field, sent.get(field)) and field not in answer]
    if len(sent.get('channels') or []) > 1 and len(channel_ids(answer)) < len(sent['channels']):
        errors.append('the server kept the first of the channels only (servers before version %d.%d keep one): give one' % CHANNELS_SINCE)
    return errors


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


def matching(items, wanted):
    by_id = [item for item in items if str(item.get('id')).lower() == wanted.lower()]
    return by_id or [item for item in items if item.get('name') == wanted]


def matching_error(noun, wanted, found, where):
    if len(found) == 1:
        return None
    if not found:
        return 'no %s%s has the id or name %s. Nothing was sent' % (noun, where, json.dumps(wanted))
    return ('%d %ss%s are named %s (%s): give the id of one. Nothing was sent'
            % (len(found), noun, where, json.dumps(wanted), ', '.join(sorted(str(item.get('id')) for item in found))))


def on_tile(alert, dashboard_id, tile_id):
    return alert.get('source', 'tile') == 'tile' and alert.get('tileId') == tile_id and str(alert_dashboard(alert)).lower() == dashboard_id.lower()


def tile_error(tile, dashboard):
    """None for a tile that can carry alerts; the API accepts an alert on any tile, and the next update of its dashboard
    deletes the alerts of the others."""
    kind = display_type(tile)
    if kind in CAN_CARRY_ALERTS:
        return None
    return ('tile %s (%s) of dashboard %s is a %s tile, which cannot carry alerts (only %s can): the API accepts an '
            'alert on it, and the next update of the dashboard deletes it'
            % (json.dumps(tile.get('name')), tile.get('id'), json.dumps(dashboard.get('name')), kind,
               ', '.join(sorted(CAN_CARRY_ALERTS))))


def merge(current, params, source):
    """The alert as the task wants it: current (a definition, {} for a create) with every option the task gives (None:
    keep), source (None: keep) replacing the current one. A REMOVING value removes its field (None for SENT_NULL)."""
    merged = dict((option, value) for option, value in current.items() if option != 'alert_id')
    if source:
        for option in (SEARCH_SOURCE if 'tile' in source else TILE_SOURCE):
            merged.pop(option, None)
        merged.update(source)
    for option in DESCRIBING:
        value = params.get(option)
        if value is None or (option == 'group_by' and 'tile' in merged):
            continue
        removing = option in REMOVING and value == REMOVING[option] and not isinstance(value, bool)
        if removing and option not in SENT_NULL:
            merged.pop(option, None)
        else:
            merged[option] = None if removing else value
    return merged


def body(alert):
    """The whole API body of an alert given as options: every field it has (a PUT nulls the texts left out), channels
    and channel (its first) both, thresholdMax only for the range kinds, null for the fields of SENT_NULL."""
    sent = dict(source='saved_search' if alert.get('saved_search_id') is not None else 'tile')
    if sent['source'] == 'tile':
        sent.update(dashboardId=alert.get('dashboard'), tileId=alert.get('tile'))
    else:
        sent['savedSearchId'] = alert['saved_search_id']
        if 'group_by' in alert:
            sent['groupBy'] = alert['group_by']
    for option, field in FIELDS:
        if alert.get(option) is not None and (option != 'threshold_max' or alert.get('threshold_type') in BETWEEN):
            sent[field] = alert[option]
        elif option in SENT_NULL and option in alert:
            sent[field] = None
    channels = [dict(type='webhook', webhookId=webhook) for webhook in alert.get('channels') or []]
    if channels:
        sent.update(channels=channels, channel=channels[0])
    return sent


def same(field, current, desired):
    """One field compared: channels in order (the first is the alert's channel); a start time as an instant (the server
    reads it back with milliseconds); no offset as 0."""
    if field == 'channels':
        return [item.get('webhookId') for item in current or []] == [item.get('webhookId') for item in desired or []]
    if field == 'scheduleStartAt' and current is not None and desired is not None:
        return instant(current) == instant(desired)
    if field == 'scheduleOffsetMinutes':
        return equal(current or 0, desired or 0)
    return equal(current, desired)


def plan(current, params, source):
    """(the PUT body: the whole alert, its diff), or (None, None) when nothing differs."""
    before = body(definition(current))
    after = body(merge(definition(current), params, source))
    differing = [field for field in sorted(set(before) | set(after)) if not same(field, before.get(field), after.get(field))]
    if not differing:
        return None, None
    return after, diff(before, dict((field, after.get(field)) for field in differing))


def channels_error(alerts, wanted):
    """A server that keeps one channel only cannot hold several: every run would report a change."""
    shown = next((alert for alert in alerts if 'channel' in alert and 'channels' not in alert), None)
    if wanted is None or len(wanted) < 2 or shown is None:
        return None
    return ('this server keeps one channel per alert (alert %s reads channel, and no channels), so channels cannot '
            'hold %d webhooks (%s): give one' % (_named(shown), len(wanted), ', '.join(wanted)))
