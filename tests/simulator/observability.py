"""The observability API under /api/v2: dashboards, alerts, chart series, the team's sources and webhooks. A token
reaches its own team's objects only: another team's are not found."""

import re

from . import alerts, dashboards, series, server

NAME = 'observability'
PREFIX = '/api/v2'


def all_alerts(store):
    """Every alert of the fixture's team as the listing shows it (the unit tests compare module results with it)."""
    return alerts.all_alerts(store)


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
            # Every request counts, whatever the rate_limit switch (the live server always counts); only the refusal needs it on.
            limit_headers = _rate_limit(store, request.headers.get('Authorization', ''))
            tenant = _authenticate(store, request.headers.get('Authorization'))
            response = _route(store, tenant, request)
    except ObservabilityError as exc:
        response = exc.response
    except Exception:  # pylint: disable=broad-except
        # a server error, and what an era's server cannot read (dashboards.Unreadable)
        response = server.Response.json(500, {'message': 'Something went wrong :('})
    response.headers.update(limit_headers)
    return response


def _rate_limit(store, credential):
    window = store.observability_limiter.hit(credential, store.clock.time())
    headers = {'RateLimit-Limit': 100, 'RateLimit-Remaining': window.remaining, 'RateLimit-Reset': window.reset}
    if not window.allowed and store.config['rate_limit']:
        raise ObservabilityError(server.Response.text(429, 'Too many requests, please try again later.',
                                                      dict(headers, **{'Retry-After': 60})))
    return headers


def _authenticate(store, header):
    """The Tenant whose team the token is of."""
    tenant = store.tenant_of_token(header[len('Bearer '):]) if header and header.startswith('Bearer ') else None
    if tenant is None:
        raise ObservabilityError(server.Response.text(401, 'Unauthorized'))
    return tenant


def chart_series(store, tenant, request):
    """POST /api/v2/charts/series."""
    content_type = request.headers.get('Content-Type', '').split(';')[0].strip().lower()
    body = request.json_body() if content_type == 'application/json' else {}
    problems = series.validate(body)
    if problems:
        return server.Response.json(400, {'message': 'Body validation failed: ' + '; '.join(problems)})
    for index, item in enumerate(body['series']):
        if item['sourceId'].lower() not in tenant.sources:
            return server.Response.json(404, {'error': 'Source not found for series %d' % (index + 1)})
    try:
        rows = series.compute(body)
    except series.WhereError as exc:
        return server.Response.json(500, {'error': str(exc)})
    return server.Response.json(200, {'data': rows})


def validate_dashboard(store, tenant, request):
    """POST /api/v2/dashboards/validate: from version 2.30 (config key alert_version) on; before, no such route."""
    if alerts.version(store) < VALIDATE_SINCE:
        return server.Response.text(404, 'Not Found')
    return dashboards.validate_dashboard(store, tenant, _body(request))


VALIDATE_SINCE = (2, 30)
ROUTES = (
    ('GET', r'/api/v2/dashboards', lambda store, tenant, request: dashboards.list_dashboards(store, tenant)),
    ('POST', r'/api/v2/dashboards', lambda store, tenant, request: dashboards.create_dashboard(store, tenant, _body(request))),
    ('POST', r'/api/v2/dashboards/validate', validate_dashboard),
    ('GET', r'/api/v2/dashboards/([^/]+)', lambda store, tenant, request, id_: dashboards.get_dashboard(store, tenant, id_)),
    ('PUT', r'/api/v2/dashboards/([^/]+)',
     lambda store, tenant, request, id_: dashboards.update_dashboard(store, tenant, id_, _body(request))),
    ('DELETE', r'/api/v2/dashboards/([^/]+)', lambda store, tenant, request, id_: dashboards.delete_dashboard(store, tenant, id_)),
    ('GET', r'/api/v2/alerts', lambda store, tenant, request: alerts.list_alerts(store, tenant, request.query_pairs)),
    ('POST', r'/api/v2/alerts', lambda store, tenant, request: alerts.create_alert(store, tenant, _body(request))),
    ('GET', r'/api/v2/alerts/([^/]+)', lambda store, tenant, request, id_: alerts.get_alert(store, tenant, id_)),
    ('PUT', r'/api/v2/alerts/([^/]+)', lambda store, tenant, request, id_: alerts.update_alert(store, tenant, id_, _body(request))),
    ('DELETE', r'/api/v2/alerts/([^/]+)', lambda store, tenant, request, id_: alerts.delete_alert(store, tenant, id_)),
    ('POST', r'/api/v2/charts/series', chart_series),
    ('GET', r'/api/v2/sources', lambda store, tenant, request: server.Response.json(200, {'data': list(tenant.sources.values())})),
    ('GET', r'/api/v2/webhooks', lambda store, tenant, request: server.Response.json(200, {'data': tenant.webhooks})),
)


def _route(store, tenant, request):
    for method, pattern, handler in ROUTES:
        match = re.fullmatch(pattern, request.path)
        if match and method == request.method:
            return handler(store, tenant, request, *match.groups())
    return server.Response.text(404, 'Not Found')


def _body(request):
    """The JSON body; a body that is not JSON, or not sent as JSON, reads as {} (as for chart series)."""
    content_type = request.headers.get('Content-Type', '').split(';')[0].strip().lower()
    body = request.json_body() if content_type == 'application/json' else None
    return {} if body is None else body
