# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every module of the collection does the same way: shared options, local checks,
one client per run, API errors as clean failures, masked results, check mode and diff."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback

from ansible.module_utils.ansible_release import __version__ as ANSIBLE_VERSION
from ansible.module_utils.basic import AnsibleModule, env_fallback, missing_required_lib

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils import pacer as pacing
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import diff as make_diff
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets, secret_values

# The collection's version has one source, galaxy.yml, which a module cannot read at run time;
# the user agent names the collection and ansible-core only.
USER_AGENT = 'engine.cloud ansible-core/%s' % ANSIBLE_VERSION

COMMON_SPEC = dict(
    validate_certs=dict(type='bool', default=True),
    api_timeout=dict(type='int', default=30),
    api_retries=dict(type='int', default=5),
    # raw: YAML reads an unquoted off as false, which also turns pacing off. The environment
    # variable of the fallback is the API's (EngineModule.rate_limit.env).
    api_rate_limit=dict(type='raw'),
)

# The connection options of each API. Each is required, but not in the argument spec: the API's
# layer checks them (missing_connection_errors), so that the message names the environment
# variable too, and an empty value (what AWX injects for an empty field) counts as missing.
CLOUD_CONNECTION = dict(
    api_url=dict(type='str', fallback=(env_fallback, ['ENGINE_CLOUD_API_URL'])),
    api_key_id=dict(type='str', no_log=False, fallback=(env_fallback, ['ENGINE_CLOUD_KEY_ID'])),
    api_key_secret=dict(type='str', no_log=True, fallback=(env_fallback, ['ENGINE_CLOUD_KEY_SECRET'])),
    organization_id=dict(type='str', fallback=(env_fallback, ['ENGINE_CLOUD_ORGANIZATION_ID'])),
)

OBSERVABILITY_CONNECTION = dict(
    observability_url=dict(type='str', fallback=(env_fallback, ['ENGINE_OBSERVABILITY_URL'])),
    api_token=dict(type='str', no_log=True, fallback=(env_fallback, ['ENGINE_OBSERVABILITY_TOKEN'])),
)


def option_source(connection, name):
    """How messages point at a connection option: 'api_url or the ENGINE_CLOUD_API_URL environment variable'."""
    return '%s or the %s environment variable' % (name, connection[name]['fallback'][1][0])


def missing_connection_errors(connection, params):
    """A message for each connection option that is neither set nor in its environment variable, or is empty."""
    return ['%s is required: set %s%s' % (name, option_source(connection, name), '' if params[name] is None else ' (got an empty value)')
            for name in connection if params[name] is None or not params[name].strip()]


def common_spec(api_limit):
    """COMMON_SPEC for one API: api_rate_limit falls back to that API's environment variable."""
    spec = dict(COMMON_SPEC)
    spec['api_rate_limit'] = dict(spec['api_rate_limit'], fallback=(env_fallback, [api_limit.env]))
    return spec


def option_errors(params, api_limit):
    """Messages for bad values of the options every module and plugin shares (Nones for good ones)."""
    return [None if params['api_timeout'] > 0 else 'api_timeout must be at least 1 second, got %d' % params['api_timeout'],
            None if params['api_retries'] >= 0 else 'api_retries must be at least 0, got %d' % params['api_retries'],
            _rate_limit(params, api_limit)[1]]


def _rate_limit(params, api_limit):
    return pacing.rate_limit('api_rate_limit', params['api_rate_limit'], (api_limit.requests, api_limit.seconds))


def open_client(params, api_limit, warn, **client_options):
    """The HTTP client for the shared options, paced under api_limit (the API's pacer.ApiLimit) with
    every other process of this controller that uses the same credential; client_options come from
    the API's layer; warn(text) reports a pacer that cannot share its state."""
    pacer = pacing.shared_pacer(_rate_limit(params, api_limit)[0], client_options['base_url'], params[api_limit.credential], warn)
    return http.HttpClient(timeout=params['api_timeout'], validate_certs=params['validate_certs'],
                           retries=params['api_retries'], user_agent=USER_AGENT, pacer=pacer, **client_options)


def unused(connection):
    """The other API's connection options, optional and ignored: accepted so that one
    module_defaults entry for group/engine.cloud.all can carry both APIs' credentials."""
    return dict((name, dict(type='str', no_log=bool(option.get('no_log')))) for name, option in connection.items())


class EngineModule(AnsibleModule):
    """An AnsibleModule with an HTTP client for one API; subclasses name the API.

    It also keeps no_log values out of every failure: ansible-core lists the no_log values while it
    validates the arguments; when a list-of-dicts option holds an element that is not a dict
    (``ip_access_list: [42]``), that listing raises and every no_log value is lost, so the failure's
    invocation would print the key secret and the token. The top-level ones are added back in
    fail_json before any failure is returned."""

    connection_spec = {}
    rate_limit = None  # the API's pacer.ApiLimit

    def __init__(self, argument_spec, supports_check_mode=True, **kwargs):
        spec = common_spec(self.rate_limit)
        spec.update(self.connection_spec)
        spec.update(argument_spec)
        super(EngineModule, self).__init__(argument_spec=spec, supports_check_mode=supports_check_mode, **kwargs)
        if http.REQUESTS_IMPORT_ERROR is not None:
            self.fail_json(msg=missing_required_lib('requests'),
                           exception=''.join(traceback.format_exception_only(type(http.REQUESTS_IMPORT_ERROR),
                                                                             http.REQUESTS_IMPORT_ERROR)))
        self.fail_on_errors(*option_errors(self.params, self.rate_limit) + self.connection_errors())
        self.client = open_client(self.params, self.rate_limit, self.warn, **self.client_options())

    def fail_json(self, msg, **kwargs):
        for name, option in self.argument_spec.items():
            value = self.params.get(name)
            if option.get('no_log') and isinstance(value, str) and value:
                self.no_log_values.add(value)
        super(EngineModule, self).fail_json(msg=msg, **kwargs)

    def connection_errors(self):
        """Messages for bad connection options; the API layers add theirs."""
        return []

    def client_options(self):
        raise NotImplementedError

    def fail_on_errors(self, *errors):
        """Fail, sending nothing, with every message among errors (Nones are fine values)."""
        messages = [error for error in errors if error]
        if messages:
            self.fail_json(msg='; '.join(messages))

    def fail(self, msg, **result):
        self.fail_json(msg=msg, **mask_secrets(result))

    def call(self, method, path, params=None, body=None, missing_ok=False, recover=None):
        """One API call; an API error fails the task with its status, code, message and request id.

        With missing_ok, a 404 returns None instead, so the module can say what is missing.
        recover(error), when given, may return a response that stands in for the failed one."""
        try:
            response = self.client.request(method, path, params=params, body=body)
        except http.ApiError as error:
            if missing_ok and error.status == 404:
                return None
            response = recover(error) if recover else None
            if response is None:
                self.fail_json(msg=str(error), **error.as_result())
        self.no_log_values.update(secret_values(response))
        return response

    def exit(self, changed=False, diff=None, **result):
        if diff is not None and self._diff:
            result['diff'] = diff
        self.exit_json(changed=changed, **mask_secrets(result))

    def apply(self, key, current, body, write, diff=None):
        """Finish an update: nothing to send means unchanged; check mode predicts; else write once.

        body is exactly what differs, in the API's terms; write(body) sends it and returns the
        resource after the change; diff defaults to before/after of the keys in body."""
        if diff is None:
            diff = make_diff(current, body)
        if not body:
            self.exit(changed=False, **{key: current})
        if self.check_mode:
            predicted = dict(current)
            predicted.update(diff['after'])
            self.exit(changed=True, diff=diff, **{key: predicted})
        self.exit(changed=True, diff=diff, **{key: write(body)})


class WaitError(Exception):
    """The awaited resource reached a failure state, or the wait ran out of time."""

    def __init__(self, message, resource):
        super(WaitError, self).__init__(message)
        self.resource = resource


def poll_intervals(first=1.0, cap=10.0):
    """Waits between polls: 1, 2, 4, 8, then 10 seconds for as long as it takes."""
    interval = first
    while True:
        yield interval
        interval = min(interval * 2, cap)


def wait_for_state(read, done, failed, timeout, what, current=None):
    """Poll read() until its 'state' is in done; raise WaitError on a state in failed or at timeout.

    current, when given, is the resource as just seen (say, in the answer to the write), so the
    first read waits one interval instead of asking again at once. Returns (resource, number of reads)."""
    deadline = CLOCK.monotonic() + timeout
    reads = 0
    for interval in poll_intervals():
        if current is None:
            resource = read()
            reads += 1
        else:
            resource, current = current, None
        state = resource.get('state')
        if state in done:
            return resource, reads
        if state in failed:
            raise WaitError('%s entered the failure state %s' % (what, state), resource)
        remaining = deadline - CLOCK.monotonic()
        if remaining <= 0:
            raise WaitError('%s did not reach %s within %s seconds; last state: %s'
                            % (what, ' or '.join(sorted(done)), timeout, state), resource)
        CLOCK.sleep(min(interval, remaining))
