"""Every write body one change away from a valid one is answered with 200 or a 4xx, never a server error:
each value of a read (dashboard or alert) replaced by a value of another type, or left out, then sent back.
Runs in process (server.dispatch on a Store), as the unit tests do."""

import json

import pytest

from . import server
from .fixture_ids import ALERT_BETWEEN, ALERT_SAVED_SEARCH, DASHBOARD_GALLERY, DASHBOARD_HEALTH, TOKEN
from .state import Store

REPLACEMENTS = (None, -1.5, '', [], {}, True)  # one value of every JSON type, each out of range where it could be


def answer(store, method, path, body=None):
    headers = {'Authorization': 'Bearer ' + TOKEN, 'Content-Type': 'application/json'}
    response = server.dispatch(store, server.Request(method, path, headers, json.dumps(body).encode() if body is not None else b''))
    return response.status, json.loads(response.body)


def paths(value, prefix=()):
    """Every path into a JSON value, the value itself first."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from paths(item, prefix + (key,))


def changed(value, path, replacement):
    """A copy of value with the item at path replaced (or, with replacement None and a dict parent, left out)."""
    value = json.loads(json.dumps(value))  # a copy of a JSON value: three times faster than a deep copy
    parent = value
    for key in path[:-1]:
        parent = parent[key]
    if replacement is LEFT_OUT:
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return value


LEFT_OUT = object()


def read(store, path, **renames):
    data = answer(store, 'GET', path)[1]['data']
    for old, new in renames.items():
        if old in data:
            data[new] = data.pop(old)
    return data


CASES = [('dashboards', DASHBOARD_GALLERY, form) for form in ('as_sent', 'series', 'config')] + [
    ('dashboards', DASHBOARD_HEALTH, 'as_sent'), ('alerts', ALERT_BETWEEN, 'as_sent'), ('alerts', ALERT_SAVED_SEARCH, 'as_sent')]


@pytest.mark.parametrize('kind, object_id, form', CASES)
def test_no_body_one_change_away_from_a_read_is_a_server_error(kind, object_id, form):
    store = Store(defaults={'dashboard_read_form': form})
    path = '/api/v2/%s/%s' % (kind, object_id)
    valid = read(store, path, dashboard='dashboardId')
    errors = []
    for where in list(paths(valid))[1:]:
        for replacement in REPLACEMENTS + (LEFT_OUT,):
            body = changed(valid, where, replacement)
            for method, target in (('PUT', path), ('POST', '/api/v2/' + kind)):
                status, reply = answer(store, method, target, body)
                if status >= 500:
                    errors.append((method, where, replacement, reply))
                if status == 200:
                    store.reset()  # back to the read the next body is built from
                elif kind == 'dashboards':
                    break  # a dashboard's create checks a body with its update's validate(): refused alike
    assert not errors, errors[:5]
