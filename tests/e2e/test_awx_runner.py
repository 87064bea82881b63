# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A job as AWX runs it: ansible-runner, credentials injected as environment variables by the
credential type of docs/awx/, against the simulator. The job must succeed and no event may
contain a secret."""

import glob
import json
import os
import re
import sys

import pytest

from conftest import ROOT, read
from tests.simulator.fixture_ids import (CONNECTION_STRING, KEY_ID, KEY_SECRET, ORGANIZATION, PIPE_KAFKA,
                                         PIPE_OBJECT_STORAGE, PIPE_STREAM, SERVICE_PROD, SOURCE_METRICS, TOKEN)

ansible_runner = pytest.importorskip('ansible_runner')
sandbox = pytest.importorskip('jinja2.sandbox')
StrictUndefined = pytest.importorskip('jinja2').StrictUndefined
yaml = pytest.importorskip('yaml')

AWX = os.path.join(ROOT, 'docs', 'awx')
# The credential's inputs that name no address.
CREDENTIALS = dict(api_key_id=KEY_ID, api_key_secret=KEY_SECRET, organization_id=ORGANIZATION, api_token=TOKEN)
PIPES = [PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_STREAM]

# The job's playbook sets no credential at all: everything comes from the injected environment.
PLAYBOOK = """
- name: Engine Cloud job as AWX runs it
  hosts: localhost
  connection: local
  gather_facts: false
  module_defaults:
    group/engine.cloud.all:
      api_retries: 1
  tasks:
    - name: Read the service
      engine.cloud.service_info:
        service_id: %(service)s
      register: job_service

    - name: Read the objectStorage pipe, whose source holds a connection string
      engine.cloud.pipe_info:
        service_id: %(service)s
        pipe_id: %(secret_pipe)s
      register: job_pipe

    - name: Show what was read
      ansible.builtin.debug:
        msg: "{{ job_service.service.name }} / {{ job_pipe.pipe }}"

    - name: Gate on the ingestion metrics and alerts
      ansible.builtin.include_role:
        name: engine.cloud.metrics_gate
      vars:
        metrics_gate_series:
          - {name: rows, source_id: %(source)s, agg_fn: count, threshold: 1000000}

    - name: Scale in a maintenance window, pipes paused
      ansible.builtin.include_role:
        name: engine.cloud.maintenance_window
      vars:
        maintenance_window_service_id: %(service)s
        maintenance_window_pipe_ids: %(pipes)s
        maintenance_window_scaling: {num_replicas: 4}
""" % dict(service=SERVICE_PROD, secret_pipe=PIPE_OBJECT_STORAGE, source=SOURCE_METRICS, pipes=json.dumps(PIPES))


def injected_env(inputs):
    """The environment variables the credential type injects for a credential with these inputs,
    rendered as AWX renders injectors (Jinja2, sandboxed; a field left out renders empty)."""
    fields = yaml.safe_load(read(AWX, 'credential_type_inputs.yml'))['fields']
    injectors = yaml.safe_load(read(AWX, 'credential_type_injectors.yml'))
    namespace = dict((field['id'], inputs.get(field['id'], '')) for field in fields)
    environment = sandbox.SandboxedEnvironment(undefined=StrictUndefined)
    return dict((name, environment.from_string(template).render(**namespace)) for name, template in injectors['env'].items())


def env_names(folder, pattern):
    """ENGINE_* variable names that pattern finds in the Python files of plugins/<folder>."""
    names = set()
    for path in glob.glob(os.path.join(ROOT, 'plugins', folder, '*.py')):
        names.update(re.findall(pattern, read(path)))
    return names


def test_credential_type_is_awx_shaped():
    inputs = yaml.safe_load(read(AWX, 'credential_type_inputs.yml'))
    injectors = yaml.safe_load(read(AWX, 'credential_type_injectors.yml'))
    ids = [field['id'] for field in inputs['fields']]
    assert len(ids) == len(set(ids))
    assert set(inputs['required']) <= set(ids)
    assert set(injectors) == {'env'}
    for field in inputs['fields']:
        assert set(field) <= {'id', 'type', 'label', 'help_text', 'secret', 'multiline', 'format', 'choices', 'default'}
        assert field['type'] == 'string'
    assert {field['id'] for field in inputs['fields'] if field.get('secret')} == {'api_key_secret', 'api_token'}


def test_injected_names_are_the_modules_env_fallbacks():
    injected = set(injected_env({}))
    # what the doc fragments tell users of the connection options, and what the argument specs really
    # read (env_fallback); the pacing variables (ENGINE_*_RATE_LIMIT, ENGINE_CLOUD_PACING_DIR) are no credentials
    assert injected == env_names('doc_fragments', r'Required: set this option or the E\((ENGINE_[A-Z_]+)\)')
    assert injected == env_names('module_utils', r"env_fallback, \['(ENGINE_[A-Z_]+)'\]")


def test_job_through_ansible_runner(tmp_path, monkeypatch, simulator, collections_path):
    # ansible-runner starts ansible-playbook from PATH: the one beside this Python.
    monkeypatch.setenv('PATH', os.path.dirname(sys.executable) + os.pathsep + os.environ.get('PATH', ''))
    simulator.reset(transition_delay=0.2)
    inputs = dict(CREDENTIALS, api_url=simulator.url, observability_url=simulator.url)
    envvars = injected_env(inputs)
    assert envvars['ENGINE_CLOUD_KEY_SECRET'] == KEY_SECRET

    private = tmp_path / 'job'
    (private / 'project').mkdir(parents=True)
    (private / 'inventory').mkdir()
    (private / 'project' / 'job.yml').write_text(PLAYBOOK)
    (private / 'inventory' / 'hosts').write_text('localhost ansible_connection=local ansible_python_interpreter=%s\n' % sys.executable)
    # -vvv: even the most verbose job output must not show a secret.
    runner = ansible_runner.run(private_data_dir=str(private), playbook='job.yml', verbosity=3, quiet=True,
                                envvars=dict(envvars, ANSIBLE_COLLECTIONS_PATH=collections_path,
                                             ANSIBLE_LOCALHOST_WARNING='false', ANSIBLE_NOCOLOR='1'))
    events = list(runner.events)
    stdout = runner.stdout.read()
    assert runner.status == 'successful', stdout[-3000:]
    assert runner.rc == 0

    # The credentials reached the APIs: the simulator answered the job's requests with 200.
    requests = simulator.requests()
    assert {entry['api'] for entry in requests} == {'cloud', 'observability'}
    assert all(entry['status'] == 200 for entry in requests)
    assert [entry['body'] for entry in requests if entry['method'] == 'PATCH' and entry['path'].endswith('/scaling')] == [{'numReplicas': 4}]

    ok_tasks = [event['event_data'].get('task') for event in events if event['event'] == 'runner_on_ok']
    assert 'Read the objectStorage pipe, whose source holds a connection string' in ok_tasks
    assert not [event for event in events if event['event'] == 'runner_on_failed']

    secrets = [KEY_SECRET, TOKEN, CONNECTION_STRING, CONNECTION_STRING.split('AccountKey=')[1].split(';')[0]]
    # What AWX stores and shows of a job: its events and stdout (the runner's `command` and `env`
    # artifacts hold the injected environment by design, as AWX's own do; AWX never displays them).
    shown = dict(('event %s (%s)' % (event.get('counter'), event['event']), json.dumps(event)) for event in events)
    shown['stdout'] = stdout
    for path in glob.glob(str(private / 'artifacts' / '*' / 'job_events' / '*.json')) + glob.glob(str(private / 'artifacts' / '*' / 'stdout')):
        shown[path] = read(path)
    assert [where for where, text in shown.items() if any(secret in text for secret in secrets)] == [], 'these hold a secret'
