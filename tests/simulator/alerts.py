"""Alerts of the observability API: list (paged or not), read, create, update, delete.

Alerts are kept in one internal form (state.internal_alert: ``teamId``, ``dashboardId``, ``channels``, every text key);
``render`` shows them as the configured era reads them (config keys ``alert_read_form``,
``alert_channels``, ``alert_version``).
"""

import re
import time
from datetime import datetime, timezone

from . import dashboards, server
from .checks import MISSING, OBJECT_ID, Problems
from .state import ALERT_TEXTS, internal_alert

THRESHOLD_TYPES = ('above', 'below', 'above_exclusive', 'below_or_equal', 'equal', 'not_equal', 'between', 'not_between')
BETWEEN = ('between', 'not_between')
INTERVALS = ('1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d')
SOURCES = ('tile', 'saved_search')
NULLED_ON_UPDATE = ALERT_TEXTS
KEPT_ON_UPDATE = ('thresholdMax', 'scheduleStartAt', 'scheduleOffsetMinutes')
READ_ORDER = ('id', 'name', 'message', 'note', 'threshold', 'thresholdMax', 'interval', 'thresholdType', 'source', 'state',
              'channel', 'channels', 'teamId', 'tileId', 'dashboardId', 'savedSearchId', 'groupBy', 'numConsecutiveWindows',
              'scheduleOffsetMinutes', 'scheduleStartAt', 'silenced', 'executionErrors', 'createdAt', 'updatedAt')
OMITTED_WHEN_UNSET = ('channel', 'thresholdMax', 'tileId', 'dashboardId', 'savedSearchId', 'groupBy', 'scheduleOffsetMinutes', 'scheduleStartAt',
                      'silenced', 'executionErrors')  # the read's optional keys (texts read null instead)
ALERT_QUERY = {'limit': (1, 1000), 'offset': (0, None)}
GENERATED_ALERT_EPOCH = 1727740800  # 2024-10-01T00:00:00Z, after every fixture alert
INTERVAL_MINUTES = {'1m': 1, '5m': 5, '15m': 15, '30m': 30, '1h': 60, '6h': 360, '12h': 720, '1d': 1440}
# scheduleStartAt: a UTC date-time ending in Z (an offset, a time without a zone or a bare date: Invalid datetime)
UTC_DATETIME = re.compile(r'(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z')
# The version from which a server keeps each alert field (reference, "older servers"); an older one drops the field as
# an unknown key, and its reads never show it. Before 2.24 the between kinds are unknown values too.
SINCE = {'channels': (2, 36), 'numConsecutiveWindows': (2, 30), 'note': (2, 25), 'thresholdMax': (2, 24),
         'scheduleOffsetMinutes': (2, 21), 'scheduleStartAt': (2, 21)}
PAGING_SINCE = (2, 30)  # paging of the listing, and 404 for a delete of a missing alert


class QueryError(Exception):
    """A bad query string of the listing."""


def not_found():
    return server.Response.json(404, {'message': 'Alert not found'})


def message(status, text):
    return server.Response.json(status, {'message': text})


# Internal form ---------------------------------------------------------------------------------------

def version(store):
    """The alert version the simulator plays (config key ``alert_version``), as a tuple."""
    return tuple(int(part) for part in store.config['alert_version'].split('.'))


def knows(store, field):
    """Whether the server keeps this alert field; ``channels`` also needs the ``alert_channels`` switch."""
    return version(store) >= SINCE.get(field, (0,)) and (field != 'channels' or store.config['alert_channels'])


def render(store, alert, known=None):
    """An alert as reads show it: ``teamId``/``dashboardId`` (current) or ``team``/``dashboard`` (the contract's
    older form); only the fields the server's version keeps; ``channels`` only on servers that know it. A legacy
    alert (no usable channel) reads with neither ``channel`` nor ``channels`` where ``channels`` is known, and with
    ``channel`` as stored before. ``known``: a Known of the store, for a listing that renders thousands."""
    known = known if known is not None else Known(store)
    contract = store.config['alert_read_form'] == 'contract'
    shown = {}
    for key in READ_ORDER + tuple(sorted(set(alert) - set(READ_ORDER))):
        if _is_shown(alert, key, known):
            shown[key[:-2] if contract and key in ('teamId', 'dashboardId') else key] = alert[key]
    return shown


class Known(dict):
    """knows(store, field) for each field asked, worked out once: a listing renders thousands of alerts (the unit
    tests of alert_info asked knows() 2 million times, a third of their time)."""

    def __init__(self, store):
        super().__init__()
        self.store = store

    def __missing__(self, field):
        self[field] = answer = knows(self.store, field)
        return answer


def _is_shown(alert, key, known):
    if key not in alert or key in OMITTED_WHEN_UNSET and alert[key] is None or not known[key]:
        return False
    if key == 'channel' and known['channels']:
        return bool(alert['channels'])
    return key != 'channels' or bool(alert['channels'])


def all_alerts(store, tenant=None):
    """Every alert of the team (default: the fixture's) as the listing shows it (``alert_count`` generated ones too, in the
    fixture's team), ordered by createdAt then id."""
    tenant = tenant or store.primary
    fixed = store.fixtures['dashboards'][:2]  # Service health and Ingestion, whatever the tests did to them
    count = store.config['alert_count'] if tenant is store.primary else 0
    generated = [_generated_alert(store, fixed, index) for index in range(count)]
    known = Known(store)
    alerts = [alert for alert in store.alerts if alert['teamId'] == tenant.team['id']] + generated
    return [render(store, alert, known) for alert in sorted(alerts, key=lambda alert: (alert['createdAt'], alert['id']))]


def _generated_alert(store, fixed, index):
    dashboard = fixed[index % len(fixed)]
    tile = dashboard['tiles'][index % len(dashboard['tiles'])]
    stamp = time.strftime('%Y-%m-%dT%H:%M:%S.000Z', time.gmtime(GENERATED_ALERT_EPOCH + index * 60))
    states = ('OK', 'ALERT', 'inactive', 'INSUFFICIENT_DATA', 'DISABLED')
    return internal_alert({
        'id': '66%022x' % index, 'name': 'Generated alert %d' % index, 'message': 'Generated for scale tests',
        'threshold': index % 100, 'interval': ('1m', '5m', '15m', '1h')[index % 4],
        'thresholdType': ('above', 'below')[index % 2], 'source': 'tile', 'state': states[index % len(states)],
        'channel': {'type': 'webhook', 'webhookId': store.fixtures['webhooks'][0]['id']}, 'teamId': store.fixtures['team']['id'],
        'tileId': tile['id'], 'dashboardId': dashboard['id'], 'createdAt': stamp, 'updatedAt': stamp,
    })


# Operations ----------------------------------------------------------------------------------------

def list_alerts(store, tenant, pairs):
    """GET /api/v2/alerts, paged (newer servers) or all at once (older servers)."""
    paging = store.config['alerts_paging'] and version(store) >= PAGING_SINCE
    try:
        query = _alert_query(pairs, paging)
    except QueryError as exc:
        return message(400, 'Query validation failed: ' + str(exc))
    alerts = all_alerts(store, tenant)
    if not paging:
        return server.Response.json(200, {'data': alerts})
    page = alerts[query['offset']:query['offset'] + query['limit']]
    meta = {'total': len(alerts), 'limit': query['limit'], 'offset': query['offset']}
    return server.Response.json(200, {'data': page, 'meta': meta}, {'X-Total-Count': len(alerts)})


def _alert_query(pairs, paging):
    query, problems = {'limit': 1000, 'offset': 0}, []
    for name, value in pairs:
        if name not in ALERT_QUERY:
            problems.append("Unrecognized key(s) in object: '%s'" % name)
        elif paging:
            low, high = ALERT_QUERY[name]
            if not re.fullmatch(r'-?[0-9]+', value):
                problems.append('%s: Expected integer, received %r' % (name, value))
            elif int(value) < low:
                problems.append('%s: Number must be greater than or equal to %d' % (name, low))
            elif high is not None and int(value) > high:
                problems.append('%s: Number must be less than or equal to %d' % (name, high))
            else:
                query[name] = int(value)
    if problems:
        raise QueryError('; '.join(problems))
    return query


def get_alert(store, tenant, alert_id):
    """GET /api/v2/alerts/{id}."""
    alert, error = _find(store, tenant, alert_id)
    return error or server.Response.json(200, {'data': render(store, alert)})


def create_alert(store, tenant, body):
    """POST /api/v2/alerts."""
    fields, error = validate(store, body, {})
    error = error or lookups(store, tenant, body, fields)
    if error:
        return error
    stamp = store.now_iso()
    alert = internal_alert(dict({'id': store.new_id(), 'teamId': tenant.team['id'], 'state': 'OK'}, **fields))
    alert.update(createdAt=stamp, updatedAt=stamp)
    store.alerts.append(alert)
    return dashboards.slow_create(store) or server.Response.json(200, {'data': render(store, alert)})


def update_alert(store, tenant, alert_id, body):
    """PUT /api/v2/alerts/{id}: the create body; nulls name, message, note and numConsecutiveWindows when left
    out, keeps thresholdMax, scheduleStartAt and scheduleOffsetMinutes when left out."""
    if not OBJECT_ID.fullmatch(alert_id):
        return dashboards.bad_id()
    alert, missing = _find(store, tenant, alert_id)
    fields, error = validate(store, body, alert or {})
    error = error or missing or lookups(store, tenant, body, fields)
    if error:
        return error
    kept = {key: alert[key] for key in KEPT_ON_UPDATE if key in alert}
    server_side = {key: alert[key] for key in ('id', 'teamId', 'state', 'silenced', 'executionErrors', 'createdAt') if key in alert}
    alert.clear()
    new = dict(server_side)
    for layer in ({key: None for key in NULLED_ON_UPDATE}, kept, fields):
        new.update(layer)
    alert.update(internal_alert(new))
    alert['updatedAt'] = store.now_iso()
    return server.Response.json(200, {'data': render(store, alert)})


def delete_alert(store, tenant, alert_id):
    """DELETE /api/v2/alerts/{id}: 200 {}; a missing alert is a 404 on newer servers, 200 on older ones."""
    alert, error = _find(store, tenant, alert_id)
    if alert is not None:
        store.alerts.remove(alert)
        return server.Response.json(200, {})
    if error.status == 404 and (store.config['alert_delete_missing'] == 200 or version(store) < PAGING_SINCE):
        return server.Response.json(200, {})
    return error


def _find(store, tenant, alert_id):
    if not OBJECT_ID.fullmatch(alert_id):
        return None, dashboards.bad_id()
    alert = next((alert for alert in store.alerts if alert['id'] == alert_id.lower() and alert['teamId'] == tenant.team['id']), None)
    return (alert, None) if alert is not None else (None, not_found())


# Validation ----------------------------------------------------------------------------------------

def validate(store, body, current):
    """(the fields the body sets, None) or (None, the 400 answer listing every problem). ``current`` is the
    stored alert of an update (its kept thresholdMax counts for the between rule), {} for a create."""
    problems = Problems()
    if not isinstance(body, dict):
        problems.typed('', body, 'object')
        return None, dashboards.refused(problems)
    body = {key: value for key, value in body.items() if key == 'channels' or knows(store, key)}  # unknown keys dropped
    kinds = THRESHOLD_TYPES if knows(store, 'thresholdMax') else tuple(kind for kind in THRESHOLD_TYPES if kind not in BETWEEN)
    fields = _checked_fields(problems, body, kinds, store.clock.time())
    if fields.get('source') == 'saved_search':
        _saved_search_fields(problems, body)
    _between(problems, body, fields, current)
    _schedule(problems, body, fields, current)
    channels = _channels(store, problems, body)
    if problems:
        return None, dashboards.refused(problems)
    fields.update(channels)
    return fields, None


def lookups(store, tenant, body, fields):
    """After validation: the 400 answer for webhooks, a dashboard, a tile or a saved search the team does not
    have, else None (the tile or saved search is then kept in fields)."""
    return _known_webhooks(tenant, fields['channels']) or _source(store, tenant, body, fields)


def _checked_fields(problems, body, kinds, now):
    fields = {}
    for key, check in (('threshold', problems.number),
                       ('thresholdType', lambda path, value: problems.enum(path, value, kinds)),
                       ('interval', lambda path, value: problems.enum(path, value, INTERVALS)),
                       ('source', lambda path, value: problems.enum(path, value, SOURCES))):
        if problems.present(key, body.get(key, MISSING)) and check(key, body[key]):
            fields[key] = body[key]
    for key, high in (('name', 512), ('message', 4096), ('note', 4096)):
        if key in body and (body[key] is None or problems.string(key, body[key], 1, high)):
            fields[key] = body[key]
    optional = (('thresholdMax', problems.number),
                ('numConsecutiveWindows', lambda path, value: value is None or problems.number(path, value, 1, integer=True)),
                ('scheduleOffsetMinutes', lambda path, value: value is None or problems.number(path, value, 0, 1439, integer=True)),
                ('scheduleStartAt', _schedule_start(problems, now)))
    for key, check in optional:
        if key in body and check(key, body[key]):
            fields[key] = stored_instant(body[key]) if key == 'scheduleStartAt' else body[key]
    return fields


def _schedule_start(problems, now):
    """scheduleStartAt: null, or a UTC date-time ending in Z within one year ahead and ten years back of now."""
    def check(path, value):
        if value is None:
            return True
        if not problems.typed(path, value, 'string'):
            return False
        moment = _instant(value)
        if moment is None:
            return problems.add(path, 'Invalid datetime')
        today = datetime.fromtimestamp(now, tz=timezone.utc)
        if not _years_from(today, -10) <= moment <= _years_from(today, 1):
            return problems.add(path, 'Date must be within one year ahead and ten years back')
        return True
    return check


def _instant(text):
    """The UTC datetime of a date-time the server takes (see UTC_DATETIME), else None."""
    match = UTC_DATETIME.fullmatch(text)
    if match is None:
        return None
    try:
        moment = datetime(*(int(part) for part in match.groups()[:6]), tzinfo=timezone.utc)
    except ValueError:
        return None
    return moment.replace(microsecond=int((match.group(7) or '0')[:3].ljust(3, '0')) * 1000)


def _years_from(moment, years):
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:  # 29 February
        return moment.replace(year=moment.year + years, day=28)


def stored_instant(value):
    """scheduleStartAt as the server stores it (a date) and reads it back: ISO with milliseconds, finer digits cut."""
    if value is None:
        return None
    return _instant(value).strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (_instant(value).microsecond // 1000)


def _schedule(problems, body, fields, current):
    """scheduleOffsetMinutes below the interval's minutes, and 0 when scheduleStartAt is set (the values a PUT keeps count)."""
    offset = fields.get('scheduleOffsetMinutes') if 'scheduleOffsetMinutes' in body else current.get('scheduleOffsetMinutes')
    start = fields.get('scheduleStartAt') if 'scheduleStartAt' in body else current.get('scheduleStartAt')
    if isinstance(offset, bool) or not isinstance(offset, (int, float)) or not offset:
        return
    minutes = INTERVAL_MINUTES.get(fields.get('interval'))
    if minutes is not None and offset >= minutes:
        problems.add('scheduleOffsetMinutes', 'Must be less than the interval in minutes (%d)' % minutes)
    if start is not None:
        problems.add('scheduleOffsetMinutes', 'Must be 0 when scheduleStartAt is set')


def _between(problems, body, fields, current):
    kind = fields.get('thresholdType')
    maximum = fields.get('thresholdMax', current.get('thresholdMax'))
    if kind in BETWEEN and maximum is None:
        problems.add('thresholdMax', 'Required for thresholdType %s' % kind)
    elif 'threshold' in fields and maximum is not None and (kind in BETWEEN or 'thresholdMax' in body) and maximum < fields['threshold']:
        problems.add('thresholdMax', 'Must be greater than or equal to threshold')


def _channel(problems, path, value):
    if not problems.typed(path, value, 'object'):
        return None
    if problems.present(path + '.type', value.get('type', MISSING)):
        problems.enum(path + '.type', value['type'], ('webhook',))
    if problems.present(path + '.webhookId', value.get('webhookId', MISSING)):
        problems.typed(path + '.webhookId', value['webhookId'], 'string')  # an object id, checked with the lookups
    return {'type': value.get('type'), 'webhookId': value.get('webhookId')}


def _channels(store, problems, body):
    """{'channel', 'channels'} as the server keeps them: servers that know ``channels`` check it (1 to 10, no
    duplicates, ``channel`` equal to its first); older ones drop it and need ``channel``."""
    channel = _channel(problems, 'channel', body['channel']) if 'channel' in body else None
    if not knows(store, 'channels') or 'channels' not in body:
        if channel is None and 'channel' not in body:
            problems.add('channel', 'Required' if not knows(store, 'channels') else 'Provide either "channel" or "channels"')
        return {'channel': channel, 'channels': [channel]}
    if not problems.array('channels', body['channels'], 1, 10):
        return {}
    channels = [_channel(problems, 'channels.%d' % index, item) for index, item in enumerate(body['channels'])]
    if any(channels.count(item) > 1 for item in channels):
        problems.add('channels', 'Channels must be unique')
    elif channel is not None and channels and channel != channels[0]:
        problems.add('channel', 'Must equal channels[0] when both are sent')
    return {'channel': channels[0] if channels else None, 'channels': channels}


def _known_webhooks(tenant, channels):
    """The 400 answer for the first channel whose webhook id is not an object id, or not one of the team's webhooks."""
    for channel in channels:
        if not OBJECT_ID.fullmatch(channel['webhookId']):
            return message(400, 'Invalid webhook ID')
        if channel['webhookId'].lower() not in tenant.webhook_ids():
            return message(400, 'Webhook not found')
    return None


def _source(store, tenant, body, fields):
    """Check and keep the tile (dashboardId, tileId) or the saved search (savedSearchId, groupBy) of the body."""
    if fields['source'] == 'saved_search':
        return _saved_search(tenant, body, fields)
    dashboard_id, tile_id = body.get('dashboardId'), body.get('tileId')
    if not isinstance(dashboard_id, str) or not OBJECT_ID.fullmatch(dashboard_id):
        return message(400, 'Invalid dashboard ID')
    dashboard = store.dashboards.get(dashboard_id.lower())
    if dashboard is None or store.team_of(dashboard) != tenant.team['id']:
        return message(400, 'Dashboard not found')
    if not any(tile['id'] == tile_id for tile in dashboard['tiles']):
        return message(400, 'Tile not found')
    fields.update(dashboardId=dashboard['id'], tileId=tile_id)
    return None


def _saved_search_fields(problems, body):
    if problems.present('savedSearchId', body.get('savedSearchId', MISSING)):
        problems.object_id('savedSearchId', body['savedSearchId'])
    if body.get('groupBy') is not None:
        problems.string('groupBy', body['groupBy'])


def _saved_search(tenant, body, fields):
    if body['savedSearchId'].lower() not in {search['id'] for search in tenant.saved_searches}:
        return message(400, 'Saved search not found')
    fields['savedSearchId'] = body['savedSearchId'].lower()
    if body.get('groupBy') is not None:
        fields['groupBy'] = body['groupBy']
    return None
