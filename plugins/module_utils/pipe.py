# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.pipe: a pipe from creation to deletion (the PATCH, scaling, settings and a postgres pipe's table
mappings, each sending only what differs), and a pipe's definition (the options that describe it)."""

from ansible.module_utils.common.dict_transformations import _camel_to_snake

from ansible_collections.engine.cloud.plugins.module_utils import pipe_rules, pipe_settings
from ansible_collections.engine.cloud.plugins.module_utils.compare import merge_diffs
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.module import wait_options
from ansible_collections.engine.cloud.plugins.module_utils.resource import Kind, Lifecycle


def _str(**more):
    return dict(type='str', **more)


def _dict(options, **more):
    return dict(type='dict', options=options, **more)


def _dicts(options, **more):
    return dict(type='list', elements='dict', options=options, **more)


_STRS = dict(type='list', elements='str')
_BOOL = dict(type='bool')
_INT = dict(type='int')
_USER = _dict(dict(username=_str(), password=_str(no_log=True)))
_ACCESS_KEY = _dict(dict(access_key_id=_str(no_log=False), secret_key=_str(no_log=True)), no_log=False)
SOURCE = dict(
    kafka=_dict(dict(
        type=_str(choices=['kafka', 'redpanda', 'stream', 'gcmk', 'confluent', 'warpstream', 'azureeventhub', 'dokafka']),
        format=_str(choices=['JSONEachRow', 'Avro', 'AvroConfluent', 'Protobuf']), brokers=_str(), topics=_str(),
        consumer_group=_str(), authentication=_str(choices=['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'IAM_ROLE', 'IAM_USER', 'MUTUAL_TLS']),
        iam_role=_str(), offset=_dict(dict(strategy=_str(choices=['from_beginning', 'from_latest', 'from_timestamp']), timestamp=_str())),
        schema_registry=_dict(dict(url=_str(), authentication=_str(choices=['PLAIN']), ca_certificate=_str(), credentials=_USER)),
        ca_certificate=_str(), reverse_private_endpoint_ids=_STRS, exactly_once=_BOOL,
        credentials=_dict(dict(username=_str(), password=_str(no_log=True), access_key_id=_str(no_log=False), secret_key=_str(no_log=True),
                               certificate=_str(), private_key=_str(no_log=True), connection_string=_str(no_log=True))),
        validate_samples=_BOOL)),
    object_storage=_dict(dict(
        type=_str(choices=['s3', 'gcs', 'dospaces', 'azureblobstorage', 'cloudflarer2', 'ovhobjectstorage']),
        format=_str(choices=['JSONEachRow', 'JSONAsObject', 'CSV', 'CSVWithNames', 'TabSeparated', 'TabSeparatedWithNames', 'Parquet', 'Avro']),
        url=_str(), delimiter=_str(), compression=_str(choices=['none', 'gzip', 'gz', 'brotli', 'br', 'xz', 'LZMA', 'zstd', 'auto']),
        is_continuous=_BOOL, queue_url=_str(), skip_initial_load=_BOOL, start_after=_str(),
        authentication=_str(choices=['IAM_ROLE', 'IAM_USER', 'CONNECTION_STRING', 'SERVICE_ACCOUNT']), iam_role=_str(),
        connection_string=_str(no_log=True), path=_str(), object_container_name=_str(), access_key=_ACCESS_KEY,
        service_account_key=_str(no_log=True), validate_samples=_BOOL)),
    stream=_dict(dict(
        format=_str(choices=['JSONEachRow', 'Avro', 'AvroConfluent']), stream_name=_str(), region=_str(), use_enhanced_fan_out=_BOOL,
        iterator_type=_str(choices=['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP']), timestamp=_INT,
        authentication=_str(choices=['IAM_ROLE', 'IAM_USER']), iam_role=_str(), access_key=_ACCESS_KEY, validate_samples=_BOOL)),
    postgres=_dict(dict(
        type=_str(choices=['postgres', 'supabase', 'neon', 'alloydb', 'planetscale', 'rdspostgres', 'aurorapostgres', 'cloudsqlpostgres',
                           'azurepostgres', 'crunchybridge', 'tigerdata']),
        host=_str(), port=_INT, database=_str(), authentication=_str(choices=['basic', 'IAM_ROLE']), iam_role=_str(), tls_host=_str(),
        ca_certificate=_str(), disable_tls=_BOOL, skip_cert_verification=_BOOL,
        settings=_dict(dict(sync_interval_seconds=_INT, pull_batch_size=_INT, publication_name=_str(),
                            replication_mode=_str(choices=['cdc', 'snapshot', 'cdc_only']), replication_slot_name=_str(),
                            allow_nullable_columns=_BOOL, initial_load_parallelism=_INT, snapshot_num_rows_per_partition=_INT,
                            snapshot_number_of_parallel_tables=_INT, enable_failover_slots=_BOOL, delete_on_merge=_BOOL)),
        table_mappings=_dicts(dict(source_schema_name=_str(required=True), source_table=_str(required=True), target_table=_str(),
                                   excluded_columns=_STRS, use_custom_sorting_key=dict(type='bool', no_log=False),
                                   sorting_keys=dict(_STRS, no_log=False),
                                   table_engine=_str(choices=['MergeTree', 'ReplacingMergeTree', 'Null']),
                                   partition_key=_str(no_log=False), partition_by_expr=_str())),
        credentials=_USER, validate_samples=_BOOL)),
)
SPEC = dict(
    state=_str(choices=['present', 'absent'], default='present'),
    pipe_id=_str(),
    name=_str(),
    source=_dict(SOURCE, mutually_exclusive=[list(SOURCE)], required_one_of=[list(SOURCE)]),
    destination=_dict(dict(
        database=_str(), table=_str(), managed_table=_BOOL,
        columns=_dicts(dict(name=_str(required=True), type=_str(required=True))), roles=_STRS,
        table_definition=_dict(dict(
            engine=_dict(dict(type=_str(choices=['MergeTree', 'ReplacingMergeTree', 'SummingMergeTree', 'Null']),
                              version_column_id=_str(), column_ids=_STRS)),
            sorting_key=dict(_STRS, no_log=False), partition_by=_str(), primary_key=_str(no_log=False))))),
    field_mappings=_dicts(dict(source_field=_str(required=True), destination_field=_str(required=True))),
    scaling=_dict(dict(replicas=_INT, replica_cpu_millicores=_INT, replica_memory_gb=dict(type='float')),
                  required_one_of=[('replicas', 'replica_cpu_millicores', 'replica_memory_gb')]),
    settings=dict(type='dict'),
    update_credentials=_str(choices=['on_create', 'always'], default='on_create'),
    **wait_options(600))
OPTIONS = dict(uuid_options=('pipe_id',), required_one_of=[('pipe_id', 'name')])


def pipe_kind():
    return Kind(noun='pipe', key='pipe', id_option='pipe_id',
                collection=lambda module: module.path('pipes'), item=lambda module, pipe_id: module.path('pipes', pipe_id),
                ready=('Running', 'Completed'), failures=('Failed', 'InternalError'))


def run(module):
    params = module.params
    settings, errors = pipe_settings.check_settings(params['settings'] or {})
    module.fail_on_errors(*(errors + pipe_rules.option_errors(params)))
    life = Lifecycle(module, pipe_kind())
    current = life.find(missing_ok=params['state'] == 'absent')
    if params['state'] == 'absent':
        if current is None:
            life.absent()
        module.foresee_pipe_write('delete')
        life.delete(current)
    if current is None:
        create(module, life, settings)
    converge(module, life, current, settings)


def create(module, life, settings):
    module.fail_on_errors(*pipe_rules.create_errors(module.params))
    body = pipe_rules.create_body(module.params, settings)
    predicted = pipe_rules.predict_created(body, module.params['service_id'])
    module.foresee_pipe_write('create')
    if module.params['scaling']:
        predicted['scaling'] = pipe_rules.to_api(module.params['scaling'])
    pipe = life.wait_ready(life.create(body, predicted))
    pipe, dummy = module.apply(lambda: module.read('pipes', pipe['id']), lambda current: pipe_rules.scaling_plan(current, module.params['scaling']),
                               lambda scaling: module.write('PATCH', scaling, 'pipes', pipe['id'], 'scaling'), current=pipe)
    module.exit(changed=True, diff=dict(before={}, after=predicted), pipe=pipe)


def converge(module, life, pipe, settings):
    params = module.params
    module.fail_on_errors(*(pipe_rules.current_kind_errors(params, pipe) + life.fixed_errors(pipe, pipe_rules.fixed_pairs(params, pipe))))
    pipe_id = pipe['id']
    diffs = []
    pipe = step(module, diffs, pipe_id, pipe, lambda current: pipe_rules.pipe_patch(params, current, params['pipe_id'] is not None),
                lambda body: module.write('PATCH', body, 'pipes', pipe_id), 'update')
    pipe = step(module, diffs, pipe_id, pipe, lambda current: pipe_rules.scaling_plan(current, params['scaling']),
                lambda body: module.write('PATCH', body, 'pipes', pipe_id, 'scaling'), 'scaling change')
    if params['settings'] is not None:
        write = pipe_settings.settings_writer(module, pipe_id)
        pipe = step(module, diffs, pipe_id, pipe, lambda current: settings_step(current, settings),
                    lambda body, before=pipe: dict(before, settings=write(body)), 'settings change')
    pipe, diff = table_mappings(module, pipe)
    diff = merge_diffs(diffs + [diff])
    module.exit(changed=diff is not None, diff=diff, pipe=pipe)


def settings_step(pipe, settings):
    body, diff = pipe_settings.settings_plan(pipe.get('settings') or {}, settings)
    return body, (dict(before=dict(settings=diff['before']), after=dict(settings=diff['after'])) if body else None)


def step(module, diffs, pipe_id, pipe, plan, write, what):
    """One converge step (EngineModule.apply); in check mode the pipe predicted from its diff (predict_patched)."""
    if module.check_mode:
        body, diff = module.foreseeing(plan, what)(pipe)
        diffs.append(diff)
        return pipe_rules.predict_patched(pipe, diff['after']) if body else pipe
    pipe, diff = module.apply(lambda: module.read('pipes', pipe_id), plan, write, current=pipe)
    diffs.append(diff)
    return pipe


def table_mappings(module, pipe):
    """A postgres pipe's mappings to the desired list: each edit while the pipe is paused (pipe_state's stop, waited
    on), the API resuming it after; with wait, until it runs again."""
    option, kind, options = pipe_rules.source_option(module.params)
    if kind != 'postgres' or options.get('table_mappings') is None:
        return pipe, None
    wanted = pipe_rules.to_api(options['table_mappings'])
    current = pipe['source']['postgres'].get('tableMappings') or []
    edits, changed = pipe_rules.mapping_edits(current, wanted)
    if not edits:
        return pipe, None
    diff, warning = pipe_rules.mappings_diff(pipe.get('name'), current, edits, changed)
    if warning:
        module.warn(warning)
    if module.check_mode:
        module.foresee_pipe_write('update')
        pipe['source']['postgres']['tableMappings'] = diff['after']['tableMappings']
        return pipe, diff
    parts = ('pipes', pipe['id'])
    for edit in edits:
        module.bring(pipe_rules.PIPE_TABLE, 'stopped', 'pipe', *parts, wait=True)
        send_edit(module, parts, edit)
    pipe, dummy, dummy2 = module.bring(pipe_rules.PIPE_TABLE, 'started', 'pipe', *parts)
    return pipe, diff


def send_edit(module, parts, edit):
    """One table mapping edit; after a lost answer, a read tells whether it was applied (it is not sent again)."""
    try:
        module.write('PATCH', dict(source=dict(postgres=edit)), *parts)
    except ApiError as error:
        if not error.answer_lost:
            module.fail_api(error)
        if not pipe_rules.edit_applied(module.read(*parts)['source']['postgres'].get('tableMappings'), edit):
            module.fail_api(error, 'a read afterwards does not show the table mapping edit, which was not sent again')


def definition(pipe, settings=None):
    """The options of engine.cloud.pipe that describe a pipe as read (no read shows its credentials), with its settings
    when given (read apart): fed back to the module, they change nothing."""
    kind = pipe_rules.source_kind(pipe)
    option = _camel_to_snake(kind)
    found = dict(pipe_id=pipe.get('id'), name=pipe.get('name'),
                 source={option: _options(pipe_rules.without_write_only(kind, pipe['source'][kind]), SOURCE[option]['options'])},
                 destination=_options(pipe.get('destination') or {}, SPEC['destination']['options']))
    if kind != 'postgres':
        found.update(field_mappings=_options(pipe.get('fieldMappings') or [], SPEC['field_mappings']['options']),
                     scaling=_options(pipe.get('scaling') or {}, SPEC['scaling']['options']) or None)
    found['settings'] = dict((name, value) for name, value in (settings or {}).items() if value is not None) or None
    return dict((key, value) for key, value in found.items() if value is not None)


def _options(value, spec):
    """A read's camelCase value as the options of spec (snake_case, only what the spec knows, nothing null)."""
    if isinstance(value, list):
        return [_options(item, spec) for item in value]
    return dict((name, _options(item, spec[name].get('options')) if spec[name].get('options') else item)
                for name, item in ((_camel_to_snake(key), item) for key, item in value.items())
                if name in spec and item is not None)
