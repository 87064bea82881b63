"""Validation of management-API bodies against the copied OpenAPI document.

The document's object schemas list ``properties`` without ``type`` or ``additionalProperties``;
the simulator reads every such schema as a closed object (``type: object``,
``additionalProperties: false``), so unknown fields are rejected and ``oneOf [X, null]`` works.
"""

import json
import os

import jsonschema
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

OPENAPI_PATH = os.path.join(os.path.dirname(__file__), 'cloud-api.openapi.json')
DOC_URI = 'urn:cloud-api'


def _is_integer(_checker, value):
    # JSON Schema counts 3.0 as an integer; the live API does not.
    return isinstance(value, int) and not isinstance(value, bool)


_TYPE_CHECKER = Draft202012Validator.TYPE_CHECKER.redefine('integer', _is_integer)
StrictValidator = jsonschema.validators.extend(Draft202012Validator, type_checker=_TYPE_CHECKER)


def close_objects(node):
    """Return a copy of a schema tree where every schema with properties is a closed object."""
    if isinstance(node, list):
        return [close_objects(item) for item in node]
    if not isinstance(node, dict):
        return node
    closed = {key: close_objects(value) for key, value in node.items()}
    if isinstance(node.get('properties'), dict):
        closed.setdefault('type', 'object')
        closed.setdefault('additionalProperties', False)
    return closed


class OpenApi:
    """The OpenAPI document, closed, with a validator per operation request body."""

    def __init__(self, path=OPENAPI_PATH):
        with open(path, encoding='utf-8') as handle:
            closed = json.load(handle)
        closed['components'] = close_objects(closed['components'])
        self.registry = Registry().with_resource(DOC_URI, Resource(closed, DRAFT202012))
        self.paths = closed['paths']

    def _validator(self, schema):
        return StrictValidator(schema, registry=self.registry)

    def request_validator(self, path, method):
        """Validator for the JSON request body of an operation."""
        schema = self.paths[path][method]['requestBody']['content']['application/json']['schema']
        return self._validator(_anchor(close_objects(schema)))


def _anchor(schema):
    """Rewrite local $refs so they resolve against the registered document."""
    if isinstance(schema, list):
        return [_anchor(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {key: _anchor(value) for key, value in schema.items()}
    if isinstance(result.get('$ref'), str) and result['$ref'].startswith('#'):
        result['$ref'] = DOC_URI + result['$ref']
    return result


anchor = _anchor  # for the schemas the simulator builds from the document's parts (pipes.py)


def first_error(validator, instance):
    """Return ``(path, message)`` for the most relevant error, or None if the instance is valid."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    if error is None:
        return None
    while error.context:
        error = jsonschema.exceptions.best_match(error.context)
    return format_path(error.absolute_path), describe(error)


def format_path(parts):
    """``request body.ipAccessList.add[0].source`` from a jsonschema path."""
    text = 'request body'
    for part in parts:
        text += '[%d]' % part if isinstance(part, int) else '.' + part
    return text


_TYPE_NAMES = {'integer': 'an integer', 'number': 'a number', 'string': 'a string', 'boolean': 'a boolean',
               'object': 'an object', 'array': 'an array', 'null': 'null'}


def describe(error):
    """A short message in the live API's style for one jsonschema error."""
    schema, kind = error.schema, error.validator
    if kind == 'type':
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return 'must be ' + ' or '.join(_TYPE_NAMES[name] for name in types)
    if kind in ('minimum', 'maximum'):
        if 'minimum' in schema and 'maximum' in schema:
            return 'must be between %s and %s' % (schema['minimum'], schema['maximum'])
        return 'must be at %s %s' % ('least' if kind == 'minimum' else 'most', error.validator_value)
    if kind == 'multipleOf':
        return 'must be a multiple of %s' % error.validator_value
    if kind == 'enum':
        return 'must be one of: ' + ', '.join(str(value) for value in error.validator_value if value is not None)
    if kind == 'additionalProperties':
        unknown = sorted(set(error.instance) - set(schema.get('properties', {})))
        return 'unknown field(s): ' + ', '.join(unknown)
    if kind == 'maxLength':
        return 'must be at most %s characters long' % error.validator_value
    if kind == 'minLength':
        return 'must be at least %s characters long' % error.validator_value
    if kind == 'maxItems':
        return 'must have at most %s items' % error.validator_value
    if kind == 'uniqueItems':
        return 'must not contain duplicates'
    if kind == 'pattern':
        return 'must match %s' % error.validator_value
    return error.message
