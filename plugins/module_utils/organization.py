# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.organization: every service, pipe, dashboard and alert of an organization in one task.

Each entry is run by its own module's code (service.run, pipe.run, dashboard.run, alert.run) on an Entry: the module
object of that code, whose reads come from the lists this task read first, whose exit and failure return to the
planner (Ended), and whose writes go through the task's clients and update those lists (planner.py: the plan)."""

import copy
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.engine.cloud.plugins.module_utils import cloud, observability
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.module import CLOUD_CONNECTION, COMMON_SPEC, OBSERVABILITY_CONNECTION, EngineModule
from ansible_collections.engine.cloud.plugins.module_utils.planner import (APIS, ENTRY_RULES, ENTRY_SPECS, TYPES, Ended, Planner, digest, listed,
                                                                           summary)

TEAM_LISTS = (observability.PREFIX + '/sources', observability.PREFIX + '/webhooks')

SPEC = dict(
    state=dict(type='str', default='merged', choices=['merged', 'overridden', 'deleted', 'gathered', 'rendered']),
    config=dict(type='dict', options=dict((kind, dict(type='list', elements='dict')) for kind in TYPES)),  # see check_entries
    resources=dict(type='list', elements='str', choices=list(TYPES)),
    include_ids=dict(type='bool', default=True),
    allow_empty=dict(type='bool', default=False),
    allow_service_deletion=dict(type='bool', default=False),
    allow_alert_deletion=dict(type='bool', default=False),
    max_deletions=dict(type='int', default=10),
    owner_tag=dict(type='dict'),
    plan_digest=dict(type='str'),
    wait_timeout=dict(type='int', default=1800),
    **dict(COMMON_SPEC, **dict(CLOUD_CONNECTION, **OBSERVABILITY_CONNECTION)))


class OrganizationModule(EngineModule):
    def __init__(self):
        self.failure_amends, self._clients, self.lists, self.rendered, self.offline = [], {}, {}, [], False
        self.written = set()  # ids of what this task wrote: never served from the lists
        self.known = {}  # the lists as read at the start: read again when a write dropped one; the plan ends with them
        self.entries, self.entry_errors, self.background = None, [], None  # background: the executor reading the cloud lists
        AnsibleModule.__init__(self, argument_spec=SPEC, supports_check_mode=True)  # pylint: disable=non-parent-init-called
        self.check_entries()

    def check_entries(self):
        """Each entry checked once, as its own module checks its options, as soon as ansible-core has checked the task's
        own options: their secrets (a pipe's credentials) are then masked in all that follows, the log ansible-core writes
        of the task's arguments included. Each message names its entry: config.pipes[3]: ..."""
        if self.entries is None:
            self.entries = dict((kind, []) for kind in TYPES)
            for kind in TYPES:
                for index, entry in enumerate((self.params['config'] or {}).get(kind) or []):
                    result = ArgumentSpecValidator(ENTRY_SPECS[kind], **ENTRY_RULES[kind]).validate(entry)
                    self.no_log_values.update(result._no_log_values)  # pylint: disable=protected-access
                    self.entry_errors += ['config.%s[%d]: %s' % (kind, index, message) for message in result.error_messages]
                    self.entries[kind].append(result.validated_parameters)

    def _log_invocation(self):
        self.check_entries()
        super(OrganizationModule, self)._log_invocation()

    def client(self, kind):
        """The client of kind's API: api_rate_limit, when given, sets both APIs' budget; else each API's own variable."""
        api = APIS[kind]
        if api not in self._clients:
            params = dict(self.params, api_rate_limit=self.params['api_rate_limit'] if self.params['api_rate_limit'] is not None
                          else os.environ.get(api.limit.env))
            self._clients[api] = api.connect(params, self.warn, self.fail_on_errors)
        return self._clients[api]

    def entry(self, kind, params, check_mode, where):
        return (CloudEntry if APIS[kind] is cloud.API else ObservabilityEntry)(self, kind, params, check_mode, where)

    def _leave(self):
        if self.background is not None:
            self.background.shutdown()  # the task ends with none of its reads still on the way, whatever ended it
        for api, client in self._clients.items():
            warning = api.wait_warning(client)
            if warning:
                self.warn('This task ' + warning)

    def cached(self, path, params):
        """The answer to a GET from the lists this task read (live, in this task), or None: read it. An entry's code may
        change what it gets (check mode predicts on it): it gets a copy."""
        for collection, items in self.lists.items():
            if path == collection and (params is None or dict(params).get('offset') in (None, 0)):
                return dict(result=list(items), data=list(items), meta=dict(total=len(items)))
            if path.startswith(collection + '/') and '/' not in path[len(collection) + 1:]:
                if path[len(collection) + 1:].lower() in self.written:
                    return None  # what this task wrote changes on the server: its reads (a wait's polls) are live
                found = [item for item in items if str(item.get('id')).lower() == path[len(collection) + 1:].lower()]
                return dict(result=copy.deepcopy(found[0]), data=found[0]) if found else None
        return None

    def wrote(self, method, path, answer):
        """A write reached path, with answer (None: not yet, or lost). The list that holds its object gets what the answer
        shows of it, or is read again when next needed; the alerts are read again after a dashboard write (it may delete
        some)."""
        for collection in list(self.lists):
            if path.startswith(observability.PREFIX + '/dashboards/') and collection == observability.PREFIX + '/alerts':
                del self.lists[collection]
            elif path == collection or path.startswith(collection + '/'):
                rest = path[len(collection) + 1:]
                shown = (answer or {}).get('data', (answer or {}).get('result'))
                shown = shown.get('service', shown) if isinstance(shown, dict) else None
                items = [item for item in self.lists[collection] if str(item.get('id')).lower() != (rest.lower() or None)]
                if answer is None or '/' in rest or (method != 'DELETE' and not (shown or {}).get('id')):
                    del self.lists[collection]
                else:
                    self.lists[collection] = items + ([shown] if method != 'DELETE' else [])
                    self.written.add(str((shown or {}).get('id') or rest).lower())


class Entry:  # mixed before CloudModule or ObservabilityModule
    def __init__(self, org, kind, params, check_mode, where):  # pylint: disable=super-init-not-called
        self.org, self.params, self.check_mode, self.where = org, params, check_mode, where
        self._diff, self.failure_amends, self.no_log_values = True, [], org.no_log_values
        self.client, self.argument_spec, self.whole_plan = org.client(kind), ENTRY_SPECS[kind], True

    def exit_json(self, **result):
        raise Ended(result)

    def fail_json(self, msg, **result):
        for amend in list(self.failure_amends):
            msg, result = amend(msg, result)
        raise Ended(result, '%s: %s' % (self.where, msg))

    def warn(self, warning):
        self.org.warn('%s: %s' % (self.where, warning))

    def planned(self, request):
        self.org.rendered.append(dict(request, entry=self.where))

    def request(self, method, path, params=None, body=None, once=False):
        if method == 'GET':
            kept = self.org.cached(path, params)
            if kept is not None:
                return kept
            if self.org.offline:
                raise ApiError('not found (rendered: nothing is read)', status=404, method=method, path=path)
            if path in TEAM_LISTS or path in self.org.known:  # read once more for the entries after this one
                self.org.lists[path] = listed(path, super(Entry, self).request) or []
                return self.org.cached(path, params)
        elif not self.check_mode:
            try:
                answer = super(Entry, self).request(method, path, params=params, body=body, once=once)
            except ApiError:
                self.org.wrote(method, path, None)  # the write may have been applied: its list is read again
                raise
            self.org.wrote(method, path, answer)
            return answer
        return super(Entry, self).request(method, path, params=params, body=body, once=once)


class CloudEntry(Entry, cloud.CloudModule):
    pass


class ObservabilityEntry(Entry, observability.ObservabilityModule):
    pass


def run(module):
    if module.entry_errors:
        module.fail('%s. Nothing was read and nothing was sent' % '; '.join(module.entry_errors))
    planner = Planner(module)
    state = module.params['state']
    owner = module.params['owner_tag']
    if owner is not None and len(owner) != 1:
        module.fail('owner_tag must hold exactly one key and its value, got %d. Nothing was sent' % len(owner))
    if state == 'overridden' and not module.params['resources']:
        module.fail('resources is required with state=overridden: name the types this task may delete from (%s). Nothing was '
                    'read and nothing was sent' % ', '.join(TYPES))
    empty = [kind for kind in planner.resources if not planner.config[kind]]
    if state == 'overridden' and empty and not module.params['allow_empty']:
        module.fail('resources names %s, but config lists none of them: overridden would delete every one. Set allow_empty: true '
                    'if that is what you want. Nothing was read and nothing was sent' % ', '.join(empty))
    if state == 'rendered':
        module.exit_json(changed=False, rendered=mask_secrets(render(planner)))
    planner.read()
    if state == 'gathered':
        gathered, omitted = planner.gathered()
        module.exit_json(changed=False, gathered=mask_secrets(gathered), omitted_secrets=omitted)
    items = planner.plan()
    planned = digest(items)
    result = dict(summary=summary(items), plan_digest=planned)
    diff = [dict(item['diff'], before_header='%s %s' % (item['type'], item['name'] or item['id']),
                 after_header='%s %s' % (item['type'], item['name'] or item['id'])) for item in items if item.get('diff')]
    if module.params['plan_digest'] and module.params['plan_digest'] != planned:
        module.fail('The plan differs from the one reviewed (plan_digest %s, this plan %s): something changed since. Run the check '
                    'again and review it. Nothing was sent' % (module.params['plan_digest'], planned), **result)
    planner.rails(items)
    changed = any(item['action'] in ('create', 'update', 'delete') for item in items)
    if changed and not module.check_mode:
        planner.apply(items)
    module.exit(changed=changed, diff=diff, **result)


def render(planner):
    """rendered: the create request of each entry, offline: its checks run, nothing is read or sent."""
    module = planner.module
    module.offline = True
    module.lists = dict((collection, []) for collection in (
        planner.services_path, observability.PREFIX + '/dashboards', observability.PREFIX + '/alerts'))
    module.client = lambda kind: None
    planner.service_id = lambda wanted, where: planner.new_services.get(wanted, wanted)
    for kind in TYPES:
        for index, entry in enumerate(planner.config[kind]):
            where = 'config.%s[%d]' % (kind, index)
            planner.judge(kind, planner.entry_params(kind, entry, where, 'present'), where)
    return module.rendered
