# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.alert_events: an event source of ansible-rulebook, one event per alert state transition."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: alert_events
short_description: An event each time an alert of the observability API changes state
version_added: 0.2.0
description:
  - Polls the alert listing of the observability API (C(GET /api/v2/alerts), every page) every O(interval) seconds and
    puts one event on the rulebook's queue per state transition of a watched alert.
  - Its requests are paced under the API's limit (100 per 60 s per token) together with every module of the collection
    that runs on the same controller with the same token, so a rulebook beside a playbook does not push it into 429s.
  - A poll that fails (429, 5xx, a connection refused, a timeout, a page that fails halfway) reports nothing, logs a
    warning, and is tried at the next interval; a transition that happened meanwhile is reported once, when a complete
    listing shows it.
  - Needs ansible-core beside ansible-rulebook (the collection's HTTP client), as the rulebook's C(run_module) actions do.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  observability_url:
    description: Base address of the observability API; default the E(ENGINE_OBSERVABILITY_URL) environment variable.
    type: str
  api_token:
    description: Bearer token; default E(ENGINE_OBSERVABILITY_TOKEN). It appears in no event and no log line.
    type: str
  interval:
    description: Seconds from the start of one poll to the start of the next, at least 1.
    type: int
    default: 60
  names:
    description: Only the alerts of these names (exact, case-sensitive). Default every alert.
    type: list
    elements: str
  states:
    description: Only the transitions into these states. Default every state.
    type: list
    elements: str
    choices: [ALERT, OK, INSUFFICIENT_DATA, DISABLED, PENDING, inactive]
  initial:
    description:
      - V(changes) reports only the transitions after the start; V(current) also reports each watched alert's state at
        the first complete listing (with C(previous_state) null).
      - An alert that appears after the start is reported with C(previous_state) null.
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
    description: The pacing limit, C(REQUESTS/SECONDS) or C(off); default E(ENGINE_OBSERVABILITY_RATE_LIMIT), else 100/60.
    type: str
'''

EXAMPLES = r'''
- name: Scale prod-analytics while its CPU alert fires
  hosts: localhost
  sources:
    - engine.cloud.alert_events:
        names: [High CPU]
        states: [ALERT, OK]
        interval: 30
  rules:
    - name: Report the transition
      condition: event.alert.state == "ALERT"
      action:
        debug:
          msg: "{{ event.alert.name }}: {{ event.alert.previous_state }} -> {{ event.alert.state }}"
'''

# Each event:
# {"alert": {"id", "name", "state", "previous_state", "threshold", "threshold_type", "interval", "dashboard_id",
#            "tile_id", "saved_search_id", "silenced"},
#  "engine": {"source": "alert_events", "seen_at": "2026-11-28T00:00:00.000Z"}}

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

LOGGER = logging.getLogger('engine.cloud.alert_events')


async def main(queue, args):
    """Poll until the rulebook stops; a bad option raises at once, before any request."""
    poller = events.alert_poller(args, LOGGER.warning)
    await events.run(poller, queue, LOGGER.warning)
