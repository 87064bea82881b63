# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import itertools
import re

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils import cloud, observability, play_reads
from ansible_collections.engine.cloud.plugins.module_utils.base import (
    CLOUD_CONNECTION, OBSERVABILITY_CONNECTION, EngineModule, Wait, WaitError, missing_connection_errors, option_source, poll_intervals,
    suboption_paths)


def reader(clock, timeline):
    """read() giving the state that timeline (a list of (seconds from now, state)) has at the clock's time."""
    origin = clock.now

    def read():
        return {'state': [state for start, state in timeline if origin + start <= clock.now][-1]}
    return read


def test_intervals_grow_from_one_to_ten_seconds():
    assert list(itertools.islice(poll_intervals(), 7)) == [1, 2, 4, 8, 10, 10, 10]


def state_is(*states):
    return lambda resource: resource['state'] in states


class Reads:
    """read() as a list of states, one per call (the last one repeats); counts the calls."""

    def __init__(self, *states):
        self.states, self.count = list(states), 0

    def __call__(self):
        self.count += 1
        return {'state': self.states[min(self.count, len(self.states)) - 1]}


def test_a_resource_just_read_that_is_done_ends_the_wait_without_a_read_or_a_sleep(clock):
    read = Reads('stopped')
    resource = Wait(900, 'svc').until(read, state_is('stopped'), state_is('failed'), 'stopped', current={'state': 'stopped'})
    assert (resource['state'], read.count, clock.sleeps) == ('stopped', 0, [])


def test_after_a_command_the_first_read_comes_one_interval_later(clock):
    read = Reads('stopped')
    resource = Wait(900, 'svc').until(read, state_is('stopped'), state_is('failed'), 'stopped', before='running', command='stop')
    assert (resource['state'], read.count, clock.sleeps) == ('stopped', 1, [1])


@pytest.mark.parametrize('transition', [5, 30, 120])
def test_polls_stay_within_the_budget_and_end_soon_after_the_transition(transition, clock):
    import math
    read = reader(clock, [(0, 'stopping'), (transition, 'stopped')])
    calls = []
    Wait(900, 'svc').until(lambda: calls.append(1) or read(), state_is('stopped'), state_is(), 'stopped', current=read())
    assert len(calls) <= 2 + math.log2(transition) + transition / 10.0
    assert sum(clock.sleeps) - transition <= 10


def test_a_failure_state_fails_at_once_naming_it(clock):
    with pytest.raises(WaitError) as info:
        Wait(900, 'service prod').until(reader(clock, [(0, 'stopping'), (3, 'degraded')]), state_is('stopped'),
                                        state_is('degraded', 'failed'), 'stopped', current={'state': 'stopping'})
    assert str(info.value) == 'service prod entered the failure state degraded'
    assert info.value.resource == {'state': 'degraded'}


def test_the_failure_state_from_before_the_command_is_not_a_failure_until_another_state_was_seen(clock):
    read = Reads('Failed', 'Failed', 'Provisioning', 'Running')
    resource = Wait(900, 'pipe p').until(read, state_is('Running'), state_is('Failed'), 'Running', before='Failed', command='start')
    assert resource['state'] == 'Running' and read.count == 4
    with pytest.raises(WaitError) as info:
        Wait(900, 'pipe p').until(Reads('Failed', 'Provisioning', 'Failed'), state_is('Running'), state_is('Failed'), 'Running',
                                  before='Failed', command='start')
    assert str(info.value) == 'pipe p entered the failure state Failed'


def test_a_timeout_names_the_last_state_and_does_not_overshoot(clock):
    with pytest.raises(WaitError) as info:
        Wait(20, 'service prod').until(Reads('stopping'), state_is('stopped'), state_is('failed'), 'stopped',
                                       current={'state': 'stopping'})
    assert str(info.value) == 'service prod did not reach stopped within 20 seconds; last state: stopping'
    assert sum(clock.sleeps) == 20


def test_a_timeout_in_the_state_from_before_the_command_says_the_command_may_not_have_taken_effect(clock):
    with pytest.raises(WaitError) as info:
        Wait(20, 'pipe p').until(Reads('Failed'), state_is('Running'), state_is('Failed'), 'Running', before='Failed', command='start')
    assert str(info.value) == ('pipe p did not reach Running within 20 seconds; last state: Failed, as before the start command, '
                               'which may not have taken effect')


def test_one_budget_for_every_wait_of_a_task(clock):
    wait = Wait(30, 'svc')
    wait.until(reader(clock, [(0, 'stopping'), (20, 'stopped')]), state_is('stopped'), state_is(), 'stopped', current={'state': 'stopping'})
    with pytest.raises(WaitError):
        wait.until(Reads('starting'), state_is('running'), state_is(), 'running', before='stopped', command='start')
    assert sum(clock.sleeps) == 30


# --- the converge step --------------------------------------------------------------------------------

class Exited(Exception):
    def __init__(self, **result):
        super(Exited, self).__init__(result)
        self.result = result


class Stub:
    """What EngineModule.converge uses of the module: params, check mode, the client's backoff, exit and fail."""

    apply = EngineModule.apply
    send_once = EngineModule.send_once
    fresh, kept = EngineModule.fresh, play_reads.NONE

    def __init__(self, api_retries=2, check_mode=False):
        self.params, self.check_mode = dict(api_retries=api_retries), check_mode
        self.client = http.HttpClient('http://api.test', jitter=lambda: 0.5)

    def exit(self, changed=False, diff=None, **result):
        raise Exited(changed=changed, diff=diff, **result)

    def fail_api(self, error, more=None, **result):
        raise Exited(failed=True, msg=str(error) if more is None else '%s; %s' % (error, more))


class Resource:
    """A resource with a name; writes apply (or not) and lose their answer as scripted."""

    def __init__(self, *outcomes):
        self.name, self.outcomes, self.log = 'old', list(outcomes), []

    def read(self):
        self.log.append('GET')
        return {'name': self.name}

    def write(self, body):
        self.log.append(('PATCH', body))
        applied, lost = self.outcomes.pop(0)
        if applied:
            self.name = body['name']
        if lost:
            raise http.ApiError('no response within api_timeout (2 s)', method='PATCH', path='/x', answer_lost=True)
        return {'name': self.name}


def plan(current):
    body = {} if current['name'] == 'new' else {'name': 'new'}
    return body, dict(before=dict(current), after=dict(body))


def converge(module, resource):
    with pytest.raises(Exited) as info:
        EngineModule.converge(module, 'thing', resource.read, plan, resource.write)
    return info.value.result


def test_nothing_to_change_sends_nothing(clock):
    resource = Resource()
    resource.name = 'new'
    assert converge(Stub(), resource) == dict(changed=False, diff=None, thing={'name': 'new'})
    assert resource.log == ['GET']


def test_check_mode_predicts_without_a_write(clock):
    resource = Resource()
    result = converge(Stub(check_mode=True), resource)
    assert result['changed'] and result['thing'] == {'name': 'new'} and resource.log == ['GET']


def test_a_write_applied_with_a_lost_answer_is_not_sent_again(clock):
    resource = Resource((True, True))
    result = converge(Stub(), resource)
    assert result == dict(changed=True, diff={'before': {'name': 'old'}, 'after': {'name': 'new'}}, thing={'name': 'new'})
    assert resource.log == ['GET', ('PATCH', {'name': 'new'}), 'GET']
    assert clock.sleeps == [0.75]


def test_a_write_not_applied_with_a_lost_answer_is_sent_again_after_a_read(clock):
    resource = Resource((False, True), (True, False))
    assert converge(Stub(), resource)['thing'] == {'name': 'new'}
    assert resource.log == ['GET', ('PATCH', {'name': 'new'}), 'GET', ('PATCH', {'name': 'new'})]


def test_resending_stops_after_api_retries_and_says_what_still_differs(clock):
    resource = Resource((False, True), (False, True))
    result = converge(Stub(api_retries=1), resource)
    assert result['failed'] and result['msg'].endswith(
        'no response within api_timeout (2 s); a read afterwards shows name still to change, and api_retries (1) allows no further attempt')
    assert resource.log == ['GET', ('PATCH', {'name': 'new'}), 'GET', ('PATCH', {'name': 'new'}), 'GET']


def test_with_api_retries_0_a_lost_answer_is_still_checked_by_a_read(clock):
    resource = Resource((True, True))
    assert converge(Stub(api_retries=0), resource)['changed'] is True
    assert resource.log == ['GET', ('PATCH', {'name': 'new'}), 'GET']


def test_an_error_that_is_not_a_lost_answer_fails_at_once(clock):
    resource = Resource()

    def refused(body):
        resource.log.append(('PATCH', body))
        raise http.ApiError('bad', status=400, method='PATCH', path='/x')

    with pytest.raises(Exited) as info:
        EngineModule.converge(Stub(), 'thing', resource.read, plan, refused)
    assert info.value.result['failed'] and resource.log == ['GET', ('PATCH', {'name': 'new'})]


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


# --- one Api per API ----------------------------------------------------------------------------

def test_an_api_spec_has_its_own_rate_limit_variable_and_accepts_the_other_apis_connection():
    spec = cloud.API.argument_spec()
    assert spec['api_rate_limit']['fallback'][1] == ['ENGINE_CLOUD_RATE_LIMIT']
    assert spec['api_token'] == dict(type='str', no_log=True)  # accepted for module_defaults, without its fallback
    assert 'api_token' not in cloud.API.argument_spec(also=False)
    assert observability.API.argument_spec(also=False)['api_rate_limit']['fallback'][1] == ['ENGINE_OBSERVABILITY_RATE_LIMIT']


def test_an_api_checks_every_option_at_once_before_it_makes_a_client():
    calls = []

    def fail(*messages):
        calls.append([message for message in messages if message])
        if calls[-1]:
            raise Exited(failed=True)
    params = dict(api_timeout=0, api_retries=-1, api_rate_limit='0/10', validate_certs=True,
                  api_url=None, api_key_id='k', api_key_secret='s', organization_id='o')
    with pytest.raises(Exited):
        cloud.API.connect(params, warn=calls.append, fail=fail)
    assert [message.split(' ')[0] for message in calls[0]] == ['api_timeout', 'api_retries', 'api_rate_limit', 'api_url']
    params.update(api_timeout=30, api_retries=0, api_rate_limit='off', api_url='http://api.test')
    with pytest.raises(Exited):
        cloud.API.connect(params, warn=calls.append, fail=fail)
    assert calls[1] == ["organization_id must be a UUID (8-4-4-4-12 hexadecimal digits), got 'o'"]
    params.update(organization_id='7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f')
    client = cloud.API.connect(params, warn=calls.append, fail=fail)
    assert calls[2:] == [[]] and client.base_url == 'http://api.test' and client.retries == 0


def test_a_suboption_is_found_where_it_sits_in_nested_lists_and_dicts():
    spec = dict(tiles=dict(type='list', elements='dict', options=dict(series=dict(type='list', elements='dict', options=dict(type={})))),
                source=dict(type='dict', options=dict(kafka=dict(type='dict', options=dict(series=dict(type='str'))))))
    assert suboption_paths(spec, 'series') == ['source.kafka.series', 'tiles[].series']
    assert suboption_paths(spec, 'type') == ['tiles[].series[].type']
    assert suboption_paths(spec, 'nothing') == []
