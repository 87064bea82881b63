"""The simulator's mutable state: fixtures, configuration, request log, faults and rate limits.

Asynchronous state changes are computed lazily: an object in transition carries
``_pending = {"state": target, "at": epoch seconds}`` and ``settle`` applies it once that time has
passed, so no background thread is needed.
"""

import copy
import json
import math
import os
import re
import threading
import time
from collections import namedtuple
from datetime import datetime, timezone

DEFAULT_FIXTURES = os.path.join(os.path.dirname(__file__), 'fixtures.json')
RATE_LIMIT_HEADERS = ('Retry-After', 'X-RateLimit-Reset')
FAULT_KINDS = ('status', 'reset', 'malformed_json', 'html', 'delay', 'no_envelope', 'trickle', 'tls_reset', 'tls_stall')
TLS_FAULT_KINDS = ('tls_reset', 'tls_stall')  # faults of a connection's TLS handshake, before any request
TLS_STALL_SECONDS = 30  # how long a tls_stall holds a handshake without an answer, unless its delay says

# The reference's state lists. A pipe's family follows its source kind; any pipe may be Degraded.
SERVICE_STATES = ('starting', 'stopping', 'terminating', 'softdeleting', 'awaking', 'partially_running', 'provisioning',
                  'running', 'stopped', 'terminated', 'softdeleted', 'degraded', 'failed', 'idle')
STREAMING_PIPE_STATES = ('Unknown', 'Provisioning', 'Running', 'Stopping', 'Stopped', 'Completed', 'Failed', 'InternalError',
                         'Degraded')
ALERT_STATES = ('inactive', 'ALERT', 'OK', 'INSUFFICIENT_DATA', 'DISABLED', 'PENDING')  # the contract's and the live servers'
POSTGRES_PIPE_STATES = ('Provisioning', 'Setup', 'Snapshot', 'Running', 'Pausing', 'Paused', 'Modifying', 'Resync', 'Failed',
                        'Unknown', 'Degraded')


class SystemClock:
    """Real time. Tests that run the simulator in process pass a fake with the same two methods,
    so transitions, rate-limit windows and delay faults run on fake time."""

    @staticmethod
    def time():
        return time.time()

    @staticmethod
    def sleep(seconds):
        time.sleep(seconds)


class ConfigError(ValueError):
    """An admin request carried an invalid value."""


def now_iso(moment=None):
    """UTC ISO 8601 time with milliseconds and a Z suffix."""
    stamp = datetime.fromtimestamp(time.time() if moment is None else moment, tz=timezone.utc)
    return stamp.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (stamp.microsecond // 1000)


def _check_bool(key, value):
    if not isinstance(value, bool):
        raise ConfigError('%s must be a boolean' % key)
    return value


def _check_delay(key, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 3600:
        raise ConfigError('%s must be a number of seconds between 0 and 3600' % key)
    return value


def _check_count(key, value):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100000:
        raise ConfigError('%s must be an integer between 0 and 100000' % key)
    return value


def _check_optional_delay(key, value):
    return None if value is None else _check_delay(key, value)


def _check_optional_reads(key, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100):
        raise ConfigError('%s must be null or a number of reads between 1 and 100' % key)
    return value


def _check_headers(key, value):
    if not isinstance(value, list) or any(name not in RATE_LIMIT_HEADERS for name in value):
        raise ConfigError('%s must be a list drawn from %s' % (key, ', '.join(RATE_LIMIT_HEADERS)))
    return value


def _check_choice(*choices):
    def check(key, value):
        if isinstance(value, bool) or value not in choices:
            raise ConfigError('%s must be one of: %s' % (key, ', '.join(str(choice) for choice in choices)))
        return value
    return check


def _check_optional_bool(key, value):
    return None if value is None else _check_bool(key, value)


# The lifecycle of a service, where the reference says "not documented": each possibility is a switch.
LIFECYCLE_DEFAULTS = {
    'create_state': 'provisioning',     # the state in the answer to a create: provisioning or starting
    'delete_refusal': 409,              # the status that refuses a DELETE of a service that is not stopped: 400 or 409
    'deleted_reads': 'gone',            # after a DELETE, reads show terminating then: gone (404), terminated, or
                                        # softdeleting then softdeleted
    'unique_service_names': False,      # true: a create or rename to a name in use is refused (409); false: allowed
    'slow_create': 0,                   # seconds a create (service or pipe POST) runs on the server: the resource shows then
    'slow_create_answer': 'late',       # after a slow create: late (answered, to a client that may be gone), or dropped
    'organization_paid': None,          # null: the fixture organization's paid flag (memory limits of a create)
    'failed_service_delete': 'refused',  # a DELETE of a failed service (it takes no stop): refused as for any state
                                         # but stopped (delete_refusal), or accepted
}

CONFIG_CHECKS = {
    'transition_delay': _check_delay,
    'rate_limit': _check_bool,
    'alerts_paging': _check_bool,
    'alert_count': _check_count,
    'rate_limit_headers': _check_headers,
    'resync_delay': _check_optional_delay,
    'transition_reads': _check_optional_reads,
    'stale_pipe_answers': _check_bool,
    # The lifecycle of a pipe, where the reference leaves it open (tests/simulator/pipes.py).
    'pipe_create_state': _check_choice('Provisioning', 'Unknown'),
    'idle_pipe_refusals': _check_choice('writes', 'all'),
    'slow_pipe_create': _check_bool,
    'pipe_create_fails': _check_bool,
    'deleted_pipe_reads': _check_count,
    'unique_pipe_names': _check_bool,
    'create_state': _check_choice('provisioning', 'starting'),
    'delete_refusal': _check_choice(400, 409),
    'deleted_reads': _check_choice('gone', 'terminated', 'softdeleted'),
    'unique_service_names': _check_bool,
    'organization_paid': _check_optional_bool,
    'slow_create': _check_delay,
    'slow_create_answer': _check_choice('late', 'dropped'),
    'failed_service_delete': _check_choice('refused', 'accepted'),
    # Dashboards and alerts, where servers of different eras differ (tests/simulator/dashboards.py, alerts.py).
    'dashboard_read_form': _check_choice('as_sent', 'series', 'config'),
    'alert_read_form': _check_choice('contract', 'current'),
    'alert_channels': _check_bool,
    'alert_delete_missing': _check_choice(404, 200),
    'alert_version': _check_choice('2.14', '2.18', '2.21', '2.24', '2.25', '2.30', '2.36'),
    'slow_observability_create': _check_bool,
}

# Dashboards and alerts: which era of server the simulator plays.
OBSERVABILITY_DEFAULTS = {
    'dashboard_read_form': 'as_sent',   # reads show tiles as_sent (oldest), in series form (early 2026) or config form (newest)
    'alert_read_form': 'contract',      # alert reads name team/dashboard (the contract's form) or teamId/dashboardId (current)
    'alert_channels': True,             # the server knows channels (newest); false: it drops channels, keeps channel only
    'alert_delete_missing': 404,        # DELETE of a missing alert: 404 {"message": "Alert not found"} (newer) or 200 (older)
    'alert_version': '2.36',            # the alert fields the server keeps and shows (tests/simulator/alerts.py, SINCE)
    'slow_observability_create': False,  # POST /dashboards and POST /alerts are applied and answered 504 (a lost answer)
}


def validate_config(changes):
    """Return the checked config changes; raise ConfigError for unknown keys or bad values."""
    if not isinstance(changes, dict):
        raise ConfigError('body must be a JSON object')
    unknown = sorted(set(changes) - set(CONFIG_CHECKS))
    if unknown:
        raise ConfigError('unknown config key(s): ' + ', '.join(unknown))
    return {key: CONFIG_CHECKS[key](key, value) for key, value in changes.items()}


FAULT_FIELDS = ('method', 'path', 'count', 'kind', 'status', 'headers', 'body', 'delay', 'apply', 'rate')
ALWAYS_APPLIED = ('delay', 'trickle')  # the request is handled; only its answer is slow


def validate_fault(spec):
    """Return a normalised fault from an admin request body."""
    if not isinstance(spec, dict):
        raise ConfigError('body must be a JSON object')
    unknown = sorted(set(spec) - set(FAULT_FIELDS))
    if unknown:
        raise ConfigError('unknown fault field(s): ' + ', '.join(unknown))
    kind = spec.get('kind')
    if kind not in FAULT_KINDS:
        raise ConfigError('kind must be one of: ' + ', '.join(FAULT_KINDS))
    apply = _check_bool('apply', spec.get('apply', False))
    if apply and kind in ALWAYS_APPLIED + TLS_FAULT_KINDS:
        raise ConfigError('apply does not go with kind %s (%s)' % (
            kind, 'no request arrives' if kind in TLS_FAULT_KINDS else 'the request is always applied'))
    if kind in TLS_FAULT_KINDS and set(spec) & {'method', 'path', 'status', 'headers', 'body', 'rate'}:
        raise ConfigError('a %s fault takes the next connection, before any request: only count and delay apply' % kind)
    try:
        pattern = re.compile(spec.get('path') or '')
    except (re.error, TypeError) as exc:
        raise ConfigError('path must be a valid regular expression: %s' % exc) from exc
    count = spec.get('count', 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ConfigError('count must be a positive integer')
    status = spec.get('status', 200 if kind == 'no_envelope' else 503)
    if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
        raise ConfigError('status must be an HTTP status code')
    if kind == 'no_envelope' and not 200 <= status <= 299:
        raise ConfigError('a no_envelope fault answers a 2xx status')
    headers = spec.get('headers') or {}
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise ConfigError('headers must be an object of strings')
    method = spec.get('method')
    if method is not None and not isinstance(method, str):
        raise ConfigError('method must be a string')
    rate = spec.get('rate')
    if kind == 'trickle' and (isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 1 <= rate <= 1000000):
        raise ConfigError('a trickle fault needs rate: bytes per second, 1 to 1000000')
    if kind != 'trickle' and rate is not None:
        raise ConfigError('rate goes with kind trickle only')
    return {
        'method': method.upper() if method else None, 'path': pattern.pattern, 'regex': pattern, 'count': count,
        'kind': kind, 'status': status, 'headers': headers, 'body': spec.get('body'),
        'delay': _check_delay('delay', spec.get('delay', TLS_STALL_SECONDS if kind == 'tls_stall' else 0)), 'apply': apply,
        'rate': rate,
    }


ALERT_TEXTS = ('name', 'message', 'note', 'numConsecutiveWindows')  # read null when unset


def internal_alert(alert):
    """An alert (in the contract's form or the current one) in the form the store keeps: teamId and
    dashboardId, channels, every text key, a state."""
    alert = dict(alert)
    for old, new in (('team', 'teamId'), ('dashboard', 'dashboardId')):
        if old in alert:
            alert[new] = alert.pop(old)
    channel = alert.get('channel')
    usable = isinstance(channel, dict) and channel.get('type') == 'webhook' and channel.get('webhookId')
    alert.setdefault('channels', [channel] if usable else [])  # a legacy alert has no usable channel
    for key in ALERT_TEXTS:
        alert.setdefault(key, None)
    alert.setdefault('state', 'OK')
    return alert


Window = namedtuple('Window', 'allowed remaining reset')


class RateLimiter:
    """Fixed windows of ``window`` seconds per key: ``limit`` requests, then refusals until the window ends. Each
    key's window starts at its first request, or, with ``grid`` (a moment), on one grid of windows from that moment for
    every key (the observability server's: counted from its process's start). count_refused: a refused request is
    counted too (the observability API counts every request)."""

    def __init__(self, limit, window, count_refused=False, grid=None):
        self.limit, self.window, self.count_refused, self.grid = limit, window, count_refused, grid
        self.windows = {}

    def hit(self, key, moment):
        """Count a request; return a Window (allowed, remaining, seconds until the window resets)."""
        start, used = self.windows.get(key, (self._start(moment), 0))
        if moment >= start + self.window:
            start, used = self._start(moment), 0
        allowed = used < self.limit
        if allowed or self.count_refused:
            used += 1
        self.windows[key] = (start, used)
        return Window(allowed, max(self.limit - used, 0), max(1, math.ceil(start + self.window - moment)))

    def _start(self, moment):
        if self.grid is None:
            return moment
        return self.grid + (moment - self.grid) // self.window * self.window


class Tenant:
    """One organization of the management API and its observability team, as the fixtures hold them: the keys and
    tokens that reach it, and the team's chart sources, webhooks and saved searches (read only)."""

    def __init__(self, fixture):
        self.organization, self.paid = fixture['organization']['id'], fixture['organization'].get('paid', False)
        self.keys = [dict(key) for key in fixture['apiKeys']]
        self.team, self.tokens = dict(fixture['team']), list(fixture['tokens'])
        self.sources = {item['id']: item for item in fixture['sources']}
        self.webhooks, self.saved_searches = fixture['webhooks'], fixture['savedSearches']

    def webhook_ids(self):
        return {webhook['id'] for webhook in self.webhooks}


class Store:
    """Everything the simulator remembers, behind one lock."""

    def __init__(self, fixtures_path=DEFAULT_FIXTURES, defaults=None, clock=None):
        self.clock = clock or SystemClock()
        # Kept as text: a reset parses it again, three times faster than a deep copy of the parsed fixtures
        # (a Store per unit test, a reset per integration task that resets).
        with open(fixtures_path, encoding='utf-8') as handle:
            self.fixtures_text = handle.read()
        self.fixtures = json.loads(self.fixtures_text)  # read only (organization, keys, tokens)
        # The fixture's organization, then the empty one to promote into (secondOrganization), when the file has it.
        self.tenants = [Tenant(fixture) for fixture in (self.fixtures, self.fixtures.get('secondOrganization')) if fixture]
        self.defaults = {'transition_delay': 1.0, 'rate_limit': False, 'alerts_paging': True, 'alert_count': 0,
                         'rate_limit_headers': list(RATE_LIMIT_HEADERS), 'resync_delay': None, 'stale_pipe_answers': False,
                         'transition_reads': None, 'pipe_create_state': 'Provisioning', 'idle_pipe_refusals': 'writes',
                         'slow_pipe_create': False, 'pipe_create_fails': False, 'deleted_pipe_reads': 0, 'unique_pipe_names': False}
        self.defaults.update(LIFECYCLE_DEFAULTS)
        self.defaults.update(OBSERVABILITY_DEFAULTS)
        self.defaults.update(validate_config(defaults or {}))
        self.lock = threading.RLock()
        self.https = False  # the HTTP server says whether it serves HTTPS (TLS faults need it)
        self.reset()

    def reset(self, changes=None):
        """Back to the fixtures and default config, then apply ``changes``."""
        changes = validate_config(changes or {})
        with self.lock:
            data = json.loads(self.fixtures_text)
            self.config = dict(self.defaults, **changes)
            self.services = {item['id']: item for item in data['services']}
            self.pipes = {item['id']: item for item in data['pipes']}
            self.endpoints = {item['id']: item for item in data['reversePrivateEndpoints']}
            self.dashboards = {item['id']: item for item in data['dashboards']}
            self.alerts = [internal_alert(alert) for alert in data['alerts']]
            self.ids_given = 0
            self.requests = []
            self.faults = []
            self.held = []  # [(moment, 'services' or 'pipes', object)]: slow creates, shown from that moment
            self.cloud_limiter = RateLimiter(10, 10)
            # one 60 s grid for every token, from the server's start (a reset starts the server again)
            self.observability_limiter = RateLimiter(100, 60, count_refused=True, grid=self.clock.time())

    @property
    def primary(self):
        """The fixture's organization and team (objects that name no owner are theirs)."""
        return self.tenants[0]

    def tenant_of_key(self, key_id, secret):
        """The Tenant whose API key this is, or None."""
        return next((tenant for tenant in self.tenants if {'id': key_id, 'secret': secret} in tenant.keys), None)

    def tenant_of_token(self, token):
        """The Tenant whose observability token this is, or None."""
        return next((tenant for tenant in self.tenants if token in tenant.tokens), None)

    def organization_of(self, service):
        """A service's organization: sim.organizationId, or the fixture's."""
        return (service.get('sim') or {}).get('organizationId', self.primary.organization)

    def team_of(self, obj):
        """A dashboard's or alert's team: its teamId, or the fixture's."""
        return obj.get('teamId', self.primary.team['id'])

    def new_id(self):
        """A new object id (24 hex digits, ``68`` then a counter), as the server chooses them."""
        self.ids_given += 1
        return '68%022x' % self.ids_given

    def delete_alerts(self, doomed):
        """Delete every alert for which doomed(alert) is true."""
        self.alerts[:] = [alert for alert in self.alerts if not doomed(alert)]

    def configure(self, changes):
        """Validate and apply config changes."""
        with self.lock:
            self.config.update(validate_config(changes))

    def log(self, **fields):
        """Append a request to the log and return its entry (the caller fills in status and fault)."""
        with self.lock:
            entry = dict(seq=len(self.requests) + 1, **fields)
            self.requests.append(entry)
        return entry

    def take_fault(self, method, path):
        """Consume and return the first request fault that matches the request, or None."""
        return self._take(lambda fault: fault['kind'] not in TLS_FAULT_KINDS and fault['method'] in (None, method)
                          and fault['regex'].search(path))

    def take_tls_fault(self):
        """Consume and return the first TLS fault (it takes the next connection's handshake), or None."""
        return self._take(lambda fault: fault['kind'] in TLS_FAULT_KINDS)

    def _take(self, matches):
        with self.lock:
            for fault in self.faults:
                if matches(fault):
                    fault['count'] -= 1
                    if fault['count'] == 0:
                        self.faults.remove(fault)
                    return fault
        return None

    def add_created(self, objects, obj):
        """A created service or pipe (objects: 'services' or 'pipes'), shown at once, or with the config key slow_create
        once that many seconds have passed (a create that goes on after its request: its answer comes then, or never)."""
        if self.config['slow_create']:
            self.held.append((self.clock.time() + self.config['slow_create'], objects, obj))
        else:
            getattr(self, objects)[obj['id']] = obj

    def release_held(self):
        """Show the slow creates whose time has come, and all of them once slow_create is back to 0: a test tells the
        simulator to move on instead of waiting on the clock (a check that none shows yet must not race the clock)."""
        for item in [item for item in self.held if not self.config['slow_create'] or self.clock.time() >= item[0]]:
            self.held.remove(item)
            getattr(self, item[1])[item[2]['id']] = item[2]

    def begin_transition(self, obj, interim, target, delay=None):
        """Show ``interim`` now and ``target`` once ``delay`` (default: the configured one) has passed, or,
        with the config key transition_reads, once that many API reads have shown the object."""
        if self.config['transition_reads'] is not None:
            self.begin_counted_transition(obj, interim, target, self.config['transition_reads'])
        else:
            obj['state'] = interim
            obj['_pending'] = {'state': target, 'at': self.clock.time() + (self.config['transition_delay'] if delay is None else delay)}
        self.touch(obj)

    def touch(self, obj, moment=None):
        """A pipe records the time of its last change in ``updatedAt`` (a service has no such field)."""
        if 'updatedAt' in obj:
            obj['updatedAt'] = now_iso(self.clock.time() if moment is None else moment)

    def now_iso(self):
        """The store's current time as an API timestamp."""
        return now_iso(self.clock.time())

    def begin_counted_transition(self, obj, interim, target, reads):
        """Show ``interim`` to the next ``reads`` API reads of the object, ``target`` from then on (a test
        that must see a transition whatever the machine's speed)."""
        obj['state'] = interim
        obj['_pending'] = {'state': target, 'reads': reads}

    def settle(self, obj):
        """Apply a finished transition; return the object."""
        pending = obj.get('_pending')
        if pending and 'at' in pending and self.clock.time() >= pending['at']:
            self._end_transition(obj, pending['at'])
        return obj

    def count_read(self, obj):
        """An API read has shown the object: a counted transition ends after its last read."""
        pending = obj.get('_pending')
        if pending and 'reads' in pending:
            pending['reads'] -= 1
            if pending['reads'] <= 0:
                self._end_transition(obj, self.clock.time())

    def _end_transition(self, obj, moment):
        obj['state'] = obj.pop('_pending')['state']
        self.touch(obj, moment)
        if obj.get('sim', {}).get('vanish'):
            # a deleted service whose reads end in 404 (config deleted_reads: gone)
            self.services.pop(obj['id'], None)

    def snapshot(self):
        """The whole internal state, JSON-ready."""
        with self.lock:
            self.release_held()
            for obj in list(self.services.values()) + list(self.pipes.values()):
                self.settle(obj)
            return copy.deepcopy({
                'config': self.config, 'services': list(self.services.values()), 'pipes': list(self.pipes.values()),
                'reversePrivateEndpoints': list(self.endpoints.values()), 'dashboards': list(self.dashboards.values()),
                'alerts': self.alerts, 'sources': [source for tenant in self.tenants for source in tenant.sources.values()],
                'faults': [{k: v for k, v in fault.items() if k != 'regex'} for fault in self.faults],
                'requestCount': len(self.requests),
            })
