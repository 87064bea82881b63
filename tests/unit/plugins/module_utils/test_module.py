# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every module does the same way (module_utils/module.py), through real modules on the simulator: the connection
options as users get them wrong (checked together before any request, the password of an address, the environment), no
secret in a failure that ansible-core's own validation raised, the converge step after a lost answer, the pacing under
each API's live rate limit and the warning of a task that waited for it, and TLS against a server with a self-signed
certificate (a real HTTPS server in a thread: the one place where the module's requests leave the process). The
options' own checks: test_validate.py and test_errors.py."""

import ssl
import threading

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import cloud, observability
from ansible_collections.engine.cloud.plugins.modules import alert_info, dashboard, dashboard_info, pipe, service, service_info
from ansible_collections.engine.cloud.tests.certificates import self_signed
from ansible_collections.engine.cloud.tests.simulator import fixture_ids
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import DASHBOARD_HEALTH, ORGANIZATION, PIPE_KAFKA, SERVICE_PROD, service_path
from ansible_collections.engine.cloud.tests.simulator.server import SimulatorServer
from ansible_collections.engine.cloud.tests.simulator.state import Store
from ansible_collections.engine.cloud.tests.unit.conftest import OMIT, SIM_URL, ModuleRun, seconds

SERVICES = '/v1/organizations/%s/services' % ORGANIZATION
GET = ('GET', service_path())
RENAME = ('PATCH', service_path(), {'name': 'renamed'})
PROD = dict(service_id=SERVICE_PROD)
HEALTH = dict(dashboard_id=DASHBOARD_HEALTH)
CLOUD = {'api_url': 'ENGINE_CLOUD_API_URL', 'api_key_id': 'ENGINE_CLOUD_KEY_ID', 'api_key_secret': 'ENGINE_CLOUD_KEY_SECRET',
         'organization_id': 'ENGINE_CLOUD_ORGANIZATION_ID'}
OBSERVABILITY = {'observability_url': 'ENGINE_OBSERVABILITY_URL', 'api_token': 'ENGINE_OBSERVABILITY_TOKEN'}
UNSET = dict((option, OMIT) for option in list(CLOUD) + list(OBSERVABILITY))


@pytest.fixture(autouse=True)
def no_connection_in_the_environment(monkeypatch):
    for variable in list(CLOUD.values()) + list(OBSERVABILITY.values()) + ['ENGINE_CLOUD_RATE_LIMIT', 'ENGINE_OBSERVABILITY_RATE_LIMIT']:
        monkeypatch.delenv(variable, raising=False)


@pytest.mark.parametrize('module, args, env, says', [
    (service_info, dict(api_url=None, api_key_id=' ', api_key_secret=''), {},
     'api_url is required: set api_url or the ENGINE_CLOUD_API_URL environment variable; api_key_id is required: set api_key_id or the '
     'ENGINE_CLOUD_KEY_ID environment variable (got an empty value); api_key_secret is required: set api_key_secret or the '
     'ENGINE_CLOUD_KEY_SECRET environment variable (got an empty value)'),
    (service_info, dict(api_url='ftp://x', organization_id='o'), {},
     "api_url must be an http:// or https:// address with a host name, like https://api.example.com, got 'ftp://x'; "
     "organization_id must be a UUID (8-4-4-4-12 hexadecimal digits), got 'o'"),
    (alert_info, dict(observability_url='', api_token=None), {},
     'observability_url is required: set observability_url or the ENGINE_OBSERVABILITY_URL environment variable (got an empty value); '
     'api_token is required: set api_token or the ENGINE_OBSERVABILITY_TOKEN environment variable'),
    (service_info, dict(api_timeout=0, api_retries=-1, api_url=None), {'ENGINE_CLOUD_RATE_LIMIT': '10 per 10'},
     "api_timeout must be at least 1 second, got 0; api_retries must be at least 0, got -1; api_rate_limit must be REQUESTS/SECONDS "
     "with at least 1 request and more than 0 seconds (for example 20/10), or off; got '10 per 10'; api_url is required: set api_url "
     "or the ENGINE_CLOUD_API_URL environment variable"),
], ids=['missing or empty', 'bad URL and UUID', 'observability', 'numbers and the rate limit'])
def test_bad_connection_options_fail_together_before_any_request(run, monkeypatch, module, args, env, says):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert run(module, args, requests=[], fails=says)['msg'].startswith(says)


def test_each_api_has_its_own_rate_limit_variable_and_takes_the_others_connection_for_module_defaults():
    spec = cloud.API.argument_spec()
    assert spec['api_rate_limit']['fallback'][1] == ['ENGINE_CLOUD_RATE_LIMIT'] and spec['api_token'] == dict(type='str', no_log=True)
    assert 'api_token' not in cloud.API.argument_spec(also=False)
    assert observability.API.argument_spec()['api_rate_limit']['fallback'][1] == ['ENGINE_OBSERVABILITY_RATE_LIMIT']
    assert observability.API.argument_spec()['api_key_secret'] == dict(type='str', no_log=True)


@pytest.mark.parametrize('password', ['hunter2', 'hun%2Fter%232'])
def test_the_password_of_an_address_is_in_no_part_of_the_result(run, password):
    run(service_info, dict(PROD, api_url='http://someone:%s@simulator.test' % password), requests=[GET],
        verify=lambda result, sim: 'hun' not in str(result))
    run(service_info, dict(PROD, api_url='http://someone:%s@simulator.test' % password, api_retries='many'), requests=[],
        fails='api_retries', verify=lambda result, sim: 'hun' not in str(result))  # ansible-core's validation failed


def test_every_connection_option_falls_back_to_its_environment_variable(run, monkeypatch):
    connection = dict(fixture_ids.cloud_connection(SIM_URL), **fixture_ids.observability_connection(SIM_URL))
    for option, variable in list(CLOUD.items()) + list(OBSERVABILITY.items()):
        monkeypatch.setenv(variable, connection[option])
    run(service_info, dict(PROD, **UNSET), requests=[GET], result={'service.id': SERVICE_PROD})
    run(dashboard_info, dict(HEALTH, **UNSET), requests=[('GET', '/api/v2/dashboards/' + DASHBOARD_HEALTH)],
        result={'dashboard.id': DASHBOARD_HEALTH})


# A failure of ansible-core's own validation, which loses the no_log values: every run checks (conftest.ModuleRun) that
# no secret of the fixture's connection options is printed.
@pytest.mark.parametrize('module, args, says', [
    (pipe, dict(service_id=SERVICE_PROD, pipe_id=PIPE_KAFKA, destination=dict(columns=[5])), "not 'int' (destination.columns)"),
    (dashboard, dict(name='x', tiles=[dict(name='t', x=0, y=0, w=1, h=1, series=[5])]), "not 'int' (tiles[].series)"),
    (pipe, dict(service_id=SERVICE_PROD, pipe_id=PIPE_KAFKA, source='kafka'),
     'dictionary requested, could not parse JSON or key=value: source must be a dictionary'),
    (service, dict(service_id=SERVICE_PROD, ip_access_list=[5]), "not 'int' (ip_access_list)"),
    (service, dict(service_id=SERVICE_PROD, ip_access_list=['10.0.0.0/8']), 'each element of ip_access_list must be a dictionary'),
], ids=['nested list', 'list in a list', 'string for a dict with secrets', 'top-level list', 'string element'])
def test_an_element_that_is_not_a_dict_fails_naming_where_it_sits_and_shows_no_secret(run, module, args, says):
    run(module, args, requests=[], fails=says)


# The converge step: tests/unit/test_faults.py runs it on every module's write; here, what its failure says ---------------

def test_a_write_whose_answer_was_lost_is_read_again_and_only_what_still_differs_is_sent(run):
    lost = dict(kind='status', status=504, method='PATCH', path='.', count=2)
    run(service, dict(service_id=SERVICE_PROD, name='renamed', api_retries=1), faults=[lost], requests=[GET, RENAME, GET, RENAME, GET],
        fails='a read afterwards shows name still to change, and api_retries (1) allows no further attempt')


# Pacing: the modules of one controller share each API's live limit (10 requests / 10 s per key, 100 / 60 s per token) -------


@pytest.mark.parametrize('module, args, limit, window', [(service_info, PROD, 10, 10), (dashboard_info, HEALTH, 100, 60)],
                         ids=['cloud', 'observability'])
def test_runs_in_a_row_are_paced_under_the_live_limit_without_a_429(run, sim, module, args, limit, window):
    """limit + 2 runs, one request each, with api_retries 0 (a 429 fails the run)."""
    sim.config(rate_limit=True)
    for dummy in range(limit + 2):
        run.main(module, dict(args, api_retries=0), check=False, diff=False)
    log = sim.requests()
    assert [entry['status'] for entry in log] == [200] * (limit + 2)
    times = [seconds(entry) - seconds(log[0]) for entry in log]
    assert times[limit - 1] < window <= times[limit]


# The wait warning ----------------------------------------------------------------------------------------------------

def warnings_of(result):
    texts = [item if isinstance(item, str) else item['event']['msg'] for item in result.get('warnings', [])]
    return [text for text in texts if 'rate limit' in text]


def limited(retry_after, count=1):
    return dict(kind='status', status=429, path='.', count=count, headers={'Retry-After': str(retry_after)})


WAITED = ("This task waited %s s in all for the API's rate limit: %sapi_rate_limit (or ENGINE_CLOUD_RATE_LIMIT) sets that budget "
          "(raise it only where the server allows more)")
BUDGET = 'at most %s requests per %s s per API key, shared by every process of this controller that uses the same API key; '


@pytest.mark.parametrize('before, args, faults, sent, warned', [
    (None, {}, [limited(6)], 2, ('6.0', BUDGET % (10, 10))),  # another client of the key used the window up
    (None, {}, [limited(5)], 2, None),
    ('1/2.5', {}, [limited(3)], 2, ('6.0', BUDGET % (1, 2.5))),  # its own pacing and a 429, in all
    ('1/6', {}, [], 1, ('6.5', BUDGET % (1, 6))),
    (None, dict(api_retries=1), [limited(6, count=2)], 2, ('6.0', BUDGET % (10, 10))),  # a task that failed
    (None, dict(api_rate_limit='off'), [limited(6)], 2, ('6.0', '')),
], ids=['429 of another client', 'five seconds', 'pacing and a 429', 'pacing', 'failed', 'pacing off'])
def test_a_task_that_waited_more_than_five_seconds_in_all_says_so(run, before, args, faults, sent, warned):
    if before is not None:
        run(service_info, dict(api_rate_limit=before), requests=[('GET', SERVICES)])
        args = dict(args, api_rate_limit=before)
    result = run(service_info, args, faults=faults, requests=[('GET', SERVICES)] * sent, fails='HTTP 429' if args.get('api_retries') else None)
    assert warnings_of(result) == ([] if warned is None else [WAITED % warned])


# TLS ------------------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope='module')
def https_simulator(tmp_path_factory):
    """The simulator behind HTTPS with a self-signed certificate, on a port of 127.0.0.1, on the real clock."""
    cert, key = self_signed(tmp_path_factory.mktemp('tls'))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = SimulatorServer(('127.0.0.1', 0), Store(), context, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield 'https://127.0.0.1:%d' % server.server_address[1], cert, server.store
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize('module, args, url_option, key', [
    (service_info, PROD, 'api_url', 'service'), (dashboard_info, HEALTH, 'observability_url', 'dashboard')], ids=['cloud', 'observability'])
def test_tls(https_simulator, capsys, monkeypatch, module, args, url_option, key):
    """validate_certs=true fails with a clear certificate error (not retried) and sends nothing; false works; a CA bundle
    from the environment (REQUESTS_CA_BUNDLE) works with validate_certs=true."""
    url, cert, store = https_simulator
    runner = ModuleRun(None, capsys)
    logged = len(store.requests)
    refused = runner.main(module, dict(args, **{url_option: url, 'validate_certs': True, 'api_retries': 1}), False, False)
    message = refused['msg']
    assert 'TLS certificate verification failed' in message and 'CERTIFICATE_VERIFY_FAILED' in message, message
    assert 'validate_certs' in message and 'CA bundle' in message and refused['attempts'] == 1
    assert len(store.requests) == logged, 'a refused handshake reaches nothing'
    assert runner.main(module, dict(args, **{url_option: url, 'validate_certs': False}), False, False)[key]
    monkeypatch.setenv('REQUESTS_CA_BUNDLE', cert)
    assert runner.main(module, dict(args, **{url_option: url, 'validate_certs': True}), False, False)[key]
    assert len(store.requests) == logged + 2
