# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The organization module's plan: what it reads, what each entry's own module code says in check mode, the purge of
what no entry names, the rails, and the apply in order (organization.py holds the module and the module object an
entry's code runs on)."""

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.dict_transformations import _camel_to_snake

from ansible_collections.engine.cloud.plugins.module_utils import alert, alert_rules, cloud, dashboard, dashboard_rules, observability
from ansible_collections.engine.cloud.plugins.module_utils import pipe, pipe_rules, service
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import mask_secrets
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.module import CLOUD_CONNECTION, COMMON_SPEC, OBSERVABILITY_CONNECTION
from ansible_collections.engine.cloud.plugins.module_utils.service_filter import has_tags

TYPES = ('services', 'pipes', 'dashboards', 'alerts')
MODULES = dict(services=service, pipes=pipe, dashboards=dashboard, alerts=alert)  # the code each type's entries run
NOUN = dict(services='service', pipes='pipe', dashboards='dashboard', alerts='alert')
ID_OPTION = dict((kind, noun + '_id') for kind, noun in NOUN.items())
APIS = dict(services=cloud.API, pipes=cloud.API, dashboards=observability.API, alerts=observability.API)
PURGES = ('purge_ip_access_list', 'purge_private_endpoint_ids', 'purge_tags')
# The options an entry has besides its module's (service_id is a connection option of the cloud modules; None: decided here).
MORE_OPTIONS = dict(services=dict(service_id=dict(type='str'), **dict((name, dict(type='bool')) for name in PURGES)),
                    pipes=dict(service=dict(type='str', required=True)), dashboards=dict(allow_alert_deletion=dict(type='bool')), alerts={})
ENTRY_SPECS = dict((kind, dict(dict((name, option) for name, option in MODULES[kind].SPEC.items() if name not in ('state', 'wait', 'wait_timeout')),
                               **MORE_OPTIONS[kind])) for kind in TYPES)
# The checks of each module that an argument spec holds (an alert entry may have neither alert_id nor name: it is then
# found by its source).
RULES = ('required_one_of', 'required_together', 'required_if', 'mutually_exclusive')
ENTRY_RULES = dict((kind, dict((key, rule) for key, rule in MODULES[kind].OPTIONS.items()
                               if key in RULES and (kind, key) != ('alerts', 'required_one_of'))) for kind in TYPES)


class Ended(Exception):
    """An entry's module code ended: with its result (msg None), or failed with msg."""

    def __init__(self, result, msg=None):
        super(Ended, self).__init__(msg)
        self.result, self.msg = result, msg


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


class Planner:
    def __init__(self, module):
        self.module, self.params = module, module.params
        self.config = module.entries
        state, owner = self.params['state'], self.params['owner_tag']
        self.resources = self.params['resources'] or (list(TYPES) if state in ('gathered', 'overridden')
                                                      else [kind for kind in TYPES if self.config[kind]])
        self.owner = dict((key, str(value)) for key, value in (owner or {}).items())  # a service's tag
        self.board_tag = '%s:%s' % next(iter(owner.items())) if owner else None  # a dashboard's tag
        self.applied = None  # while applying: what was done so far
        self.new_services = {}  # name -> placeholder id, in check mode
        self.services, self.pipes, self.dashboards, self.alerts = [], [], [], []
        self.clouds = None  # the cloud lists' reading
        self.deadline = CLOCK.monotonic() + self.params['wait_timeout']
        self.services_path = cloud.services_path(self.params['organization_id'])

    def read(self):
        """Every list in scope, before anything is planned: the cloud API's lists in a thread (its pacer's windows are
        most of the floor), the observability API's here, so that their plans are made while the cloud lists come."""
        scope = set(self.resources) | set(kind for kind in TYPES if self.config[kind])
        if scope & {'services', 'pipes'}:
            request = self.module.client('services').request
            self.module.background = ThreadPoolExecutor(max_workers=1)
            self.clouds = self.module.background.submit(self.read_cloud, request, 'pipes' in scope)
        if scope & {'dashboards', 'alerts'}:
            request = self.module.client('dashboards').request
            try:
                self.keep(dict(read_list(observability.PREFIX + '/dashboards', request), **read_list(observability.PREFIX + '/alerts', request)))
            except ReadFailed as failure:
                self.module.fail(str(failure))
            self.dashboards, self.alerts = [self.module.lists[observability.PREFIX + path] for path in ('/dashboards', '/alerts')]

    def read_cloud(self, request, with_pipes):
        everything = self.params['state'] in ('gathered', 'overridden') and 'pipes' in self.resources
        named = set(entry.get('service') for entry in self.config['pipes'])
        lists = read_list(self.services_path, request)
        services = [item for item in lists[self.services_path] if item.get('state') not in cloud.TERMINAL]
        for owner in services if with_pipes else ():
            if everything or owner['id'] in named or owner.get('name') in named:
                lists.update(read_list('%s/%s/pipes' % (self.services_path, owner['id']), request))
        return services, lists

    def cloud_lists(self):
        if self.clouds is not None:
            try:
                self.services, lists = self.clouds.result()
            except ReadFailed as failure:
                self.module.fail(str(failure))
            except Exception as failure:  # pylint: disable=broad-except
                self.module.fail('reading the cloud lists failed, so nothing was planned and nothing was sent: %r' % failure)
            self.clouds = None
            self.keep(lists)
            self.pipes = [dict(item, serviceId=item.get('serviceId') or owner['id']) for owner in self.services
                          for item in lists.get('%s/%s/pipes' % (self.services_path, owner['id']), ())]

    def keep(self, lists):
        self.module.lists.update(lists)
        self.module.known.update((collection, list(items)) for collection, items in lists.items())

    def gathered(self):
        self.cloud_lists()
        found = dict(services=[service.definition(item) for item in self.services], pipes=[],
                     dashboards=[dashboard_rules.definition(item) for item in self.dashboards], alerts=[])
        named = _unique_names(self.services)
        for item in self.pipes:
            settings = self.module.client('pipes').request('GET', '%s/%s/pipes/%s/settings' % (
                self.services_path, item['serviceId'], item['id'])).get('result')
            owner = next(owner for owner in self.services if owner['id'] == item['serviceId'])
            found['pipes'].append(dict(pipe.definition(item, settings), service=owner['name'] if owner['name'] in named else owner['id']))
        boards = _unique_names(self.dashboards)
        for item in self.alerts:
            entry = alert_rules.definition(item)
            board = next((board for board in self.dashboards if str(board.get('id')) == str(entry.get('dashboard')).lower()), None)
            if board is not None:
                tiles = _unique_names(board.get('tiles') or [])
                tile = next((tile for tile in board.get('tiles') or [] if tile.get('id') == entry.get('tile')), None)
                entry['dashboard'] = board['name'] if board.get('name') in boards else board['id']
                if tile is not None and tile.get('name') in tiles:
                    entry['tile'] = tile['name']
            found['alerts'].append(entry)
        for kind in TYPES if not self.params['include_ids'] else ():
            for entry in found[kind]:
                entry.pop(ID_OPTION[kind], None)
        found = dict((kind, _sorted(found[kind], *(('service',) if kind == 'pipes' else ()))) for kind in TYPES)
        omitted = ['services[%d].password' % index for index in range(len(found['services']))]
        for index, entry in enumerate(found['pipes']):  # the secrets among the fields no read shows
            for kind in pipe_rules.SOURCE_KINDS:
                option = _camel_to_snake(kind)
                if option in entry['source']:
                    omitted += ['pipes[%d].source.%s.%s' % (index, option, _camel_to_snake(field))
                                for field in pipe_rules.WRITE_ONLY[kind] if field in pipe_rules.SECRET_FIELDS]
        return dict((kind, found[kind]) for kind in self.resources), omitted

    def plan(self):
        """Every entry's change and every deletion, each judged in check mode by its own module's code: the observability
        API's first (their lists are read first), then the cloud's; the plan in TYPES order, each type's deletions last."""
        planned = dict((kind, []) for kind in TYPES)
        purged = dict((kind, []) for kind in TYPES)
        for kinds in (('dashboards', 'alerts'), ('services', 'pipes')):
            if kinds[0] == 'services':
                self.cloud_lists()
            claimed = dict((kind, set()) for kind in kinds)
            for kind in kinds:
                planned[kind] = self.plan_entries(kind, claimed[kind])
            for kind in kinds if self.params['state'] == 'overridden' else ():
                purged[kind] = self.purge(kind, claimed[kind], purged['dashboards']) if kind in self.resources else []
        self.module.lists = dict((collection, list(items)) for collection, items in self.module.known.items())
        return [item for kind in TYPES for item in planned[kind]] + [item for kind in TYPES for item in purged[kind]]

    def plan_entries(self, kind, claimed):
        named = [(entry.get('service'), entry.get('name')) for entry in self.config[kind] if not entry.get(ID_OPTION[kind]) and entry.get('name')]
        twice = sorted(set(name for owner, name in named if named.count((owner, name)) > 1))
        if twice:
            self.module.fail('config.%s names %s more than once without an id: one entry each. Nothing was sent' % (
                kind, ', '.join(json.dumps(name) for name in twice)))
        items = []
        for index, entry in enumerate(self.config[kind]):
            where = 'config.%s[%d]' % (kind, index)
            params = self.entry_params(kind, entry, where, 'absent' if self.params['state'] == 'deleted' else 'present')
            item = self.judge(kind, params, where, adopted=not entry.get(ID_OPTION[kind]))
            if item['id'] is not None:
                if item['id'] in claimed:
                    self.module.fail('%s names %s %s, which an earlier entry names too. Nothing was sent' % (where, NOUN[kind], item['id']))
                claimed.add(item['id'])
            items.append(item)
        return items

    def entry_params(self, kind, entry, where, state):
        """The params of an entry's module run: the task's own options, the entry (checked by the module's check_entries),
        and what the organization decides (purges, owner tag, references)."""
        params = dict(dict((name, self.params[name]) for name in list(COMMON_SPEC) + list(CLOUD_CONNECTION) + list(OBSERVABILITY_CONNECTION)),
                      state=state, wait_timeout=max(1, int(self.deadline - CLOCK.monotonic())))
        params.update(entry)
        params['wait'] = not (kind == 'pipes' and state == 'present')  # a new pipe is not waited for: nothing depends on it
        if kind == 'services':
            for name in PURGES:
                params[name] = self.params['state'] == 'overridden' if params.get(name) is None else params[name]
            if self.owner and (params.get('tags') is not None or _find(self.services, params, 'service_id') is None):
                params['tags'] = dict(params.get('tags') or {}, **self.owner)
        elif kind == 'pipes':
            params['service_id'] = self.service_id(params.pop('service'), where)
            params['update_credentials'] = params.get('update_credentials') or 'on_create'
        elif kind == 'dashboards':
            if params.get('allow_alert_deletion') is None:
                params['allow_alert_deletion'] = self.params['allow_alert_deletion']
            if self.board_tag and (params.get('tags') is not None or _find(self.dashboards, params, 'dashboard_id') is None):
                params['tags'] = list(params.get('tags') or []) + ([] if self.board_tag in (params.get('tags') or []) else [self.board_tag])
        elif params.get('alert_id') is None and params.get('name') is None:
            params['alert_id'] = self.alert_by_source(params, where)
        return params

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

    def judge(self, kind, params, where, check=True, adopted=False):
        """One entry through its own module's code: its action, object and diff (a failure fails the task)."""
        result = self.run(kind, params, where, check)
        shown = result.get(NOUN[kind]) or {}
        if params['state'] == 'absent':
            action = 'delete' if result.get('changed') else 'unchanged'
        elif result.get('changed'):
            action = 'update' if shown.get('id') else 'create'
        else:
            action = 'adopted' if adopted or params.get(ID_OPTION[kind]) is None else 'unchanged'
        if check and action in ('create', 'update'):  # what later entries of the plan refer to, as this one leaves it
            if kind == 'services' and params.get('name'):
                self.new_services[params['name']] = shown.get('id') or 'planned-' + params['name']
            if kind == 'dashboards':  # an alert on a renamed dashboard
                boards = observability.PREFIX + '/dashboards'
                self.module.lists[boards] = [board for board in self.module.lists[boards]
                                             if shown.get('id') is None or board.get('id') != shown['id']] + [shown]
        return dict(type=NOUN[kind], action=action, id=shown.get('id') or params.get(ID_OPTION[kind]), name=shown.get('name', params.get('name')),
                    diff=result.get('diff'), kind=kind, params=params, where=where, deleted_alerts=result.get('deleted_alerts') or [])

    def run(self, kind, params, where, check):
        if kind == 'pipes' and check and (self.module.offline or params['service_id'].startswith('planned-')):
            # a service this plan creates (or, offline, any): as it will be once created, without pipes
            self.module.lists['%s/%s/pipes' % (self.services_path, params['service_id'])] = []
            self.module.lists.setdefault(self.services_path, []).append(dict(id=params['service_id'], state='running'))
        try:
            MODULES[kind].run(self.module.entry(kind, params, check, where))
        except Ended as ended:
            if ended.msg is None:
                return ended.result
            if self.applied is not None:
                ended.result.update(changed=bool(self.applied or ended.result.get('changed')), applied=summary(self.applied))
            self.module.fail(ended.msg, **ended.result)  # fail masks the secrets
        self.module.fail('%s: its module ended without a result' % where)

    def purge(self, kind, claimed, doomed_boards):
        """overridden: every object of kind that no entry names (and that carries owner_tag)."""
        owned_services = set(item['id'] for item in self.services if has_tags(item, self.owner))
        owned_boards = set(item['id'] for item in self.dashboards if not self.board_tag or self.board_tag in (item.get('tags') or []))
        doomed_boards = set(item['id'] for item in doomed_boards)
        items, owned = dict(services=(self.services, lambda item: item['id'] in owned_services),
                            pipes=(self.pipes, lambda item: item['serviceId'] in owned_services),
                            dashboards=(self.dashboards, lambda item: item['id'] in owned_boards),
                            alerts=(self.alerts, lambda item: str(dashboard_rules.alert_dashboard(item)).lower() in owned_boards))[kind]
        doomed = []
        for item in items:
            if item['id'] in claimed or not owned(item):
                continue
            if kind == 'services' and item.get('state') == 'failed':
                doomed.append(dict(type='service', action='skipped', id=item['id'], name=item.get('name'), kind=kind, diff=None,
                                   deleted_alerts=[], reason='failed: the API deletes stopped services only, and a failed service takes no stop'))
                continue
            if kind == 'alerts' and str(dashboard_rules.alert_dashboard(item)).lower() in doomed_boards:
                continue  # deleted with its dashboard
            where = '%s %s' % (NOUN[kind], item['id'])
            entry = ArgumentSpecValidator(ENTRY_SPECS[kind]).validate(dict(((ID_OPTION[kind], item['id']),), **(
                dict(service=item['serviceId']) if kind == 'pipes' else {}))).validated_parameters
            doomed.append(self.judge(kind, self.entry_params(kind, entry, where, 'absent'), where))
        return doomed

    def rails(self, items):
        """Stop a plan before any write when it deletes more, or other, than the options allow."""
        deletions = [item for item in items if item['action'] == 'delete']
        ids = set(item['id'] for item in deletions)
        doomed = deletions + [dict(type='alert', id=gone.get('id'), name=gone.get('name')) for item in items
                              for gone in item['deleted_alerts'] if gone.get('id') not in ids]
        problems = []
        for noun in ('service', 'alert'):
            found = [item for item in doomed if item['type'] == noun]
            if found and not self.params['allow_%s_deletion' % noun]:
                problems.append('it deletes %s, and allow_%s_deletion is false' % (_listed(found), noun))
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


def listed(collection, request):
    """Every item of the list at collection (the alerts: all pages), as the API answers it."""
    if collection.endswith('/alerts'):
        return observability.list_all(request, collection[len(observability.PREFIX):])
    return request('GET', collection, None).get('data' if collection.startswith(observability.PREFIX) else 'result')


def read_list(collection, request):
    """{collection: every item of one list}; a failed or cut listing raises ReadFailed."""
    kind = collection.rsplit('/', 1)[1]
    try:
        items = listed(collection, request)
    except (ApiError, ValueError) as error:
        raise ReadFailed('the %s could not be read whole, so nothing was planned and nothing was sent: %s' % (kind, error))
    if not isinstance(items, list):
        raise ReadFailed('the %s list is not a list, so nothing was planned and nothing was sent' % kind)
    return {collection: items}


class ReadFailed(Exception):
    pass


def _listed(items):
    return ', '.join('%s %s' % (item['type'], json.dumps(item.get('name') or item.get('id'))) for item in items)


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
