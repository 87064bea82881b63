# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads shared by the tasks of one controller (module_utils/shared_reads.py): alone or in a fleet, who joins a
queued list read, how fresh a shared answer must be (before acting, while polling, after this task's write),
keys and organizations kept apart, dead and slow leaders, a failing list read, bad state files, answers that expire,
and service_state's wait on a shared answer older than its poll."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import signal
import threading
import time

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pacer, shared_reads
from ansible_collections.engine.cloud.plugins.module_utils.base import Wait
from ansible_collections.engine.cloud.plugins.modules import service_state
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import KEY_ID, KEY_SECRET, ORGANIZATION, SERVICE_DEV, service_path

PLAY_TASKS = shared_reads.play_tasks  # the real one (conftest makes every module run alone in its play)
CREDENTIALS = ('http://api.test', 'key-id', 'key-secret-9', 'org-1')
SERVICES = '/v1/organizations/org-1/services'
LISTED = [dict(id='a', state='running'), dict(id='b', state='stopped', password='listed-secret-3')]


class Lister:
    """send_list: counts the list reads, calls on_send as the client does, answers LISTED (or what is set)."""

    def __init__(self, items=None, before_send=None):
        self.items = LISTED if items is None else items
        self.sends = 0
        self.before_send = before_send

    def __call__(self, on_send):
        if self.before_send:
            self.before_send()
        on_send()
        self.sends += 1
        return [dict(item) for item in self.items]


def own(name='own'):
    return lambda: dict(id=name, state='own read')


def task(directory, credentials=CREDENTIALS, play_size=1):
    """A task of a play that runs play_size tasks at once (1: ansible-playbook runs this one alone)."""
    return shared_reads.SharedReads(str(directory), credentials, play_size=lambda: play_size)


def fleet(directory, *others):
    """Tasks that are live on the services list, besides the one under test."""
    tasks = [task(directory) for dummy in others or (1,)]
    for other in tasks:
        assert other.peek(SERVICES, 'x') is False  # a peek marks it live; alone, nothing will come
    return tasks


def test_a_task_alone_sends_its_own_read(clock, tmp_path):
    lister = Lister()
    assert task(tmp_path).item(SERVICES, 'a', own(), lister) == dict(id='own', state='own read')
    assert lister.sends == 0 and clock.sleeps == []


def test_in_a_fleet_one_list_read_serves_and_an_older_one_never_serves_a_read_before_acting(clock, tmp_path):
    other, = fleet(tmp_path)
    me, lister = task(tmp_path), Lister()
    assert me.item(SERVICES, 'a', own(), lister) == dict(id='a', state='running')
    assert lister.sends == 1 and sum(clock.sleeps) == pytest.approx(shared_reads.GATHER_SECONDS)
    again = Lister()
    clock.advance(0.01)
    assert other.item(SERVICES, 'b', own(), again)['state'] == 'stopped'  # asked after that read was sent
    assert again.sends == 1
    clock.advance(3)
    polled = Lister()
    assert me.item(SERVICES, 'b', own(), polled, max_age=4)['state'] == 'stopped'  # a poll: 3 s old is fine
    assert polled.sends == 0


def test_the_first_task_of_a_fleet_leads_the_list_read_that_the_others_join_instead_of_reading_alone(clock, tmp_path, monkeypatch):
    """No task is live on the list yet, but ansible-playbook runs three tasks: the first does not send a GET of its own,
    it gathers; the list read leaves as soon as all three are live, and serves them all."""
    first, second, third = (task(tmp_path, play_size=3) for dummy in range(3))
    arrivals = iter([second, third])

    def sleep(seconds):  # while the leader gathers, the other two tasks of the play ask
        clock.sleeps.append(seconds)
        clock.advance(seconds)
        joiner = next(arrivals, None)
        if joiner is not None:
            assert joiner.peek(SERVICES, 'b') is None  # live, nothing answered yet
    monkeypatch.setattr(shared_reads.CLOCK, 'sleep', sleep)
    lister = Lister()
    assert first.item(SERVICES, 'a', own(), lister) == dict(id='a', state='running')
    assert lister.sends == 1 and len(clock.sleeps) == 2 < shared_reads.GATHER_SECONDS / shared_reads.GATHER_STEP
    for joiner in (second, third):
        assert joiner.item(SERVICES, 'b', own(), Lister())['state'] == 'stopped'  # the same answer: asked before it was sent
    # a poll of a task that is alone on its list reads alone, whatever its play runs
    clock.advance(shared_reads.LIVE_SECONDS + 1)
    polled = Lister()
    assert task(tmp_path, play_size=3).item(SERVICES, 'a', own(), polled, max_age=5)['id'] == 'own' and polled.sends == 0


def test_a_task_whose_play_runs_others_that_never_join_reads_alone_after_the_gather(clock, tmp_path):
    lister = Lister()
    assert task(tmp_path, play_size=5).item(SERVICES, 'a', own(), lister)['id'] == 'own'
    assert lister.sends == 0 and sum(clock.sleeps) == pytest.approx(shared_reads.GATHER_SECONDS)
    with task(tmp_path)._state(SERVICES) as state:
        assert state['reads'] == []  # its withdrawn read holds nobody back


def test_play_tasks_counts_the_live_workers_of_the_ansible_playbook_above_this_process(tmp_path):
    """A fake /proc: ansible-playbook (10) under bash (5) has forked four workers (11-14), one of them a zombie; this
    module (30) runs below worker 11 through sh and sh. Other processes of that name elsewhere do not count."""
    table = {1: ('systemd', 0, 'S'), 5: ('bash', 1, 'S'), 10: ('ansible-playboo', 5, 'S'), 11: ('ansible-playboo', 10, 'S'),
             12: ('ansible-playboo', 10, 'R'), 13: ('ansible-playboo', 10, 'S'), 14: ('ansible-playboo', 10, 'Z'),
             20: ('sh', 11, 'S'), 21: ('sh', 20, 'S'), 30: ('python3.11', 21, 'R'), 40: ('ansible-playboo', 1, 'S'),
             41: ('ansible-playboo', 40, 'S'), 50: ('sh', 21, 'S')}
    for pid, (name, parent, state) in table.items():
        os.makedirs(str(tmp_path / str(pid)))
        (tmp_path / str(pid) / 'stat').write_text('%d (%s) %s %d 1 1 0 -1 4194560\n' % (pid, name, state, parent))
    (tmp_path / 'self').mkdir()
    assert PLAY_TASKS(str(tmp_path), pid=30) == 3  # found by reading every process
    os.makedirs(str(tmp_path / '10' / 'task' / '10'))
    (tmp_path / '10' / 'task' / '10' / 'children').write_text('11 12 14 ')
    assert PLAY_TASKS(str(tmp_path), pid=30) == 2  # the kernel's children list of ansible-playbook's main thread
    assert PLAY_TASKS(str(tmp_path), pid=5) == 1  # nothing of a play above it
    assert PLAY_TASKS(str(tmp_path / 'nowhere'), pid=30) == 1  # no /proc: alone, as before


def test_a_poll_never_takes_an_answer_sent_before_this_tasks_last_write(clock, tmp_path):
    fleet(tmp_path)
    me = task(tmp_path)
    me.item(SERVICES, 'a', own(), Lister())
    clock.advance(1)
    me.wrote()
    clock.advance(1)
    after_write = Lister(items=[dict(id='a', state='stopping')])
    assert me.item(SERVICES, 'a', own(), after_write, max_age=10) == dict(id='a', state='stopping')
    assert after_write.sends == 1


def test_who_asks_while_a_list_read_is_queued_joins_it(clock, tmp_path, monkeypatch):
    fleet(tmp_path)
    leader, joiner = task(tmp_path), task(tmp_path)
    queued, joined = threading.Event(), threading.Event()
    waiting = shared_reads._wait_for

    def wait_for(path, seconds):
        joined.set()
        return waiting(path, seconds)
    monkeypatch.setattr(shared_reads, '_wait_for', wait_for)
    # the joiner tries the leader's lock while the leader (another thread) goes on: its sleeps take real time too
    monkeypatch.setattr(shared_reads.CLOCK, 'sleep', lambda seconds: time.sleep(0.001) or clock.sleep(seconds))

    def before_send():
        queued.set()
        assert joined.wait(30)
    lister, results = Lister(before_send=before_send), {}
    lead = threading.Thread(target=lambda: results.update(leader=leader.item(SERVICES, 'a', own(), lister)))
    lead.start()
    assert queued.wait(30)
    second = Lister()
    join = threading.Thread(target=lambda: results.update(joiner=joiner.item(SERVICES, 'b', own(), second)))
    join.start()
    lead.join(30)
    join.join(30)
    assert results == dict(leader=dict(id='a', state='running'), joiner=dict(id='b', state='stopped', password='********'))
    assert (lister.sends, second.sends) == (1, 0)


def test_keys_organizations_and_addresses_never_share_and_no_secret_is_stored(clock, tmp_path):
    fleet(tmp_path)
    task(tmp_path).item(SERVICES, 'a', own(), Lister())
    for credentials in (('http://api.test', 'key-id', 'other-secret', 'org-1'), ('http://api.test', 'key-2', 'key-secret-9', 'org-1'),
                        ('http://api.test', 'key-id', 'key-secret-9', 'org-2'), ('http://other.test', 'key-id', 'key-secret-9', 'org-1')):
        stranger, lister = task(tmp_path, credentials), Lister()
        assert stranger.item(SERVICES, 'a', own('stranger'), lister, max_age=100)['id'] == 'stranger'  # alone on its list
        assert lister.sends == 0
    stored = ''.join(open(os.path.join(str(tmp_path), name)).read() for name in os.listdir(str(tmp_path)))
    assert '"running"' in stored and not any(secret in stored for secret in ('key-secret-9', 'key-id', 'org-1', 'listed-secret-3'))


def test_a_read_queued_by_a_task_that_was_killed_is_taken_over_and_its_lock_file_removed(clock, tmp_path):
    fleet(tmp_path)
    me, dead = task(tmp_path), task(tmp_path)
    child = os.fork()
    if child == 0:  # the leader queues its read, holds its lock, and is killed
        with dead._state(SERVICES) as state:
            assert dead._hold_lock(SERVICES)
            state['reads'].append(dict(leader=dead.token, sent=None))
        os.kill(os.getpid(), signal.SIGKILL)
    assert os.waitpid(child, 0)[1] == signal.SIGKILL
    assert os.path.exists(dead._lock_path(SERVICES, dead.token))
    lister = Lister()
    assert me.item(SERVICES, 'a', own(), lister)['state'] == 'running'
    assert lister.sends == 1 and sum(clock.sleeps) == pytest.approx(shared_reads.GATHER_SECONDS)  # no wait for the dead one
    assert [name for name in os.listdir(str(tmp_path)) if name.endswith('.lead')] == []


def test_a_task_waits_a_bounded_time_for_a_read_it_joined_then_reads_alone(clock, tmp_path):
    """The leader lives but its read never comes (a stopped process, a server that never answers): the joiner tries its
    lock for JOIN_SECONDS, then sends its own GET."""
    fleet(tmp_path)
    stuck, me = task(tmp_path), task(tmp_path)
    with stuck._state(SERVICES) as state:
        assert stuck._hold_lock(SERVICES)  # this descriptor holds the lock: another open file's lock waits for it
        state['reads'].append(dict(leader=stuck.token, sent=None))
    found = []
    joiner = threading.Thread(target=lambda: found.append(me.item(SERVICES, 'a', own(), Lister())), daemon=True)
    joiner.start()
    joiner.join(30)
    try:
        assert found == [dict(id='own', state='own read')]
        assert sum(clock.sleeps) == pytest.approx(shared_reads.JOIN_SECONDS)
        assert max(clock.sleeps) == shared_reads.JOIN_STEP
    finally:
        stuck._release_lock(SERVICES)  # frees a joiner that old code left blocked


def test_a_failing_list_read_is_sent_once_for_the_fleet_then_each_task_reads_alone(clock, tmp_path):
    """Four tasks of a fleet read before acting, one after the other, while the list endpoint fails: one list read
    fails and each task sends its own GET (5 requests), instead of each leading a list read that fails before its
    own GET (8). Once LIST_FAILED_SECONDS have passed, the list is tried again."""
    fleet(tmp_path)
    tasks, failing, own_reads = [task(tmp_path) for dummy in range(4)], Lister(), []

    def fails(on_send):
        failing(on_send)
        return None  # send_list: the list read failed
    for each in tasks:
        assert each.item(SERVICES, 'a', lambda: own_reads.append(1) or dict(id='own'), fails)['id'] == 'own'
    assert (failing.sends, len(own_reads)) == (1, 4)
    clock.advance(shared_reads.LIST_FAILED_SECONDS)
    fleet(tmp_path)
    listed = Lister()
    assert tasks[0].item(SERVICES, 'a', own(), listed)['state'] == 'running' and listed.sends == 1


def test_an_answer_older_than_the_tasks_own_last_read_is_never_taken(clock, tmp_path):
    """The task read its service alone (its own GET); an answer another task's list read got just before that is
    older than what the task saw: a poll that would take an answer that old reads again instead."""
    me = task(tmp_path)
    with me._state(SERVICES) as state:
        state['answer'] = dict(sent=clock.time() - 0.5, items=[dict(id='a', state='starting')])
    assert me.item(SERVICES, 'a', lambda: dict(id='a', state='running'), Lister()) == dict(id='a', state='running')
    task(tmp_path).peek(SERVICES, 'x')  # another task is live now
    clock.advance(1)
    polled = Lister(items=[dict(id='a', state='running')])
    assert me.item(SERVICES, 'a', own(), polled, max_age=5)['state'] == 'running' and polled.sends == 1


def test_a_stored_answer_expires_and_leaves_the_file_with_the_last_task(clock, tmp_path, monkeypatch):
    monkeypatch.setattr(shared_reads, 'LIVE_SECONDS', shared_reads.ANSWER_SECONDS * 2)  # both tasks stay live meanwhile
    other, = fleet(tmp_path)
    me = task(tmp_path)
    me.item(SERVICES, 'a', own(), Lister())
    clock.advance(shared_reads.ANSWER_SECONDS + 1)
    polled = Lister(items=[dict(id='a', state='stopped')])
    assert other.item(SERVICES, 'a', own(), polled, max_age=1800)['state'] == 'stopped' and polled.sends == 1  # not the old one
    me.leave()
    assert json.load(open(me._path(SERVICES)))['answer'] is not None  # another task is live still
    other.leave()
    assert json.load(open(me._path(SERVICES)))['answer'] is None


@pytest.mark.parametrize('state', [
    dict(live={'a' * 32: 'yesterday'}, reads=[], answer=None, settled=[]),
    dict(live={}, reads=['leader'], answer=None, settled=[]),
    dict(live={}, reads=[dict(leader='../../elsewhere', sent=None)], answer=None, settled=[]),
    dict(live={}, reads=[], answer=dict(sent=1, items=['a', 'b']), settled=[]),
    dict(live={}, reads=[], answer=dict(sent=float('nan'), items=[]), settled=[]),
    dict(live={}, reads=[], answer=None, settled=[[1, 2, 3]]),
    dict(live=[], reads=[], answer=None, settled=[]), [], 'text'],
    ids=['a live time that is text', 'a read that is text', 'a leader that is a path', 'items that are text', 'NaN',
         'a settled command that is a number', 'live as a list', 'a list', 'a string'])
def test_a_bad_state_file_is_ignored_with_one_warning_never_a_traceback(clock, tmp_path, state):
    warnings = []
    me = shared_reads.SharedReads(str(tmp_path), CREDENTIALS, play_size=lambda: 1, warn=warnings.append)
    with os.fdopen(os.open(me._path(SERVICES), os.O_WRONLY | os.O_CREAT, 0o600), 'w') as handle:
        json.dump(state, handle)
    lister = Lister()
    assert me.item(SERVICES, 'a', own(), lister)['id'] == 'own' and lister.sends == 0  # alone on a fresh state
    me.settled(SERVICES, 'start', 1.0)
    assert me.settle_hint(SERVICES, 'start') == 1.0
    assert warnings == ['Shared reads started afresh: the state file %s was ignored (it is not a shared-reads state)' % me._path(SERVICES)]


def test_a_task_that_left_no_longer_makes_the_others_read_lists(clock, tmp_path):
    other, = fleet(tmp_path)
    other.leave()
    lister = Lister()
    assert task(tmp_path).item(SERVICES, 'a', own(), lister)['id'] == 'own'
    assert lister.sends == 0


def test_a_peek_gives_only_what_is_newer_than_this_task_has_seen(clock, tmp_path):
    fleet(tmp_path)
    me, other = task(tmp_path), task(tmp_path)
    assert me.peek(SERVICES, 'a') is None  # others are live, nothing read yet
    other.item(SERVICES, 'a', own(), Lister())
    assert me.peek(SERVICES, 'a') == dict(id='a', state='running')
    assert me.peek(SERVICES, 'a') is None  # seen already
    clock.advance(1)
    other.item(SERVICES, 'a', own(), Lister(items=[]))
    assert me.peek(SERVICES, 'a') is shared_reads.ABSENT  # the list no longer holds it


def test_switched_off_or_unpaced_every_read_is_alone(monkeypatch, tmp_path):
    assert shared_reads.for_client(None, False, CREDENTIALS, print) is shared_reads.ALONE
    monkeypatch.setenv(shared_reads.SWITCH_ENV, 'off')
    assert shared_reads.for_client(None, True, CREDENTIALS, print) is shared_reads.ALONE


def test_a_wait_ends_on_a_peeked_resource_and_sleeps_as_before_without_one(clock):
    seen = iter([None, None, dict(state='stopped')])
    resource = Wait(900, 'svc').until(lambda: dict(state='stopping'), lambda item: item['state'] == 'stopped', lambda item: False,
                                      'stopped', peek=lambda: next(seen))
    assert resource == dict(state='stopped') and clock.sleeps == [0.5, 0.5]
    del clock.sleeps[:]
    reads = iter([dict(state='stopping'), dict(state='stopped')])
    Wait(900, 'svc').until(lambda: next(reads), lambda item: item['state'] == 'stopped', lambda item: False, 'stopped',
                           peek=lambda: False)
    assert clock.sleeps == [1, 2]


def test_service_state_in_a_fleet_reads_the_list_and_waits_past_a_shared_answer_older_than_its_command(
        run, sim, clock, monkeypatch):
    """Another task is live on the organization's services. The task reads the list (not its GET) before its start
    command; while the command's answer travels, another task's list read shows the service running (a stale
    sight: sent before this task's write was answered). The wait does not end on it, nor on any answer older than
    its poll: it ends when a read shows the service running, after the transition. Each poll sends a list read (after
    1, 2, 4, then 5 s: the fleet's longest interval), never taking again the answer of the one before."""
    services = '/v1/organizations/%s/services' % ORGANIZATION
    other = task(pacer.state_directory(), (sim.url, KEY_ID, KEY_SECRET, ORGANIZATION))
    assert other.peek(services, 'x') is False
    wrote = shared_reads.SharedReads.wrote

    def slow_answer_and_a_stale_sight(self):
        clock.advance(0.5)
        with self._state(services) as state:
            state['answer'] = dict(sent=clock.time() - 0.25, items=[dict(id=SERVICE_DEV, state='running')])
        wrote(self)
    monkeypatch.setattr(shared_reads.SharedReads, 'wrote', slow_answer_and_a_stale_sight)
    listed, start = ('GET', services), ('PATCH', service_path(SERVICE_DEV, '/state'), {'command': 'start'})
    run(service_state, args=dict(service_id=SERVICE_DEV, state='started'), config={'transition_delay': 12},
        requests=[listed, start] + [listed] * 4, result={'changed': True, 'service.state': 'running'})
    assert sum(clock.sleeps) >= 12


def test_a_wait_after_a_command_polls_first_when_the_fleet_saw_that_transition_end(clock):
    """expect(): the seconds after which other tasks of the controller saw the same transition end. No poll after the
    command comes before then (instead of polls after 1, 3 and 7 s); when it is still not done, the usual backoff
    follows. Learnt while the wait runs (the rest of the fleet saw its transitions end after the first poll), it
    moves the next poll."""
    answers = iter([dict(state='starting'), dict(state='running')])
    Wait(900, 'svc').until(lambda: next(answers), lambda item: item['state'] == 'running', lambda item: False, 'running',
                           peek=lambda: False, expect=lambda: 10.5)
    assert clock.sleeps == [10.5, 2]
    for unknown in (None, 0.4):
        del clock.sleeps[:]
        answers = iter([dict(state='starting'), dict(state='running')])
        Wait(900, 'svc').until(lambda: next(answers), lambda item: item['state'] == 'running', lambda item: False, 'running',
                               peek=lambda: False, expect=lambda: unknown)
        assert clock.sleeps == [1, 2]
    del clock.sleeps[:]
    answers, hints = iter([dict(state='starting'), dict(state='running')]), iter([None, 10.5])
    Wait(900, 'svc').until(lambda: next(answers), lambda item: item['state'] == 'running', lambda item: False, 'running',
                           peek=lambda: False, expect=lambda: next(hints))
    assert clock.sleeps == [1, 9.5]


def test_the_first_poll_after_a_command_takes_a_fleet_read_sent_after_the_write_whatever_the_interval(clock, tmp_path):
    """The tail of a fleet: this task's command was answered, and a list read another task sent 10 ms later shows its
    service. That read is newer than anything the task knows: its first poll, a second later, takes it (no request of
    its own), although it was sent more than one poll interval ago."""
    other, = fleet(tmp_path)
    me = task(tmp_path)
    me.item(SERVICES, 'a', own(), Lister())  # live on the list
    clock.advance(1)
    me.wrote()
    clock.advance(0.01)
    other.item(SERVICES, 'b', own(), Lister(items=[dict(id='a', state='starting')]))
    other.leave()  # the rest of the fleet is done: this task now waits alone
    clock.advance(0.05)  # the command's answer travels on to the wait
    wait, sent = Wait(900, 'svc'), []
    del clock.sleeps[:]

    def poll():
        polled = Lister(items=[dict(id='a', state='running')])
        found = me.item(SERVICES, 'a', lambda: dict(id='own', state='running'), polled, max_age=wait.poll_age)
        sent.append(polled.sends or found['id'])
        return found
    assert wait.until(poll, lambda item: item['state'] == 'running', lambda item: False, 'running', peek=lambda: False)['state'] == 'running'
    assert sent == ['a', 'own'] and clock.sleeps == [1, 2]  # the shared read, then its own GET (alone on the list)


def test_the_fleet_keeps_its_settle_times_for_a_while_and_the_soonest_is_the_hint(clock, tmp_path):
    first, second = task(tmp_path), task(tmp_path)
    assert first.settle_hint(SERVICES, 'start') is None and shared_reads.ALONE.settle_hint(SERVICES, 'start') is None
    first.settled(SERVICES, 'start', 21.0)  # saw it done at a late list read
    second.settled(SERVICES, 'start', 10.5)
    second.settled(SERVICES, 'create', 60.0)
    assert first.settle_hint(SERVICES, 'start') == 10.5 and first.settle_hint(SERVICES, 'create') == 60.0
    assert first.settle_hint(SERVICES, 'stop') is None and first.settle_hint('/v1/organizations/org-1/services/a/pipes', 'start') is None
    clock.advance(shared_reads.SETTLED_SECONDS - 1)
    first.settled(SERVICES, 'start', 30.0)
    clock.advance(2)
    assert second.settle_hint(SERVICES, 'start') == 30.0  # the older ones expired


def test_service_state_alone_after_a_fleet_polls_when_the_fleet_saw_the_start_end(run, sim, clock):
    """Tasks of this controller saw a start take 12 s. A task that then starts its service alone on the list polls once,
    12 s after its command, instead of after 1, 3, 7 and 15 s; and writes down what it saw."""
    services = '/v1/organizations/%s/services' % ORGANIZATION
    task(pacer.state_directory(), (sim.url, KEY_ID, KEY_SECRET, ORGANIZATION)).settled(services, 'start', 12.0)
    get, start = ('GET', service_path(SERVICE_DEV)), ('PATCH', service_path(SERVICE_DEV, '/state'), {'command': 'start'})
    run(service_state, args=dict(service_id=SERVICE_DEV, state='started'), config={'transition_delay': 12},
        requests=[get, start, get], result={'changed': True, 'service.state': 'running'})
    assert clock.sleeps == [12.0]
    with task(pacer.state_directory(), (sim.url, KEY_ID, KEY_SECRET, ORGANIZATION))._state(services) as state:
        assert [entry[1:] for entry in state['settled']] == [[12.0, 'start']] * 2
