# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Observability dashboards: the one normal form of a tile (whatever form a server reads it back in),
the comparison of tiles by name and its diff, the display types that can carry alerts, the alerts a
change would delete, the local checks of the dashboard module's options, and a dashboard's definition
(the module's options that describe it)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.engine.cloud.plugins.module_utils import validate

SERIES_TYPES = ('time', 'table', 'number', 'search', 'markdown')
# The display type a series tile is stored with, by the type of its items (a time tile: line or stacked_bar).
SERIES_DISPLAY = dict(time='line', table='table', number='number', search='search', markdown='markdown')
AGG_FNS = ('avg', 'count', 'count_distinct', 'last_value', 'max', 'min', 'quantile', 'sum', 'any', 'none', 'increase')
WHERE_LANGUAGES = ('sql', 'lucene', 'promql')
DISPLAY_TYPES = ('line', 'stacked_bar', 'table', 'number', 'pie', 'bar', 'heatmap', 'search', 'markdown', 'event_patterns')
# Display types that chart a query: a config of one of them has select items (1 to 20; ONE_SELECT exactly 1).
CHARTS = ('line', 'stacked_bar', 'table', 'number', 'pie', 'bar', 'heatmap')
ONE_SELECT = ('number', 'pie', 'bar')
# The API deletes, on every dashboard PUT, the alerts of tiles of any other display type.
CAN_CARRY_ALERTS = frozenset(('line', 'stacked_bar', 'number'))

TILE_LIMITS = dict(x=(0, 23), y=(0, None), w=(1, 24), h=(1, None))
MAX_NAME, MAX_TILES, MAX_TAGS, MAX_TAG = 1024, 500, 50, 32
MAX_SELECT, MAX_GROUP_BY = 20, 10

# What a tile read in series form can show of the config form (series_config's keys and select keys).
SERIES_CONFIG_KEYS = frozenset(('displayType', 'sourceId', 'select', 'asRatio', 'groupBy', 'numberFormat', 'markdown', 'where',
                                'whereLanguage'))
SERIES_SELECT_KEYS = frozenset(('aggFn', 'alias', 'level', 'metricName', 'metricType', 'valueExpression', 'where', 'whereLanguage'))
# What the newest servers add to a config tile where it is unset (reference, "eras").
CONFIG_DEFAULTS = dict(fillNulls=True, asRatio=False)
SELECT_DEFAULTS = dict(where='', whereLanguage='lucene', valueExpression='')


# --- the two spellings of series items ----------------------------------------------------------

def camel(key):
    """source_id -> sourceId."""
    head, dummy, rest = key.partition('_')
    return head + ''.join(part[:1].upper() + part[1:] for part in rest.split('_')) if rest else head


def snake(key):
    """sourceId -> source_id."""
    return re.sub(r'(?<=[a-z0-9])([A-Z])', lambda match: '_' + match.group(1).lower(), key)


def _set(mapping):
    """mapping without its unset (None) entries."""
    return dict((key, value) for key, value in mapping.items() if value is not None)


def api_series_item(item):
    """A series item of the module's options (snake_case) in the API's camelCase."""
    return dict((camel(key), value) for key, value in _set(item).items())


def option_series_item(item):
    """A series item as the API reads it, in the module's snake_case."""
    return dict((snake(key), value) for key, value in _set(item).items())


def api_tile(tile):
    """A tile of the module's tiles option in the API's body form (without an id)."""
    body = dict((key, tile[key]) for key in ('name', 'x', 'y', 'w', 'h'))
    if tile.get('series') is not None:
        body['series'] = [api_series_item(item) for item in tile['series']]
        if tile.get('as_ratio') is not None:
            body['asRatio'] = tile['as_ratio']
    else:
        body['config'] = tile['config']
    return body


def option_tile(tile):
    """A tile as the API reads it (any era), as a tile of the module's tiles option."""
    option = dict((key, tile.get(key)) for key in ('name', 'x', 'y', 'w', 'h'))
    if tile.get('series') is not None:
        option['series'] = [option_series_item(item) for item in tile['series']]
        if tile.get('asRatio'):
            option['as_ratio'] = True
    else:
        option['config'] = _set(tile.get('config') or {})
    return option


# --- the normal form --------------------------------------------------------------------------

def _plain(value):
    """value with unset (None) dict entries left out and whole floats as ints; list order kept."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return dict((key, _plain(item)) for key, item in value.items() if item is not None)
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def series_config(tile):
    """The config form in which the API stores a series tile (reference, "how a series tile is stored"): the display
    type of the items' type (a time item's stacked_bar when the first says so, else line), one select item per
    series item; a markdown item's content and a search item's fields as the config forms of those kinds have them."""
    items = [_set(item) for item in tile['series']]
    first = items[0] if items else {}
    kind = first.get('type')
    if kind == 'markdown':
        return dict(displayType='markdown', markdown=first.get('content'))
    if kind == 'search':
        return dict(displayType='search', sourceId=first.get('sourceId'), select=','.join(first.get('fields') or []),
                    where=first.get('where') or '', whereLanguage=first.get('whereLanguage') or 'lucene')
    display = 'stacked_bar' if kind == 'time' and first.get('displayType') == 'stacked_bar' else SERIES_DISPLAY.get(kind, 'line')
    config = dict(displayType=display, sourceId=first.get('sourceId'), select=[_select_of(item) for item in items],
                  asRatio=bool(tile.get('asRatio')) and len(items) == 2)
    if first.get('groupBy'):
        config['groupBy'] = ','.join(first['groupBy'])
    formats = [item['numberFormat'] for item in items if item.get('numberFormat') is not None]
    if formats:
        config['numberFormat'] = formats[0]
    return config


def _select_of(item):
    select = dict((key, item[key]) for key in ('aggFn', 'alias', 'level', 'metricName') if item.get(key) is not None)
    if item.get('metricDataType') is not None:
        select['metricType'] = item['metricDataType']
    select.update(valueExpression=item.get('field') or '', where=item.get('where') or '',
                  whereLanguage=item.get('whereLanguage') or 'lucene')
    return select


def normal_config(config):
    """A config with the defaults the newest servers add where it leaves them unset."""
    normal = dict(CONFIG_DEFAULTS)
    normal.update(_set(config))
    normal['asRatio'] = bool(normal['asRatio'])
    if normal.get('displayType') == 'search':
        normal.setdefault('where', '')
        normal.setdefault('whereLanguage', 'lucene')
    if isinstance(normal.get('select'), list):
        normal['select'] = [dict(SELECT_DEFAULTS, **_set(item)) if isinstance(item, dict) else item for item in normal['select']]
    return normal


def normal_tile(tile):
    """The one form in which tiles compare: name, position, size and the tile's config as the newest servers
    store it, defaults added; without the id. tile is in the API's form: as the module sends it (series or
    config), or as a server of any era reads it back (as sent, series form, config form)."""
    config = series_config(tile) if tile.get('series') is not None else tile.get('config') or {}
    normal = dict((key, tile.get(key)) for key in ('name', 'x', 'y', 'w', 'h'))
    normal['config'] = normal_config(config)
    return _plain(normal)


def display_type(tile):
    """The display type of a tile in the API's form (any era): what decides whether it can carry alerts."""
    return normal_tile(tile)['config'].get('displayType')


def by_name(tiles):
    return dict((tile.get('name'), tile) for tile in tiles)


# --- comparison and diff --------------------------------------------------------------------------

def _normal_pairs(current, desired):
    """(current normal tiles by name, desired normal tiles by name), each desired tile in what the read form of the
    current tile of its name can show (see seen_as)."""
    read = by_name(current)
    desired_normal = by_name(seen_as(normal_tile(tile), read.get(tile.get('name'))) for tile in desired)
    return by_name(normal_tile(tile) for tile in current), desired_normal


def seen_as(normal, current):
    """A normal tile as a read in the form of current (a tile as read) can show it. The series form cannot hold what
    only the config form has (fillNulls, having, orderBy, a select item's numberFormat, a number tile's groupBy...):
    a server that reads tiles in series form shows none of it, so none of it is compared (it is sent with any update)."""
    if current is None or current.get('series') is None:
        return normal
    config = dict((key, value) for key, value in normal['config'].items() if key in SERIES_CONFIG_KEYS)
    if config.get('displayType') == 'number':
        config.pop('groupBy', None)
    if isinstance(config.get('select'), list):
        config['select'] = [dict((key, value) for key, value in item.items() if key in SERIES_SELECT_KEYS) if isinstance(item, dict) else item
                            for item in config['select']]
    return dict(normal, config=normal_config(config))


def tiles_differ(current, desired):
    """Whether the tiles read (API form, any era) differ from the desired ones (API form) in the normal form;
    the order of the list does not count (a tile's place is x and y)."""
    current_normal, desired_normal = _normal_pairs(current, desired)
    return len(current_normal) != len(current) or current_normal != desired_normal


def tiles_diff(current, desired):
    """(before, after): the tiles by name, with only what differs; a tile added shows only after, a tile removed
    only before; both empty when nothing differs."""
    current_normal, desired_normal = _normal_pairs(current, desired)
    before, after = {}, {}
    for name in list(desired_normal) + [name for name in current_normal if name not in desired_normal]:
        was, will = current_normal.get(name), desired_normal.get(name)
        if was is None or will is None:
            shown = (after if was is None else before)
            shown[name] = dict((key, value) for key, value in (was or will).items() if key != 'name')
            continue
        old, new = differing(was, will)
        if old or new:
            before[name], after[name] = old, new
    return before, after


def differing(old, new):
    """(old's part, new's part) of two dicts that differ: nested dicts down to the keys that differ."""
    old_part, new_part = {}, {}
    for key in list(old) + [key for key in new if key not in old]:
        was, will = old.get(key), new.get(key)
        if isinstance(was, dict) and isinstance(will, dict):
            was, will = differing(was, will)
            if not was and not will:
                continue
        elif was == will:
            continue
        if key in old:
            old_part[key] = was
        if key in new:
            new_part[key] = will
    return old_part, new_part


def kept_tags(tags):
    """tags as the server keeps them: duplicates removed, the first kept."""
    kept = []
    for tag in tags:
        if tag not in kept:
            kept.append(tag)
    return kept


# --- the update and the alerts it deletes -----------------------------------------------------------

def with_ids(current_tiles, desired):
    """The desired tiles (API form), each one whose name a tile read has carrying that tile's id, so that it and
    its alerts survive the PUT; a new or renamed tile has none."""
    ids = {}
    for tile in current_tiles:
        ids.setdefault(tile.get('name'), tile.get('id'))
    return [dict(tile, id=ids[tile['name']]) if ids.get(tile['name']) is not None else dict(tile) for tile in desired]


def desired_tiles(params, current):
    """The tiles the task wants, in the API's form: its tiles option, or (left out) the tiles as read."""
    if params.get('tiles') is None:
        return list(current.get('tiles') or [])
    return [api_tile(tile) for tile in params['tiles']]


def plan(params, current):
    """(the PUT body, the diff) that bring the dashboard current to the task's options; ({}, None) when nothing
    differs. The diff shows the name and tags that differ and the tiles by name, with only what differs."""
    tiles, wanted = current.get('tiles') or [], desired_tiles(params, current)
    before, after = {}, {}
    if params.get('name') is not None and params['name'] != current.get('name'):
        before['name'], after['name'] = current.get('name'), params['name']
    if params.get('tags') is not None and kept_tags(params['tags']) != list(current.get('tags') or []):
        before['tags'], after['tags'] = list(current.get('tags') or []), kept_tags(params['tags'])
    if tiles_differ(tiles, wanted):
        before['tiles'], after['tiles'] = tiles_diff(tiles, wanted)
    if not after and not before:
        return {}, None
    body = update_body(params.get('name') or current.get('name'), with_ids(tiles, wanted), params.get('tags'))
    return body, dict(before=before, after=after)


def create_body(params):
    """The POST body of a new dashboard: name, tiles ([] when left out), tags when given."""
    return update_body(params['name'], desired_tiles(params, {}), params.get('tags'))


def predicted(current, body):
    """The dashboard as a PUT of body would leave it (check mode): kept tiles keep their ids, new ones have none."""
    dashboard = dict(current, name=body['name'], tiles=body['tiles'])
    if 'tags' in body:
        dashboard['tags'] = body['tags']
    return dashboard


def with_alerts(diff, alerts):
    """diff, naming in before.alerts (and an empty after.alerts) the alerts the change deletes."""
    if not alerts:
        return diff
    before, after = dict(diff['before']), dict(diff['after'])
    before['alerts'] = ['%s (%s)' % (alert['name'], alert['id']) for alert in alerts]
    after['alerts'] = []
    return dict(before=before, after=after)


def update_body(name, tiles, tags):
    """The PUT body: name, the tiles (with the ids of kept tiles), tags only when the task gives them."""
    body = dict(name=name, tiles=tiles)
    if tags is not None:
        body['tags'] = kept_tags(tags)
    return body


def alert_dashboard(alert):
    """The id of an alert's dashboard (newer servers: dashboardId; the contract's form: dashboard)."""
    return alert.get('dashboardId') or alert.get('dashboard')


def dashboard_alerts(alerts, dashboard_id):
    """The tile alerts of one dashboard."""
    return [alert for alert in alerts if alert.get('source', 'tile') == 'tile' and alert_dashboard(alert) == dashboard_id]


def deleted_by_update(alerts, dashboard, body_tiles):
    """The alerts that a PUT of body_tiles would delete: those of the dashboard's stored tiles whose id the body
    does not carry (a tile removed or renamed, and PromQL tiles, which reads leave out), and those of tiles whose
    display type cannot carry alerts."""
    kept = dict((tile['id'], display_type(tile)) for tile in body_tiles if tile.get('id') is not None)
    names = dict((tile.get('id'), tile.get('name')) for tile in dashboard.get('tiles') or [])
    doomed = []
    for alert in dashboard_alerts(alerts, dashboard['id']):
        tile_id = alert.get('tileId')
        if tile_id not in kept:
            why = 'its tile is left out' if tile_id in names else 'its tile is not in reads (a PromQL tile?) and a PUT drops it'
        elif kept[tile_id] not in CAN_CARRY_ALERTS:
            why = 'its tile becomes a %s tile, which cannot carry alerts' % kept[tile_id]
        else:
            continue
        doomed.append(named_alert(alert, names.get(tile_id), why))
    return doomed


def deleted_by_delete(alerts, dashboard):
    """The alerts that deleting the dashboard deletes: every alert on its tiles."""
    names = dict((tile.get('id'), tile.get('name')) for tile in dashboard.get('tiles') or [])
    return [named_alert(alert, names.get(alert.get('tileId')), 'its dashboard is deleted')
            for alert in dashboard_alerts(alerts, dashboard['id'])]


def named_alert(alert, tile_name, why):
    return dict(id=alert.get('id'), name=alert.get('name'), tile_id=alert.get('tileId'), tile=tile_name, reason=why)


def alerts_text(alerts):
    """'High CPU' (65c...01) on tile CPU usage: its tile is left out; ..."""
    return '; '.join('%s (%s) on tile %s: %s' % (json.dumps(alert['name']), alert['id'], json.dumps(alert['tile']), alert['reason'])
                     for alert in alerts)


# --- the definition of a dashboard ---------------------------------------------------------------------

def definition(dashboard):
    """The options of the dashboard module that describe dashboard as read: fed back, nothing differs."""
    return dict(dashboard_id=dashboard.get('id'), name=dashboard.get('name'), tags=list(dashboard.get('tags') or []),
                tiles=[option_tile(tile) for tile in dashboard.get('tiles') or []])


# --- local checks of the options --------------------------------------------------------------------

def option_errors(params):
    """A message for each bad option value, before any request."""
    errors = [validate.object_id('dashboard_id', params.get('dashboard_id')),
              validate.max_length('name', params.get('name'), MAX_NAME)]
    if params.get('name') is not None and not params['name'].strip():
        errors.append('name must not be empty')
    errors.extend(tag_errors(params.get('tags')))
    errors.extend(tiles_errors(params.get('tiles')))
    return [error for error in errors if error]


def tag_errors(tags):
    if tags is None:
        return []
    errors = ['tags[%d] must be at most %d characters long, got %d' % (index, MAX_TAG, len(tag))
              for index, tag in enumerate(tags) if len(tag) > MAX_TAG]
    if len(kept_tags(tags)) > MAX_TAGS:
        errors.append('tags must hold at most %d different tags, got %d' % (MAX_TAGS, len(kept_tags(tags))))
    return errors


def tiles_errors(tiles):
    if tiles is None:
        return []
    errors = [] if len(tiles) <= MAX_TILES else ['tiles must hold at most %d tiles, got %d' % (MAX_TILES, len(tiles))]
    seen = set()
    for index, tile in enumerate(tiles):
        errors.extend(tile_errors('tiles[%d]' % index, tile))
        if tile.get('name') in seen:
            errors.append('tiles[%d].name: two tiles are named %s; a tile name must be unique on the dashboard (it is the '
                          "tile's identity)" % (index, json.dumps(tile['name'])))
        seen.add(tile.get('name'))
    return errors


def tile_errors(where, tile):
    errors = ['%s.name must not be empty' % where] if not (tile.get('name') or '').strip() else []
    for key, (low, high) in sorted(TILE_LIMITS.items()):
        errors.append(validate.number_range('%s.%s' % (where, key), tile.get(key), low, high))
    if (tile.get('series') is None) == (tile.get('config') is None):
        errors.append('%s must have exactly one of series and config' % where)
    elif tile.get('series') is not None:
        errors.extend(series_errors(where, tile['series']))
    else:
        if tile.get('as_ratio') is not None:
            errors.append('%s.as_ratio goes with series only; in config form, set asRatio in config' % where)
        errors.extend(config_errors('%s.config' % where, tile['config']))
    return [error for error in errors if error]


def series_errors(where, series):
    if not series:
        return ['%s.series must hold at least one item' % where]
    types = sorted(set(item.get('type') for item in series), key=str)
    errors = [] if len(types) == 1 else ['%s.series must be all of one type, got %s' % (where, ', '.join(map(str, types)))]
    for index, item in enumerate(series):
        at = '%s.series[%d]' % (where, index)
        errors.append(validate.number_range(at + '.level', item.get('level'), 0, 1))
        if item.get('group_by') is not None and len(item['group_by']) > MAX_GROUP_BY:
            errors.append('%s.group_by must hold at most %d fields, got %d' % (at, MAX_GROUP_BY, len(item['group_by'])))
    return errors


def config_errors(where, config):
    display = config.get('displayType')
    if display not in DISPLAY_TYPES:
        return ['%s.displayType must be one of %s, got %s' % (where, ', '.join(DISPLAY_TYPES), json.dumps(display))]
    select = config.get('select')
    errors = []
    if display in CHARTS:
        wanted = (1, 1) if display in ONE_SELECT else (1, MAX_SELECT)
        if not isinstance(select, list) or not wanted[0] <= len(select) <= wanted[1]:
            errors.append('%s.select of a %s tile must hold %s items, got %s' % (
                where, display, 'exactly 1' if wanted == (1, 1) else 'between 1 and %d' % MAX_SELECT,
                len(select) if isinstance(select, list) else json.dumps(select)))
        else:
            errors.extend(select_errors(where, select))
    if config.get('asRatio') and (not isinstance(select, list) or len(select) != 2):
        errors.append('%s.asRatio needs exactly 2 select items' % where)
    return errors


def select_errors(where, select):
    errors = []
    for index, item in enumerate(select):
        at = '%s.select[%d]' % (where, index)
        if not isinstance(item, dict):
            errors.append('%s must be a dictionary' % at)
            continue
        if item.get('aggFn') not in AGG_FNS:
            errors.append('%s.aggFn must be one of %s, got %s' % (at, ', '.join(AGG_FNS), json.dumps(item.get('aggFn'))))
        if item.get('whereLanguage') is not None and item['whereLanguage'] not in WHERE_LANGUAGES:
            errors.append('%s.whereLanguage must be one of %s, got %s' % (at, ', '.join(WHERE_LANGUAGES), json.dumps(item['whereLanguage'])))
        errors.append(validate.number_range(at + '.level', item.get('level'), 0, 1))
    return [error for error in errors if error]
