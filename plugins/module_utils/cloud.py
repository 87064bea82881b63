# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The cloud management API (/v1): credentials, paths, the service's state table, and its module class (a pipe call that
an idle service refuses wakes it)."""

import re

from ansible_collections.engine.cloud.plugins.module_utils import reads
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.module import (
    CLOUD_CONNECTION, OBSERVABILITY_CONNECTION, Api, EngineModule)
from ansible_collections.engine.cloud.plugins.module_utils.pacing import ApiLimit
from ansible_collections.engine.cloud.plugins.module_utils.states import FAIL, WAIT, Bring, StateTable

TRANSITIONS = {'starting': 'running', 'stopping': 'stopped', 'awaking': 'running', 'provisioning': 'running'}
TERMINAL = ('terminating', 'terminated', 'softdeleting', 'softdeleted')
_TERMINAL_FAIL = dict.fromkeys(TERMINAL, FAIL)
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
WAKE_TIMEOUT = 900  # waking an idle service for a pipe call, unless the module has its own wait_timeout
IDLE_REFUSAL = re.compile(r'Current state: (\w+)')


class WakeStates(StateTable):
    """service_state's awake row for a pipe call refused for the service's state: an idle service is woken, a transition
    waited out; a stopped (or stopping) service fails, stopped on purpose, as does every state that takes no command."""

    def refusal(self, goal, resource, name):
        state = resource.get('state')
        if state in ('stopped', 'stopping'):
            return ('service %s is %s; a pipe call never starts a stopped service: start it on purpose (engine.cloud.service_state '
                    'with state=started) and run the task again' % (name, state))
        return ('service %s is %s; the API allows this pipe call only while the service runs, and a pipe call sends no command '
                'to a %s service' % (name, state, state))


WAKE_TABLE = WakeStates('service', {'awake': dict(SERVICE_TABLE.actions['awake'], stopped=FAIL, stopping=FAIL)}, SERVICE_TABLE.settled,
                        SERVICE_TABLE.failures, SERVICE_TABLE.targets, SERVICE_TABLE.transitions)

# Pipe writes the API refuses unless the service runs (reference: "an idle service"); which other pipe calls a service
# that is not running refuses is not documented.
REFUSED_UNLESS_RUNNING = ('create', 'update')

RATE_LIMIT = ApiLimit(requests=10, seconds=10, env='ENGINE_CLOUD_RATE_LIMIT', credential='api_key_id')


def services_path(organization_id):
    return '/v1/organizations/%s/services' % organization_id


# Every write of this API changes something: one whose answer was lost is never sent again before a read has shown
# whether it was applied.
NOT_REPLAYABLE = frozenset(('PATCH', 'POST', 'DELETE'))


API = Api(CLOUD_CONNECTION, 'api_url', RATE_LIMIT, lambda params: dict(auth=(params['api_key_id'], params['api_key_secret'])), AUTH_HINT,
          'result', uuid_options=('organization_id',), also=OBSERVABILITY_CONNECTION, not_replayable=NOT_REPLAYABLE)


class CloudModule(EngineModule):
    """A module of the cloud management API, on one service (service_id, optional with service_id_required=False)."""

    api = API

    def __init__(self, argument_spec, uuid_options=(), service_id_required=True, **kwargs):
        self.uuid_options = ('organization_id', 'service_id') + tuple(uuid_options)
        spec = dict(service_id=dict(type='str', required=service_id_required))
        spec.update(argument_spec)
        super(CloudModule, self).__init__(spec, **kwargs)
        identity = tuple(self.params[name] for name in CLOUD_CONNECTION)  # address, key id, key secret, organization
        self.shared = reads.for_module(self.client.pacer, identity, self.warn)

    def path(self, *parts):
        """/v1/organizations/{organization_id}/services/{service_id}[/part...]"""
        return '/'.join((services_path(self.params['organization_id']), self.params['service_id']) + parts)

    def read(self, *parts):
        return self.request_or_fail('GET', self.path(*parts)).get('result')

    def listed_in(self, parts):
        """(collection, item id) of the list that holds the resource at parts: the service (()), or a pipe (pipes, id)."""
        if parts:
            return self.path('pipes'), parts[1]
        return services_path(self.params['organization_id']), self.params['service_id']

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
            refused = IDLE_REFUSAL.search(error.message or '') if error.status == 424 and '/pipes' in path else None
            if refused is None:
                raise
            self._wake_for(error, refused.group(1))
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
        service's state (read once per task), as request() would meet it: the failure it would end in, or a warning that
        it would wake or wait."""
        if not self.check_mode:
            return
        if getattr(self, '_service_seen', None) is None:
            self._service_seen = self.read()
        service, name = self._service_seen, self.params['service_id']
        state, refused, action = service.get('state'), what in REFUSED_UNLESS_RUNNING, WAKE_TABLE.action('awake', service)
        if action == FAIL and refused:
            self.fail(WAKE_TABLE.refusal('awake', service, name))
        if state == 'running' or not (action or refused):
            return
        if action == FAIL:
            warning = ('service %s is %s: the API may refuse the pipe %s while the service is not running (HTTP 424), and the '
                       'real run would then fail: %s' % (name, state, what, WAKE_TABLE.refusal('awake', service, name)))
        elif action == 'awake':
            warning = ('service %s is idle: the API refuses pipe creates and updates while a service is idle, and may refuse '
                       'the pipe %s too; the real run would then wake the service (awake, and it runs and is billed from then '
                       'on), wait until it runs and send the pipe %s again' % (name, what, what))
        else:
            warning = ('service %s is %s: the API refuses the pipe %s until the service runs; the real run would wait until '
                       'it runs (within wait_timeout) and send the pipe %s again' % (name, state, what, what))
        warned = self.__dict__.setdefault('_foreseen', set())
        if warning not in warned:
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
        return self.request(method, self.path(*parts), body=body).get('result')

    def reach(self, table, goal, key, *parts):
        resource, changed, diff = self.bring(table, goal, key, *parts)
        self.exit(changed=changed, diff=diff, **{key: resource})

    def bring(self, table, goal, key, *parts, **options):
        """(resource, changed, diff) of states.Bring; options: current (the resource as just read), wait and wait_timeout
        (instead of the module's, which a module may not have)."""
        bring = Bring(self, table, goal, key, parts, options.get('wait_timeout'))
        return bring.run(options.get('current'), options.get('wait', self.params.get('wait')))
