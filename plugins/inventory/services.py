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
    M(engine.cloud.service_info) returns it); O(hostvars_prefix) and O(hostvars_suffix) change the C(engine_) in
    these names. Secret-bearing values are masked as in every module's result."
  - O(filters) chooses the services, by tag on the API's side, by state, tier, provider, region and name pattern on the
    plugin's. Services that are deleted or being deleted are no hosts unless O(include_deleted=true).
  - "Every value that comes from the API is marked unsafe: a service name or tag that holds C({{ ... }}) stays that
    text when a task reads it, and is never rendered as a template, on every ansible-core version."
  - "Hosts are services, not machines: a play on them runs the modules on the controller, with
    C(delegate_to: localhost) on each task (the modules then use the Python that runs Ansible), or with
    C(connection: local) and C(ansible_python_interpreter: \"{{ ansible_playbook_python }}\") on the play;
    and with C(service_id: \"{{ engine_id }}\")."
  - A service whose name (or the name that the O(hostname) template gives it) is not a valid host name is named by its
    id instead, with a warning.
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
      - What names each host. V(name) is the service's name, V(id) its UUID; any other value is a template, rendered
        for each service with its host variables (with O(hostvars_prefix) and O(hostvars_suffix)) and the extra
        variables of the run, for example V({{ engine_name }}-{{ engine_region }}).
    type: str
    default: name
  hostvars_prefix:
    description:
      - The prefix of the names of the host variables this plugin sets (C(engine_id), C(engine_name), ...).
      - Letters, digits and underscores, not starting with a digit, so that every name is a valid variable name.
      - O(compose), O(groups), O(keyed_groups) and a O(hostname) template use the names with this prefix.
    type: str
    default: engine_
  hostvars_suffix:
    description:
      - The suffix of the names of the host variables this plugin sets, for example V(_svc) for C(engine_name_svc).
      - Letters, digits and underscores.
    type: str
    default: ''
  include_deleted:
    description:
      - Whether services that are deleted or being deleted (state C(terminating), C(terminated), C(softdeleting) or
        C(softdeleted)) become hosts. The API may list a deleted service for a while, and such a service takes no
        command.
    type: bool
    default: false
  filters:
    description:
      - Only the services that pass every filter given here become hosts. Without it, every service of the organization.
    type: dict
    default: {}
    suboptions:
      state:
        description:
          - A state, or a list of states (any of them), for example V(running) or V([running, idle]). Filtered by the plugin.
        type: list
        elements: str
      tier:
        description:
          - A tier, or a list of tiers, for example V(production). Filtered by the plugin.
        type: list
        elements: str
      provider:
        description:
          - A cloud provider, or a list of them (V(aws), V(gcp), V(azure)). Filtered by the plugin.
        type: list
        elements: str
      region:
        description:
          - A region code, or a list of them, for example V(eu-central-1). Filtered by the plugin.
        type: list
        elements: str
      name:
        description:
          - A shell-style pattern (Python's C(fnmatch)), or a list of them (any of them), that the whole service name must
            match (C(*) matches any text, C(?) one character, C([abc]) one of these characters, C([!abc]) any other).
            Case-sensitive. For example V(ingest-*). Filtered by the plugin.
        type: list
        elements: str
      tags:
        description:
          - A dict of tag key to value, for the services that have every one of these tags. A key whose value is V(null)
            (C(~)) matches the tag with any value, and a tag without a value. Values match exactly (case-sensitive).
          - Filtered by the API (one C(filter=tag:Key=Value), or C(filter=tag:Key) for a null value, per tag); the plugin
            checks the answer again, so the hosts are the same whatever way the API combines several filters.
          - Keys are 1 to 128, values 1 to 256 letters, digits, C(.), C(_) or C(-), as tags have them.
        type: dict
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
    (or C(meta: refresh_inventory)) reads the services again. The cache holds the masked services only, as the API
    answered them (O(filters.tags) applied); the other filters apply to them on each run."
  - O(hostname) - with V(name) or a template, a service is named by its id when the name is not a valid host name,
    with a warning that names it. A valid host name has only letters, digits, C(.), C(_) and C(-) (the API allows
    spaces in service names), is not one Ansible reserves (C(all), C(ungrouped), C(localhost)), and no other service
    of the organization has it.
  - O(hostname) - a template comes from the inventory source, and is trusted; the values it reads come from the API
    and are data, so a C({{ ... }}) in a service's name stays that text in the host name (which then falls back to
    the id).
  - O(hostname) - the service's name is in C(engine_name) either way.
  - O(include_deleted) - with V(false), deleted services are left out before every other filter, so they are no hosts, belong to
    no group, and do not count when two services have the same name (a live service keeps its name as host name).
  - O(include_deleted) - with V(true), deleted services are hosts like the others, for example to report on them;
    O(filters.state) can then choose them.
  - O(filters) - O(filters.tags) is filtered by the API (the list request carries C(filter=tag:Key=Value)); the other
    filters by the plugin, on the list the API answered.
  - O(filters) - with the cache, the plugin filters cached services again on each run, so changing O(filters.state),
    O(filters.tier), O(filters.provider), O(filters.region) or O(filters.name) needs no C(--flush-cache); the API's
    answer for other O(filters.tags) is cached apart.
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

---
# Only the running production services of team ingest on AWS or Azure whose name starts with "ingest-".
# The API filters by tag (GET .../services?filter=tag:team=ingest&filter=tag:gdpr); the plugin the rest.
plugin: engine.cloud.services
filters:
  tags:
    team: ingest
    gdpr:        # null: the gdpr tag with any value (or none)
  state: running
  tier: production
  provider: [aws, azure]
  name: ingest-*

---
# Hosts named by a template of their host variables, and these variables named svc_name, svc_region, ...
plugin: engine.cloud.services
hostvars_prefix: svc_
hostname: "{{ svc_name }}.{{ svc_provider }}-{{ svc_region }}"
keyed_groups:
  - key: svc_tier
    prefix: tier
'''

import re
from collections import Counter
from urllib.parse import urlencode

from ansible.errors import AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable
from ansible.utils.unsafe_proxy import wrap_var
from ansible.utils.vars import combine_vars

from ansible_collections.engine.cloud.plugins.module_utils import cloud, service_filter
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets
from ansible_collections.engine.cloud.plugins.plugin_utils.api import call, open_client

TEMPLATED_OPTIONS = ('api_url', 'api_key_id', 'api_key_secret', 'organization_id')
CLIENT_OPTIONS = TEMPLATED_OPTIONS + ('validate_certs', 'ca_path', 'client_cert', 'client_key', 'api_timeout', 'api_retries', 'api_rate_limit')
RESERVED_NAMES = ('all', 'ungrouped', 'localhost')
_HOST_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]*\Z')
# hostvars_prefix + name + hostvars_suffix must be a variable name.
_AFFIXES = {'hostvars_prefix': re.compile(r'^(?:[A-Za-z_][A-Za-z0-9_]*)?\Z'), 'hostvars_suffix': re.compile(r'^[A-Za-z0-9_]*\Z')}
# What to check when the list is refused with these statuses (a 401 names the key already).
HINTS = {
    403: 'Check organization_id (ENGINE_CLOUD_ORGANIZATION_ID): the API key has no access to it',
    404: 'Check api_url (ENGINE_CLOUD_API_URL): the base address of the API, without /v1',
}


def host_vars(service, prefix='engine_', suffix=''):
    """The host variables of a (masked) service, named prefix + name + suffix, marked unsafe: what the API says is data,
    never a template. Before ansible-core 2.19 a host variable that holds "{{ ... }}" is templated when a task reads it,
    so a service named "{{ lookup('pipe', 'id') }}" would run a command on the controller (2.19 and later trust no
    inventory data)."""
    values = dict(
        id=service.get('id'), name=service.get('name'), state=service.get('state'), tier=service.get('tier'),
        provider=service.get('provider'), region=service.get('region'),
        tags=dict((tag.get('key'), tag.get('value')) for tag in service.get('tags') or []),
        endpoints=service.get('endpoints') or [], service=service)
    return wrap_var(dict((prefix + name + suffix, value) for name, value in values.items()))


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
        filters = self._checked_options()
        query = service_filter.tag_query(filters.get('tags') or {})
        # The API's answer depends on the tag filter: another filter is another cache entry.
        cache_key = self.get_cache_key(path + ('?' + urlencode(query) if query else ''))
        use_cache = self.get_option('cache') and cache
        services = self._cache.get(cache_key) if use_cache else None
        if services is None:
            services = self._list_services(query)
            if self.get_option('cache'):
                self._cache[cache_key] = services
        else:
            self.display.vvv('engine.cloud.services: %d services from the cache' % len(services))
        if not self.get_option('include_deleted'):
            services = [service for service in services if not service_filter.deleted(service)]
        kept = [service for service in services if service_filter.matches(service, filters)]
        if filters:
            self.display.vvv('engine.cloud.services: %d of %d services pass the filters' % (len(kept), len(services)))
        self._populate(kept)

    def _checked_options(self):
        """The filters, checked with the other options of this plugin: a bad one fails before any request."""
        filters, errors = service_filter.check_filters('filters', self.get_option('filters'))
        for name, pattern in sorted(_AFFIXES.items()):
            value = self.get_option(name) or ''
            if not pattern.match(value):
                errors.append('%s must be letters, digits and underscores%s (it makes variable names), got %r'
                              % (name, ', not starting with a digit' if name == 'hostvars_prefix' else '', value))
        hostname = self.get_option('hostname')
        if hostname not in ('name', 'id') and not self.templar.is_template(hostname):
            errors.append('hostname must be name, id or a template such as "{{ engine_name }}-{{ engine_region }}", got %r' % hostname)
        if errors:
            raise AnsibleError('; '.join(errors))
        return filters

    def _connection(self):
        """The connection options, the strings among them rendered as templates with the extra vars."""
        self.templar.available_variables = self._vars
        params = dict((name, self.get_option(name)) for name in CLIENT_OPTIONS)
        for name in TEMPLATED_OPTIONS:
            if params[name] is not None:
                params[name] = to_text(self.templar.template(params[name]))
        return params

    def _list_services(self, query):
        """The services of the organization that the API lists with query (the tag filter), masked, from one request."""
        params = self._connection()
        client = open_client(params, cloud.API, self.display.warning, secrets=[params['api_key_secret']])
        path = cloud.services_path(params['organization_id'])
        services = call(client, 'GET', path, hints=HINTS, params=query).get('result')
        if not isinstance(services, list):
            raise AnsibleError('GET %s answered without a list of services' % path)
        shown = path + ('?' + urlencode(query) if query else '')
        self.display.vvv('engine.cloud.services: %d services from GET %s' % (len(services), shown))
        return mask_secrets(services)

    def _populate(self, services):
        strict = self.get_option('strict')
        all_vars = [host_vars(service, self.get_option('hostvars_prefix') or '', self.get_option('hostvars_suffix') or '')
                    for service in services]
        for service, variables, host in zip(services, all_vars, self._host_names(services, all_vars)):
            self.inventory.add_host(host)
            for name, value in variables.items():
                self.inventory.set_variable(host, name, value)
            variables = self.inventory.get_host(host).get_vars()
            self._set_composite_vars(self.get_option('compose'), variables, host, strict=strict)
            self._add_host_to_composed_groups(self.get_option('groups'), variables, host, strict=strict)
            self._add_host_to_keyed_groups(self.get_option('keyed_groups'), variables, host, strict=strict)

    def _host_names(self, services, all_vars):
        """The host name of each service, in order: its id, or its name (or the hostname template's) where that is a
        valid host name."""
        hostname = self.get_option('hostname')
        if hostname == 'id':
            return [service['id'] for service in services]
        if hostname == 'name':
            wanted, what = [service.get('name') for service in services], 'its name'
        else:
            wanted = [self._render_hostname(hostname, service, variables) for service, variables in zip(services, all_vars)]
            what = 'the name its hostname template gives'
        taken = Counter(wanted)
        names = []
        for service, name in zip(services, wanted):
            problem = why_not_a_host_name(name, taken)
            if problem:
                self.display.warning('engine.cloud.services: service %s is named by its id: %s %r %s. '
                                     'Set hostname: id to name every host by its id.' % (service['id'], what, name, problem))
            names.append(service['id'] if problem else str(name))
        return names

    def _render_hostname(self, template, service, variables):
        """The hostname template rendered with the service's host variables (unsafe: API data stays data) over the
        extra variables."""
        self.templar.available_variables = combine_vars(self._vars, variables)
        try:
            return to_text(self.templar.template(template))
        except AnsibleError as error:
            raise AnsibleError('hostname %r cannot be rendered for service %s: %s' % (template, service.get('id'), to_text(error)))
