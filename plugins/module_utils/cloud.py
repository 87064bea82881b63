# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The cloud management API (/v1): credentials, paths, the service's state table, and how a state module brings a
service or pipe to the requested state (commands, lost answers, waits, an idle service woken)."""

import itertools
import re

from ansible_collections.engine.cloud.plugins.module_utils import reads
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import secret_values
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.module import (
    CLOUD_CONNECTION, OBSERVABILITY_CONNECTION, Api, EngineModule, option_source)
from ansible_collections.engine.cloud.plugins.module_utils.pacing import ApiLimit
from ansible_collections.engine.cloud.plugins.module_utils.resource import Wait, WaitError

WAIT = 'wait'  # a transition away from the goal: wait until it ends, then decide again
FAIL = 'fail'  # no command brings the resource to the goal from here: fail before any write


class StateTable:
    """For one kind of resource: actions: goal -> state -> None (nothing to do), a command, WAIT or FAIL (a state not
    listed: FAIL); settled/failures: goal -> the states that end/fail a wait; targets: goal -> the state check mode
    shows; transitions: transition state -> where it ends; once: commands never sent twice in one task, even after a
    lost answer (a second resync would start a second resync)."""

    def __init__(self, noun, actions, settled, failures, targets, transitions, once=()):
        self.noun, self.actions, self.settled, self.failures = noun, actions, settled, failures
        self.targets, self.transitions, self.once = targets, transitions, frozenset(once)

    def action(self, goal, resource, predict=False):
        """What to do in the resource's state; predict (check mode) takes a transition as over."""
        state = resource.get('state')
        action = self.actions[goal].get(state, FAIL)
        if action == WAIT and predict:
            return self.actions[goal].get(self.transitions[state], FAIL)
        return action

    def in_transition(self, state):
        return state in self.transitions

    def goal_text(self, goal, resource):
        return ' or '.join(sorted(self.settled[goal]))

    def done(self, goal, before, wait=True):
        settled = self.settled[goal]
        return lambda resource: resource.get('state') in settled

    def failed(self, goal):
        failures = self.failures[goal]
        return lambda resource: resource.get('state') in failures

    def refusal(self, goal, resource, name):
        return '%s %s is in state %s, which is not one of the states the API documents for a %s; nothing was sent' % (
            self.noun, name, resource.get('state'), self.noun)

    def target(self, goal, resource):
        return self.targets[goal]


TRANSITIONS = {'starting': 'running', 'stopping': 'stopped', 'awaking': 'running', 'provisioning': 'running'}
TERMINAL = ('terminating', 'terminated', 'softdeleting', 'softdeleted')
_TERMINAL_FAIL = dict((state, FAIL) for state in TERMINAL)
# The module documentation of service_state shows the same table.
SERVICE_ACTIONS = {
    'started': dict(running=None, idle=None, partially_running=None, starting=None, awaking=None, provisioning=None,
                    stopped='start', stopping=WAIT, degraded=FAIL, failed=FAIL, **_TERMINAL_FAIL),
    'awake': dict(running=None, idle='awake', partially_running=None, starting=None, awaking=None, provisioning=None,
                  stopped='start', stopping=WAIT, degraded=FAIL, failed=FAIL, **_TERMINAL_FAIL),
    'stopped': dict(running='stop', idle='stop', partially_running='stop', starting=WAIT, awaking=WAIT, provisioning=WAIT,
                    stopped=None, stopping=None, degraded='stop', failed=FAIL, **_TERMINAL_FAIL),
}
SERVICE_STATES = tuple(SERVICE_ACTIONS['started'])


class ServiceStates(StateTable):
    def refusal(self, goal, resource, name):
        state = resource.get('state')
        if state in TERMINAL:
            return 'service %s is %s: a terminating, terminated, softdeleting or softdeleted service takes no command' % (name, state)
        if state == 'failed':
            return 'service %s is failed: no start or stop is sent to a failed service' % name
        if state == 'degraded':
            return ('service %s is degraded: state=%s sends no command to a degraded service (start applies to a stopped one); '
                    'it can be stopped with state=stopped' % (name, goal))
        return super(ServiceStates, self).refusal(goal, resource, name)


SERVICE_TABLE = ServiceStates(
    'service', SERVICE_ACTIONS,
    settled={'started': frozenset(('running', 'idle')), 'awake': frozenset(('running',)), 'stopped': frozenset(('stopped',))},
    failures={'started': frozenset(('failed', 'degraded') + TERMINAL), 'awake': frozenset(('failed', 'degraded') + TERMINAL),
              'stopped': frozenset(('failed',) + TERMINAL)},
    targets={'started': 'running', 'awake': 'running', 'stopped': 'stopped'},
    transitions=TRANSITIONS)


AUTH_HINT = 'The management API refused the API key: check api_key_id and api_key_secret (ENGINE_CLOUD_KEY_ID, ENGINE_CLOUD_KEY_SECRET)'
REFUSED_COMMAND_ROUNDS = 3  # a command refused in the current state (409, 400 "already") is decided again this often
WAKE_TIMEOUT = 900  # waking an idle service for a pipe call, unless the module has its own wait_timeout
IDLE_REFUSAL = re.compile(r'Current state: (\w+)')


class WakeStates(ServiceStates):
    """service_state's awake row for a pipe call refused for the service's state: an idle service is woken, a transition
    waited out; a stopped (or stopping) service fails, stopped on purpose, as does every state that takes no command."""

    def refusal(self, goal, resource, name):
        state = resource.get('state')
        if state in ('stopped', 'stopping'):
            return ('service %s is %s; a pipe call never starts a stopped service: start it on purpose (engine.cloud.service_state '
                    'with state=started) and run the task again' % (name, state))
        return ('service %s is %s; the API allows this pipe call only while the service runs, and a pipe call sends no command '
                'to a %s service' % (name, state, state))


WAKE_TABLE = WakeStates('service', {'awake': dict(SERVICE_TABLE.actions['awake'], stopped=FAIL, stopping=FAIL)},
                        settled={'awake': SERVICE_TABLE.settled['awake']}, failures={'awake': SERVICE_TABLE.failures['awake']},
                        targets={'awake': 'running'}, transitions=SERVICE_TABLE.transitions)

RATE_LIMIT = ApiLimit(requests=10, seconds=10, env='ENGINE_CLOUD_RATE_LIMIT', credential='api_key_id')


def services_path(organization_id):
    return '/v1/organizations/%s/services' % organization_id


# Every write of this API changes something: one whose answer was lost is never sent again before a read has shown
# whether it was applied.
NOT_REPLAYABLE = frozenset(('PATCH', 'POST', 'DELETE'))


def client_options(params):
    return dict(base_url=params['api_url'], auth=(params['api_key_id'], params['api_key_secret']), auth_hint=AUTH_HINT,
                url_hint='Check %s' % option_source(CLOUD_CONNECTION, 'api_url'), not_replayable=NOT_REPLAYABLE, envelope='result')


API = Api(CLOUD_CONNECTION, 'api_url', RATE_LIMIT, client_options, uuid_options=('organization_id',), also=OBSERVABILITY_CONNECTION)


class CloudModule(EngineModule):
    """A module of the cloud management API, on one service (service_id, optional with service_id_required=False)."""

    api = API

    def __init__(self, argument_spec, uuid_options=(), service_id_required=True, **kwargs):
        self.uuid_options = ('organization_id', 'service_id') + tuple(uuid_options)
        spec = dict(service_id=dict(type='str', required=service_id_required))
        spec.update(argument_spec)
        super(CloudModule, self).__init__(spec, **kwargs)
        params = self.params
        self.shared = reads.for_module(self.client.pacer.requests is not None, (
            params['api_url'], params['api_key_id'], params['api_key_secret'], params['organization_id']), self.warn)

    def path(self, *parts):
        """/v1/organizations/{organization_id}/services/{service_id}[/part...]"""
        return '/'.join((services_path(self.params['organization_id']), self.params['service_id']) + parts)

    def read(self, *parts):
        return self.request_or_fail('GET', self.path(*parts)).get('result')

    def read_item(self, collection, item_id, max_age=0):
        """The resource item_id of the list at collection, from its own GET or a shared read."""
        def single():
            return self.request_or_fail('GET', '%s/%s' % (collection, item_id)).get('result')
        found = self.shared_item(collection, item_id, single, max_age)
        return single() if found is reads.ABSENT else found  # its own GET says what is missing

    def read_state(self, parts, max_age=0):
        listed = self.listed_in(parts)
        return self.read(*parts) if listed is None else self.read_item(*(listed + (max_age,)))

    def peek_state(self, parts):
        listed = self.listed_in(parts)
        return False if listed is None else self.peek_item(*listed)

    def listed_in(self, parts):
        """(collection, item id): the list that holds the resource at parts (the service, or one of its pipes), or None."""
        if not parts:
            return services_path(self.params['organization_id']), self.params['service_id']
        if len(parts) == 2 and parts[0] == 'pipes':
            return self.path('pipes'), parts[1]
        return None

    def send_list(self, collection, on_send):
        """A list read for the shared reads: its items, or None when it failed (each task then reads alone, and its own
        read reports the error)."""
        try:
            answer = self.client.request('GET', collection, on_send=on_send)
        except ApiError:
            return None
        self.no_log_values.update(secret_values(answer))
        return answer.get('result')

    def list_services(self, tags=None):
        """Every service of the organization, in one request; with tags, those that have them (the API filters, and
        what it sends is checked again)."""
        # imported here: the tasks that never list services do not compile it (and service_rules) from the zip
        from ansible_collections.engine.cloud.plugins.module_utils import service_filter  # pylint: disable=import-outside-toplevel
        listed = self.request_or_fail('GET', services_path(self.params['organization_id']), params=service_filter.tag_query(tags or {})).get('result')
        return [service for service in listed if service_filter.has_tags(service, tags or {})] if tags else listed

    def request(self, method, path, params=None, body=None, once=False):
        """EngineModule.request; a pipe call that an idle service refuses (424 "Current state: idle") wakes the service,
        waits until it runs and is sent again, once per task. A stopped service is never started: the task fails."""
        try:
            return super(CloudModule, self).request(method, path, params=params, body=body, once=once)
        except ApiError as error:
            state = idle_refusal(error, path)
            if state is None:
                raise
            self._wake_for(error, state)
        return self.request(method, path, params=params, body=body, once=once)

    def _wake_for(self, error, state):
        service_id, named = self.params['service_id'], {'state': state}
        if WAKE_TABLE.action('awake', named) == FAIL:
            self.fail_api(error, WAKE_TABLE.refusal('awake', named, service_id))
        if getattr(self, '_woken', False):
            self.fail_api(error, 'service %s was %s once in this task and is %s again'
                          % (service_id, 'woken' if state == 'idle' else 'waited for', state))
        if self.check_mode:
            self.fail_api(error, 'service %s is %s; check mode sends no awake command, so it cannot tell what this task would do'
                          % (service_id, state))
        self._woken = True
        self.bring(WAKE_TABLE, 'awake', 'service', wait=True, wait_timeout=self.params.get('wait_timeout') or WAKE_TIMEOUT)
        if state == 'idle':
            self.warn('service %s was idle: it was woken (awake) for a pipe call' % service_id)
        else:
            self.warn('service %s was %s: the pipe call was refused until it ran, then sent again' % (service_id, state))

    def foresee_pipe_write(self, what):
        """Check mode: what the real run's pipe write (what: create, update, a settings change ...) would meet in the
        service's state (read once per task): the failure it would end in, or a warning that it would wake or wait."""
        if not self.check_mode:
            return
        if getattr(self, '_service_seen', None) is None:
            self._service_seen = self.request_or_fail('GET', self.path()).get('result')
        failure, warning = pipe_write_outcome(self._service_seen, what, self.params['service_id'])
        if failure:
            self.fail(failure)
        warned = self.__dict__.setdefault('_foreseen', set())
        if warning and warning not in warned:
            warned.add(warning)
            self.warn(warning)

    def foreseeing(self, plan, what):
        """plan (see EngineModule.apply), which in check mode also foresees its write (foresee_pipe_write)."""
        def foreseen(current):
            body, diff = plan(current)
            if body:
                self.foresee_pipe_write(what)
            return body, diff
        return foreseen

    def write(self, method, body, *parts):
        """A write under the service's path; an API error raises ApiError."""
        return self.request(method, self.path(*parts), body=body).get('result')

    def reach(self, table, goal, key, *parts):
        resource, changed, diff = self.bring(table, goal, key, *parts)
        self.exit(changed=changed, diff=diff, **{key: resource})

    def bring(self, table, goal, key, *parts, **options):
        """(resource, changed, diff) of the resource at parts (the service itself without parts) brought to goal: table
        says, in each state, to do nothing, send a command (PATCH <resource>/state), wait a transition out and decide
        again, or fail. After a lost answer the resource is read and the table decides again: a command of table.once
        is never sent again (its effect is looked for in the wait), another at most api_retries times. With wait, polls
        until the goal's settled state (never taking the command's answer for a poll). options: current (the resource
        as just read), wait and wait_timeout (instead of the module's)."""
        def read():
            return self.read_state(parts, wait.poll_age)

        def peek():
            return self.peek_state(parts)

        name = parts[-1] if parts else self.params['service_id']
        wait = Wait(options.get('wait_timeout') or self.params.get('wait_timeout'), '%s %s' % (table.noun, name))
        first = resource = options.get('current') or read()
        command = Command()
        for rounds in itertools.count():
            action = table.action(goal, resource, predict=self.check_mode)
            if action == FAIL:
                self.fail(table.refusal(goal, resource, name), **{key: resource})
            if action == WAIT:
                resource = self._wait_out(wait, read, peek, key, table, resource)
                continue
            if action is None or (command.lost and action in table.once):
                break
            if self.check_mode:
                if parts[:1] == ('pipes',):
                    self.foresee_pipe_write('%s command' % action)
                return dict(resource, state=table.target(goal, first)), True, state_diff(table, goal, first)
            if command.lost:
                self._may_resend(command, table, resource, action)
            try:
                resource = command.send(self, action, resource, parts)
                break
            except ApiError as error:
                if not (error.answer_lost or command.may_retry_refusal(error, wait)):
                    self.fail_api(error)
            CLOCK.sleep(self.client.backoff(rounds))
            resource = read()
        return self._settle(wait, (read, peek), key, table, goal, first, resource, command, options.get('wait', self.params.get('wait')), parts)

    def _may_resend(self, command, table, resource, action):
        if command.resends >= self.params['api_retries']:
            self.fail_api(command.lost, 'a read afterwards shows the %s in state %s, so the %s command did not take effect, and '
                                        'api_retries (%d) allows no further attempt'
                          % (table.noun, resource.get('state'), action, self.params['api_retries']))
        command.resends += 1

    def _wait_out(self, wait, read, peek, key, table, resource):
        try:
            return wait.until(read, lambda seen: not table.in_transition(seen.get('state')), lambda seen: False,
                              'the end of its transition', current=resource, peek=peek)
        except WaitError as error:
            self.fail(str(error), **{key: error.resource})

    def _settle(self, wait, reads, key, table, goal, first, resource, command, wanted, parts):
        """(resource, changed, diff), waited for (wanted, or a lost command of table.once: its effect has to be seen
        before the task can say it happened)."""
        changed = command.name is not None
        diff = state_diff(table, goal, first) if changed else None
        lost_once = command.lost is not None and command.name in table.once
        if self.check_mode or not (wanted or lost_once):
            return resource, changed, diff
        before = command.before or first
        listed, answered = self.listed_in(parts), CLOCK.monotonic()
        try:
            resource = wait.until(reads[0], table.done(goal, before, wanted), table.failed(goal), table.goal_text(goal, first),
                                  current=None if command.answered else resource,
                                  before=before.get('state') if changed else None, command=command.name,
                                  peek=reads[1], expect=listed and (lambda: self.shared.settle_hint(listed[0], command.name)))
            if listed and command.answered:
                self.shared.settled(listed[0], command.name, CLOCK.monotonic() - answered)
        except WaitError as error:
            if lost_once:
                self.fail_api(command.lost, '%s; the %s command was not sent again' % (error, command.name), **{key: error.resource})
            self.fail(str(error), **{key: error.resource})
        return resource, changed, diff


class Command:
    """The state command of one task: what was sent, from which resource, and what became of its answer."""

    def __init__(self):
        self.name = self.before = self.lost = None
        self.answered = False
        self.resends = self.refusals = 0

    def send(self, module, action, resource, parts):
        self.before, self.answered = resource, False
        try:
            answer = module.write('PATCH', dict(command=action), *(parts + ('state',)))
        except ApiError as error:
            if error.answer_lost:
                self.name, self.lost = action, error
            raise
        self.name, self.lost, self.answered = action, None, True
        return answer

    def may_retry_refusal(self, error, wait):
        refused = error.status == 409 or (error.status == 400 and 'already' in (error.message or '').lower())
        if refused and self.refusals < REFUSED_COMMAND_ROUNDS and wait.remaining() > 0:
            self.refusals += 1
            return True
        return False


# Pipe writes the API refuses unless the service runs (reference: "an idle service"); which other pipe calls a service
# that is not running refuses is not documented.
REFUSED_UNLESS_RUNNING = ('create', 'update')


def pipe_write_outcome(service, what, name):
    """(failure, warning) that a pipe write meets in the service's state: check mode's prediction of CloudModule.request."""
    state = service.get('state')
    if state == 'running':
        return None, None
    refused = what in REFUSED_UNLESS_RUNNING
    action = WAKE_TABLE.action('awake', service)
    if action == FAIL:
        if refused:
            return WAKE_TABLE.refusal('awake', service, name), None
        return None, ('service %s is %s: the API may refuse the pipe %s while the service is not running (HTTP 424), and the '
                      'real run would then fail: %s' % (name, state, what, WAKE_TABLE.refusal('awake', service, name)))
    if action == 'awake':
        return None, ('service %s is idle: the API refuses pipe creates and updates while a service is idle, and may refuse '
                      'the pipe %s too; the real run would then wake the service (awake, and it runs and is billed from then '
                      'on), wait until it runs and send the pipe %s again' % (name, what, what))
    if refused:
        return None, ('service %s is %s: the API refuses the pipe %s until the service runs; the real run would wait until '
                      'it runs (within wait_timeout) and send the pipe %s again' % (name, state, what, what))
    return None, None


def idle_refusal(error, path):
    if error.status != 424 or '/pipes' not in path:
        return None
    match = IDLE_REFUSAL.search(error.message or '')
    return match.group(1) if match else None


def state_diff(table, goal, first):
    return dict(before=dict(state=first.get('state')), after=dict(state=table.target(goal, first)))
