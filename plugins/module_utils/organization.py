# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.organization: every service, pipe, dashboard and alert of an organization in one task.

Each entry is run by its own module's code (service.run, pipe.run, dashboard.run, alert.run) on an Entry: the module
object of that code, whose reads come from the lists this task read first, whose exit and failure return to the
planner, and whose writes go through the task's clients. The whole plan is made in check mode first; the rails judge
it before the first write; an apply then runs the same entries for real, in order, and the deletions last."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib
import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.engine.cloud.plugins.module_utils import alert, alert_rules, cloud, dashboard, dashboard_rules, observability, pipe, reads, service
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.module import CLOUD_CONNECTION, COMMON_SPEC, OBSERVABILITY_CONNECTION, EngineModule

TYPES = ('services', 'pipes', 'dashboards', 'alerts')
NOUN = dict(services='service', pipes='pipe', dashboards='dashboard', alerts='alert')
ID_OPTION = dict(services='service_id', pipes='pipe_id', dashboards='dashboard_id', alerts='alert_id')
PURGES = ('purge_ip_access_list', 'purge_private_endpoint_ids', 'purge_tags')


def _entry_spec(spec, **more):
    entry = dict((name, option) for name, option in spec.items() if name not in ('state', 'wait', 'wait_timeout'))
    entry.update(more)
    return entry


ENTRY_SPECS = dict(
    services=_entry_spec(service.SPEC, service_id=dict(type='str'), **dict((name, dict(type='bool')) for name in PURGES)),
    pipes=_entry_spec(pipe.SPEC, service=dict(type='str', required=True)),
    dashboards=_entry_spec(dashboard.SPEC, allow_alert_deletion=dict(type='bool')),
    alerts=_entry_spec(alert.SPEC),
)
ENTRY_RULES = dict(services=dict(required_one_of=[('service_id', 'name')]), pipes=dict(required_one_of=[('pipe_id', 'name')]),
                   dashboards=dict(required_one_of=[('dashboard_id', 'name')]),
                   alerts=dict((key, value) for key, value in alert.OPTIONS.items() if key != 'required_one_of'))
SPEC = dict(
    state=dict(type='str', default='merged', choices=['merged', 'overridden', 'deleted', 'gathered', 'rendered']),
    config=dict(type='dict', options=dict((kind, dict(type='list', elements='dict', options=ENTRY_SPECS[kind], **ENTRY_RULES[kind]))
                                          for kind in TYPES)),
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
TEAM_LISTS = (observability.PREFIX + '/sources', observability.PREFIX + '/webhooks')
APIS = dict(services=cloud.API, pipes=cloud.API, dashboards=observability.API, alerts=observability.API)


class Done(Exception):
    def __init__(self, result):
        super(Done, self).__init__('done')
        self.result = result


class Failed(Exception):
    def __init__(self, msg, result):
        super(Failed, self).__init__(msg)
        self.result = result


class Entry:
    """The module object one entry's own module code runs on (mixed before CloudModule or ObservabilityModule)."""

    def setup(self, org, kind, params, check_mode, where):
        self.org, self.kind, self.params, self.check_mode, self.where = org, kind, params, check_mode, where
        self._diff, self.failure_amends, self.no_log_values = True, [], org.no_log_values
        self.client, self.shared, self.argument_spec = org.client(kind), reads.Alone(), ENTRY_SPECS[kind]
        self.alerts_read, self.whole_plan = [], True
        return self

    def exit_json(self, **result):
        raise Done(result)

    def exit(self, changed=False, diff=None, **result):  # the planner masks what it returns
        raise Done(dict(result, changed=changed, diff=diff))

    def fail_json(self, msg, **result):
        for amend in list(self.failure_amends):
            msg, result = amend(msg, result)
        raise Failed('%s: %s' % (self.where, msg), result)

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
                read = lambda how, target, query: super(Entry, self).request(how, target, params=query)  # noqa: E731
                self.org.lists[path] = (observability.list_all(read, path[len(observability.PREFIX):]) if path.endswith('/alerts')
                                        else read(method, path, None).get('data' if path.startswith(observability.PREFIX) else 'result') or [])
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


class OrganizationModule(EngineModule):
    """The organization module: its own options, a client per API in scope, the lists read once."""

    def __init__(self):
        self.failure_amends, self._clients, self.lists, self.rendered, self.offline = [], {}, {}, [], False
        self.written = set()  # ids of what this task wrote: never served from the lists
        self.known = set()  # the lists read at the start: read again when a write dropped one
        AnsibleModule.__init__(self, argument_spec=SPEC, supports_check_mode=True)  # pylint: disable=non-parent-init-called

    def client(self, kind):
        """The client of kind's API: api_rate_limit, when given, sets both APIs' budget; else each API's own variable."""
        api = APIS[kind]
        if api not in self._clients:
            params = dict(self.params, api_rate_limit=self.params['api_rate_limit'] if self.params['api_rate_limit'] is not None
                          else os.environ.get(api.limit.env))
            self._clients[api] = api.connect(params, self.warn, self.fail_on_errors)
        return self._clients[api]

    def _leave(self):
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

    def planned_item(self, collection, item):
        """In the plan: item as an entry will leave it, for the entries after it (an alert on a renamed dashboard)."""
        items = self.lists.get(collection)
        if items is not None:
            self.lists[collection] = [other for other in items if item.get('id') is None or other.get('id') != item['id']] + [item]

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

    def read_list(self, kind, path, request):
        """Every item of one list, all pages (a failed or cut listing fails the task before any write)."""
        try:
            if kind == 'alerts':
                items = observability.list_all(lambda method, target, params: request(method, target, params), path)
            else:
                items = request('GET', (observability.PREFIX if kind == 'dashboards' else '') + path, None).get(
                    'data' if kind == 'dashboards' else 'result')
            collection = (observability.PREFIX if kind in ('dashboards', 'alerts') else '') + path
        except (ApiError, ValueError) as error:
            self.fail('the %s could not be read whole, so nothing was planned and nothing was sent: %s' % (kind, error))
        if not isinstance(items, list):
            self.fail('the %s list is not a list, so nothing was planned and nothing was sent' % kind)
        self.lists[collection] = items
        self.known.add(collection)
        return items


class Planner:
    """One run of the organization module: read, plan in check mode, judge the rails, apply, report."""

    def __init__(self, module):
        self.module, self.params = module, module.params
        self.config = dict((kind, list((self.params['config'] or {}).get(kind) or [])) for kind in TYPES)
        state = self.params['state']
        self.resources = self.params['resources'] or (list(TYPES) if state in ('gathered', 'overridden')
                                                      else [kind for kind in TYPES if self.config[kind]])
        self.items = []  # the plan: dict(type, action, id, name, diff, kind, params, where, deleted_alerts[, reason])
        self.applied = None  # while applying: what was done so far
        self.new_services = {}  # name -> placeholder id, in check mode
        self.services, self.pipes, self.dashboards, self.alerts = [], [], [], []

    # --- reading -----------------------------------------------------------------------------------

    def services_path(self):
        return cloud.services_path(self.params['organization_id'])

    def read(self):
        module, scope = self.module, set(self.resources) | set(kind for kind in TYPES if self.config[kind])
        everything = self.params['state'] in ('gathered', 'overridden') and 'pipes' in self.resources
        named = set(entry.get('service') for entry in self.config['pipes'])
        if scope & {'services', 'pipes'}:
            client = module.client('services')
            request = lambda method, path, params: client.request(method, path, params=params)  # noqa: E731
            self.services = [item for item in module.read_list('services', self.services_path(), request) if item.get('state') not in cloud.TERMINAL]
            if 'pipes' in scope:
                self.pipes = [dict(item, serviceId=item.get('serviceId') or owner['id']) for owner in self.services
                              if everything or owner['id'] in named or owner.get('name') in named
                              for item in module.read_list('pipes', '%s/%s/pipes' % (self.services_path(), owner['id']), request)]
        if scope & {'dashboards', 'alerts'}:
            client = module.client('dashboards')
            request = lambda method, path, params: client.request(method, path, params=params)  # noqa: E731
            self.dashboards = module.read_list('dashboards', '/dashboards', request)
            self.alerts = module.read_list('alerts', '/alerts', request)

    # --- gathered ----------------------------------------------------------------------------------

    def gathered(self):
        ids, omitted = self.params['include_ids'], []
        named = _unique_names(self.services)
        services = [_drop(service.definition(item), None if ids else 'service_id') for item in self.services]
        omitted += ['services[%d].password' % index for index in range(len(services))]
        pipes = []
        for item in self.pipes:
            settings = self.module.client('pipes').request('GET', '%s/%s/pipes/%s/settings' % (
                self.services_path(), item['serviceId'], item['id'])).get('result')
            found = _drop(pipe.definition(item, settings), None if ids else 'pipe_id')
            owner = next(owner for owner in self.services if owner['id'] == item['serviceId'])
            found['service'] = owner['name'] if owner['name'] in named else owner['id']
            pipes.append(found)
        dashboards = [_drop(dashboard_rules.definition(item), None if ids else 'dashboard_id') for item in self.dashboards]
        boards = _unique_names(self.dashboards)
        alerts = []
        for item in self.alerts:
            found = _drop(alert_rules.definition(item), None if ids else 'alert_id')
            board = next((board for board in self.dashboards if str(board.get('id')) == str(found.get('dashboard')).lower()), None)
            if board is not None:
                tiles = _unique_names(board.get('tiles') or [])
                tile = next((tile for tile in board.get('tiles') or [] if tile.get('id') == found.get('tile')), None)
                found['dashboard'] = board['name'] if board.get('name') in boards else board['id']
                if tile is not None and tile.get('name') in tiles:
                    found['tile'] = tile['name']
            alerts.append(found)
        result = dict(services=_sorted(services), pipes=_sorted(pipes, 'service'), dashboards=_sorted(dashboards), alerts=_sorted(alerts))
        for index, found in enumerate(result['pipes']):
            omitted += ['pipes[%d].source.%s.%s' % (index, kind, secret) for kind, options in found['source'].items()
                        for secret in SECRETS.get(kind, ()) if pipe.SOURCE[kind]['options'].get(secret)]
        return dict((kind, result[kind]) for kind in self.resources), omitted

    # --- planning ----------------------------------------------------------------------------------

    def plan(self):
        """Every entry's change and every deletion, each judged in check mode by its own module's code."""
        state = self.params['state']
        saved = dict((collection, list(items)) for collection, items in self.module.lists.items())
        claimed = dict((kind, set()) for kind in TYPES)
        for kind in TYPES:
            named = [(entry.get('service'), entry.get('name')) for entry in self.config[kind] if not entry.get(ID_OPTION[kind]) and entry.get('name')]
            twice = sorted(set(name for owner, name in named if named.count((owner, name)) > 1))
            if twice:
                self.module.fail('config.%s names %s more than once without an id: one entry each. Nothing was sent' % (
                    kind, ', '.join(json.dumps(name) for name in twice)))
            for index, entry in enumerate(self.config[kind]):
                where = 'config.%s[%d]' % (kind, index)
                params = self.entry_params(kind, entry, where, 'absent' if state == 'deleted' else 'present')
                item = self.judge(kind, params, where, matched=params.pop('_matched', False))
                if item['id'] is not None:
                    if item['id'] in claimed[kind]:
                        self.module.fail('%s names %s %s, which an earlier entry names too. Nothing was sent' % (where, NOUN[kind], item['id']))
                    claimed[kind].add(item['id'])
                self.items.append(item)
        if state == 'overridden':
            self.items += self.purge(claimed)
        self.module.lists = saved
        return self.items

    def entry_params(self, kind, entry, where, state, checked=True):
        """The params of an entry's module run: the task's own options, the entry (checked by ansible-core with the task's
        options, or here when the planner made it), and what the organization decides (purges, owner tag, references)."""
        params = dict(dict((name, self.params[name]) for name in list(COMMON_SPEC) + list(CLOUD_CONNECTION) + list(OBSERVABILITY_CONNECTION)),
                      state=state, wait=True, wait_timeout=max(1, int(self.deadline - CLOCK.monotonic())))
        params.update(entry if checked else ArgumentSpecValidator(ENTRY_SPECS[kind]).validate(entry).validated_parameters)
        overridden = self.params['state'] == 'overridden'
        if kind == 'services':
            for name in PURGES:
                params[name] = overridden if params.get(name) is None else params[name]
            params['tags'] = self.owned_tags(params.get('tags'), _find(self.services, params, 'service_id') is None)
        elif kind == 'pipes':
            params['service_id'] = self.service_id(params.pop('service'), where)
            params['update_credentials'] = params.get('update_credentials') or 'on_create'
        elif kind == 'dashboards':
            params['allow_alert_deletion'] = self.params['allow_alert_deletion'] if params.get('allow_alert_deletion') is None else params['allow_alert_deletion']
            owner = self.params['owner_tag']
            if owner and (params.get('tags') is not None or _find(self.dashboards, params, 'dashboard_id') is None):
                tag = '%s:%s' % next(iter(owner.items()))
                params['tags'] = list(params.get('tags') or []) + ([] if tag in (params.get('tags') or []) else [tag])
        elif params.get('alert_id') is None and params.get('name') is None:
            params['alert_id'] = self.alert_by_source(params, where)
            params['_matched'] = True
        params['wait'] = not (kind == 'pipes' and state == 'present')  # a new pipe is not waited for: nothing depends on it
        return params

    def owned_tags(self, tags, creating):
        owner = self.params['owner_tag']
        if not owner or (tags is None and not creating):
            return tags
        return dict(tags or {}, **dict((key, str(value)) for key, value in owner.items()))

    def service_id(self, wanted, where):
        found = [item for item in self.services if item['id'] == wanted] or [item for item in self.services if item.get('name') == wanted]
        if len(found) > 1:
            self.module.fail('%s names service %s, which %d services have (%s): give its id. Nothing was sent'
                             % (where, json.dumps(wanted), len(found), ', '.join(sorted(item['id'] for item in found))))
        if wanted in self.new_services:
            return self.new_services[wanted]
        if found:
            return found[0]['id']
        self.module.fail('%s names service %s, which neither exists nor is in config.services. Nothing was sent' % (where, json.dumps(wanted)))

    def alert_by_source(self, params, where):
        if params.get('saved_search_id'):
            found = [item for item in self.alerts if str(item.get('savedSearchId')).lower() == params['saved_search_id'].lower()]
        else:
            boards = alert_rules.matching(self.dashboards, params.get('dashboard') or '')
            tiles = alert_rules.matching(boards[0].get('tiles') or [], params.get('tile') or '') if len(boards) == 1 else []
            found = [item for item in self.alerts if len(tiles) == 1 and item.get('tileId') == tiles[0].get('id')]
        if len(found) == 1:
            return found[0]['id']
        self.module.fail('%s has neither alert_id nor name, and %s: give it a name. Nothing was sent' % (
            where, 'no alert is on its source' if not found else '%d alerts are on its source (%s)' % (
                len(found), ', '.join(sorted(item['id'] for item in found)))))

    def judge(self, kind, params, where, check=True, matched=False):
        """One entry through its own module's code: its action, object and diff (a failure fails the task)."""
        result = self.run(kind, params, where, check)
        key = NOUN[kind]
        shown = result.get(key) or {}
        if params['state'] == 'absent':
            action = 'delete' if result.get('changed') else 'unchanged'
        elif result.get('changed'):
            action = 'update' if shown.get('id') else 'create'
        else:
            action = 'adopted' if matched or params.get(ID_OPTION[kind]) is None else 'unchanged'
        if check and action in ('create', 'update'):  # what later entries of the plan refer to, as this one leaves it
            if kind == 'services' and params.get('name'):
                self.new_services[params['name']] = shown.get('id') or 'planned-' + params['name']
            if kind == 'dashboards':
                self.module.planned_item(observability.PREFIX + '/dashboards', shown)
        return dict(type=key, action=action, id=shown.get('id') or params.get(ID_OPTION[kind]), name=shown.get('name', params.get('name')),
                    diff=result.get('diff'), kind=kind, params=params, where=where, deleted_alerts=result.get('deleted_alerts') or [])

    def run(self, kind, params, where, check):
        entry = (CloudEntry if APIS[kind] is cloud.API else ObservabilityEntry).__new__(
            CloudEntry if APIS[kind] is cloud.API else ObservabilityEntry).setup(self.module, kind, params, check, where)
        if kind == 'pipes' and check and (self.module.offline or params['service_id'].startswith('planned-')):
            # a service this plan creates (or, offline, any): as it will be once created, without pipes
            self.module.lists['%s/%s/pipes' % (self.services_path(), params['service_id'])] = []
            self.module.lists.setdefault(self.services_path(), []).append(dict(id=params['service_id'], state='running'))
        try:
            RUNS[kind](entry)
        except Done as done:
            return done.result
        except Failed as failed:
            result = dict((key, value) for key, value in failed.result.items() if key != 'invocation')
            if self.applied is not None:
                result.update(changed=bool(self.applied or failed.result.get('changed')), applied=summary(self.applied))
            self.module.fail(str(failed), **mask_secrets(result))
        self.module.fail('%s: its module ended without a result' % where)

    def purge(self, claimed):
        """overridden: every object of the types in resources that no entry names (and that carries owner_tag)."""
        owner = self.params['owner_tag']
        owned_services = set(item['id'] for item in self.services if not owner or _has_tag(item, owner))
        owned_boards = set(item['id'] for item in self.dashboards if not owner or '%s:%s' % next(iter(owner.items())) in (item.get('tags') or []))
        doomed = []
        for kind, items, owned in (('services', self.services, lambda item: item['id'] in owned_services),
                                   ('pipes', self.pipes, lambda item: item['serviceId'] in owned_services),
                                   ('dashboards', self.dashboards, lambda item: item['id'] in owned_boards),
                                   ('alerts', self.alerts, lambda item: str(dashboard_rules.alert_dashboard(item)).lower() in owned_boards)):
            if kind not in self.resources:
                continue
            for item in items:
                if item['id'] in claimed[kind] or not owned(item):
                    continue
                if kind == 'services' and item.get('state') == 'failed':
                    doomed.append(dict(type='service', action='skipped', id=item['id'], name=item.get('name'), kind=kind, diff=None,
                                       reason='failed: the API deletes stopped services only, and a failed service takes no stop'))
                    continue
                params = self.entry_params(kind, dict(((ID_OPTION[kind], item['id']),), **(
                    dict(service=item['serviceId']) if kind == 'pipes' else {})), '%s %s' % (NOUN[kind], item['id']), 'absent', checked=False)
                if kind == 'alerts' and str(dashboard_rules.alert_dashboard(item)).lower() in [
                        entry['id'] for entry in doomed if entry['kind'] == 'dashboards']:
                    continue  # deleted with its dashboard
                doomed.append(self.judge(kind, params, '%s %s' % (NOUN[kind], item['id'])))
        return doomed

    # --- the rails, the digest, applying -----------------------------------------------------------

    def rails(self, items):
        """Stop a plan before any write when it deletes more, or other, than the options allow."""
        deletions = [item for item in items if item['action'] == 'delete']
        ids = set(item['id'] for item in deletions)
        doomed = deletions + [dict(type='alert', id=gone.get('id'), name=gone.get('name')) for item in items
                              for gone in item['deleted_alerts'] if gone.get('id') not in ids]
        problems = []
        services = [item for item in doomed if item['type'] == 'service']
        if services and not self.params['allow_service_deletion']:
            problems.append('it deletes %s, and allow_service_deletion is false' % _listed(services))
        alerts = [item for item in doomed if item['type'] == 'alert']
        if alerts and not self.params['allow_alert_deletion']:
            problems.append('it deletes %s, and allow_alert_deletion is false' % _listed(alerts))
        if 0 <= self.params['max_deletions'] < len(doomed):
            problems.append('it deletes %d objects (%s), more than max_deletions (%d)' % (len(doomed), _listed(doomed), self.params['max_deletions']))
        if problems:
            self.module.fail('The plan was stopped before any write: %s. Nothing was sent' % '; '.join(problems),
                             summary=summary(items), plan_digest=digest(items))

    def apply(self, items):
        """The entries for real, in order (services, pipes, dashboards, alerts), then the deletions in reverse; a failure
        before the deletions deletes nothing."""
        self.applied = []
        changes = [item for item in items if item['action'] in ('create', 'update')]
        deletions = sorted((item for item in items if item['action'] == 'delete'), key=lambda item: -TYPES.index(item['kind']))
        for item in changes + deletions:
            params = dict(item['params'])
            if item['kind'] == 'pipes' and params['service_id'].startswith('planned-'):
                params['service_id'] = next(done['id'] for done in self.applied
                                            if done['type'] == 'service' and done['name'] == params['service_id'][len('planned-'):])
            self.applied.append(self.judge(item['kind'], params, item['where'], check=False))
        return self.applied


RUNS = dict(services=service.run, pipes=pipe.run, dashboards=dashboard.run, alerts=alert.run)
SECRETS = dict(kafka=('credentials',), postgres=('credentials',), stream=('access_key',),
               object_storage=('access_key', 'connection_string', 'service_account_key'))


def summary(items):
    found = dict((action, []) for action in ('create', 'update', 'delete', 'adopted', 'skipped', 'unchanged'))
    for item in items:
        shown = dict(type=item['type'], id=item['id'], name=item['name'])
        if item.get('reason'):
            shown['reason'] = item['reason']
        found[item['action']].append(shown)
    return found


def digest(items):
    """What a person reviews, as one hash: each object's action, identity and difference."""
    plan = sorted(json.dumps([item['type'], item['action'], item['id'] or '', item['name'] or '', mask_secrets(item['diff'])],
                             sort_keys=True, default=str) for item in items if item['action'] not in ('unchanged', 'adopted'))
    return hashlib.sha256('\n'.join(plan).encode('utf-8')).hexdigest()


def _listed(items):
    return ', '.join('%s %s' % (item['type'], json.dumps(item.get('name') or item.get('id'))) for item in items)


def _drop(found, key):
    if key:
        found.pop(key, None)
    return found


def _sorted(items, *first):
    return sorted(items, key=lambda item: tuple(str(item.get(key)) for key in first) + (str(item.get('name')), str(
        next((value for key, value in item.items() if key.endswith('_id') and key != 'service_id'), ''))))


def _unique_names(items):
    names = [item.get('name') for item in items]
    return set(name for name in names if names.count(name) == 1)


def _find(items, params, id_option):
    if params.get(id_option):
        return next((item for item in items if str(item.get('id')).lower() == params[id_option].lower()), None)
    return next((item for item in items if item.get('name') == params.get('name')), None)


def _has_tag(service, owner):
    tags = dict((tag.get('key'), tag.get('value')) for tag in service.get('tags') or [])
    return all(tags.get(key) == str(value) for key, value in owner.items())


def run(module):
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
    planner.deadline = CLOCK.monotonic() + module.params['wait_timeout']
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
    if module.check_mode or not changed:
        module.exit(changed=changed, diff=diff, **result)
    planner.apply(items)
    module.exit(changed=True, diff=diff, **result)


def render(planner):
    """rendered: the create request of each entry, offline: its checks run, nothing is read or sent."""
    module = planner.module
    module.offline = True
    module.lists = dict(((cloud.services_path(module.params['organization_id']), []), (observability.PREFIX + '/dashboards', []),
                         (observability.PREFIX + '/alerts', [])))
    module.client = lambda kind: None
    planner.service_id = lambda wanted, where: planner.new_services.get(wanted, wanted)
    for kind in TYPES:
        for index, entry in enumerate(planner.config[kind]):
            where = 'config.%s[%d]' % (kind, index)
            planner.judge(kind, planner.entry_params(kind, entry, where, 'present'), where)
    return module.rendered
