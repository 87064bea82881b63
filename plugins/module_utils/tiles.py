# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A dashboard's tiles: the one normal form they compare in, whatever form a server reads them back in (as sent, series
form, config form with defaults added); each tile an update sends in a form the server takes and keeps; the diff by tile
name. Pure functions."""

from ansible.module_utils.common.dict_transformations import _camel_to_snake, _snake_to_camel, recursive_diff

SERIES_DISPLAY = dict(time='line', table='table', number='number', search='search', markdown='markdown')  # by series type
SINGLE_ITEM_SERIES = ('number', 'search', 'markdown')  # stored from their first item only
LEVELS = (0.5, 0.9, 0.95, 0.99)  # the only levels a config takes (with quantile), and any read shows
RAW_SQL = ('configType', 'connectionId', 'sqlTemplate')
# What a read in series form can show of the config form; the rest only a config read holds.
SERIES_CONFIG_KEYS = frozenset(('displayType', 'sourceId', 'dataSource', 'select', 'asRatio', 'groupBy', 'numberFormat', 'markdown',
                                'where', 'whereLanguage'))
SERIES_SELECT_KEYS = frozenset(('aggFn', 'alias', 'level', 'metricName', 'metricType', 'valueExpression', 'where', 'whereLanguage',
                                'sortOrder'))
# What the newest servers add where a config leaves it unset (reference, "eras" and "what reads add and leave out").
FILL_NULLS, AS_RATIO, WHERE_AT_CONFIG = ('line', 'stacked_bar'), ('line', 'stacked_bar', 'table'), ('search', 'heatmap', 'event_patterns')
SELECT_DEFAULTS = dict(where='', whereLanguage='lucene', valueExpression='')
PLACES = (('container_id', 'containerId'), ('tab_id', 'tabId'))


def _set(mapping):
    return dict((key, value) for key, value in mapping.items() if value is not None)


def api_tile(tile):
    """A tile of the module's tiles option in the API's form (no id); an empty container_id or tab_id is left out."""
    body = dict((key, tile[key]) for key in ('name', 'x', 'y', 'w', 'h'))
    body.update((api, tile[option]) for option, api in PLACES if tile.get(option))
    if tile.get('series') is not None:
        body['series'] = [dict((_snake_to_camel(key), value) for key, value in _set(item).items()) for item in tile['series']]
        if tile.get('as_ratio') is not None:
            body['asRatio'] = tile['as_ratio']
    else:
        body['config'] = tile['config']
    return body


def option_tile(tile):
    """A tile as read (any era) as a tile of the tiles option: a series with what the server keeps of it; a config tile
    that only the series form can write (a non-count item without a field) in series form."""
    option = dict((key, tile.get(key)) for key in ('name', 'x', 'y', 'w', 'h'))
    option.update((name, tile[api]) for name, api in PLACES if tile.get(api))
    if tile.get('series') is None and not writable(tile.get('config') or {}):
        tile = _as_series(tile) or tile
    if tile.get('series') is not None:
        items = tile['series'][:1] if tile['series'] and tile['series'][0].get('type') in SINGLE_ITEM_SERIES else tile['series']
        option['series'] = [dict((_camel_to_snake(key), value) for key, value in _set(item).items()) for item in items]
        if tile.get('asRatio'):
            option['as_ratio'] = True
    else:
        option['config'] = _set(tile.get('config') or {})
    return option


def _plain(value):
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
    """The config form the API stores a series tile in (reference, "how a series tile is stored" and "what reads keep of
    a series"); a contract-form item's dataSource, and a table item's sortOrder, where the item has them."""
    items = [_set(item) for item in tile['series']]
    first = items[0] if items else {}
    kind = first.get('type')
    if kind == 'markdown':
        return dict(displayType='markdown', markdown=first.get('content'))
    source = _set(dict(sourceId=first.get('sourceId'), dataSource=None if first.get('sourceId') else first.get('dataSource')))
    if kind == 'search':
        return dict(source, displayType='search', select=', '.join(first.get('fields') or []), where=first.get('where') or '',
                    whereLanguage=first.get('whereLanguage') or 'lucene')
    if kind == 'number':
        items = items[:1]
    display = 'stacked_bar' if kind == 'time' and first.get('displayType') == 'stacked_bar' else SERIES_DISPLAY.get(kind, 'line')
    config = dict(source, displayType=display, select=[_select_of(item) for item in items])
    if display in AS_RATIO:
        config['asRatio'] = bool(tile.get('asRatio')) and len(items) == 2
    if first.get('groupBy') and kind != 'number':
        config['groupBy'] = ','.join(first['groupBy'])
    formats = [item['numberFormat'] for item in items if item.get('numberFormat') is not None]
    if formats:
        config['numberFormat'] = formats[0]
    return config


def _select_of(item):
    select = dict((key, item[key]) for key in ('aggFn', 'alias', 'level', 'metricName', 'sortOrder') if item.get(key) not in (None, ''))
    if item.get('metricDataType') is not None:
        select['metricType'] = item['metricDataType']
    select.update(valueExpression='' if item.get('aggFn') == 'count' else item.get('field') or '', where=item.get('where') or '',
                  whereLanguage=item.get('whereLanguage') or 'lucene')
    return select


def normal_config(config):
    """A config as the newest servers read it back (reference, "what reads add and leave out")."""
    normal = _set(config)
    kind = normal.get('displayType')
    if kind in FILL_NULLS:
        normal.setdefault('fillNulls', True)
    if kind in AS_RATIO and 'configType' not in normal:
        normal['asRatio'] = bool(normal.get('asRatio'))
    if kind == 'number':
        normal.pop('fillNulls', None)
        normal.pop('asRatio', None)
    if normal.get('groupBy') == '':
        del normal['groupBy']
    if kind in WHERE_AT_CONFIG:
        normal.setdefault('where', '')
        normal.setdefault('whereLanguage', 'lucene')
    if kind == 'search' and isinstance(normal.get('select'), str):  # the fields, however spaced
        normal['select'] = ', '.join(field.strip() for field in normal['select'].split(',') if field.strip())
    if isinstance(normal.get('select'), list):
        normal['select'] = [_normal_select(item) if isinstance(item, dict) else item for item in normal['select']]
    return normal


def _normal_select(item):
    normal = dict(SELECT_DEFAULTS, **_set(item))
    for key in ('alias', 'metricName'):
        if normal.get(key) == '':
            del normal[key]
    if normal.get('aggFn') == 'count':
        normal['valueExpression'] = ''
    if 'level' in normal and not (normal.get('aggFn') == 'quantile' and normal['level'] in LEVELS):
        del normal['level']
    return normal


def normal_tile(tile):
    """The one form tiles compare in: name, position, size, section, tab and the config as the newest servers read it."""
    config = series_config(tile) if tile.get('series') is not None else tile.get('config') or {}
    normal = dict((key, tile.get(key)) for key in ('name', 'x', 'y', 'w', 'h', 'containerId', 'tabId'))
    normal['config'] = normal_config(config)
    return _plain(normal)


def display_type(tile):
    return normal_tile(tile)['config'].get('displayType')


def writable(config):
    """Whether the API takes config as it is. Two things a series item may be but a config refuses: a non-count item
    without a field (stored as an empty valueExpression), and a level with another aggregation than quantile."""
    select = config.get('select') if isinstance(config.get('select'), list) else []
    return not any(isinstance(item, dict) and ((item.get('aggFn') not in (None, 'count') and not item.get('valueExpression')) or (
        item.get('level') is not None and (item.get('aggFn') != 'quantile' or item['level'] not in LEVELS))) for item in select)


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
        item = dict(type=item_type, source_id=config.get('sourceId'), data_source=config.get('dataSource'), agg_fn=select.get('aggFn'),
                    field=select.get('valueExpression'), where=select.get('where'), where_language=select.get('whereLanguage'),
                    alias=select.get('alias'), level=select.get('level'), metric_data_type=select.get('metricType'),
                    metric_name=select.get('metricName'), sort_order=select.get('sortOrder'))
        if item_type != 'number':
            item['group_by'] = [field for field in (config.get('groupBy') or '').split(',') if field]
        if item_type == 'time' and index == 0 and kind == 'stacked_bar':
            item['display_type'] = kind
        if index == 0 and config.get('numberFormat') is not None:
            item['number_format'] = config['numberFormat']
        items.append(_set(item))
    return items


def fitted(tile, current, where):
    """(the tile to send, None), or (None, why no form of it keeps what it should). tile is in the API's form; current is
    the stored tile of its key (None: new). A series tile over a stored config tile carries every key the series form
    cannot say (set in the web console: fillNulls, fitYAxisToData ...) into a config; a config the API refuses (see
    writable) goes in series form. Either only when the form sent keeps all that the tile holds."""
    whole = tile
    if tile.get('series') is not None and current is not None and current.get('config') is not None:
        kept, config = _set(current['config']), series_config(tile)
        config.update((key, value) for key, value in kept.items() if key not in SERIES_CONFIG_KEYS and key not in config)
        if isinstance(config.get('select'), list) and isinstance(kept.get('select'), list):
            config['select'] = [dict(item, **dict((key, value) for key, value in old.items() if key not in SERIES_SELECT_KEYS and key not in item))
                                for item, old in zip(config['select'], kept['select'] + [{}] * len(config['select']))]
        whole = dict(dict((key, value) for key, value in tile.items() if key not in ('series', 'asRatio')), config=config)
    for form in (whole, tile, _as_series(whole)):
        if form is not None and (form.get('config') is None or writable(form['config'])) and normal_tile(form) == normal_tile(whole):
            return form, None
    series = _as_series(whole)
    wanted, kept = normal_tile(whole)['config'], normal_tile(series)['config'] if series else {}
    lost = sorted(key for key in wanted if key != 'select' and wanted[key] != kept.get(key)) or ['what its select items hold']
    return None, ('%s: neither form the API takes keeps it whole: its config would be refused (a level with another aggregation '
                  'than quantile, or an aggregation without a field), and the series form cannot hold %s; give the tile in config '
                  'form as the server takes it' % (where, ', '.join(lost)))


def _as_series(tile):
    """tile (config form) in series form, or None when the series form cannot hold its kind."""
    series = series_of(normal_config(tile.get('config') or {})) if tile.get('config') is not None else None
    if not series:
        return None
    return _set(dict(dict((key, value) for key, value in tile.items() if key != 'config'),
                     series=[dict((_snake_to_camel(key), value) for key, value in item.items()) for item in series],
                     asRatio=normal_config(tile['config']).get('asRatio') or None))


def keyed(tiles):
    """[(key, tile)]: (name, n) for the n-th tile of that name in list order (names may be empty or shared)."""
    seen, pairs = {}, []
    for tile in tiles:
        name = tile.get('name')
        pairs.append(((name, seen.get(name, 0)), tile))
        seen[name] = seen.get(name, 0) + 1
    return pairs


def label(key):
    name, index = key
    return name if not index else '%s #%d' % (name, index + 1)


def seen_as(normal, current):
    """A normal tile as a read in the form of current can show it: a server that reads tiles in series form shows nothing
    of what only the config form holds, and only the oldest servers keep a sort order."""
    if current is None:
        return normal
    config = dict(normal['config'])
    if current.get('series') is not None:
        config = dict((key, value) for key, value in config.items() if key in SERIES_CONFIG_KEYS)
        if config.get('displayType') == 'number':
            config.pop('groupBy', None)
    shown = current.get('series') is not None and any(item.get('sortOrder') for item in current['series'])
    if isinstance(config.get('select'), list):
        keys = SERIES_SELECT_KEYS if current.get('series') is not None else None
        config['select'] = [dict((key, value) for key, value in item.items() if (keys is None or key in keys) and (shown or key != 'sortOrder'))
                            if isinstance(item, dict) else item for item in config['select']]
    return dict(normal, config=normal_config(config))


def tiles_diff(current, desired, series_keys=None):
    """(before, after): the tiles by name with only what differs; a tile given in series form shows in series form on
    both sides when nothing but series keys differ, else in config form (every key a write changes shows)."""
    read = dict(keyed(current))
    current_normal = dict((key, normal_tile(tile)) for key, tile in read.items())
    desired_normal = dict((key, seen_as(normal_tile(tile), read.get(key))) for key, tile in keyed(desired))
    if series_keys is None:
        series_keys = set(key for key, tile in keyed(desired) if tile.get('series') is not None)
    before, after = {}, {}
    for key in list(desired_normal) + [key for key in current_normal if key not in desired_normal]:
        was, will = current_normal.get(key), desired_normal.get(key)
        if was is None or will is None:
            shown = after if was is None else before
            shown[label(key)] = dict((name, value) for name, value in view(was or will, key in series_keys).items() if name != 'name')
            continue
        old, new = recursive_diff(view(was, key in series_keys), view(will, key in series_keys)) or ({}, {})
        if was != will and not (old or new):  # what differs only the config form shows: show that
            old, new = recursive_diff(was, will)
        if old or new:
            before[label(key)], after[label(key)] = old, new
    return before, after


def view(normal, as_series):
    series = series_of(normal['config']) if as_series else None
    if series is None:
        return normal
    shown = dict((key, value) for key, value in normal.items() if key != 'config')
    shown['series'] = series
    if normal['config'].get('asRatio'):
        shown['as_ratio'] = True
    return shown
