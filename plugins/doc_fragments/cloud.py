# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # Options of every module and plugin that talks to the cloud management API. Modules add
    # SERVICE_ID; plugins add the env entries of api_url, api_key_id, api_key_secret and
    # organization_id in their own options.
    DOCUMENTATION = r'''
options:
  api_url:
    description:
      - Base address of the cloud management API, for example V(https://api.engine.example).
      - Without the C(/v1) path; a value that ends in C(/v1) or C(/api/v2) is refused.
      - "Required: set this option or the E(ENGINE_CLOUD_API_URL) environment variable. An empty value counts as not set."
    type: str
  api_key_id:
    description:
      - ID of the API key, sent as the user name of HTTP Basic authentication.
      - "Required: set this option or the E(ENGINE_CLOUD_KEY_ID) environment variable. An empty value counts as not set."
    type: str
  api_key_secret:
    description:
      - Secret of the API key, sent as the password of HTTP Basic authentication.
      - "Required: set this option or the E(ENGINE_CLOUD_KEY_SECRET) environment variable. An empty value counts as not set."
      - Never logged nor returned. White space around it (the newline that C(echo ... | ansible-vault encrypt_string) adds) is removed.
    type: str
  organization_id:
    description:
      - UUID of the organization that owns the services.
      - "Required: set this option or the E(ENGINE_CLOUD_ORGANIZATION_ID) environment variable. An empty value counts as not set."
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
        the API asks (at most 60 seconds a wait) or with exponential backoff. V(0) disables retries.
      - A refused connection, a name that does not resolve, a TLS error and an HTTP 3xx are not retried. A write that
        may have been applied (a C(PATCH) whose answer was lost) is not sent again as it was; the
        R(troubleshooting guide,ansible_collections.engine.cloud.docsite.troubleshooting) says what is done instead.
    type: int
    default: 5
  api_rate_limit:
    description:
      - The limit under which every process of this controller that uses the same API key and O(api_url) paces its
        requests, so that a request waits for a free slot instead of being refused with HTTP 429.
      - V(REQUESTS/SECONDS), for example V(20/10); not set, E(ENGINE_CLOUD_RATE_LIMIT), else the API's V(10/10).
        V(off) turns pacing, and the shared reads that come with it, off.
      - Set it for C(group/engine.cloud.cloud), not C(group/engine.cloud.all). More in the
        R(troubleshooting guide,ansible_collections.engine.cloud.docsite.troubleshooting), "Rate limits".
    type: raw
notes:
  - Tasks that run at the same time (the forks of a play over many services) share their reads of one list (the
    services, a service's pipes): one list request serves them all, each read sent after the task asked for it.
    E(ENGINE_CLOUD_SHARED_READS=off) turns that off. Nothing is kept from one task for a later one.
  - A task that waited more than 5 seconds in all for its turn under O(api_rate_limit) says so in a warning.
  - The modules and plugins need the Python packages C(requests) and C(urllib3) 2.6 or later on the host that runs them (the controller).
  - Proxies are taken from the E(HTTPS_PROXY), E(HTTP_PROXY), E(ALL_PROXY) and E(NO_PROXY) environment variables, as
    C(requests) reads them (a E(NO_PROXY) entry may name a port, C(host:8443), or an address range, C(10.0.0.0/8));
    an C(https://) proxy is spoken to over TLS, and a C(socks5://) or C(socks5h://) proxy needs the Python package C(PySocks).
  - Redirects are not followed, since the credentials would go with them; an HTTP 3xx answer fails the task, naming
    the address it points to (an C(http://) address that the API redirects to C(https://), say).
'''

    # The service every module of the cloud management API works on (service_info lists them all without it).
    SERVICE_ID = r'''
options:
  service_id:
    description:
      - UUID of the service; for a pipe or a reverse private endpoint, of the service it belongs to.
    type: str
    required: true
'''

    # The management API's options as the observability modules see them: accepted and ignored.
    UNUSED = r'''
options:
  api_url:
    description:
      - Not used by this module, which talks to the observability API.
      - Accepted so that one C(module_defaults) entry for C(group/engine.cloud.all) can hold the credentials of both APIs.
    type: str
  api_key_id:
    description:
      - Not used by this module; accepted for C(group/engine.cloud.all) defaults, like O(api_url).
    type: str
  api_key_secret:
    description:
      - Not used by this module; accepted for C(group/engine.cloud.all) defaults, like O(api_url). Never logged.
    type: str
  organization_id:
    description:
      - Not used by this module; accepted for C(group/engine.cloud.all) defaults, like O(api_url).
    type: str
'''
