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
      - How many times a request is retried after HTTP 429, 502, 503, 504, a connection error or a timeout.
      - Waits grow exponentially with jitter, and follow C(Retry-After) or C(RateLimit-Reset) when the API sends them (at most 60 seconds each).
      - V(0) disables retries.
      - Requests are paced under the API's rate limit first (see O(api_rate_limit)), so with many forks
        on one token a task waits for its turn rather than being refused; retries are the safety net for a
        429 that comes anyway.
    type: int
    default: 5
  api_rate_limit:
    description:
      - The rate limit under which every process of this controller that uses the same token against the
        same O(observability_url) paces its requests, all together (forks, ad-hoc C(ansible -f), ansible-runner
        jobs). A request that would go over waits for a free slot instead of being refused with HTTP 429.
      - Not set, it is the observability API's limit, V(100/60) (100 requests in any 60 seconds per token).
        V(REQUESTS/SECONDS) sets another, for example V(200/60) for a raised limit.
        V(off) (or V(false)) turns pacing off.
      - If not set, the value of the E(ENGINE_OBSERVABILITY_RATE_LIMIT) environment variable is used.
      - Set it for C(group/engine.cloud.observability), not C(group/engine.cloud.all), because the management API
        has a limit of its own.
      - With pacing on, in a playbook run, the dashboards or alerts listing that one task of M(engine.cloud.dashboard)
        or M(engine.cloud.alert) read serves the reads before acting of the later tasks of the run, for up to 60
        seconds and until any task of the run writes with the same token, so a no-op apply of many dashboards and alerts
        sends a few list reads. A task that finds something to change reads its object again before it writes. A change
        made outside the run (in the UI) shows to its no-op decisions up to 60 seconds late. V(off) turns that off too,
        as does the E(ENGINE_CLOUD_READ_REUSE) environment variable set to V(off) (or to other seconds).
      - A task that waited more than 5 seconds in all for its turn says so in a warning.
      - The shared state (a small file per token and base address, named by a hash of both) lives where
        O(engine.cloud.service_info#module:api_rate_limit) says, and pacing has the limits said there;
        several controllers or AWX execution nodes that use one token do not share it.
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
