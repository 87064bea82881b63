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
      - Never logged nor returned. White space around it (the newline that C(echo ... | ansible-vault encrypt_string) adds) is removed.
    type: str
  validate_certs:
    description:
      - Whether to verify the TLS certificate of the API (and of an C(https://) proxy), against O(ca_path).
      - Only set to V(false) against a test server you control.
    type: bool
    default: true
  ca_path:
    description:
      - A PEM file of CA certificates, or a directory of them (hashed as C(openssl rehash) makes it), that
        verifies the API's certificate, for an API or proxy with a certificate of a private CA.
      - If not set, the first of the environment variables E(REQUESTS_CA_BUNDLE), E(CURL_CA_BUNDLE), E(SSL_CERT_FILE)
        and E(SSL_CERT_DIR) that is set, else the CA bundle of the Python package C(certifi) that C(requests) uses.
      - A path that does not exist fails the task before anything is sent.
    type: path
  client_cert:
    description:
      - A PEM file with the client certificate to present to an API (or a gateway in front of it) that asks for one
        (mutual TLS); with its private key too, unless O(client_key) names the key's file.
    type: path
  client_key:
    description:
      - The PEM file of the private key of O(client_cert), not encrypted; only with O(client_cert).
    type: path
  api_timeout:
    description:
      - Seconds each HTTP request may take in all, from connecting to the last byte of the answer; a server that
        sends its answer slower fails the request as a timeout (retried as O(api_retries) says).
      - An answer larger than 32 MiB is not read, and fails the task.
    type: int
    default: 30
  api_retries:
    description:
      - How many times a request is retried after HTTP 429, 502, 503, 504, a connection error or a timeout, waiting as
        the API asks (C(Retry-After) or C(RateLimit-Reset), at most 60 seconds a wait) or with exponential backoff
        and jitter. V(0) disables retries.
      - A refused connection, a name that does not resolve, a TLS error and an HTTP 3xx are not retried. Requests are
        paced under the API's rate limit first (O(api_rate_limit)); retries are the safety net for a 429 that comes anyway.
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
  - Every task reads what it acts on itself; nothing is kept from one task for a later one. To apply many dashboards and
    alerts at the token's budget, M(engine.cloud.organization) reads one list per type for all of them.
  - A task that waited more than 5 seconds in all for its turn under O(api_rate_limit) says so in a warning.
  - The modules and plugins need the Python packages C(requests) and C(urllib3) 2.6 or later on the host that runs them (the controller).
  - Proxies are taken from the E(HTTPS_PROXY), E(HTTP_PROXY), E(ALL_PROXY) and E(NO_PROXY) environment variables, as
    C(requests) reads them (a E(NO_PROXY) entry may name a port, C(host:8443), or an address range, C(10.0.0.0/8));
    an C(https://) proxy is spoken to over TLS, and a C(socks5://) or C(socks5h://) proxy needs the Python package C(PySocks).
  - Redirects are not followed, since the credentials would go with them; an HTTP 3xx answer fails the task, naming
    the address it points to (an C(http://) address that the API redirects to C(https://), say).
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
