# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The observability API (/api/v2): token, the {data} envelope, and paged listings."""

import json

from ansible_collections.engine.cloud.plugins.module_utils.module import CLOUD_CONNECTION, OBSERVABILITY_CONNECTION, Api, EngineModule
from ansible_collections.engine.cloud.plugins.module_utils.pacing import ApiLimit

AUTH_HINT = 'The observability API refused the token: check api_token (ENGINE_OBSERVABILITY_TOKEN)'
PAGE_SIZE = 1000
PREFIX = '/api/v2'
RATE_LIMIT = ApiLimit(requests=100, seconds=60, env='ENGINE_OBSERVABILITY_RATE_LIMIT', credential='api_token')
API = Api(OBSERVABILITY_CONNECTION, 'observability_url', RATE_LIMIT, lambda params: dict(token=params['api_token']), AUTH_HINT, 'data',
          also=CLOUD_CONNECTION)


def list_all(request, path, page_size=PAGE_SIZE):
    """Every item of a listing: limit/offset pages while the server reports meta.total (older servers answer all at once,
    without meta). A listing that ends short of its total raises ValueError: it is never taken for whole."""
    items = []
    while True:
        body = request('GET', PREFIX + path, dict(limit=page_size, offset=len(items)))
        page = body.get('data') if isinstance(body, dict) else None
        if not isinstance(page, list):
            raise ValueError('the listing of %s answered no list of items (%s)' % (path, type(page).__name__))
        items.extend(page)
        meta = body.get('meta')
        if not isinstance(meta, dict):
            return items
        total = int(meta.get('total', 0))
        if len(items) >= total:
            return items
        if not page:
            raise ValueError('the listing of %s ended after %d of the %d items it counts' % (path, len(items), total))


def team_errors(module, route, wanted, what):
    """Check mode: a message for each id in wanted that the team's list at route (/sources, /webhooks) does not hold, as
    the API would refuse it (a real run leaves that to the API's answer); none on a server without the route."""
    if not module.check_mode or not wanted:
        return []
    listed = module.read(route, missing_ok=True)
    known = None if listed is None else set(str(item.get('id')) for item in listed)
    return [] if known is None else ['%s %s is not one of the team\'s (%s): the API would refuse it' % (what, json.dumps(item), ', '.join(
        sorted(known)) or 'it has none') for item in sorted(set(wanted) - known)]


class ObservabilityModule(EngineModule):
    api = API

    def read(self, path, params=None, missing_ok=False):
        body = self.request_or_fail('GET', PREFIX + path, params=params, missing_ok=missing_ok)
        return None if body is None else body.get('data')

    def post(self, path, body):
        return self.request_or_fail('POST', PREFIX + path, body=body).get('data')

    def list_all(self, path):
        try:
            return list_all(lambda method, target, params: self.request_or_fail(method, target, params=params), path)
        except ValueError as error:
            self.fail('%s; nothing was sent' % error)
