# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every module of the collection does the same way: shared options, local checks,
one client per run, API errors as clean failures, masked results, check mode and diff, the
converge step of every writing module, and the waits of the state modules."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import itertools
import re

from ansible.module_utils.ansible_release import __version__ as ANSIBLE_VERSION
from ansible.module_utils.basic import AnsibleModule, env_fallback

# first: the module_utils imported after it are compiled once in a module process (compile_once.py)
from ansible_collections.engine.cloud.plugins.module_utils import compile_once  # noqa: F401  pylint: disable=unused-import
from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils import pacer as pacing
from ansible_collections.engine.cloud.plugins.module_utils import play_reads, shared_reads
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets, secret_values

# The collection's version has one source, galaxy.yml, which a module cannot read at run time;
# the user agent names the collection and ansible-core only.
USER_AGENT = 'engine.cloud ansible-core/%s' % ANSIBLE_VERSION

COMMON_SPEC = dict(
    validate_certs=dict(type='bool', default=True),
    ca_path=dict(type='path'),
    client_cert=dict(type='path'),
    client_key=dict(type='path'),
    api_timeout=dict(type='int', default=30),
    api_retries=dict(type='int', default=5),
    # raw: YAML reads an unquoted off as false, which also turns pacing off. The environment
    # variable of the fallback is the API's (Api.argument_spec).
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


# ansible-core's message for a string where a dict of options is wanted (it names no option).
DICT_REQUESTED = 'dictionary requested, could not parse JSON or key=value'


# ansible-core's message for an element of a nested list of dicts that is not a dict.
SUB_FIELD = re.compile(r"in the sub parameter field '(\w+)'")


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


def option_source(connection, name):
    """How messages point at a connection option: 'api_url or the ENGINE_CLOUD_API_URL environment variable'."""
    return '%s or the %s environment variable' % (name, connection[name]['fallback'][1][0])


def missing_connection_errors(connection, params):
    """A message for each connection option that is neither set nor in its environment variable, or is empty."""
    return ['%s is required: set %s%s' % (name, option_source(connection, name), '' if params[name] is None else ' (got an empty value)')
            for name in connection if params[name] is None or not params[name].strip()]


def unused(connection):
    """The other API's connection options, optional and ignored: accepted so that one
    module_defaults entry for group/engine.cloud.all can carry both APIs' credentials."""
    return dict((name, dict(type='str', no_log=bool(option.get('no_log')))) for name, option in connection.items())


class Api:
    """One API as modules and plugins use it: its connection options (with their environment fallbacks),
    its rate limit (a pacer.ApiLimit), its part of the HTTP client and the checks of its connection options.

    client_options(params) gives the API's keyword arguments of http.HttpClient (base_url, auth or token,
    hints, not_replayable); connection_errors(params, uuid_options) the messages for bad connection options
    (Nones for good ones); uuid_options, the options it checks as UUIDs unless a caller names others;
    also, the other API's connection options, accepted and ignored (see unused)."""

    def __init__(self, connection, limit, client_options, connection_errors, uuid_options=(), also=None):
        self.connection, self.limit = connection, limit
        self.client_options, self.connection_errors = client_options, connection_errors
        self.uuid_options, self.also = uuid_options, also or {}

    def argument_spec(self, also=True):
        """COMMON_SPEC, api_rate_limit falling back to this API's environment variable, and the connection
        options; with also, the other API's connection options, so that one module_defaults entry for
        group/engine.cloud.all serves the modules of both APIs."""
        spec = dict(COMMON_SPEC)
        spec['api_rate_limit'] = dict(spec['api_rate_limit'], fallback=(env_fallback, [self.limit.env]))
        spec.update(self.connection)
        if also:
            spec.update(unused(self.also))
        return spec

    def wait_warning(self, client):
        """A warning when client waited more than pacer.WAIT_WARNING_SECONDS in all for this API's rate limit, or None."""
        per = 'token' if self.limit.credential == 'api_token' else 'API key'
        return pacing.wait_warning(client.pacer, per, 'api_rate_limit (or %s)' % self.limit.env)

    def connect(self, params, warn, fail, uuid_options=None):
        """The HTTP client for params, after every check a module makes before a request: fail(*messages)
        gets a message for each bad option (Nones for good ones) and does not return when one is bad.
        The client is paced under this API's limit with every other process of this controller that uses
        the same credential; warn(text) reports a pacer that cannot share its state."""
        limit, limit_error = pacing.rate_limit('api_rate_limit', params['api_rate_limit'], (self.limit.requests, self.limit.seconds))
        fail(*[None if params['api_timeout'] > 0 else 'api_timeout must be at least 1 second, got %d' % params['api_timeout'],
               None if params['api_retries'] >= 0 else 'api_retries must be at least 0, got %d' % params['api_retries'],
               limit_error] + self.connection_errors(params, self.uuid_options if uuid_options is None else uuid_options))
        options = self.client_options(params)
        pacer = pacing.shared_pacer(limit, options['base_url'], params[self.limit.credential], warn)
        return http.HttpClient(timeout=params['api_timeout'], validate_certs=params['validate_certs'], ca_path=params.get('ca_path'),
                               client_cert=params.get('client_cert'), client_key=params.get('client_key'),
                               retries=params['api_retries'], user_agent=USER_AGENT, pacer=pacer, **options)


def wait_options(timeout):
    """The wait and wait_timeout options of a module that waits (a state module, a lifecycle), with its default
    timeout in seconds; EngineModule checks wait_timeout before any request."""
    return dict(wait=dict(type='bool', default=True), wait_timeout=dict(type='int', default=timeout))


class EngineModule(AnsibleModule):
    """An AnsibleModule with an HTTP client for one API; subclasses name the API (api, an Api).

    It also keeps no_log values out of every failure: ansible-core lists the no_log values while it
    validates the arguments; when a list-of-dicts option holds an element that is not a dict
    (``ip_access_list: [42]``), that listing raises and every no_log value is lost, so the failure's
    invocation would print the key secret and the token. The top-level ones are added back in
    fail_json before any failure is returned."""

    api = None
    uuid_options = None  # the options checked as UUIDs before anything is sent; None: the API's own
    shared = shared_reads.ALONE  # reads shared with the other tasks of this controller (CloudModule's)
    kept = play_reads.NONE  # list reads kept for the later tasks of this playbook run

    def __init__(self, argument_spec, supports_check_mode=True, **kwargs):
        # amend(msg, result) -> (msg, result), for every failure from then on (a created resource to report)
        self.failure_amends = []
        spec = self.api.argument_spec()
        spec.update(argument_spec)
        super(EngineModule, self).__init__(argument_spec=spec, supports_check_mode=supports_check_mode, **kwargs)
        self.client = self.api.connect(self.params, self.warn, self.fail_on_errors, self.uuid_options)
        self.kept = play_reads.for_module([self.params[name] for name in sorted(self.api.connection)],
                                          self.client.pacer is not pacing.UNPACED, self.warn)
        if 'wait_timeout' in self.params:
            self.fail_on_errors(None if self.params['wait_timeout'] >= 1
                                else 'wait_timeout must be at least 1 second, got %d' % self.params['wait_timeout'])

    def fail_json(self, msg, **kwargs):
        self.shared.leave()
        self.warn_of_waits()
        for name, option in self.argument_spec.items():
            value = self.params.get(name)
            if option.get('no_log') and isinstance(value, str) and value:
                self.no_log_values.add(value)
        field = SUB_FIELD.search(msg)
        if field:
            # ansible-core names only the innermost option of an element that is not a dict; say where it sits.
            msg = '%s (%s)' % (msg, ', '.join(suboption_paths(self.argument_spec, field.group(1))))
        if msg == DICT_REQUESTED:
            # ansible-core lists the no_log values of a dict option's suboptions before it validates the
            # option; a string there fails with this bare message. Name the dict options that got one.
            named = sorted(name for name, option in self.argument_spec.items()
                           if option.get('type') == 'dict' and isinstance(self.params.get(name), str))
            msg = '%s: %s must be a dictionary' % (msg, ', '.join(named)) if named else msg
        for amend in list(self.failure_amends):
            msg, kwargs = amend(msg, kwargs)
        super(EngineModule, self).fail_json(msg=msg, **kwargs)

    def fail_on_errors(self, *errors):
        """Fail, sending nothing, with every message among errors (Nones are fine values)."""
        messages = [error for error in errors if error]
        if messages:
            self.fail_json(msg='; '.join(messages))

    def fail(self, msg, **result):
        self.fail_json(msg=msg, **mask_secrets(result))

    def request(self, method, path, params=None, body=None, once=False):
        """One API call, any path; an API error raises http.ApiError (for the caller to judge, a lost answer
        above all). once: a write the client never replays (HttpClient.request). The answer's secrets are kept
        out of every log."""
        try:
            response = self.client.request(method, path, params=params, body=body, once=once)
        finally:
            if method != 'GET':
                self.wrote()
        self.no_log_values.update(secret_values(response))
        return response

    def wrote(self):
        """A write was just answered (or its answer lost): no shared read sent before now serves this task's next reads,
        nor any kept read the next tasks of this run."""
        self.shared.wrote()
        self.kept.wrote()

    def kept_item(self, collection, item_id, single, listing):
        """For a read before acting: the resource item_id of the list at collection from a list read that an earlier task
        of this playbook run kept (module_utils/play_reads.py), else single() (a live read; None: missing); listing()
        reads the whole list live, when the run reads many of its resources."""
        return self.kept.item(collection, item_id, single, listing)

    def kept_list(self, collection, listing, holds=None):
        """For a read before acting: every item of the list at collection from a list read kept by an earlier task of
        this run that holds(items) says serves, else listing() (live)."""
        return self.kept.listing(collection, listing, holds)

    def fresh(self, current, read, differs):
        """current, or when it came from a kept read (kept_item) and differs(current) says the task has something to do,
        read(): every write is planned on a read of this task. A resource gone meanwhile fails the task."""
        if not (self.kept.kept(current) and differs(current)):
            return current
        seen = read()
        if seen is None:
            self.fail('%s is gone: a read just now answered 404 (it showed in a list read %d seconds ago at most). Nothing was sent'
                      % (current.get('name') or current.get('id'), self.kept.age))
        return seen

    def shared_item(self, collection, item_id, single, max_age=0):
        """The resource item_id of the list at the path collection from a read shared with the other tasks of this
        controller that read that list now (module_utils/shared_reads.py): sent after this call (max_age 0), or at
        most max_age seconds ago (a poll); shared_reads.ABSENT when that read does not hold it. single(): the
        task's own read, when it reads alone (or its API shares nothing)."""
        return self.shared.item(collection, item_id, single, lambda on_send: self.send_list(collection, on_send), max_age)

    def shared_list(self, collection, own):
        """Every item of the list at collection, from a list read shared as shared_item's are, or own()."""
        listed = self.shared.listing(collection, lambda on_send: self.send_list(collection, on_send))
        return own() if listed is None else listed

    def peek_item(self, collection, item_id, gone=None):
        """For Wait.until's peek: the resource item_id of the list at collection from a shared read newer than this
        task has seen, None for nothing new, False for nothing to come; gone when that read no longer holds it."""
        seen = self.shared.peek(collection, item_id)
        return gone if seen is shared_reads.ABSENT else seen

    def send_list(self, collection, on_send):
        """A list read for the shared reads of an API that has them: its items, or None when it failed."""
        raise NotImplementedError('%s shares no reads' % type(self).__name__)

    def exit_json(self, **kwargs):
        self.shared.leave()
        self.warn_of_waits()
        super(EngineModule, self).exit_json(**kwargs)

    def warn_of_waits(self):
        """A task that waited long for the rate limit says so, with the budget and the option that sets it."""
        client = getattr(self, 'client', None)
        warning = None if client is None else self.api.wait_warning(client)
        if warning:
            self.warn('This task ' + warning)

    def request_or_fail(self, method, path, params=None, body=None, missing_ok=False):
        """One API call; an API error fails the task with its status, code, message and request id.

        With missing_ok, a 404 returns None instead, so the module can say what is missing."""
        try:
            return self.request(method, path, params=params, body=body)
        except http.ApiError as error:
            if missing_ok and error.status == 404:
                return None
            self.fail_api(error)

    def fail_api(self, error, more=None, **result):
        """Fail with an API error (and more, a sentence on what the module saw after it)."""
        result.update(error.as_result())
        self.fail(str(error) if more is None else '%s; %s' % (error, more), **result)

    def warn_in_check_mode(self, warning):
        """Show warning (when there is one) in check mode, where it tells what the real run would meet."""
        if self.check_mode and warning:
            self.warn(warning)

    def exit(self, changed=False, diff=None, **result):
        if diff is not None and self._diff:
            result['diff'] = diff
        self.exit_json(changed=changed, **mask_secrets(result))

    def converge(self, key, read, plan, write):
        """Read, write what differs, exit: apply() as the whole task."""
        resource, diff = self.apply(read, plan, write)
        self.exit(changed=diff is not None, diff=diff, **{key: resource})

    def apply(self, read, plan, write, current=None):
        """One converge step: (the resource after it, its diff or None when nothing differs). It does not exit,
        so that a module can take several steps (a service PATCH, then its scaling) and exit once.

        plan(current) gives (body, diff): exactly what differs, in the API's terms, and the diff to show.
        write(body) sends it and returns the resource after the change; an API error raises. current: the
        resource as just read (read() otherwise). Check mode: the prediction, nothing sent.
        A write whose answer was lost may have been applied, so it is not sent again as it was: the
        resource is read again and only what still differs is sent (nothing, if the first attempt did
        the work: the step reports the first diff), at most api_retries times (send_once)."""
        current = read() if current is None else current
        current = self.fresh(current, read, lambda seen: plan(seen)[0])
        body, diff = plan(current)
        if not body:
            return current, None
        if self.check_mode:
            predicted = dict(current)
            predicted.update(diff['after'])
            return predicted, diff
        pending = [body]

        def recheck():
            current = read()
            pending[0], dummy = plan(current)
            return (True, current) if not pending[0] else (False, 'a read afterwards shows %s still to change' % ', '.join(sorted(pending[0])))
        return self.send_once(lambda: write(pending[0]), recheck), diff

    def send_once(self, send, recheck):
        """send() (a write) and return its answer, sending it again only when a read says it did not take effect.

        A write whose answer was lost (http.ApiError.answer_lost: client.py decides, by each API's not_replayable)
        may have been applied. After the backoff, recheck() reads and returns (True, the result to return) when
        nothing is left to send, or (False, a sentence on what the read shows still to do): then send() is called
        again (it sends what recheck left to send), at most api_retries times, after which the task fails with the
        lost answer and that sentence. Any other API error fails the task (send() may turn one it expects, such as
        a DELETE's 404, into an answer)."""
        lost = None
        for attempt in itertools.count():
            try:
                return send()
            except http.ApiError as error:
                if not error.answer_lost:
                    self.fail_api(error)
                lost = error
            CLOCK.sleep(self.client.backoff(attempt))
            done, result = recheck()
            if done:
                return result
            if attempt >= self.params['api_retries']:
                self.fail_api(lost, '%s, and api_retries (%d) allows no further attempt' % (result, self.params['api_retries']))


class WaitError(Exception):
    """The awaited resource reached a failure state, or the wait ran out of time."""

    def __init__(self, message, resource):
        super(WaitError, self).__init__(message)
        self.resource = resource


# How often a wait looks for another task's shared read of what it waits for (Wait.until's peek), and the
# longest interval between its polls while other tasks share them: one list read then serves the whole fleet.
PEEK_SECONDS = 0.5
FLEET_POLL_SECONDS = 5.0


def poll_intervals(first=1.0, cap=10.0):
    """Waits between polls: 1, 2, 4, 8, then 10 seconds for as long as it takes."""
    interval = first
    while True:
        yield interval
        interval = min(interval * 2, cap)


class Wait:
    """One time budget (wait_timeout) for everything a state module waits for in a task: a transition
    that has to end before a command, then the requested state. Polls after 1, 2, 4, 8, then every
    10 seconds."""

    def __init__(self, timeout, what):
        self.timeout, self.what = timeout, what
        self.deadline = CLOCK.monotonic() + timeout
        # While read() polls: the seconds since the look before (a read, a peek, or the command) ended, the age of
        # a shared read that may serve it (module_utils/shared_reads.py); 0 outside a poll.
        self.poll_age = 0

    def remaining(self):
        return self.deadline - CLOCK.monotonic()

    def until(self, read, done, failed, goal, current=None, before=None, command=None, peek=None, expect=None):
        """Poll read() until done(resource) and return it; raise WaitError when failed(resource) or at the deadline.

        current: the resource as just read, taken as the first poll. Without it (after a command) the first
        read comes one interval later: the answer to a command is never taken for a poll.
        before: the state before command was sent. Until a read shows another state, that state is not a
        failure of the command (a start from Failed may still show Failed for a while).
        peek: while it sleeps between polls, the wait looks every PEEK_SECONDS for the resource as another task's
        shared read showed it (peek(): the resource, None for nothing new, False for never: sleep on); one is taken
        as this poll (module_utils/shared_reads.py).
        expect: after a command, expect() is how many seconds after their commands other tasks of this controller saw
        the same transition end (None while unknown): no poll comes before that (SharedReads.settle_hint)."""
        moved = before is None
        resource = current
        # The first poll after a command may take any shared read sent after the command was answered (its write
        # bounds it), a later one any sent since the look before ended.
        looked = None if current is None else CLOCK.monotonic()
        commanded = CLOCK.monotonic() if current is None and expect is not None else None
        for interval in poll_intervals():
            if resource is not None:
                state = resource.get('state')
                moved = moved or state != before
                if done(resource):
                    return resource
                if moved and failed(resource):
                    raise WaitError('%s entered the failure state %s' % (self.what, state), resource)
                if self.remaining() <= 0:
                    raise WaitError(self._timeout_message(goal, state, before, command), resource)
            if commanded is not None:
                interval = max(interval, commanded + (expect() or 0) - CLOCK.monotonic())
            resource = self._nap(max(0, min(interval, self.remaining())), peek)
            if resource is None:
                self.poll_age = self.timeout if looked is None else CLOCK.monotonic() - looked
                try:
                    resource = read()
                finally:
                    self.poll_age = 0
            looked = CLOCK.monotonic()

    @staticmethod
    def _nap(seconds, peek):
        """The resource peek() gave, or None: sleep seconds, at most FLEET_POLL_SECONDS when other tasks share the reads
        (peek() is not False), and take the first resource peek() gives instead."""
        seen = False if peek is None else peek()
        slept, seconds = 0, seconds if seen is False else min(seconds, FLEET_POLL_SECONDS)
        while seen is None and seconds - slept > PEEK_SECONDS:
            CLOCK.sleep(PEEK_SECONDS)
            slept += PEEK_SECONDS
            seen = peek()
        if seen is None or seen is False:
            CLOCK.sleep(seconds - slept)
            return None
        return seen

    def _timeout_message(self, goal, state, before, command):
        text = '%s did not reach %s within %s seconds; last state: %s' % (self.what, goal, self.timeout, state)
        if command is not None and state == before:
            text += ', as before the %s command, which may not have taken effect' % command
        return text
