# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The options every module shares, as users get them wrong: the password of an address, connection options from the
environment; the pacing under each API's live rate limit; TLS against a server with a self-signed certificate (a real
HTTPS server in a thread: the one place where the module's requests leave the process). The options' own checks:
tests/unit/plugins/module_utils (test_module.py, test_validate.py, test_errors.py)."""

import ssl
import threading

import pytest

from ansible_collections.engine.cloud.plugins.modules import dashboard_info, service_info
from ansible_collections.engine.cloud.tests.certificates import self_signed
from ansible_collections.engine.cloud.tests.simulator import fixture_ids
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import DASHBOARD_HEALTH, SERVICE_PROD, service_path
from ansible_collections.engine.cloud.tests.simulator.server import SimulatorServer
from ansible_collections.engine.cloud.tests.simulator.state import Store
from ansible_collections.engine.cloud.tests.unit.conftest import OMIT, SIM_URL, ModuleRun, seconds

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


@pytest.mark.parametrize('password', ['hunter2', 'hun%2Fter%232'])
def test_the_password_of_an_address_is_in_no_part_of_the_result(run, password):
    run(service_info, dict(PROD, api_url='http://someone:%s@simulator.test' % password), requests=[('GET', service_path())],
        verify=lambda result, sim: 'hun' not in str(result))
    run(service_info, dict(PROD, api_url='http://someone:%s@simulator.test' % password, api_retries='many'), requests=[],
        fails='api_retries', verify=lambda result, sim: 'hun' not in str(result))  # ansible-core's validation failed


def test_every_connection_option_falls_back_to_its_environment_variable(run, monkeypatch):
    connection = dict(fixture_ids.cloud_connection(SIM_URL), **fixture_ids.observability_connection(SIM_URL))
    for option, variable in list(CLOUD.items()) + list(OBSERVABILITY.items()):
        monkeypatch.setenv(variable, connection[option])
    run(service_info, dict(PROD, **UNSET), requests=[('GET', service_path())], result={'service.id': SERVICE_PROD})
    run(dashboard_info, dict(HEALTH, **UNSET), requests=[('GET', '/api/v2/dashboards/' + DASHBOARD_HEALTH)],
        result={'dashboard.id': DASHBOARD_HEALTH})


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


# TLS ------------------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope='module')
def https_simulator(tmp_path_factory):
    """The simulator behind HTTPS with a self-signed certificate, on a port of 127.0.0.1, on the real clock."""
    cert, key = self_signed(tmp_path_factory.mktemp('tls'))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = SimulatorServer(('127.0.0.1', 0), Store(), context, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield 'https://127.0.0.1:%d' % server.server_address[1], cert, server.store
    server.shutdown()
    server.server_close()


TLS_MODULES = [(service_info, PROD, 'api_url', 'service'), (dashboard_info, HEALTH, 'observability_url', 'dashboard')]


@pytest.mark.parametrize('module, args, url_option, key', TLS_MODULES, ids=['cloud', 'observability'])
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
