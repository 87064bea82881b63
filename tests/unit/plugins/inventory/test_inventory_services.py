# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The engine.cloud.services inventory plugin: one list request, the engine_* host variables,
host names (and the services whose name cannot be one), constructed groups and variables, the
cache, templated credentials, and API errors. Its options are set directly here; the integration
target inventory_services runs it through ansible-inventory and ansible-playbook."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible.errors import AnsibleError
from ansible.inventory.data import InventoryData
from ansible.parsing.dataloader import DataLoader

from ansible_collections.engine.cloud.plugins.inventory.services import InventoryModule
from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import KEY_ID, KEY_SECRET, ORGANIZATION

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core before 2.19 templates every string of the inventory source
    def trust_as_template(value):
        return value

URL = 'https://api.example'
LIST_PATH = '/v1/organizations/%s/services' % ORGANIZATION


def service(number, name, tier='production', tags=(), **fields):
    item = dict(id='3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e%02d' % number, name=name, state='running', tier=tier, provider='aws',
                region='eu-central-1', tags=[dict(tag) for tag in tags],
                endpoints=[dict(protocol='https', host='%s.example' % number, port=8443, username='default')])
    item.update(fields)
    return item


SERVICES = [
    service(1, 'prod-analytics', tags=[{'key': 'team', 'value': 'data'}, {'key': 'gdpr'}], backupPassword='hunter2'),
    service(2, 'dev-sandbox', tier='development', state='stopped', tags=[{'key': 'team', 'value': 'ingest'}]),
]


class Api(object):
    """Stands in for HttpClient.request: records each call, answers with the services, or raises the
    next of errors."""

    def __init__(self, services):
        self.services, self.errors, self.calls = services, [], []

    def request(self, client, method, path, params=None, body=None):
        self.calls.append(dict(method=method, path=path, url=client.base_url, auth=client.session.auth, timeout=client.timeout))
        if self.errors:
            raise self.errors.pop(0)
        return dict(status=200, result=copy.deepcopy(self.services))


class Display(object):
    def __init__(self):
        self.warnings = []

    def warning(self, message):
        self.warnings.append(message)

    def vvv(self, message):
        pass


@pytest.fixture
def api(monkeypatch, controller):
    fake = Api(SERVICES)

    def request(client, *args, **kwargs):
        return fake.request(client, *args, **kwargs)

    monkeypatch.setattr(http.HttpClient, 'request', request)
    return fake


def plugin_with(**options):
    """The plugin with these options (others at their documented defaults) and a cache in a dict."""
    values = dict(plugin='engine.cloud.services', hostname='name', api_url=URL, api_key_id=KEY_ID, api_key_secret=KEY_SECRET,
                  organization_id=ORGANIZATION, validate_certs=True, api_timeout=30, api_retries=5, api_rate_limit=None, compose={}, groups={},
                  keyed_groups=[], strict=False, cache=False)
    values.update(options)
    plugin = InventoryModule()
    plugin.get_option = values.__getitem__
    plugin._read_config_data = lambda path: values
    plugin._cache = {}
    plugin.display = Display()
    return plugin


def parse(plugin, cache=True):
    inventory = InventoryData()
    plugin.parse(inventory, DataLoader(), '/inventory/prod.engine_cloud.yml', cache=cache)
    return inventory


def host_vars(inventory, name):
    return inventory.get_host(name).get_vars()


def test_one_request_one_host_per_service_with_the_engine_variables(api):
    inventory = parse(plugin_with())
    assert api.calls == [dict(method='GET', path=LIST_PATH, url=URL, auth=(KEY_ID, KEY_SECRET), timeout=30)]
    assert sorted(inventory.hosts) == ['dev-sandbox', 'prod-analytics']
    prod = host_vars(inventory, 'prod-analytics')
    assert dict((key, prod[key]) for key in prod if key.startswith('engine_') and key != 'engine_service') == dict(
        engine_id=SERVICES[0]['id'], engine_name='prod-analytics', engine_state='running', engine_tier='production',
        engine_provider='aws', engine_region='eu-central-1', engine_tags={'team': 'data', 'gdpr': None},
        engine_endpoints=SERVICES[0]['endpoints'])
    assert prod['engine_service']['backupPassword'] == '********'
    assert dict(prod['engine_service'], backupPassword='hunter2') == SERVICES[0]


def test_hostname_id(api):
    inventory = parse(plugin_with(hostname='id'))
    assert sorted(inventory.hosts) == sorted(item['id'] for item in SERVICES)


@pytest.mark.parametrize('names, problem', [
    (['reporting replica', 'b'], "its name 'reporting replica' is not a valid inventory host name"),
    (['localhost', 'b'], "its name 'localhost' is a name Ansible reserves"),
    (['all', 'b'], "its name 'all' is a name Ansible reserves"),
    (['same', 'same'], "its name 'same' is the name of 2 services"),
])
def test_a_name_that_cannot_name_a_host_gives_the_id_and_a_warning(api, names, problem):
    api.services = [service(number, name) for number, name in enumerate(names, 1)]
    plugin = plugin_with()
    inventory = parse(plugin)
    named_by_id = [item for item in api.services if item['id'] in inventory.hosts]
    assert named_by_id and all(host_vars(inventory, item['id'])['engine_name'] == item['name'] for item in named_by_id)
    assert len(inventory.hosts) == 2
    assert len(plugin.display.warnings) == len(named_by_id)
    assert problem in plugin.display.warnings[0] and 'hostname: id' in plugin.display.warnings[0]


def test_constructed_groups_keyed_groups_and_compose(api):
    # Expressions from an inventory source are trusted templates (ansible-core 2.19 renders no others).
    inventory = parse(plugin_with(
        keyed_groups=[dict(key=trust_as_template('engine_tier'), prefix='tier'),
                      dict(key=trust_as_template('engine_tags'), prefix='tag', trailing_separator=False)],
        groups=dict(stopped=trust_as_template("engine_state == 'stopped'")),
        compose=dict(ansible_connection=trust_as_template("'local'"), team=trust_as_template('engine_tags.team'))))
    members = dict((name, sorted(host.name for host in group.get_hosts())) for name, group in inventory.groups.items())
    assert members['tier_production'] == ['prod-analytics'] and members['tier_development'] == ['dev-sandbox']
    assert members['tag_team_data'] == ['prod-analytics'] and members['tag_team_ingest'] == ['dev-sandbox']
    assert members['tag_gdpr'] == ['prod-analytics']
    assert members['stopped'] == ['dev-sandbox']
    assert host_vars(inventory, 'dev-sandbox')['ansible_connection'] == 'local' and host_vars(inventory, 'dev-sandbox')['team'] == 'ingest'


def test_strict_fails_on_an_expression_that_cannot_be_evaluated(api):
    compose = dict(owner=trust_as_template('engine_tags.owner'))
    assert 'owner' not in host_vars(parse(plugin_with(compose=compose)), 'dev-sandbox')
    with pytest.raises(AnsibleError, match='Could not set owner for host'):
        parse(plugin_with(compose=compose, strict=True))


def test_a_cache_hit_sends_nothing_and_the_cache_holds_masked_services(api):
    plugin = plugin_with(cache=True)
    parse(plugin)
    assert len(api.calls) == 1
    cached = list(plugin._cache.values())
    assert len(cached) == 1 and 'hunter2' not in repr(cached) and cached[0][0]['backupPassword'] == '********'
    inventory = parse(plugin)
    assert len(api.calls) == 1
    assert sorted(inventory.hosts) == ['dev-sandbox', 'prod-analytics']
    parse(plugin, cache=False)  # --flush-cache, meta: refresh_inventory
    assert len(api.calls) == 2


def test_without_the_cache_option_every_run_reads(api):
    plugin = plugin_with(cache=False)
    parse(plugin)
    parse(plugin)
    assert len(api.calls) == 2 and plugin._cache == {}


def test_credentials_are_rendered_with_the_extra_vars(api, monkeypatch):
    monkeypatch.setattr('ansible.plugins.inventory.load_extra_vars', lambda loader: dict(vault_secret=KEY_SECRET, vault_id=KEY_ID))
    parse(plugin_with(api_key_id=trust_as_template('{{ vault_id }}'), api_key_secret=trust_as_template('{{ vault_secret }}')))
    assert api.calls[0]['auth'] == (KEY_ID, KEY_SECRET)


@pytest.mark.parametrize('options, message', [
    (dict(organization_id='acme'), "organization_id must be a UUID (8-4-4-4-12 hexadecimal digits), got 'acme'"),
    (dict(api_url='api.example'), 'api_url must be an http:// or https:// address'),
    (dict(api_timeout=0), 'api_timeout must be at least 1 second, got 0'),
])
def test_bad_options_fail_naming_them_before_any_request(api, options, message):
    with pytest.raises(AnsibleError) as raised:
        parse(plugin_with(**options))
    assert message in str(raised.value) and api.calls == []


@pytest.mark.parametrize('status, hint', [
    (401, 'check api_key_id and api_key_secret'),
    (403, 'Check organization_id (ENGINE_CLOUD_ORGANIZATION_ID)'),
    (404, 'Check api_url (ENGINE_CLOUD_API_URL)'),
])
def test_api_errors_say_what_to_check(api, status, hint):
    client_hint = 'The management API refused the API key: check api_key_id and api_key_secret' if status == 401 else None
    api.errors.append(http.ApiError('refused', status=status, method='GET', path=LIST_PATH, request_id='r-1', hint=client_hint))
    with pytest.raises(AnsibleError) as raised:
        parse(plugin_with())
    assert str(raised.value).startswith('GET %s failed: HTTP %d: refused (request id r-1). ' % (LIST_PATH, status))
    assert hint in str(raised.value) and KEY_SECRET not in str(raised.value)


def test_an_answer_without_a_list_fails(api):
    api.services = dict(id='x')
    with pytest.raises(AnsibleError, match='answered without a list of services'):
        parse(plugin_with())


@pytest.mark.parametrize('name, accepted', [
    ('prod.engine_cloud.yml', True), ('engine_cloud.yaml', True), ('prod.engine_cloud.json', False), ('prod.yml', False),
])
def test_verify_file(tmp_path, controller, name, accepted):
    path = tmp_path / name
    path.write_text('plugin: engine.cloud.services\n')
    assert InventoryModule().verify_file(str(path)) is accepted
