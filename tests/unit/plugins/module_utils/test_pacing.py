# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Request pacing (module_utils/pacing.py): the option, the window arithmetic and the hold after a 429 on fake time
(several Pacers on one file stand for several processes), states that this clock cannot have written, real processes
sharing one file, and the state file of a module's pacer."""

import json
import multiprocessing
import os
import time

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pacing
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK

URL, TOKEN = 'https://api.engine.example', 'obs-token-that-must-stay-secret-7f3a'


def pacer(tmp_path, requests=1, seconds=10, warn=pytest.fail):
    return pacing.Pacer(str(tmp_path / 'state.json'), requests, seconds, warn)


def plant(path, content):
    with os.fdopen(os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'wb') as handle:
        handle.write(content if isinstance(content, bytes) else content.encode('utf-8'))


def crowded(moments, requests, seconds):
    """The windows of that length that hold more than `requests` of the moments."""
    moments = sorted(moments)
    return [moments[i:i + requests + 1] for i in range(len(moments) - requests) if moments[i + requests] - moments[i] < seconds]


@pytest.fixture
def during(clock, monkeypatch):
    """during(moment, action): action runs when a sleep passes that moment (another process acting meanwhile)."""
    events = []

    def sleep(seconds):
        clock.sleeps.append(seconds)
        end = clock.now + seconds
        for event in sorted((event for event in events if clock.now <= event[0] < end), key=lambda event: event[0]):
            events.remove(event)
            clock.now = event[0]
            event[1]()
        clock.now = max(clock.now, end)
    monkeypatch.setattr(CLOCK, 'sleep', sleep)
    return lambda moment, action: events.append((clock.now + moment, action))


# The option ----------------------------------------------------------------------------------------------------------

BAD = 'bad'


@pytest.mark.parametrize('value, limit', [
    (None, (10, 10)), ('', (10, 10)), ('off', None), (' OFF ', None), (False, None), ('20/10', (20, 10.0)), (' 5 / 2.5 ', (5, 2.5)),
] + [(value, BAD) for value in ['0/10', '10/0', 'ten', '10', '10/10/10', '-1/10', '10 per 10', True, 10, ['10/10']]])
def test_api_rate_limit_values_and_a_bad_one_named_with_the_form(value, limit):
    error = ('api_rate_limit must be REQUESTS/SECONDS with at least 1 request and more than 0 seconds (for example 20/10), or off; '
             'got %r' % (value,))
    assert pacing.rate_limit('api_rate_limit', value, (10, 10)) == (((10, 10), error) if limit == BAD else (limit, None))


# The window ----------------------------------------------------------------------------------------------------------

def test_the_window_slides(clock, tmp_path):
    paced, start, moments = pacer(tmp_path, 2, 10), clock.now, []
    for step in (0, 4, 1, 0, 0, 20, 0):
        clock.advance(step)
        paced.acquire()
        moments.append(clock.now - start)
    assert moments == [0, 4, 10.5, 14.5, 21, 41, 41] and not crowded(moments, 2, 10.5) and paced.waited == 16


def test_waiting_processes_go_first_come_first_served(clock, tmp_path, during):
    """While the first waits for its slot (10.5), the second asks and is queued behind it (21), not beside it."""
    first, second = pacer(tmp_path), pacer(tmp_path)
    first.acquire()
    during(1, second.acquire)
    first.acquire()
    assert clock.sleeps == [10.5, 20.0]


def test_a_429_holds_every_process_back_for_the_wait_the_server_named_capped(clock, tmp_path):
    refused, other = pacer(tmp_path, 10), pacer(tmp_path, 10)
    refused.refused(7)
    other.acquire()
    refused.refused(None)
    refused.acquire()
    other.refused(3600)
    other.acquire()
    assert clock.sleeps == [7, pacing.UNNAMED_HOLD, pacing.HOLD_CAP] and (refused.waited, other.waited) == (1, 67)


def test_a_hold_that_overtakes_a_reserved_slot_moves_it(clock, tmp_path, during):
    waiting, refused = pacer(tmp_path), pacer(tmp_path)
    start = clock.now
    waiting.acquire()
    during(5, lambda: refused.refused(30))
    waiting.acquire()
    assert clock.sleeps == [10.5, 24.5]
    with open(waiting.path) as handle:
        assert json.load(handle)['sends'] == [start + 35]  # the abandoned slot at 10.5 counts no more


def test_a_send_counts_from_its_answer_so_a_slow_one_never_crowds_the_server_window(clock, tmp_path):
    """Three sends at 0, their answers 2 s later (a loaded controller): the fourth goes 10.5 s after the answers, not
    after the sends, so that however late the three arrived, no window of the server holds four."""
    paced = pacer(tmp_path, 3, 10)
    slots = [paced.acquire() for dummy in range(3)]
    clock.advance(2)
    for slot in slots:
        paced.answered(slot)
    paced.acquire()
    assert clock.sleeps == [10 + pacing.MARGIN]


def test_a_slot_crowded_by_a_late_answer_moves_only_as_far_as_the_window_needs(clock, tmp_path, during):
    """Two per 10 s. Two sends at 0; this process reserves 10.5, then three others reserve 10.5, 21 and 21. The first
    send's answer comes at 1, so 10.5 no longer leaves this process room: it moves to 11.5, when that answer leaves the
    window, not behind every other waiting process (31.5)."""
    sender, waiting, others = pacer(tmp_path, 2, 10), pacer(tmp_path, 2, 10), pacer(tmp_path, 2, 10)
    start = clock.now
    first = sender.acquire()
    sender.acquire()
    during(0, lambda: [others._update(others._reserve) for dummy in range(3)])  # pylint: disable=protected-access
    during(1, lambda: sender.answered(first))
    assert waiting.acquire() - start == 11.5 and clock.sleeps == [10.5, 1.0]
    with open(waiting.path) as handle:
        assert [sent - start for sent in json.load(handle)['sends']] == [10.5, 11.5, 21, 21]  # 1 has left the window


def test_an_answer_moves_only_its_own_send_and_never_earlier(clock, tmp_path):
    paced = pacer(tmp_path, 5, 10)
    slots = [paced.acquire() for dummy in range(2)]
    paced.answered(slots[0] - 1)  # not a send of this file: nothing moves
    clock.advance(1)
    paced.answered(slots[1])
    paced.answered(None)
    with open(paced.path) as handle:
        assert json.load(handle)['sends'] == [slots[0], slots[1] + 1]


@pytest.mark.parametrize('content', [
    'not json', '{"sends": [1000', '{"sends": "999", "hold": 0}', '{"sends": {"999": 1}, "hold": 0}', '{"sends": [NaN], "hold": 0}',
    '{"sends": [], "hold": NaN}', '{"sends": [1%s], "hold": 0}' % ('0' * 400), '{"sends": [true], "hold": 0}',
    '{"sends": [], "hold": "0"}', '{"sends": []}', '[]', 'null', '[' * 100000, b'\xff\xfe'], ids=lambda content: repr(content)[:24])
def test_a_state_another_program_wrote_starts_afresh_with_one_warning(clock, tmp_path, content):
    warnings = []
    paced = pacer(tmp_path, warn=warnings.append)
    plant(paced.path, content)
    paced.acquire()
    paced.acquire()
    assert clock.sleeps == [10.5] and warnings == ['Request pacing started afresh: the state file %s was ignored (it is not a pacing '
                                                   'state)' % paced.path]


@pytest.mark.parametrize('sends, hold, waits', [
    ([1000.0], 0.0, []),          # a send far ahead: this clock restarted since (a reboot), or another's clock
    ([], 1000.0, []),             # a hold far ahead
    ([5.0], 0.0, [15.5]),         # a slot reserved 5 s ahead: a process waiting for it
    ([], 30.0, [30.0]),           # a hold within HOLD_CAP: a 429 just now
], ids=['send far ahead', 'hold far ahead', 'reservation', 'hold'])
def test_times_further_ahead_than_any_reservation_or_hold_are_dropped(clock, tmp_path, sends, hold, waits):
    paced = pacer(tmp_path)
    plant(paced.path, json.dumps(dict(sends=[clock.now + sent for sent in sends], hold=clock.now + hold if hold else 0.0)))
    paced.acquire()
    assert clock.sleeps == waits


# Real processes ------------------------------------------------------------------------------------------------------

LIMIT, WINDOW, PROCESSES, SENDS = 3, 0.2, 4, 3


def send_several(path, start, results):
    paced = pacing.Pacer(path, LIMIT, WINDOW, print)
    while time.monotonic() < start:
        time.sleep(0.005)
    for dummy in range(SENDS):
        paced.acquire()
        results.put(time.monotonic())


def test_processes_sharing_a_pacer_never_exceed_the_limit_in_any_window(tmp_path, monkeypatch):
    """The margin (0.3 s here) absorbs a process that the scheduler runs late; the window itself is never crowded."""
    monkeypatch.setattr(pacing, 'MARGIN', 0.3)
    context = multiprocessing.get_context('fork')
    results = context.Queue()
    processes = [context.Process(target=send_several, args=(str(tmp_path / 'state.json'), time.monotonic() + 0.3, results))
                 for dummy in range(PROCESSES)]
    for process in processes:
        process.start()
    moments = [results.get(timeout=30) for dummy in range(PROCESSES * SENDS)]
    for process in processes:
        process.join(10)
        assert process.exitcode == 0
    assert not crowded(moments, LIMIT, WINDOW)
    assert max(moments) - min(moments) >= (PROCESSES * SENDS // LIMIT - 1) * (WINDOW + 0.3) - 0.05


# The module's pacer ----------------------------------------------------------------------------------

def test_off_makes_no_pacer_and_writes_nothing(pacing_directory):
    assert isinstance(pacing.shared_pacer(None, URL, TOKEN, pytest.fail), pacing.Unpaced)
    assert not pacing_directory.exists()


def test_one_state_file_per_address_and_credential_holding_no_secret(clock, pacing_directory):
    def path(url, credential):
        return pacing.shared_pacer((2, 10), url, credential, pytest.fail).path
    assert path(URL, TOKEN) == path(URL + '/', TOKEN)
    assert len({path(URL, TOKEN), path(URL, 'other-token'), path('https://other.example', TOKEN)}) == 3
    paced = pacing.shared_pacer((2, 10), URL, TOKEN, pytest.fail)
    paced.acquire()
    paced.refused(5)
    with open(paced.path) as handle:
        content = handle.read()
    assert set(json.loads(content)) == {'sends', 'hold'}
    assert not any(secret in text for secret in (TOKEN, 'engine.example') for text in (content, paced.path))
