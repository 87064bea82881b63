# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import itertools
import re

import pytest

from ansible_collections.engine.cloud.plugins.module_utils.base import (
    CLOUD_CONNECTION, OBSERVABILITY_CONNECTION, WaitError, missing_connection_errors, option_source, poll_intervals, wait_for_state)


def reader(clock, timeline):
    """read() giving the state that timeline (a list of (seconds from now, state)) has at the clock's time."""
    origin = clock.now

    def read():
        return {'state': [state for start, state in timeline if origin + start <= clock.now][-1]}
    return read


def test_intervals_grow_from_one_to_ten_seconds():
    assert list(itertools.islice(poll_intervals(), 7)) == [1, 2, 4, 8, 10, 10, 10]


def test_done_at_once_reads_once_and_never_sleeps(clock):
    resource, reads = wait_for_state(reader(clock, [(0, 'stopped')]), {'stopped'}, {'failed'}, 900, 'svc')
    assert (resource['state'], reads, clock.sleeps) == ('stopped', 1, [])


@pytest.mark.parametrize('transition', [5, 30, 120])
def test_polls_stay_within_the_budget_and_end_soon_after_the_transition(transition, clock):
    import math
    dummy, reads = wait_for_state(reader(clock, [(0, 'stopping'), (transition, 'stopped')]), {'stopped'}, set(),
                                  900, 'svc')
    assert reads <= 2 + math.log2(transition) + transition / 10.0
    assert sum(clock.sleeps) - transition <= 10


def test_failure_state_fails_at_once_naming_it(clock):
    with pytest.raises(WaitError) as info:
        wait_for_state(reader(clock, [(0, 'stopping'), (3, 'degraded')]), {'stopped'}, {'degraded', 'failed'}, 900,
                       'service prod')
    assert str(info.value) == 'service prod entered the failure state degraded'
    assert info.value.resource == {'state': 'degraded'}


def test_timeout_names_the_last_state_and_does_not_overshoot(clock):
    with pytest.raises(WaitError) as info:
        wait_for_state(reader(clock, [(0, 'stopping')]), {'stopped'}, {'failed'}, 20, 'service prod')
    assert str(info.value) == 'service prod did not reach stopped within 20 seconds; last state: stopping'
    assert sum(clock.sleeps) == 20


def test_a_known_resource_is_not_read_again_at_once(clock):
    resource, reads = wait_for_state(reader(clock, [(0, 'stopping'), (2, 'stopped')]), {'stopped'}, {'failed'}, 900,
                                     'svc', current={'state': 'stopping'})
    assert (resource['state'], reads, clock.sleeps) == ('stopped', 2, [1, 2])


def test_a_known_failure_state_fails_without_a_read(clock):
    with pytest.raises(WaitError):
        wait_for_state(None, {'stopped'}, {'failed'}, 900, 'svc', current={'state': 'failed'})
    assert clock.sleeps == []


# --- connection options ---------------------------------------------------------------------

def test_a_missing_or_empty_connection_option_names_its_environment_variable():
    params = dict(api_url=None, api_key_id='', api_key_secret='  ', organization_id='7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f')
    assert missing_connection_errors(CLOUD_CONNECTION, params) == [
        'api_url is required: set api_url or the ENGINE_CLOUD_API_URL environment variable',
        'api_key_id is required: set api_key_id or the ENGINE_CLOUD_KEY_ID environment variable (got an empty value)',
        'api_key_secret is required: set api_key_secret or the ENGINE_CLOUD_KEY_SECRET environment variable (got an empty value)',
    ]


def test_every_connection_option_has_its_own_environment_variable():
    for connection in (CLOUD_CONNECTION, OBSERVABILITY_CONNECTION):
        names = [option_source(connection, name) for name in connection]
        assert all(re.match(r'^\w+ or the ENGINE_[A-Z_]+ environment variable$', name) for name in names), names
    assert option_source(OBSERVABILITY_CONNECTION, 'api_token') == 'api_token or the ENGINE_OBSERVABILITY_TOKEN environment variable'
    assert missing_connection_errors(OBSERVABILITY_CONNECTION, dict(observability_url='http://o', api_token='t')) == []
