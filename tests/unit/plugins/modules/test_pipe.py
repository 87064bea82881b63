# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.pipe against the simulator in process: create, converge and delete for each source kind,
check mode, the request log, secrets, lost answers and the simulator's switches."""

import json
import types

import pytest

from ansible_collections.engine.cloud.plugins.modules import pipe
from ansible_collections.engine.cloud.tests.simulator import pipes as sim_pipes
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    PIPE_KAFKA, PIPE_POSTGRES, PIPE_STREAM, SERVICE_PROD, pipe_path, service_path)

PIPES = service_path(SERVICE_PROD, '/pipes')
LIST = ('GET', PIPES)
# Check mode reads the service once before it predicts a pipe write (what the write would meet in its state).
SERVICE = ('GET', service_path(SERVICE_PROD))
SECRETS = ('kafka-pass-9', 'os-secret-9', 'stream-secret-9', 'pg-pass-9')
COLUMNS = [dict(name='id', type='UInt64')]
TABLE = dict(database='analytics', table='new_events', managed_table=True, columns=COLUMNS)
MAPPINGS = [dict(source_field='id', destination_field='id')]
SOURCES = {
    'kafka': dict(kafka=dict(type='kafka', format='JSONEachRow', brokers='b:9092', topics='events', authentication='PLAIN',
                             credentials=dict(username='reader', password='kafka-pass-9'))),
    'object_storage': dict(object_storage=dict(type='s3', format='CSV', url='https://b.s3.amazonaws.com/*.csv', is_continuous=True,
                                               authentication='IAM_USER', access_key=dict(access_key_id='AKIA9', secret_key='os-secret-9'))),
    'stream': dict(stream=dict(format='JSONEachRow', stream_name='clicks', region='us-east-1', authentication='IAM_USER',
                               access_key=dict(access_key_id='AKIA8', secret_key='stream-secret-9'))),
    'postgres': dict(postgres=dict(host='db.example', port=5432, database='app', credentials=dict(username='pg', password='pg-pass-9'),
                                   table_mappings=[dict(source_schema_name='public', source_table='users', target_table='public_users')])),
}


def args(kind, **more):
    base = dict(service_id=SERVICE_PROD, name='new-' + kind, source=SOURCES[kind])
    if kind == 'postgres':
        base['destination'] = dict(database='replica')
    else:
        base.update(destination=TABLE, field_mappings=MAPPINGS)
    base.update(more)
    return base


def no_secret(result, sim):
    text = json.dumps(result)
    return not any(secret in text for secret in SECRETS)


def created(kind):
    def verify(result, sim):
        named = sim.named('pipes', 'new-' + kind)
        return len(named) == 1 and named[0]['sim']['credentials'] and no_secret(result, sim)
    return verify


NEW_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7ca1'
NEW = pipe_path(NEW_ID)


@pytest.fixture(autouse=True)
def new_pipe_id(monkeypatch):
    """The simulator gives the next created pipe a known id."""
    monkeypatch.setattr(sim_pipes, 'uuid', types.SimpleNamespace(uuid4=lambda: NEW_ID))


@pytest.mark.parametrize('kind', list(SOURCES))
def test_create_check_apply_again_per_kind(run, kind):
    run(pipe, args(kind), check=True, diff=True, requests=[LIST, SERVICE],
        result={'changed': True, 'diff.before': {}, 'pipe.name': 'new-' + kind}, verify=no_secret,
        then=dict(args=args(kind), config={'transition_delay': 0}, requests=[LIST, ('POST', PIPES), ('GET', NEW)],
                  result={'changed': True, 'pipe.state': 'Running', 'pipe.id': NEW_ID}, verify=created(kind),
                  then=dict(args=args(kind), requests=[LIST], result={'changed': False}, verify=no_secret)))


def test_create_sends_settings_then_scales(run, sim):
    run(pipe, args('kafka', scaling=dict(replicas=3), settings=dict(streaming_max_insert_wait_ms=2000)), config={'transition_delay': 0},
        requests=[LIST, ('POST', PIPES), ('GET', NEW), ('PATCH', NEW + '/scaling', {'replicas': 3})],
        result={'changed': True, 'pipe.scaling.replicas': 3, 'pipe.state': 'Running'})
    posted = [entry for entry in sim.requests() if entry['method'] == 'POST'][0]['body']
    assert posted['settings'] == {'streaming_max_insert_wait_ms': 2000} and 'scaling' not in posted
    assert posted['source']['kafka']['credentials'] == {'username': 'reader', 'password': 'kafka-pass-9'}


def test_create_without_wait_answers_the_create(run):
    run(pipe, args('stream', wait=False), config={'pipe_create_state': 'Unknown'}, requests=[LIST, ('POST', PIPES)],
        result={'changed': True, 'pipe.state': 'Unknown'})


def test_a_pipe_that_ends_failed_fails_the_task(run):
    run(pipe, args('kafka'), config={'pipe_create_fails': True, 'transition_delay': 0}, requests=[LIST, ('POST', PIPES), ('GET', NEW)],
        fails='entered the failure state Failed')


def test_a_failed_scaling_step_after_the_create_reports_the_pipe_and_changed(run):
    run(pipe, args('kafka', scaling=dict(replicas=2)), config={'transition_delay': 0},
        faults=[{'method': 'PATCH', 'path': '/scaling$', 'kind': 'status', 'status': 500}],
        requests=[LIST, ('POST', PIPES), ('GET', NEW), ('PATCH', NEW + '/scaling')],
        fails='The pipe "new-kafka" (id %s) was created by this task before this failure; the next run finds it by name' % NEW_ID,
        result={'changed': True, 'pipe.id': NEW_ID, 'pipe.state': 'Running', 'status': 500},
        then=dict(args=args('kafka', scaling=dict(replicas=2)), requests=[LIST, ('PATCH', NEW + '/scaling', {'replicas': 2})],
                  result={'changed': True, 'pipe.scaling.replicas': 2}, verify=lambda result, sim: len(sim.named('pipes', 'new-kafka')) == 1))


@pytest.mark.parametrize('by', [dict(name='clicks-stream'), dict(pipe_id=PIPE_STREAM)], ids=['by name', 'by id'])
def test_absent_when_the_service_is_gone(run, by):
    gone_service = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e'
    run(pipe, dict(by, service_id=gone_service, state='absent'),
        requests=[('GET', service_path(gone_service, '/pipes' + ('/' + PIPE_STREAM if 'pipe_id' in by else '')))],
        result={'changed': False, 'pipe': {}})


def test_absent_twice_with_lingering_reads_a_first_delete_answered_404_is_absent(run):
    gone = dict(service_id=SERVICE_PROD, name='clicks-stream', state='absent', wait=False)
    run(pipe, gone, config={'deleted_pipe_reads': 3}, requests=[LIST, ('DELETE', pipe_path(PIPE_STREAM))], result={'changed': True},
        then=dict(args=gone, requests=[LIST, ('DELETE', pipe_path(PIPE_STREAM))], result={'changed': False, 'pipe': {}}))


def test_a_lost_delete_then_lingering_reads_the_second_delete_s_404_ends_the_task_as_deleted_once_reads_answer_404(run, sim):
    """wait documents "until reads answer 404": after the second DELETE's 404, the reads that still show the pipe are
    waited out (the simulator's last two lingering reads), as after any delete; with wait=false, not."""
    get, delete = ('GET', pipe_path(PIPE_STREAM)), ('DELETE', pipe_path(PIPE_STREAM))
    run(pipe, dict(service_id=SERVICE_PROD, pipe_id=PIPE_STREAM, state='absent'), config={'deleted_pipe_reads': 3},
        faults=[{'method': 'DELETE', 'kind': 'status', 'status': 504, 'apply': True}],
        requests=[get, delete, get, delete, get, get, get], result={'changed': True, 'pipe.id': PIPE_STREAM},
        verify=lambda result, sim: [entry['status'] for entry in sim.requests()][-3:] == [200, 200, 404])
    sim.reset()
    run(pipe, dict(service_id=SERVICE_PROD, pipe_id=PIPE_STREAM, state='absent', wait=False), config={'deleted_pipe_reads': 3},
        faults=[{'method': 'DELETE', 'kind': 'status', 'status': 504, 'apply': True}],
        requests=[get, delete, get, delete], result={'changed': True, 'pipe.id': PIPE_STREAM})


# What the argument spec and the settings' rules say; the source kinds' own rules: test_pipe_lifecycle_rules.py.
@pytest.mark.parametrize('more, fragment', [
    (dict(scaling=dict()), 'one of the following is required: replicas, replica_cpu_millicores, replica_memory_gb'),
    (dict(settings=dict(engine_max_threads=99)), 'settings.engine_max_threads must be between 0 and 64, got 99'),
    (dict(source=dict(kafka=SOURCES['kafka']['kafka'], stream=SOURCES['stream']['stream'])), 'mutually exclusive'),
])
def test_bad_input_sends_nothing_and_names_the_option(run, more, fragment):
    run(pipe, args('kafka', **more), requests=[], fails=fragment, verify=no_secret)


KAFKA_CHANGE = dict(service_id=SERVICE_PROD, pipe_id=PIPE_KAFKA, name='orders', destination=dict(columns=COLUMNS),
                    source=dict(kafka=dict(authentication='SCRAM-SHA-256', credentials=dict(username='orders-writer', password='kafka-pass-9'))),
                    scaling=dict(replicas=4), settings=dict(engine_max_threads=8))


def test_change_check_apply_again(run):
    patch = {'name': 'orders', 'destination': {'columns': [{'name': 'id', 'type': 'UInt64'}]},
             'source': {'kafka': {'authentication': 'SCRAM-SHA-256'}}}
    run(pipe, KAFKA_CHANGE, check=True, diff=True, requests=[('GET', pipe_path(PIPE_KAFKA)), SERVICE],
        result={'changed': True, 'pipe.name': 'orders', 'pipe.scaling.replicas': 4, 'pipe.settings.engine_max_threads': 8,
                'pipe.source.kafka.brokers': 'pkc-4r297.eu-central-1.aws.confluent.cloud:9092',
                'diff.after.source': {'kafka': {'authentication': 'SCRAM-SHA-256'}}, 'diff.after.scaling': {'replicas': 4}},
        then=dict(args=KAFKA_CHANGE, diff=True,
                  requests=[('GET', pipe_path(PIPE_KAFKA)), ('PATCH', pipe_path(PIPE_KAFKA), patch),
                            ('PATCH', pipe_path(PIPE_KAFKA, '/scaling'), {'replicas': 4}),
                            ('PUT', pipe_path(PIPE_KAFKA, '/settings'), {'engine_max_threads': 8})],
                  result={'changed': True, 'pipe.settings.engine_max_threads': 8, 'pipe.scaling.replicas': 4}, verify=no_secret,
                  then=dict(args=KAFKA_CHANGE, requests=[('GET', pipe_path(PIPE_KAFKA))], result={'changed': False})))


# What only differs by source kind in a change (the integration target changes a kafka pipe): the PATCH
# holds only what differs, in camelCase; a field fixed at creation fails naming it, after the list only.
KIND_CHANGES = {
    'object_storage': (dict(source=dict(object_storage=dict(start_after='events/2026-01-01/'))),
                       {'source': {'objectStorage': {'startAfter': 'events/2026-01-01/'}}},
                       dict(source=dict(object_storage=dict(format='Parquet'))),
                       'source.object_storage.format cannot change on pipe new-object_storage'),
    'stream': (dict(field_mappings=[dict(source_field='identifier', destination_field='id')]),
               {'fieldMappings': [{'sourceField': 'identifier', 'destinationField': 'id'}]},
               dict(source=dict(stream=dict(region='eu-central-1'))),
               'source.stream.region cannot change on pipe new-stream: it was fixed at creation as "us-east-1" (got "eu-central-1")'),
}


@pytest.mark.parametrize('kind', list(KIND_CHANGES))
def test_change_check_apply_again_and_a_fixed_field_per_kind(run, kind):
    change, body, fixed, message = KIND_CHANGES[kind]
    changed = dict(args(kind), **change)
    run(pipe, args(kind), config={'transition_delay': 0}, requests=[LIST, ('POST', PIPES), ('GET', NEW)],
        then=dict(args=changed, check=True, diff=True, requests=[LIST, SERVICE], result={'changed': True}, verify=no_secret,
                  then=dict(args=changed, requests=[LIST, ('PATCH', NEW, body)], result={'changed': True}, verify=no_secret,
                            then=dict(args=changed, requests=[LIST], result={'changed': False},
                                      then=dict(args=dict(args(kind), **fixed), requests=[LIST], fails=message, verify=no_secret)))))


POSTGRES_TABLES = [dict(source_schema_name='public', source_table='users', target_table='public_users'),
                   dict(source_schema_name='public', source_table='accounts', target_table='public_accounts'),
                   dict(source_schema_name='public', source_table='orders', target_table='public_orders')]
PG = pipe_path(PIPE_POSTGRES)


def test_postgres_tables_added_and_removed_while_paused(run):
    desired = dict(service_id=SERVICE_PROD, pipe_id=PIPE_POSTGRES, source=dict(postgres=dict(table_mappings=POSTGRES_TABLES)))
    invoices = {'sourceSchemaName': 'billing', 'sourceTable': 'invoices', 'targetTable': 'billing_invoices', 'excludedColumns': ['internal_note'],
                'useCustomSortingKey': False, 'sortingKeys': [], 'tableEngine': 'MergeTree'}
    orders = {'sourceSchemaName': 'public', 'sourceTable': 'orders', 'targetTable': 'public_orders'}
    run(pipe, desired, check=True, diff=True, requests=[('GET', PG), SERVICE], result={'changed': True},
        then=dict(args=desired, config={'transition_reads': 1},
                  requests=[('GET', PG), ('GET', PG), ('PATCH', PG + '/state', {'command': 'stop'}), ('GET', PG), ('GET', PG),
                            ('PATCH', PG, {'source': {'postgres': {'tableMappingsToRemove': [invoices], 'tableMappingsToAdd': [orders]}}}),
                            ('GET', PG), ('GET', PG)],
                  result={'changed': True, 'pipe.state': 'Running'},
                  then=dict(args=desired, requests=[('GET', PG)], result={'changed': False})))


def test_a_changed_postgres_mapping_is_removed_then_added_with_a_warning(run):
    tables = [dict(POSTGRES_TABLES[0], target_table='users_v2'), POSTGRES_TABLES[1],
              dict(source_schema_name='billing', source_table='invoices')]
    desired = dict(service_id=SERVICE_PROD, pipe_id=PIPE_POSTGRES, source=dict(postgres=dict(table_mappings=tables)))
    result = run(pipe, desired, config={'transition_reads': 1}, diff=True,
                 requests=[('GET', PG), ('GET', PG), ('PATCH', PG + '/state'), ('GET', PG), ('GET', PG), ('PATCH', PG),
                           ('GET', PG), ('PATCH', PG + '/state'), ('GET', PG), ('GET', PG), ('PATCH', PG), ('GET', PG), ('GET', PG)],
                 result={'changed': True, 'diff.after.newSnapshotOf': ['public.users']})
    assert 'takes a new snapshot of the table' in json.dumps(result['warnings'])
    assert [m['targetTable'] for m in result['pipe']['source']['postgres']['tableMappings']][-1] == 'users_v2'


def test_delete_check_apply_again(run):
    gone = dict(service_id=SERVICE_PROD, name='clicks-stream', state='absent')
    run(pipe, gone, check=True, diff=True, requests=[LIST, SERVICE], result={'changed': True, 'diff.after': {}, 'pipe.id': PIPE_STREAM},
        then=dict(args=gone, config={'deleted_pipe_reads': 2},
                  requests=[LIST, ('DELETE', pipe_path(PIPE_STREAM)), ('GET', pipe_path(PIPE_STREAM)),
                            ('GET', pipe_path(PIPE_STREAM)), ('GET', pipe_path(PIPE_STREAM))],
                  result={'changed': True, 'pipe.id': PIPE_STREAM},
                  then=dict(args=gone, requests=[LIST], result={'changed': False, 'pipe': {}})))
