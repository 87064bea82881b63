# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The event sources' logic (plugins/plugin_utils/events.py) without ansible-rulebook: options, one listing per poll
(every page, up to its total), one event per transition, failed polls that report nothing and lose nothing, a memory of
what recent listings showed only, no secret in any event or warning, and importing the sources leaves every other library
of the ansible-rulebook process importable. Against the simulator in process (tests/unit/conftest.py), on the fake clock."""

import ast
import asyncio
import json
import importlib.util
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.engine.cloud.plugins.module_utils import observability
from ansible_collections.engine.cloud.plugins.plugin_utils import events
from ansible_collections.engine.cloud.tests.simulator import fixture_ids as ids
from ansible_collections.engine.cloud.plugins.modules import dashboard_info
from ansible_collections.engine.cloud.tests.unit.conftest import SIM_URL, connection_failure, leaks, seconds

HIGH_CPU = ids.ALERTS[0]           # High CPU, OK
MEMORY = ids.ALERTS[1]             # Memory pressure, inactive
ALERTS_PATH = '/api/v2/alerts'
SERVICES_PATH = '/v1/organizations/%s/services' % ids.ORGANIZATION
SOURCES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'extensions', 'eda', 'plugins', 'event_source')


@pytest.fixture
def warnings():
    """The warnings a source logs (its log is the list's append)."""
    return []


def alerts(warnings, **args):
    return events.alert_poller(dict(ids.observability_connection(SIM_URL), **args), warnings.append)


def services(warnings, **args):
    return events.service_poller(dict(ids.cloud_connection(SIM_URL), **args), warnings.append)


def listings(sim, path):
    return [(entry['method'], entry['query'].get('offset'), entry['status']) for entry in sim.requests() if entry['path'] == path]


def transitions(found, kind='alert'):
    return [(event[kind]['name'], event[kind]['previous_state'], event[kind]['state']) for event in found]


def assert_no_secret(*texts):
    assert not leaks(json.dumps(texts))


# Transitions ----------------------------------------------------------------------------------------

def test_an_alert_that_fires_is_one_event_with_designs_fields(sim, warnings):
    poller = alerts(warnings)
    assert poller.poll() == []  # initial: changes
    sim.edit('alerts', HIGH_CPU, {'state': 'ALERT'})
    found = poller.poll()
    assert found == [{
        'alert': {'id': HIGH_CPU, 'name': 'High CPU', 'state': 'ALERT', 'previous_state': 'OK', 'threshold': 85,
                  'threshold_type': 'above', 'interval': '5m', 'dashboard_id': ids.DASHBOARD_HEALTH, 'tile_id': 't-cpu',
                  'saved_search_id': None, 'silenced': None},
        'engine': {'source': 'alert_events', 'seen_at': events.iso(sim.clock.now)}}]
    assert poller.poll() == [] and warnings == []  # never twice
    sim.edit('alerts', HIGH_CPU, {'state': 'OK'})
    assert transitions(poller.poll()) == [('High CPU', 'ALERT', 'OK')]
    assert_no_secret(found)


@pytest.mark.parametrize('read_form', ['current', 'contract'])  # dashboardId, or the contract's older dashboard
def test_initial_current_reports_each_watched_alert_at_the_first_listing(sim, warnings, read_form):
    sim.config(alert_read_form=read_form)
    poller = alerts(warnings, initial='current', names=['High CPU', 'QPS drop', 'Staging errors'])
    found = poller.poll()
    assert sorted(transitions(found)) == [('High CPU', None, 'OK'), ('QPS drop', None, 'ALERT'),
                                          ('Staging errors', None, 'DISABLED'), ('Staging errors', None, 'OK')]
    assert [event['alert']['dashboard_id'] for event in found if event['alert']['name'] == 'High CPU'] == [ids.DASHBOARD_HEALTH]
    assert poller.poll() == []


def test_names_and_states_filter_what_is_reported_not_what_is_known(sim, warnings):
    poller = alerts(warnings, names=['High CPU'], states=['ALERT'])
    poller.poll()
    for alert, state in ((MEMORY, 'ALERT'), (HIGH_CPU, 'ALERT')):
        sim.edit('alerts', alert, {'state': state})
    assert transitions(poller.poll()) == [('High CPU', 'OK', 'ALERT')]
    sim.edit('alerts', HIGH_CPU, {'state': 'OK'})
    assert poller.poll() == []  # into OK: not reported, but known
    sim.edit('alerts', HIGH_CPU, {'state': 'ALERT'})
    assert transitions(poller.poll()) == [('High CPU', 'OK', 'ALERT')]


def test_a_service_that_stops_is_one_event(sim, warnings):
    poller = services(warnings, tags={'env': 'production'}, states=['stopped', 'idle'])
    assert poller.poll() == []
    sim.edit('services', ids.SERVICE_PROD, {'state': 'stopped'})
    sim.edit('services', ids.SERVICE_DEV, {'state': 'running'})  # no env=production tag
    found = poller.poll()
    assert found == [{'service': {'id': ids.SERVICE_PROD, 'name': 'prod-analytics', 'state': 'stopped', 'previous_state': 'running',
                                  'tier': 'production', 'region': 'eu-central-1', 'tags': {'team': 'data-platform', 'env': 'production'}},
                      'engine': {'source': 'service_events', 'seen_at': events.iso(sim.clock.now)}}]
    assert [(entry['method'], entry['path'], entry['query']) for entry in sim.requests()] == [
        ('GET', SERVICES_PATH, {'filter': 'tag:env=production'})] * 2
    sim.edit('services', ids.SERVICE_INGEST_EU, {'state': 'idle'})
    assert transitions(poller.poll(), 'service') == [('ingest-eu', 'running', 'idle')]


# Failed polls ---------------------------------------------------------------------------------------

FAILURES = {  # how the client fails a request itself, each kind: test_http.py
    '500': dict(fault={'path': ALERTS_PATH, 'kind': 'status', 'status': 500, 'count': 1}, says='HTTP 500'),
    '429': dict(fault={'path': ALERTS_PATH, 'kind': 'status', 'status': 429, 'count': 1}, says='HTTP 429'),
    'reset': dict(fault={'path': ALERTS_PATH, 'kind': 'reset', 'count': 1}, says='connection failed'),
    'timeout': dict(fault={'path': ALERTS_PATH, 'kind': 'delay', 'delay': 60, 'count': 1}, says='no response within api_timeout'),
    'no list': dict(fault={'path': ALERTS_PATH, 'kind': 'status', 'status': 200, 'body': {'data': 'none'}, 'count': 1},
                    says='no list of items'),
}


@pytest.mark.parametrize('failure', list(FAILURES.values()), ids=list(FAILURES))
def test_a_failed_poll_reports_nothing_and_the_next_one_reports_the_change_once(sim, warnings, failure):
    poller = alerts(warnings, interval=10)
    poller.poll()
    sim.faults(failure['fault'])
    sim.edit('alerts', HIGH_CPU, {'state': 'ALERT'})
    assert poller.poll() == []
    assert len(warnings) == 1 and failure['says'] in warnings[0]
    assert warnings[0].startswith('engine.cloud.alert_events: the poll failed, so it reports nothing; the next one comes in 10 s')
    assert transitions(poller.poll()) == [('High CPU', 'OK', 'ALERT')]
    assert poller.poll() == [] and len(warnings) == 1
    assert_no_secret(warnings)


def test_more_than_one_page_is_two_requests_per_poll_and_a_page_that_fails_halfway_reports_nothing(sim, warnings, monkeypatch):
    sim.config(alert_count=1000)  # 1015 alerts: two pages of 1000
    poller = alerts(warnings)
    poller.poll()
    answer = sim.answer

    def second_page_fails(connection, method, target, headers, body):
        if 'offset=1000' in target and not getattr(second_page_fails, 'done', False):
            second_page_fails.done = True
            raise connection_failure('Connection aborted: [Errno 104] Connection reset by peer', reached=True)
        return answer(connection, method, target, headers, body)
    monkeypatch.setattr(sim, 'answer', second_page_fails)
    sim.edit('alerts', HIGH_CPU, {'state': 'ALERT'})
    sim.clear_requests()
    assert poller.poll() == [] and 'Connection reset by peer' in warnings[0]
    assert [offset for dummy, offset, dummy in listings(sim, ALERTS_PATH)] == ['0']  # the first page reached the server
    sim.clear_requests()
    assert transitions(poller.poll()) == [('High CPU', 'OK', 'ALERT')]
    assert listings(sim, ALERTS_PATH) == [('GET', '0', 200), ('GET', '1000', 200)] and len(sim.requests()) == 2


def test_a_refused_connection_reports_nothing(sim, warnings):
    poller = services(warnings)
    poller.poll()
    sim.script(connection_failure('Failed to establish a new connection: [Errno 111] Connection refused', reached=False))
    sim.edit('services', ids.SERVICE_PROD, {'state': 'stopped'})
    assert poller.poll() == [] and 'Connection refused' in warnings[0] and 'Check api_url' in warnings[0]
    assert transitions(poller.poll(), 'service') == [('prod-analytics', 'running', 'stopped')]
    assert_no_secret(warnings)


def test_api_retries_retry_within_the_poll(sim, warnings):
    poller = alerts(warnings, api_retries=2)
    sim.faults({'path': ALERTS_PATH, 'kind': 'status', 'status': 503, 'count': 1})
    poller.poll()
    assert [status for dummy, dummy, status in listings(sim, ALERTS_PATH)] == [503, 200] and warnings == []


# The poller's bookkeeping, on listings written by hand -----------------------------------------------

def scripted(*listings_):
    """A poller over these listings in turn (an exception instance: that poll fails)."""
    queue = list(listings_)

    def list_items():
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return [dict(id=object_id, name=object_id, state=state) for object_id, state in item]
    return events.Poller('test', list_items, lambda item, before, seen: (item['id'], before, item['state']), 10)


FORGET = events.FORGET_AFTER_POLLS


@pytest.mark.parametrize('listed, found', [
    ([[('a', 'OK')], [('a', 'OK'), ('b', 'ALERT')]], [[], [('b', None, 'ALERT')]]),
    ([[('a', 'OK')], [], [('a', 'OK')], [('a', 'ALERT')]], [[], [], [], [('a', 'OK', 'ALERT')]]),
    ([[('a', 'OK')], [('a', 'ALERT'), ('a', 'ALERT')]], [[], [('a', 'OK', 'ALERT')]]),
    ([[('a', 'OK')], events.PollError('cut short'), [('a', 'OK')]], [[], [], []]),
    ([events.PollError('HTTP 502'), [('a', 'ALERT')], [('a', 'OK')]], [[], [], [('a', 'ALERT', 'OK')]]),
    ([[('a', 'OK')]] + [[]] * (FORGET - 1) + [[('a', 'OK')], [('a', 'ALERT')]], [[]] * (FORGET + 1) + [[('a', 'OK', 'ALERT')]]),
    ([[('a', 'OK'), ('b', 'OK')]] + [[('b', 'OK')]] * FORGET + [[('a', 'OK'), ('b', 'OK')]], [[]] * (FORGET + 1) + [[('a', None, 'OK')]]),
], ids=['an object that appears later has no previous state', 'an object missing from a listing keeps its last state',
        'an object listed twice is one event', 'a poll error keeps what is known', 'a failed first poll is no start',
        'an object gone briefly comes back without an event', 'an object gone for a while is forgotten and new when it comes back'])
def test_the_events_of_a_sequence_of_listings(listed, found):
    poller = scripted(*listed)
    assert [poller.poll() for dummy in listed] == found


def test_the_memory_holds_only_what_recent_listings_showed():
    poller = scripted(*[[(str(index), 'OK')] for index in range(50)])
    for dummy in range(50):
        poller.poll()
    assert len(poller.known) == FORGET and len(poller.missing) == FORGET - 1


@pytest.mark.parametrize('total, pages', [(0, 1), (3, 2), (4, 2), (5, 3)])
def test_a_listing_stops_at_its_total(total, pages):
    sent = []

    def request(method, path, params):  # a server whose pages never run dry: only the total ends the listing
        sent.append(params['offset'])
        return dict(data=[dict(id='%s' % (params['offset'] + index)) for index in range(params['limit'])], meta=dict(total=total))

    items = observability.list_all(request, '/alerts', page_size=2)
    assert sent == [offset * 2 for offset in range(pages)]
    assert len(items) >= total


def test_run_puts_the_events_in_order_and_survives_an_unexpected_error(warnings):
    polls = [[1, 2], RuntimeError('bug'), [3]]

    class Stub:
        source, interval = 'stub', 0

        @staticmethod
        def poll():
            item = polls.pop(0) if polls else []
            if isinstance(item, Exception):
                raise item
            return item

    async def scenario():
        queue = asyncio.Queue()
        task = asyncio.ensure_future(events.run(Stub(), queue, warnings.append))
        found = [await asyncio.wait_for(queue.get(), 5) for dummy in range(3)]
        task.cancel()
        return found
    assert asyncio.run(scenario()) == [1, 2, 3]
    assert warnings == ['stub: the poll failed unexpectedly, so it reports nothing: RuntimeError: bug']


# Options --------------------------------------------------------------------------------------------

OPTION_CASES = {
    'no connection': (events.alert_poller, {}, 'observability_url is required: set observability_url or the ENGINE_OBSERVABILITY_URL'),
    'interval': (alerts, dict(interval=0), 'interval must be at least 1 second, got 0'),
    'interval type': (alerts, dict(interval='often'), "interval"),
    'states': (alerts, dict(states=['FIRING']), 'value of states must be one or more of: ALERT, OK'),
    'service states': (services, dict(states=['asleep']), 'value of states must be one or more of'),
    'initial': (alerts, dict(initial='all'), 'value of initial must be one of: changes, current'),
    'unknown': (alerts, dict(tags={'a': 'b'}), 'unsupported options: tags'),
    'names': (services, dict(names=['']), 'names must hold names'),
    'tags': (services, dict(tags={'env': 'two words'}), 'tags.env must be'),
    'tags type': (services, dict(tags='env'), 'tags'),
    'timeout': (services, dict(api_timeout=0), 'api_timeout must be at least 1 second'),  # the modules' checks (test_module.py)
    'a secret, masked': (alerts, dict(api_retries=ids.TOKEN), 'api_retries'),
}


@pytest.mark.parametrize('make, args, says', list(OPTION_CASES.values()), ids=list(OPTION_CASES))
def test_a_bad_option_fails_at_start_naming_it_and_sends_nothing(sim, warnings, make, args, says):
    with pytest.raises(events.OptionError) as failure:
        make(warnings, **args) if make in (alerts, services) else make(args, warnings.append)
    assert says in str(failure.value) and str(failure.value).startswith('engine.cloud.')
    assert sim.requests() == [] and warnings == []
    assert_no_secret(str(failure.value))


def test_the_connection_from_the_environment(sim, warnings, monkeypatch):
    for name, value in (('ENGINE_CLOUD_API_URL', SIM_URL), ('ENGINE_CLOUD_KEY_ID', ids.KEY_ID), ('ENGINE_CLOUD_KEY_SECRET', ids.KEY_SECRET),
                        ('ENGINE_CLOUD_ORGANIZATION_ID', ids.ORGANIZATION), ('ENGINE_CLOUD_RATE_LIMIT', '7/10')):
        monkeypatch.setenv(name, value)
    poller = events.service_poller({'initial': 'current', 'names': ['prod-analytics']}, warnings.append)
    assert transitions(poller.poll(), 'service') == [('prod-analytics', None, 'running')]


@pytest.mark.parametrize('limit, waited', [('1/10', True), ('off', False)])
def test_a_poll_is_paced_with_the_modules_of_the_controller(sim, run, warnings, limit, waited):
    """A module's request and a poll's, under one budget of the token: the poll waits for the window the module began."""
    run(dashboard_info, dict(dashboard_id=ids.DASHBOARD_HEALTH, api_rate_limit=limit), requests=[('GET', '/api/v2/dashboards/' + ids.DASHBOARD_HEALTH)])
    alerts(warnings, api_rate_limit=limit).poll()
    module_request, poll = sim.requests()
    assert (seconds(poll) - seconds(module_request) >= 10) is waited


@pytest.mark.parametrize('status', [401, 403])
def test_refused_credentials_stop_the_source_loudly(sim, warnings, status):
    poller = alerts(warnings)
    poller.poll()
    sim.faults({'path': ALERTS_PATH, 'kind': 'status', 'status': status, 'count': 1})
    with pytest.raises(events.CredentialsRefused, match='the API refused the credentials, so the source stops') as raised:
        poller.poll()
    assert 'HTTP %d' % status in str(raised.value) and warnings == []
    assert_no_secret(str(raised.value))


# The source files, as ansible-rulebook runs them -------------------------------------------------------

@pytest.mark.parametrize('name, option', [('alert_events', 'observability_url'), ('service_events', 'api_url')])
def test_a_source_with_a_bad_option_fails_at_start(sim, name, option, monkeypatch):
    for variable in ('ENGINE_OBSERVABILITY_URL', 'ENGINE_CLOUD_API_URL'):
        monkeypatch.delenv(variable, raising=False)
    spec = importlib.util.spec_from_file_location('engine_cloud_test_%s' % name, os.path.join(SOURCES, name + '.py'))
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    with pytest.raises(events.OptionError, match=option):
        asyncio.run(source.main(asyncio.Queue(), {}))


@pytest.mark.parametrize('name, spec', [('alert_events', events.ALERT_SPEC), ('service_events', events.SERVICE_SPEC)])
def test_the_documentation_names_every_option_with_its_default_and_choices(name, spec):
    with open(os.path.join(SOURCES, name + '.py'), encoding='utf-8') as handle:
        module = ast.parse(handle.read())
    documented = next(yaml.safe_load(node.value.value) for node in module.body
                      if isinstance(node, ast.Assign) and node.targets[0].id == 'DOCUMENTATION')['options']
    assert sorted(documented) == sorted(spec)
    for option, doc in documented.items():
        assert (doc.get('default'), doc.get('choices')) == (spec[option].get('default'), spec[option].get('choices')), option


def test_importing_the_sources_leaves_every_other_library_importable():
    """What the ansible-rulebook process imports besides them stays importable (no None written into sys.modules)."""
    code = ('import sys\n'
            'from ansible_collections.engine.cloud.plugins.plugin_utils import events\n'
            'from ansible_collections.engine.cloud.plugins.module_utils import transport\n'
            'blocked = sorted(name for name, module in sys.modules.items() if module is None)\n'
            'assert not blocked, blocked\n'
            'import charset_normalizer, json, ssl, urllib3\n'
            'print("ok")\n')
    done = subprocess.run([sys.executable, '-c', code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          env=dict(os.environ, PYTHONPATH=':'.join(sys.path)), check=False)
    assert done.stdout.strip().endswith('ok'), done.stdout
