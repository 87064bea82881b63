"""Every management-API response the simulator serves validates against the OpenAPI document.

The check is independent of the simulator's own schema code: it reads the document itself and
treats every object schema as closed, so a field the document does not know fails too.
"""

import json
import os
import uuid

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .conftest import Reply
from .fixture_ids import (ORGANIZATION, PIPE_DEV, PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_POSTGRES, PIPE_STREAM, RPE, SERVICE_DEV,
                          SERVICE_HORIZONTAL, SERVICE_IDLE, SERVICE_PROD, pipe_path, service_path)

DOCUMENT_PATH = os.path.join(os.path.dirname(__file__), 'cloud-api.openapi.json')
TEMPLATE = '/v1/organizations/{organizationId}/services/{serviceId}'


def closed(node):
    """Every schema with properties becomes a closed object."""
    if isinstance(node, list):
        return [closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {key: closed(value) for key, value in node.items()}
    if isinstance(result.get('$ref'), str):
        result['$ref'] = 'urn:doc' + result['$ref']
    if isinstance(node.get('properties'), dict):
        result.setdefault('type', 'object')
        result.setdefault('additionalProperties', False)
    return result


@pytest.fixture(scope='module')
def document():
    """The OpenAPI document, closed, with a registry for its $refs."""
    with open(DOCUMENT_PATH, encoding='utf-8') as handle:
        doc = closed(json.load(handle))
    return doc, Registry().with_resource('urn:doc', Resource(doc, DRAFT202012))


def response_schema(document, template, method, status='200'):
    """The schema of an operation's response."""
    return document[0]['paths'][template][method]['responses'][status]['content']['application/json']['schema']


def validate(document, template, method, reply, status='200', schema=None):
    """Validate a reply against the response schema of an operation (or against schema)."""
    schema = schema or response_schema(document, template, method, status)
    validator = jsonschema.Draft202012Validator(schema, registry=document[1], format_checker=jsonschema.FormatChecker())
    errors = [error.message for error in validator.iter_errors(reply.json())]
    assert not errors, errors


GETS = [(TEMPLATE, service_path(service)) for service in (SERVICE_PROD, SERVICE_DEV, SERVICE_IDLE, SERVICE_HORIZONTAL)]
GETS += [(TEMPLATE + '/pipes/{pipeId}', pipe_path(pipe)) for pipe in (PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_STREAM, PIPE_POSTGRES)]
GETS += [(TEMPLATE + '/pipes/{pipeId}/settings', pipe_path(pipe, '/settings')) for pipe in (PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_STREAM, PIPE_POSTGRES)]
GETS += [(TEMPLATE + '/pipes/{pipeId}', pipe_path(PIPE_DEV, service_id=SERVICE_DEV)),
         (TEMPLATE + '/pipesReversePrivateEndpoints/{reversePrivateEndpointId}',
          service_path(SERVICE_PROD, '/pipesReversePrivateEndpoints/' + RPE))]


@pytest.mark.parametrize('template, path', GETS)
def test_get_responses_validate(sim, document, template, path):
    reply = sim.cloud('GET', path)
    assert reply.status == 200
    validate(document, template, 'get', reply)


@pytest.mark.parametrize('suffix, body', [
    ('', {'name': 'prod analytics', 'endpoints': [{'protocol': 'mysql', 'enabled': True}]}),
    ('/scaling', {'numReplicas': 4, 'maxTotalMemoryGb': 720}),
    ('/state', {'command': 'stop'}),
])
def test_service_write_responses_validate(sim, document, suffix, body):
    reply = sim.cloud('PATCH', service_path(SERVICE_PROD, suffix), body)
    assert reply.status == 200
    validate(document, TEMPLATE + suffix, 'patch', reply)


def test_pipe_write_responses_validate(sim, document):
    validate(document, TEMPLATE + '/pipes/{pipeId}/state', 'patch', sim.cloud('PATCH', pipe_path(PIPE_POSTGRES, '/state'), {'command': 'resync'}))
    validate(document, TEMPLATE + '/pipes/{pipeId}/settings', 'put',
             sim.cloud('PUT', pipe_path(PIPE_KAFKA, '/settings'), {'engine_max_threads': None, 'object_storage_concurrency': 4}))


def test_error_responses_validate(sim, document):
    reply = sim.cloud('PATCH', service_path(SERVICE_PROD, '/scaling'), {'numReplicas': 0})
    validate(document, TEMPLATE + '/scaling', 'patch', reply, '400')


def test_the_document_catches_unknown_fields(sim, document):
    reply = sim.cloud('GET', service_path())
    reply.text = reply.text.replace('"isPrimary"', '"isPrimaryX"')
    with pytest.raises(AssertionError):
        validate(document, TEMPLATE, 'get', reply)


# The list operations are not in the document; their items are the schemas of the single reads.
LISTS = [(TEMPLATE, '/v1/organizations/%s/services' % ORGANIZATION)]
LISTS += [(TEMPLATE + '/pipes/{pipeId}', service_path(service, '/pipes')) for service in (SERVICE_PROD, SERVICE_DEV)]
LISTS += [(TEMPLATE + '/pipesReversePrivateEndpoints/{reversePrivateEndpointId}', service_path(SERVICE_PROD, '/pipesReversePrivateEndpoints'))]


@pytest.mark.parametrize('item_template, path', LISTS)
def test_list_responses_validate_item_by_item(sim, document, item_template, path):
    reply = sim.cloud('GET', path)
    assert reply.status == 200 and reply.result, reply.text
    envelope = response_schema(document, item_template, 'get')
    result = {'type': 'array', 'items': envelope['properties']['result']}
    validate(document, item_template, 'get', reply, schema=dict(envelope, properties=dict(envelope['properties'], result=result)))


def test_seeded_services_pipes_and_endpoints_validate(local, document):
    """The seeded organization (tests/simulator/seed.py), each item of its lists as its single read's schema."""
    local.admin('POST', 'seed', {'services': 4, 'pipes_per_service': 4})
    lists = [(TEMPLATE, '/v1/organizations/%s/services' % ORGANIZATION)]
    for service in local.cloud('GET', lists[0][1]).result:
        lists += [(TEMPLATE + '/pipes/{pipeId}', service_path(service['id'], '/pipes')),
                  (TEMPLATE + '/pipesReversePrivateEndpoints/{reversePrivateEndpointId}',
                   service_path(service['id'], '/pipesReversePrivateEndpoints'))]
    for template, path in lists:
        for item in local.cloud('GET', path).result:
            validate(document, template, 'get', Reply(200, {}, json.dumps({'status': 200, 'requestId': str(uuid.uuid4()), 'result': item})))
