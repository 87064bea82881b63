# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # Options of every module that talks to the observability API.
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
      - Every host of a play uses the same token, and the API limits each token (100 requests per minute).
        With many forks the hosts take turns, and a task can be refused several times in a row;
        raise O(api_retries), for example to V(10) for 10 forks.
    type: int
    default: 5
notes:
  - Proxies are taken from the E(HTTPS_PROXY), E(HTTP_PROXY) and E(NO_PROXY) environment variables.
  - "Runs on the controller (C(hosts: localhost) or C(delegate_to: localhost))."
requirements:
  - requests
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
