# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.service_events: an event source of ansible-rulebook, one event per service state transition."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: service_events
short_description: An event each time a database service changes state
version_added: 0.2.0
description:
  - Lists the organization's services (C(GET /v1/organizations/{organization_id}/services), one request) every
    O(interval) seconds and puts one event on the rulebook's queue per state transition of a watched service.
  - Its requests are paced under the API's limit (10 per 10 s per key) together with every module of the collection
    that runs on the same controller with the same key, so a rulebook beside a playbook does not push it into 429s.
  - A poll that fails (429, 5xx, a connection refused, a timeout) reports nothing, logs a warning, and is tried at the
    next interval; a transition that happened meanwhile is reported once, when a listing shows it.
  - Needs ansible-core beside ansible-rulebook (the collection's HTTP client), as the rulebook's C(run_module) actions do.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  api_url:
    description: Base address of the management API; default the E(ENGINE_CLOUD_API_URL) environment variable.
    type: str
  api_key_id:
    description: API key id; default E(ENGINE_CLOUD_KEY_ID).
    type: str
  api_key_secret:
    description: API key secret; default E(ENGINE_CLOUD_KEY_SECRET). It appears in no event and no log line.
    type: str
  organization_id:
    description: UUID of the organization; default E(ENGINE_CLOUD_ORGANIZATION_ID).
    type: str
  interval:
    description: Seconds from the start of one poll to the start of the next, at least 1.
    type: int
    default: 30
  names:
    description: Only the services of these names (exact, case-sensitive). Default every service.
    type: list
    elements: str
  tags:
    description:
      - Only the services that have every one of these tags, a dict of tag key to value (null for any value), as
        M(engine.cloud.service_info) takes them. The API filters the listing; the source checks it again.
    type: dict
  states:
    description: Only the transitions into these states (the API's service states). Default every state.
    type: list
    elements: str
    choices: [running, idle, partially_running, starting, awaking, provisioning, stopped, stopping, degraded, failed,
              terminating, terminated, softdeleting, softdeleted]
  initial:
    description:
      - V(changes) reports only the transitions after the start; V(current) also reports each watched service's state at
        the first listing (with C(previous_state) null).
      - A service that appears after the start is reported with C(previous_state) null.
    type: str
    choices: [changes, current]
    default: changes
  validate_certs:
    description: Verify the API's TLS certificate.
    type: bool
    default: true
  ca_path:
    description:
      - A PEM file or a directory of CA certificates that verifies the API's certificate (a private CA).
      - By default the bundle E(REQUESTS_CA_BUNDLE), E(CURL_CA_BUNDLE), E(SSL_CERT_FILE) or E(SSL_CERT_DIR) names, else certifi's.
    type: path
  client_cert:
    description: A PEM file with the client certificate to present to an API that asks for one (mutual TLS), with its key unless O(client_key) is set.
    type: path
  client_key:
    description: The PEM file of the private key of O(client_cert), not encrypted.
    type: path
  api_timeout:
    description: Seconds per request.
    type: int
    default: 30
  api_retries:
    description: Retries within one poll (429, 502, 503, 504, connection errors); by default none, as the next poll is the retry.
    type: int
    default: 0
  api_rate_limit:
    description: The pacing limit, C(REQUESTS/SECONDS) or C(off); default E(ENGINE_CLOUD_RATE_LIMIT), else 10/10.
    type: str
'''

EXAMPLES = r'''
- name: Start a production service that stopped
  hosts: localhost
  sources:
    - engine.cloud.service_events:
        tags:
          env: production
        states: [stopped]
  rules:
    - name: Start it again
      condition: event.service.state == "stopped"
      action:
        run_module:
          name: engine.cloud.service_state
          module_args:
            service_id: "{{ event.service.id }}"
            state: started
'''

# Each event:
# {"service": {"id", "name", "state", "previous_state", "tier", "region", "tags": {key: value}},
#  "engine": {"source": "service_events", "seen_at": "2026-11-28T00:00:00.000Z"}}

import logging
import os
import sys

try:
    from ansible_collections.engine.cloud.plugins.plugin_utils import events
except ImportError:
    # ansible-rulebook runs this file by its path; the collection's code sits six directories up, under
    # <root>/ansible_collections/engine/cloud/.
    sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 7))))
    from ansible_collections.engine.cloud.plugins.plugin_utils import events

LOGGER = logging.getLogger('engine.cloud.service_events')


async def main(queue, args):
    """Poll until the rulebook stops; a bad option raises at once, before any request."""
    poller = events.service_poller(args, LOGGER.warning)
    await events.run(poller, queue, LOGGER.warning)
