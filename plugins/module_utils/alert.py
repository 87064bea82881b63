# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.alert: an alert from creation to deletion, on a tile (found by id or name, read live) or a saved search;
an update sends the whole alert, checked first against what the server keeps."""

import functools
import json

from ansible_collections.engine.cloud.plugins.module_utils import alert_rules, dashboard_rules, validate
from ansible_collections.engine.cloud.plugins.module_utils.module import wait_options
from ansible_collections.engine.cloud.plugins.module_utils.resource import Kind, Lifecycle
from ansible_collections.engine.cloud.plugins.module_utils.observability import PREFIX, team_errors


SPEC = dict(
    state=dict(type='str', choices=['present', 'absent'], default='present'),
    alert_id=dict(type='str'),
    name=dict(type='str'),
    dashboard=dict(type='str'),
    tile=dict(type='str'),
    saved_search_id=dict(type='str'),
    group_by=dict(type='str'),
    threshold=dict(type='float'),
    threshold_type=dict(type='str', choices=list(alert_rules.THRESHOLD_TYPES)),
    threshold_max=dict(type='float'),
    interval=dict(type='str', choices=list(alert_rules.INTERVAL_MINUTES)),
    channels=dict(type='list', elements='str'),
    alert_message=dict(type='str'),
    note=dict(type='str'),
    num_consecutive_windows=dict(type='int'),
    schedule_offset_minutes=dict(type='int'),
    schedule_start_at=dict(type='str'),
    **wait_options(60))
OPTIONS = dict(required_one_of=[('alert_id', 'name')], required_together=[('dashboard', 'tile')],
               required_if=[('threshold_type', kind, ('threshold_max',)) for kind in alert_rules.BETWEEN],
               mutually_exclusive=[('saved_search_id', 'dashboard'), ('saved_search_id', 'tile'), ('group_by', 'tile')])


def listing(module):
    """Every alert (all pages), also kept on the module: reads show which fields the server keeps."""
    alerts = module.list_all('/alerts')
    module.alerts_read.extend(alerts)
    return alerts


KIND = Kind(noun='alert', key='alert', id_option='alert_id', collection=lambda module: PREFIX + '/alerts',
            item=lambda module, alert_id: '%s/alerts/%s' % (PREFIX, alert_id.lower()), listing=listing)


def run(module):
    params = module.params
    module.fail_on_errors(validate.object_id('alert_id', params['alert_id']), validate.object_id('saved_search_id', params['saved_search_id']),
                          *alert_rules.option_errors(params))
    module.alerts_read = []
    life = Lifecycle(module, KIND)
    current = life.find()
    if params['state'] == 'absent':
        if current is None:
            life.absent()
        life.delete(current)
    source, doomed = resolve_source(module, current)
    merged = alert_rules.merge({} if current is None else alert_rules.definition(current), params, source)
    module.fail_on_errors(*alert_rules.merged_errors(merged, params, current is None))
    seen = module.alerts_read + ([] if current is None else [current])
    if current is None:
        create(module, life, merged, doomed, seen)
    update(module, life, current, source, doomed, seen)


def refuse(module, errors, sent, seen, channels):
    """Fail before any write with every reason not to write sent: errors, and what the server (as the reads seen show it)
    or the team (in check mode) would not keep of it."""
    errors = errors + [alert_rules.channels_error(seen, channels)] + alert_rules.era_errors(sent, seen)
    errors = [error for error in errors + team_errors(module, '/webhooks', channels, 'channel') if error]
    module.fail_on_errors(errors and '; '.join(errors) + '. Nothing was sent')


def create(module, life, merged, doomed, seen):
    """POST the alert; an answer without a field sent (a server older than its reads showed) fails the task."""
    sent = alert_rules.body(merged)
    refuse(module, [doomed], sent, seen, merged['channels'])
    alert = life.create(sent, sent)
    dropped = alert_rules.dropped_errors(sent, alert)
    if dropped:
        module.fail('alert %s was created, but %s' % (alert.get('id'), '; '.join(dropped)), changed=True, alert=alert)
    module.exit(changed=True, diff=dict(before={}, after=sent), alert=alert)


def update(module, life, current, source, doomed, seen):
    """The whole alert in one PUT when anything differs, checked first against what the server keeps. An alert on a tile
    that cannot carry alerts is updated with a warning when it is already there, and not moved there."""
    plan = functools.partial(alert_rules.plan, params=module.params, source=source)
    body = plan(current)[0]
    if body:
        moved = source is not None and not alert_rules.on_tile(current, source['dashboard'], source['tile'])
        refuse(module, [alert_rules.write_errors(current, body), moved and doomed], body, seen, module.params['channels'])
        if source is None and current.get('source', 'tile') == 'tile':
            doomed = current_tile_error(module, current)
    if doomed:
        module.warn(doomed)
    path = KIND.item(module, current['id'])

    def write(sent):
        alert = module.unwrap(module.request('PUT', path, body=sent, once=True))
        dropped = alert_rules.dropped_errors(sent, alert)
        if dropped:
            module.fail('alert %s was updated, but %s' % (current['id'], '; '.join(dropped)), changed=True, alert=alert)
        return alert
    alert, diff = module.apply(lambda: life.read(current['id']), plan, write, current=current)
    module.exit(changed=diff is not None, diff=diff, alert=alert)


def current_tile_error(module, current):
    """Why the tile an alert is on cannot carry alerts (one read of the dashboards), or None (also for a tile reads hide)."""
    dashboard_id = str(dashboard_rules.alert_dashboard(current)).lower()
    dashboard = next((item for item in module.read('/dashboards') or [] if str(item.get('id')).lower() == dashboard_id), None)
    tile = next((item for item in (dashboard or {}).get('tiles') or [] if item.get('id') == current.get('tileId')), None)
    return tile and alert_rules.tile_error(tile, dashboard)


def resolve_source(module, current):
    """(the source the task gives, in ids, None to keep the current one; why its tile cannot carry alerts, or None). The
    tile an alert is on may be missing from reads (a PromQL tile): then the alert keeps it."""
    params = module.params
    if params['saved_search_id'] is not None:
        return dict(saved_search_id=params['saved_search_id'].lower()), None
    if params['tile'] is None:
        return None, None

    dashboards = module.read('/dashboards') or []  # live: the write's target is never taken from an earlier task's read
    dashboard = the_one(module, 'dashboard', params['dashboard'], dashboards, '')
    if dashboard is None:
        return dict(dashboard=params['dashboard'], tile=params['tile']), None
    on_board = dashboard.get('tiles') or []
    if current is not None and not alert_rules.matching(on_board, params['tile']) and alert_rules.on_tile(current, dashboard['id'], params['tile']):
        return dict(dashboard=dashboard['id'], tile=current['tileId']), None
    tile = the_one(module, 'tile', params['tile'], on_board, ' on dashboard %s (%s)' % (json.dumps(dashboard.get('name')), dashboard['id']))
    planned = tile is None or tile.get('id') is None  # not there yet, or a tile the organization's plan adds first: named until it has an id
    return (dict(dashboard=dashboard.get('id') or params['dashboard'], tile=params['tile'] if planned else tile['id']),
            tile and alert_rules.tile_error(tile, dashboard))


def the_one(module, noun, wanted, items, where):
    """The item whose id, else name, is wanted. In check mode, none is a change with a warning (None), as an earlier task of the
    play may add it; within the organization module's whole plan (every dashboard as the plan leaves it is known), a failure."""
    found = alert_rules.matching(items, wanted)
    if module.check_mode and not found and not getattr(module, 'whole_plan', False):
        module.warn('check mode: no %s%s has the id or name %s yet. This is reported as a change, as if an earlier task of this play '
                    'adds it; a real run fails here if none does' % (noun, where, json.dumps(wanted)))
        return None
    module.fail_on_errors(alert_rules.matching_error(noun, wanted, found, where))
    return found[0]
