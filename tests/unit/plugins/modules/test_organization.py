# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.organization against the simulator, in process: the round trip of an export, drift found and fixed,
every rail stopping a plan before any write, a partial read failing closed, check mode equal to the apply, plan_digest,
the order of writes, and the entries' own checks naming the entry. Each assertion on writes reads the request log."""

import copy
import json
import re

import pytest
import yaml
from ansible.module_utils.basic import AnsibleModule
from ansible.plugins.filter.core import to_nice_yaml

from ansible_collections.engine.cloud.plugins.modules import organization
from ansible_collections.engine.cloud.tests.simulator import cloud, fixture_ids as ids

SERVICES = '/v1/organizations/%s/services' % ids.ORGANIZATION
SOURCES = ('GET', '/api/v2/sources')  # read in check mode when a dashboard write is planned
ALL = ['services', 'pipes', 'dashboards', 'alerts']
NEW_SERVICE = '0b5e7c1d-2a3f-4e6b-8c9d-0e1f2a3b4c5d'


def reads(sim, kinds=None):
    """The requests of one plan: one list per type (a service's pipes for each service), every page of the alerts."""
    kinds, found = ALL if kinds is None else kinds, []
    if {'services', 'pipes'} & set(kinds):
        found.append(('GET', SERVICES))
        if 'pipes' in kinds:
            found += [('GET', '%s/%s/pipes' % (SERVICES, item['id'])) for item in sim.state()['services']
                      if item['state'] not in ('terminated', 'softdeleted', 'terminating', 'softdeleting')]
    if {'dashboards', 'alerts'} & set(kinds):
        found += [('GET', '/api/v2/dashboards'), ('GET', '/api/v2/alerts?limit=1000&offset=0')]
    return found


def gathering(sim):
    """The requests of state=gathered: those of a plan, and each pipe's settings."""
    return reads(sim) + [('GET', '%s/%s/pipes/%s/settings' % (SERVICES, pipe['serviceId'], pipe['id'])) for pipe in sim.state()['pipes']]


@pytest.fixture
def exported(run, sim):
    """The organization's export (ids kept), as the test's starting point."""
    result = run(organization, dict(state='gathered'), requests=gathering(sim))
    assert result['changed'] is False and set(result['gathered']) == set(ALL)
    assert 'services[0].password' in result['omitted_secrets'] and any('credentials' in path for path in result['omitted_secrets'])
    return result['gathered']


def test_drift_is_found_with_its_diff_and_fixed_by_an_apply_of_the_same_plan(run, sim, exported):
    tags = sim.find('services', ids.SERVICE_DEV)['tags']
    sim.edit('services', ids.SERVICE_DEV, {'tags': tags + [{'key': 'rogue', 'value': 'yes'}]})
    checked = run(organization, dict(state='overridden', resources=ALL, config=exported), check=True, diff=True, requests=reads(sim),
                  result={'changed': True, 'summary.update': [dict(type='service', id=ids.SERVICE_DEV, name='dev-sandbox')]})
    assert checked['diff'][0]['before']['tags'] == tags + [{'key': 'rogue', 'value': 'yes'}] and checked['diff'][0]['after']['tags'] == tags
    applied = run(organization, dict(state='overridden', resources=ALL, config=exported, plan_digest=checked['plan_digest']),
                  requests=reads(sim) + [('PATCH', '%s/%s' % (SERVICES, ids.SERVICE_DEV),
                                          {'tags': {'remove': [{'key': 'rogue', 'value': 'yes'}]}})])
    assert applied['summary'] == checked['summary'] and applied['plan_digest'] == checked['plan_digest']
    run(organization, dict(state='overridden', resources=ALL, config=exported), requests=reads(sim), result={'changed': False})


def test_alerts_on_a_dashboard_renamed_by_hand_are_planned_as_the_apply_leaves_them(run, sim, exported):
    """The alerts name their dashboard by name: the plan resolves them on the dashboard as its entry leaves it."""
    sim.edit('dashboards', ids.DASHBOARD_INGESTION, {'name': 'Ingestion (renamed by hand)'})
    checked = run(organization, dict(state='overridden', resources=ALL, config=exported), check=True, requests=reads(sim) + [SOURCES],
                  result={'summary.update': [dict(type='dashboard', id=ids.DASHBOARD_INGESTION, name='Ingestion')]})
    applied = run(organization, dict(state='overridden', resources=ALL, config=exported), requests=reads(sim) + [
        SOURCES, ('PUT', '/api/v2/dashboards/%s' % ids.DASHBOARD_INGESTION)])
    assert applied['summary'] == checked['summary']


def test_a_plan_that_changed_since_its_review_is_refused_before_any_write(run, sim, exported):
    sim.edit('dashboards', ids.DASHBOARD_INGESTION, {'name': 'renamed by hand'})
    run(organization, dict(state='overridden', resources=ALL, config=exported, plan_digest='0' * 64), requests=reads(sim) + [SOURCES],
        fails='The plan differs from the one reviewed')


@pytest.mark.parametrize('drop, options, fails', [
    ('services', {}, 'allow_service_deletion is false'),
    ('alerts', {}, 'allow_alert_deletion is false'),
    ('alerts', dict(allow_alert_deletion=True, max_deletions=0), 'more than max_deletions (0)'),
], ids=['a service', 'an alert', 'max_deletions'])
def test_a_rail_stops_a_plan_before_any_write_and_names_what_it_would_delete(run, sim, exported, drop, options, fails):
    config = copy.deepcopy(exported)
    gone = config[drop].pop(0)
    result = run(organization, dict(state='overridden', resources=ALL, config=config, **options), requests=reads(sim),
                 fails=fails)
    assert gone['name'] in result['msg'] and 'Nothing was sent' in result['msg'] and sim.writes() == []


def test_a_dashboard_change_that_deletes_alerts_is_a_rail_too(run, sim, exported):
    config = copy.deepcopy(exported)
    health = next(item for item in config['dashboards'] if item['name'] == 'Service health')
    health['tiles'] = [tile for tile in health['tiles'] if tile['name'] != 'CPU usage']
    config['alerts'] = [item for item in config['alerts'] if item['name'] != 'High CPU']
    result = run(organization, dict(state='overridden', resources=['dashboards'], config=dict(dashboards=config['dashboards'])),
                 requests=reads(sim, ['dashboards']) + [SOURCES], fails='High CPU')
    assert 'allow_alert_deletion' in result['msg'] and sim.writes() == []


def test_overridden_needs_resources_and_an_empty_list_is_refused_unless_allowed(run, sim):
    run(organization, dict(state='overridden', config=dict(dashboards=[])), requests=[], fails='resources is required')
    run(organization, dict(state='overridden', resources=['dashboards'], config={}), requests=[], fails='allow_empty: true')


def test_owner_tag_limits_a_purge_to_what_carries_it(run, sim, exported):
    """(Each entry's tags gain the owner tag: the plan updates them, and reads the team's sources for it.)"""
    config = dict(dashboards=[item for item in exported['dashboards'] if item['name'] != 'Ingestion'])
    sim.edit('dashboards', ids.DASHBOARD_INGESTION, {'tags': ['team:ingest']})
    result = run(organization, dict(state='overridden', resources=['dashboards'], config=config, owner_tag={'managed-by': 'ansible'},
                                    allow_alert_deletion=True), check=True, requests=reads(sim, ['dashboards']) + [SOURCES])
    assert result['summary']['delete'] == []
    sim.edit('dashboards', ids.DASHBOARD_INGESTION, {'tags': ['managed-by:ansible']})
    result = run(organization, dict(state='overridden', resources=['dashboards'], config=config, owner_tag={'managed-by': 'ansible'},
                                    allow_alert_deletion=True), check=True, requests=reads(sim, ['dashboards']) + [SOURCES])
    assert [item['name'] for item in result['summary']['delete']] == ['Ingestion']


@pytest.mark.parametrize('fault, read', [
    (dict(kind='status', status=500, method='GET', path='/api/v2/alerts'), None),
    (dict(kind='status', status=200, method='GET', path='/api/v2/alerts', body={'data': [], 'meta': {'total': 3, 'limit': 1000, 'offset': 0}}), None),
    (dict(kind='status', status=503, method='GET', path='/pipes$', count=99), 2),  # the observability lists come meanwhile
], ids=['a failed alerts page', 'a page short of the total', "a service's pipes"])
def test_a_failed_or_partial_read_fails_closed_before_any_write(run, sim, exported, fault, read):
    config = copy.deepcopy(exported)
    config['alerts'] = []
    result = run(organization, dict(state='overridden', resources=ALL, config=config, allow_alert_deletion=True, max_deletions=-1,
                                    allow_empty=True, api_retries=0), faults=[fault],
                 requests=reads(sim)[:read] + (reads(sim, ['dashboards']) if read else []), fails='could not be read whole')
    assert 'nothing was sent' in result['msg']


def test_an_alert_on_a_dashboard_the_plan_renames_fails_in_check_mode_as_in_the_apply(run, sim, exported):
    config = copy.deepcopy(exported)
    config['dashboards'][0]['name'] += ' renamed'  # its alerts still name it by its old name
    run(organization, dict(state='overridden', resources=ALL, config=config), check=True, requests=reads(sim) + [SOURCES],
        fails='no dashboard has the id or name "%s"' % exported['dashboards'][0]['name'])


def test_deletions_come_last_and_in_reverse_and_a_failure_before_them_deletes_nothing(run, sim, exported):
    config = copy.deepcopy(exported)
    config['dashboards'][0]['tags'] = ['reviewed']
    doomed = config['alerts'].pop()
    run(organization, dict(state='overridden', resources=ALL, config=config, allow_alert_deletion=True),
        faults=[dict(kind='status', status=500, method='PUT', path='/dashboards/')],
        requests=reads(sim) + [SOURCES, ('PUT', '/api/v2/dashboards/%s' % config['dashboards'][0]['dashboard_id'])], fails='HTTP 500',
        result={'applied.update': []})
    assert [entry['method'] for entry in sim.writes()] == ['PUT']
    applied = run(organization, dict(state='overridden', resources=ALL, config=config, allow_alert_deletion=True), requests=reads(sim) + [
        SOURCES, ('PUT', '/api/v2/dashboards/%s' % config['dashboards'][0]['dashboard_id']), ('GET', '/api/v2/alerts/%s' % doomed['alert_id']),
        ('DELETE', '/api/v2/alerts/%s' % doomed['alert_id']), ('GET', '/api/v2/alerts/%s' % doomed['alert_id'])])
    assert [item['name'] for item in applied['summary']['delete']] == [doomed['name']]


def test_an_entry_is_checked_by_its_own_module_and_the_message_names_it(run, sim):
    entry = dict(name='p', service='prod-analytics', scaling=dict(replicas=2), source=dict(postgres=dict(host='db', port=5432, database='d')))
    run(organization, dict(state='merged', config=dict(pipes=[entry])),
        requests=[('GET', SERVICES), ('GET', '%s/%s/pipes' % (SERVICES, ids.SERVICE_PROD))],
        fails='config.pipes[0]: scaling is not possible with a postgres source')  # read, never written


def test_an_entry_s_bad_options_are_named_by_entry_and_its_secrets_never_shown_nor_logged(run, sim, monkeypatch):
    logged = []
    monkeypatch.setattr(AnsibleModule, 'log', lambda self, msg, log_args=None: logged.append(msg))
    secret = 'kafka-Pa55word-of-entry-two'
    pipes = [dict(name='ok', service='prod-analytics', source=dict(kafka=dict(brokers='b:9092', topics='t'))),
             dict(name='bad', service='prod-analytics', source=dict(kafka=dict(brokers='b:9092', topics='t', format='XML',
                                                                               credentials=dict(username='u', password=secret))))]
    alerts = [dict(name='a', tile='t'), dict(name='b', threshold_type='between', threshold=1)]
    result = run(organization, dict(state='merged', config=dict(pipes=pipes, alerts=alerts)), requests=[],
                 fails='config.pipes[1]: value of format must be one of')
    assert 'config.alerts[0]: parameters are required together: dashboard, tile' in result['msg']
    assert 'config.alerts[1]: threshold_type is between but all of the following are missing: threshold_max' in result['msg']
    assert 'config.pipes[0]' not in result['msg']
    assert logged and secret not in json.dumps(result) + ''.join(logged)


def test_a_pipe_of_a_service_the_plan_creates_is_planned_and_created_after_it(run, sim, monkeypatch):
    monkeypatch.setattr(cloud, 'new_service_id', lambda: NEW_SERVICE)
    config = dict(services=[dict(name='fresh', provider='aws', region='eu-west-1')],
                  pipes=[dict(name='fresh-kafka', service='fresh', source=dict(kafka=dict(
                      type='kafka', format='JSONEachRow', brokers='b:9092', topics='t', credentials=dict(username='u', password='kafka-pw-1'))),
                      destination=dict(database='default', table='t', managed_table=True, columns=[dict(name='a', type='String')]))])
    checked = run(organization, dict(state='merged', config=config), check=True, requests=[('GET', SERVICES)],
                  result={'changed': True})
    assert [(item['type'], item['name']) for item in checked['summary']['create']] == [('service', 'fresh'), ('pipe', 'fresh-kafka')]
    new = '%s/%s' % (SERVICES, NEW_SERVICE)
    applied = run(organization, dict(state='merged', config=config), requests=[  # the service runs before its pipe is made
        ('GET', SERVICES), ('POST', SERVICES), ('GET', new), ('GET', new + '/pipes'), ('POST', new + '/pipes')])
    assert applied['summary'] == checked['summary'] and 'kafka-pw-1' not in str(applied)


def test_rendered_sends_nothing_and_shows_each_create(run, sim):
    config = dict(dashboards=[dict(name='Ingestion v2', tiles=[])], services=[dict(name='fresh', provider='aws', region='eu-west-1')])
    result = run(organization, dict(state='rendered', config=config),
                 requests=[])
    assert [(item['method'], item['entry']) for item in result['rendered']] == [('POST', 'config.services[0]'), ('POST', 'config.dashboards[0]')]


@pytest.mark.parametrize('dashboards, alerts', [('as_sent', 'current'), ('series', 'contract'), ('config', 'current')])
def test_a_whole_seeded_organization_round_trips_on_every_read_era(run, sim, dashboards, alerts):
    """Every shape the seed holds (services with IP lists, endpoints, tags, both scaling modes; pipes of every kind with
    settings and table mappings; dashboards with sections; alerts of every form) fed back changes nothing, and a second
    export is byte-identical."""
    sim.admin('POST', 'seed', dict(services=6, pipes_per_service=4, dashboards=5, alerts=30))
    sim.config(dashboard_read_form=dashboards, alert_read_form=alerts)
    gathered = run(organization, dict(state='gathered'), requests=gathering(sim))['gathered']
    run(organization, dict(state='overridden', resources=ALL, config=gathered), requests=reads(sim),
        result={'changed': False, 'summary.create': [], 'summary.update': [], 'summary.delete': []},
        verify=lambda result, sim: len(result['summary']['unchanged']) == sum(len(gathered[kind]) for kind in ALL))
    again = run(organization, dict(state='gathered'), requests=gathering(sim))['gathered']
    assert to_nice_yaml(again) == to_nice_yaml(gathered)  # what org_export writes


def test_an_export_without_ids_is_promoted_into_an_empty_organization(run, sim, exported):
    """Names only, the second organization's sources, webhooks and saved search mapped by name, as the guide says."""
    sim.admin('POST', 'seed', dict(services=2, pipes_per_service=2, dashboards=3, alerts=8))
    gathered = run(organization, dict(state='gathered', include_ids=False, resources=['dashboards', 'alerts']), requests=reads(
        sim, ['dashboards', 'alerts']))['gathered']
    text = yaml.safe_dump(gathered)
    for first, second in ((ids.SOURCE_METRICS, ids.SECOND_SOURCE_METRICS), (ids.SOURCE_LOGS, ids.SECOND_SOURCE_LOGS),
                          (ids.WEBHOOK_PAGER, ids.SECOND_WEBHOOK_PAGER), (ids.WEBHOOK_CHAT, ids.SECOND_WEBHOOK_CHAT),
                          (ids.WEBHOOK_INGEST, ids.SECOND_WEBHOOK_INGEST), (ids.SAVED_SEARCH, ids.SECOND_SAVED_SEARCH)):
        text = text.replace(first, second)
    promoted, second = yaml.safe_load(text), ids.observability_connection(sim.url, second=True)
    assert not re.search(r'(dashboard|alert)_id', text)
    result = run(organization, dict(second, state='merged', config=promoted),
                 requests=reads(sim, ['dashboards', 'alerts']) + [SOURCES, ('GET', '/api/v2/webhooks')] + [
                     ('POST', '/api/v2/dashboards')] * len(promoted['dashboards']) + [('POST', '/api/v2/alerts')] * len(promoted['alerts']))
    assert len(result['summary']['create']) == len(promoted['dashboards']) + len(promoted['alerts'])
    run(organization, dict(second, state='merged', config=promoted), requests=reads(sim, ['dashboards', 'alerts']), result={'changed': False})


def test_two_entries_of_one_name_fail_before_any_write(run, sim):
    twice = [dict(name='Twice', tiles=[]), dict(name='Twice', tiles=[])]
    run(organization, dict(config=dict(dashboards=twice)), requests=reads(sim, ['dashboards']), fails='config.dashboards names "Twice" more than once')


def test_deleted_deletes_exactly_the_listed_objects_behind_the_same_rails(run, sim, exported):
    high_cpu = next(item['alert_id'] for item in exported['alerts'] if item['name'] == 'High CPU')
    config = dict(alerts=[dict(name='High CPU'), dict(name='Never made')])
    run(organization, dict(state='deleted', config=config), requests=reads(sim, ['alerts']), fails='allow_alert_deletion is false')
    result = run(organization, dict(state='deleted', config=config, allow_alert_deletion=True), requests=reads(sim, ['alerts']) + [
        ('DELETE', '/api/v2/alerts/' + high_cpu), ('GET', '/api/v2/alerts/' + high_cpu)],  # found in this task's list, confirmed gone
        result={'changed': True, 'summary.delete': [dict(type='alert', id=high_cpu, name='High CPU')],
                'summary.unchanged': [dict(type='alert', id=None, name='Never made')]})
    assert sorted(item['name'] for item in sim.state()['alerts']) == sorted(item['name'] for item in exported['alerts'] if item['name'] != 'High CPU')
    run(organization, dict(state='deleted', config=config, allow_alert_deletion=True), requests=reads(sim, ['alerts']), result={'changed': False})
    assert result['summary']['skipped'] == []


def test_an_object_the_api_will_not_delete_in_its_state_is_skipped_with_the_reason(run, sim, exported):
    sim.edit('services', ids.SERVICE_DEV, {'state': 'failed'})
    kept = [item for item in exported['services'] if item['name'] != 'dev-sandbox']
    run(organization, dict(state='overridden', resources=['services'], config=dict(services=kept), allow_service_deletion=True),
        requests=[('GET', SERVICES)], result={'changed': False, 'summary.delete': [], 'summary.skipped': [dict(
            type='service', id=ids.SERVICE_DEV, name='dev-sandbox',
            reason='failed: the API deletes stopped services only, and a failed service takes no stop')]})


def test_an_entry_that_two_objects_match_fails_before_any_write_listing_both(run, sim):
    sim.edit('dashboards', ids.DASHBOARD_INGESTION, {'name': 'Service health'})
    run(organization, dict(config=dict(dashboards=[dict(name='Service health', tiles=[])])), requests=reads(sim, ['dashboards']),
        fails='config.dashboards[0]: 2 dashboards are named "Service health" (%s, %s)' % (ids.DASHBOARD_HEALTH, ids.DASHBOARD_INGESTION))


def test_an_unnamed_alert_is_found_by_its_source_when_the_source_carries_only_that_one(run, sim, exported):
    def unnamed(name):
        return dict((key, value) for key, value in next(item for item in exported['alerts'] if item['name'] == name).items()
                    if key not in ('name', 'alert_id'))
    high_cpu = next(item['alert_id'] for item in exported['alerts'] if item['name'] == 'High CPU')
    run(organization, dict(config=dict(alerts=[unnamed('High CPU')])), requests=reads(sim, ['alerts']),
        result={'changed': False, 'summary.adopted': [dict(type='alert', id=high_cpu, name='High CPU')]})
    run(organization, dict(config=dict(alerts=[unnamed('Consumer lag')])), requests=reads(sim, ['alerts']),
        fails='config.alerts[0] has neither alert_id nor name, and 2 alerts are on its source')
