# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every module does the same way: shared options and their checks, one paced client per run, API errors as clean
failures, results without secrets, check mode and diff, the converge step of every writing module."""

import itertools
import re

from ansible.module_utils.ansible_release import __version__ as ANSIBLE_VERSION
from ansible.module_utils.basic import AnsibleModule, env_fallback

from ansible_collections.engine.cloud.plugins.module_utils import pacing, reads, transport, validate
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets, secret_values
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError

USER_AGENT = 'engine.cloud ansible-core/%s' % ANSIBLE_VERSION

COMMON_SPEC = dict(
    validate_certs=dict(type='bool', default=True),
    ca_path=dict(type='path'),
    client_cert=dict(type='path'),
    client_key=dict(type='path'),
    api_timeout=dict(type='int', default=30),
    api_retries=dict(type='int', default=5),
    api_rate_limit=dict(type='raw'),  # raw: YAML reads an unquoted off as false
)

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
DICT_REQUESTED = 'dictionary requested, could not parse JSON or key=value'
SUB_FIELD = re.compile(r"in the sub parameter field '(\w+)'")
ELEMENTS_OF = re.compile(r"Elements value for option '(\w+)' is of type (?:<class ')?str\b")  # 2.16 writes <class 'str'>


def suboption_paths(spec, name, prefix=''):
    """Where a suboption of that name sits in an argument spec, as 'tiles[].series' (lists) or 'a.b' (dicts)."""
    paths = []
    for option, option_spec in sorted(spec.items()):
        inner = option_spec.get('options') or {}
        here = prefix + option + ('[]' if option_spec.get('type') == 'list' else '')
        if name in inner:
            paths.append('%s.%s' % (here, name))
        paths.extend(suboption_paths(inner, name, here + '.'))
    return paths


class Api:
    """One API as modules and plugins use it: its connection options (url_option the address), its rate limit, the
    client options its credentials give (credentials(params)), the error hint for refused credentials, the key of its
    answers' payload (envelope). also: the other API's connection options, accepted and ignored, so that one
    module_defaults entry for group/engine.cloud.all serves both APIs."""

    def __init__(self, connection, url_option, limit, credentials, auth_hint, envelope, uuid_options=(), also=None,
                 not_replayable=frozenset(('PATCH',))):
        self.connection, self.url_option, self.limit, self.credentials = connection, url_option, limit, credentials
        self.auth_hint, self.envelope, self.not_replayable = auth_hint, envelope, not_replayable
        self.uuid_options, self.also = uuid_options, also or {}

    def argument_spec(self, also=True):
        spec = dict(COMMON_SPEC, api_rate_limit=dict(COMMON_SPEC['api_rate_limit'], fallback=(env_fallback, [self.limit.env])))
        spec.update(self.connection)
        if also:
            spec.update((name, dict(type='str', no_log=bool(option.get('no_log')))) for name, option in self.also.items())
        return spec

    def source(self, name):
        return '%s or the %s environment variable' % (name, self.connection[name]['fallback'][1][0])

    def connect(self, params, warn, fail, uuid_options=None):
        """The HTTP client for params, after the checks made before any request: fail(*messages) gets a message (or None)
        for each option and does not return when one is bad. The connection options are required, but checked here so
        that the message names the environment variable and an empty value (what AWX injects for an empty field) counts
        as missing."""
        limit, limit_error = pacing.rate_limit('api_rate_limit', params['api_rate_limit'], (self.limit.requests, self.limit.seconds))
        url = params[self.url_option]
        errors = ['%s is required: set %s%s' % (name, self.source(name), '' if params[name] is None else ' (got an empty value)')
                  for name in self.connection if params[name] is None or not params[name].strip()]
        if not errors:
            uuids = self.uuid_options if uuid_options is None else uuid_options
            errors = [validate.url(self.url_option, url)] + [validate.uuid(name, params[name]) for name in uuids]
        fail(None if params['api_timeout'] > 0 else 'api_timeout must be at least 1 second, got %d' % params['api_timeout'],
             None if params['api_retries'] >= 0 else 'api_retries must be at least 0, got %d' % params['api_retries'], limit_error, *errors)
        return transport.HttpClient(url, timeout=params['api_timeout'], validate_certs=params['validate_certs'], ca_path=params.get('ca_path'),
                                    client_cert=params.get('client_cert'), client_key=params.get('client_key'), retries=params['api_retries'],
                                    user_agent=USER_AGENT, pacer=pacing.shared_pacer(limit, url, params[self.limit.credential], warn),
                                    auth_hint=self.auth_hint, url_hint='Check %s' % self.source(self.url_option), envelope=self.envelope,
                                    not_replayable=self.not_replayable, **self.credentials(params))

    def wait_warning(self, client):
        per = 'token' if self.limit.credential == 'api_token' else 'API key'
        return pacing.wait_warning(client.pacer.waited + client.waited, client.pacer, per, 'api_rate_limit (or %s)' % self.limit.env)


def wait_options(timeout):
    return dict(wait=dict(type='bool', default=True), wait_timeout=dict(type='int', default=timeout))


class EngineModule(AnsibleModule):
    """An AnsibleModule with a client for one API (the class attribute api). ansible-core lists the no_log values while it
    validates the arguments; when a list-of-dicts option holds an element that is not a dict, that listing raises and
    every no_log value is lost: fail_json adds the top-level ones back."""

    api = None
    uuid_options = None
    shared = reads.Alone()

    def __init__(self, argument_spec, **kwargs):
        self.failure_amends = []  # amend(msg, result) -> (msg, result), for every failure from then on
        spec = self.api.argument_spec()
        spec.update(argument_spec)
        super(EngineModule, self).__init__(argument_spec=spec, supports_check_mode=True, **kwargs)
        self.client = self.api.connect(self.params, self.warn, self.fail_on_errors, self.uuid_options)
        if 'wait_timeout' in self.params:
            self.fail_on_errors(None if self.params['wait_timeout'] >= 1 else 'wait_timeout must be at least 1 second, got %d'
                                % self.params['wait_timeout'])

    def _mark_secrets(self):
        """The top-level no_log values, and the password of an address (https://user:password@host), which is as secret:
        before ansible-core logs the invocation, and again on a failure of its validation, which loses its list."""
        for name, value in self.params.items():
            if isinstance(value, str) and value:
                if self.argument_spec.get(name, {}).get('no_log'):
                    self.no_log_values.add(value)
                self.no_log_values.update(validate.url_passwords(value))

    def _log_invocation(self):
        self._mark_secrets()
        super(EngineModule, self)._log_invocation()

    def fail_json(self, msg, **kwargs):
        self._leave()
        self._mark_secrets()
        field = SUB_FIELD.search(msg)
        if field:  # ansible-core names only the innermost option of an element that is not a dict
            paths = suboption_paths(self.argument_spec, field.group(1)) or [field.group(1)]
            msg = '%s (%s)' % (msg, ', '.join(paths))
        if msg == DICT_REQUESTED:  # a string where a dict (or a list of dicts' element) was wanted: name the option
            named = sorted(name for name, option in self.argument_spec.items() if option.get('type') == 'dict' and isinstance(self.params.get(name), str))
            named += sorted(set('each element of %s' % name for text in getattr(getattr(self, 'validation_result', None), 'error_messages', [])
                                for name in ELEMENTS_OF.findall(text)))
            msg = '%s: %s must be a dictionary' % (msg, ', '.join(named)) if named else msg
        for amend in list(self.failure_amends):
            msg, kwargs = amend(msg, kwargs)
        super(EngineModule, self).fail_json(msg=msg, **kwargs)

    def exit_json(self, **kwargs):
        self._leave()
        super(EngineModule, self).exit_json(**kwargs)

    def _leave(self):
        self.shared.leave()
        client = getattr(self, 'client', None)
        warning = None if client is None else self.api.wait_warning(client)
        if warning:
            self.warn('This task ' + warning)

    def fail_on_errors(self, *errors):
        """Fail with every message among errors (Nones are good values)."""
        messages = [error for error in errors if error]
        if messages:
            self.fail_json(msg='; '.join(messages))

    def fail(self, msg, **result):
        self.fail_json(msg=msg, **mask_secrets(result))

    def fail_api(self, error, more=None, **result):
        result.update(error.as_result())
        self.fail(str(error) if more is None else '%s; %s' % (error, more), **result)

    def exit(self, changed=False, diff=None, **result):
        if diff is not None and self._diff:
            result['diff'] = diff
        self.exit_json(changed=changed, **mask_secrets(result))

    def planned(self, request):
        """A write check mode would send (the organization module's rendered state collects them)."""

    def warn_in_check_mode(self, warning):
        if self.check_mode and warning:
            self.warn(warning)

    def request(self, method, path, params=None, body=None, once=False):
        """One API call; an API error raises ApiError. The answer's secrets never reach a log."""
        try:
            response = self.client.request(method, path, params=params, body=body, once=once)
        finally:
            if method != 'GET':
                self.shared.wrote()
        self.no_log_values.update(secret_values(response))
        return response

    def request_or_fail(self, method, path, params=None, body=None, missing_ok=False):
        try:
            return self.request(method, path, params=params, body=body)
        except ApiError as error:
            if missing_ok and error.status == 404:
                return None
            self.fail_api(error)

    def read_item(self, collection, item_id, max_age=0, path=None, missing_ok=False):
        """The resource item_id of the list at collection: from a list read shared with other tasks (reads.py) at most
        max_age seconds old, else its own GET of path (collection/item_id unless given), which says what is missing;
        None after a 404 with missing_ok."""
        def single():
            return self.unwrap(self.request_or_fail('GET', path or '%s/%s' % (collection, item_id), missing_ok=missing_ok))
        found = self.shared.item(collection, item_id, single, lambda on_send: self.send_list(collection, on_send), max_age)
        if found is reads.ABSENT:
            return None if missing_ok else single()
        return found

    def peek_item(self, collection, item_id, gone=None):
        seen = self.shared.peek(collection, item_id)
        return gone if seen is reads.ABSENT else seen

    def send_list(self, collection, on_send):
        """A list read for the shared reads: its items, or None when it failed (each task then reads alone, and its own
        read reports the error)."""
        try:
            answer = self.client.request('GET', collection, on_send=on_send)
        except ApiError:
            return None
        self.no_log_values.update(secret_values(answer))
        return self.unwrap(answer)

    def unwrap(self, answer):
        """The payload of an answer of this module's API (None for none)."""
        return (answer or {}).get(self.api.envelope)

    def converge(self, key, read, plan, write):
        resource, diff = self.apply(read, plan, write)
        self.exit(changed=diff is not None, diff=diff, **{key: resource})

    def apply(self, read, plan, write, current=None):
        """One converge step: (the resource after it, its diff or None). plan(current) gives (body, diff) of exactly what
        differs; write(body) sends it and returns the resource. After a lost answer the resource is read again and only
        what still differs is sent."""
        current = read() if current is None else current
        body, diff = plan(current)
        if not body:
            return current, None
        if self.check_mode:
            return dict(current, **diff['after']), diff
        pending = [body]

        def recheck():
            seen = read()
            pending[0] = plan(seen)[0]
            return (True, seen) if not pending[0] else (False, 'a read afterwards shows %s still to change' % ', '.join(sorted(pending[0])))
        return self.send_once(lambda: write(pending[0]), recheck), diff

    def send_once(self, send, recheck):
        """send() (a write) and its answer; after a lost answer, recheck() reads: (True, result) when nothing is left to
        send, else (False, what is left) and send() goes again, at most api_retries times."""
        lost = None
        for attempt in itertools.count():
            try:
                return send()
            except ApiError as error:
                if not error.answer_lost:
                    self.fail_api(error)
                lost = error
            CLOCK.sleep(self.client.backoff(attempt))
            done, result = recheck()
            if done:
                return result
            if attempt >= self.params['api_retries']:
                self.fail_api(lost, '%s, and api_retries (%d) allows no further attempt' % (result, self.params['api_retries']))
