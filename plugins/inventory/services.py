# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: services
short_description: Database services of an organization as inventory hosts
version_added: 0.1.0
description:
  - Makes one inventory host per database service of an organization, from one request to the cloud
    management API (the list of services), so that a play can run on every service, or on a group of them.
  - "Reads a YAML file whose name ends with C(engine_cloud.yml) or C(engine_cloud.yaml) and which says
    C(plugin: engine.cloud.services)."
  - "Every host gets the variables C(engine_id), C(engine_name), C(engine_state), C(engine_tier), C(engine_provider),
    C(engine_region), C(engine_tags) (a dict of tag key to value; a tag without a value maps to C(null)),
    C(engine_endpoints) (the enabled endpoints) and C(engine_service) (the whole service as
    M(engine.cloud.service_info) returns it). Secret-bearing values are masked as in every module's result."
  - "Every value that comes from the API is marked unsafe: a service name or tag that holds C({{ ... }}) stays that
    text when a task reads it, and is never rendered as a template, on every ansible-core version."
  - "Hosts are services, not machines: a play on them runs the modules on the controller, with
    C(delegate_to: localhost) on each task (the modules then use the Python that runs Ansible), or with
    C(connection: local) and C(ansible_python_interpreter: \"{{ ansible_playbook_python }}\") on the play;
    and with C(service_id: \"{{ engine_id }}\")."
  - A service whose name is not a valid host name (see O(hostname)) is named by its id instead, with a warning.
  - The connection options may be templates, for example C("{{ vault_engine_key_secret }}"); they are rendered
    with the extra variables of the run (C(-e @vault.yml) with a vaulted file). An inline vaulted value works too.
    Without them, the environment variables of the modules are used.
  - An API error (a refused key, an unknown organization, a server error) fails the inventory source with the
    error a module would show, and what to check.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  plugin:
    description:
      - The name of this plugin, so that Ansible reads the file with it.
    type: str
    required: true
    choices: [engine.cloud.services]
  hostname:
    description:
      - What names each host. V(name) is the service's name, V(id) its UUID.
      - With V(name), a service is named by its id when its name is not a valid host name, with a warning that names it.
        A valid host name has only letters, digits, C(.), C(_) and C(-) (the API allows spaces in service names),
        is not one Ansible reserves (C(all), C(ungrouped), C(localhost)), and no other service of the organization has it.
      - The service's name is in C(engine_name) either way.
    type: str
    choices: [name, id]
    default: name
  api_url:
    env:
      - name: ENGINE_CLOUD_API_URL
  api_key_id:
    env:
      - name: ENGINE_CLOUD_KEY_ID
  api_key_secret:
    env:
      - name: ENGINE_CLOUD_KEY_SECRET
  organization_id:
    env:
      - name: ENGINE_CLOUD_ORGANIZATION_ID
  api_rate_limit:
    env:
      - name: ENGINE_CLOUD_RATE_LIMIT
extends_documentation_fragment:
  - engine.cloud.cloud
  - constructed
  - inventory_cache
notes:
  - "With the cache enabled, a run within O(cache_timeout) of the last one sends no request; C(--flush-cache)
    (or C(meta: refresh_inventory)) reads the services again. The cache holds the masked services only."
seealso:
  - module: engine.cloud.service_info
  - module: engine.cloud.service_state
  - ref: ansible_collections.engine.cloud.docsite.guide_discovery
    description: The discovery guide, with a nightly stop of every development service.
'''

EXAMPLES = r'''
# inventory/engine_cloud.yml: every service of the organization; the connection from
# ENGINE_CLOUD_API_URL, ENGINE_CLOUD_KEY_ID, ENGINE_CLOUD_KEY_SECRET and ENGINE_CLOUD_ORGANIZATION_ID.
plugin: engine.cloud.services

---
# Credentials from a vaulted vars file (ansible-inventory -i prod.engine_cloud.yml -e @vault.yml --ask-vault-pass),
# groups by tier, provider and tag, and a cache of 10 minutes.
plugin: engine.cloud.services
api_url: https://api.engine.example
api_key_id: "{{ vault_engine_key_id }}"
api_key_secret: "{{ vault_engine_key_secret }}"
organization_id: 7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f
keyed_groups:
  - key: engine_tier
    prefix: tier
  - key: engine_provider
    prefix: provider
  - key: engine_tags
    prefix: tag
groups:
  team_ingest: engine_tags.team | default('') == 'ingest'
  running: engine_state in ['running', 'idle']
compose:
  # A play on these hosts runs the modules on the controller (or use delegate_to: localhost).
  ansible_connection: "'local'"
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: ~/.cache/engine_cloud_inventory
cache_timeout: 600

---
# Every host named by its service id.
plugin: engine.cloud.services
hostname: id
'''

import re
from collections import Counter

from ansible.errors import AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable
from ansible.utils.unsafe_proxy import wrap_var

from ansible_collections.engine.cloud.plugins.module_utils import cloud
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets
from ansible_collections.engine.cloud.plugins.plugin_utils.api import call, open_client

TEMPLATED_OPTIONS = ('api_url', 'api_key_id', 'api_key_secret', 'organization_id')
CLIENT_OPTIONS = TEMPLATED_OPTIONS + ('validate_certs', 'api_timeout', 'api_retries', 'api_rate_limit')
RESERVED_NAMES = ('all', 'ungrouped', 'localhost')
_HOST_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]*\Z')
# What to check when the list is refused with these statuses (a 401 names the key already).
HINTS = {
    403: 'Check organization_id (ENGINE_CLOUD_ORGANIZATION_ID): the API key has no access to it',
    404: 'Check api_url (ENGINE_CLOUD_API_URL): the base address of the API, without /v1',
}


def host_vars(service):
    """The engine_* variables of a (masked) service, marked unsafe: what the API says is data, never a template.
    Before ansible-core 2.19 a host variable that holds "{{ ... }}" is templated when a task reads it, so a service
    named "{{ lookup('pipe', 'id') }}" would run a command on the controller (2.19 and later trust no inventory data)."""
    return wrap_var(dict(
        engine_id=service.get('id'), engine_name=service.get('name'), engine_state=service.get('state'),
        engine_tier=service.get('tier'), engine_provider=service.get('provider'), engine_region=service.get('region'),
        engine_tags=dict((tag.get('key'), tag.get('value')) for tag in service.get('tags') or []),
        engine_endpoints=service.get('endpoints') or [], engine_service=service))


def why_not_a_host_name(name, taken):
    """Why name cannot name a host (None when it can); taken counts the services per name."""
    if not isinstance(name, str) or not _HOST_NAME.match(name):
        return 'is not a valid inventory host name (only letters, digits, ".", "_" and "-")'
    if name in RESERVED_NAMES:
        return 'is a name Ansible reserves'
    if taken[name] > 1:
        return 'is the name of %d services' % taken[name]
    return None


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):

    NAME = 'engine.cloud.services'

    def verify_file(self, path):
        return super(InventoryModule, self).verify_file(path) and path.endswith(('engine_cloud.yml', 'engine_cloud.yaml'))

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache)
        self._read_config_data(path)
        cache_key = self.get_cache_key(path)
        use_cache = self.get_option('cache') and cache
        services = self._cache.get(cache_key) if use_cache else None
        if services is None:
            services = self._list_services()
            if self.get_option('cache'):
                self._cache[cache_key] = services
        else:
            self.display.vvv('engine.cloud.services: %d services from the cache' % len(services))
        self._populate(services)

    def _connection(self):
        """The connection options, the strings among them rendered as templates with the extra vars."""
        self.templar.available_variables = self._vars
        params = dict((name, self.get_option(name)) for name in CLIENT_OPTIONS)
        for name in TEMPLATED_OPTIONS:
            if params[name] is not None:
                params[name] = to_text(self.templar.template(params[name]))
        return params

    def _list_services(self):
        """Every service of the organization, masked, from one request."""
        params = self._connection()
        client = open_client(params, cloud, self.display.warning, secrets=[params['api_key_secret']])
        path = cloud.services_path(params['organization_id'])
        services = call(client, 'GET', path, hints=HINTS).get('result')
        if not isinstance(services, list):
            raise AnsibleError('GET %s answered without a list of services' % path)
        self.display.vvv('engine.cloud.services: %d services from GET %s' % (len(services), path))
        return mask_secrets(services)

    def _populate(self, services):
        strict = self.get_option('strict')
        for service, host in zip(services, self._host_names(services)):
            self.inventory.add_host(host)
            for name, value in host_vars(service).items():
                self.inventory.set_variable(host, name, value)
            variables = self.inventory.get_host(host).get_vars()
            self._set_composite_vars(self.get_option('compose'), variables, host, strict=strict)
            self._add_host_to_composed_groups(self.get_option('groups'), variables, host, strict=strict)
            self._add_host_to_keyed_groups(self.get_option('keyed_groups'), variables, host, strict=strict)

    def _host_names(self, services):
        """The host name of each service, in order: its id, or its name where that is a valid host name."""
        if self.get_option('hostname') == 'id':
            return [service['id'] for service in services]
        taken = Counter(service.get('name') for service in services)
        names = []
        for service in services:
            problem = why_not_a_host_name(service.get('name'), taken)
            if problem:
                self.display.warning('engine.cloud.services: service %s is named by its id: its name %r %s. '
                                     'Set hostname: id to name every host by its id.' % (service['id'], service.get('name'), problem))
            names.append(service['id'] if problem else service['name'])
        return names
