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
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets

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

# The config schema by display type (reference, "more of the config form"): the server drops any other key, so a
# task's key outside it fails before any request; every key in it is sent, stored, read back and compared.
RAW_SQL = ('configType', 'connectionId', 'sqlTemplate')
RAW_SQL_DISPLAY = ('line', 'stacked_bar', 'table', 'number', 'pie', 'bar')
_CHART = ('displayType', 'sourceId', 'select', 'groupBy', 'numberFormat')
CONFIG_KEYS = dict(
    line=_CHART + RAW_SQL + ('asRatio', 'fillNulls', 'fitYAxisToData', 'compareToPreviousPeriod', 'alignDateRangeToGranularity',
                             'seriesLimit', 'formulas', 'showOperandSeries'),
    stacked_bar=_CHART + RAW_SQL + ('asRatio', 'fillNulls', 'alignDateRangeToGranularity', 'seriesLimit', 'formulas', 'showOperandSeries'),
    table=_CHART + RAW_SQL + ('asRatio', 'formulas', 'showOperandSeries', 'having', 'orderBy', 'groupByColumnsOnLeft', 'onClick'),
    number=_CHART + RAW_SQL + ('formulas', 'color', 'colorRules', 'backgroundChart'),
    pie=_CHART + RAW_SQL + ('orderBy', 'limit'), bar=_CHART + RAW_SQL + ('orderBy', 'limit'),
    heatmap=_CHART, event_patterns=_CHART,
    search=('displayType', 'sourceId', 'select', 'where', 'whereLanguage'), markdown=('displayType', 'markdown'))
SELECT_KEYS = ('aggFn', 'valueExpression', 'alias', 'level', 'where', 'whereLanguage', 'numberFormat', 'metricType', 'metricName',
               'periodAggFn')
HEATMAP_SELECT_KEYS = SELECT_KEYS + ('countExpression', 'heatmapScaleType')
# The only levels a config takes (with quantile), and the only levels any read shows.
LEVELS = (0.5, 0.9, 0.95, 0.99)
# A series of these types is stored from its first item only.
SINGLE_ITEM_SERIES = ('number', 'search', 'markdown')
MAX_PLACE = 256  # containerId, tabId
PROMQL = ('PromQL tiles cannot be managed: the server leaves them out of every read, so every run would send the tile again '
          'with a new id (and delete the alerts on the old one)')

# What a tile read in series form can show of the config form (series_config's keys and select keys).
SERIES_CONFIG_KEYS = frozenset(('displayType', 'sourceId', 'select', 'asRatio', 'groupBy', 'numberFormat', 'markdown', 'where',
                                'whereLanguage'))
SERIES_SELECT_KEYS = frozenset(('aggFn', 'alias', 'level', 'metricName', 'metricType', 'valueExpression', 'where', 'whereLanguage'))
# What the newest servers add to a config tile where it is unset (reference, "eras"): fillNulls on line and
# stacked_bar tiles (raw SQL ones too), asRatio on the builder's line, stacked_bar and table tiles.
FILL_NULLS = ('line', 'stacked_bar')
AS_RATIO = ('line', 'stacked_bar', 'table')
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


PLACES = (('container_id', 'containerId'), ('tab_id', 'tabId'))


def api_tile(tile):
    """A tile of the module's tiles option in the API's body form (without an id); an empty container_id or tab_id
    (a tile taken out of its section) is left out."""
    body = dict((key, tile[key]) for key in ('name', 'x', 'y', 'w', 'h'))
    body.update((api, tile[option]) for option, api in PLACES if tile.get(option))
    if tile.get('series') is not None:
        body['series'] = [api_series_item(item) for item in tile['series']]
        if tile.get('as_ratio') is not None:
            body['asRatio'] = tile['as_ratio']
    else:
        body['config'] = tile['config']
    return body


def option_tile(tile):
    """A tile as the API reads it (any era), as a tile of the module's tiles option: a number, search or markdown
    series with its first item only (all the server keeps), the tile's section and tab when it has them."""
    option = dict((key, tile.get(key)) for key in ('name', 'x', 'y', 'w', 'h'))
    option.update((name, tile[api]) for name, api in PLACES if tile.get(api))
    if tile.get('series') is not None:
        items = tile['series'][:1] if tile['series'] and tile['series'][0].get('type') in SINGLE_ITEM_SERIES else tile['series']
        option['series'] = [option_series_item(item) for item in items]
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
    """The config form in which the API stores a series tile (reference, "how a series tile is stored" and "what reads
    keep of a series"): the display type of the items' type (a time item's stacked_bar when the first says so, else
    line), one select item per series item; a number series its first item only and no groupBy; a search series its
    fields joined with ', ' and its where at config level; a markdown item's content."""
    items = [_set(item) for item in tile['series']]
    first = items[0] if items else {}
    kind = first.get('type')
    if kind == 'markdown':
        return dict(displayType='markdown', markdown=first.get('content'))
    if kind == 'search':
        return dict(displayType='search', sourceId=first.get('sourceId'), select=', '.join(first.get('fields') or []),
                    where=first.get('where') or '', whereLanguage=first.get('whereLanguage') or 'lucene')
    if kind == 'number':
        items = items[:1]
    display = 'stacked_bar' if kind == 'time' and first.get('displayType') == 'stacked_bar' else SERIES_DISPLAY.get(kind, 'line')
    config = dict(displayType=display, sourceId=first.get('sourceId'), select=[_select_of(item) for item in items])
    if display in AS_RATIO:
        config['asRatio'] = bool(tile.get('asRatio')) and len(items) == 2
    if first.get('groupBy') and kind != 'number':
        config['groupBy'] = ','.join(first['groupBy'])
    formats = [item['numberFormat'] for item in items if item.get('numberFormat') is not None]
    if formats:
        config['numberFormat'] = formats[0]
    return config


def _select_of(item):
    select = dict((key, item[key]) for key in ('aggFn', 'alias', 'level', 'metricName') if item.get(key) not in (None, ''))
    if item.get('metricDataType') is not None:
        select['metricType'] = item['metricDataType']
    select.update(valueExpression=item.get('field') or '', where=item.get('where') or '',
                  whereLanguage=item.get('whereLanguage') or 'lucene')
    return select


def normal_config(config):
    """A config as the newest servers read it back: the defaults they add where it leaves them unset, a number tile
    without fillNulls and asRatio, select items without an empty alias or metricName and with a level only where a
    read shows one (quantile at 0.5, 0.9, 0.95, 0.99)."""
    normal = _set(config)
    kind = normal.get('displayType')
    if kind in FILL_NULLS:
        normal.setdefault('fillNulls', True)
    if kind in AS_RATIO and 'configType' not in normal:
        normal['asRatio'] = bool(normal.get('asRatio'))
    if kind == 'number':
        normal.pop('fillNulls', None)
        normal.pop('asRatio', None)
    if kind == 'search':
        normal.setdefault('where', '')
        normal.setdefault('whereLanguage', 'lucene')
        if isinstance(normal.get('select'), str):  # the fields, however they are spaced: a series read splits them
            normal['select'] = ', '.join(field.strip() for field in normal['select'].split(',') if field.strip())
    if isinstance(normal.get('select'), list):
        normal['select'] = [_normal_select(item) if isinstance(item, dict) else item for item in normal['select']]
    return normal


def _normal_select(item):
    normal = dict(SELECT_DEFAULTS, **_set(item))
    for key in ('alias', 'metricName'):
        if normal.get(key) == '':
            del normal[key]
    if 'level' in normal and not (normal.get('aggFn') == 'quantile' and normal['level'] in LEVELS):
        del normal['level']
    return normal


def normal_tile(tile):
    """The one form in which tiles compare: name, position, size, section and tab, and the tile's config as the newest
    servers read it, defaults added; without the id. tile is in the API's form: as the module sends it (series or
    config), or as a server of any era reads it back (as sent, series form, config form)."""
    config = series_config(tile) if tile.get('series') is not None else tile.get('config') or {}
    normal = dict((key, tile.get(key)) for key in ('name', 'x', 'y', 'w', 'h', 'containerId', 'tabId'))
    normal['config'] = normal_config(config)
    return _plain(normal)


def display_type(tile):
    """The display type of a tile in the API's form (any era): what decides whether it can carry alerts."""
    return normal_tile(tile)['config'].get('displayType')


def keyed(tiles):
    """[(key, tile)]: each tile's identity on the dashboard, (name, n) for the n-th tile of that name in list order
    (names may be empty, and two tiles may share one)."""
    seen = {}
    pairs = []
    for tile in tiles:
        name = tile.get('name')
        pairs.append(((name, seen.get(name, 0)), tile))
        seen[name] = seen.get(name, 0) + 1
    return pairs


def label(key):
    """How the diff names a tile: its name; the second tile of one name 'name #2', and so on."""
    name, index = key
    return name if not index else '%s #%d' % (name, index + 1)


# --- comparison and diff --------------------------------------------------------------------------

def _normal_pairs(current, desired):
    """(current normal tiles by key, desired normal tiles by key), each desired tile in what the read form of the
    current tile of its key can show (see seen_as)."""
    read = dict(keyed(current))
    desired_normal = dict((key, seen_as(normal_tile(tile), read.get(key))) for key, tile in keyed(desired))
    return dict((key, normal_tile(tile)) for key, tile in keyed(current)), desired_normal


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
    the order of the list counts only among tiles of one name (a tile's place is x and y)."""
    current_normal, desired_normal = _normal_pairs(current, desired)
    return current_normal != desired_normal


def tiles_diff(current, desired):
    """(before, after): the tiles by name (see label), with only what differs; a tile added shows only after, a tile
    removed only before; both empty when nothing differs. A tile the task gives in series form shows in series form
    (snake_case, as the task writes it) on both sides, when its current form can be written so."""
    current_normal, desired_normal = _normal_pairs(current, desired)
    series_keys = set(key for key, tile in keyed(desired) if tile.get('series') is not None)
    before, after = {}, {}
    for key in list(desired_normal) + [key for key in current_normal if key not in desired_normal]:
        was, will = (view(tile, key in series_keys) for tile in (current_normal.get(key), desired_normal.get(key)))
        if was is None or will is None:
            shown = (after if was is None else before)
            shown[label(key)] = dict((name, value) for name, value in (was or will).items() if name != 'name')
            continue
        old, new = differing(was, will)
        if old or new:
            before[label(key)], after[label(key)] = old, new
    return before, after


def view(normal, as_series):
    """A normal tile as the diff shows it: in series form when as_series and its config has one, else as it is."""
    if normal is None or not as_series:
        return normal
    series = series_of(normal['config'])
    if series is None:
        return normal
    shown = dict((key, value) for key, value in normal.items() if key != 'config')
    shown['series'] = series
    if normal['config'].get('asRatio'):
        shown['as_ratio'] = True
    return shown


def series_of(config):
    """The series items (snake_case) of a normal config of a kind the series form holds, else None."""
    kind = config.get('displayType')
    if kind == 'markdown':
        return [dict(type='markdown', content=config.get('markdown'))]
    if kind == 'search':
        return [dict(type='search', source_id=config.get('sourceId'), where=config.get('where'), where_language=config.get('whereLanguage'),
                     fields=[field.strip() for field in (config.get('select') or '').split(',') if field.strip()])]
    item_type = dict(line='time', stacked_bar='time', table='table', number='number').get(kind)
    if item_type is None or not isinstance(config.get('select'), list) or set(RAW_SQL) & set(config):
        return None
    items = []
    for index, select in enumerate(config['select']):
        item = dict(type=item_type, source_id=config.get('sourceId'), agg_fn=select.get('aggFn'), field=select.get('valueExpression'),
                    where=select.get('where'), where_language=select.get('whereLanguage'), alias=select.get('alias'),
                    level=select.get('level'), metric_data_type=select.get('metricType'), metric_name=select.get('metricName'))
        if item_type != 'number':
            item['group_by'] = [field for field in (config.get('groupBy') or '').split(',') if field]
        if item_type == 'time' and index == 0 and kind == 'stacked_bar':
            item['display_type'] = kind
        if index == 0 and config.get('numberFormat') is not None:
            item['number_format'] = config['numberFormat']
        items.append(_set(item))
    return items


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


def masked(result):
    """compare.mask_secrets(result), except that the names of tiles (the keys of the diff's tiles maps) are not taken
    for the names of secret fields: a tile named "API token usage" is shown, not masked."""
    diff = result.get('diff') or {}
    named = [side for side, part in diff.items() if isinstance(part, dict) and isinstance(part.get('tiles'), dict)]
    if named:
        pairs = dict((side, dict(diff[side], tiles=[[name, change] for name, change in diff[side]['tiles'].items()])) for side in named)
        result = dict(result, diff=dict(diff, **pairs))
    result = mask_secrets(result)
    for side in named:
        result['diff'][side]['tiles'] = dict((name, change) for name, change in result['diff'][side]['tiles'])
    return result


# --- the update and the alerts it deletes -----------------------------------------------------------

def desired_tiles(params, current):
    """The tiles the task wants, in the API's form; left out, the tiles as read (each with its own id). Each tile of the
    task is matched with the current tile of its key (keyed: by name, then in list order among tiles of one name),
    whose id it carries, so that it and its alerts survive the PUT (a new or renamed tile has none), and whose section
    and tab it keeps unless it gives container_id (a tab only with its container)."""
    tiles = current.get('tiles') or []
    if params.get('tiles') is None:
        return list(tiles)
    read = dict(keyed(tiles))
    wanted = []
    for key, option in keyed(params['tiles']):
        was = read.get(key) or {}
        tile = dict((name, value) for name, value in api_tile(option).items() if name not in ('containerId', 'tabId'))
        tile.update(placement(option, was))
        if was.get('id') is not None:
            tile['id'] = was['id']
        wanted.append(tile)
    return wanted


def placement(option, current):
    """containerId and tabId of a task's tile (empty: none), carried from current where the task does not give them."""
    container, tab = option.get('container_id'), option.get('tab_id')
    if container is None:
        container = current.get('containerId')
    if tab is None and container and container == current.get('containerId'):
        tab = current.get('tabId')
    return dict((key, value) for key, value in (('containerId', container), ('tabId', tab)) if value)


def plan(params, current):
    """(the PUT body, the diff) that bring the dashboard current to the task's options; ({}, None) when nothing
    differs. The diff shows the name and tags that differ and the tiles by name, with only what differs. Tiles left
    out of the task are neither compared nor changed: a PUT (for the name or tags) sends them as read."""
    tiles, wanted = current.get('tiles') or [], desired_tiles(params, current)
    before, after = {}, {}
    if params.get('name') is not None and params['name'] != current.get('name'):
        before['name'], after['name'] = current.get('name'), params['name']
    if params.get('tags') is not None and kept_tags(params['tags']) != list(current.get('tags') or []):
        before['tags'], after['tags'] = list(current.get('tags') or []), kept_tags(params['tags'])
    if params.get('tiles') is not None and tiles_differ(tiles, wanted):
        before['tiles'], after['tiles'] = tiles_diff(tiles, wanted)
    if not after and not before:
        return {}, None
    return update_body(params.get('name') or current.get('name'), wanted, params.get('tags')), dict(before=before, after=after)


def placement_errors(tiles, containers):
    """A message for each tile (API form) placed in a section or tab that containers (the dashboard's, as read; a new
    dashboard has none) do not hold: the API refuses the write with a 400."""
    tabs = dict((container.get('id'), set(tab.get('id') for tab in container.get('tabs') or [] if isinstance(tab, dict)))
                for container in containers or [] if isinstance(container, dict))
    errors = []
    for index, tile in enumerate(tiles):
        container, tab = tile.get('containerId'), tile.get('tabId')
        if container is not None and container not in tabs:
            errors.append('tiles[%d].container_id: the dashboard has no section %s (its sections: %s)' % (
                index, json.dumps(container), ', '.join(json.dumps(name) for name in tabs) or 'none'))
        elif tab is not None and tab not in tabs[container]:
            errors.append('tiles[%d].tab_id: section %s has no tab %s' % (index, json.dumps(container), json.dumps(tab)))
    return errors


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

SOURCE_ID = re.compile(r'[0-9a-f]{24}\Z')


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
    for index, tile in enumerate(tiles):
        errors.extend(tile_errors('tiles[%d]' % index, tile))
    return errors


def tile_errors(where, tile):
    errors = [validate.number_range('%s.%s' % (where, key), tile.get(key), low, high) for key, (low, high) in sorted(TILE_LIMITS.items())]
    for option, dummy in PLACES:
        if tile.get(option) is not None and len(tile[option]) > MAX_PLACE:
            errors.append('%s.%s must be at most %d characters long, got %d' % (where, option, MAX_PLACE, len(tile[option])))
    if tile.get('tab_id') and not tile.get('container_id'):
        errors.append('%s.tab_id needs container_id (a tab is in a section)' % where)
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
    if len(types) != 1:
        return ['%s.series must be all of one type, got %s' % (where, ', '.join(map(str, types)))]
    errors = []
    if types[0] in SINGLE_ITEM_SERIES and len(series) > 1:
        errors.append('%s.series of type %s must hold one item: the server keeps the first only, got %d' % (where, types[0], len(series)))
    for index, item in enumerate(series):
        errors.extend(series_item_errors('%s.series[%d]' % (where, index), item))
    return errors


# What each series type needs (reference, "series form"); a markdown item needs only its content.
SERIES_REQUIRED = dict(time=('source_id', 'agg_fn', 'where', 'group_by'), table=('source_id', 'agg_fn', 'where', 'group_by'),
                       number=('source_id', 'agg_fn', 'where'), search=('source_id', 'where'), markdown=('content',))


def series_item_errors(at, item):
    errors = ['%s.%s is required for a %s item' % (at, key, item['type']) for key in SERIES_REQUIRED[item['type']] if item.get(key) is None]
    errors.append(source_id_error(at + '.source_id', item.get('source_id')))
    errors.append(validate.number_range(at + '.level', item.get('level'), 0, 1))
    if item.get('group_by') is not None and len(item['group_by']) > MAX_GROUP_BY:
        errors.append('%s.group_by must hold at most %d fields, got %d' % (at, MAX_GROUP_BY, len(item['group_by'])))
    if item.get('where_language') == 'promql':
        errors.append('%s.where_language: %s' % (at, PROMQL))
    return errors


def source_id_error(option, value):
    if value is None or (isinstance(value, str) and SOURCE_ID.match(value)):
        return None
    return '%s must be an object id of 24 lowercase hexadecimal digits (the server compares source ids exactly), got %s' % (
        option, json.dumps(value))


def config_errors(where, config):
    display = config.get('displayType')
    if display not in DISPLAY_TYPES:
        return ['%s.displayType must be one of %s, got %s' % (where, ', '.join(DISPLAY_TYPES), json.dumps(display))]
    errors = unknown_keys(where, config, CONFIG_KEYS[display], 'a %s tile' % display)
    errors.append(source_id_error(where + '.sourceId', config.get('sourceId')))
    if display == 'markdown' and not isinstance(config.get('markdown'), str):
        errors.append('%s.markdown is required for a markdown tile (its text)' % where)
    if display == 'search' and config.get('whereLanguage') == 'promql':
        errors.append('%s.whereLanguage: %s' % (where, PROMQL))
    if display in CHARTS:
        errors.extend(chart_errors(where, config, display))
    return [error for error in errors if error]


def unknown_keys(where, mapping, known, what):
    return ['%s.%s is not a key of %s (the server drops it; its keys: %s)' % (where, key, what, ', '.join(known))
            for key in mapping if key not in known]


def chart_errors(where, config, display):
    select, errors = config.get('select'), []
    raw_sql = config.get('configType') is not None
    if raw_sql:
        errors.extend(raw_sql_errors(where, config))
    if not isinstance(config.get('groupBy', ''), str):
        errors.append('%s.groupBy must be a string, the fields joined by commas (such as "host,zone"), got %s' % (
            where, json.dumps(config['groupBy'])))
    wanted = (1, 1) if display in ONE_SELECT and not (display == 'number' and config.get('formulas')) else (1, MAX_SELECT)
    if raw_sql and select is None:
        pass  # the query is the SQL template
    elif not isinstance(select, list) or not wanted[0] <= len(select) <= wanted[1]:
        errors.append('%s.select of a %s tile must hold %s items, got %s' % (
            where, display, 'exactly 1' if wanted == (1, 1) else 'between 1 and %d' % MAX_SELECT,
            len(select) if isinstance(select, list) else json.dumps(select)))
    else:
        errors.extend(select_errors(where, select, HEATMAP_SELECT_KEYS if display == 'heatmap' else SELECT_KEYS))
    if config.get('asRatio') and (not isinstance(select, list) or len(select) != 2):
        errors.append('%s.asRatio needs exactly 2 select items' % where)
    return errors


def raw_sql_errors(where, config):
    errors = [] if config['configType'] == 'sql' else ['%s.configType must be sql, got %s' % (where, json.dumps(config['configType']))]
    for key in ('connectionId', 'sqlTemplate'):
        if not isinstance(config.get(key), str) or not config[key]:
            errors.append('%s.%s is required for a raw SQL tile (configType: sql)' % (where, key))
    if isinstance(config.get('sqlTemplate'), str) and len(config['sqlTemplate']) > 100000:
        errors.append('%s.sqlTemplate must be at most 100000 characters long, got %d' % (where, len(config['sqlTemplate'])))
    return errors


def select_errors(where, select, known):
    errors = []
    for index, item in enumerate(select):
        at = '%s.select[%d]' % (where, index)
        if not isinstance(item, dict):
            errors.append('%s must be a dictionary' % at)
            continue
        errors.extend(unknown_keys(at, item, known, 'a select item'))
        agg_fn, expression = item.get('aggFn'), item.get('valueExpression')
        if agg_fn not in AGG_FNS:
            errors.append('%s.aggFn must be one of %s, got %s' % (at, ', '.join(AGG_FNS), json.dumps(agg_fn)))
        elif agg_fn == 'count' and expression:
            errors.append('%s.valueExpression is not allowed with aggFn count, got %s' % (at, json.dumps(expression)))
        elif agg_fn != 'count' and not expression:
            errors.append('%s.valueExpression is required with aggFn %s' % (at, agg_fn))
        if item.get('whereLanguage') == 'promql':
            errors.append('%s.whereLanguage: %s' % (at, PROMQL))
        elif item.get('whereLanguage') is not None and item['whereLanguage'] not in WHERE_LANGUAGES:
            errors.append('%s.whereLanguage must be one of %s, got %s' % (at, ', '.join(WHERE_LANGUAGES), json.dumps(item['whereLanguage'])))
        if item.get('level') is not None and (agg_fn != 'quantile' or item['level'] not in LEVELS):
            errors.append('%s.level must be one of %s, and only with aggFn quantile, got %s with %s' % (
                at, ', '.join(map(str, LEVELS)), json.dumps(item['level']), json.dumps(agg_fn)))
    return errors
