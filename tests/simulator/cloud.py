"""The management API under /v1: auth, routing, validation and the service/pipe operations."""

import base64
import binascii
import copy
import hashlib
import secrets
import ipaddress
import re
import uuid

from . import pipes as pipe_rules
from . import server
from .schema import OpenApi, first_error

NAME = 'cloud'
PREFIX = '/v1'

CODES = {400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT',
         424: 'FAILED_DEPENDENCY', 429: 'TOO_MANY_REQUESTS', 500: 'INTERNAL_SERVER_ERROR', 502: 'BAD_GATEWAY',
         503: 'SERVICE_UNAVAILABLE', 504: 'GATEWAY_TIMEOUT'}
UUID_RE = re.compile(r'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}')
NAME_RE = re.compile(r'[A-Za-z0-9](?:[A-Za-z0-9 -]{0,48}[A-Za-z0-9])?')
# object_storage_concurrency has no published default: a reset leaves it null.
SETTING_DEFAULTS = {
    'streaming_max_insert_wait_ms': 5000, 'object_storage_concurrency': None, 'object_storage_polling_interval_ms': 30000,
    'object_storage_max_insert_bytes': 10 * 1024 ** 3, 'object_storage_max_file_count': 100, 'engine_max_threads': 3,
    'engine_max_insert_threads': 1, 'engine_min_insert_block_size_bytes': 1024 ** 3, 'engine_max_download_threads': 4,
    'engine_parallel_distributed_insert_select': 2, 'object_storage_use_cluster_function': True,
    'engine_parallel_view_processing': False,
}
PIPE_STARTABLE = ('Stopped', 'Paused', 'Failed')
SERVICE_STOPPABLE = ('running', 'idle', 'degraded', 'partially_running')
SERVICE_TERMINAL = ('terminating', 'terminated', 'softdeleting', 'softdeleted')
# Fields a horizontal-autoscaling service does not have; what its scaling PATCH does with them is
# not documented, so they are refused.
VERTICAL_ONLY = ('numReplicas', 'minTotalMemoryGb', 'maxTotalMemoryGb')
TAGS_MAX = 50

SERVICES = '/v1/organizations/{organizationId}/services'
S = SERVICES + '/{serviceId}'
PIPE = S + '/pipes/{pipeId}'
RPE = S + '/pipesReversePrivateEndpoints/{reversePrivateEndpointId}'

OPENAPI = OpenApi()
PIPE_SCHEMAS = pipe_rules.PipeSchemas(OPENAPI)
NO_RESULT = object()  # an answer without ``result`` (a DELETE)
CREATE_PATH = re.compile(r'/services(/[^/]+/pipes)?$')  # the POSTs that create (config slow_create)


class ApiError(Exception):
    """An error answered with the management API's error body."""

    def __init__(self, status, message, headers=None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def bad_request(field, message):
    """A 400 naming the offending request-body field."""
    return ApiError(400, '%s: %s' % (field, message))


def envelope_error(status, message, request_id=None, headers=None):
    """The error body: ``{"status", "error": "CODE: message", "requestId"}``."""
    request_id = request_id or str(uuid.uuid4())
    payload = {'status': status, 'error': '%s: %s' % (CODES.get(status, 'ERROR'), message), 'requestId': request_id}
    return server.Response.json(status, payload, dict(headers or {}, **{'X-Request-Id': request_id}))


def fault_response(status):
    """Default body of an injected ``status`` fault."""
    return envelope_error(status, 'injected fault')


def handle(store, request):
    """Answer one /v1 request."""
    request_id = str(uuid.uuid4())
    try:
        with store.lock:
            store.release_held()
            hold = store.config['slow_create'] if request.method == 'POST' and CREATE_PATH.search(request.path) else 0
            result = _handle(store, request)
    except ApiError as exc:
        return envelope_error(exc.status, exc.message, request_id, exc.headers)
    except Exception:  # pylint: disable=broad-except
        return envelope_error(500, 'An internal error occurred', request_id)
    payload = {'status': 200, 'requestId': request_id}
    if result is not NO_RESULT:
        payload['result'] = result
    response = server.Response.json(200, payload, {'X-Request-Id': request_id})
    # a slow create (config slow_create): answered once it shows, or (slow_create_answer: dropped) never
    response.hold, response.drop = hold, bool(hold) and store.config['slow_create_answer'] == 'dropped'
    return response


def _handle(store, request):
    key_id, tenant = _authenticate(store, request.headers.get('Authorization', ''))
    if store.config['rate_limit']:
        _rate_limit(store, key_id)
    route, params = _route(request.method, request.path)
    for name, value in params.items():
        if not UUID_RE.fullmatch(value):
            raise ApiError(400, '%s: must be a valid UUID' % name)
    if params['organizationId'].lower() != tenant.organization:
        raise ApiError(403, 'The API key has no access to organization %s' % params['organizationId'])
    service = _service(store, params['serviceId'], tenant.organization) if 'serviceId' in params else None
    body = _body(request, route) if request.method in ('PATCH', 'PUT', 'POST') else None
    params['query'] = request.query_pairs  # [(name, value)], in order, repeated names kept
    params['tenant'] = tenant  # the key's organization
    if service is not None:
        _refuse_pipe_call_unless_running(store, service, request.method, route[0])
    return ROUTES[route](store, service, params, body)


def _authenticate(store, header):
    scheme, encoded = header.split(' ', 1) if ' ' in header else (header, '')
    try:
        key_id, secret = base64.b64decode(encoded, validate=True).decode('utf-8').split(':', 1)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        key_id = secret = None
    tenant = store.tenant_of_key(key_id, secret) if scheme.lower() == 'basic' else None
    if tenant is None:
        raise ApiError(401, 'Invalid or missing API key credentials')
    return key_id, tenant


def _rate_limit(store, key_id):
    window = store.cloud_limiter.hit(key_id, store.clock.time())
    if not window.allowed:
        headers = {name: window.reset for name in store.config['rate_limit_headers']}
        raise ApiError(429, 'Rate limit exceeded: 10 requests per 10 seconds', headers)


def _route(method, path):
    for template, regex in ROUTE_REGEXES.items():
        match = regex.fullmatch(path)
        if match and method in ROUTE_TABLE[template]:
            return (template, method.lower()), match.groupdict()
    raise ApiError(404, 'No route for %s %s' % (method, path))


def _lookup(objects, object_id, kind):
    obj = objects.get(object_id.lower())
    if obj is None:
        raise ApiError(404, '%s %s not found' % (kind, object_id))
    return obj


def _service(store, service_id, organization):
    """The service of the path: 404 when unknown, of another organization, or once a deleted one is gone (config
    deleted_reads: gone)."""
    service = store.settle(_lookup(store.services, service_id, 'Service'))
    if service['id'] not in store.services or store.organization_of(service) != organization:
        raise ApiError(404, 'Service %s not found' % service_id)
    return service


def services_of(store, tenant):
    """The services of the tenant's organization, in the order they were made."""
    return [service for service in list(store.services.values()) if store.organization_of(service) == tenant.organization]


def _body(request, route):
    content_type = request.headers.get('Content-Type', '').split(';')[0].strip().lower()
    if content_type != 'application/json':
        raise ApiError(400, 'Content-Type must be application/json')
    body = request.json_body()
    if not isinstance(body, dict):
        raise ApiError(400, 'request body: must be a JSON object')
    if route[1] not in OPENAPI.paths.get(route[0], {}):
        return body  # an operation the document does not hold: its handler validates the body field by field
    problem = first_error(OPENAPI.request_validator(*route), body)
    if problem:
        raise bad_request(*problem)
    return body


# Rendering ---------------------------------------------------------------------------------------

def render_service(store, service):
    """The API view of a service: hidden attributes out, disabled endpoints left out."""
    store.settle(service)
    view = {k: copy.deepcopy(v) for k, v in service.items() if k not in ('sim', '_pending')}
    view['endpoints'] = [{k: v for k, v in e.items() if k != 'enabled'} for e in service['endpoints'] if e['enabled']]
    return view


def render_pipe(store, pipe):
    """The API view of a pipe."""
    store.settle(pipe)
    return {k: copy.deepcopy(v) for k, v in pipe.items() if k not in ('sim', '_pending')}


def render_reverse_private_endpoint(endpoint):
    """The API view of a reverse private endpoint (it has no hidden attributes)."""
    return copy.deepcopy(endpoint)


# Service operations ------------------------------------------------------------------------------

def get_service(store, service, _params, _body):
    """GET S."""
    view = render_service(store, service)
    store.count_read(service)
    return view


# The list's only filter (the reference, "list by tag"): filter=tag:Key=Value, or filter=tag:Key for the key with
# any value; keys and values as tags have them (ResourceTagsV1).
TAG_FILTER_RE = re.compile(r'tag:([a-zA-Z0-9._-]{1,128})(?:=([a-zA-Z0-9._-]{1,256}))?')


def list_services(store, _service, params, _body):
    """GET services: every service of the organization, no paging; with filters, the services that have every
    tag named. Several filters are ANDed: the reference's example (filter=tag:Key=Value&filter=tag:Other) narrows
    the list by two tags, as a filter does; OR would return services a client did not ask for. The collection's
    clients check the tags of what they get again, so they are right under either reading."""
    wanted = _tag_filters(params['query'])
    for service in services_of(store, params['tenant']):
        store.settle(service)  # a deleted service may be gone by now
    return [render_service(store, service) for service in services_of(store, params['tenant'])
            if all(_has_tag(service, key, value) for key, value in wanted)]


def _tag_filters(pairs):
    """[(key, value or None)] of the list's query; a parameter other than filter, a filter of another kind, or a
    malformed tag filter is a 400 (the reference names no other)."""
    wanted = []
    for name, value in pairs:
        if name != 'filter':
            raise ApiError(400, 'query parameter %s: unknown (the list takes filter=tag:Key=Value or filter=tag:Key)' % name)
        if not value.startswith('tag:'):
            raise ApiError(400, 'filter %s: unknown filter kind (the only one is tag:)' % value)
        match = TAG_FILTER_RE.fullmatch(value)
        if not match:
            raise ApiError(400, 'filter %s: must be tag:Key=Value or tag:Key, the key 1 to 128 and the value 1 to 256 '
                                'letters, digits, dots, underscores or hyphens' % value)
        wanted.append(match.groups())
    return wanted


def _has_tag(service, key, value):
    return any(tag['key'] == key and (value is None or tag.get('value') == value) for tag in service['tags'])


def patch_service(store, service, params, body):
    """PATCH S: validate every change on a copy, then commit them together."""
    store.settle(service)
    draft = copy.deepcopy(service)
    if 'name' in body:
        _check_name(store, params['tenant'], body['name'], service['id'])
        draft['name'] = body['name']
    if 'ipAccessList' in body:
        draft['ipAccessList'] = _patch_ip_access_list(draft['ipAccessList'], body['ipAccessList'])
    if 'privateEndpointIds' in body:
        draft['privateEndpointIds'] = _patch_private_endpoints(draft, body['privateEndpointIds'])
    if 'releaseChannel' in body:
        _require_production(draft, 'releaseChannel')
        draft['releaseChannel'] = body['releaseChannel']
    if 'endpoints' in body:
        _patch_endpoints(draft, body['endpoints'])
    if 'tags' in body:
        draft['tags'] = _patch_tags(draft['tags'], body['tags'])
    if 'enableCoreDumps' in body:
        draft['enableCoreDumps'] = body['enableCoreDumps']
    if 'transparentDataEncryptionKeyId' in body:
        _rotate_tde_key(draft, body['transparentDataEncryptionKeyId'])
    service.clear()
    service.update(draft)
    return render_service(store, service)


def _patch_ip_access_list(current, patch):
    field = 'request body.ipAccessList'
    entries = {entry['source']: entry for entry in current}
    for index, entry in enumerate(patch.get('remove', [])):
        source = _ip_source(entry, '%s.remove[%d]' % (field, index))
        if entries.pop(source, None) is None:
            raise bad_request('%s.remove[%d].source' % (field, index), '%s is not in the IP access list' % source)
    added = set()
    for index, entry in enumerate(patch.get('add', [])):
        source = _ip_source(entry, '%s.add[%d]' % (field, index))
        if source in added:
            raise bad_request('%s.add[%d].source' % (field, index), 'duplicate source %s' % source)
        added.add(source)
        entries[source] = {'source': source, 'description': entry.get('description', '')}
    return list(entries.values())


def _ip_source(entry, field):
    source = entry.get('source')
    if source is None:
        raise bad_request(field + '.source', 'is required')
    try:
        ipaddress.IPv4Network(source, strict=True)
    except ValueError as exc:
        raise bad_request(field + '.source', 'must be an IPv4 address or CIDR (%s)' % exc) from exc
    return source


def _patch_private_endpoints(service, patch):
    field = 'request body.privateEndpointIds'
    ids = list(service['privateEndpointIds'])
    for index, endpoint_id in enumerate(patch.get('remove', [])):
        if endpoint_id not in ids:
            raise bad_request('%s.remove[%d]' % (field, index), '%s is not attached to the service' % endpoint_id)
        ids.remove(endpoint_id)
    for index, endpoint_id in enumerate(patch.get('add', [])):
        if endpoint_id not in service['availablePrivateEndpointIds']:
            raise bad_request('%s.add[%d]' % (field, index), '%s is not an available private endpoint' % endpoint_id)
        if endpoint_id not in ids:
            ids.append(endpoint_id)
    return ids


def _patch_endpoints(service, changes):
    seen = set()
    for index, change in enumerate(changes):
        field = 'request body.endpoints[%d]' % index
        for key in ('protocol', 'enabled'):
            if key not in change:
                raise bad_request('%s.%s' % (field, key), 'is required')
        if change['protocol'] in seen:
            raise bad_request(field + '.protocol', 'duplicate protocol %s' % change['protocol'])
        seen.add(change['protocol'])
        for endpoint in service['endpoints']:
            if endpoint['protocol'] == change['protocol']:
                endpoint['enabled'] = change['enabled']


def _patch_tags(current, patch):
    """remove first, then add (the reference). Strict where it is silent: a removed tag must exist (with the
    value given, if one is), an added key must not exist after the removes, and at most 50 tags remain."""
    tags = {tag['key']: tag for tag in current}
    for index, tag in enumerate(patch.get('remove', [])):
        field = 'request body.tags.remove[%d]' % index
        found = tags.pop(tag['key'], None)
        if found is None:
            raise bad_request(field + '.key', 'tag %s does not exist' % tag['key'])
        if 'value' in tag and tag['value'] != found.get('value'):
            raise bad_request(field + '.value', 'tag %s has the value %s, not %s' % (tag['key'], found.get('value'), tag['value']))
    for index, tag in enumerate(patch.get('add', [])):
        if tag['key'] in tags:
            raise bad_request('request body.tags.add[%d].key' % index, 'tag %s already exists; remove it first' % tag['key'])
        tags[tag['key']] = dict(tag)
    if len(tags) > TAGS_MAX:
        raise bad_request('request body.tags', 'a service can have at most %d tags, this would give %d' % (TAGS_MAX, len(tags)))
    return list(tags.values())


def _rotate_tde_key(service, key_id):
    if not service['hasTransparentDataEncryption']:
        raise bad_request('request body.transparentDataEncryptionKeyId',
                          'transparent data encryption is not enabled for this service')
    if not key_id.strip():
        raise bad_request('request body.transparentDataEncryptionKeyId', 'must not be empty')
    _require_running(service, 'Transparent data encryption key rotation')
    service['transparentDataEncryptionKeyId'] = key_id


def _require_production(service, field):
    if service['tier'] != 'production':
        raise bad_request('request body.' + field, 'available only for production services')


def _require_running(service, what):
    if service['state'] != 'running':
        raise ApiError(424, '%s is allowed only when the service is running. Current state: %s' % (what, service['state']))


def patch_scaling(store, service, _params, body):
    """PATCH S/scaling."""
    store.settle(service)
    _check_scaling(service, body)
    _require_running(service, 'Changing the scaling settings')
    service.update(body)
    for bound in ('min', 'max'):
        total = service.get(bound + 'TotalMemoryGb')
        if total is not None:
            # The deprecated totals are the memory of three replicas.
            service[bound + 'ReplicaMemoryGb'] = total // 3
            service['currentScaling']['effective%sReplicaMemoryGb' % bound.title()] = total // 3
    scaling = service['currentScaling']
    scaling.update(effectiveIdleScaling=service['idleScaling'], effectiveIdleTimeoutMinutes=service['idleTimeoutMinutes'])
    if 'numReplicas' in service:
        scaling.update(effectiveMinReplicas=service['numReplicas'], effectiveMaxReplicas=service['numReplicas'])
    return render_service(store, service)


def _check_scaling(service, body):
    if service.get('autoscalingMode') == 'horizontal':
        for key in VERTICAL_ONLY:
            if key in body:
                raise bad_request('request body.' + key, 'not available for a service with horizontal autoscaling')
    for key in ('minTotalMemoryGb', 'maxTotalMemoryGb', 'idleTimeoutMinutes'):
        if key in body and not isinstance(body[key], int):
            raise bad_request('request body.' + key, 'must be a whole number')
    for key in ('minTotalMemoryGb', 'maxTotalMemoryGb'):
        if key in body:
            _require_production(service, key)
    if body.get('maxTotalMemoryGb', 0) > 360 and not service['sim']['paid']:
        raise bad_request('request body.maxTotalMemoryGb', 'must be at most 360 for a service that is not paid')
    low = body.get('minTotalMemoryGb', service.get('minTotalMemoryGb'))
    high = body.get('maxTotalMemoryGb', service.get('maxTotalMemoryGb'))
    if low is not None and high is not None and high < low:
        field = 'maxTotalMemoryGb' if 'maxTotalMemoryGb' in body else 'minTotalMemoryGb'
        raise bad_request('request body.' + field, 'maxTotalMemoryGb (%s) must be greater than or equal to '
                                                   'minTotalMemoryGb (%s)' % (high, low))
    if service['isPrimary'] and body.get('numReplicas', 2) < 2:
        raise bad_request('request body.numReplicas', 'must be between 2 and 20 for the primary service of a warehouse')
    if body.get('idleTimeoutMinutes', 5) < 5:
        raise bad_request('request body.idleTimeoutMinutes', 'must be at least 5')


def patch_service_state(store, service, _params, body):
    """PATCH S/state: start, stop or awake."""
    store.settle(service)
    command, state = body.get('command'), service['state']
    if command is None:
        raise bad_request('request body.command', 'is required')
    if state in SERVICE_TERMINAL:
        raise ApiError(409, 'Service %s is %s and takes no command' % (service['id'], state))
    if command == 'start' and state == 'stopped':
        store.begin_transition(service, 'starting', 'running')
    elif command == 'stop' and state in SERVICE_STOPPABLE:
        store.begin_transition(service, 'stopping', 'stopped')
    elif command == 'awake' and state == 'idle':
        store.begin_transition(service, 'awaking', 'running')
    elif not (command == 'start' and state == 'idle'):  # an idle service counts as started
        raise ApiError(409, 'Cannot %s service %s in state %s' % (command, service['id'], state))
    return render_service(store, service)


# The lifecycle of a service (reference: "the lifecycle of a service"; not in the OpenAPI document) ----------

# The provider of each region code of the Service schema's region enum.
REGIONS = {
    'aws': ('ap-northeast-1', 'ap-northeast-2', 'ap-south-1', 'ap-southeast-1', 'ap-southeast-2', 'ca-central-1', 'eu-central-1',
            'eu-west-1', 'eu-west-2', 'il-central-1', 'us-east-1', 'us-east-2', 'us-west-2'),
    'gcp': ('us-east1', 'us-central1', 'europe-west2', 'europe-west4', 'asia-southeast1', 'asia-northeast1'),
    'azure': ('eastus', 'eastus2', 'westus3', 'germanywestcentral', 'centralus'),
}
TIERS = ('development', 'production', 'dedicated_high_mem', 'dedicated_high_cpu', 'dedicated_standard',
         'dedicated_standard_n2d_standard_4', 'dedicated_standard_n2d_standard_8', 'dedicated_standard_n2d_standard_32',
         'dedicated_standard_n2d_standard_128', 'dedicated_standard_n2d_standard_32_16SSD',
         'dedicated_standard_n2d_standard_64_24SSD')
PROFILES = ('v1-default', 'v1-highmem-xs', 'v1-highmem-s', 'v1-highmem-m', 'v1-highmem-l', 'v1-highmem-xl')
TAG_RE = re.compile(r'[a-zA-Z0-9._-]+')
# The fields of a ServicePostRequest and the check of each value's type (the reference's list).
_STRING, _BOOL, _INT, _LIST = (str,), (bool,), (int,), (list,)
CREATE_FIELDS = {
    'name': _STRING, 'provider': _STRING, 'region': _STRING, 'tier': _STRING, 'ipAccessList': _LIST,
    'minReplicaMemoryGb': _INT, 'maxReplicaMemoryGb': _INT, 'numReplicas': _INT, 'autoscalingMode': _STRING,
    'minReplicas': _INT, 'maxReplicas': _INT, 'idleScaling': _BOOL, 'idleTimeoutMinutes': _INT, 'releaseChannel': _STRING,
    'endpoints': _LIST, 'tags': _LIST, 'enableCoreDumps': _BOOL, 'backupId': _STRING, 'encryptionKey': _STRING,
    'encryptionAssumedRoleIdentifier': _STRING, 'hasTransparentDataEncryption': _BOOL, 'complianceType': _STRING,
    'profile': _STRING, 'byocId': _STRING, 'dataWarehouseId': _STRING, 'isReadonly': _BOOL,
    'minTotalMemoryGb': _INT, 'maxTotalMemoryGb': _INT, 'privateEndpointIds': _LIST,
}
PASSWORD_FIELDS = ('newPasswordHash', 'newDoubleSha1Hash')
HEX40 = re.compile(r'[0-9a-fA-F]{40}')


def _check_name(store, tenant, name, own_id=None):
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise bad_request('request body.name', 'must be 1 to 50 letters, digits, spaces or hyphens, '
                                               'starting and ending with a letter or digit')
    if store.config['unique_service_names'] and any(other['name'] == name and other['id'] != own_id
                                                    for other in services_of(store, tenant)):
        raise ApiError(409, 'A service named %s already exists in the organization' % name)


def _organization_paid(store, tenant):
    paid = store.config['organization_paid']
    return tenant.paid if paid is None else paid


def _check_create(store, tenant, body):
    """Every field of a ServicePostRequest, strictly: unknown fields, types, enums and the rules of the reference."""
    for key, value in body.items():
        if key not in CREATE_FIELDS:
            raise bad_request('request body.' + key, 'is not a field of a service creation request')
        if isinstance(value, bool) and CREATE_FIELDS[key] == _INT or not isinstance(value, CREATE_FIELDS[key]):
            raise bad_request('request body.' + key, 'must be of type %s' % CREATE_FIELDS[key][0].__name__)
    for key in ('name', 'provider', 'region'):
        if key not in body:
            raise bad_request('request body.' + key, 'is required')
    if 'privateEndpointIds' in body:
        raise bad_request('request body.privateEndpointIds', 'is deprecated at creation: set it with the update operation')
    _check_name(store, tenant, body['name'])
    _one_of(body, 'provider', tuple(REGIONS))
    if body['region'] not in REGIONS[body['provider']]:
        raise bad_request('request body.region', '%s is not a region of provider %s (one of: %s)'
                          % (body['region'], body['provider'], ', '.join(REGIONS[body['provider']])))
    _one_of(body, 'tier', TIERS)
    _one_of(body, 'autoscalingMode', ('vertical', 'horizontal'))
    _one_of(body, 'releaseChannel', ('slow', 'default', 'fast'))
    _one_of(body, 'complianceType', ('hipaa', 'pci'))
    _one_of(body, 'profile', PROFILES)
    _check_create_scaling(_organization_paid(store, tenant), body)
    if 'releaseChannel' in body and body.get('tier', 'production') != 'production':
        raise bad_request('request body.releaseChannel', 'available only for production services')
    for index, entry in enumerate(body.get('ipAccessList', [])):
        field = 'request body.ipAccessList[%d]' % index
        if not isinstance(entry, dict) or set(entry) - {'source', 'description'}:
            raise bad_request(field, 'must be an object with source and description')
        _ip_source(entry, field)
    _patch_endpoints({'endpoints': []}, body.get('endpoints', []))
    for index, change in enumerate(body.get('endpoints', [])):
        if change.get('protocol') != 'mysql' or not isinstance(change.get('enabled'), bool) or set(change) - {'protocol', 'enabled'}:
            raise bad_request('request body.endpoints[%d]' % index, 'must be {protocol: mysql, enabled: true or false}')
    _check_create_tags(body.get('tags', []))
    if body.get('isReadonly') and not body.get('dataWarehouseId'):
        raise bad_request('request body.isReadonly', 'a read-only service must name its data warehouse (dataWarehouseId)')
    warehouses = set(service['dataWarehouseId'] for service in services_of(store, tenant))
    if 'dataWarehouseId' in body and body['dataWarehouseId'] not in warehouses:
        raise bad_request('request body.dataWarehouseId', 'no data warehouse %s in the organization' % body['dataWarehouseId'])
    if 'backupId' in body and not UUID_RE.fullmatch(body['backupId']):
        raise bad_request('request body.backupId', 'must be a valid UUID')


def _one_of(body, key, choices):
    if key in body and body[key] not in choices:
        raise bad_request('request body.' + key, 'must be one of: %s' % ', '.join(choices))


def _check_create_scaling(paid, body):
    top = 356 if paid else 120
    for key in ('minReplicaMemoryGb', 'maxReplicaMemoryGb'):
        value = body.get(key)
        if value is not None and (value % 4 or not 8 <= value <= top):
            raise bad_request('request body.' + key, 'must be a multiple of 4 between 8 and %d' % top)
    if body.get('maxReplicaMemoryGb', 356) < body.get('minReplicaMemoryGb', 8):
        raise bad_request('request body.maxReplicaMemoryGb', 'must be greater than or equal to minReplicaMemoryGb')
    horizontal = body.get('autoscalingMode') == 'horizontal'
    band = [key for key in ('minReplicas', 'maxReplicas') if key in body]
    if 'numReplicas' in body and band:
        raise bad_request('request body.numReplicas', 'numReplicas and minReplicas/maxReplicas are mutually exclusive')
    if band and not horizontal:
        raise bad_request('request body.' + band[0], 'only for autoscalingMode horizontal')
    if horizontal:
        for key in ('minReplicas', 'maxReplicas'):
            if key not in body:
                raise bad_request('request body.' + key, 'is required for autoscalingMode horizontal')
        if body.get('minReplicaMemoryGb', 0) != body.get('maxReplicaMemoryGb', 0):
            raise bad_request('request body.maxReplicaMemoryGb', 'must equal minReplicaMemoryGb for autoscalingMode horizontal '
                                                                 '(the memory of a replica is fixed)')
        for key in VERTICAL_ONLY:
            if key in body:
                raise bad_request('request body.' + key, 'not available with autoscalingMode horizontal')
    for key in ('numReplicas', 'minReplicas', 'maxReplicas'):
        if key in body and not REPLICAS[0] <= body[key] <= REPLICAS[1]:
            raise bad_request('request body.' + key, 'must be between 1 and 20')
    if body.get('maxReplicas', 20) < body.get('minReplicas', 1):
        raise bad_request('request body.maxReplicas', 'must be greater than or equal to minReplicas')
    if 'dataWarehouseId' not in body and body.get('numReplicas', 3) < 2:
        raise bad_request('request body.numReplicas', 'must be between 2 and 20 for the first service of a warehouse')
    if body.get('idleTimeoutMinutes', 5) < 5:
        raise bad_request('request body.idleTimeoutMinutes', 'must be at least 5')
    for key in ('minTotalMemoryGb', 'maxTotalMemoryGb'):
        value = body.get(key)
        if value is not None and (value % 12 or not 24 <= value <= (1068 if paid else 360)):
            raise bad_request('request body.' + key, 'must be a multiple of 12 between 24 and %d' % (1068 if paid else 360))
        if value is not None and body.get('tier', 'production') != 'production':
            raise bad_request('request body.' + key, 'available only for production services')


REPLICAS = (1, 20)


def _check_create_tags(tags):
    keys = set()
    if len(tags) > TAGS_MAX:
        raise bad_request('request body.tags', 'at most %d tags' % TAGS_MAX)
    for index, tag in enumerate(tags):
        field = 'request body.tags[%d]' % index
        if not isinstance(tag, dict) or 'key' not in tag or set(tag) - {'key', 'value'}:
            raise bad_request(field, 'must be an object with key and an optional value')
        if not isinstance(tag['key'], str) or not TAG_RE.fullmatch(tag['key']) or len(tag['key']) > 128:
            raise bad_request(field + '.key', 'must be 1 to 128 letters, digits, dots, underscores or hyphens')
        if 'value' in tag and (not isinstance(tag['value'], str) or not TAG_RE.fullmatch(tag['value']) or len(tag['value']) > 256):
            raise bad_request(field + '.value', 'must be 1 to 256 letters, digits, dots, underscores or hyphens')
        if tag['key'] in keys:
            raise bad_request(field + '.key', 'duplicate tag %s' % tag['key'])
        keys.add(tag['key'])


def password_hashes(password):
    """(base64(SHA-256), hex(SHA-1(SHA-1))) of a password: what the password endpoint takes."""
    data = password.encode('utf-8')
    return (base64.b64encode(hashlib.sha256(data).digest()).decode('ascii'),
            hashlib.sha1(hashlib.sha1(data).digest()).hexdigest())


def _new_password(service):
    password = secrets.token_urlsafe(18)
    _remember_password(service, *password_hashes(password))
    return password


def _remember_password(service, password_hash, double_sha1_hash):
    # GET /_admin/state shows them, so tests can prove what was set (the password itself is never kept)
    service['sim'].update(passwordHash=password_hash, doubleSha1Hash=double_sha1_hash)


def new_service_id():
    """A new service's id (unit tests replace it to know the paths in advance)."""
    return str(uuid.uuid4())


def create_service(store, _service, params, body):
    """POST services: a new service, started asynchronously; the answer holds the generated password, once."""
    tenant = params['tenant']
    _check_create(store, tenant, body)
    service_id = new_service_id()
    horizontal = body.get('autoscalingMode') == 'horizontal'
    host = '%s-%s.%s.%s.engine.cloud' % (re.sub(r'[^a-z0-9]+', '-', body['name'].lower()), service_id[:6], body['region'],
                                         body['provider'])
    mysql = any(change['enabled'] for change in body.get('endpoints', []))
    tier = body.get('tier', 'production')
    memory = (body.get('minReplicaMemoryGb', 8), body.get('maxReplicaMemoryGb', 8 if horizontal else 120))
    warehouse = body.get('dataWarehouseId')
    available = sorted(set(endpoint for other in services_of(store, tenant) if (other['provider'], other['region'])
                           == (body['provider'], body['region']) for endpoint in other['availablePrivateEndpointIds']))
    service = {
        'id': service_id, 'name': body['name'], 'provider': body['provider'], 'region': body['region'], 'state': 'stopped',
        'engineVersion': '25.8.1.5101',
        'endpoints': [{'protocol': 'https', 'host': host, 'port': 8443, 'username': 'default', 'enabled': True},
                      {'protocol': 'nativesecure', 'host': host, 'port': 9440, 'username': 'default', 'enabled': True},
                      {'protocol': 'mysql', 'host': host, 'port': 3306, 'username': 'mysql4' + service_id[:8], 'enabled': mysql}],
        'tier': tier, 'minReplicaMemoryGb': memory[0], 'maxReplicaMemoryGb': memory[1],
        'autoscalingMode': 'horizontal' if horizontal else 'vertical',
        'idleScaling': body.get('idleScaling', True), 'idleTimeoutMinutes': body.get('idleTimeoutMinutes', 15),
        'ipAccessList': [{'source': entry['source'], 'description': entry.get('description', '')}
                         for entry in body.get('ipAccessList', [])],
        'createdAt': store.now_iso(), 'privateEndpointIds': [], 'availablePrivateEndpointIds': available,
        'dataWarehouseId': warehouse or 'dw-' + service_id[-12:], 'isPrimary': warehouse is None,
        'isReadonly': body.get('isReadonly', False), 'byocId': body.get('byocId', ''),
        'hasTransparentDataEncryption': body.get('hasTransparentDataEncryption', False),
        'profile': body.get('profile', 'v1-default'), 'tags': [dict(tag) for tag in body.get('tags', [])],
        'enableCoreDumps': body.get('enableCoreDumps', True), 'sim': {'paid': _organization_paid(store, tenant)},
    }
    if tenant is not store.primary:
        service['sim']['organizationId'] = tenant.organization
    for key in ('encryptionKey', 'encryptionAssumedRoleIdentifier', 'complianceType'):
        if key in body:
            service[key] = body[key]
    if tier == 'production':
        service['releaseChannel'] = body.get('releaseChannel', 'default')
    if horizontal:
        service.update(minReplicas=body['minReplicas'], maxReplicas=body['maxReplicas'], replicaMemoryGb=memory[0])
        band = (body['minReplicas'], body['maxReplicas'])
    else:
        service['numReplicas'] = body.get('numReplicas', 3)
        band = (service['numReplicas'],) * 2
        if tier == 'production':
            service.update(minTotalMemoryGb=body.get('minTotalMemoryGb', memory[0] * 3),
                           maxTotalMemoryGb=body.get('maxTotalMemoryGb', memory[1] * 3))
    service['currentScaling'] = {
        'effectiveAutoscalingMode': service['autoscalingMode'], 'effectiveMinReplicaMemoryGb': memory[0],
        'effectiveMaxReplicaMemoryGb': memory[1], 'effectiveMinReplicas': band[0], 'effectiveMaxReplicas': band[1],
        'effectiveIdleScaling': service['idleScaling'], 'effectiveIdleTimeoutMinutes': service['idleTimeoutMinutes']}
    password = _new_password(service)
    store.add_created('services', service)
    store.begin_transition(service, store.config['create_state'], 'running')
    return {'service': render_service(store, service), 'password': password}


def delete_service(store, service, _params, _body):
    """DELETE S: only a stopped service (and a failed one with failed_service_delete: accepted, which the reference
    leaves open: a failed service takes no stop); reads then show it going away as the config deleted_reads says."""
    deletable = ('stopped', 'failed') if store.config['failed_service_delete'] == 'accepted' else ('stopped',)
    if service['state'] not in deletable:
        raise ApiError(store.config['delete_refusal'], 'Service %s must be stopped to be deleted. Current state: %s'
                       % (service['id'], service['state']))
    ending = store.config['deleted_reads']
    if ending == 'gone':
        service['sim']['vanish'] = True
    store.begin_transition(service, 'softdeleting' if ending == 'softdeleted' else 'terminating',
                           'terminated' if ending == 'gone' else ending)
    return NO_RESULT


def patch_password(store, service, _params, body):
    """PATCH S/password: set the hashes (the password itself never comes), or without newPasswordHash a new one."""
    for key in body:
        if key not in PASSWORD_FIELDS:
            raise bad_request('request body.' + key, 'is not a field of a password request (%s)' % ', '.join(PASSWORD_FIELDS))
        if not isinstance(body[key], str):
            raise bad_request('request body.' + key, 'must be a string')
    if service['state'] in SERVICE_TERMINAL:
        raise ApiError(409, 'Service %s is %s' % (service['id'], service['state']))
    if 'newPasswordHash' not in body:
        return {'password': _new_password(service)}  # a double-SHA-1 hash alone is ignored
    try:
        digest = base64.b64decode(body['newPasswordHash'], validate=True)
    except (binascii.Error, ValueError):
        digest = b''
    if len(digest) != 32:
        raise bad_request('request body.newPasswordHash', 'must be the base64 of a SHA-256 digest (32 bytes)')
    double = body.get('newDoubleSha1Hash')
    if double is not None and not HEX40.fullmatch(double):
        raise bad_request('request body.newDoubleSha1Hash', 'must be the hex of a SHA-1 digest (40 hex digits)')
    _remember_password(service, body['newPasswordHash'], double)
    return {}


# Pipe operations ---------------------------------------------------------------------------------

def _pipe(store, service, params, read=False):
    pipe = _lookup(store.pipes, params['pipeId'], 'Pipe')
    if pipe['serviceId'] != service['id'] or not _still_shown(store, pipe, read):
        raise ApiError(404, 'Pipe %s not found' % params['pipeId'])
    return store.settle(pipe)


def _still_shown(store, pipe, read):
    """A deleted pipe stays for the configured number of API reads (deleted_pipe_reads), then is gone;
    anything but a read finds it gone at once."""
    sim = pipe.get('sim') or {}
    if 'deleted_reads' not in sim:
        return True
    if read and sim['deleted_reads'] > 0:
        sim['deleted_reads'] -= 1
        return True
    if sim['deleted_reads'] <= 0:
        store.pipes.pop(pipe['id'], None)
    return False


def _refuse_pipe_call_unless_running(store, service, method, template):
    """424 for a pipe call the service's state refuses: a create or update unless it runs (reference);
    for an idle service also every other pipe write, or (idle_pipe_refusals: all) every pipe call."""
    if not template.startswith(S + '/pipes/') and template != S + '/pipes':
        return
    state = store.settle(service)['state']
    if state == 'running':
        return
    creates = (template, method) == (S + '/pipes', 'POST')
    if creates or (template, method) == (PIPE, 'PATCH'):
        what = 'Pipe creation' if creates else 'Pipe update'
    elif state == 'idle' and (method != 'GET' or store.config['idle_pipe_refusals'] == 'all'):
        what = 'This pipe operation'
    else:
        return
    raise ApiError(424, '%s is allowed only when the service is running. Current state: %s' % (what, state))


def source_kind(pipe):
    """kafka, objectStorage, stream or postgres."""
    return next(kind for kind, source in pipe['source'].items() if source is not None)


def get_pipe(store, service, params, _body):
    """GET pipe."""
    pipe = _pipe(store, service, params, read=True)
    view = render_pipe(store, pipe)
    store.count_read(pipe)
    return view


def patch_pipe_state(store, service, params, body):
    """PATCH pipe/state: start, stop or resync. With the config switch stale_pipe_answers, the answer
    shows the pipe as it was before the command (the reference leaves this open); later reads show the change."""
    pipe = _pipe(store, service, params)
    command, kind = body.get('command'), source_kind(pipe)
    if command is None:
        raise bad_request('request body.command', 'is required')
    before = render_pipe(store, pipe)
    if command == 'stop':
        store.begin_transition(pipe, *(('Pausing', 'Paused') if kind == 'postgres' else ('Stopping', 'Stopped')))
    elif command == 'start':
        if pipe['state'] not in PIPE_STARTABLE:
            raise ApiError(400, 'Pipe %s is already running (state: %s)' % (pipe['name'], pipe['state']))
        store.begin_transition(pipe, 'Provisioning', 'Running')
    else:
        if kind != 'postgres':
            raise ApiError(400, 'resync is supported only for postgres pipes, not for %s pipes' % kind)
        store.begin_transition(pipe, 'Resync', 'Running', store.config['resync_delay'])
        sim = pipe.setdefault('sim', {})
        sim['resyncs'] = sim.get('resyncs', 0) + 1  # GET /_admin/state shows how many resyncs were started
    return before if store.config['stale_pipe_answers'] else render_pipe(store, pipe)


def list_pipes(store, service, _params, _body):
    """GET pipes: the service's pipes."""
    return [render_pipe(store, pipe) for pipe in list(store.pipes.values())
            if pipe['serviceId'] == service['id'] and _still_shown(store, pipe, True)]


def create_pipe(store, service, _params, body):
    """POST pipes: validated per source kind; the answer shows the configured first state
    (pipe_create_state), later reads the state it settles in (Failed with pipe_create_fails). With
    slow_pipe_create the pipe is created and the answer is a gateway's 504."""
    pipe_rules.check(PIPE_SCHEMAS.create, body, bad_request)
    kind = pipe_rules.kind_of(body)
    problem = pipe_rules.destination_errors(kind, body)
    if problem:
        raise bad_request(*problem)
    if store.config['unique_pipe_names'] and any(
            p['serviceId'] == service['id'] and p['name'] == body['name'] for p in store.pipes.values()):
        raise ApiError(409, 'A pipe named %s already exists' % body['name'])
    pipe = pipe_rules.new_pipe(store, service, body, SETTING_DEFAULTS)
    store.add_created('pipes', pipe)
    final = 'Failed' if store.config['pipe_create_fails'] else pipe_rules.settled_state(kind, body['source'][kind])
    store.begin_transition(pipe, store.config['pipe_create_state'], final)
    if store.config['slow_pipe_create']:
        raise ApiError(504, 'The gateway timed out waiting for the upstream service')
    return render_pipe(store, pipe)


def patch_pipe(store, service, params, body):
    """PATCH pipe: only the changeable fields (the schema refuses the others, naming them). A postgres
    pipe's table mappings change only while it is Paused, one source table is never removed and added in
    one request, and the API resumes the pipe after such an edit."""
    pipe = _pipe(store, service, params)
    pipe_rules.check(PIPE_SCHEMAS.update, body, bad_request)
    kind = source_kind(pipe)
    draft = copy.deepcopy(pipe)
    if 'source' in body:
        sent_kind = pipe_rules.kind_of(body)
        if sent_kind != kind:
            raise bad_request('request body.source.' + sent_kind, 'the source kind is %s and cannot change' % kind)
        resumes = _patch_pipe_source(draft, kind, dict(body['source'][kind]))
    else:
        resumes = False
    if 'fieldMappings' in body:
        if kind == 'postgres':
            raise bad_request('request body.fieldMappings', 'a postgres pipe takes no field mappings')
        draft['fieldMappings'] = body['fieldMappings']
    if 'destination' in body:
        if kind == 'postgres':
            raise bad_request('request body.destination.columns', 'a postgres pipe has no destination columns')
        draft['destination'].update(copy.deepcopy(body['destination']))
    if 'name' in body:
        draft['name'] = body['name']
    if 'settings' in body:
        draft['settings'].update((key, SETTING_DEFAULTS[key] if value is None else value) for key, value in body['settings'].items())
    pipe.clear()
    pipe.update(draft)
    if resumes:
        store.begin_transition(pipe, 'Modifying', 'Running')
    else:
        store.touch(pipe)
    return render_pipe(store, pipe)


def _patch_pipe_source(pipe, kind, change):
    """Apply a source change to the draft; True when postgres table mappings changed (the pipe resumes)."""
    source, field = pipe['source'][kind], 'request body.source.%s' % kind
    adds, removes = change.pop('tableMappingsToAdd', None), change.pop('tableMappingsToRemove', None)
    change.pop('validateSamples', None)
    credentials = dict((key, change.pop(key)) for key in pipe_rules.WRITE_ONLY[kind] if key in change)
    pipe.setdefault('sim', {}).setdefault('credentials', {}).update(credentials)
    if kind == 'postgres' and (adds is not None or removes is not None):
        _edit_table_mappings(pipe, source, field, adds or [], removes or [], change, credentials)
    if 'settings' in change:
        source['settings'] = dict(source.get('settings') or {}, **change.pop('settings'))
    source.update(copy.deepcopy(change))
    return adds is not None or removes is not None


def _edit_table_mappings(pipe, source, field, adds, removes, change, credentials):
    if pipe['state'] != 'Paused':
        raise ApiError(400, 'Pipe %s must be paused to edit its table mappings (state: %s)' % (pipe['name'], pipe['state']))
    if not credentials and any(key in change for key in pipe_rules.POSTGRES_CONNECTION):
        key = next(key for key in pipe_rules.POSTGRES_CONNECTION if key in change)
        raise bad_request('%s.%s' % (field, key), 'connection fields sent with table mappings need the credentials too')
    removed = set(pipe_rules.mapping_key(m) for m in removes)
    mappings = list(source.get('tableMappings') or [])
    for index, mapping in enumerate(adds):
        if pipe_rules.mapping_key(mapping) in removed:
            raise bad_request('%s.tableMappingsToAdd[%d]' % (field, index), 'table %s.%s cannot be removed and added in one '
                              'request: remove it first, then add it in another request' % pipe_rules.mapping_key(mapping))
    keys = [pipe_rules.mapping_key(m) for m in mappings]
    for index, mapping in enumerate(removes):
        if pipe_rules.mapping_key(mapping) not in keys:
            raise bad_request('%s.tableMappingsToRemove[%d]' % (field, index), 'table %s.%s is not replicated by this pipe'
                              % pipe_rules.mapping_key(mapping))
    mappings = [m for m in mappings if pipe_rules.mapping_key(m) not in removed]
    for index, mapping in enumerate(adds):
        if pipe_rules.mapping_key(mapping) in [pipe_rules.mapping_key(m) for m in mappings]:
            raise bad_request('%s.tableMappingsToAdd[%d]' % (field, index), 'table %s.%s is already replicated'
                              % pipe_rules.mapping_key(mapping))
        mappings.append(copy.deepcopy(mapping))
    source['tableMappings'] = mappings


def patch_pipe_scaling(store, service, params, body):
    """PATCH pipe/scaling: kafka, stream and objectStorage pipes; the answer is the pipe."""
    pipe = _pipe(store, service, params)
    pipe_rules.check(PIPE_SCHEMAS.scaling, body, bad_request)
    if source_kind(pipe) == 'postgres':
        raise bad_request('request body', 'postgres pipes scale at the service level (pipesCdcScaling)')
    pipe['scaling'].update(body)
    store.touch(pipe)
    return render_pipe(store, pipe)


def delete_pipe(store, service, params, _body):
    """DELETE pipe: no result. With deleted_pipe_reads, reads still show it that many times."""
    pipe = _pipe(store, service, params)
    lingering = store.config['deleted_pipe_reads']
    if lingering:
        pipe.setdefault('sim', {})['deleted_reads'] = lingering
    else:
        del store.pipes[pipe['id']]
    return NO_RESULT


def get_pipe_settings(store, service, params, _body):
    """GET pipe/settings."""
    return dict(_pipe(store, service, params)['settings'])


def put_pipe_settings(store, service, params, body):
    """PUT pipe/settings: keys left out keep their value, null goes back to the default."""
    pipe = _pipe(store, service, params)
    for key, value in body.items():
        pipe['settings'][key] = SETTING_DEFAULTS[key] if value is None else value
    store.touch(pipe)
    return dict(pipe['settings'])


def get_reverse_private_endpoint(store, service, params, _body):
    """GET pipesReversePrivateEndpoints/{id}."""
    endpoint = _lookup(store.endpoints, params['reversePrivateEndpointId'], 'Reverse private endpoint')
    if endpoint['serviceId'] != service['id']:
        raise ApiError(404, 'Reverse private endpoint %s not found' % params['reversePrivateEndpointId'])
    return render_reverse_private_endpoint(endpoint)


def list_reverse_private_endpoints(store, service, _params, _body):
    """GET pipesReversePrivateEndpoints: the service's reverse private endpoints."""
    return [render_reverse_private_endpoint(endpoint) for endpoint in store.endpoints.values()
            if endpoint['serviceId'] == service['id']]


ROUTE_TABLE = {
    SERVICES: {'GET': list_services, 'POST': create_service},
    S: {'GET': get_service, 'PATCH': patch_service, 'DELETE': delete_service},
    S + '/password': {'PATCH': patch_password},
    S + '/scaling': {'PATCH': patch_scaling},
    S + '/state': {'PATCH': patch_service_state},
    S + '/pipes': {'GET': list_pipes, 'POST': create_pipe},
    PIPE: {'GET': get_pipe, 'PATCH': patch_pipe, 'DELETE': delete_pipe},
    PIPE + '/scaling': {'PATCH': patch_pipe_scaling},
    PIPE + '/state': {'PATCH': patch_pipe_state},
    PIPE + '/settings': {'GET': get_pipe_settings, 'PUT': put_pipe_settings},
    S + '/pipesReversePrivateEndpoints': {'GET': list_reverse_private_endpoints},
    RPE: {'GET': get_reverse_private_endpoint},
}
ROUTE_REGEXES = {template: re.compile(re.sub(r'\\{(\w+)\\}', r'(?P<\1>[^/]+)', re.escape(template))) for template in ROUTE_TABLE}
ROUTES = {(template, method.lower()): func for template, methods in ROUTE_TABLE.items() for method, func in methods.items()}
