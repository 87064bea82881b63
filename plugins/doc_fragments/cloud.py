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
      - Never logged nor returned.
    type: str
  organization_id:
    description:
      - UUID of the organization that owns the services.
      - "Required: set this option or the E(ENGINE_CLOUD_ORGANIZATION_ID) environment variable. An empty value counts as not set."
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
      - Waits grow exponentially with jitter, and follow C(Retry-After) or C(X-RateLimit-Reset) when the API sends them (at most 60 seconds each).
      - V(0) disables retries.
      - A write that is not safe to repeat (every C(PATCH)) is not retried after a timeout, a connection reset, HTTP 502, 503
        or 504, since it may have been applied although its answer was lost. The module reads the resource again and sends
        only what still differs (a state command only if it did not take effect, a resync never), at most O(api_retries) times.
      - Requests are paced under the API's rate limit first (see O(api_rate_limit)), so with many forks
        on one key a task waits for its turn rather than being refused; retries are the safety net for a
        429 that comes anyway.
    type: int
    default: 5
  api_rate_limit:
    description:
      - The rate limit under which every process of this controller that uses the same API key against the
        same O(api_url) paces its requests, all together (forks, ad-hoc C(ansible -f), ansible-runner jobs).
        A request that would go over waits for a free slot instead of being refused with HTTP 429.
      - With pacing on, M(engine.cloud.service_state), M(engine.cloud.pipe_state), M(engine.cloud.service) and
        M(engine.cloud.pipe) also share reads. When several tasks read services of one organization (or pipes of one
        service) at the same time, one list request serves them all, before they act and while they wait; a task
        alone reads alone. V(off) turns that off too, as does the E(ENGINE_CLOUD_SHARED_READS) environment variable
        set to V(off).
      - With pacing on, in a playbook run, the list of services (or of a service's pipes) that one task of
        M(engine.cloud.service) or M(engine.cloud.pipe) read serves the reads before acting of the later tasks of the
        run, for up to 60 seconds and until any task of the run writes with the same key; a task that finds something
        to change reads its object again before it writes. V(off) turns that off too, as does the
        E(ENGINE_CLOUD_READ_REUSE) environment variable set to V(off) (or to other seconds). A task that waited more
        than 5 seconds in all for its turn says so in a warning.
      - Not set, it is the management API's limit, V(10/10) (10 requests in any 10 seconds per key).
        V(REQUESTS/SECONDS) sets another, for example V(20/10) for an organization whose limit was raised.
        V(off) (or V(false)) turns pacing off.
      - If not set, the value of the E(ENGINE_CLOUD_RATE_LIMIT) environment variable is used.
      - Set it for C(group/engine.cloud.cloud), not C(group/engine.cloud.all), because the observability API has
        a limit of its own.
      - The shared state is a small file per key and base address, named by a hash of both (no secret is
        written), in E(ENGINE_CLOUD_PACING_DIR) if set, else C(~/.cache/engine.cloud/pacing), else (when the
        home directory is missing or read-only) C(engine.cloud-pacing-<uid>) in the temporary directory.
        The directory is created with mode 0700; a wider mode is narrowed, and one owned by another user
        turns pacing off with a warning.
      - Only processes on one controller, as one user, share a pacer. Several controllers or AWX execution
        nodes (each job runs in its own container) that use one key do not; for them, retrying on
        HTTP 429 (O(api_retries)) stays the safety net.
    type: raw
notes:
  - Proxies are taken from the E(HTTPS_PROXY), E(HTTP_PROXY) and E(NO_PROXY) environment variables.
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
