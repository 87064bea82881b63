# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Ingestion pipes: pipe_state's state table, and the pure rules of the pipe module (reference: "the lifecycle of a
pipe"): the create body, the fields fixed at creation, the PATCH of what differs, table mapping edits, scaling."""

import copy
import datetime

from ansible.module_utils.common.dict_transformations import _camel_to_snake, _snake_to_camel

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.compare import MASK, changes, diff as make_diff, equal, mask_secrets, non_empty
from ansible_collections.engine.cloud.plugins.module_utils.states import FAIL, WAIT, StateTable

SOURCE_KINDS = ('kafka', 'objectStorage', 'stream', 'postgres')

# `stop` works from any state, `start` only from STARTABLE, `resync` (postgres only) from any (reference).
STARTABLE = ('Stopped', 'Paused', 'Failed')
TRANSITIONS = {'Stopping': 'Stopped', 'Pausing': 'Paused'}
RESYNCING = frozenset(('Resync', 'Snapshot', 'Setup', 'Modifying'))
# The module documentation of pipe_state shows the same table.
_STARTED = dict(Running=None, Provisioning=None, Setup=None, Snapshot=None, Modifying=None, Resync=None, Degraded=None,
                Stopped='start', Paused='start', Failed='start', Stopping=WAIT, Pausing=WAIT, Completed=FAIL, InternalError=FAIL, Unknown=FAIL)
PIPE_STATES = tuple(_STARTED)
PIPE_ACTIONS = dict(started=_STARTED, resynced=dict.fromkeys(PIPE_STATES, 'resync'),
                    stopped=dict(dict.fromkeys(PIPE_STATES, 'stop'), Stopped=None, Paused=None, Stopping=None, Pausing=None, Completed=None))


def later(moment, than):
    """Whether the ISO 8601 time moment is later than than (False when either does not parse)."""
    try:
        instants = [datetime.datetime.fromisoformat(value.strip().replace('Z', '+00:00')) for value in (moment, than)]
    except (AttributeError, TypeError, ValueError):
        return False
    return instants[0] > instants[1]


class PipeStates(StateTable):
    """Only a postgres pipe can be resynced, a stopped postgres pipe settles as Paused, a resync must be seen to run."""

    def action(self, goal, resource, predict=False):
        if goal == 'resynced' and source_kind(resource) != 'postgres':
            return FAIL
        return super(PipeStates, self).action(goal, resource, predict)

    def refusal(self, goal, resource, name):
        state = resource.get('state')
        if goal == 'resynced' and source_kind(resource) != 'postgres':
            return 'state=resynced is only possible for postgres pipes; pipe %s has a %s source' % (
                resource.get('name') or name, source_kind(resource))
        if goal == 'started' and state in PIPE_STATES:
            return ('pipe %s cannot be started from state %s; the API starts a pipe only from %s, and stops it from any state '
                    '(state=stopped)' % (name, state, ', '.join(STARTABLE)))
        return super(PipeStates, self).refusal(goal, resource, name)

    def goal_text(self, goal, resource):
        if goal == 'stopped':
            return 'Paused' if source_kind(resource) == 'postgres' else 'Completed or Stopped'
        return 'Running after a resync' if goal == 'resynced' else 'Running'

    def target(self, goal, resource):
        if goal == 'stopped':
            return 'Paused' if source_kind(resource) == 'postgres' else 'Stopped'
        return 'Resync' if goal == 'resynced' else 'Running'

    def done(self, goal, before, wait=True):
        """resynced is reached once the resync has run: a state it passes through was seen, or (a resync over between
        two reads) the pipe shows an updatedAt later than before the command; with wait, Running again."""
        if goal != 'resynced':
            return super(PipeStates, self).done(goal, before, wait)
        seen = []

        def resynced(pipe):
            if pipe.get('state') in RESYNCING or later(pipe.get('updatedAt'), before.get('updatedAt')):
                seen.append(pipe.get('state'))
            return bool(seen) and (not wait or pipe.get('state') == 'Running')
        return resynced


PIPE_TABLE = PipeStates(
    'pipe', PIPE_ACTIONS,
    settled={'started': frozenset(('Running',)), 'stopped': frozenset(('Stopped', 'Paused', 'Completed')),
             'resynced': frozenset(('Running',))},
    failures=dict((goal, frozenset(('Failed', 'InternalError'))) for goal in PIPE_ACTIONS),
    targets={}, transitions=TRANSITIONS, once=('resync',))


def source_kind(pipe):
    return next((kind for kind, value in (pipe.get('source') or {}).items() if value), 'unknown')


# Write-only fields (API names) per kind: sent, never read, never compared; a.b is b inside a.
WRITE_ONLY = {
    'kafka': ('credentials', 'schemaRegistry.credentials', 'validateSamples'),
    'objectStorage': ('accessKey', 'connectionString', 'serviceAccountKey', 'validateSamples'),
    'stream': ('accessKey', 'validateSamples'),
    'postgres': ('credentials', 'validateSamples'),
}
SECRET_FIELDS = ('credentials', 'accessKey', 'connectionString', 'serviceAccountKey')
# What a PATCH can change per kind (besides the write-only fields); everything else is fixed at creation.
CHANGEABLE = {
    'kafka': ('authentication', 'iamRole', 'caCertificate', 'reversePrivateEndpointIds'),
    'objectStorage': ('authentication', 'iamRole', 'path', 'objectContainerName', 'skipInitialLoad', 'startAfter'),
    'stream': ('authentication', 'iamRole'),
    'postgres': ('host', 'port', 'database', 'tlsHost', 'caCertificate', 'disableTls', 'skipCertVerification',
                 'settings.syncIntervalSeconds', 'settings.pullBatchSize'),
}
MAPPING_DEFAULTS = {'excludedColumns': [], 'sortingKeys': [], 'useCustomSortingKey': False}
NEW_SNAPSHOT_WARNING = ('pipe %s: the table mapping of %s changes; a mapping cannot be edited in place, so it is removed in one '
                        'edit and added back in the next, and adding it takes a new snapshot of the table')


def to_api(value):
    if isinstance(value, dict):
        return dict((_snake_to_camel(key), to_api(item)) for key, item in value.items() if item is not None)
    if isinstance(value, list):
        return [to_api(item) for item in value]
    return value


def source_option(params):
    """(option name, API kind, the kind's options) of the source given (at most one, as the spec says)."""
    source = params.get('source') or {}
    option = next((name for name, options in source.items() if options is not None), None)
    return (option, _snake_to_camel(option), source[option]) if option else (None, None, None)


CREATE_NEEDS = {'kafka': ('type', 'format', 'brokers', 'topics'), 'objectStorage': ('type', 'format', 'url'),
                'stream': ('format', 'stream_name', 'region'), 'postgres': ('host', 'port', 'database')}
_NAMED_BY_MAPPINGS = 'its tables are named by source.postgres.table_mappings'
# What a postgres pipe refuses (the API would drop or refuse it), and why.
POSTGRES_REFUSES = (
    ('destination.table_definition', 'the API drops it without an error (each table mapping has its own table_engine and sorting_keys)'),
    ('destination.table', _NAMED_BY_MAPPINGS), ('destination.managed_table', _NAMED_BY_MAPPINGS), ('destination.columns', _NAMED_BY_MAPPINGS),
    ('field_mappings', 'a postgres pipe takes no field mappings'), ('scaling', 'postgres pipes scale at the service level'),
)


def kind_errors(params, kind):
    return ['%s is not possible with a postgres source: %s' % (option, reason) for option, reason in POSTGRES_REFUSES
            if kind == 'postgres' and _get(params, option) is not None]


def current_kind_errors(params, pipe):
    """kind_errors for the pipe's own source kind when the task leaves source out (option_errors checks a given one)."""
    if source_option(params)[1] is not None:
        return []
    return ['%s (pipe %s has a postgres source)' % (error, pipe.get('name') or pipe.get('id'))
            for error in kind_errors(params, source_kind(pipe))]


def create_errors(params):
    option, kind, options = source_option(params)
    if kind is None:
        return ['source is required to create pipe %s: give one of source.kafka, source.object_storage, source.stream, '
                'source.postgres' % params.get('name')]
    missing = ['source.%s.%s' % (option, name) for name in CREATE_NEEDS[kind] if options.get(name) is None]
    destination = params.get('destination') or {}
    needed = ['database'] + ([] if kind == 'postgres' else ['table', 'managed_table', 'columns'])
    missing += ['destination.%s' % name for name in needed if destination.get(name) is None]
    if missing:
        return ['%s required to create a %s pipe' % (' and '.join(missing) + (' are' if len(missing) > 1 else ' is'), option)]
    return []


def create_body(params, settings):
    """The POST body; scaling is set after the create, through the scaling endpoint."""
    option, kind, options = source_option(params)
    body = dict(name=params['name'], source={kind: to_api(options)}, destination=to_api(params['destination']))
    if params.get('field_mappings') is not None:
        body['fieldMappings'] = to_api(params['field_mappings'])
    if settings:
        body['settings'] = dict(settings)
    return body


def without_write_only(kind, source):
    shown = dict((key, value) for key, value in source.items() if key not in WRITE_ONLY[kind])
    if isinstance(shown.get('schemaRegistry'), dict):
        shown['schemaRegistry'] = dict((k, v) for k, v in shown['schemaRegistry'].items() if k != 'credentials')
    return shown


def predict_created(body, service_id):
    kind = next(iter(body['source']))
    source = dict((name, without_write_only(kind, body['source'][kind]) if name == kind else None) for name in SOURCE_KINDS)
    destination = dict(body['destination'])
    destination.pop('roles', None)
    return dict(serviceId=service_id, name=body['name'], state='Provisioning', source=source, destination=destination,
                fieldMappings=body.get('fieldMappings', []))


def _leaves(value, prefix=''):
    """(dotted API path, value) of every leaf of a dict; lists are leaves."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, '%s.%s' % (prefix, key) if prefix else key)
    else:
        yield prefix, value


def _get(resource, path):
    for part in path.split('.'):
        if not isinstance(resource, dict):
            return None
        resource = resource.get(part)
    return resource


def fixed_pairs(params, pipe):
    """(option, wanted, current) of every field fixed at creation that the task gives: the source kind, the kind's
    fields that no PATCH changes, and the destination but its columns (and roles, which no read shows)."""
    option, kind, options = source_option(params)
    current_kind = source_kind(pipe)
    if kind is not None and kind != current_kind:
        return [('source', option, _camel_to_snake(current_kind))]
    wanted = dict(source={}, destination=to_api(params.get('destination') or {}))
    if kind is not None:
        wanted['source'][kind] = without_write_only(kind, to_api(options))
    apart = ['source.%s.%s' % (kind, path) for path in CHANGEABLE.get(kind, ()) + ('tableMappings',)]
    apart += ['destination.columns', 'destination.roles']
    return [(_camel_to_snake(path), value, _get(pipe, path)) for path, value in _leaves(wanted) if path not in apart]


def pipe_patch(params, pipe, by_id):
    """(PATCH body, diff) of what a PATCH can change and differs; the credentials with update_credentials=always (no
    read shows them, so the diff names them, masked)."""
    body, before, after = {}, {}, {}
    if by_id and params.get('name') is not None and params['name'] != pipe.get('name'):
        body['name'], before['name'], after['name'] = params['name'], pipe.get('name'), params['name']
    for path in ('fieldMappings', 'destination.columns'):
        wanted = to_api(_get(params, _camel_to_snake(path)))
        if wanted is not None and not equal(_get(pipe, path) or [], wanted):
            for side, value in ((body, wanted), (before, _get(pipe, path)), (after, wanted)):
                _put(side, path, value)
    source, source_before, source_after = _source_patch(params, pipe)
    if source:
        body['source'] = source
        before['source'], after['source'] = source_before, source_after
    return body, (dict(before=mask_secrets(before), after=mask_secrets(after)) if body else None)


def _source_patch(params, pipe):
    option, kind, options = source_option(params)
    if kind is None or kind != source_kind(pipe):
        return {}, None, None
    wanted = to_api(options)
    current = pipe['source'][kind]
    change, before = {}, {}
    for path, value in _leaves(without_write_only(kind, wanted)):
        if path in CHANGEABLE[kind] and not equal(_get(current, path), value):
            _put(change, path, value)
            _put(before, path, _get(current, path))
    shown = dict(change)
    if params.get('update_credentials') == 'always':
        # The schema registry's credentials are not among what a PATCH takes: they are sent at creation only.
        for field in SECRET_FIELDS:
            if wanted.get(field) is not None:
                change[field], shown[field] = wanted[field], MASK
    if not change:
        return {}, None, None
    if 'validateSamples' in wanted:
        change['validateSamples'] = wanted['validateSamples']
    return {kind: change}, {kind: before}, {kind: shown}


def _put(target, path, value):
    parts = path.split('.')
    for part in parts[:-1]:
        target[part] = target.get(part) or {}  # a field the pipe shows as null is filled like one it leaves out
        target = target[part]
    target[parts[-1]] = value


def predict_patched(pipe, after):
    """The pipe after a converge step whose diff shows after (check mode): nested fields kept, write-only fields left out."""
    predicted = copy.deepcopy(pipe)
    shown = dict(after, source=dict((kind, without_write_only(kind, change)) for kind, change in (after.get('source') or {}).items()))
    for path, value in _leaves(shown):
        _put(predicted, path, value)
    return predicted


def mapping_key(mapping):
    return (mapping.get('sourceSchemaName'), mapping.get('sourceTable'))


def mapping_edits(current, desired):
    """(the edits that bring a postgres pipe's table mappings to desired, the tables whose mapping changed). Tables not
    desired are removed, new ones added, in one edit; a changed mapping is removed in that edit and added back in a
    second one (the API refuses one table removed and added in one request)."""
    current = list(current or [])
    by_key = dict((mapping_key(mapping), mapping) for mapping in current)
    wanted_keys = [mapping_key(mapping) for mapping in desired]
    remove = [mapping for mapping in current if mapping_key(mapping) not in wanted_keys]
    add, readd, changed = [], [], []
    for mapping in desired:
        found = by_key.get(mapping_key(mapping))
        if found is None:
            add.append(mapping)
        elif any(not equal(found.get(key, MAPPING_DEFAULTS.get(key)), value, field=key) for key, value in mapping.items()):
            remove.append(found)
            readd.append(mapping)
            changed.append('%s.%s' % mapping_key(mapping))
    edits = [non_empty(tableMappingsToRemove=remove, tableMappingsToAdd=add), non_empty(tableMappingsToAdd=readd)]
    return [edit for edit in edits if edit], changed


def mappings_diff(name, current, edits, changed):
    """The diff of the table mappings, and the warning when a changed table takes a new snapshot."""
    after = list(current or [])
    for edit in edits:
        removed = [mapping_key(mapping) for mapping in edit.get('tableMappingsToRemove', [])]
        after = [mapping for mapping in after if mapping_key(mapping) not in removed] + edit.get('tableMappingsToAdd', [])
    diff = dict(before=dict(tableMappings=current), after=dict(tableMappings=after))
    if changed:
        diff['after']['newSnapshotOf'] = changed
    warning = NEW_SNAPSHOT_WARNING % (name, ', '.join(changed)) if changed else None
    return diff, warning


def scaling_plan(pipe, scaling):
    current = pipe.get('scaling') or {}
    body = changes(current, to_api(scaling or {}))
    return body, (dict((side, dict(scaling=shown)) for side, shown in make_diff(current, body).items()) if body else None)


# The scaling endpoint's limits (the spec refuses an empty scaling, as the API does).
SCALING_LIMITS = {'scaling.replicas': (1, 40), 'scaling.replica_cpu_millicores': (125, 2000), 'scaling.replica_memory_gb': (0.5, 8)}


def edit_applied(mappings, edit):
    keys = [mapping_key(mapping) for mapping in mappings or []]
    return (all(mapping_key(m) not in keys for m in edit.get('tableMappingsToRemove', []) if m not in edit.get('tableMappingsToAdd', []))
            and all(mapping_key(m) in keys for m in edit.get('tableMappingsToAdd', [])))


def option_errors(params):
    option, kind, options = source_option(params)
    errors = kind_errors(params, kind) + [validate.number_range(path, _get(params, path), *limits) for path, limits in SCALING_LIMITS.items()]
    name = params.get('name')
    if name is not None and not 1 <= len(name) <= 255:
        errors.append('name must be 1 to 255 characters long, got %d' % len(name))
    if kind == 'postgres':
        errors.append(validate.number_range('source.postgres.port', options.get('port'), 1, 65535))
        keys = [(m['source_schema_name'], m['source_table']) for m in options.get('table_mappings') or []]
        twice = sorted(set('%s.%s' % key for key in keys if keys.count(key) > 1))
        if twice:
            errors.append('source.postgres.table_mappings lists %s more than once; a table has one mapping' % ', '.join(twice))
    return [error for error in errors if error]
