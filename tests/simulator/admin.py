"""The admin interface under /_admin: reset, config, request log, faults, state, direct edits."""

import json
import re

from . import server
from .state import ConfigError, validate_fault

_EDITABLE = {'services': 'services', 'pipes': 'pipes'}


def handle(store, request):
    """Answer one admin request (never logged, never faulted, no auth)."""
    try:
        body = _body(request)
        return _route(store, request.method, request.path, body)
    except ConfigError as exc:
        return server.Response.json(400, {'error': str(exc)})


def _body(request):
    if not request.raw_body:
        return None
    try:
        return json.loads(request.raw_body)
    except ValueError as exc:
        raise ConfigError('body is not valid JSON: %s' % exc) from exc


def _route(store, method, path, body):
    ok = server.Response.json
    if (method, path) == ('POST', '/_admin/reset'):
        store.reset(body or {})
        return ok(200, {'config': store.config})
    if path == '/_admin/config' and method in ('GET', 'PATCH'):
        if method == 'PATCH':
            store.configure(body if body is not None else {})
        return ok(200, store.config)
    if path == '/_admin/requests' and method in ('GET', 'DELETE'):
        with store.lock:
            if method == 'DELETE':
                store.requests.clear()
            return ok(200, {'requests': list(store.requests)})
    if path == '/_admin/faults' and method in ('GET', 'POST', 'DELETE'):
        return _faults(store, method, body)
    if (method, path) == ('GET', '/_admin/state'):
        return ok(200, store.snapshot())
    match = re.fullmatch(r'/_admin/(services|pipes)/([^/]+)', path)
    if match and method == 'PATCH':
        return _edit(store, getattr(store, _EDITABLE[match.group(1)]), match.group(2), body)
    return server.Response.json(404, {'error': 'no admin route %s %s' % (method, path)})


def _faults(store, method, body):
    with store.lock:
        if method == 'POST':
            store.faults.append(validate_fault(body))
        elif method == 'DELETE':
            store.faults.clear()
        return server.Response.json(200, {'faults': [{k: v for k, v in f.items() if k != 'regex'} for f in store.faults]})


def _edit(store, objects, object_id, changes):
    if not isinstance(changes, dict):
        raise ConfigError('body must be a JSON object')
    if 'id' in changes:
        raise ConfigError('id cannot be changed')
    with store.lock:
        if object_id not in objects:
            return server.Response.json(404, {'error': 'no such object %s' % object_id})
        obj = objects[object_id]
        if 'state' in changes:
            obj.pop('_pending', None)  # a direct state edit cancels a running transition
        obj.update(changes)
        return server.Response.json(200, obj)
