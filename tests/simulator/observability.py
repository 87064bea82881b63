"""The observability API under /api/v2: dashboards, alerts and chart series."""

import re
import time

from . import series, server

NAME = 'observability'
PREFIX = '/api/v2'
OBJECT_ID = re.compile(r'[0-9a-fA-F]{24}')
ALERT_QUERY = {'limit': (1, 1000), 'offset': (0, None)}
GENERATED_ALERT_EPOCH = 1727740800  # 2024-10-01T00:00:00Z, after every fixture alert


class ObservabilityError(Exception):
    """An error answered with a given response."""

    def __init__(self, response):
        super().__init__(response.status)
        self.response = response


def fault_response(status):
    """Default body of an injected ``status`` fault."""
    return server.Response.json(status, {'message': 'Something went wrong :('})


def handle(store, request):
    """Answer one /api/v2 request."""
    limit_headers = {}
    try:
        with store.lock:
            if store.config['rate_limit']:
                limit_headers = _rate_limit(store, request.headers.get('Authorization', ''))
            _authenticate(store, request.headers.get('Authorization'))
            response = _route(store, request)
    except ObservabilityError as exc:
        response = exc.response
    except Exception:  # pylint: disable=broad-except
        response = server.Response.json(500, {'message': 'Something went wrong :('})
    response.headers.update(limit_headers)
    return response


def _rate_limit(store, credential):
    window = store.observability_limiter.hit(credential, store.clock.time())
    headers = {'RateLimit-Limit': 100, 'RateLimit-Remaining': window.remaining, 'RateLimit-Reset': window.reset}
    if not window.allowed:
        raise ObservabilityError(server.Response.text(429, 'Too many requests, please try again later.', headers))
    return headers


def _authenticate(store, header):
    if not header or not header.startswith('Bearer ') or header[len('Bearer '):] not in store.fixtures['tokens']:
        raise ObservabilityError(server.Response.text(401, 'Unauthorized'))


def _route(store, request):
    path, method = request.path, request.method
    match = re.fullmatch(r'/api/v2/dashboards/([^/]+)', path)
    if match and method == 'GET':
        return get_dashboard(store, match.group(1))
    if (method, path) == ('GET', '/api/v2/alerts'):
        return list_alerts(store, request.query_pairs)
    if (method, path) == ('POST', '/api/v2/charts/series'):
        return chart_series(store, request)
    return server.Response.text(404, 'Not Found')


def get_dashboard(store, dashboard_id):
    """GET /api/v2/dashboards/{id}."""
    if not OBJECT_ID.fullmatch(dashboard_id):
        return server.Response.json(400, {'message': 'Params validation failed: id: Invalid ObjectId'})
    dashboard = store.dashboards.get(dashboard_id.lower())
    if dashboard is None:
        return server.Response.text(404, 'Not Found')
    return server.Response.json(200, {'data': dashboard})


def list_alerts(store, pairs):
    """GET /api/v2/alerts, paged (newer servers) or all at once (older servers)."""
    alerts = all_alerts(store)
    paging = store.config['alerts_paging']
    query = _alert_query(pairs, paging)
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
        raise ObservabilityError(server.Response.json(400, {'message': 'Query validation failed: ' + '; '.join(problems)}))
    return query


def all_alerts(store):
    """Fixture alerts plus ``alert_count`` generated ones, ordered by createdAt then id."""
    dashboards = sorted(store.dashboards.values(), key=lambda d: d['id'])
    generated = [_generated_alert(dashboards, index) for index in range(store.config['alert_count'])]
    return sorted(store.alerts + generated, key=lambda alert: (alert['createdAt'], alert['id']))


def _generated_alert(dashboards, index):
    dashboard = dashboards[index % len(dashboards)]
    tile = dashboard['tiles'][index % len(dashboard['tiles'])]
    stamp = time.strftime('%Y-%m-%dT%H:%M:%S.000Z', time.gmtime(GENERATED_ALERT_EPOCH + index * 60))
    states = ('OK', 'ALERT', 'inactive', 'INSUFFICIENT_DATA', 'DISABLED')
    return {
        'id': '66%022x' % index, 'name': 'Generated alert %d' % index, 'message': 'Generated for scale tests',
        'threshold': index % 100, 'interval': ('1m', '5m', '15m', '1h')[index % 4],
        'thresholdType': ('above', 'below')[index % 2], 'source': 'tile', 'state': states[index % len(states)],
        'channel': {'type': 'webhook', 'webhookId': '65d000000000000000000001'}, 'team': '65e000000000000000000001',
        'tileId': tile['id'], 'dashboard': dashboard['id'], 'createdAt': stamp, 'updatedAt': stamp,
    }


def chart_series(store, request):
    """POST /api/v2/charts/series."""
    content_type = request.headers.get('Content-Type', '').split(';')[0].strip().lower()
    body = request.json_body() if content_type == 'application/json' else {}
    problems = series.validate(body)
    if problems:
        return server.Response.json(400, {'message': 'Body validation failed: ' + '; '.join(problems)})
    for index, item in enumerate(body['series']):
        if item['sourceId'].lower() not in store.sources:
            return server.Response.json(404, {'error': 'Source not found for series %d' % (index + 1)})
    try:
        rows = series.compute(body)
    except series.WhereError as exc:
        return server.Response.json(500, {'error': str(exc)})
    return server.Response.json(200, {'data': rows})
