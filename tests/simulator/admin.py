"""The admin interface under /_admin: reset, config, request log, faults, state, seed, direct edits."""

import json
import re

from . import seed, server
from .state import (ALERT_STATES, POSTGRES_PIPE_STATES, SERVICE_STATES, STREAMING_PIPE_STATES, TLS_FAULT_KINDS, ConfigError,
                    validate_fault)

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
    if (method, path) == ('POST', '/_admin/seed'):
        return ok(200, {'seeded': seed.seed(store, body if body is not None else {})})
    match = re.fullmatch(r'/_admin/(services|pipes)/([^/]+)', path)
    if match and method == 'PATCH':
        return _edit(store, getattr(store, _EDITABLE[match.group(1)]), match.group(2), body)
    match = re.fullmatch(r'/_admin/(dashboards|alerts)/([^/]+)', path)
    if match and method == 'PATCH':
        return _edit_observability(store, match.group(1), match.group(2), body)
    return server.Response.json(404, {'error': 'no admin route %s %s' % (method, path)})


def _faults(store, method, body):
    with store.lock:
        if method == 'POST':
            fault = validate_fault(body)
            if fault['kind'] in TLS_FAULT_KINDS and not store.https:
                raise ConfigError('a %s fault needs the simulator in HTTPS mode (--tls-cert and --tls-key)' % fault['kind'])
            store.faults.append(fault)
        elif method == 'DELETE':
            store.faults.clear()
        return server.Response.json(200, {'faults': [{k: v for k, v in f.items() if k != 'regex'} for f in store.faults]})


def _edit(store, objects, object_id, changes):
    """Set fields of a service or pipe. A ``state`` must be one of the reference's states for that object;
    ``then: {"state": S, "after": seconds}`` turns the edit into a transition that ends in S after that time,
    ``then: {"state": S, "reads": n}`` into one that ends once n API reads (GET) have shown the object
    (without ``then``, setting ``state`` cancels a running transition)."""
    if not isinstance(changes, dict):
        raise ConfigError('body must be a JSON object')
    if 'id' in changes:
        raise ConfigError('id cannot be changed')
    with store.lock:
        if object_id not in objects:
            return server.Response.json(404, {'error': 'no such object %s' % object_id})
        obj = objects[object_id]
        changes = dict(changes)
        then = changes.pop('then', None)
        if then is not None:
            _check_then(then, changes)
        allowed = _states_of(obj)
        for key, state in (('state', changes.get('state')), ('then.state', (then or {}).get('state'))):
            if state is not None and state not in allowed:
                raise ConfigError('%s must be one of: %s' % (key, ', '.join(allowed)))
        if 'state' in changes:
            obj.pop('_pending', None)  # a direct state edit cancels a running transition
        obj.update(changes)
        if then is not None and 'reads' in then:
            store.begin_counted_transition(obj, changes['state'], then['state'], then['reads'])
        elif then is not None:
            store.begin_transition(obj, changes['state'], then['state'], then['after'])
        return server.Response.json(200, obj)


def _edit_observability(store, kind, object_id, changes):
    """Set fields of a dashboard or alert as stored (no API validation: for what only the server sets, such as
    an alert's ``state``, ``silenced`` or ``executionErrors``, or a tile no API body could carry)."""
    if not isinstance(changes, dict):
        raise ConfigError('body must be a JSON object')
    if 'id' in changes:
        raise ConfigError('id cannot be changed')
    if kind == 'alerts' and 'state' in changes and changes['state'] not in ALERT_STATES:
        raise ConfigError('state must be one of: ' + ', '.join(ALERT_STATES))
    with store.lock:
        objects = store.dashboards if kind == 'dashboards' else {alert['id']: alert for alert in store.alerts}
        if object_id not in objects:
            return server.Response.json(404, {'error': 'no such object %s' % object_id})
        objects[object_id].update(changes)
        return server.Response.json(200, objects[object_id])


def _states_of(obj):
    if 'source' not in obj:
        return SERVICE_STATES
    return POSTGRES_PIPE_STATES if (obj['source'] or {}).get('postgres') else STREAMING_PIPE_STATES


def _check_then(then, changes):
    if not isinstance(then, dict) or set(then) not in ({'state', 'after'}, {'state', 'reads'}):
        raise ConfigError('then must be an object with state and either after or reads')
    if 'state' not in changes:
        raise ConfigError('then needs a state to start from')
    if 'reads' in then:
        reads = then['reads']
        if isinstance(reads, bool) or not isinstance(reads, int) or not 1 <= reads <= 100:
            raise ConfigError('then.reads must be a number of API reads between 1 and 100')
        return
    after = then['after']
    if isinstance(after, bool) or not isinstance(after, (int, float)) or not 0 <= after <= 3600:
        raise ConfigError('then.after must be a number of seconds between 0 and 3600')
