# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The engine.cloud.services inventory plugin against the simulator in process (tests/unit/conftest.py):
one list request, the engine_* host variables, host names (and the services whose name cannot be
one), constructed groups and variables, the cache, templated credentials, and API errors. Its
options are set directly here; the integration target inventory_services runs it through
ansible-inventory and ansible-playbook."""

import re

import pytest

from ansible.errors import AnsibleError
from ansible.inventory.data import InventoryData
from ansible.module_utils.compat.version import LooseVersion
from ansible.parsing.dataloader import DataLoader
from ansible.release import __version__ as ANSIBLE_CORE
from ansible.template import Templar

from ansible_collections.engine.cloud.plugins.inventory.services import InventoryModule
from ansible_collections.engine.cloud.plugins.modules import service_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    KEY_ID, KEY_SECRET, ORGANIZATION, SERVICE_DEV, SERVICE_HORIZONTAL, SERVICE_IDLE, SERVICE_INGEST_EU, SERVICE_INGEST_STAGING, SERVICE_PROD,
    cloud_connection)

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core before 2.19 templates every string of the inventory source
    def trust_as_template(value):
        return value


# keyed_groups of a dict with trailing_separator: false: a key without a value (None) is a group of
# the key alone from ansible-core 2.19 on; before, its name ends in _None (the tag gdpr of ingest-eu).
VALUELESS_TAG_GROUP = 'tag_gdpr' if LooseVersion(ANSIBLE_CORE) >= LooseVersion('2.19') else 'tag_gdpr_None'

LIST = '/v1/organizations/%s/services' % ORGANIZATION
OTHER_ORGANIZATION = '00000000-0000-4000-8000-000000000000'
# A secret-named field the fixture's services do not have: the plugin masks it as every module does.
BACKUP_PASSWORD = 'backup-password-of-prod'
REQUEST_ID = r'\(request id [0-9a-f-]{36}\)'


# Every test runs as the controller does, and sees only the warnings that it caused itself.
pytestmark = pytest.mark.usefixtures('controller', 'shown_warnings')


def plugin_with(sim, stored=None, **options):
    """The plugin with these options (others at their documented defaults), connected to the simulator,
    and a cache in a dict (stored: one that another run filled)."""
    values = dict(plugin='engine.cloud.services', hostname='name', hostvars_prefix='engine_', hostvars_suffix='', filters={},
                  include_deleted=False,
                  validate_certs=True, ca_path=None, client_cert=None, client_key=None, api_timeout=30, api_retries=5, api_rate_limit=None,
                  compose={}, groups={}, keyed_groups=[],
                  strict=False, cache=False)
    values.update(cloud_connection(sim.url))
    values.update(options)
    plugin = InventoryModule()
    plugin.get_option = values.__getitem__
    plugin._read_config_data = lambda path: values
    plugin._cache = {} if stored is None else stored
    return plugin


def parse(plugin, cache=True):
    inventory = InventoryData()
    plugin.parse(inventory, DataLoader(), '/inventory/prod.engine_cloud.yml', cache=cache)
    return inventory


def host_vars(inventory, name):
    return inventory.get_host(name).get_vars()


def sent(sim):
    """The simulator's log as (method, path, status)."""
    return [(entry['method'], entry['path'], entry['status']) for entry in sim.requests()]


def listed_by_the_module(run):
    """Every service as engine.cloud.service_info lists them (masked), without the definition it adds to each."""
    return [dict((key, value) for key, value in item.items() if key != 'definition')
            for item in run(service_info, requests=[('GET', LIST)])['services']]


def test_one_request_one_host_per_service_with_the_engine_variables(sim, run, shown_warnings):
    sim.edit('services', SERVICE_PROD, {'backupPassword': BACKUP_PASSWORD})
    listed = listed_by_the_module(run)
    by_id = dict((item['id'], item) for item in listed)
    sim.clear_requests()
    inventory = parse(plugin_with(sim))
    assert sent(sim) == [('GET', LIST, 200)]
    assert sorted(inventory.hosts) == sorted([item['name'] for item in listed if item['id'] != SERVICE_IDLE] + [SERVICE_IDLE])
    prod = host_vars(inventory, 'prod-analytics')
    assert dict((key, prod[key]) for key in prod if key.startswith('engine_') and key != 'engine_service') == dict(
        engine_id=SERVICE_PROD, engine_name='prod-analytics', engine_state='running', engine_tier='production',
        engine_provider='aws', engine_region='eu-central-1', engine_tags={'team': 'data-platform', 'env': 'production'},
        engine_endpoints=by_id[SERVICE_PROD]['endpoints'])
    assert [endpoint['protocol'] for endpoint in prod['engine_endpoints']] == ['https', 'nativesecure']  # mysql is disabled
    assert host_vars(inventory, 'ingest-eu')['engine_tags'] == {'team': 'ingest', 'env': 'production', 'gdpr': None}
    assert all(host_vars(inventory, host)['engine_service'] == by_id[host_vars(inventory, host)['engine_id']] for host in inventory.hosts)
    assert prod['engine_service']['backupPassword'] == '********' and sim.find('services', SERVICE_PROD)['backupPassword'] == BACKUP_PASSWORD
    assert BACKUP_PASSWORD not in repr([host_vars(inventory, host) for host in inventory.hosts])
    assert shown_warnings() == ["engine.cloud.services: service %s is named by its id: its name 'reporting replica' is not a valid "
                                'inventory host name (only letters, digits, ".", "_" and "-"). Set hostname: id to name every host '
                                'by its id.' % SERVICE_IDLE]


@pytest.mark.parametrize('renamed, problems', [
    ({SERVICE_DEV: 'localhost'}, {SERVICE_DEV: "its name 'localhost' is a name Ansible reserves"}),
    ({SERVICE_DEV: 'all', SERVICE_INGEST_EU: 'ungrouped'}, {SERVICE_DEV: "its name 'all' is a name Ansible reserves",
                                                            SERVICE_INGEST_EU: "its name 'ungrouped' is a name Ansible reserves"}),
    ({SERVICE_DEV: 'ingest-staging'}, {SERVICE_DEV: "its name 'ingest-staging' is the name of 2 services",
                                       SERVICE_INGEST_STAGING: "its name 'ingest-staging' is the name of 2 services"}),
], ids=['localhost', 'all and ungrouped', 'taken twice'])
def test_a_name_that_cannot_name_a_host_gives_the_id_and_a_warning(sim, shown_warnings, renamed, problems):
    for service_id, name in renamed.items():
        sim.edit('services', service_id, {'name': name})
    problems = dict({SERVICE_IDLE: "its name 'reporting replica' is not a valid inventory host name"}, **problems)
    inventory = parse(plugin_with(sim))
    services = sim.state()['services']
    named_by_id = sorted(item['id'] for item in services if item['id'] in inventory.hosts)
    assert named_by_id == sorted(problems) and len(inventory.hosts) == len(services)
    assert all(host_vars(inventory, item['id'])['engine_name'] == item['name'] for item in services if item['id'] in problems)
    warnings = shown_warnings()
    assert len(warnings) == len(problems)
    for service_id, problem in problems.items():
        warning = next(text for text in warnings if service_id in text)
        assert problem in warning and 'hostname: id' in warning


@pytest.mark.parametrize('state', ['softdeleted', 'terminated', 'softdeleting', 'terminating'])
def test_a_deleted_service_is_no_host_and_takes_no_name(sim, shown_warnings, state):
    sim.edit('services', SERVICE_DEV, {'name': 'ingest-staging', 'state': state})
    inventory = parse(plugin_with(sim))
    assert SERVICE_DEV not in inventory.hosts and 'ingest-staging' in inventory.hosts
    assert host_vars(inventory, 'ingest-staging')['engine_id'] == SERVICE_INGEST_STAGING
    assert len(inventory.hosts) == len(sim.state()['services']) - 1
    assert [warning for warning in shown_warnings() if 'ingest-staging' in warning] == []
    assert parse(plugin_with(sim, filters={'state': [state]})).hosts == {}


def test_include_deleted_makes_hosts_of_deleted_services(sim, shown_warnings):
    sim.edit('services', SERVICE_DEV, {'name': 'ingest-staging', 'state': 'softdeleted'})
    inventory = parse(plugin_with(sim, include_deleted=True))
    assert SERVICE_DEV in inventory.hosts and SERVICE_INGEST_STAGING in inventory.hosts and 'ingest-staging' not in inventory.hosts
    assert sum("its name 'ingest-staging' is the name of 2 services" in warning for warning in shown_warnings()) == 2
    chosen = parse(plugin_with(sim, include_deleted=True, filters={'state': ['softdeleted']}))
    assert list(chosen.hosts) == ['ingest-staging'] and host_vars(chosen, 'ingest-staging')['engine_id'] == SERVICE_DEV


@pytest.mark.parametrize('prefix, suffix', [('engine_', ''), ('svc_', '_x')])
def test_hostname_id_and_api_data_never_templated(sim, tmp_path, shown_warnings, prefix, suffix):
    """hostname: id names every host by its id, without a warning. A service name, tag or endpoint that holds a template
    stays that text when a task reads it: on ansible-core before 2.19 only the unsafe mark stops the templar (2.19 and
    later trust no inventory data). A hostname template is trusted (it comes from the source); the service's name it
    reads is not: the name stays its text, is no valid host name, and the host is named by its id."""
    marker = tmp_path / 'ran'
    template = "{{ lookup('pipe', 'touch %s') }}{{ 6 * 7 }}" % marker
    sim.edit('services', SERVICE_DEV, {'name': template, 'tags': [{'key': 'owner', 'value': template}]})
    inventory = parse(plugin_with(sim, hostname='id', hostvars_prefix=prefix, hostvars_suffix=suffix))
    assert sorted(inventory.hosts) == sorted(item['id'] for item in sim.state()['services']) and shown_warnings() == []
    templar = Templar(loader=DataLoader(), variables=host_vars(inventory, SERVICE_DEV))
    for expression in ('{{ %sname%s }}', '{{ %stags%s.owner }}', '{{ %sservice%s.name }}', '{{ %sservice%s.tags[0].value }}'):
        assert templar.template(trust_as_template(expression % (prefix, suffix))) == template
    assert not marker.exists()
    inventory = parse(plugin_with(sim, hostname=trust_as_template('{{ engine_name }}.{{ engine_provider }}')))
    assert SERVICE_DEV in inventory.hosts and 'prod-analytics.aws' in inventory.hosts and not marker.exists()
    assert host_vars(inventory, SERVICE_DEV)['engine_name'] == template
    assert shown_warnings()[0] == ('engine.cloud.services: service %s is named by its id: the name its hostname template gives %r is not '
                                   'a valid inventory host name (only letters, digits, ".", "_" and "-"). Set hostname: id to name every '
                                   'host by its id.' % (SERVICE_DEV, template + '.aws'))


def test_constructed_groups_keyed_groups_and_compose_and_strict(sim):
    # Expressions from an inventory source are trusted templates (ansible-core 2.19 renders no others).
    compose = dict(ansible_connection=trust_as_template("'local'"), team=trust_as_template('engine_tags.team'))
    inventory = parse(plugin_with(
        sim,
        keyed_groups=[dict(key=trust_as_template('engine_tier'), prefix='tier'),
                      dict(key=trust_as_template('engine_tags'), prefix='tag', trailing_separator=False)],
        groups=dict(stopped=trust_as_template("engine_state == 'stopped'")), compose=compose))
    members = dict((name, sorted(host.name for host in group.get_hosts())) for name, group in inventory.groups.items())
    assert members['tier_production'] == sorted([SERVICE_IDLE, 'events-horizontal', 'ingest-eu', 'prod-analytics'])
    assert members['tier_development'] == ['dev-sandbox', 'ingest-staging']
    assert members['tag_team_ingest'] == ['ingest-eu', 'ingest-staging'] and members['tag_env_production'] == ['ingest-eu', 'prod-analytics']
    assert members[VALUELESS_TAG_GROUP] == ['ingest-eu']
    assert members['stopped'] == ['dev-sandbox']
    staging = host_vars(inventory, 'ingest-staging')
    assert staging['ansible_connection'] == 'local' and staging['team'] == 'ingest'
    assert 'team' not in host_vars(inventory, 'dev-sandbox')  # no team tag: without strict, the variable is left out
    with pytest.raises(AnsibleError, match='Could not set team for host'):
        parse(plugin_with(sim, compose=compose, strict=True))


def test_a_cache_hit_sends_nothing_the_cache_holds_masked_services_and_no_cache_reads_every_run(sim):
    sim.edit('services', SERVICE_PROD, {'backupPassword': BACKUP_PASSWORD})
    plugin = plugin_with(sim, cache=True)
    parse(plugin)
    assert sent(sim) == [('GET', LIST, 200)]
    cached = list(plugin._cache.values())
    assert len(cached) == 1 and BACKUP_PASSWORD not in repr(cached)
    assert next(item for item in cached[0] if item['id'] == SERVICE_PROD)['backupPassword'] == '********'
    sim.edit('services', SERVICE_DEV, {'name': 'dev-renamed'})
    assert 'dev-sandbox' in parse(plugin).hosts  # from the cache
    assert len(sim.requests()) == 1
    assert 'dev-renamed' in parse(plugin, cache=False).hosts  # --flush-cache, meta: refresh_inventory
    assert len(sim.requests()) == 2
    uncached = plugin_with(sim, cache=False)  # without the cache option, every run reads
    parse(uncached)
    parse(uncached)
    assert len(sim.requests()) == 4 and uncached._cache == {}


def test_the_connection_options_reach_the_client(sim):
    """api_url is the address asked (the simulator answers at its own only), api_timeout and api_retries bound the wait."""
    with pytest.raises(AnsibleError, match=re.escape("GET https://api.engine.example%s failed: connection failed: Failed to resolve "
                                                     "'api.engine.example'" % LIST)):
        parse(plugin_with(sim, api_url='https://api.engine.example', api_retries=0))
    assert sim.requests() == []
    sim.faults(dict(kind='delay', delay=10, method='GET', path=LIST, count=2))
    with pytest.raises(AnsibleError) as raised:
        parse(plugin_with(sim, api_timeout=7, api_retries=1))
    assert str(raised.value) == 'GET %s%s failed: no response within api_timeout (7 s) (after 2 attempts)' % (sim.url, LIST)


def a_404_for_the_list(sim):
    sim.faults(dict(kind='status', status=404, method='GET', path=LIST))
    return {}


@pytest.mark.parametrize('options, path, error, hint', [
    (lambda sim: dict(api_key_secret='not-the-key-secret'), LIST, '401 UNAUTHORIZED: Invalid or missing API key credentials',
     'The management API refused the API key: check api_key_id and api_key_secret (ENGINE_CLOUD_KEY_ID, ENGINE_CLOUD_KEY_SECRET)'),
    (lambda sim: dict(organization_id=OTHER_ORGANIZATION), '/v1/organizations/%s/services' % OTHER_ORGANIZATION,
     '403 FORBIDDEN: The API key has no access to organization %s' % OTHER_ORGANIZATION,
     'Check organization_id (ENGINE_CLOUD_ORGANIZATION_ID): the API key has no access to it'),
    (a_404_for_the_list, LIST, '404 NOT_FOUND: injected fault',
     'Check api_url (ENGINE_CLOUD_API_URL): the base address of the API, without /v1'),
], ids=['a wrong key secret', 'another organization', 'a 404 for the list'])
def test_api_errors_say_what_to_check(sim, options, path, error, hint):
    with pytest.raises(AnsibleError) as raised:
        parse(plugin_with(sim, **options(sim)))
    assert re.fullmatch(r'GET %s failed: HTTP %s %s\. %s' % (re.escape(sim.url + path), re.escape(error), REQUEST_ID, re.escape(hint)),
                        str(raised.value))
    assert [(entry['method'], entry['status']) for entry in sim.requests()] == [('GET', int(error[:3]))]
    assert 'not-the-key-secret' not in str(raised.value) and KEY_SECRET not in str(raised.value)


def test_an_answer_without_a_list_fails_naming_the_request(sim):
    """What the client refuses itself (no "result" field, not JSON): test_http.py."""
    sim.faults(dict(kind='status', status=200, method='GET', path=LIST, body={'status': 200, 'result': {'id': SERVICE_PROD}}))
    with pytest.raises(AnsibleError, match=re.escape('GET %s answered without a list of services' % LIST)):
        parse(plugin_with(sim))
    assert sent(sim) == [('GET', LIST, 200)]


@pytest.mark.parametrize('name, accepted', [
    ('prod.engine_cloud.yml', True), ('engine_cloud.yaml', True), ('prod.engine_cloud.json', False), ('prod.yml', False),
])
def test_verify_file(tmp_path, name, accepted):
    path = tmp_path / name
    path.write_text('plugin: engine.cloud.services\n')
    assert InventoryModule().verify_file(str(path)) is accepted


# Filters, the hostname template, the names of the host variables ---------------------------------

EVERY_HOST = ['prod-analytics', 'dev-sandbox', SERVICE_IDLE, 'ingest-staging', 'ingest-eu', 'events-horizontal']


def hosts_and_queries(sim, **options):
    """(the hosts, in the API's order; the query of each request sent) of one parse."""
    inventory = parse(plugin_with(sim, **options))
    return [host for host in EVERY_HOST if host in inventory.hosts], [entry['query'] for entry in sim.requests()]


# Each filter's matching itself: test_service_filter.py (test_matches). The API filters by tag only.
@pytest.mark.parametrize('filters, hosts, query', [
    (dict(state=['stopped', 'idle']), ['dev-sandbox', SERVICE_IDLE], {}),
    (dict(state='running', tier='production', provider='aws'), ['prod-analytics', 'events-horizontal'], {}),
    ({}, EVERY_HOST, {}),
    (dict(tags=dict(gdpr=None, team='ingest')), ['ingest-eu'], {'filter': ['tag:gdpr', 'tag:team=ingest']}),
    (dict(tags=dict(env='production'), state='running', name='prod-*'), ['prod-analytics'], {'filter': 'tag:env=production'}),
], ids=['states', 'three filters', 'none', 'two tags', 'tags and the plugin filters'])
def test_the_api_filters_by_tag_and_the_plugin_by_state_tier_provider_region_and_name(sim, filters, hosts, query):
    assert hosts_and_queries(sim, filters=filters) == (hosts, [query])


def test_what_the_api_sends_for_tags_is_checked_again(sim, run):
    """The reference does not say how the API combines several tag filters: an API that ORed them (here, one that
    answers every service) still gives only the services that have every tag."""
    everything = {'status': 200, 'requestId': 'r-1', 'result': listed_by_the_module(run)}
    sim.clear_requests()
    sim.faults(dict(kind='status', status=200, method='GET', path=LIST, body=everything))
    assert hosts_and_queries(sim, filters=dict(tags=dict(team='ingest', env='staging'))) == (
        ['ingest-staging'], [{'filter': ['tag:env=staging', 'tag:team=ingest']}])


@pytest.mark.parametrize('options, message', [
    (dict(filters=dict(status='running')), 'filters.status is not a filter: use state, tier, provider, region, name, tags'),
    (dict(filters=dict(state=[])), 'filters.state must be a value or a non-empty list of values (strings), got []'),
    (dict(filters=dict(tier=['production', 3])), "filters.tier must be a value or a non-empty list of values (strings), got ['production', 3]"),
    (dict(filters=dict(name='')), "filters.name must be a pattern or a non-empty list of patterns (strings), got ''"),
    (dict(filters=dict(tags=['team'])), "filters.tags must be a dict of tag key to value (null for any value), got ['team']"),
    (dict(filters=dict(tags={'team': 'in gest'})), "filters.tags.team must be 1 to 256 letters, digits, dots, underscores or hyphens, "
                                                   "or null for any value, got 'in gest'"),
    (dict(filters=dict(tags={'a b': None})), "filters.tags keys must be 1 to 128 letters, digits, dots, underscores or hyphens, got 'a b'"),
    (dict(filters=['state=running']), "filters must be a dict (keys: state, tier, provider, region, name, tags), got ['state=running']"),
    (dict(hostvars_prefix='engine-'), "hostvars_prefix must be letters, digits and underscores, not starting with a digit (it makes "
                                      "variable names), got 'engine-'"),
    (dict(hostvars_prefix='1_'), "hostvars_prefix must be letters, digits and underscores, not starting with a digit"),
    (dict(hostvars_suffix='.x'), "hostvars_suffix must be letters, digits and underscores (it makes variable names), got '.x'"),
    (dict(hostname='engine_name'), 'hostname must be name, id or a template such as "{{ engine_name }}-{{ engine_region }}", '
                                   "got 'engine_name'"),
    (dict(api_timeout=0), 'api_timeout must be at least 1 second, got 0'),  # the modules' checks (test_module.py)
])
def test_bad_options_fail_naming_them_before_any_request(sim, options, message):
    with pytest.raises(AnsibleError) as raised:
        parse(plugin_with(sim, **options))
    assert message in str(raised.value) and sim.requests() == []


def test_every_bad_option_is_named_at_once(sim):
    with pytest.raises(AnsibleError) as raised:
        parse(plugin_with(sim, filters=dict(state=[], colour='red'), hostvars_suffix='-x'))
    assert str(raised.value).split('; ') == [
        'filters.colour is not a filter: use state, tier, provider, region, name, tags',
        'filters.state must be a value or a non-empty list of values (strings), got []',
        "hostvars_suffix must be letters, digits and underscores (it makes variable names), got '-x'"]


def test_the_cache_holds_the_answer_to_each_tag_filter_and_the_plugin_filters_it_again(sim):
    plugin = plugin_with(sim, cache=True, filters=dict(tags=dict(team='ingest')))
    assert sorted(parse(plugin).hosts) == ['ingest-eu', 'ingest-staging']
    plugin = plugin_with(sim, plugin._cache, cache=True, filters=dict(tags=dict(team='ingest'), provider='gcp'))
    assert sorted(parse(plugin).hosts) == ['ingest-staging']  # from the cache, filtered again
    assert len(sim.requests()) == 1
    plugin = plugin_with(sim, plugin._cache, cache=True, filters=dict(tags=dict(team='events')))
    assert sorted(parse(plugin).hosts) == ['events-horizontal']  # another tag filter: another answer
    assert [entry['query'] for entry in sim.requests()] == [{'filter': 'tag:team=ingest'}, {'filter': 'tag:team=events'}]


def test_the_credentials_and_a_hostname_template_are_rendered_with_the_extra_vars(sim, monkeypatch, shown_warnings):
    monkeypatch.setattr('ansible.plugins.inventory.load_extra_vars', lambda loader: dict(site='fra', vault_secret=KEY_SECRET, vault_id=KEY_ID))
    inventory = parse(plugin_with(sim, hostname=trust_as_template('{{ site }}-{{ engine_name }}.{{ engine_tags.env | default("none") }}'),
                                  api_key_id=trust_as_template('{{ vault_id }}'), api_key_secret=trust_as_template('{{ vault_secret }}')))
    assert sent(sim) == [('GET', LIST, 200)]  # the simulator accepts the fixture's key only
    assert sorted(inventory.hosts) == sorted(['fra-prod-analytics.production', 'fra-dev-sandbox.dev', 'fra-ingest-staging.staging',
                                              'fra-ingest-eu.production', 'fra-events-horizontal.none', SERVICE_IDLE])
    assert host_vars(inventory, 'fra-ingest-eu.production')['engine_id'] == SERVICE_INGEST_EU
    assert len(shown_warnings()) == 1  # 'fra-reporting replica.none'


def test_a_hostname_template_that_gives_two_services_one_name_names_both_by_id(sim, shown_warnings):
    inventory = parse(plugin_with(sim, hostname=trust_as_template('{{ engine_provider }}-{{ engine_state }}')))
    assert sorted(inventory.hosts) == sorted(['aws-stopped', 'aws-idle', 'gcp-running', 'azure-running', SERVICE_PROD, SERVICE_HORIZONTAL])
    warnings = shown_warnings()
    assert sorted(text.split(' ')[2] for text in warnings) == sorted([SERVICE_PROD, SERVICE_HORIZONTAL])
    assert all("the name its hostname template gives 'aws-running' is the name of 2 services" in text for text in warnings)


def test_a_hostname_template_that_cannot_be_rendered_fails_naming_the_service(sim):
    with pytest.raises(AnsibleError) as raised:
        parse(plugin_with(sim, hostname=trust_as_template('{{ engine_tags.team }}')))
    assert "hostname '{{ engine_tags.team }}' cannot be rendered for service %s" % SERVICE_DEV in str(raised.value)


@pytest.mark.parametrize('prefix, suffix', [('svc_', ''), ('', '_of_service'), ('cloud_', '_x')])
def test_the_host_variables_are_named_with_the_prefix_and_suffix(sim, prefix, suffix):
    def name(key):
        return prefix + key + suffix
    inventory = parse(plugin_with(
        sim, hostvars_prefix=prefix, hostvars_suffix=suffix, hostname=trust_as_template('{{ %s }}' % name('id')),
        filters=dict(tags=dict(gdpr=None)), keyed_groups=[dict(key=trust_as_template(name('tier')), prefix='tier')],
        compose=dict(team=trust_as_template('%s.team' % name('tags')))))
    assert list(inventory.hosts) == [SERVICE_INGEST_EU]
    variables = inventory.get_host(SERVICE_INGEST_EU).vars  # what the plugin set, without the magic variables
    assert sorted(key for key in variables if key not in ('inventory_file', 'inventory_dir', 'team')) == sorted(
        name(key) for key in ('id', 'name', 'state', 'tier', 'provider', 'region', 'tags', 'endpoints', 'service'))
    assert variables[name('name')] == 'ingest-eu' and variables['team'] == 'ingest' and 'engine_name' not in variables
    assert [host.name for host in inventory.groups['tier_production'].get_hosts()] == [SERVICE_INGEST_EU]
