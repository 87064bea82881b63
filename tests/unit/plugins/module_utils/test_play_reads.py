# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""List reads kept for the later tasks of one playbook run (module_utils/play_reads.py), with the modules against the
simulator in process: a no-op play pays one read per list; a write drops what is kept; a change is planned on a
live read; an answer older than the age bound, of another token or URL, or of another run never serves; check mode
and lost answers read live."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import play_reads
from ansible_collections.engine.cloud.plugins.modules import alert, alert_info, dashboard, dashboard_info, pipe, service
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    ALERT_BETWEEN, DASHBOARD_HEALTH, PIPE_KAFKA, SERVICE_PROD, pipe_path, service_path)

CONTROLLER_PROCESS = play_reads.controller_process  # the real one (conftest puts every module run outside a playbook run)
DASHBOARDS = ('GET', '/api/v2/dashboards')
ALERT_LIST = ('GET', '/api/v2/alerts?limit=1000&offset=0')
SERVICES = ('GET', service_path()[:-len(SERVICE_PROD) - 1])


NEW = dict(name='Made by the play', dashboard=DASHBOARD_HEALTH, tile='CPU usage', threshold=1, threshold_type='above', interval='5m')


def one_alert(alert_id):
    return ('GET', '/api/v2/alerts/' + alert_id)


def one_dashboard(dashboard_id):
    return ('GET', '/api/v2/dashboards/' + dashboard_id)


def task(run, sim, module, args, check=False):
    """One task of the play: (its result, the requests it sent, as (method, path[?query]))."""
    sim.clear_requests()
    result = run.main(module, args, check, False)
    assert not result.get('failed'), result.get('msg')
    sent = [(entry['method'], entry['path'] + ('?limit=%(limit)s&offset=%(offset)s' % entry['query'] if entry['query'] else ''))
            for entry in sim.requests()]
    return result, sent


def exported(run, sim):
    """The definitions of every dashboard and alert, as dashboard_info and alert_info export them (in another run)."""
    dashboards = task(run, sim, dashboard_info, {})[0]['dashboards']
    alerts = task(run, sim, alert_info, {})[0]['alerts']
    return [item['definition'] for item in dashboards], [item['definition'] for item in alerts]


def apply(run, sim, dashboards, alerts, check=False):
    """The guide's apply play: every dashboard, then every alert. [(module, id, changed, requests)] of its tasks."""
    done = []
    for module, definitions, key in ((dashboard, dashboards, 'dashboard_id'), (alert, alerts, 'alert_id')):
        for definition in definitions:
            result, sent = task(run, sim, module, definition, check)
            done.append((module, definition[key], result['changed'], sent))
    return done


def sent(done):
    return [request for dummy, dummy2, dummy3, requests in done for request in requests]


def test_a_no_op_apply_reads_each_list_once_in_a_playbook_run_and_every_task_reads_outside_one(run, sim, play_run):
    dashboards, alerts = exported(run, sim)
    alone = apply(run, sim, dashboards, alerts)
    # outside a playbook run (as before): one GET per dashboard, and the alert and the dashboards per alert
    assert len(sent(alone)) == len(dashboards) + len(alerts) + len([item for item in alerts if 'tile' in item])
    play_run()
    done = apply(run, sim, dashboards, alerts)
    assert not any(changed for dummy, dummy2, changed, dummy3 in done)
    ids = [item['dashboard_id'] for item in dashboards]
    # two dashboards by id alone, then the list, kept; two alerts alone, then the list; the kept dashboards serve
    # every alert's tile but a PromQL tile, which reads leave out (its alert reads the dashboards again, live)
    assert unresolvable(alerts, sim) == 1
    assert sent(done) == [one_dashboard(ids[0]), one_dashboard(ids[1]), DASHBOARDS, one_alert(alerts[0]['alert_id']),
                          one_alert(alerts[1]['alert_id']), ALERT_LIST, DASHBOARDS]
    assert [item['method'] for item in sim.requests()] == ['GET'] * len(sim.requests())


def unresolvable(alerts, sim):
    """How many alerts of the apply name a tile that reads do not show (a PromQL tile)."""
    shown = dict((item['id'], [tile['id'] for tile in item['tiles'] if 'promql' not in str(tile).lower()]) for item in sim.state()['dashboards'])
    return len([item for item in alerts if 'tile' in item and item['tile'] not in shown.get(item['dashboard'], ())])


def test_a_change_is_planned_on_a_live_read_and_drops_what_the_run_kept(run, sim, play_run):
    dashboards, alerts = exported(run, sim)
    play_run()
    apply(run, sim, [], alerts[:4])  # the alert list is kept from the third
    changed = dict(alerts[3], threshold=alerts[3]['threshold'] + 1)
    result, requests = task(run, sim, alert, changed)
    assert result['changed']
    # the kept alert differs: read live, then the PUT; the tile's dashboard came from a read this task made
    assert [method for method, dummy in requests] == (['GET'] * (len(requests) - 1)) + ['PUT']
    assert one_alert(changed['alert_id']) in requests
    # the write dropped the kept alert list: the next task reads it again
    dummy, requests = task(run, sim, alert, alerts[4])
    assert ALERT_LIST in requests or one_alert(alerts[4]['alert_id']) in requests


def test_a_dashboard_change_is_planned_on_a_live_read(run, sim, play_run):
    dashboards, dummy = exported(run, sim)
    play_run()
    apply(run, sim, dashboards, [])
    moved = dict(dashboards[3], tiles=[dict(tile, y=tile['y'] + 1) for tile in dashboards[3]['tiles']])
    result, requests = task(run, sim, dashboard, moved)
    path = '/api/v2/dashboards/' + moved['dashboard_id']
    assert result['changed'] is True
    assert requests == [('GET', path), ALERT_LIST, ('PUT', path)]


def test_a_write_drops_the_kept_lists_and_the_next_task_reads_live(run, sim, play_run):
    dashboards, alerts = exported(run, sim)
    play_run()
    apply(run, sim, dashboards[:3], alerts[:3])
    dummy, requests = task(run, sim, alert, alerts[3])
    assert requests == []  # kept
    changed = dict(alerts[0], threshold=alerts[0]['threshold'] + 1)
    dummy, requests = task(run, sim, alert, changed)
    assert requests[0] == one_alert(changed['alert_id']) and requests[-1][0] == 'PUT'
    dummy, requests = task(run, sim, alert, alerts[3])
    assert requests[0] == ALERT_LIST  # the run had read more than two alerts by id: the list again, live
    assert stored_threshold(sim, changed['alert_id']) == changed['threshold']


def stored_threshold(sim, alert_id):
    return sim.find('alerts', alert_id)['threshold']


def test_a_change_made_outside_the_run_shows_once_the_kept_answer_is_older_than_the_age_bound(run, sim, clock, play_run):
    """The cost of the reuse, bounded: an edit outside the play (the UI) is not seen by a no-op decision while the kept
    answer is younger than MAX_AGE; it is after."""
    dummy, alerts = exported(run, sim)
    play_run()
    apply(run, sim, [], alerts[:3])
    target = alerts[3]
    sim.edit('alerts', target['alert_id'], dict(threshold=target['threshold'] + 5))
    clock.advance(play_reads.MAX_AGE - 1)
    result, requests = task(run, sim, alert, target)
    assert requests == [] or requests == [DASHBOARDS]
    assert result['changed'] is False  # the kept answer (59 s old) still serves
    clock.advance(2)
    result, requests = task(run, sim, alert, target)
    assert requests[0] == ALERT_LIST and result['changed'] is True  # 61 s: read again, the edit shows and is undone
    assert stored_threshold(sim, target['alert_id']) == target['threshold']


def test_check_mode_plans_on_a_live_read_and_sends_no_write(run, sim, play_run):
    dummy, alerts = exported(run, sim)
    play_run()
    apply(run, sim, [], alerts[:3], check=True)
    changed = dict(alerts[0], threshold=alerts[0]['threshold'] + 1)
    result, requests = task(run, sim, alert, changed, check=True)
    assert result['changed'] is True and result['alert']['threshold'] == changed['threshold']
    assert requests[0] == one_alert(changed['alert_id']) and all(method == 'GET' for method, dummy in requests)
    dummy, requests = task(run, sim, alert, alerts[1], check=True)
    assert requests == []  # check mode wrote nothing: the kept list still serves


def test_a_lost_answer_is_read_again_live(run, sim, play_run):
    dummy, alerts = exported(run, sim)
    play_run()
    apply(run, sim, [], alerts[:3])
    new = dict(NEW, channels=alerts[0]['channels'])
    sim.faults(dict(method='POST', path='/api/v2/alerts', kind='status', status=504, apply=True, count=1))
    result, requests = task(run, sim, alert, new)
    assert result['changed'] is True and len([item for item in sim.state()['alerts'] if item['name'] == new['name']]) == 1
    # not in the kept list: read live; the lost create: read by name again, live
    assert requests == [ALERT_LIST, ('POST', '/api/v2/alerts'), ALERT_LIST]


def test_an_object_missing_from_a_kept_answer_is_read_live_before_it_is_created(run, sim, play_run):
    dummy, alerts = exported(run, sim)
    play_run()
    apply(run, sim, [], alerts[:3])
    new = dict(NEW, channels=alerts[0]['channels'])
    result, requests = task(run, sim, alert, new)
    assert result['changed'] is True and requests[0] == ALERT_LIST and requests[-1] == ('POST', '/api/v2/alerts')


def test_a_delete_reads_live(run, sim, play_run):
    dummy, alerts = exported(run, sim)
    play_run()
    apply(run, sim, [], alerts[:3])
    dummy, requests = task(run, sim, alert, dict(alert_id=ALERT_BETWEEN, state='absent'))
    assert requests[:2] == [one_alert(ALERT_BETWEEN), ('DELETE', '/api/v2/alerts/' + ALERT_BETWEEN)]


def test_nothing_is_kept_when_the_api_is_not_paced(run, sim, play_run):
    dummy, alerts = exported(run, sim)
    play_run()
    unpaced = [dict(item, api_rate_limit='off') for item in alerts[:5]]
    done = apply(run, sim, [], unpaced)
    assert [requests[0] for dummy, dummy2, dummy3, requests in done] == [one_alert(item['alert_id']) for item in unpaced]


def test_another_playbook_run_keeps_its_own_reads(run, sim, play_run):
    dummy, alerts = exported(run, sim)
    play_run('100:1')
    apply(run, sim, [], alerts[:3])
    play_run('100:2')  # the same pid, started again: another run
    dummy, requests = task(run, sim, alert, alerts[3])
    assert requests[0] == one_alert(alerts[3]['alert_id'])


def test_a_play_of_service_and_pipe_tasks_reads_each_list_once(run, sim, play_run):
    services = sim.state()['services']
    pipes = [item for item in sim.state()['pipes'] if item['serviceId'] == SERVICE_PROD]
    play_run()
    requests = []
    for item in services:
        requests += task(run, sim, service, dict(name=item['name']))[1]
    for item in pipes:
        requests += task(run, sim, pipe, dict(service_id=SERVICE_PROD, name=item['name']))[1]
    assert requests == [SERVICES, ('GET', pipe_path(PIPE_KAFKA)[:-len(PIPE_KAFKA) - 1])]


def test_kept_answers_of_other_tokens_urls_and_runs_never_serve(tmp_path, clock):
    listed = [dict(id='a', name='one')]
    reads = []

    def listing():
        reads.append(1)
        return listed
    play_reads.PlayReads(str(tmp_path), ('https://obs.test', 'token-1', '1:1')).listing('/api/v2/alerts', listing)
    for scope in (('https://obs.test', 'token-2', '1:1'), ('https://other.test', 'token-1', '1:1'), ('https://obs.test', 'token-1', '1:2')):
        play_reads.PlayReads(str(tmp_path), scope).listing('/api/v2/alerts', listing)
    play_reads.PlayReads(str(tmp_path), ('https://obs.test', 'token-1', '1:1')).listing('/api/v2/alerts', listing)
    assert len(reads) == 4
    names = ' '.join(os.listdir(str(tmp_path)))
    assert 'token' not in names and 'obs.test' not in names


def test_a_read_asked_for_before_a_write_of_another_task_was_answered_is_not_kept(tmp_path, clock):
    scope = ('https://obs.test', 'token-1', '1:1')
    other = play_reads.PlayReads(str(tmp_path), scope)

    def listing():
        clock.advance(0.1)
        other.wrote()  # a fork's write answered while this read was on its way
        return [dict(id='a')]
    play_reads.PlayReads(str(tmp_path), scope).listing('/c', listing)
    assert play_reads.PlayReads(str(tmp_path), scope).listing('/c', lambda: 'live') == 'live'


def test_the_switch_sets_the_age_or_turns_it_off(monkeypatch):
    for value, age in (('', 60.0), ('off', 0.0), ('0', 0.0), ('15', 15.0), ('soon', 60.0)):
        monkeypatch.setenv(play_reads.SWITCH_ENV, value)
        assert play_reads.max_age() == age


@pytest.fixture
def proc(tmp_path):
    """A fake /proc: proc(pid, parent, cmdline) adds a process."""
    def add(pid, parent, cmdline, start='777'):
        directory = tmp_path / str(pid)
        directory.mkdir()
        fields = ['S', str(parent)] + ['0'] * 17 + [start]
        (directory / 'stat').write_text('%d (%s) %s\n' % (pid, cmdline.split(' ')[0][-15:], ' '.join(fields)))
        (directory / 'cmdline').write_bytes(cmdline.replace(' ', '\0').encode() + b'\0')
    add.root = str(tmp_path)
    return add


def test_the_controller_is_the_top_of_the_forks_above_the_module(proc):
    proc(10, 1, 'bash make')
    proc(20, 10, '/usr/bin/python3 /venv/bin/ansible-playbook site.yml', start='4242')
    proc(30, 20, '/usr/bin/python3 /venv/bin/ansible-playbook site.yml')  # the worker, a fork
    proc(40, 30, '/bin/sh -c python3 AnsiballZ_alert.py')
    proc(50, 40, '/usr/bin/python3 AnsiballZ_alert.py')
    assert CONTROLLER_PROCESS(proc.root, 50) == '20:4242'
    proc(60, 10, '/usr/bin/python3 -m pytest')
    assert CONTROLLER_PROCESS(proc.root, 60) is None
    proc(70, 60, '/usr/bin/python3 -m pytest')  # a fork of another program: no playbook run
    assert CONTROLLER_PROCESS(proc.root, 70) is None
    assert CONTROLLER_PROCESS(proc.root + '/missing', 50) is None
