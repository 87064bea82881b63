# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The observability API (/api/v2): token, the {data} wrapper, and paged listings."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.base import (
    CLOUD_CONNECTION, OBSERVABILITY_CONNECTION, Api, EngineModule, missing_connection_errors, option_source)
from ansible_collections.engine.cloud.plugins.module_utils.pacer import ApiLimit

AUTH_HINT = 'The observability API refused the token: check api_token (ENGINE_OBSERVABILITY_TOKEN)'
PAGE_SIZE = 1000
PREFIX = '/api/v2'

# The live limit of this API, per credential (reference/README.md).
RATE_LIMIT = ApiLimit(requests=100, seconds=60, env='ENGINE_OBSERVABILITY_RATE_LIMIT', credential='api_token')


def connection_errors(params, uuid_options=()):
    """Messages for missing connection options; when none is missing, for a bad observability_url
    (None for a good one), in a list. This API has no UUID options (uuid_options is empty)."""
    return missing_connection_errors(OBSERVABILITY_CONNECTION, params) or [validate.url('observability_url', params['observability_url'])]


def client_options(params):
    """The observability API's part of the HTTP client: base address, Bearer token, what a 401 means
    and what to check when no connection can be made."""
    return dict(base_url=params['observability_url'], token=params['api_token'], auth_hint=AUTH_HINT,
                url_hint='Check %s' % option_source(OBSERVABILITY_CONNECTION, 'observability_url'))


# The observability API, for its modules (ObservabilityModule) and plugins (plugin_utils.api.open_client).
API = Api(OBSERVABILITY_CONNECTION, RATE_LIMIT, client_options, connection_errors, also=CLOUD_CONNECTION)


class ObservabilityModule(EngineModule):
    """A module of the observability API; these modules only read."""

    api = API

    def read(self, path, params=None, missing_ok=False):
        """The data of a GET; an API error fails the task; with missing_ok, None when the API answers 404."""
        body = self.request_or_fail('GET', PREFIX + path, params=params, missing_ok=missing_ok)
        return None if body is None else body.get('data')

    def post(self, path, body):
        return self.request_or_fail('POST', PREFIX + path, body=body).get('data')

    def list_all(self, path, page_size=PAGE_SIZE):
        """Every item of a listing: follows limit/offset pages while the server reports meta.total;
        a server without paging answers all at once, without meta."""
        items = []
        while True:
            body = self.request_or_fail('GET', PREFIX + path, params=dict(limit=page_size, offset=len(items)))
            page = body.get('data') or []
            items.extend(page)
            meta = body.get('meta')
            if not isinstance(meta, dict) or not page or len(items) >= int(meta.get('total', 0)):
                return items
