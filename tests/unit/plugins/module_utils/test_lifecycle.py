# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The shared lifecycle (module_utils/lifecycle.py) on a scripted API: finding by id or name, fields fixed at
creation, a create never sent twice (a lost answer: the resource looked for by name, adopted or the task failed),
a failure after a create that reports it, deletes whose answer is lost or answered 404 (lingering reads), and the waits. The service and pipe modules'
own tests run it against the simulator."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils import play_reads, shared_reads
from ansible_collections.engine.cloud.plugins.module_utils.base import EngineModule
from ansible_collections.engine.cloud.plugins.module_utils.lifecycle import Kind, Lifecycle, envelope

KIND = Kind('thing', 'thing', 'thing_id', lambda module: '/things', lambda module, thing_id: '/things/' + thing_id,
            ready=('up',), failures=('broken',), deleting=('going',), gone=('gone',), answer_key='thing')


class Exited(Exception):
    def __init__(self, **result):
        super(Exited, self).__init__(result)
        self.result = result


class Api:
    """An API of things: POST makes one (answer {thing, secret}), DELETE removes it; each request is logged.
    lose: a list of (method, applied) for the next requests of that method whose answer is lost."""

    def __init__(self, *things, **options):
        self.things = dict((thing['id'], dict(thing)) for thing in things)
        self.lose = list(options.get('lose', ()))
        self.log = []
        self.created = 0
        self.after_create = options.get('after_create', ['up'])
        self.after_delete = options.get('after_delete', [None])
        self.late = []  # [reads to go, body]: a create still running on the server after its answer was lost
        self.lingering = options.get('lingering', 0)  # reads that still show a deleted thing
        self.holder_gone = options.get('holder_gone', False)

    def handle(self, method, path, body=None):
        """lose entries: (method, applied), applied True (before the answer was lost), False, or a number of reads
        after which the create is applied (slower than the client's timeout)."""
        self.log.append((method, path))
        if self.holder_gone:
            raise http.ApiError('the holder is gone', status=404, method=method, path=path)
        for item in list(self.late):
            item[0] -= 1
            if item[0] < 0:
                self.late.remove(item)
                self._apply('POST', '/things', item[1])
        lost = next((item for item in self.lose if item[0] == method), None)
        if lost:
            self.lose.remove(lost)
            if lost[1] is True:
                self._apply(method, path, body)
            elif lost[1] is not False:
                self.late.append([lost[1], body])
            raise http.ApiError('no response within api_timeout (2 s)', method=method, path=path, answer_lost=True)
        return self._apply(method, path, body)

    def _apply(self, method, path, body):
        if method == 'POST':
            self.created += 1
            thing = dict(body, id='t%d' % self.created, state='new', later=list(self.after_create))
            self.things[thing['id']] = thing
            return {'result': {'thing': self.view(thing), 'secret': 's3cret'}}
        thing_id = path.rsplit('/', 1)[1]
        if path == '/things':
            return {'result': [self.view(thing) for thing in self.things.values()]}
        thing = self.things.get(thing_id)
        if thing is None or (method == 'DELETE' and thing.get('deleted')):
            raise http.ApiError('not found', status=404, method=method, path=path)
        if method == 'DELETE' and self.lingering:
            thing.update(deleted=True, later=[thing['state']] * self.lingering + [None])
            return {}
        if method == 'DELETE':
            thing.update(state='going', later=list(self.after_delete))
            return {}
        return {'result': self.view(thing, read=True)}

    def view(self, thing, read=False):
        if read and thing.get('later'):
            thing['state'] = thing['later'].pop(0)
            if thing['state'] is None:
                del self.things[thing['id']]
                raise http.ApiError('not found', status=404, method='GET', path='/things/' + thing['id'])
        return dict((key, value) for key, value in thing.items() if key not in ('later', 'deleted'))


class Module:
    """What the lifecycle uses of a CloudModule."""

    def __init__(self, api, check_mode=False, **params):
        self.api, self.check_mode = api, check_mode
        self.params = dict(dict(thing_id=None, name=None, wait=True, wait_timeout=60, api_retries=2), **params)
        self.client = http.HttpClient('http://api.test', jitter=lambda: 0.5)
        self.failure_amends, self.warnings = [], []

    def warn(self, warning):
        self.warnings.append(warning)

    def request(self, method, path, params=None, body=None, once=False):
        return self.api.handle(method, path, body)

    def request_or_fail(self, method, path, params=None, body=None, missing_ok=False):
        try:
            return self.request(method, path, body=body)
        except http.ApiError as error:
            if missing_ok and error.status == 404:
                return None
            self.fail_api(error)

    send_once = EngineModule.send_once  # the one lost-answer loop, as a CloudModule has it
    # its reads, as an EngineModule reads when no other task shares them
    shared = shared_reads.ALONE
    shared_item, shared_list, peek_item = EngineModule.shared_item, EngineModule.shared_list, EngineModule.peek_item
    kept = play_reads.NONE  # and keeps no reads for later tasks
    kept_item, kept_list, fresh = EngineModule.kept_item, EngineModule.kept_list, EngineModule.fresh

    def exit(self, changed=False, diff=None, **result):
        raise Exited(changed=changed, diff=diff, **result)

    def fail(self, msg, **result):
        for amend in self.failure_amends:
            msg, result = amend(msg, result)
        raise Exited(failed=True, msg=msg, **result)

    def fail_api(self, error, more=None, **result):
        self.fail(str(error) if more is None else '%s; %s' % (error, more), **result)


def outcome(call, *args):
    with pytest.raises(Exited) as info:
        call(*args)
    return info.value.result


def test_found_by_id_by_name_or_not_at_all():
    api = Api(dict(id='a', name='one', state='up'), dict(id='b', name='two', state='up'), dict(id='c', name='two', state='gone'))
    assert Lifecycle(Module(api, thing_id='a'), KIND).find()['name'] == 'one'
    assert Lifecycle(Module(api, thing_id='zz'), KIND).find() is None
    assert Lifecycle(Module(api, thing_id='c'), KIND).find() is None  # a deleted one is not there
    assert Lifecycle(Module(api, name='two'), KIND).find()['id'] == 'b'  # the deleted namesake is left aside
    assert Lifecycle(Module(api, name='three'), KIND).find() is None
    assert api.log == [('GET', '/things/a'), ('GET', '/things/zz'), ('GET', '/things/c'), ('GET', '/things'), ('GET', '/things')]


def test_two_of_one_name_fail_before_any_write_listing_them():
    api = Api(dict(id='a', name='twin', state='up'), dict(id='b', name='twin', state='up'))
    result = outcome(Lifecycle(Module(api, name='twin'), KIND).find)
    assert result['failed'] and result['msg'] == ('2 things are named "twin" (a, b): a thing found by name must be the only one of '
                                                  'that name; give thing_id to choose one. Nothing was sent')
    assert api.log == [('GET', '/things')]


def test_fixed_fields_that_differ_are_named_with_their_current_value():
    life = Lifecycle(Module(Api()), KIND)
    current = dict(id='a', name='one', region='eu', size=4)
    assert life.fixed_errors(current, [('region', 'us', 'eu'), ('size', '4', 4), ('zone', None, 'z')]) == [
        'region cannot change on thing one: it was fixed at creation as "eu" (got "us")']


def test_check_mode_create_predicts_and_sends_nothing():
    api = Api()
    result = outcome(Lifecycle(Module(api, check_mode=True, name='new'), KIND).create, {'name': 'new'}, {'name': 'new', 'password': 'x'})
    assert result == dict(changed=True, diff={'before': {}, 'after': {'name': 'new', 'password': '********'}},
                          thing={'name': 'new', 'password': 'x'})
    assert api.log == []


def test_a_create_returns_the_answer_and_waits_until_ready(clock):
    api = Api(after_create=['starting', 'starting', 'up'])
    life = Lifecycle(Module(api, name='new'), KIND)
    answer = life.create({'name': 'new'}, {})
    assert answer['secret'] == 's3cret' and answer['thing']['state'] == 'new'
    assert life.wait_ready(answer['thing'])['state'] == 'up'
    assert api.log == [('POST', '/things')] + [('GET', '/things/t1')] * 3
    assert clock.sleeps == [1, 2, 4]


@pytest.mark.parametrize('applied', [True, 2], ids=['applied before the answer was lost', 'applied later, on the third read'])
def test_a_create_whose_answer_is_lost_is_adopted_once_a_read_by_name_shows_it(clock, applied):
    api = Api(lose=[('POST', applied)])
    module = Module(api, name='new')
    answer = Lifecycle(module, KIND).create({'name': 'new'}, {})
    assert len(api.things) == 1 and answer['thing']['name'] == 'new' and 'secret' not in answer  # only the lost answer had it
    reads = 1 if applied is True else 3
    assert api.log == [('POST', '/things')] + [('GET', '/things')] * reads and clock.sleeps == [1, 2, 4][:reads]
    assert module.warnings == ['the answer to the create of thing "new" was lost; the thing found by name afterwards (id t1) was taken '
                               'as the one created, and the create was not sent again']


@pytest.mark.parametrize('retries, wait, wait_timeout, sleeps, bound', [
    (0, True, 30, [1, 2, 4, 8], '15 seconds'), (5, True, 30, [1, 2, 4, 8], '15 seconds'),
    (2, False, 1800, [1, 2, 4, 8], '15 seconds'), (2, True, 3, [1, 2], '3 seconds (wait_timeout)')])
def test_a_create_whose_answer_is_lost_is_never_sent_again_and_the_task_says_what_to_check(clock, retries, wait, wait_timeout, sleeps, bound):
    """A create that never reached the API never shows: a few reads by name over a short time (not the whole wait_timeout,
    also with wait=false), then the task fails saying that the create may or may not have happened."""
    api = Api(lose=[('POST', False)])
    result = outcome(Lifecycle(Module(api, name='new', api_retries=retries, wait=wait, wait_timeout=wait_timeout), KIND).create,
                     {'name': 'new'}, {})
    assert result['failed'] and result['msg'] == (
        'POST /things failed: no response within api_timeout (2 s); the create was not sent again: reads of the things by name for '
        '%s showed none named "new". The create may or may not have happened: it may never have reached the API, or the API '
        'may still be creating it. Check the things (GET /things) for one named "new"; the next run reads by name first and '
        'carries on with it once it is there, or creates it when none is' % bound)
    assert api.log == [('POST', '/things')] + [('GET', '/things')] * len(sleeps) and not api.things
    assert clock.sleeps == sleeps and 'changed' not in result


def test_a_failure_after_the_create_reports_the_created_thing_and_changed(clock):
    api = Api(after_create=['starting', 'broken'])
    life = Lifecycle(Module(api, name='new'), KIND)
    life.create({'name': 'new'}, {})
    result = outcome(life.module.fail, 'the next step failed')
    assert result == dict(failed=True, changed=True, thing={'name': 'new', 'id': 't1', 'state': 'new'},
                          msg='the next step failed. The thing "new" (id t1) was created by this task before this failure; the next '
                              'run finds it by name and carries on')
    life.next_run = None  # a step the next run does not redo failed: the module says what to do instead
    assert outcome(life.module.fail, 'the next step failed')['msg'] == (
        'the next step failed. The thing "new" (id t1) was created by this task before this failure')


def test_a_create_that_ends_in_a_failure_state_fails_the_task_reporting_the_create(clock):
    api = Api(after_create=['starting', 'broken'])
    life = Lifecycle(Module(api, name='new'), KIND)
    result = outcome(life.wait_ready, life.create({'name': 'new'}, {})['thing'])
    assert result['failed'] and result['msg'].startswith('thing new entered the failure state broken. The thing "new" (id t1) was created')
    assert result['changed'] is True and result['thing']['state'] == 'broken'


def test_an_existing_id_is_needed_when_the_task_gives_one():
    api = Api()
    result = outcome(Lifecycle(Module(api, thing_id='zz'), KIND).create, {'name': 'x'}, {})
    assert result['failed'] and 'thing zz does not exist' in result['msg'] and api.log == []


def test_check_mode_delete_shows_what_would_go(clock):
    api = Api(dict(id='a', name='one', state='up', token='t0ken'))
    life = Lifecycle(Module(api, check_mode=True, name='one'), KIND)
    result = outcome(life.delete, life.find())
    assert result['changed'] and result['diff'] == {'before': {'id': 'a', 'name': 'one', 'state': 'up', 'token': '********'}, 'after': {}}
    assert api.log == [('GET', '/things')]


def test_a_delete_is_prepared_sent_and_waited_for(clock):
    api = Api(dict(id='a', name='one', state='up'), after_delete=['going', 'going', None])
    life = Lifecycle(Module(api, name='one'), KIND)
    prepared = []
    result = outcome(life.delete, life.find(), lambda current: prepared.append(current['id']) or dict(current, state='stopped'))
    assert result['changed'] and result['thing']['state'] == 'going' and prepared == ['a'] and not api.things
    assert api.log == [('GET', '/things'), ('DELETE', '/things/a')] + [('GET', '/things/a')] * 3


@pytest.mark.parametrize('after_delete', [['gone'], [None]], ids=['a gone state', '404'])
def test_a_delete_whose_answer_is_lost_is_confirmed_by_a_read(clock, after_delete):
    api = Api(dict(id='a', name='one', state='up'), lose=[('DELETE', True)], after_delete=after_delete)
    life = Lifecycle(Module(api, name='one'), KIND)
    assert outcome(life.delete, life.find())['changed']
    assert [method for method, path in api.log].count('DELETE') == 1


def test_a_delete_lost_before_it_was_applied_is_sent_again(clock):
    api = Api(dict(id='a', name='one', state='up'), lose=[('DELETE', False)])
    life = Lifecycle(Module(api, name='one'), KIND)
    assert outcome(life.delete, life.find())['changed']
    assert [method for method, path in api.log] == ['GET', 'DELETE', 'GET', 'DELETE', 'GET']


def test_a_delete_in_progress_is_only_waited_for(clock):
    api = Api(dict(id='a', name='one', state='going', later=['going', 'gone']))
    life = Lifecycle(Module(api, name='one'), KIND)
    result = outcome(life.delete, life.find())
    assert result['changed'] is False and 'DELETE' not in [method for method, path in api.log]


def test_a_first_delete_answered_404_means_absent_all_along(clock):
    api = Api(dict(id='a', name='one', state='up'), lingering=3)
    api.things['a']['deleted'] = True  # deleted by an earlier run; reads still show it
    api.things['a']['later'] = ['up'] * 3 + [None]
    life = Lifecycle(Module(api, name='one'), KIND)
    assert outcome(life.delete, life.find()) == dict(changed=False, diff=None, thing={})
    assert api.log == [('GET', '/things'), ('DELETE', '/things/a')]


@pytest.mark.parametrize('wait', [True, False])
def test_after_a_lost_delete_and_lingering_reads_the_second_delete_s_404_ends_the_task_as_deleted(clock, wait):
    """With wait=true, as after any delete, until reads answer 404 (here after two more that still show it)."""
    api = Api(dict(id='a', name='one', state='up'), lose=[('DELETE', True)], lingering=3)
    life = Lifecycle(Module(api, name='one', wait=wait), KIND)
    result = outcome(life.delete, life.find())
    assert result['changed'] is True and result['thing']['id'] == 'a' and 'failed' not in result
    assert api.log == [('GET', '/things'), ('DELETE', '/things/a'), ('GET', '/things/a'), ('DELETE', '/things/a')] + (
        [('GET', '/things/a')] * 3 if wait else [])
    assert clock.sleeps[1:] == ([1, 2, 4] if wait else [])  # after the backoff before the read that checked the lost delete


@pytest.mark.parametrize('by', ['name', 'id'])
def test_absent_when_the_holder_is_gone(by):
    api = Api(holder_gone=True)
    life = Lifecycle(Module(api, **({'name': 'one'} if by == 'name' else {'thing_id': 'a'})), KIND)
    assert life.find(missing_ok=True) is None
    if by == 'name':  # for state=present, the 404 of the collection fails the task
        assert outcome(life.find)['msg'] == 'GET /things failed: HTTP 404: the holder is gone'


def test_nothing_to_delete_is_unchanged():
    assert outcome(Lifecycle(Module(Api()), KIND).absent) == dict(changed=False, diff=None, thing={})


class DataApi(Api):
    """The same things behind the observability API's shape: answers {data: ...}, a paged listing, no states."""

    def handle(self, method, path, body=None):
        answer = super(DataApi, self).handle(method, path, body)
        payload = answer.get('result')
        if method == 'POST':
            payload = payload['thing']
        return {'data': payload}


PAGED = []
DATA_KIND = Kind('board', 'board', 'board_id', lambda module: '/things', lambda module, board_id: '/things/' + board_id,
                 unwrap=envelope('data'), listing=lambda module: PAGED.append('listed') or module.request_or_fail('GET', '/things')['data'])


def test_a_kind_of_another_api_unwraps_data_lists_its_own_way_and_has_no_state_to_wait_for(clock):
    api = DataApi(dict(id='a', name='one'))
    module = Module(api, name='two')
    life = Lifecycle(module, DATA_KIND)
    assert life.find() is None and PAGED == ['listed']
    created = life.create({'name': 'two'}, {})
    assert created['name'] == 'two' and life.wait_ready(created) is created
    assert Lifecycle(Module(api, board_id='a'), DATA_KIND).find() == dict(id='a', name='one')
    assert api.log == [('GET', '/things'), ('POST', '/things'), ('GET', '/things/a')] and clock.sleeps == []
