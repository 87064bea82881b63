# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The pacer: the option's values, the sliding window and the hold on fake time, real processes
sharing one state file, and the private directory (tests/unit/conftest.py gives each test its own)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import multiprocessing
import os
import stat
import time

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pacer as pacing
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK

BASE_URL = 'https://api.engine.example'
TOKEN = 'obs-token-that-must-stay-secret-7f3a'


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


@pytest.mark.parametrize('content', ['', 'not json', '{"sends": "x"}', '{"sends": [3, 1], "hold_until": 0}',
                                     '{"sends": [99999], "hold_until": 0}', '{"sends": [], "hold_until": 99999}'])
def test_a_state_this_clock_cannot_have_written_starts_afresh(fake_time, pacing_directory, content):
    pacer = pacer_at(pacing_directory, 1, 10)
    with open(pacer.path, 'w') as handle:
        handle.write(content)
    assert pacer.acquire() == 1000


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


def test_the_directory_is_created_private(pacing_directory):
    umask = os.umask(0o022)
    try:
        pacing.shared_pacer((10, 10), BASE_URL, TOKEN, warn=pytest.fail).acquire()
    finally:
        os.umask(umask)
    assert mode(pacing_directory) == 0o700
    assert [mode(pacing_directory / name) for name in os.listdir(str(pacing_directory))] == [0o600]


def test_a_wider_directory_of_ours_is_narrowed(pacing_directory):
    pacing_directory.mkdir(mode=0o755)
    os.chmod(str(pacing_directory), 0o777)
    assert pacing.state_directory() == str(pacing_directory)
    assert mode(pacing_directory) == 0o700


def test_a_directory_of_another_user_is_refused_and_pacing_is_off_with_a_warning(pacing_directory, monkeypatch):
    pacing_directory.mkdir(mode=0o700)
    monkeypatch.setattr(pacing.os, 'geteuid', lambda: os.lstat(str(pacing_directory)).st_uid + 1)
    warnings = []
    assert pacing.shared_pacer((10, 10), BASE_URL, TOKEN, warn=warnings.append) is pacing.UNPACED
    assert len(warnings) == 1 and 'belongs to user id' in warnings[0] and pacing.DIRECTORY_ENV in warnings[0]
    assert os.listdir(str(pacing_directory)) == []


def test_a_symbolic_link_is_refused(pacing_directory, tmp_path):
    (tmp_path / 'elsewhere').mkdir(mode=0o700)
    os.symlink(str(tmp_path / 'elsewhere'), str(pacing_directory))
    with pytest.raises(pacing.PacingUnavailable, match='is not a directory'):
        pacing.state_directory()


def test_without_a_usable_home_the_temporary_directory_serves(tmp_path, monkeypatch):
    monkeypatch.delenv(pacing.DIRECTORY_ENV)
    (tmp_path / 'home-is-a-file').write_text('')
    monkeypatch.setenv('HOME', str(tmp_path / 'home-is-a-file'))
    monkeypatch.setattr(pacing.tempfile, 'gettempdir', lambda: str(tmp_path / 'tmp'))
    (tmp_path / 'tmp').mkdir()
    directory = pacing.state_directory()
    assert directory == str(tmp_path / 'tmp' / ('engine.cloud-pacing-%d' % os.geteuid()))
    assert mode(directory) == 0o700


def test_a_home_directory_serves_first(tmp_path, monkeypatch):
    monkeypatch.delenv(pacing.DIRECTORY_ENV)
    monkeypatch.setenv('HOME', str(tmp_path))
    assert pacing.state_directory() == str(tmp_path / '.cache' / 'engine.cloud' / 'pacing')


def test_a_state_file_that_cannot_be_written_turns_pacing_off_with_one_warning(pacing_directory):
    warnings = []
    pacer = pacing.shared_pacer((1, 10), BASE_URL, TOKEN, warn=warnings.append)
    os.mkdir(pacer.path)  # a directory where the state file should be: open() fails
    pacer.acquire()
    pacer.acquire()
    pacer.refused(1)
    assert len(warnings) == 1 and 'pacing is off for the rest of this task' in warnings[0]
