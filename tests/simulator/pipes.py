"""The lifecycle of a pipe (reference: "the lifecycle of a pipe"): create, update, scaling, delete, and
the refusals of a service that is not running.

The request shapes are not in the OpenAPI document: they are built here from its read schemas (the
read shape of each source kind plus the write-only credentials and validateSamples), closed as every
schema of the simulator is, so an unknown field is a 400 naming it.
"""

import copy
import uuid

from .schema import DOC_URI, StrictValidator, anchor, first_error

SOURCE_KINDS = ('kafka', 'objectStorage', 'stream', 'postgres')
_READ_SCHEMAS = {'kafka': 'PipeKafkaSource', 'objectStorage': 'PipeObjectStorageSource', 'stream': 'PipeStreamSource',
                 'postgres': 'PipePostgresSource'}


def _ref(name):
    return {'$ref': '%s#/components/schemas/%s' % (DOC_URI, name)}


def _closed(properties, required=()):
    schema = {'type': 'object', 'additionalProperties': False, 'properties': properties}
    if required:
        schema['required'] = list(required)
    return schema


_STRING = {'type': 'string'}
_USER = _closed({'username': _STRING, 'password': _STRING}, ('username', 'password'))
_ACCESS_KEY = _closed({'accessKeyId': _STRING, 'secretKey': _STRING}, ('accessKeyId', 'secretKey'))
_KAFKA_CREDENTIALS = {'oneOf': [_USER, _ACCESS_KEY,
                                _closed({'certificate': _STRING, 'privateKey': _STRING}, ('certificate', 'privateKey')),
                                _closed({'connectionString': _STRING}, ('connectionString',))]}
# The write-only fields of each kind: never shown by a read.
WRITE_ONLY = {
    'kafka': {'credentials': _KAFKA_CREDENTIALS},
    'objectStorage': {'accessKey': _ACCESS_KEY, 'serviceAccountKey': {'type': 'string', 'contentEncoding': 'base64'}},
    'stream': {'accessKey': _ACCESS_KEY},
    'postgres': {'credentials': _USER},
}
# What a PATCH may change per kind (reference: "update"); postgres settings only these two.
CHANGEABLE = {
    'kafka': ('authentication', 'iamRole', 'caCertificate', 'credentials', 'reversePrivateEndpointIds'),
    'objectStorage': ('authentication', 'iamRole', 'accessKey', 'connectionString', 'serviceAccountKey', 'path',
                      'objectContainerName', 'skipInitialLoad', 'startAfter'),
    'stream': ('authentication', 'iamRole', 'accessKey'),
    'postgres': ('host', 'port', 'database', 'credentials', 'tlsHost', 'caCertificate', 'disableTls', 'skipCertVerification',
                 'settings', 'tableMappingsToAdd', 'tableMappingsToRemove'),
}
POSTGRES_CHANGEABLE_SETTINGS = ('syncIntervalSeconds', 'pullBatchSize')
POSTGRES_CONNECTION = ('host', 'port', 'database', 'tlsHost', 'caCertificate', 'disableTls', 'skipCertVerification')
MAPPING_KEYS = ('sourceSchemaName', 'sourceTable')
REQUIRED_SOURCE = {'kafka': ('type', 'format', 'brokers', 'topics'), 'objectStorage': ('type', 'format', 'url'),
                   'stream': ('format', 'streamName', 'region'), 'postgres': ('host', 'port', 'database')}


def _write_kind(kind, validator_schema):
    """The read schema of a kind, resolved one level, plus its write-only fields and validateSamples."""
    read = validator_schema['components']['schemas'][_READ_SCHEMAS[kind]]
    properties = dict(read['properties'])
    properties.update(WRITE_ONLY[kind])
    properties['validateSamples'] = {'type': 'boolean'}
    if kind == 'kafka':
        registry = copy.deepcopy(validator_schema['components']['schemas']['PipeKafkaSchemaRegistry'])
        registry['properties']['credentials'] = _USER
        properties['schemaRegistry'] = {'oneOf': [registry, {'type': 'null'}]}
    return _closed(properties, REQUIRED_SOURCE[kind])


class PipeSchemas:
    """Validators of the create, update and scaling bodies, built once from the OpenAPI document."""

    def __init__(self, openapi):
        self.openapi = openapi
        document = openapi.registry.contents(DOC_URI)
        kinds = {kind: _write_kind(kind, document) for kind in SOURCE_KINDS}
        destination = dict(document['components']['schemas']['PipeDestination']['properties'])
        destination['roles'] = {'type': 'array', 'items': _STRING}
        source = {'type': 'object', 'additionalProperties': False, 'minProperties': 1, 'maxProperties': 1, 'properties': kinds}
        self.create = self._validator(_closed({
            'name': {'type': 'string', 'minLength': 1, 'maxLength': 255}, 'source': source,
            'destination': _closed(destination, ('database',)),
            'fieldMappings': {'type': 'array', 'items': _ref('PipeFieldMapping')},
            'scaling': dict(_ref('PipeScaling'), minProperties=1), 'settings': _ref('PipeSettingsPutRequest')},
            ('name', 'source', 'destination')))
        mapping = _ref('PipePostgresPipeTableMapping')
        update_kinds = {}
        for kind in SOURCE_KINDS:
            props = kinds[kind]['properties']
            allowed = dict((key, props[key]) for key in CHANGEABLE[kind] if key in props)
            allowed['validateSamples'] = {'type': 'boolean'}
            if kind == 'postgres':
                settings = document['components']['schemas']['PipePostgresPipeSettings']['properties']
                allowed['settings'] = _closed(dict((key, settings[key]) for key in POSTGRES_CHANGEABLE_SETTINGS))
                allowed['tableMappingsToAdd'] = {'type': 'array', 'items': mapping}
                allowed['tableMappingsToRemove'] = {'type': 'array', 'items': mapping}
            update_kinds[kind] = _closed(allowed)
        self.update = self._validator(_closed({
            'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
            'source': {'type': 'object', 'additionalProperties': False, 'minProperties': 1, 'maxProperties': 1,
                       'properties': update_kinds},
            'destination': _closed({'columns': destination['columns']}),
            'fieldMappings': {'type': 'array', 'items': _ref('PipeFieldMapping')},
            'settings': _ref('PipeSettingsPutRequest')}))
        self.scaling = self._validator(dict(_ref('PipeScaling'), minProperties=1))

    def _validator(self, schema):
        return StrictValidator(anchor(schema), registry=self.openapi.registry)


def check(validator, body, bad_request):
    problem = first_error(validator, body)
    if problem:
        raise bad_request(*problem)


def kind_of(body):
    return next(iter(body['source']))


def credentials_of(kind, source):
    """The write-only fields of a source, kept where only the admin interface shows them."""
    found = dict((key, source[key]) for key in WRITE_ONLY[kind] if key in source)
    registry = source.get('schemaRegistry') or {}
    if 'credentials' in registry:
        found['schemaRegistry.credentials'] = registry['credentials']
    return found


def read_source(kind, source):
    """What reads show of a written source: no write-only field, no validateSamples."""
    shown = dict((key, copy.deepcopy(value)) for key, value in source.items()
                 if key not in WRITE_ONLY[kind] and key != 'validateSamples')
    if isinstance(shown.get('schemaRegistry'), dict):
        shown['schemaRegistry'].pop('credentials', None)
    return shown


def destination_errors(kind, body):
    """(field, message) of the first destination rule broken, or None."""
    destination = body['destination']
    if kind == 'postgres':
        if body.get('fieldMappings'):
            return 'request body.fieldMappings', 'a postgres pipe takes no field mappings'
        if 'scaling' in body:
            return 'request body.scaling', 'postgres pipes scale at the service level (pipesCdcScaling)'
        return None
    for key in ('table', 'managedTable', 'columns'):
        if key not in destination:
            return 'request body.destination.%s' % key, 'is required for a %s pipe' % kind
    return None


def mapping_key(mapping):
    return tuple(mapping.get(key) for key in MAPPING_KEYS)


def new_pipe(store, service, body, settings_defaults):
    """The stored pipe of a create body (already validated)."""
    kind = kind_of(body)
    source = body['source'][kind]
    destination = copy.deepcopy(body['destination'])
    roles = destination.pop('roles', None)
    if kind == 'postgres':
        destination.pop('tableDefinition', None)  # the API drops it without an error (reference)
    settings = dict((key, None) for key in settings_defaults)
    settings.update(body.get('settings') or {})
    scaling = {'postgres': {'replicas': 1}, 'objectStorage': {'replicas': 1, 'concurrency': 0}}.get(
        kind, {'replicas': 1, 'replicaCpuMillicores': 500, 'replicaMemoryGb': 2})
    scaling.update(body.get('scaling') or {})
    now = store.now_iso()
    pipe = {
        'id': str(uuid.uuid4()), 'serviceId': service['id'], 'name': body['name'], 'state': 'Provisioning', 'scaling': scaling,
        'source': dict((name, read_source(kind, source) if name == kind else None) for name in SOURCE_KINDS),
        'destination': destination, 'fieldMappings': copy.deepcopy(body.get('fieldMappings') or []), 'settings': settings,
        'createdAt': now, 'updatedAt': now,
        'sim': {'credentials': credentials_of(kind, source), 'roles': roles},
    }
    return pipe


def settled_state(kind, source):
    """Where a created pipe ends: a one-off object storage load and a postgres snapshot complete."""
    if kind == 'objectStorage' and not source.get('isContinuous'):
        return 'Completed'
    if kind == 'postgres' and (source.get('settings') or {}).get('replicationMode') == 'snapshot':
        return 'Completed'
    return 'Running'
