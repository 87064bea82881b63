# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r'''
name: sim_admin
short_description: One call to the simulator's admin interface, on the controller (test only)
description:
  - Sends one request to the simulator's admin interface (C(engine_sim_admin_url)) from the controller
    and returns its JSON answer (an empty dictionary for an empty answer); an answer of HTTP 400 or more
    fails the task. An admin call needs no module process; M(ansible.builtin.uri) started one for every reset, log clear and state edit of the
    integration targets (about 0.4 CPU-seconds each).
  - Loaded with the setup_simulator role (its C(lookup_plugins) directory), so a target has it once it
    included the role. The playbooks of a target's C(runme.sh) have it from C(ANSIBLE_LOOKUP_PLUGINS), which
    C(setup_simulator/files/runme.sh) sets (the target's C(aliases) say C(needs/target/setup_simulator), so that
    ansible-test copies this directory beside it).
options:
  _terms:
    description: The admin URL (C(engine_sim_admin_url) followed by C(/reset), C(/requests), ...).
    required: true
  method:
    description: The HTTP method.
    default: GET
  body:
    description: A JSON body (omitted when not given).
'''

import http.client
import json
from urllib.parse import urlsplit

from ansible.errors import AnsibleError
from ansible.plugins.lookup import LookupBase


class LookupModule(LookupBase):

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        method, body = self.get_option('method'), self.get_option('body')
        data = None if body is None else json.dumps(body)
        answers = []
        for url in terms:
            try:
                status, text = call(url, method, data)
            except Exception as error:  # pylint: disable=broad-except  # any failure ends the task, naming the call
                raise AnsibleError('sim_admin: %s %s failed: %s' % (method, url, error))
            if status >= 400:
                raise AnsibleError('sim_admin: %s %s failed: HTTP %s: %s' % (method, url, status, text[:500]))
            answers.append(json.loads(text) if text.strip() else {})
        return answers


def call(url, method, data):
    """(status, body) of one request, straight through http.client, with no proxy: the simulator is on this
    machine. Not ansible.module_utils.urls: a lookup runs in the task's fork of ansible-playbook, which
    imports it anew for every task (0.06 CPU-s a task, measured; as much as the call itself)."""
    parts = urlsplit(url)
    connection = (http.client.HTTPSConnection if parts.scheme == 'https' else http.client.HTTPConnection)(parts.netloc, timeout=30)
    try:
        connection.request(method, parts.path + ('?' + parts.query if parts.query else ''), body=data,
                           headers={'Content-Type': 'application/json'})
        response = connection.getresponse()
        return response.status, response.read().decode('utf-8')
    finally:
        connection.close()
