# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import copy
import json

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pipe_rules, pipe_settings
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import FIXTURES_PATH, PIPE_KAFKA, PIPE_POSTGRES

with open(FIXTURES_PATH) as handle:
    FIXTURE_PIPES = dict((item['id'], item) for item in json.load(handle)['pipes'])
KAFKA = FIXTURE_PIPES[PIPE_KAFKA]
POSTGRES = FIXTURE_PIPES[PIPE_POSTGRES]
USERS = {'sourceSchemaName': 'public', 'sourceTable': 'users', 'targetTable': 'public_users'}


def params(**changes):
    base = dict(name='orders', source=dict(kafka=dict(type='kafka', format='JSONEachRow', brokers='b:9092', topics='t',
                                                      consumer_group=None, credentials=dict(username='u', password='p4ss'),
                                                      schema_registry=dict(url='https://r', credentials=dict(username='r', password='r3g')))),
                destination=dict(database='analytics', table='orders', managed_table=True, columns=[dict(name='id', type='UInt64')],
                                 table_definition=dict(sorting_key=['id'], engine=dict(type='MergeTree', version_column_id=None))),
                field_mappings=[dict(source_field='id', destination_field='id')], scaling=None, update_credentials='on_create')
    base.update(changes)
    return base


def test_create_body_is_camel_case_at_every_level_without_unset_options():
    body = pipe_rules.create_body(params(), {'engine_max_threads': 4})
    assert body == {
        'name': 'orders',
        'source': {'kafka': {'type': 'kafka', 'format': 'JSONEachRow', 'brokers': 'b:9092', 'topics': 't',
                             'credentials': {'username': 'u', 'password': 'p4ss'},
                             'schemaRegistry': {'url': 'https://r', 'credentials': {'username': 'r', 'password': 'r3g'}}}},
        'destination': {'database': 'analytics', 'table': 'orders', 'managedTable': True, 'columns': [{'name': 'id', 'type': 'UInt64'}],
                        'tableDefinition': {'sortingKey': ['id'], 'engine': {'type': 'MergeTree'}}},
        'fieldMappings': [{'sourceField': 'id', 'destinationField': 'id'}],
        'settings': {'engine_max_threads': 4}}


def test_predicted_create_shows_no_secret():
    predicted = pipe_rules.predict_created(pipe_rules.create_body(params(), {}), 'svc')
    text = json.dumps(predicted)
    assert 'p4ss' not in text and 'r3g' not in text and predicted['source']['objectStorage'] is None
    assert predicted['source']['kafka']['schemaRegistry'] == {'url': 'https://r'}


@pytest.mark.parametrize('changes, fragment', [
    (dict(destination=dict(database='a', table_definition=dict(primary_key='id'))), 'destination.table_definition'),
    (dict(field_mappings=[dict(source_field='a', destination_field='b')]), 'field_mappings'),
    (dict(scaling=dict(replicas=2)), 'scaling'),
    (dict(destination=dict(database='a', table='t')), 'destination.table'),
])
def test_postgres_refusals_name_the_option(changes, fragment):
    args = params(source=dict(postgres=dict(host='h', port=5432, database='d')), field_mappings=None, destination=dict(database='a'))
    args.update(changes)
    errors = pipe_rules.kind_errors(args, 'postgres')
    assert len(errors) == 1 and errors[0].startswith(fragment)
    assert pipe_rules.kind_errors(args, 'kafka') == []


def test_fixed_pairs_cover_fixed_fields_only():
    args = params(source=dict(kafka=dict(brokers='other:9092', topics='orders.v1', authentication='SCRAM-SHA-256',
                                         offset=dict(strategy='from_latest'), credentials=dict(username='u', password='p'))),
                  destination=dict(database='analytics', table='orders2', columns=[dict(name='x', type='String')]))
    pairs = dict((option, (wanted, current)) for option, wanted, current in pipe_rules.fixed_pairs(args, KAFKA))
    assert pairs == {'source.kafka.brokers': ('other:9092', KAFKA['source']['kafka']['brokers']),
                     'source.kafka.topics': ('orders.v1', 'orders.v1'),
                     'source.kafka.offset.strategy': ('from_latest', 'from_timestamp'),
                     'destination.database': ('analytics', 'analytics'), 'destination.table': ('orders2', 'orders')}
    assert pipe_rules.fixed_pairs(params(source=dict(stream=dict(stream_name='x'))), KAFKA) == [('source', 'stream', 'kafka')]


@pytest.mark.parametrize('source, missing', [
    (dict(kafka=dict(type='kafka', format='JSONEachRow')), 'source.kafka.brokers and source.kafka.topics are'),
    (dict(kafka=dict(type='kafka', format='JSONEachRow', brokers='b:9092')), 'source.kafka.topics is'),
    (dict(stream=dict(format='JSONEachRow')), 'source.stream.stream_name and source.stream.region are'),
    (dict(object_storage=dict(type='s3', format='CSV')), 'source.object_storage.url is'),
    (dict(postgres=dict(host='h')), 'source.postgres.port and source.postgres.database are'),
    (dict(postgres=dict(host='h', port=5432, database='d')), None),
    (params()['source'], None),
])
def test_a_create_needs_the_fields_of_its_kind(source, missing):
    destination = dict(database='a') if 'postgres' in source else params()['destination']
    assert pipe_rules.create_errors(params(source=source, destination=destination)) == (
        ['%s required to create a %s pipe' % (missing, next(iter(source)))] if missing else [])


def test_a_create_needs_a_source_and_a_kafka_pipe_its_table():
    assert pipe_rules.create_errors(params(destination=dict(database='a'))) == [
        'destination.table and destination.managed_table and destination.columns are required to create a kafka pipe']
    assert 'source is required' in pipe_rules.create_errors(params(source=None))[0]


@pytest.mark.parametrize('port, error', [(0, True), (65536, True), (1, False), (65535, False), (5432, False)])
def test_the_postgres_port_range(port, error):
    args = params(source=dict(postgres=dict(host='h', port=port, database='d')), field_mappings=None, destination=dict(database='a'))
    assert pipe_rules.option_errors(args) == (['source.postgres.port must be between 1 and 65535, got %d' % port] if error else [])


def test_the_postgres_rules_apply_to_the_pipe_s_own_kind_when_source_is_left_out():
    args = params(source=None, destination=dict(table_definition=dict(sorting_key=['id'])), scaling=dict(replicas=2))
    assert pipe_rules.option_errors(args) == []
    errors = pipe_rules.current_kind_errors(args, POSTGRES)
    assert [error.split(' ')[0] for error in errors] == ['destination.table_definition', 'field_mappings', 'scaling']
    assert all(error.endswith('(pipe users-postgres has a postgres source)') for error in errors)
    assert pipe_rules.current_kind_errors(args, KAFKA) == []
    given = params(source=dict(postgres=dict(host='h')), field_mappings=None)
    assert pipe_rules.current_kind_errors(given, POSTGRES) == []


def test_a_reordered_sorting_key_is_a_change_of_a_fixed_field():
    from ansible_collections.engine.cloud.plugins.module_utils.resource import Lifecycle
    from ansible_collections.engine.cloud.plugins.module_utils.pipe import pipe_kind
    current = KAFKA['destination']['tableDefinition']['sortingKey']
    args = params(source=None, field_mappings=None, destination=dict(table_definition=dict(sorting_key=list(reversed(current)))))
    errors = Lifecycle(None, pipe_kind()).fixed_errors(KAFKA, pipe_rules.fixed_pairs(args, KAFKA))
    assert errors == ['destination.table_definition.sorting_key cannot change on pipe orders-kafka: it was fixed at creation as '
                      '["order_date", "order_id"] (got ["order_id", "order_date"])']
    args['destination']['table_definition']['sorting_key'] = current
    assert Lifecycle(None, pipe_kind()).fixed_errors(KAFKA, pipe_rules.fixed_pairs(args, KAFKA)) == []


def test_patch_has_only_what_differs_and_credentials_only_when_always():
    current = KAFKA['source']['kafka']
    args = params(name='orders-kafka', source=dict(kafka=dict(brokers=current['brokers'], authentication='SCRAM-SHA-512',
                                                              credentials=dict(username='u', password='p4ss'), validate_samples=True)),
                  destination=dict(columns=KAFKA['destination']['columns']), field_mappings=None)
    body, diff = pipe_rules.pipe_patch(args, KAFKA, by_id=True)
    assert body == {'source': {'kafka': {'authentication': 'SCRAM-SHA-512', 'validateSamples': True}}}
    assert diff == {'before': {'source': {'kafka': {'authentication': 'PLAIN'}}}, 'after': {'source': {'kafka': {'authentication': 'SCRAM-SHA-512'}}}}
    args['update_credentials'] = 'always'
    body, diff = pipe_rules.pipe_patch(args, KAFKA, by_id=True)
    assert body['source']['kafka']['credentials'] == {'username': 'u', 'password': 'p4ss'}
    assert 'p4ss' not in json.dumps(diff) and diff['after']['source']['kafka']['credentials'] == pipe_rules.MASK


def test_patch_renames_only_by_id_and_compares_lists_as_sets():
    args = params(name='renamed', source=None, destination=None,
                  field_mappings=[dict(source_field=m['sourceField'], destination_field=m['destinationField']) for m in reversed(KAFKA['fieldMappings'])])
    assert pipe_rules.pipe_patch(args, KAFKA, by_id=True)[0] == {'name': 'renamed'}
    assert pipe_rules.pipe_patch(args, KAFKA, by_id=False) == ({}, None)
    assert pipe_rules.pipe_patch(params(name=None, source=None, destination=None, field_mappings=None), KAFKA, by_id=True) == ({}, None)


def test_postgres_settings_split_between_fixed_and_changeable():
    args = params(name=None, source=dict(postgres=dict(settings=dict(sync_interval_seconds=30, replication_mode='cdc'))), destination=None,
                  field_mappings=None)
    assert [option for option, dummy, dummy2 in pipe_rules.fixed_pairs(args, POSTGRES)] == ['source.postgres.settings.replication_mode']
    body, dummy = pipe_rules.pipe_patch(args, POSTGRES, by_id=True)
    assert body == {'source': {'postgres': {'settings': {'syncIntervalSeconds': 30}}}}
    predicted = pipe_rules.predict_patched(POSTGRES, body)
    assert predicted['source']['postgres']['settings']['syncIntervalSeconds'] == 30
    assert predicted['source']['postgres']['settings']['pullBatchSize'] == 10000


MAPPINGS = POSTGRES['source']['postgres']['tableMappings']
ORDERS = {'sourceSchemaName': 'public', 'sourceTable': 'orders', 'targetTable': 'public_orders'}
SORTED, RESORTED = (dict(USERS, useCustomSortingKey=True, sortingKeys=keys) for keys in (['id', 'created_at'], ['created_at', 'id']))


@pytest.mark.parametrize('current, desired, edits, changed', [
    pytest.param([SORTED], [RESORTED], [{'tableMappingsToRemove': [SORTED]}, {'tableMappingsToAdd': [RESORTED]}], ['public.users'],
                 id='reordered sorting keys: removed and added back'),
    pytest.param([SORTED], [dict(SORTED)], [], [], id='the same sorting keys'),
    pytest.param(MAPPINGS, [USERS, {'sourceSchemaName': 'public', 'sourceTable': 'accounts', 'targetTable': 'public_accounts'}, ORDERS],
                 [{'tableMappingsToRemove': MAPPINGS[2:], 'tableMappingsToAdd': [ORDERS]}], [], id='added and removed together'),
    pytest.param(MAPPINGS, [dict(USERS, excludedColumns=['password_hash'], useCustomSortingKey=False, sortingKeys=[])] + [
        dict((key, mapping[key]) for key in ('sourceSchemaName', 'sourceTable')) for mapping in MAPPINGS[1:]], [], [], id='the defaults'),
])
def test_mapping_edits(current, desired, edits, changed):
    assert pipe_rules.mapping_edits(current, desired) == (edits, changed)


def test_a_changed_mapping_is_removed_then_added_and_warned():
    current = MAPPINGS
    desired = [dict(USERS, targetTable='users_v2')] + [dict((k, m[k]) for k in ('sourceSchemaName', 'sourceTable', 'targetTable')) for m in current[1:]]
    edits, changed = pipe_rules.mapping_edits(current, desired)
    assert changed == ['public.users']
    assert edits == [{'tableMappingsToRemove': [current[0]]}, {'tableMappingsToAdd': [desired[0]]}]
    diff, warning = pipe_rules.mappings_diff('users-postgres', current, edits, changed)
    assert 'new snapshot' in warning and 'public.users' in warning
    assert diff['after']['newSnapshotOf'] == ['public.users']
    assert [m.get('targetTable') for m in diff['after']['tableMappings']][-1] == 'users_v2'


def test_scaling_plan_and_limits():
    assert pipe_rules.scaling_plan(KAFKA, dict(replicas=2, replica_cpu_millicores=None)) == ({}, None)
    body, diff = pipe_rules.scaling_plan(KAFKA, dict(replicas=4, replica_memory_gb=2.0))
    assert body == {'replicas': 4} and diff == {'before': {'scaling': {'replicas': 2}}, 'after': {'scaling': {'replicas': 4}}}
    errors = pipe_rules.option_errors(dict(scaling=dict(replicas=0, replica_cpu_millicores=2001, replica_memory_gb=0.25)))
    assert [e.split(' ')[0] for e in errors] == ['scaling.replicas', 'scaling.replica_cpu_millicores', 'scaling.replica_memory_gb']


def test_settings_plan_is_pipe_settings_rule():
    current = copy.deepcopy(KAFKA['settings'])
    body, diff = pipe_settings.settings_plan(current, {'streaming_max_insert_wait_ms': None, 'engine_max_insert_threads': 2})
    assert body == {'streaming_max_insert_wait_ms': None}
    assert diff == {'before': {'streaming_max_insert_wait_ms': 2000}, 'after': {'streaming_max_insert_wait_ms': 5000}}
