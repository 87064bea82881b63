"""POST /_admin/seed: the fixture's organization and team at scale, deterministic (ids from fixture_ids.seeded_*).

Every shape the collection manages is represented, cycling by number: services of the four fixture shapes (aws production
vertical with TDE and private endpoints, gcp development, azure production with a tag without value, horizontal
autoscaling), IP access lists of 0 to 2 entries, tags; pipes of the four source kinds (kafka with a reverse private
endpoint of its service, objectStorage, stream, postgres with table mappings); dashboards of line, table and number tiles,
config form, every fourth in series form, every third with sections; alerts on tiles and on the saved search, above,
below, between and not_between, with one to three channels, texts, windows and schedules.
"""

import copy

from .checks import MISSING
from .fixture_ids import (seeded_alert, seeded_dashboard, seeded_endpoint, seeded_pipe, seeded_service, seeded_tile)
from .state import ConfigError, internal_alert

LIMITS = {'services': 200, 'pipes_per_service': 10, 'dashboards': 500, 'alerts': 5000}
SERVICE_SHAPES = ('prod-analytics', 'ingest-staging', 'ingest-eu', 'events-horizontal')
PIPE_SHAPES = ('orders-kafka', 'events-objectstorage', 'clicks-stream', 'users-postgres')
STAMP = '2025-%02d-%02dT%02d:%02d:00.000Z'


def check(spec):
    """The seed's counts ({services, pipes_per_service, dashboards, alerts}, each defaulted to 0) and keep_fixtures."""
    if not isinstance(spec, dict):
        raise ConfigError('body must be a JSON object')
    unknown = sorted(set(spec) - set(LIMITS) - {'keep_fixtures'})
    if unknown:
        raise ConfigError('unknown seed field(s): ' + ', '.join(unknown))
    counts = {}
    for key, top in LIMITS.items():
        value = spec.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
            raise ConfigError('%s must be an integer between 0 and %d' % (key, top))
        counts[key] = value
    keep = spec.get('keep_fixtures', False)
    if not isinstance(keep, bool):
        raise ConfigError('keep_fixtures must be a boolean')
    return counts, keep


def seed(store, spec):
    """Seed the fixture's organization and team; without keep_fixtures, their services (with pipes and endpoints),
    dashboards and alerts go first. Returns the ids seeded, by kind."""
    counts, keep = check(spec)
    with store.lock:
        fixtures = {kind: {item['name']: item for item in store.fixtures[kind]} for kind in ('services', 'pipes')}
        if not keep:
            _clear(store)
        seeded = {'services': [], 'pipes': [], 'reversePrivateEndpoints': [], 'dashboards': [], 'alerts': []}
        for number in range(1, counts['services'] + 1):
            service = _service(fixtures['services'][SERVICE_SHAPES[(number - 1) % len(SERVICE_SHAPES)]], number)
            store.services[service['id']] = service
            seeded['services'].append(service['id'])
            for pipe_number in range(1, counts['pipes_per_service'] + 1):
                index = (number - 1) * counts['pipes_per_service'] + pipe_number - 1
                pipe = _pipe(fixtures['pipes'][PIPE_SHAPES[index % len(PIPE_SHAPES)]], service, number, pipe_number)
                store.pipes[pipe['id']] = pipe
                seeded['pipes'].append(pipe['id'])
                if pipe['source']['kafka'] and seeded_endpoint(number) not in store.endpoints:
                    store.endpoints[seeded_endpoint(number)] = _endpoint(store.fixtures['reversePrivateEndpoints'][0], service, number)
                    seeded['reversePrivateEndpoints'].append(seeded_endpoint(number))
        tenant = store.primary
        sources = sorted(tenant.sources)
        dashboards = [_dashboard(number, sources) for number in range(1, counts['dashboards'] + 1)]
        for dashboard in dashboards:
            store.dashboards[dashboard['id']] = dashboard
            seeded['dashboards'].append(dashboard['id'])
        webhooks = [webhook['id'] for webhook in tenant.webhooks]
        for number in range(1, counts['alerts'] + 1):
            alert = _alert(number, dashboards, webhooks, tenant)
            store.alerts.append(alert)
            seeded['alerts'].append(alert['id'])
    return seeded


def _clear(store):
    organization, team = store.primary.organization, store.primary.team['id']
    gone = {service_id for service_id, service in store.services.items() if store.organization_of(service) == organization}
    for objects in (store.pipes, store.endpoints):
        for object_id in [object_id for object_id, obj in objects.items() if obj['serviceId'] in gone]:
            del objects[object_id]
    for service_id in gone:
        del store.services[service_id]
    for dashboard_id in [dashboard_id for dashboard_id, dashboard in store.dashboards.items() if store.team_of(dashboard) == team]:
        del store.dashboards[dashboard_id]
    store.delete_alerts(lambda alert: alert['teamId'] == team)


def _service(template, number):
    """A running service of the template's shape, with a name, hosts, tags and an IP access list of its own."""
    service = copy.deepcopy(template)
    service.pop('_pending', None)
    name = 'seed-%02d' % number
    service.update(id=seeded_service(number), name=name, state='running', createdAt=STAMP % (1, 1, number % 24, 0),
                   dataWarehouseId='dw-seed%06d' % number, isPrimary=True)
    old_host = service['endpoints'][0]['host']
    host = '%s-%06d.%s' % (name, number, old_host.split('.', 1)[1])
    for endpoint in service['endpoints']:
        endpoint['host'] = host
    service['tags'] = [tag for tag in service['tags'] if tag['key'] != 'team'] + [{'key': 'team', 'value': 'team-%d' % (number % 3)}]
    service['ipAccessList'] = [{'source': '10.%d.%d.0/24' % (number, entry), 'description': 'seed network %d' % entry}
                               for entry in range(number % 3)]
    return service


def _pipe(template, service, service_number, number):
    pipe = copy.deepcopy(template)
    kind = next(kind for kind, source in pipe['source'].items() if source is not None)
    pipe.update(id=seeded_pipe(service_number, number), serviceId=service['id'], name='%s-%s-%d' % (service['name'], kind.lower(), number),
                createdAt=STAMP % (2, 1, 0, number), updatedAt=STAMP % (3, 1, 0, number))
    if pipe['destination'].get('table'):
        pipe['destination']['table'] = '%s_%d' % (pipe['destination']['table'], number)
    if kind == 'kafka':
        pipe['source']['kafka'].update(consumerGroup='pipes-%s' % pipe['name'], reversePrivateEndpointIds=[seeded_endpoint(service_number)])
    return pipe


def _endpoint(template, service, number):
    endpoint = copy.deepcopy(template)
    endpoint.update(id=seeded_endpoint(number), serviceId=service['id'], description='brokers of %s' % service['name'])
    return endpoint


def _dashboard(number, sources):
    """Line, table and number tiles (config form; every fourth dashboard in series form); every third dashboard has a
    section with two tabs and a section without, and places its line and table tiles in them."""
    source = sources[number % len(sources)]
    series = number % 4 == 0
    tiles = [_tile(number, 1, 'Requests', (0, 0, 12, 4), 'line', source, series),
             _tile(number, 2, 'Top hosts', (12, 0, 12, 4), 'table', source, series),
             _tile(number, 3, 'Errors', (0, 4, 6, 2), 'number', source, series)]
    dashboard = {'id': seeded_dashboard(number), 'name': 'Seed dashboard %02d' % number, 'tiles': tiles,
                 'tags': ['seed', 'team-%d' % (number % 3)]}
    if number % 3 == 0:
        dashboard['containers'] = [{'id': 'overview', 'tabs': [{'id': 'now'}, {'id': 'week'}]}, {'id': 'details', 'tabs': []}]
        tiles[0].update(containerId='overview', tabId='now')
        tiles[1]['containerId'] = 'details'
    return dashboard


def _tile(dashboard_number, number, name, place, kind, source, series):
    tile = dict(zip(('x', 'y', 'w', 'h'), place), id=seeded_tile(dashboard_number, number), name=name)
    aggregation = {'line': ('avg', 'query.duration_ms'), 'table': ('max', 'cpu.usage'), 'number': ('count', MISSING)}[kind]
    if series:
        item = {'type': {'line': 'time'}.get(kind, kind), 'sourceId': source, 'aggFn': aggregation[0], 'where': 'env:seed'}
        if aggregation[1] is not MISSING:
            item['field'] = aggregation[1]
        if kind != 'number':
            item['groupBy'] = ['host']
        tile['series'] = [item]
        return tile
    select = {'aggFn': aggregation[0], 'where': 'env:seed', 'whereLanguage': 'lucene'}
    if aggregation[1] is not MISSING:
        select['valueExpression'] = aggregation[1]
    tile['config'] = {'displayType': kind, 'sourceId': source, 'select': [select]}
    if kind != 'number':
        tile['config']['groupBy'] = 'host'
    return tile


def _alert(number, dashboards, webhooks, tenant):
    """One of five forms by number: a tile alert above; below with texts and two channels; between with windows; on
    the saved search with groupBy and a start; not_between with an offset and three channels."""
    form = number % 5 if dashboards else 3
    channels = [{'type': 'webhook', 'webhookId': webhook} for webhook in webhooks[:(1, 2, 1, 1, 3)[form]]]
    stamp = STAMP % (4 + number // 1440 % 8, 1, number // 60 % 24, number % 60)
    alert = {'id': seeded_alert(number), 'name': 'Seed alert %03d' % number, 'threshold': number % 50 + 1, 'interval': '5m',
             'thresholdType': ('above', 'below', 'between', 'above', 'not_between')[form], 'channel': channels[0],
             'channels': channels, 'teamId': tenant.team['id'], 'state': 'OK', 'createdAt': stamp, 'updatedAt': stamp}
    if form == 3:
        alert.update(source='saved_search', savedSearchId=tenant.saved_searches[0]['id'], groupBy='service', interval='1h',
                     scheduleStartAt='2025-06-01T00:00:00.000Z')
        return internal_alert(alert)
    dashboard = dashboards[number % len(dashboards)]
    tile = dashboard['tiles'][2 if form in (1, 4) else 0]  # the number tile or the line tile: both carry alerts
    alert.update(source='tile', dashboardId=dashboard['id'], tileId=tile['id'])
    if form == 1:
        alert.update(message='Errors in %s' % dashboard['name'], note='Seeded: page the owner', interval='15m')
    if form in (2, 4):
        alert['thresholdMax'] = alert['threshold'] + 10
    if form == 2:
        alert['numConsecutiveWindows'] = 2
    if form == 4:
        alert.update(interval='1h', scheduleOffsetMinutes=5)
    return internal_alert(alert)
