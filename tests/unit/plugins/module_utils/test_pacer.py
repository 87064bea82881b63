# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The pacer: the option's values, the sliding window and the hold on fake time, real processes
sharing one state file, the private directory (tests/unit/conftest.py gives each test its own) as another local
user could meet it (a uid that is not ours, given with os.chown: the tests run as root or skip), the state files
(owner, mode, contents) and a write that a full disk cuts short."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import multiprocessing
import os
import resource
import signal
import stat
import time

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pacer as pacing
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK

BASE_URL = 'https://api.engine.example'
TOKEN = 'obs-token-that-must-stay-secret-7f3a'
OTHER_USER = 4242  # a local user id that is not ours
as_root = pytest.mark.skipif(os.geteuid() != 0, reason='giving a file to another user id takes root')


class FakeTime:
    """CLOCK's wall time and sleep on fake time; during(moment, action) runs action when a sleep
    passes that moment (another process acting while this one waits)."""

    def __init__(self, start=1000.0):
        self.now = start
        self.sleeps = []
        self.events = []

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        end = self.now + seconds
        for event in sorted(event for event in self.events if self.now <= event[0] < end):
            self.events.remove(event)
            self.now = event[0]
            event[1]()
        self.now = max(self.now, end)

    def during(self, moment, action):
        self.events.append((moment, action))


@pytest.fixture
def fake_time(monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr(CLOCK, 'time', fake.time)
    monkeypatch.setattr(CLOCK, 'sleep', fake.sleep)
    return fake


def pacer_at(directory, requests, seconds, margin=0.0, credential=TOKEN):
    path = os.path.join(pacing.private_directory(str(directory)), pacing.state_file_name(BASE_URL, credential))
    return pacing.Pacer(path, requests, seconds, margin=margin)


def plant(path, content):
    """Write a state file as this user's private one (mode 0600), as the pacer would."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'wb') as handle:
        handle.write(content if isinstance(content, bytes) else content.encode('utf-8'))


def assert_within_limit(moments, requests, seconds):
    """No `seconds`-long window holds more than `requests` of the moments."""
    moments = sorted(moments)
    crowded = [(moments[i], moments[i + requests]) for i in range(len(moments) - requests) if moments[i + requests] - moments[i] < seconds]
    assert not crowded, '%d sends within %s s: %s' % (requests + 1, seconds, crowded[:3])


# The option ----------------------------------------------------------------------------------

@pytest.mark.parametrize('value, limit', [
    (None, (10, 10)), ('', (10, 10)), ('off', None), (' OFF ', None), (False, None),
    ('20/10', (20, 10.0)), (' 5 / 2.5 ', (5, 2.5)), ('1/1', (1, 1.0)),
])
def test_rate_limit_values(value, limit):
    assert pacing.rate_limit('api_rate_limit', value, (10, 10)) == (limit, None)


@pytest.mark.parametrize('value', ['0/10', '10/0', '10/0.0', 'ten', '10', '10/10/10', '-1/10', '10 per 10', True, 10, ['10/10']])
def test_bad_rate_limit_names_the_option_and_the_form(value):
    dummy, error = pacing.rate_limit('api_rate_limit', value, (10, 10))
    assert error.startswith('api_rate_limit must be REQUESTS/SECONDS') and 'for example 20/10' in error and 'or off' in error
    assert repr(value) in error


# The window, on fake time ---------------------------------------------------------------------

def test_a_burst_up_to_the_limit_goes_at_once_and_the_next_waits_for_the_window_and_margin(fake_time, pacing_directory):
    pacer = pacer_at(pacing_directory, 3, 10, margin=0.5)
    assert [pacer.acquire() for dummy in range(3)] == [1000.0] * 3
    assert fake_time.sleeps == []
    assert pacer.acquire() == 1010.5
    assert fake_time.sleeps == [10.5]


def test_the_window_slides(fake_time, pacing_directory):
    pacer = pacer_at(pacing_directory, 2, 10)
    moments = []
    for step in (0, 4, 1, 0, 0, 20, 0):
        fake_time.now += step
        moments.append(pacer.acquire())
    assert moments == [1000, 1004, 1010, 1014, 1020, 1040, 1040]
    assert_within_limit(moments, 2, 10)


def test_waiting_processes_go_first_come_first_served(fake_time, pacing_directory):
    first, second = pacer_at(pacing_directory, 1, 10), pacer_at(pacing_directory, 1, 10)
    first.acquire()
    # While first waits for its reserved slot at 1010, second asks and is queued behind it.
    fake_time.during(1001, lambda: second_slot.append(second.acquire()))
    second_slot = []
    assert first.acquire() == 1010
    assert second_slot == [1020]


def test_a_429_holds_every_process_back_for_the_time_the_server_named(fake_time, pacing_directory):
    refused, other = pacer_at(pacing_directory, 10, 10), pacer_at(pacing_directory, 10, 10)
    refused.acquire()
    refused.refused(7)
    assert other.acquire() == 1007
    assert refused.acquire() == 1007


def test_a_429_without_a_wait_holds_for_a_moment_and_a_long_one_is_capped(fake_time, pacing_directory):
    pacer = pacer_at(pacing_directory, 10, 10)
    pacer.refused(None)
    assert pacer.acquire() == 1000 + pacing.UNNAMED_HOLD
    pacer.refused(3600)
    assert pacer.acquire() == 1000 + pacing.UNNAMED_HOLD + pacing.HOLD_CAP


def test_a_hold_that_overtakes_a_reserved_slot_moves_it(fake_time, pacing_directory):
    waiting, refused = pacer_at(pacing_directory, 1, 10), pacer_at(pacing_directory, 1, 10)
    waiting.acquire()
    fake_time.during(1005, lambda: refused.refused(30))
    assert waiting.acquire() == 1035
    with open(waiting.path) as handle:
        assert json.load(handle)['sends'] == [1035], 'the abandoned reservation at 1010 no longer counts'


@pytest.mark.parametrize('content', ['', '{"sends": [3, 1], "hold_until": 0}', '{"sends": [99999], "hold_until": 0}',
                                     '{"sends": [], "hold_until": 99999}'])
def test_a_state_this_clock_cannot_have_written_starts_afresh(fake_time, pacing_directory, content):
    pacer = pacer_at(pacing_directory, 1, 10)
    pacer.warn = pytest.fail
    plant(pacer.path, content)
    assert [pacer.acquire(), pacer.acquire()] == [1000, 1010]


@pytest.mark.parametrize('content', [
    'not json', '{"sends": [1000', '{"sends": "999", "hold_until": 0}', '{"sends": {"999": 1}, "hold_until": 0}',
    '{"sends": [NaN], "hold_until": 0}', '{"sends": [], "hold_until": NaN}', '{"sends": [1%s], "hold_until": 0}' % ('0' * 400),
    '{"sends": [true], "hold_until": 0}', '{"sends": [], "hold_until": "0"}', '[]', 'null', '[' * 100000, b'\xff\xfe'],
    ids=lambda content: repr(content)[:30])
def test_a_bad_state_file_is_ignored_with_one_warning_never_a_traceback(fake_time, pacing_directory, content):
    """Wrong types included: a string or a dict of sends, NaN, a number too big for a float, a boolean, nesting deeper
    than the recursion limit, bytes that are not UTF-8."""
    warnings = []
    pacer = pacer_at(pacing_directory, 1, 10)
    pacer.warn = warnings.append
    plant(pacer.path, content)
    assert [pacer.acquire(), pacer.acquire()] == [1000, 1010]
    assert warnings == ['Request pacing started afresh: the state file %s was ignored (it is not a pacing state)' % pacer.path]
    with open(pacer.path) as handle:
        assert json.load(handle) == dict(sends=[1010], hold_until=0.0)


def _write_under_a_size_limit(path, limit, results):
    """In a child process: the files it writes may not grow beyond limit bytes (what a full disk does to a write)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing the process
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    warnings = []
    pacer = pacing.Pacer(path, 100, 60, warn=warnings.append)
    for dummy in range(4):
        pacer.acquire()
    results.put(warnings)


def test_a_write_cut_short_by_a_full_disk_leaves_an_empty_state_never_a_cut_one(pacing_directory):
    pacer = pacer_at(pacing_directory, 100, 60)
    pacer.acquire()
    with open(pacer.path, 'rb') as handle:
        one_send = len(handle.read())
    context = multiprocessing.get_context('fork')
    results = context.Queue()
    child = context.Process(target=_write_under_a_size_limit, args=(pacer.path, one_send + 8, results))
    child.start()
    warnings = results.get(timeout=60)
    child.join(10)
    assert child.exitcode == 0
    assert len(warnings) == 1 and 'pacing is off for the rest of this task' in warnings[0] and 'File too large' in warnings[0]
    assert os.path.getsize(pacer.path) == 0, 'no state cut short is left behind'
    pacer.warn = pytest.fail  # an empty file is a fresh state: no warning
    pacer.acquire()


# Real processes -------------------------------------------------------------------------------

LIMIT, WINDOW, MARGIN, PROCESSES, SENDS = 3, 0.2, 0.05, 4, 5


def _send_several(directory, start, results):
    pacer = pacer_at(directory, LIMIT, WINDOW, margin=MARGIN)
    while time.time() < start:
        time.sleep(0.001)
    for dummy in range(SENDS):
        slot = pacer.acquire()
        results.put((os.getpid(), slot, time.time()))


def _run_processes(target, *args):
    context = multiprocessing.get_context('fork')
    results = context.Queue()
    processes = [context.Process(target=target, args=args + (results,)) for dummy in range(PROCESSES)]
    for process in processes:
        process.start()
    records = [results.get(timeout=60) for dummy in range(PROCESSES * SENDS)]
    for process in processes:
        process.join(10)
        assert process.exitcode == 0
    return records


def test_processes_sharing_one_pacer_never_exceed_the_limit_in_any_window(pacing_directory):
    records = _run_processes(_send_several, str(pacing_directory), time.time() + 0.3)
    assert len(set(pid for pid, dummy, dummy in records)) == PROCESSES
    slots = [slot for dummy, slot, dummy in records]
    assert_within_limit(slots, LIMIT, WINDOW + MARGIN)
    # A process goes at its slot or later (the scheduler may run it late), never before it.
    assert all(sent >= slot for dummy, slot, sent in records)


def test_a_429_in_one_process_holds_back_the_others(pacing_directory):
    holder = pacer_at(pacing_directory, LIMIT, WINDOW, margin=MARGIN)
    holder.refused(0.5)
    with open(holder.path) as handle:
        held_until = json.load(handle)['hold_until']
    records = _run_processes(_send_several, str(pacing_directory), 0)
    assert min(slot for dummy, slot, dummy in records) >= held_until


# Off, and the module's pacer ------------------------------------------------------------------

def test_off_makes_no_pacer_and_writes_nothing(pacing_directory):
    assert pacing.shared_pacer(None, BASE_URL, TOKEN, warn=pytest.fail) is pacing.UNPACED
    assert not pacing_directory.exists()


def test_the_pacer_of_one_credential_and_address_is_one_file(pacing_directory):
    def make(url, credential):
        return pacing.shared_pacer((10, 10), url, credential, warn=pytest.fail).path

    assert make(BASE_URL, TOKEN) == make(BASE_URL + '/', TOKEN)
    assert len(set([make(BASE_URL, TOKEN), make(BASE_URL, 'other-token'), make('https://other.example', TOKEN)])) == 3


def test_no_secret_in_a_file_name_or_content(fake_time, pacing_directory):
    pacer = pacing.shared_pacer((2, 10), BASE_URL, TOKEN, warn=pytest.fail)
    pacer.acquire()
    pacer.refused(5)
    pacer.acquire()
    for name in os.listdir(str(pacing_directory)):
        with open(os.path.join(str(pacing_directory), name)) as handle:
            content = handle.read()
        for text in (name, content):
            assert TOKEN not in text and 'engine.example' not in text
        assert set(json.loads(content)) == {'sends', 'hold_until'}


# The directory --------------------------------------------------------------------------------

def mode(path):
    return stat.S_IMODE(os.lstat(str(path)).st_mode)


def test_the_directory_and_every_missing_one_above_it_are_created_private(pacing_directory, monkeypatch):
    monkeypatch.setenv(pacing.DIRECTORY_ENV, str(pacing_directory / 'a' / 'b'))
    umask = os.umask(0o022)
    try:
        pacing.shared_pacer((10, 10), BASE_URL, TOKEN, warn=pytest.fail).acquire()
    finally:
        os.umask(umask)
    assert [mode(path) for path in (pacing_directory, pacing_directory / 'a', pacing_directory / 'a' / 'b')] == [0o700] * 3
    assert [mode(pacing_directory / 'a' / 'b' / name) for name in os.listdir(str(pacing_directory / 'a' / 'b'))] == [0o600]


def refused(warnings, why):
    """The one warning of a refused directory: why, what to do, and that it was left as it is."""
    assert len(warnings) == 1 and why in warnings[0], warnings
    assert 'Request pacing and shared reads are off for this task' in warnings[0] and 'set %s' % pacing.DIRECTORY_ENV in warnings[0]
    assert 'the module never changes an existing directory' in warnings[0]


@pytest.mark.parametrize('wide', [0o777, 0o1777, 0o775, 0o757])
def test_a_directory_of_ours_that_others_can_write_is_refused_and_left_as_it_is(pacing_directory, wide):
    pacing_directory.mkdir()
    os.chmod(str(pacing_directory), wide)
    warnings = []
    assert pacing.shared_pacer((10, 10), BASE_URL, TOKEN, warn=warnings.append) is pacing.UNPACED
    refused(warnings, '%s can be written by its group or others (mode %04o)' % (pacing_directory, wide))
    assert stat.S_IMODE(os.lstat(str(pacing_directory)).st_mode) == wide and os.listdir(str(pacing_directory)) == []


@as_root
def test_a_directory_of_another_user_is_refused_and_pacing_is_off_with_a_warning(pacing_directory):
    pacing_directory.mkdir(mode=0o700)
    os.chown(str(pacing_directory), OTHER_USER, OTHER_USER)
    warnings = []
    assert pacing.shared_pacer((10, 10), BASE_URL, TOKEN, warn=warnings.append) is pacing.UNPACED
    refused(warnings, '%s belongs to user id %d, not to this user (0)' % (pacing_directory, OTHER_USER))
    assert os.listdir(str(pacing_directory)) == []


@as_root
@pytest.mark.parametrize('owner, wide, why', [
    (OTHER_USER, 0o755, 'belongs to user id %d, neither this user (0) nor root' % OTHER_USER),
    (0, 0o777, 'can be written by its group or others and is not sticky (mode 0777)'),
    (0, 0o1777, None),  # sticky, as /tmp: no one else can rename or remove what is ours in it
], ids=['of another user', 'writable by others', 'sticky'])
def test_every_directory_above_it_is_checked(tmp_path, monkeypatch, owner, wide, why):
    above = tmp_path / 'above'
    above.mkdir()
    os.chmod(str(above), wide)
    os.chown(str(above), owner, owner)
    monkeypatch.setenv(pacing.DIRECTORY_ENV, str(above / 'mine' / 'pacing'))
    (above / 'mine').mkdir(mode=0o700)
    if why is None:
        assert pacing.state_directory() == str(above / 'mine' / 'pacing')
        return
    with pytest.raises(pacing.PacingUnavailable) as error:
        pacing.state_directory()
    assert str(error.value) == '%s %s' % (above, why)
    assert not (above / 'mine' / 'pacing').exists()


@as_root
def test_a_symbolic_link_counts_for_where_it_leads(pacing_directory, tmp_path):
    """The real path is checked and used: a link to a directory of ours serves (by its real path), one to a directory
    of another user does not."""
    (tmp_path / 'mine').mkdir(mode=0o700)
    os.symlink(str(tmp_path / 'mine'), str(pacing_directory))
    assert pacing.state_directory() == str(tmp_path / 'mine')
    os.chown(str(tmp_path / 'mine'), OTHER_USER, OTHER_USER)
    with pytest.raises(pacing.PacingUnavailable, match='belongs to user id %d' % OTHER_USER):
        pacing.state_directory()


@as_root
def test_without_a_usable_home_the_runtime_directory_serves_never_a_name_another_user_can_take_in_tmp(tmp_path, monkeypatch):
    """Another user made engine.cloud-pacing-<uid> in the temporary directory first: that name is never used."""
    monkeypatch.delenv(pacing.DIRECTORY_ENV)
    (tmp_path / 'home-is-a-file').write_text('')
    monkeypatch.setenv('HOME', str(tmp_path / 'home-is-a-file'))
    shared_tmp = tmp_path / 'tmp'
    shared_tmp.mkdir()
    os.chmod(str(shared_tmp), 0o1777)
    (shared_tmp / ('engine.cloud-pacing-%d' % os.geteuid())).mkdir(mode=0o700)
    os.chown(str(shared_tmp / ('engine.cloud-pacing-%d' % os.geteuid())), OTHER_USER, OTHER_USER)
    monkeypatch.setenv('TMPDIR', str(shared_tmp))
    monkeypatch.setenv('XDG_RUNTIME_DIR', str(tmp_path / 'runtime'))
    (tmp_path / 'runtime').mkdir(mode=0o700)
    assert pacing.state_directory() == str(tmp_path / 'runtime' / 'engine.cloud' / 'pacing')
    assert mode(tmp_path / 'runtime' / 'engine.cloud') == 0o700
    monkeypatch.delenv('XDG_RUNTIME_DIR')
    with pytest.raises(pacing.PacingUnavailable, match='home-is-a-file is not a directory'):
        pacing.state_directory()


def test_a_home_directory_serves_first(tmp_path, monkeypatch):
    monkeypatch.delenv(pacing.DIRECTORY_ENV)
    monkeypatch.setenv('HOME', str(tmp_path))
    assert pacing.state_directory() == str(tmp_path / '.cache' / 'engine.cloud' / 'pacing')


@pytest.mark.parametrize('owner, file_mode, why', [
    (OTHER_USER, 0o600, 'belongs to user id %d, not to this user' % OTHER_USER),
    (0, 0o644, 'can be read or written by its group or others (mode 0644)'),
    (0, 0o620, 'can be read or written by its group or others (mode 0620)'),
], ids=['of another user', 'readable by others', 'writable by its group'])
def test_a_state_file_that_is_not_ours_alone_is_neither_read_nor_written(fake_time, pacing_directory, owner, file_mode, why):
    if owner and os.geteuid() != 0:
        pytest.skip('giving a file to another user id takes root')
    warnings = []
    pacer = pacing.shared_pacer((1, 10), BASE_URL, TOKEN, warn=warnings.append)
    planted = json.dumps(dict(sends=[], hold_until=1059.0))  # would hold every request back for 59 s
    plant(pacer.path, planted)
    os.chmod(pacer.path, file_mode)
    os.chown(pacer.path, owner or os.geteuid(), owner or os.getegid())
    assert [pacer.acquire(), pacer.acquire()] == [1000, 1000]  # pacing off for this task, not held back
    assert warnings == ['Request pacing is off for the rest of this task: %s: %s' % (pacer.path, warnings[0].rsplit(': ', 1)[1])]
    assert why in warnings[0]
    with open(pacer.path) as handle:
        assert handle.read() == planted


def test_a_state_file_that_cannot_be_written_turns_pacing_off_with_one_warning(pacing_directory):
    warnings = []
    pacer = pacing.shared_pacer((1, 10), BASE_URL, TOKEN, warn=warnings.append)
    os.mkdir(pacer.path)  # a directory where the state file should be: open() fails
    pacer.acquire()
    pacer.acquire()
    pacer.refused(1)
    assert len(warnings) == 1 and 'pacing is off for the rest of this task' in warnings[0]
