# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.dashboard: a dashboard from creation to deletion; its tiles compared in one normal form (tiles.py),
tile ids kept, no alert deleted without allow_alert_deletion."""

import json

from ansible_collections.engine.cloud.plugins.module_utils import dashboard_rules as rules
from ansible_collections.engine.cloud.plugins.module_utils import tiles
from ansible_collections.engine.cloud.plugins.module_utils.module import wait_options
from ansible_collections.engine.cloud.plugins.module_utils.resource import Kind, Lifecycle
from ansible_collections.engine.cloud.plugins.module_utils.observability import PREFIX, team_errors


def _str(**more):
    return dict(type='str', **more)


SERIES = dict(
    type=_str(required=True, choices=list(tiles.SERIES_DISPLAY)), source_id=_str(), data_source=_str(),
    agg_fn=_str(choices=list(rules.AGG_FNS)), field=_str(), where=_str(), where_language=_str(choices=list(rules.WHERE_LANGUAGES)),
    group_by=dict(type='list', elements='str'), alias=_str(), level=dict(type='float'), metric_data_type=_str(),
    metric_name=_str(), number_format=dict(type='dict'), display_type=_str(choices=['line', 'stacked_bar']),
    sort_order=_str(choices=['asc', 'desc']), fields=dict(type='list', elements='str'), content=_str())
TILE = dict(
    name=_str(required=True), x=dict(type='int', required=True), y=dict(type='int', required=True),
    w=dict(type='int', required=True), h=dict(type='int', required=True), container_id=_str(), tab_id=_str(),
    series=dict(type='list', elements='dict', options=SERIES), as_ratio=dict(type='bool'), config=dict(type='dict'))
SPEC = dict(
    state=_str(choices=['present', 'absent'], default='present'),
    dashboard_id=_str(), name=_str(), tags=dict(type='list', elements='str'),
    tiles=dict(type='list', elements='dict', options=TILE, required_by=dict(as_ratio='series')),
    containers=dict(type='list', elements='dict'),
    allow_alert_deletion=dict(type='bool', default=False),
    **wait_options(60))
OPTIONS = dict(required_one_of=[('dashboard_id', 'name')])

KIND = Kind(noun='dashboard', key='dashboard', id_option='dashboard_id',
            collection=lambda module: PREFIX + '/dashboards', item=lambda module, dashboard_id: PREFIX + '/dashboards/' + dashboard_id)


def finish(module, changed, diff=None, **result):
    """Exit with result, secrets masked but no tile masked for its name."""
    if diff is not None and module._diff:
        result['diff'] = diff
    module.exit_json(changed=changed, **rules.masked(result))


def run(module):
    module.fail_on_errors(*rules.option_errors(module.params))
    life = Lifecycle(module, KIND)
    current = life.find()
    if module.params['state'] == 'absent':
        if current is None:
            module.exit(changed=False, dashboard={}, deleted_alerts=[])
        # the lifecycle confirms the DELETE by a read: the API answers a delete of nothing with 200 too
        doomed = allowed_deletions(module, rules.deleted_alerts(module.list_all('/alerts'), current))
        life.delete(current, before=rules.with_alerts(dict(before=current, after={}), doomed)['before'], deleted_alerts=doomed)
    if current is None:
        body = planned(module, lambda: rules.dashboard_body(module.params, {}))
        check_body(module, body, {})
        created = life.create(body, dict(body, id=None))
        module.exit(changed=True, diff=dict(before={}, after=created), dashboard=created, deleted_alerts=[])
    update(module, life, current)


def planned(module, plan):
    try:
        return plan()
    except rules.PlanError as error:
        module.fail(str(error))


def update(module, life, current):
    """One PUT of what differs, after the alerts it would delete were allowed."""
    body, diff = planned(module, lambda: rules.plan(module.params, current))
    if not body:
        finish(module, False, dashboard=current, deleted_alerts=[])
    check_body(module, body, current)
    doomed = allowed_deletions(module, rules.deleted_alerts(module.list_all('/alerts'), current, body['tiles']))
    diff = rules.with_alerts(diff, doomed)
    if module.check_mode:
        finish(module, True, diff, dashboard=rules.predicted(current, body), deleted_alerts=doomed)
    path = KIND.item(module, current['id'])
    # once: a PUT whose answer is lost is not replayed (a replay would give the tiles it added new ids); apply reads
    # the dashboard again and sends only what still differs
    dashboard, dummy = module.apply(lambda: life.read(current['id']), lambda seen: planned(module, lambda: rules.plan(module.params, seen)),
                                    lambda sent: module.unwrap(module.request('PUT', path, body=sent, once=True)), current=current)
    finish(module, True, diff, dashboard=dashboard, deleted_alerts=doomed)


def check_body(module, body, current):
    """A tile placed in a section the dashboard lacks fails first (reads leave containers out when there is none); then,
    in check mode, a source id the team does not have."""
    module.fail_on_errors(*rules.placement_errors(body['tiles'], body.get('containers', current.get('containers') or [])))
    module.fail_on_errors(*team_errors(module, '/sources', set(source for tile in body['tiles'] for source in [
        (tile.get('config') or {}).get('sourceId')] + [item.get('sourceId') for item in tile.get('series') or []] if source), 'sourceId'))


def allowed_deletions(module, doomed):
    if doomed and not module.params['allow_alert_deletion']:
        named = '; '.join('%s (%s) on tile %s: %s' % (json.dumps(alert['name']), alert['id'], json.dumps(alert['tile']), alert['reason'])
                          for alert in doomed)
        module.fail('this change would delete %d alert%s: %s. Set allow_alert_deletion: true to let it delete them, or keep '
                    'their tiles (same name, a display type that can carry alerts: %s). Nothing was sent'
                    % (len(doomed), '' if len(doomed) == 1 else 's', named, ', '.join(sorted(rules.CAN_CARRY_ALERTS))), alerts=doomed)
    return doomed
