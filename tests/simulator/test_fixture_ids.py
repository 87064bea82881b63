"""The integration targets' copies of the fixture ids and credentials equal fixture_ids.py."""

import os
import re

import yaml

from . import fixture_ids

INTEGRATION = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'integration')
SETUP_TASKS = os.path.join(INTEGRATION, 'targets', 'setup_simulator', 'tasks', 'main.yml')
CONFIG_TEMPLATE = os.path.join(INTEGRATION, 'integration_config.yml.template')
PIPE_SECRETS_SCRIPT = os.path.join(INTEGRATION, 'targets', 'secrets_vvv', 'runme.sh')

# Every sim_* fact of setup_simulator, by the fixture_ids name of its value.
FACTS = {
    'sim_service_prod_id': 'SERVICE_PROD',
    'sim_service_dev_id': 'SERVICE_DEV',
    'sim_pipe_kafka_id': 'PIPE_KAFKA',
    'sim_pipe_objectstorage_id': 'PIPE_OBJECT_STORAGE',
    'sim_pipe_stream_id': 'PIPE_STREAM',
    'sim_pipe_postgres_id': 'PIPE_POSTGRES',
    'sim_rpe_id': 'RPE',
    'sim_dashboard_health_id': 'DASHBOARD_HEALTH',
    'sim_chart_source_metrics_id': 'SOURCE_METRICS',
    'sim_chart_source_logs_id': 'SOURCE_LOGS',
    'sim_alert_between_id': 'ALERT_BETWEEN',
    'sim_webhook_pager_id': 'WEBHOOK_PAGER',
    'sim_connection_string': 'CONNECTION_STRING',
}
# The credentials of integration_config.yml.template, by their fixture_ids name.
CONFIG = {
    'engine_api_key_id': 'KEY_ID',
    'engine_api_key_secret': 'KEY_SECRET',
    'engine_organization_id': 'ORGANIZATION',
    'engine_api_token': 'TOKEN',
}


def setup_facts():
    with open(SETUP_TASKS, encoding='utf-8') as handle:
        tasks = yaml.safe_load(handle)
    facts = {}
    for task in tasks:
        facts.update(task.get('ansible.builtin.set_fact') or {})
    # The role's own facts (setup_simulator_*: what its admin calls answered) are not fixture ids.
    return dict((name, value) for name, value in facts.items() if name.startswith('sim_'))


def test_setup_simulator_facts_are_the_fixture_ids():
    facts = setup_facts()
    assert set(facts) == set(FACTS), 'name each sim_* fact of setup_simulator in FACTS'
    assert {name: facts[name] for name in FACTS} == {name: getattr(fixture_ids, FACTS[name]) for name in FACTS}


def test_integration_config_template_holds_the_fixture_credentials():
    with open(CONFIG_TEMPLATE, encoding='utf-8') as handle:
        config = yaml.safe_load(handle)
    assert {name: config[name] for name in CONFIG} == {name: getattr(fixture_ids, CONFIG[name]) for name in CONFIG}
    assert {name: value for name, value in config.items() if name not in CONFIG} == {
        'engine_api_url': '@SIM_URL@', 'engine_observability_url': '@SIM_URL@', 'engine_sim_admin_url': '@SIM_URL@/_admin',
        'engine_api_rate_limit': 'off'}


def test_the_pipe_secrets_script_searches_for_the_fixture_secret():
    with open(PIPE_SECRETS_SCRIPT, encoding='utf-8') as handle:
        assignments = dict(re.findall(r"^(CONNECTION_STRING|ACCOUNT_KEY)='([^']*)'$", handle.read(), re.M))
    assert assignments == {'CONNECTION_STRING': fixture_ids.CONNECTION_STRING,
                           'ACCOUNT_KEY': fixture_ids.CONNECTION_STRING.split('AccountKey=')[1].split(';')[0]}
