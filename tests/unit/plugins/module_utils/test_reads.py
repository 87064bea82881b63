# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Reads shared by the tasks of one controller (module_utils/reads.py): a fleet of real processes served by one list
read, a task alone, how fresh an answer must be (before acting, while polling, after the task's own write), a reader
that was killed, a list read that fails, settle hints, and the state file (bad contents, no secret, one per identity)."""

import json
import multiprocessing
import os
import signal

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pacing, reads, store

PLAY_TASKS = reads.play_tasks  # the real one (conftest makes every module run alone in its play)
SERVICES = '/v1/organizations/org-1/services'
LISTED = [dict(id='a', state='running'), dict(id='b', state='stopped', password='listed-secret-3')]


class Lister:
    """send_list: calls on_send as the client does, counts the list reads, answers items (None: the read failed)."""

    def __init__(self, items=tuple(LISTED)):
        self.items, self.sends = items, 0

    def __call__(self, on_send):
        on_send()
        self.sends += 1
        return None if self.items is None else [dict(item) for item in self.items]


def own(name='own'):
    return lambda: dict(id=name)


def task(tmp_path, play_size=1, warn=pytest.fail):
    """A task of a play that runs play_size tasks at once; it fails the test if it warns."""
    return reads.SharedReads(lambda collection: str(tmp_path / store.file_name('reads', collection)), warn, play_size=lambda: play_size)


def others(tmp_path, count=1):
    """Tasks live on the services list besides the one under test."""
    tasks = [task(tmp_path) for dummy in range(count)]
    for other in tasks:
        assert other.peek(SERVICES, 'x') is False  # alone until now: nothing will come
    return tasks


def test_a_task_alone_sends_its_own_read(clock, tmp_path):
    me, lister = task(tmp_path), Lister()
    assert me.item(SERVICES, 'a', own(), lister) == dict(id='own') and me.listing(SERVICES, lister) is None
    assert lister.sends == 0 and clock.sleeps == []


def fleet_member(path, barrier, item_id, sends, results):
    warnings = []
    shared = reads.SharedReads(lambda collection: path, warnings.append, play_size=lambda: 6)

    def send_list(on_send):
        on_send()
        with sends.get_lock():
            sends.value += 1
        return [dict(id=str(number), password='listed-secret-3') for number in range(6)]
    barrier.wait(30)
    results.put(dict(shared.item(SERVICES, item_id, lambda: dict(id='own read'), send_list), warnings=warnings))


def test_a_fleet_of_processes_needing_items_of_one_list_is_served_by_one_list_read(tmp_path):
    context = multiprocessing.get_context('fork')
    barrier, sends, results = context.Barrier(6), context.Value('i', 0), context.Queue()
    processes = [context.Process(target=fleet_member, args=(str(tmp_path / 'reads.json'), barrier, str(number), sends, results))
                 for number in range(6)]
    for process in processes:
        process.start()
    found = [results.get(timeout=30) for dummy in processes]
    for process in processes:
        process.join(10)
    assert sends.value == 1 and sorted(item['id'] for item in found) == [str(number) for number in range(6)]
    assert [item['warnings'] for item in found] == [[]] * 6
    # the reader's own answer, and the others' from the state, where secrets are masked
    assert sorted(item['password'] for item in found) == ['********'] * 5 + ['listed-secret-3']


def test_an_answer_serves_a_read_before_acting_only_if_sent_after_it_asked_and_a_poll_only_if_new(clock, tmp_path):
    other, = others(tmp_path)
    me, first = task(tmp_path), Lister()
    assert me.item(SERVICES, 'a', own(), first) == dict(id='a', state='running') and first.sends == 1 and clock.sleeps == []
    clock.advance(0.01)
    second = Lister([dict(id='b', state='starting')])
    assert other.item(SERVICES, 'b', own(), second)['state'] == 'starting' and second.sends == 1  # the first was sent before it asked
    clock.advance(3)
    polled = Lister()
    assert me.item(SERVICES, 'b', own(), polled, max_age=4)['state'] == 'starting' and polled.sends == 0  # newer than it saw
    assert me.item(SERVICES, 'b', own(), polled, max_age=4)['state'] == 'stopped' and polled.sends == 1  # that one it saw already


def test_a_poll_never_takes_an_answer_sent_before_the_tasks_own_write(clock, tmp_path):
    other, = others(tmp_path)
    me = task(tmp_path)
    me.item(SERVICES, 'a', own(), Lister())
    clock.advance(1)
    other.item(SERVICES, 'a', own(), Lister([dict(id='a', state='running')]))  # sent while the write travels
    clock.advance(0.5)
    me.wrote()
    clock.advance(1)
    after = Lister([dict(id='a', state='stopping')])
    assert me.item(SERVICES, 'a', own(), after, max_age=10)['state'] == 'stopping' and after.sends == 1


def lead_and_die(path):
    shared = reads.SharedReads(lambda collection: path, print)
    shared.item(SERVICES, 'a', own(), lambda on_send: on_send() or os.kill(os.getpid(), signal.SIGKILL))


def test_a_reader_that_was_killed_holds_nobody_back(clock, tmp_path):
    me = task(tmp_path)
    assert me.peek(SERVICES, 'a') is False
    child = os.fork()
    if child == 0:
        lead_and_die(str(tmp_path / store.file_name('reads', SERVICES)))
        os._exit(1)
    assert os.waitpid(child, 0)[1] == signal.SIGKILL
    lister = Lister()
    assert me.item(SERVICES, 'a', own(), lister)['state'] == 'running' and lister.sends == 1 and clock.sleeps == []


def test_a_failed_list_read_is_tried_once_then_each_task_reads_alone_for_a_while(clock, tmp_path):
    others(tmp_path)
    tasks, failing, own_reads = [task(tmp_path) for dummy in range(4)], Lister(None), []
    for each in tasks:
        assert each.item(SERVICES, 'a', lambda: own_reads.append(1) or dict(id='own'), failing)['id'] == 'own'
    assert (failing.sends, len(own_reads)) == (1, 4)
    clock.advance(reads.LIST_FAILED_SECONDS)
    others(tmp_path)
    listed = Lister()
    assert tasks[0].item(SERVICES, 'a', own(), listed)['state'] == 'running' and listed.sends == 1


def test_the_first_task_of_a_play_gathers_the_others_for_a_moment_then_reads_alone(clock, tmp_path):
    lister = Lister()
    assert task(tmp_path, play_size=5).item(SERVICES, 'a', own(), lister)['id'] == 'own' and lister.sends == 0
    assert reads.GATHER_SECONDS <= sum(clock.sleeps) <= reads.GATHER_SECONDS + 0.1
    with open(str(tmp_path / store.file_name('reads', SERVICES))) as handle:
        assert json.load(handle)['reading'] is None  # its withdrawn read holds nobody back


def test_peek_tells_nothing_yet_the_resource_or_its_absence(clock, tmp_path):
    others(tmp_path)
    me, other = task(tmp_path), task(tmp_path)
    assert me.peek(SERVICES, 'a') is None
    other.item(SERVICES, 'a', own(), Lister())
    assert me.peek(SERVICES, 'a') == dict(id='a', state='running')
    clock.advance(1)
    other.item(SERVICES, 'a', own(), Lister([]))
    assert me.peek(SERVICES, 'a') is reads.ABSENT


def test_the_answer_leaves_with_the_last_task(clock, tmp_path):
    other, = others(tmp_path)
    me = task(tmp_path)
    me.item(SERVICES, 'a', own(), Lister())
    path = str(tmp_path / store.file_name('reads', SERVICES))
    me.leave()
    with open(path) as handle:
        assert json.load(handle)['answer'] is not None
    other.leave()
    with open(path) as handle:
        assert json.load(handle)['answer'] is None


def test_the_fleet_keeps_its_settle_times_for_a_while_and_the_soonest_is_the_hint(clock, tmp_path):
    first, second = task(tmp_path), task(tmp_path)
    assert first.settle_hint(SERVICES, 'start') is None and reads.Alone().settle_hint(SERVICES, 'start') is None
    first.settled(SERVICES, 'start', 21.0)
    second.settled(SERVICES, 'start', 10.5)
    second.settled(SERVICES, 'stop', 60.0)
    assert (first.settle_hint(SERVICES, 'start'), first.settle_hint(SERVICES, 'stop'), first.settle_hint(SERVICES, 'awake')) == (10.5, 60, None)
    assert first.settle_hint(SERVICES + '/x/pipes', 'start') is None
    clock.advance(reads.SETTLED_SECONDS - 1)
    first.settled(SERVICES, 'start', 30.0)
    clock.advance(2)
    assert second.settle_hint(SERVICES, 'start') == 30.0


@pytest.mark.parametrize('state', [
    dict(live={'a' * 32: 'yesterday'}, reading=None, answer=None, settled=[], failed=0),
    dict(live={}, reading=dict(token='t', pid='1', at=0, sent=None), answer=None, settled=[], failed=0),
    dict(live={}, reading=None, answer=dict(sent=float('nan'), items=[]), settled=[], failed=0),
    dict(live={}, reading=None, answer=None, settled=[[1, 2]]), 'text'],
    ids=['a live time that is text', 'a pid that is text', 'NaN', 'a settled entry cut short and no failed', 'a string'])
def test_a_state_another_program_wrote_starts_afresh_with_one_warning(clock, tmp_path, state):
    warnings = []
    me = task(tmp_path, warn=warnings.append)
    path = str(tmp_path / store.file_name('reads', SERVICES))
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), 'w') as handle:
        json.dump(state, handle)
    lister = Lister()
    assert me.item(SERVICES, 'a', own(), lister)['id'] == 'own' and lister.sends == 0
    me.settled(SERVICES, 'start', 1.0)
    assert me.settle_hint(SERVICES, 'start') == 1.0
    assert warnings == ['Shared reads started afresh: the state file %s was ignored' % path]


IDENTITY = ('http://api.test', 'key-id', 'key-secret-9', 'org-1')


def test_one_state_file_per_address_key_organization_and_list_holding_no_secret(clock):
    paths, paced = set(), pacing.shared_pacer((1, 1), IDENTITY[0], IDENTITY[2], pytest.fail)
    for changed in range(4):
        given = IDENTITY[:changed] + ('other',) + IDENTITY[changed + 1:]
        paths.update(reads.for_module(paced, given, pytest.fail).path(collection) for collection in (SERVICES, SERVICES + '/s/pipes'))
    assert len(paths) == 8
    me, other = (reads.for_module(paced, IDENTITY, pytest.fail) for dummy in range(2))
    other.peek(SERVICES, 'x')
    me.item(SERVICES, 'b', own(), Lister())
    directory = os.path.dirname(me.path(SERVICES))
    stored = ''.join(name + open(os.path.join(directory, name)).read() for name in os.listdir(directory))
    assert '"stopped"' in stored and not any(secret in stored for secret in IDENTITY[1:] + ('listed-secret-3',))


def test_unpaced_or_switched_off_every_read_is_the_tasks_own(monkeypatch):
    assert isinstance(reads.for_module(pacing.Unpaced(), IDENTITY, pytest.fail), reads.Alone)
    monkeypatch.setenv(reads.SWITCH_ENV, 'off')
    assert isinstance(reads.for_module(pacing.shared_pacer((1, 1), 'http://api.test', 'key', pytest.fail), IDENTITY, pytest.fail), reads.Alone)


def test_play_tasks_counts_the_live_workers_of_the_ansible_playbook_above_this_process(tmp_path):
    """A fake /proc: ansible-playbook (10) under bash (5) has forked four workers (11-14), one of them a zombie; this
    module (30) runs below worker 11 through sh and sh. Other processes of that name elsewhere do not count."""
    table = {1: ('systemd', 0, 'S'), 5: ('bash', 1, 'S'), 10: ('ansible-playboo', 5, 'S'), 11: ('ansible-playboo', 10, 'S'),
             12: ('ansible-playboo', 10, 'R'), 13: ('ansible-playboo', 10, 'S'), 14: ('ansible-playboo', 10, 'Z'),
             20: ('sh', 11, 'S'), 21: ('sh', 20, 'S'), 30: ('python3.11', 21, 'R'), 40: ('ansible-playboo', 1, 'S'),
             41: ('ansible-playboo', 40, 'S')}
    for pid, (name, parent, state) in table.items():
        os.makedirs(str(tmp_path / str(pid)))
        (tmp_path / str(pid) / 'stat').write_text('%d (%s) %s %d 1 1 0 -1 4194560\n' % (pid, name, state, parent))
    assert PLAY_TASKS(str(tmp_path), pid=30) == 3  # found by reading every process
    os.makedirs(str(tmp_path / '10' / 'task' / '10'))
    (tmp_path / '10' / 'task' / '10' / 'children').write_text('11 12 14 ')
    assert PLAY_TASKS(str(tmp_path), pid=30) == 2  # the kernel's children list of ansible-playbook's main thread
    assert PLAY_TASKS(str(tmp_path), pid=5) == 1 and PLAY_TASKS(str(tmp_path / 'nowhere'), pid=30) == 1
