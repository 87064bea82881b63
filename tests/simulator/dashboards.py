"""Dashboards of the observability API as code: list, read, create, update, delete, validate; each team sees its own.

A tile is stored as it was sent (after validation, unknown keys dropped) with the id the server gave
it; ``stored_config`` is the reference's conversion of a series tile to the config form. Reads show
tiles in the form of the configured era (config key ``dashboard_read_form``):

- ``as_sent``: each tile as it was sent (the oldest servers);
- ``series``: each tile the series form can hold (line, stacked_bar, number, table, search, markdown)
  converted back from its stored config form; pie, bar, heatmap and event_patterns stay in config form;
- ``config``: every tile in config form with the server's defaults added.

In series and config reads, config-form tiles follow ``_config_read`` and a dashboard holding contract-form
tiles (no ``sourceId``) answers 500. Tiles whose query language is PromQL are stored but left out of every read.
A tile's ``containerId`` and ``tabId`` place it in one of the dashboard's ``containers`` (``{id, tabs: [{id}]}``);
a reference to a container or tab that is gone is dropped on read.
"""

from . import server
from .checks import MISSING, OBJECT_ID, Problems, pick

DISPLAY_TYPES = ('line', 'stacked_bar', 'table', 'number', 'pie', 'bar', 'heatmap', 'search', 'markdown', 'event_patterns')
ALERTABLE_DISPLAY_TYPES = ('line', 'stacked_bar', 'number')
SERIES_TYPES = ('time', 'table', 'number', 'search', 'markdown')
AGG_FNS = ('avg', 'count', 'count_distinct', 'last_value', 'max', 'min', 'quantile', 'sum', 'any', 'none', 'increase')
WHERE_LANGUAGES = ('sql', 'lucene', 'promql')
METRIC_TYPES = ('gauge', 'sum', 'histogram', 'summary', 'exponential histogram')
READ_FORMS = ('as_sent', 'series', 'config')

DASHBOARD_KEYS = ('name', 'tiles', 'tags', 'filters', 'savedQuery', 'savedQueryLanguage', 'savedFilterValues', 'containers')
KEPT_ON_UPDATE = ('tags', 'filters', 'savedQuery', 'savedQueryLanguage', 'savedFilterValues', 'containers')
TILE_KEYS = ('id', 'name', 'x', 'y', 'w', 'h', 'containerId', 'tabId', 'asRatio', 'series', 'config')
CHART_ITEM_KEYS = ('type', 'sourceId', 'aggFn', 'field', 'alias', 'level', 'where', 'whereLanguage', 'numberFormat',
                   'metricDataType', 'metricName')
ITEM_KEYS = {
    'time': CHART_ITEM_KEYS + ('groupBy', 'displayType'),
    'table': CHART_ITEM_KEYS + ('groupBy', 'sortOrder'),
    'number': CHART_ITEM_KEYS + ('groupBy',),
    'search': ('type', 'sourceId', 'where', 'whereLanguage', 'fields'),
    'markdown': ('type', 'content'),
}
SINGLE_ITEM_SERIES = ('number', 'search', 'markdown')  # a read keeps the first item only
# The config schema, by display type (reference, "more of the config form"): every other key is dropped.
RAW_SQL = ('configType', 'connectionId', 'sqlTemplate')
RAW_SQL_DISPLAY = ('line', 'stacked_bar', 'table', 'number', 'pie', 'bar')
CHART_BASE = ('displayType', 'sourceId', 'select', 'groupBy', 'numberFormat')
CONFIG_KEYS = {
    'line': CHART_BASE + RAW_SQL + ('asRatio', 'fillNulls', 'fitYAxisToData', 'compareToPreviousPeriod', 'alignDateRangeToGranularity',
                                    'seriesLimit', 'formulas', 'showOperandSeries'),
    'stacked_bar': CHART_BASE + RAW_SQL + ('asRatio', 'fillNulls', 'alignDateRangeToGranularity', 'seriesLimit', 'formulas',
                                           'showOperandSeries'),
    'table': CHART_BASE + RAW_SQL + ('asRatio', 'formulas', 'showOperandSeries', 'having', 'orderBy', 'groupByColumnsOnLeft', 'onClick'),
    'number': CHART_BASE + RAW_SQL + ('formulas', 'color', 'colorRules', 'backgroundChart'),
    'pie': CHART_BASE + RAW_SQL + ('orderBy', 'limit'),
    'bar': CHART_BASE + RAW_SQL + ('orderBy', 'limit'),
    'heatmap': CHART_BASE + ('where', 'whereLanguage'),
    'event_patterns': CHART_BASE + ('where', 'whereLanguage'),
    'search': ('displayType', 'sourceId', 'select', 'where', 'whereLanguage'),
    'markdown': ('displayType', 'markdown'),
}
SELECT_KEYS = ('aggFn', 'valueExpression', 'alias', 'level', 'where', 'whereLanguage', 'numberFormat', 'metricType', 'metricName',
               'periodAggFn')
HEATMAP_SELECT_KEYS = SELECT_KEYS + ('countExpression', 'heatmapScaleType')
LEVELS = (0.5, 0.9, 0.95, 0.99)  # the only config levels, and the only levels a read shows (for quantile)
BOOLEAN_KEYS = ('asRatio', 'fillNulls', 'fitYAxisToData', 'compareToPreviousPeriod', 'alignDateRangeToGranularity', 'showOperandSeries',
                'groupByColumnsOnLeft')
STRING_KEYS = ('groupBy', 'having', 'orderBy', 'connectionId', 'color', 'where')
SELECT_DEFAULTS = {'where': '', 'whereLanguage': 'lucene', 'valueExpression': ''}  # valueExpression: not for count
WHERE_DEFAULTS = {'where': '', 'whereLanguage': 'lucene'}  # config level: search, heatmap and event_patterns reads
WHERE_DISPLAY = ('heatmap', 'event_patterns')
SOURCES_NOT_FOUND = 'Could not find the following source IDs: '
CONTAINERS_NOT_FOUND = 'Could not find the following containers or tabs: '
# What list and read items carry when unset (servers that read series or config form).
DASHBOARD_READ_DEFAULTS = {'filters': [], 'savedQuery': None, 'savedQueryLanguage': None, 'savedFilterValues': []}
RATIO_DISPLAY = ('line', 'stacked_bar', 'table')  # the display types that take asRatio
ONE_SELECT = ('number', 'pie', 'bar')
SERIES_DISPLAY = {'time': 'line', 'table': 'table', 'number': 'number', 'search': 'search', 'markdown': 'markdown'}
SERIES_FORM_DISPLAY = ('line', 'stacked_bar', 'table', 'number', 'search', 'markdown')  # what the series form can hold
CONFIG_ONLY = frozenset(('configType', 'formulas'))  # a raw SQL tile, or one with formulas, reads in config form in any era


def not_found():
    return server.Response.text(404, 'Not Found')


def bad_id():
    return server.Response.json(400, {'message': 'Params validation failed: id: Invalid ObjectId'})


def refused(problems):
    return server.Response.json(400, {'message': 'Body validation failed: ' + '; '.join(problems)})


def slow_create(store):
    """With slow_observability_create, a create that was applied is answered by a gateway's 504."""
    return server.Response.text(504, 'Gateway Timeout') if store.config['slow_observability_create'] else None


# Operations ----------------------------------------------------------------------------------------

def team_dashboards(store, tenant):
    """The dashboards of the tenant's team."""
    return [dashboard for dashboard in store.dashboards.values() if store.team_of(dashboard) == tenant.team['id']]


def list_dashboards(store, tenant):
    """GET /api/v2/dashboards: every dashboard of the team, full objects, sorted by name descending."""
    dashboards = sorted(team_dashboards(store, tenant), key=lambda dashboard: dashboard['name'], reverse=True)
    return server.Response.json(200, {'data': [render(store, dashboard) for dashboard in dashboards]})


def get_dashboard(store, tenant, dashboard_id):
    """GET /api/v2/dashboards/{id}."""
    dashboard, error = _find(store, tenant, dashboard_id)
    return error or server.Response.json(200, {'data': render(store, dashboard)})


def create_dashboard(store, tenant, body):
    """POST /api/v2/dashboards: new ids for the dashboard and for every tile (ids in the body are ignored)."""
    clean, error = validate(body)
    error = error or unknown_sources(tenant, clean) or unresolved_containers(clean.get('containers'), clean['tiles'])
    if error:
        return error
    for tile in clean['tiles']:
        tile['id'] = store.new_id()
    dashboard = dict({'id': store.new_id()}, **clean)
    dashboard.setdefault('tags', [])
    if tenant is not store.primary:
        dashboard['teamId'] = tenant.team['id']
    store.dashboards[dashboard['id']] = dashboard
    return slow_create(store) or server.Response.json(200, {'data': render(store, dashboard)})


def update_dashboard(store, tenant, dashboard_id, body):
    """PUT /api/v2/dashboards/{id}: replaces name and tiles, keeps what else is left out; a tile keeps its
    id only when it carries the id of a tile stored on this dashboard. Then deletes the alerts of every
    stored tile that is gone and of every tile whose display type cannot carry alerts."""
    if not _valid_id(dashboard_id):
        return bad_id()
    clean, error = validate(body)
    dashboard, missing = _find(store, tenant, dashboard_id)
    error = error or missing or unknown_sources(tenant, clean)
    error = error or unresolved_containers(clean.get('containers', dashboard.get('containers')), clean['tiles'])
    if error:
        return error
    stored_ids = {tile['id'] for tile in dashboard['tiles']}
    for tile in clean['tiles']:
        if tile.get('id') not in stored_ids:
            tile['id'] = store.new_id()
    kept = {key: dashboard[key] for key in KEPT_ON_UPDATE + ('teamId',) if key in dashboard and key not in clean}
    new = dict({'id': dashboard['id']}, **clean, **kept)
    dashboard.clear()
    dashboard.update(new)
    new_ids = {tile['id'] for tile in clean['tiles']}
    doomed = (stored_ids - new_ids) | {tile['id'] for tile in clean['tiles'] if display_type(tile) not in ALERTABLE_DISPLAY_TYPES}
    store.delete_alerts(lambda alert: alert.get('dashboardId') == dashboard['id'] and alert.get('tileId') in doomed)
    return server.Response.json(200, {'data': render(store, dashboard)})


def delete_dashboard(store, tenant, dashboard_id):
    """DELETE /api/v2/dashboards/{id}: 200 {} whether or not it existed; its tiles' alerts go with it."""
    if not _valid_id(dashboard_id):
        return bad_id()
    dashboard, _missing = _find(store, tenant, dashboard_id)
    if dashboard is not None:
        del store.dashboards[dashboard['id']]
        store.delete_alerts(lambda alert: alert.get('dashboardId') == dashboard['id'] and alert.get('source') == 'tile')
    return server.Response.json(200, {})


def validate_dashboard(store, tenant, body):
    """POST /api/v2/dashboards/validate (servers from 2.30): a create body checked as a create would check it, never
    stored; always 200 {valid, errors: [{path, message}], normalized: the body as a create would keep it, or null}."""
    clean, problems = check(body)
    errors = [dict(zip(('path', 'message'), problem.split(': ', 1))) for problem in problems]
    errors = errors or reference_errors(tenant, clean)
    if not errors:
        clean.setdefault('tags', [])
        for tile in clean['tiles']:
            tile.pop('id', None)  # a create gives every tile a new id
    return server.Response.json(200, {'valid': not errors, 'errors': errors, 'normalized': None if errors else clean})


def _valid_id(dashboard_id):
    return bool(OBJECT_ID.fullmatch(dashboard_id))


def _find(store, tenant, dashboard_id):
    """(the team's dashboard, None), or (None, the answer: 400 for a malformed id, 404 for one the team does not have)."""
    if not _valid_id(dashboard_id):
        return None, bad_id()
    dashboard = store.dashboards.get(dashboard_id.lower())
    if dashboard is None or store.team_of(dashboard) != tenant.team['id']:
        return None, not_found()
    return dashboard, None


# Validation ----------------------------------------------------------------------------------------

def validate(body):
    """(the body as the server keeps it, None) or (None, the 400 answer listing every problem)."""
    clean, problems = check(body)
    return (None, refused(problems)) if problems else (clean, None)


def check(body):
    """(the body as the server keeps it, [every problem as 'path: message'])."""
    problems = Problems()
    if not isinstance(body, dict):
        problems.typed('', body, 'object')
        return None, problems
    clean = pick(body, DASHBOARD_KEYS)
    if problems.present('name', body.get('name', MISSING)):
        problems.string('name', body['name'], 1, 1024)
    if 'tags' in body and problems.strings('tags', body['tags'], 50, 32):
        clean['tags'] = list(dict.fromkeys(body['tags']))
    _dashboard_extras(problems, body)
    tiles = body.get('tiles', MISSING)
    if problems.present('tiles', tiles) and problems.array('tiles', tiles, 0, 500):
        clean['tiles'] = [_tile(problems, 'tiles.%d' % index, tile) for index, tile in enumerate(tiles)]
        _duplicate_tile_ids(problems, clean['tiles'])
    return clean, problems


def unknown_sources(tenant, clean):
    """The 400 answer for a valid body whose tiles name sources the team does not have, else None."""
    missing = sorted({source for tile in clean['tiles'] for source in source_ids(tile)} - set(tenant.sources))  # exactly: case too
    if missing:
        return server.Response.json(400, {'message': SOURCES_NOT_FOUND + ', '.join(missing)})
    return None


def reference_errors(tenant, clean):
    """[{path, message}] for each source and container reference of a valid body that does not resolve (a create
    refuses the body with the first of these messages)."""
    errors = []
    tabs = _container_tabs(clean.get('containers'))
    for index, tile in enumerate(clean['tiles']):
        if 'series' in tile:
            items = [('series.%d' % number, item) for number, item in enumerate(tile['series'])]
        else:
            items = [('config', tile['config'])]
        for place, item in items:
            if 'sourceId' in item and item['sourceId'] not in tenant.sources:
                errors.append({'path': 'tiles.%d.%s.sourceId' % (index, place), 'message': SOURCES_NOT_FOUND + item['sourceId']})
        unresolved = _unresolved(tabs, tile)
        if unresolved:
            errors.append({'path': 'tiles.%d.%s' % (index, 'tabId' if '/' in unresolved else 'containerId'),
                           'message': CONTAINERS_NOT_FOUND + unresolved})
    return errors


def _dashboard_extras(problems, body):
    for key, kind in (('filters', 'array'), ('savedFilterValues', 'array'), ('containers', 'array')):
        problems.optional('', body, key, problems.typed, kind)
    problems.optional('', body, 'savedQuery', problems.typed, 'string', nullable=True)
    problems.optional('', body, 'savedQueryLanguage', problems.enum, WHERE_LANGUAGES, nullable=True)


def _duplicate_tile_ids(problems, tiles):
    seen = set()
    for tile in tiles:
        if tile is None or not isinstance(tile.get('id'), str):
            continue  # no id, or one that is a problem of its own
        if tile['id'] in seen:
            problems.add('tiles', 'Duplicate tile ID: %s' % tile['id'])
            return
        seen.add(tile['id'])


def _tile(problems, path, tile):
    if not problems.typed(path, tile, 'object'):
        return None
    if problems.present(path + '.name', tile.get('name', MISSING)):
        problems.string(path + '.name', tile['name'])  # an empty name is allowed
    for key, low, high in (('x', 0, 23), ('y', 0, None), ('w', 1, 24), ('h', 1, None)):
        if problems.present('%s.%s' % (path, key), tile.get(key, MISSING)):
            problems.number('%s.%s' % (path, key), tile[key], low, high, integer=True)
    problems.optional(path, tile, 'id', problems.string, 1)
    problems.optional(path, tile, 'asRatio', problems.typed, 'boolean')
    for key in ('containerId', 'tabId'):
        problems.optional(path, tile, key, problems.string, 1, 256)
    if 'tabId' in tile and 'containerId' not in tile:
        problems.add(path + '.tabId', 'tabId needs containerId')
    clean = pick(tile, TILE_KEYS[:-2])  # the form (series or config) that is not null is added below
    has_series, has_config = tile.get('series') is not None, tile.get('config') is not None
    if has_series and has_config:
        problems.add(path, 'Tile cannot have both series and config')
    elif not has_series and not has_config:
        problems.add(path, 'Tile must have either series or config')
    elif has_series:
        clean['series'] = _series(problems, path + '.series', tile['series'])
    else:
        if 'asRatio' in tile:
            problems.add(path + '.asRatio', 'asRatio is only allowed with series (use config.asRatio)')
        clean['config'] = _config(problems, path + '.config', tile['config'])
    return clean


def _series(problems, path, items):
    if not problems.array(path, items, 1):
        return None
    clean = [_series_item(problems, '%s.%d' % (path, index), item) for index, item in enumerate(items)]
    kinds = {item['type'] for item in items if isinstance(item, dict) and item.get('type') in SERIES_TYPES}
    if len(kinds) > 1:
        problems.add(path, 'All series must have the same type')
    return clean


def _series_item(problems, path, item):
    if not problems.typed(path, item, 'object'):
        return None
    kind = item.get('type', MISSING)
    if not problems.present(path + '.type', kind) or not problems.enum(path + '.type', kind, SERIES_TYPES):
        return None
    if kind == 'markdown':
        if problems.present(path + '.content', item.get('content', MISSING)):
            problems.typed(path + '.content', item['content'], 'string')
        return pick(item, ITEM_KEYS[kind])
    _source_id(problems, path, item)
    if problems.present(path + '.where', item.get('where', MISSING)):
        problems.typed(path + '.where', item['where'], 'string')
    problems.optional(path, item, 'whereLanguage', problems.enum, WHERE_LANGUAGES)
    if kind == 'search':
        problems.optional(path, item, 'fields', problems.strings)
        return pick(item, ITEM_KEYS[kind])
    if problems.present(path + '.aggFn', item.get('aggFn', MISSING)):
        problems.enum(path + '.aggFn', item['aggFn'], AGG_FNS)
    for key in ('field', 'alias', 'metricName'):
        problems.optional(path, item, key, problems.typed, 'string')
    problems.optional(path, item, 'level', problems.number, 0, 1)
    problems.optional(path, item, 'numberFormat', problems.typed, 'object')
    problems.optional(path, item, 'metricDataType', problems.enum, METRIC_TYPES)
    if kind in ('time', 'table') and problems.present(path + '.groupBy', item.get('groupBy', MISSING)):
        problems.strings(path + '.groupBy', item['groupBy'], 10)
    if kind == 'number':
        problems.optional(path, item, 'groupBy', problems.strings, 10)
    if kind == 'time':
        problems.optional(path, item, 'displayType', problems.enum, ('line', 'stacked_bar'))
    if kind == 'table':
        problems.optional(path, item, 'sortOrder', problems.enum, ('asc', 'desc'))
    return pick(item, ITEM_KEYS[kind])


def _source_id(problems, path, obj):
    if problems.present(path + '.sourceId', obj.get('sourceId', MISSING)):
        problems.object_id(path + '.sourceId', obj['sourceId'])


def _config(problems, path, config):
    if not problems.typed(path, config, 'object'):
        return None
    kind = config.get('displayType', MISSING)
    if not problems.present(path + '.displayType', kind) or not problems.enum(path + '.displayType', kind, DISPLAY_TYPES):
        return None
    clean = pick(config, CONFIG_KEYS[kind])
    if kind == 'markdown':
        if problems.present(path + '.markdown', config.get('markdown', MISSING)):
            problems.typed(path + '.markdown', config['markdown'], 'string')
        return clean
    if kind == 'search':
        _source_id(problems, path, config)
        for key in ('select', 'where'):
            problems.optional(path, config, key, problems.typed, 'string')
        problems.optional(path, config, 'whereLanguage', problems.enum, WHERE_LANGUAGES)
        return clean
    raw_sql = 'configType' in clean
    if raw_sql:
        _raw_sql(problems, path, config)
        problems.optional(path, config, 'sourceId', problems.object_id)
    else:
        _source_id(problems, path, config)
    select = config.get('select', MISSING)
    if raw_sql and select is MISSING:
        pass  # the query is the SQL template
    elif problems.present(path + '.select', select) and problems.array(path + '.select', select, 1, 20):
        if kind in ONE_SELECT and len(select) != 1 and not (kind == 'number' and 'formulas' in config):
            problems.add(path + '.select', 'Array must contain exactly 1 element(s) for displayType %s' % kind)
        keys = HEATMAP_SELECT_KEYS if kind == 'heatmap' else SELECT_KEYS
        clean['select'] = [_select_item(problems, '%s.select.%d' % (path, index), item, keys) for index, item in enumerate(select)]
    for key in BOOLEAN_KEYS:
        if key in clean:
            problems.typed('%s.%s' % (path, key), config[key], 'boolean')
    for key in STRING_KEYS:
        if key in clean:
            problems.typed('%s.%s' % (path, key), config[key], 'string')
    if 'whereLanguage' in clean:
        problems.enum(path + '.whereLanguage', config['whereLanguage'], WHERE_LANGUAGES)
    for key in ('seriesLimit', 'limit'):
        if key in clean:
            problems.number('%s.%s' % (path, key), config[key], 1, integer=True)
    for key, kind_of in (('numberFormat', 'object'), ('formulas', 'array'), ('colorRules', 'array'), ('onClick', 'object')):
        if key in clean:
            problems.typed('%s.%s' % (path, key), config[key], kind_of)
    if config.get('asRatio') is True and 'asRatio' in clean and isinstance(select, list) and len(select) != 2:
        problems.add(path + '.asRatio', 'asRatio needs exactly 2 select items')
    return clean


def _raw_sql(problems, path, config):
    """A raw SQL tile: configType sql, a connectionId and a sqlTemplate (up to 100,000 characters)."""
    problems.enum(path + '.configType', config['configType'], ('sql',))
    if config.get('displayType') not in RAW_SQL_DISPLAY:
        problems.add(path + '.configType', 'Raw SQL is not available for displayType %s' % config.get('displayType'))
    if problems.present(path + '.connectionId', config.get('connectionId', MISSING)):
        problems.string(path + '.connectionId', config['connectionId'], 1)
    if problems.present(path + '.sqlTemplate', config.get('sqlTemplate', MISSING)):
        problems.string(path + '.sqlTemplate', config['sqlTemplate'], 1, 100000)


def _select_item(problems, path, item, keys):
    if not problems.typed(path, item, 'object'):
        return None
    agg_fn = item.get('aggFn', MISSING)
    if problems.present(path + '.aggFn', agg_fn):
        problems.enum(path + '.aggFn', agg_fn, AGG_FNS)
    expression = item.get('valueExpression', MISSING)
    if expression is not MISSING and problems.typed(path + '.valueExpression', expression, 'string'):
        if agg_fn == 'count' and expression:
            problems.add(path + '.valueExpression', 'Not allowed for aggFn count')
    if agg_fn in AGG_FNS and agg_fn != 'count' and not (isinstance(expression, str) and expression):
        problems.add(path + '.valueExpression', 'Required for aggFn %s' % agg_fn)
    for key in ('alias', 'where', 'metricName', 'countExpression', 'heatmapScaleType'):
        problems.optional(path, item, key, problems.typed, 'string')
    if 'level' in item and problems.typed(path + '.level', item['level'], 'number'):
        if item['level'] not in LEVELS:
            problems.add(path + '.level', 'Level must be one of %s' % ', '.join(map(str, LEVELS)))
        elif agg_fn != 'quantile':
            problems.add(path + '.level', 'Level is only allowed with aggFn quantile')
    problems.optional(path, item, 'whereLanguage', problems.enum, WHERE_LANGUAGES)
    problems.optional(path, item, 'metricType', problems.enum, METRIC_TYPES)
    problems.optional(path, item, 'numberFormat', problems.typed, 'object')
    problems.optional(path, item, 'periodAggFn', problems.enum, ('delta',))
    return pick(item, keys)


# What a tile is -------------------------------------------------------------------------------------

def source_ids(tile):
    """The source ids a (valid) tile names."""
    if 'series' in tile:
        return [item['sourceId'] for item in tile['series'] if 'sourceId' in item]
    return [tile['config']['sourceId']] if 'sourceId' in tile['config'] else []


def stored_config(tile):
    """The tile's config form as the server stores it (the reference's conversion for series tiles): a number,
    search or markdown series keeps its first item only, a number no groupBy; search fields joined with ', '."""
    if 'series' not in tile:
        return dict(tile['config'])
    items, kind = tile['series'], tile['series'][0]['type']
    first = items[0]
    if kind == 'markdown':
        return {'displayType': 'markdown', 'markdown': first['content']}
    if kind == 'search':
        config = {'displayType': 'search', 'sourceId': first['sourceId'], 'select': ', '.join(first.get('fields', [])),
                  'where': first['where'], 'whereLanguage': first.get('whereLanguage') or 'lucene'}
        return config
    if kind == 'number':
        items = items[:1]
    display = 'stacked_bar' if kind == 'time' and first.get('displayType') == 'stacked_bar' else SERIES_DISPLAY[kind]
    config = {'displayType': display, 'sourceId': first['sourceId'], 'select': [_select_of(item) for item in items]}
    if first.get('groupBy') and kind != 'number':
        config['groupBy'] = ','.join(first['groupBy'])
    number_format = next((item['numberFormat'] for item in items if 'numberFormat' in item), None)
    if number_format is not None:
        config['numberFormat'] = number_format
    if display in RATIO_DISPLAY:
        config['asRatio'] = bool(tile.get('asRatio')) and len(items) == 2
    return config


def _select_of(item):
    select = {'aggFn': item['aggFn']}
    select.update((key, item[key]) for key in ('alias', 'level', 'metricName') if item.get(key) not in (None, ''))
    if 'metricDataType' in item:
        select['metricType'] = item['metricDataType']
    select.update(valueExpression=item.get('field') or '', where=item.get('where') or '',
                  whereLanguage=item.get('whereLanguage') or 'lucene')
    return select


def display_type(tile):
    return stored_config(tile)['displayType']


def is_promql(tile):
    """Whether the tile queries in PromQL (reads leave such tiles out)."""
    config = tile.get('config') or {}
    select = config['select'] if isinstance(config.get('select'), list) else []  # a search tile's select is a string
    languages = [config.get('whereLanguage')] + [item.get('whereLanguage') for item in select + (tile.get('series') or [])]
    return 'promql' in languages


def is_contract_form(tile):
    """Whether a stored tile holds the contract's series items (dataSource, no sourceId), which only the oldest servers
    took: the servers that convert tiles to read them in series or config form fail on it."""
    return any(item.get('type') != 'markdown' and 'sourceId' not in item for item in tile.get('series') or [])


class Unreadable(Exception):
    """A dashboard this era's server cannot read: the API answers 500 (observability.handle)."""


def unresolved_containers(containers, tiles):
    """The 400 answer for tiles placed in a container (or a tab of one) that the dashboard does not have, else None."""
    tabs = _container_tabs(containers)
    missing = sorted({_unresolved(tabs, tile) for tile in tiles} - {None})
    if missing:
        return server.Response.json(400, {'message': CONTAINERS_NOT_FOUND + ', '.join(missing)})
    return None


def _unresolved(tabs, tile):
    """The tile's placement that does not resolve, as the server names it (``container`` or ``container/tab``), or None."""
    if 'containerId' not in tile or _resolves(tabs, tile):
        return None
    return '%s/%s' % (tile['containerId'], tile['tabId']) if tile['containerId'] in tabs else tile['containerId']


def _container_tabs(containers):
    """{container id: {its tab ids}} of a dashboard's containers (entries without a string id name nothing)."""
    found = {}
    for container in containers or []:
        if isinstance(container, dict) and isinstance(container.get('id'), str):
            found[container['id']] = {tab['id'] for tab in container.get('tabs') or [] if isinstance(tab, dict) and 'id' in tab}
    return found


def _resolves(tabs, tile):
    return tile['containerId'] in tabs and ('tabId' not in tile or tile['tabId'] in tabs[tile['containerId']])


# Reads ---------------------------------------------------------------------------------------------

def render(store, dashboard):
    """A dashboard as reads show it in the configured era. From the series era on, reads carry the unset filters and
    saved query (DASHBOARD_READ_DEFAULTS), and a dashboard holding contract-form tiles cannot be read (Unreadable).
    ``containers`` shows only when the dashboard has sections."""
    form = store.config['dashboard_read_form']
    if form != 'as_sent' and any(is_contract_form(tile) for tile in dashboard['tiles']):
        raise Unreadable(dashboard['id'])
    tabs = _container_tabs(dashboard.get('containers'))
    shown = {'id': dashboard['id'], 'name': dashboard['name'],
             'tiles': [read_tile(_placed(tile, tabs), form) for tile in dashboard['tiles'] if not is_promql(tile)],
             'tags': list(dashboard.get('tags', []))}
    if form != 'as_sent':
        shown.update(DASHBOARD_READ_DEFAULTS)
    shown.update({key: dashboard[key] for key in KEPT_ON_UPDATE if key in dashboard and key != 'tags'})
    if not shown.get('containers'):
        shown.pop('containers', None)
    return shown


def _placed(tile, tabs):
    """The tile without a reference to a container (or tab) that is gone: reads drop it."""
    if 'containerId' not in tile or _resolves(tabs, tile):
        return tile
    keep = dict(tile)
    keep.pop('tabId', None)
    if keep['containerId'] not in tabs:
        keep.pop('containerId')
    return keep


def read_tile(tile, form):
    """One stored tile as a read in ``form`` shows it."""
    if form == 'as_sent':
        return dict(tile)
    head = pick(tile, ('id', 'name', 'x', 'y', 'w', 'h', 'containerId', 'tabId'))
    config = _readable(stored_config(tile))
    if form == 'series' and config['displayType'] in SERIES_FORM_DISPLAY and not CONFIG_ONLY & set(config):
        return dict(head, asRatio=bool(config.get('asRatio')), series=series_of(config))
    config = _config_read(config)
    if form == 'series':
        return dict(head, config=config)
    return dict(head, config=with_defaults(config))


def _readable(config):
    """The stored config as reads show it: a level only for quantile at 0.5, 0.9, 0.95 or 0.99."""
    if not isinstance(config.get('select'), list):
        return config
    select = []
    for item in config['select']:
        if 'level' in item and not (item.get('aggFn') == 'quantile' and item['level'] in LEVELS):
            item = {key: value for key, value in item.items() if key != 'level'}
        select.append(item)
    return dict(config, select=select)


def _config_read(config):
    """What every config-form read adds and leaves out: heatmap and event_patterns tiles get a config-level where and
    whereLanguage; an empty groupBy is left out, as is a count select item's leftover valueExpression."""
    config = dict(config)
    if config['displayType'] in WHERE_DISPLAY:
        config.update((key, config.get(key, value)) for key, value in WHERE_DEFAULTS.items())
    if config.get('groupBy') == '':
        del config['groupBy']
    if isinstance(config.get('select'), list):
        config['select'] = [{key: value for key, value in item.items() if (item.get('aggFn'), key) != ('count', 'valueExpression')}
                            for item in config['select']]
    return config


def with_defaults(config):
    """The config form as the newest servers read it back: fillNulls (line and stacked_bar, raw SQL too), asRatio,
    where, whereLanguage and valueExpression where unset; a number tile carries neither fillNulls nor asRatio."""
    config = dict(config)
    kind = config['displayType']
    if kind in ('line', 'stacked_bar'):
        config.setdefault('fillNulls', True)
    if kind in RATIO_DISPLAY and 'configType' not in config:
        config['asRatio'] = bool(config.get('asRatio')) and len(config.get('select', [])) == 2
    if kind == 'search':
        config.update((key, config.get(key, value)) for key, value in WHERE_DEFAULTS.items())
    if isinstance(config.get('select'), list):
        config['select'] = [dict(item, **{key: item.get(key, value) for key, value in SELECT_DEFAULTS.items()
                                          if (item.get('aggFn'), key) != ('count', 'valueExpression')})
                            for item in config['select']]
    return config


def series_of(config):
    """The series form of a stored config (the early-2026 servers' reads)."""
    kind = config['displayType']
    if kind == 'markdown':
        return [{'type': 'markdown', 'content': config['markdown']}]
    if kind == 'search':
        fields = [field.strip() for field in config.get('select', '').split(',') if field.strip()]
        return [{'type': 'search', 'sourceId': config['sourceId'], 'where': config.get('where', ''),
                 'whereLanguage': config.get('whereLanguage') or 'lucene', 'fields': fields}]
    item_type = {'line': 'time', 'stacked_bar': 'time', 'table': 'table', 'number': 'number'}[kind]
    group_by = [field for field in config.get('groupBy', '').split(',') if field]
    items = []
    for index, select in enumerate(config.get('select') or []):
        item = {'type': item_type, 'sourceId': config.get('sourceId'), 'aggFn': select['aggFn'],
                'field': select.get('valueExpression', ''), 'where': select.get('where', ''),
                'whereLanguage': select.get('whereLanguage') or 'lucene'}
        item.update(pick(select, ('alias', 'level', 'metricName')))
        if 'metricType' in select:
            item['metricDataType'] = select['metricType']
        if item_type != 'number':
            item['groupBy'] = list(group_by)
        if item_type == 'time':
            item['displayType'] = kind
        if index == 0 and 'numberFormat' in config:
            item['numberFormat'] = config['numberFormat']
        items.append(item)
    return items
