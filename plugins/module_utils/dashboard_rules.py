# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Dashboards: the update a task asks for (its body and diff, over tiles.py's normal form), the alerts it would delete,
the checks of the dashboard module's options, a dashboard's definition."""

import json
import re

from ansible_collections.engine.cloud.plugins.module_utils import tiles, validate
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets
from ansible_collections.engine.cloud.plugins.module_utils.tiles import LEVELS, PLACES, RAW_SQL, SINGLE_ITEM_SERIES, display_type

AGG_FNS = ('avg', 'count', 'count_distinct', 'last_value', 'max', 'min', 'quantile', 'sum', 'any', 'none', 'increase')
WHERE_LANGUAGES = ('sql', 'lucene', 'promql')
# Display types that chart a query: a config of one of them has select items (1 to 20; ONE_SELECT exactly 1).
CHARTS = ('line', 'stacked_bar', 'table', 'number', 'pie', 'bar', 'heatmap')
ONE_SELECT = ('number', 'pie', 'bar')
# The API deletes, on every dashboard PUT, the alerts of tiles of any other display type.
CAN_CARRY_ALERTS = frozenset(('line', 'stacked_bar', 'number'))

TILE_LIMITS = dict(x=(0, 23), y=(0, None), w=(1, 24), h=(1, None))
MAX_NAME, MAX_TILES, MAX_TAGS, MAX_TAG = 1024, 500, 50, 32
MAX_SELECT, MAX_GROUP_BY = 20, 10

# The config schema by display type, in the order messages list them (reference, "more of the config form"): the server drops
# any other key, so a task's key outside it fails before any request; every key in it is sent, stored, read back and compared.
_CHART = ('displayType', 'sourceId', 'select', 'groupBy', 'numberFormat')
CONFIG_KEYS = dict(
    line=_CHART + RAW_SQL + ('asRatio', 'fillNulls', 'fitYAxisToData', 'compareToPreviousPeriod', 'alignDateRangeToGranularity',
                             'seriesLimit', 'formulas', 'showOperandSeries'),
    stacked_bar=_CHART + RAW_SQL + ('asRatio', 'fillNulls', 'alignDateRangeToGranularity', 'seriesLimit', 'formulas', 'showOperandSeries'),
    table=_CHART + RAW_SQL + ('asRatio', 'formulas', 'showOperandSeries', 'having', 'orderBy', 'groupByColumnsOnLeft', 'onClick'),
    number=_CHART + RAW_SQL + ('formulas', 'color', 'colorRules', 'backgroundChart'),
    pie=_CHART + RAW_SQL + ('orderBy', 'limit'), bar=_CHART + RAW_SQL + ('orderBy', 'limit'),
    heatmap=_CHART + ('where', 'whereLanguage'), search=('displayType', 'sourceId', 'select', 'where', 'whereLanguage'),
    markdown=('displayType', 'markdown'), event_patterns=_CHART + ('where', 'whereLanguage'))
SELECT_KEYS = ('aggFn', 'valueExpression', 'alias', 'level', 'where', 'whereLanguage', 'numberFormat', 'metricType', 'metricName',
               'periodAggFn')
HEATMAP_SELECT_KEYS = SELECT_KEYS + ('countExpression', 'heatmapScaleType')
MAX_PLACE = 256  # containerId, tabId
SOURCE_ID = re.compile(r'[0-9a-f]{24}\Z')
# What each series type needs (reference, "series form"); a markdown item needs only its content.
SERIES_REQUIRED = dict(time=('source_id', 'agg_fn', 'where', 'group_by'), table=('source_id', 'agg_fn', 'where', 'group_by'),
                       number=('source_id', 'agg_fn', 'where'), search=('source_id', 'where'), markdown=('content',))
PROMQL = ('PromQL tiles cannot be managed: the server leaves them out of every read, so every run would send the tile again '
          'with a new id (and delete the alerts on the old one)')


def kept_tags(tags):
    """tags as the server keeps them: duplicates removed, the first kept."""
    return list(dict.fromkeys(tags))


def masked(result):
    """mask_secrets(result), except that the names of tiles (the keys of the diff's tiles maps) are not taken for the
    names of secret fields: a tile named "API token usage" is shown."""
    shown = mask_secrets(result)
    for side, part in (result.get('diff') or {}).items():
        if isinstance(part, dict) and isinstance(part.get('tiles'), dict):
            shown['diff'][side]['tiles'] = dict((name, mask_secrets(change)) for name, change in part['tiles'].items())
    return shown


class PlanError(ValueError):
    """What the task asks that no write can keep."""


def desired_tiles(params, current):
    """The tiles a PUT sends, in the API's form: the task's (or, left out, the tiles as read), each carrying the id of
    the stored tile of its key (tiles.keyed) so that it and its alerts survive, its section and tab unless the task
    moves it, and every key the server keeps that the task's form cannot say (tiles.fitted)."""
    stored = current.get('tiles') or []
    read = dict(tiles.keyed(stored))
    wanted, errors = [], []
    given = [(key, None) for key, dummy in tiles.keyed(stored)] if params.get('tiles') is None else tiles.keyed(params['tiles'])
    for index, (key, option) in enumerate(given):
        was = read.get(key) or {}
        if option is None:
            tile = dict(was)
        else:
            tile = dict(tiles.api_tile(option), **placement(option, was))
            if was.get('id') is not None:
                tile['id'] = was['id']
            if any(item.get('sort_order') for item in option.get('series') or []) and was and not any(
                    item.get('sortOrder') for item in was.get('series') or []):
                errors.append('tiles[%d].series: sort_order cannot be kept by this server (its read of the tile shows no sort '
                              'order: only the oldest servers keep one); leave it out, or give the tile in config form (orderBy)' % index)
        tile, error = tiles.fitted(tile, was or None, 'tiles[%d]' % index if option is not None else 'tile %s' % json.dumps(key[0]))
        wanted.append(tile)
        errors.append(error)
    errors = [error for error in errors if error]
    if errors:
        raise PlanError('; '.join(errors) + '. Nothing was sent')
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
    """(the PUT body, the diff), or ({}, None) when nothing differs. Tiles left out of the task are neither compared
    nor changed (a PUT for the name or tags sends them as they are)."""
    stored, body = current.get('tiles') or [], dashboard_body(params, current)
    was = dict(name=current.get('name'), tags=list(current.get('tags') or []), containers=current.get('containers') or [])
    before, after = {}, {}
    for key in ('name', 'tags', 'containers'):
        if key in body and body[key] != was[key]:
            before[key], after[key] = was[key], body[key]
    if params.get('tiles') is not None:
        series = set(key for key, tile in tiles.keyed(params['tiles']) if tile.get('series') is not None)
        changed_tiles = tiles.tiles_diff(stored, body['tiles'], series)
        if changed_tiles != ({}, {}):
            before['tiles'], after['tiles'] = changed_tiles
    if not after and not before:
        return {}, None
    return body, dict(before=before, after=after)


def placement_errors(sent, containers):
    """A message for each tile placed in a section or tab that containers do not hold: the API refuses it."""
    tabs = dict((container.get('id'), set(tab.get('id') for tab in container.get('tabs') or [] if isinstance(tab, dict)))
                for container in containers or [] if isinstance(container, dict))
    errors = []
    for index, tile in enumerate(sent):
        container, tab = tile.get('containerId'), tile.get('tabId')
        if container is not None and container not in tabs:
            errors.append('tiles[%d].container_id: the dashboard has no section %s (its sections: %s)' % (
                index, json.dumps(container), ', '.join(json.dumps(name) for name in tabs) or 'none'))
        elif tab is not None and tab not in tabs[container]:
            errors.append('tiles[%d].tab_id: section %s has no tab %s' % (index, json.dumps(container), json.dumps(tab)))
    return errors


def predicted(current, body):
    """The dashboard as a PUT of body would leave it (check mode)."""
    return dict(current, **dict((key, body[key]) for key in ('name', 'tiles', 'tags') if key in body))


def with_alerts(diff, alerts):
    if not alerts:
        return diff
    return dict(before=dict(diff['before'], alerts=['%s (%s)' % (alert['name'], alert['id']) for alert in alerts]),
                after=dict(diff['after'], alerts=[]))


def dashboard_body(params, current):
    """The body of a PUT over current, or of the POST that creates the dashboard (current {})."""
    body = dict(name=params.get('name') or current.get('name'), tiles=desired_tiles(params, current))
    if params.get('tags') is not None:
        body['tags'] = kept_tags(params['tags'])
    if params.get('containers') is not None:
        body['containers'] = params['containers']
    return body


def alert_dashboard(alert):
    """The id of an alert's dashboard (newer servers: dashboardId; the contract's form: dashboard)."""
    return alert.get('dashboardId') or alert.get('dashboard')


def deleted_alerts(alerts, dashboard, body_tiles=None):
    """The tile alerts of dashboard that its DELETE (body_tiles None) or a PUT of body_tiles would delete: on a PUT, those
    of tiles whose id the body does not carry (a tile removed or renamed, and PromQL tiles, which reads leave out), and
    those of tiles of a type that cannot carry alerts."""
    kept = dict((tile['id'], display_type(tile)) for tile in body_tiles or [] if tile.get('id') is not None)
    names = dict((tile.get('id'), tile.get('name')) for tile in dashboard.get('tiles') or [])
    doomed = []
    for alert in alerts:
        if alert.get('source', 'tile') != 'tile' or alert_dashboard(alert) != dashboard['id']:
            continue
        tile_id = alert.get('tileId')
        if body_tiles is None:
            why = 'its dashboard is deleted'
        elif tile_id not in kept:
            why = 'its tile is left out' if tile_id in names else 'its tile is not in reads (a PromQL tile?) and a PUT drops it'
        elif kept[tile_id] not in CAN_CARRY_ALERTS:
            why = 'its tile becomes a %s tile, which cannot carry alerts' % kept[tile_id]
        else:
            continue
        doomed.append(dict(id=alert.get('id'), name=alert.get('name'), tile_id=tile_id, tile=names.get(tile_id), reason=why))
    return doomed


def definition(dashboard):
    """The options of the dashboard module that describe dashboard as read: fed back, nothing differs."""
    found = dict(dashboard_id=dashboard.get('id'), name=dashboard.get('name'), tags=list(dashboard.get('tags') or []),
                 tiles=[tiles.option_tile(tile) for tile in dashboard.get('tiles') or []])
    if dashboard.get('containers'):
        found['containers'] = dashboard['containers']
    return found


def option_errors(params):
    errors = [validate.object_id('dashboard_id', params.get('dashboard_id')),
              validate.max_length('name', params.get('name'), MAX_NAME)]
    if params.get('name') is not None and not params['name'].strip():
        errors.append('name must not be empty')
    tags, given = params.get('tags') or [], params.get('tiles') or []
    errors.extend(validate.max_length('tags[%d]' % index, tag, MAX_TAG) for index, tag in enumerate(tags))
    if len(kept_tags(tags)) > MAX_TAGS:
        errors.append('tags must hold at most %d different tags, got %d' % (MAX_TAGS, len(kept_tags(tags))))
    if len(given) > MAX_TILES:
        errors.append('tiles must hold at most %d tiles, got %d' % (MAX_TILES, len(given)))
    for index, tile in enumerate(given):
        errors.extend(tile_errors('tiles[%d]' % index, tile))
    return [error for error in errors if error]


def tile_errors(where, tile):
    errors = [validate.number_range('%s.%s' % (where, key), tile.get(key), low, high) for key, (low, high) in sorted(TILE_LIMITS.items())]
    errors.extend(validate.max_length('%s.%s' % (where, option), tile.get(option), MAX_PLACE) for option, dummy in PLACES)
    if tile.get('tab_id') and not tile.get('container_id'):
        errors.append('%s.tab_id needs container_id (a tab is in a section)' % where)
    if (tile.get('series') is None) == (tile.get('config') is None):
        errors.append('%s must have exactly one of series and config' % where)
    elif tile.get('series') is not None:
        errors.extend(series_errors(where, tile['series']))
    else:
        errors.extend(config_errors('%s.config' % where, tile['config']))
    return errors


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
        at = '%s.series[%d]' % (where, index)
        needed = [key for key in SERIES_REQUIRED[item['type']] if not (key == 'source_id' and item.get('data_source'))]  # the contract's oldest form
        errors.extend('%s.%s is required for a %s item' % (at, key, item['type']) for key in needed if item.get(key) is None)
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
    if display not in CONFIG_KEYS:
        return ['%s.displayType must be one of %s, got %s' % (where, ', '.join(CONFIG_KEYS), json.dumps(display))]
    errors = unknown_keys(where, config, CONFIG_KEYS[display], 'a %s tile' % display)
    errors.append(source_id_error(where + '.sourceId', config.get('sourceId')))
    if display != 'markdown' and config.get('configType') is None and config.get('sourceId') is None:
        errors.append('%s.sourceId is required for a %s tile (the source it queries)' % (where, display))
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
