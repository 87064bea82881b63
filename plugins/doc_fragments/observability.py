# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # Options of every module and plugin that talks to the observability API. Plugins add the env
    # entries of observability_url, api_token and api_rate_limit in their own options (set_options
    # reads them); modules have the same variables as fallbacks in their argument spec.
    DOCUMENTATION = r'''
options:
  observability_url:
    description:
      - Base address of the observability API, for example V(https://observability.engine.example).
      - Without the C(/api/v2) path; a value that ends in C(/api/v2) or C(/v1) is refused.
      - "Required: set this option or the E(ENGINE_OBSERVABILITY_URL) environment variable. An empty value counts as not set."
    type: str
  api_token:
    description:
      - "Token sent as C(Authorization: Bearer <token>)."
      - "Required: set this option or the E(ENGINE_OBSERVABILITY_TOKEN) environment variable. An empty value counts as not set."
      - Never logged nor returned.
    type: str
  validate_certs:
    description:
      - Whether to verify the TLS certificate of the API.
      - A CA bundle can be given with the E(REQUESTS_CA_BUNDLE) environment variable.
      - Only set to V(false) against a test server you control.
    type: bool
    default: true
  api_timeout:
    description:
      - Seconds to wait for each HTTP response.
    type: int
    default: 30
  api_retries:
    description:
      - How many times a request is retried after HTTP 429, 502, 503, 504, a connection error or a timeout, waiting as
        the API asks (C(Retry-After) or C(RateLimit-Reset), at most 60 seconds a wait) or with exponential backoff
        and jitter. V(0) disables retries.
      - Requests are paced under the API's rate limit first (O(api_rate_limit)); retries are the safety net for a 429
        that comes anyway.
    type: int
    default: 5
  api_rate_limit:
    description:
      - The limit under which every process of this controller that uses the same token and O(observability_url)
        paces its requests, so that a request waits for a free slot instead of a 429.
      - V(REQUESTS/SECONDS), for example V(200/60); not set, E(ENGINE_OBSERVABILITY_RATE_LIMIT), else the API's V(100/60).
        V(off) turns pacing off.
      - Set it for C(group/engine.cloud.observability), not C(group/engine.cloud.all). More in the
        R(troubleshooting guide,ansible_collections.engine.cloud.docsite.troubleshooting), "Rate limits".
    type: raw
notes:
  - Proxies are taken from the E(HTTPS_PROXY), E(HTTP_PROXY) and E(NO_PROXY) environment variables.
'''

    # The observability API's options as the management modules see them: accepted and ignored.
    UNUSED = r'''
options:
  observability_url:
    description:
      - Not used by this module, which talks to the cloud management API.
      - Accepted so that one C(module_defaults) entry for C(group/engine.cloud.all) can hold the credentials of both APIs.
    type: str
  api_token:
    description:
      - Not used by this module; accepted for C(group/engine.cloud.all) defaults, like O(observability_url). Never logged.
    type: str
'''
