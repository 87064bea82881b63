# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The chart_series lookup against the simulator in process (tests/unit/conftest.py): keyword
arguments checked as the module checks its options, the module's request and rows for the same
options, AnsibleErrors that name the option, the environment fallbacks, and no token in any
message. "Now" is the fake clock's, set to NOW for every test here.

The lookup is loaded as Ansible loads it (its DOCUMENTATION, fragments included, gives set_options its
options), and called both directly and from templates, where Ansible hands it what a play gives a
lookup: from ansible-core 2.19 on, lazy containers that render their items when read."""

import os
import re
import sys

import pytest
import yaml

from ansible import constants as C
from ansible.errors import AnsibleError
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import init_plugin_loader, lookup_loader
from ansible.template import Templar
from ansible.utils.collection_loader import AnsibleCollectionConfig

from ansible_collections.engine.cloud.plugins.lookup.chart_series import SPEC, LookupModule
from ansible_collections.engine.cloud.plugins.doc_fragments.observability import ModuleDocFragment
from ansible_collections.engine.cloud.plugins.modules import chart_series
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import SOURCE_METRICS, TOKEN, observability_connection
from ansible_collections.engine.cloud.tests.unit.conftest import SIM_URL

try:
    from ansible.template import trust_as_template
except ImportError:  # before ansible-core 2.19 every string of a play's variables is a template
    def trust_as_template(value):
        return value

NOW = 1728740220125  # 2024-10-12T13:37:00.125Z
HOUR = 3600 * 1000
PATH = '/api/v2/charts/series'
SERIES = [dict(source_id=SOURCE_METRICS, agg_fn='count')]
ONE_HOUR = dict(series=SERIES, start_time='-1h')
ENVIRONMENT = ('ENGINE_OBSERVABILITY_URL', 'ENGINE_OBSERVABILITY_TOKEN', 'ENGINE_OBSERVABILITY_RATE_LIMIT')


def install_collection_loader():
    """Ansible's collection loader, as ansible-playbook installs it, unless it is there already (ansible-test
    units installs it). The collection's packages imported so far came from PYTHONPATH as plain namespace
    packages, without the collection's metadata: the loader imports those again; every module keeps its one
    instance (the fake clock of conftest.py patches the one the lookup uses)."""
    if AnsibleCollectionConfig.collection_finder is not None:
        return
    for name in [name for name, module in sys.modules.items()
                 if name.split('.')[0] == 'ansible_collections' and getattr(module, '__file__', None) is None]:
        del sys.modules[name]
    init_plugin_loader([os.path.abspath(__file__).rsplit(os.sep + 'ansible_collections' + os.sep, 1)[0]])


@pytest.fixture(autouse=True)
def controller_at_now(controller, clock, monkeypatch):
    """The controller's process, at NOW, without the lookup's environment variables."""
    install_collection_loader()
    clock.now = NOW / 1000.0
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


def loaded():
    """A new instance of the lookup, from Ansible's plugin loader."""
    plugin = lookup_loader.get('engine.cloud.chart_series')
    assert isinstance(plugin, LookupModule)
    return plugin


def lookup(sim, *terms, **options):
    """The lookup's rows for these options, connected to the simulator unless options say otherwise."""
    return loaded().run(list(terms), variables={}, **dict(observability_connection(sim.url), **options))


def templated(expression, **variables):
    """The value of expression (a template) with these variables, as a task renders it: every string among
    the variables is a template too."""
    def trusted(value):
        if isinstance(value, dict):
            return dict((key, trusted(item)) for key, item in value.items())
        if isinstance(value, list):
            return [trusted(item) for item in value]
        return trust_as_template(value) if isinstance(value, str) else value
    return Templar(loader=DataLoader(), variables=trusted(variables)).template(trust_as_template(expression))


def sent(sim):
    """The simulator's log as (method, path, body, status)."""
    return [(entry['method'], entry['path'], entry['body'], entry['status']) for entry in sim.requests()]


def test_the_rows_and_the_request_are_the_modules_for_the_same_options(sim, run):
    options = dict(series=[dict(source_id=SOURCE_METRICS, agg_fn='count', where='level:error', group_by=['host']),
                           dict(source_id=SOURCE_METRICS, agg_fn='p95', field='query.duration_ms', group_by=['host'])],
                   start_time='-1h', granularity='5m')
    body = {'series': [{'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': 'level:error', 'groupBy': ['host']},
                       {'sourceId': SOURCE_METRICS, 'aggFn': 'p95', 'field': 'query.duration_ms', 'where': '', 'groupBy': ['host']}],
            'startTime': NOW - HOUR, 'endTime': NOW, 'granularity': '5m'}
    module_rows = run(chart_series, options, requests=[('POST', PATH, body)])['rows']
    sim.clear_requests()
    rows = lookup(sim, **options)
    assert sent(sim) == [('POST', PATH, body, 200)]
    assert rows == module_rows and len(rows) > 12
    assert all(isinstance(row['series_0.data'], int) for row in rows if 'series_0.data' in row)  # the API's counts are strings


def test_the_rows_are_data_never_templates(sim):
    """A group value that holds a template stays that text when a task reads the rows, even where unsafe lookups are
    allowed (before ansible-core 2.19 only the unsafe mark stops the templar)."""
    template = '{{ 6 * 7 }}'
    sim.faults(dict(kind='status', status=200, method='POST', path=PATH, body={'data': [{'ts_bucket': 1, 'group': [template]}]}))
    rows = lookup(sim, **ONE_HOUR)
    assert Templar(loader=DataLoader(), variables={'rows': rows}).template(trust_as_template('{{ rows[0].group[0] }}')) == template


def test_the_connection_options_reach_the_client(sim):
    """observability_url is the address asked (the simulator answers at its own only), api_timeout and api_retries bound the wait."""
    with pytest.raises(AnsibleError, match=re.escape("POST https://observability.engine.example%s failed: connection failed: Failed to resolve"
                                                     % PATH)):
        lookup(sim, observability_url='https://observability.engine.example', api_retries=0, **ONE_HOUR)
    assert sim.requests() == []
    sim.faults(dict(kind='delay', delay=10, method='POST', path=PATH, count=2))
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, api_timeout=7, api_retries=1, **ONE_HOUR)
    assert str(raised.value) == 'POST %s%s failed: no response within api_timeout (7 s) (after 2 attempts)' % (sim.url, PATH)


@pytest.mark.parametrize('url, token, given', [(SIM_URL, TOKEN, False), ('https://observability.engine.example', 'not-the-token', True)],
                         ids=['from the environment', 'an argument wins'])
def test_the_connection_from_the_environment_and_an_argument_that_wins_over_it(sim, monkeypatch, url, token, given):
    monkeypatch.setenv('ENGINE_OBSERVABILITY_URL', url)
    monkeypatch.setenv('ENGINE_OBSERVABILITY_TOKEN', token)
    options = dict(observability_connection(sim.url), **ONE_HOUR) if given else ONE_HOUR
    assert loaded().run([], variables={}, **options)
    assert [(method, path, status) for method, path, dummy, status in sent(sim)] == [('POST', PATH, 200)]


def test_a_token_the_api_refuses_fails_without_showing_it(sim):
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, api_token='not-the-token', **ONE_HOUR)
    assert str(raised.value).startswith('POST %s%s failed: HTTP 401: Unauthorized. ' % (sim.url, PATH))
    assert 'api_token' in str(raised.value) and 'not-the-token' not in str(raised.value)
    assert [status for dummy, dummy, dummy, status in sent(sim)] == [401]


@pytest.mark.parametrize('options, message', [
    (dict(series=[dict(source_id='metrics', agg_fn='count')], start_time='-1h'),
     "series[0].source_id must be an object id of 24 hexadecimal digits, got 'metrics'"),
    (dict(series=SERIES, start_time='-1h', end_time='-2h'), 'end_time (1728733020125, 2024-10-12T11:37:00.125Z) must be after start_time'),
    (dict(series=SERIES), 'missing required arguments: start_time'),
    (dict(series=SERIES, start_time='-1h', granularity='7m'), 'value of granularity must be one of: 30s, 1m,'),
    (dict(series=SERIES, start_time='-1h', step='5m'), 'Unsupported parameters for (engine.cloud.chart_series lookup): step. Supported'),
    (dict(series=SERIES, start_time='-1h', api_retries=-1), 'api_retries must be at least 0, got -1'),  # the modules' checks (test_module.py)
    (dict(ONE_HOUR, observability_url=None, api_token=None), 'observability_url is required: set observability_url or the '
     'ENGINE_OBSERVABILITY_URL environment variable; api_token is required: set api_token or the ENGINE_OBSERVABILITY_TOKEN environment variable'),
])
def test_bad_options_raise_naming_the_option_and_send_nothing(sim, options, message):
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, **options)
    assert message in str(raised.value)
    assert TOKEN not in str(raised.value)
    assert sim.requests() == []


def test_terms_are_refused(sim):
    with pytest.raises(AnsibleError, match=r'takes keyword arguments only \(series=..., start_time=...\), got 1 positional term'):
        lookup(sim, 'series', **ONE_HOUR)
    assert sim.requests() == []


def test_an_api_error_raises_the_modules_message(sim, run):
    options = dict(series=[dict(source_id=SOURCE_METRICS[:-1] + '9', agg_fn='count')], start_time='-1h')  # well formed, but no such source
    failed = run(chart_series, options, requests=[('POST', PATH)], fails='HTTP 404')
    sim.clear_requests()
    with pytest.raises(AnsibleError) as raised:
        lookup(sim, **options)
    assert str(raised.value) == failed['msg'] == 'POST %s%s failed: HTTP 404: Source not found for series 1' % (sim.url, PATH)
    assert [status for dummy, dummy, dummy, status in sent(sim)] == [404]


# Filters that ansible-core brings (flatten, from_json, split), not Jinja's own: on ansible-core 2.19 to 2.21 a deep
# copy of a lazy container fails to load those (a copied filter plugin loader), and the lookup made one before.
# A play's ways to give the lookup its arguments: (the play's variables, the query's keyword arguments as
# template text, the same options as plain values). The connection comes from the variables url and token.
TEMPLATED = {
    'a variable made with a filter (issue 19)': (
        dict(fx="{{ '{\"s\": \"%s\"}' | from_json }}" % SOURCE_METRICS, query_series=[dict(source_id='{{ fx.s }}', agg_fn='count')]),
        "series=query_series, start_time='-1h'", ONE_HOUR),
    'every option from one variable, filters at every depth': (
        dict(ids=[SOURCE_METRICS], options=dict(series=[dict(source_id='{{ ids | first }}', agg_fn="{{ 'COUNT' | lower }}",
                                                             group_by="{{ 'host' | split(',') }}")],
                                                start_time="{{ '-1h' | string }}", granularity='5m')),
        '**options', dict(series=[dict(source_id=SOURCE_METRICS, agg_fn='count', group_by=['host'])], start_time='-1h', granularity='5m')),
    'a literal list around variables': (
        dict(source="{{ [ids] | flatten | first }}", ids=SOURCE_METRICS, window=dict(start='-2h', end="{{ 'now-1h' }}")),
        "series=[{'source_id': source, 'agg_fn': 'count'}], start_time=window.start, end_time=window.end",
        dict(series=SERIES, start_time='-2h', end_time='now-1h')),
}


@pytest.mark.parametrize('variables, arguments, options', list(TEMPLATED.values()), ids=list(TEMPLATED))
def test_templated_arguments_send_what_the_same_plain_options_send(sim, variables, arguments, options):
    rows = templated("{{ query('engine.cloud.chart_series', observability_url=url, api_token=token, %s) }}" % arguments,
                     url=sim.url, token=TOKEN, **variables)
    request = sent(sim)
    sim.clear_requests()
    assert rows == lookup(sim, **options) and len(rows) >= 12
    assert len(request) == 1 and request == sent(sim)


@pytest.mark.parametrize('variables, arguments, message', [
    (dict(bad_series=[dict(source_id='{{ source }}', agg_fn="{{ ['median'] | flatten | first }}")]), "series=bad_series, start_time='-1h'",
     'value of agg_fn must be one of: count, count_distinct,'),
    (dict(options=dict(series=[dict(source_id='{{ source }}', agg_fn='count')], start_time='-1h', step="{{ ['5m'] | flatten | first }}")), '**options',
     'Unsupported parameters for (engine.cloud.chart_series lookup): step. Supported'),
    (dict(options=dict(series=[dict(source_id='{{ source }}', agg_fn='count')], start_time='-1h', validate_certs='{{ [token] | flatten | first }}')),
     '**options', "argument 'validate_certs' is of type"),
], ids=['choices in a suboption', 'an unknown option', 'a type, the token masked'])
def test_templated_bad_arguments_raise_the_modules_message(sim, variables, arguments, message):
    with pytest.raises(AnsibleError) as raised:
        templated("{{ query('engine.cloud.chart_series', observability_url=url, api_token=token, %s) }}" % arguments,
                  url=sim.url, token=TOKEN, source=SOURCE_METRICS, **variables)
    assert message in str(raised.value)
    assert TOKEN not in str(raised.value)
    assert sim.requests() == []


def test_the_options_are_the_plugins_options(sim):
    """What the lookup used is what get_option says: given, from the environment or DOCUMENTATION's default."""
    plugin = loaded()
    plugin.run([], variables={}, granularity='5m', **dict(observability_connection(sim.url), **ONE_HOUR))
    assert plugin.get_option('granularity') == '5m' and plugin.get_option('start_time') == '-1h'
    assert plugin.get_option('series') == [dict(source_id=SOURCE_METRICS, agg_fn='count', field=None, where='', group_by=[])]
    assert (plugin.get_option('api_timeout'), plugin.get_option('end_time'), plugin.get_option('validate_certs')) == (30, 'now', True)


def test_every_option_is_documented_with_the_environment_variable_of_the_module():
    """The env entries of DOCUMENTATION are the lookup's fallbacks, and name the variables the modules' documentation
    names (test_module.py runs the modules on them); the lookup's argument spec has none of its own."""
    definitions = C.config.get_configuration_definitions('lookup', loaded()._load_name)
    assert sorted(definitions) == sorted(SPEC)
    documented = dict((name, [entry['name'] for entry in option['env']]) for name, option in definitions.items() if option.get('env'))
    modules = dict((name, re.findall(r'E\((ENGINE_\w+)\)', ' '.join(option['description'])))
                   for name, option in yaml.safe_load(ModuleDocFragment.DOCUMENTATION)['options'].items())
    assert documented == dict((name, variables) for name, variables in modules.items() if variables)
    assert [name for name, option in SPEC.items() if 'fallback' in option] == []


def test_the_rate_limit_from_the_environment_is_checked_an_argument_wins_and_a_long_wait_warns(sim, monkeypatch, shown_warnings):
    monkeypatch.setenv('ENGINE_OBSERVABILITY_RATE_LIMIT', '0/60')
    with pytest.raises(AnsibleError, match=re.escape("api_rate_limit must be REQUESTS/SECONDS")):
        lookup(sim, **ONE_HOUR)
    assert sim.requests() == []
    assert lookup(sim, api_rate_limit='1/10', **ONE_HOUR)
    assert [text for text in shown_warnings() if 'rate limit' in text] == []
    assert lookup(sim, api_rate_limit='1/10', **ONE_HOUR)
    assert [text for text in shown_warnings() if 'rate limit' in text] == [
        "The engine.cloud.chart_series lookup waited 10.5 s in all for the API's rate limit: at most 1 requests per 10 s per token, "
        "shared by every process of this controller that uses the same token; api_rate_limit (or ENGINE_OBSERVABILITY_RATE_LIMIT) "
        "sets that budget (raise it only where the server allows more)"]
