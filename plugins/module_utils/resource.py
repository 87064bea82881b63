# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The life of a resource an API creates and deletes (service, pipe, dashboard, alert), one implementation for all:
found by id or by a unique name, fields fixed at creation, a create never sent twice, a delete confirmed by reads."""

import itertools
import json

from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import equal, mask_secrets
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError

GONE = {'state': None}  # what a wait for a deleted resource sees once reads answer 404
NOT_YET = {'state': None}  # what a read by name sees before a created resource shows
# After a create's lost answer, reads by name for this long at most (after 1, 2, 4, 8 s), or wait_timeout when shorter.
ADOPT_SECONDS = 15
NEXT_RUN = 'the next run finds it by name and carries on'
PEEK_SECONDS = 0.5  # how often a wait looks for another task's shared read
FLEET_POLL_SECONDS = 5.0  # the longest interval between polls while other tasks share them
LOST_CREATE = ('the create was not sent again: reads of the %(noun)ss by name for %(seconds)s seconds%(bound)s showed none named '
               '%(name)s. The create may or may not have happened: it may never have reached the API, or the API may still be '
               'creating it. Check the %(noun)ss (GET %(collection)s) for one named %(name)s; the next run reads by name first '
               'and carries on with it once it is there, or creates it when none is')


def one_named(items, name, noun, id_option, gone=()):
    """(the one item of items named name, None) or (None, why not: none or several); items in a state of gone (a deleted
    service that the list still shows) do not count. For the name option of service_info and pipe_info."""
    named = [item for item in items if item.get('name') == name and item.get('state') not in gone]
    if len(named) == 1:
        return named[0], None
    if named:
        return None, '%d %ss are named %s (%s): give %s to choose one' % (
            len(named), noun, json.dumps(name), ', '.join(sorted(item.get('id') for item in named)), id_option)
    names = sorted(item.get('name') for item in items if item.get('state') not in gone)
    return None, 'no %s is named %s; the %ss are: %s' % (noun, json.dumps(name), noun, ', '.join(json.dumps(other) for other in names) or 'none')


class Kind:
    """One kind of resource as its lifecycle knows it: noun (for messages), key (of the module's result), id_option;
    collection(module) and item(module, id), its paths; listing(module) (every resource of the
    collection); ready/failures: the states that end/fail the wait after a create; deleting: a delete in progress;
    gone: what reads show of a deleted resource besides 404; answer_key: where a create answer holds the resource."""

    def __init__(self, noun, key, id_option, collection, item, ready=(), failures=(), deleting=(), gone=(), answer_key=None,
                 listing=None):
        self.noun, self.key, self.id_option, self.collection, self.item = noun, key, id_option, collection, item
        self.ready, self.failures, self.deleting, self.gone = frozenset(ready), frozenset(failures), frozenset(deleting), frozenset(gone)
        self.answer_key = answer_key
        self.listing = listing or (lambda module: module.unwrap(module.request('GET', collection(module))) or [])


class Lifecycle:
    """Find, create, wait for and delete one resource of a kind, for one module run (any EngineModule with the options
    name, the kind's id option, wait and wait_timeout). One wait_timeout budget covers every wait of the run."""

    def __init__(self, module, kind):
        self.module, self.kind = module, kind
        self._wait = None
        self.created = None  # the resource this run created, as last seen: every later failure reports it
        self.next_run = NEXT_RUN  # what a failure after the create says of the next run (None while a step it will not redo is pending)

    def find(self, missing_ok=False):
        """The resource the task names (by id, else by name), or None; missing_ok: a 404 of the collection is None too."""
        resource_id = self.module.params.get(self.kind.id_option)
        if resource_id is not None:
            resource = self.read(resource_id)
            return None if resource is None or resource.get('state') in self.kind.gone else resource
        return self.one_named(self.module.params['name'], missing_ok)

    def read(self, resource_id, max_age=0, missing_ok=True):
        """The resource as the API shows it now (a poll: at most max_age seconds ago, maybe from a shared read), or None
        once it answers 404 (without missing_ok, a 404 fails the task)."""
        return self.module.read_item(self.kind.collection(self.module), resource_id, max_age, self.kind.item(self.module, resource_id), missing_ok)

    def one_named(self, name, missing_ok=False):
        """The one resource of that name (deleted ones aside), or None; two or more fail before any write."""
        try:
            collection = self.kind.collection(self.module)
            listed = self.module.shared.listing(collection, lambda on_send: self.module.send_list(collection, on_send))
            listed = self.kind.listing(self.module) if listed is None else listed
        except ApiError as error:
            if missing_ok and error.status == 404:
                return None
            self.module.fail_api(error)
        named = [item for item in listed if item.get('name') == name and item.get('state') not in self.kind.gone]
        if len(named) > 1:
            self.module.fail('%d %ss are named %s (%s): a %s found by name must be the only one of that name; give %s to choose '
                             'one. Nothing was sent' % (len(named), self.kind.noun, json.dumps(name), ', '.join(sorted(item.get('id') for item in named)),
                                                        self.kind.noun, self.kind.id_option))
        return named[0] if named else None

    def fixed_errors(self, current, fields):
        name = current.get('name') or current.get('id')
        return ['%s cannot change on %s %s: it was fixed at creation as %s (got %s)'
                % (option, self.kind.noun, name, json.dumps(value, sort_keys=True), json.dumps(wanted, sort_keys=True))
                for option, wanted, value in fields if wanted is not None and not equal(value, wanted, field=option)]

    def create(self, body, predicted):
        """POST body once and return the answer's payload. A lost answer is never followed by a second POST: the
        collection is read by name until the resource shows (adopt). From then on every failure reports the resource."""
        module, kind = self.module, self.kind
        if module.params.get(kind.id_option) is not None:
            module.fail('%s %s does not exist, and a %s is created from its name alone (without %s). Nothing was sent'
                        % (kind.noun, module.params[kind.id_option], kind.noun, kind.id_option))
        if module.check_mode:
            module.planned(dict(method='POST', path=kind.collection(module), body=body))
            module.exit(changed=True, diff=dict(before={}, after=mask_secrets(predicted)), **{kind.key: predicted})
        try:
            answer = module.unwrap(module.request('POST', kind.collection(module), body=body, once=True))
        except ApiError as error:
            if not error.answer_lost:
                module.fail_api(error)
            found = self.adopt(body['name'], error)
            answer = {kind.answer_key: found} if kind.answer_key else found
        self.created = answer[kind.answer_key] if kind.answer_key else answer

        def amend(msg, result):
            shown = result.get(kind.key) or self.created
            result = dict(result, changed=True, **{kind.key: mask_secrets(shown)})
            return ('%s. The %s %s (id %s) was created by this task before this failure%s'
                    % (msg.rstrip('.'), kind.noun, json.dumps(shown.get('name')), shown.get('id'), '; ' + self.next_run if self.next_run else ''), result)
        module.failure_amends.append(amend)
        return answer

    def adopt(self, name, lost):
        kind = self.kind
        left = self._budget(name).remaining()
        search = Wait(min(ADOPT_SECONDS, left), '%s %s' % (kind.noun, name))
        try:
            found = search.until(lambda: self.one_named(name) or NOT_YET, lambda seen: seen is not NOT_YET, lambda seen: False, 'a read by name')
        except WaitError:
            lost.hint = None  # LOST_CREATE says what was done instead
            self.module.fail_api(lost, LOST_CREATE % dict(noun=kind.noun, name=json.dumps(name), collection=kind.collection(self.module),
                                                          seconds=int(round(search.timeout)), bound=' (wait_timeout)' if left <= ADOPT_SECONDS else ''))
        self.module.warn('the answer to the create of %s %s was lost; the %s found by name afterwards (id %s) was taken as the one '
                         'created, and the create was not sent again' % (kind.noun, json.dumps(name), kind.noun, found.get('id')))
        return found

    def wait_ready(self, resource):
        """With wait=true, the resource once a read (never the create's answer) shows it ready."""
        if not (self.module.params['wait'] and self.kind.ready):
            return resource
        collection, created = self.kind.collection(self.module), self.created is not None
        ready = self._until(lambda: self.read(resource['id'], max_age=self._wait.poll_age, missing_ok=False), resource,
                            lambda seen: seen.get('state') in self.kind.ready, lambda seen: seen.get('state') in self.kind.failures,
                            ' or '.join(sorted(self.kind.ready)), first=None, peek=lambda: self.module.peek_item(collection, resource['id']),
                            settle=(self.module.shared, collection, 'create') if created else None)
        if created:
            self.created = ready
        return ready

    def absent(self):
        self.module.exit(changed=False, **{self.kind.key: {}})

    def delete(self, current, prepare=None, before=None, **result):
        """Delete current and exit; a delete in progress is only waited for. prepare(current) does what must come first
        (a stop) and returns the resource as last read. A DELETE answered 404: gone; after a lost answer, a resource that
        reads show gone or going is not deleted again, one still shown is (a second DELETE is harmless)."""
        module, kind = self.module, self.kind
        if current.get('state') in kind.deleting:
            module.exit(changed=False, **dict(result, **{kind.key: self._wait_gone(current)}))
        diff = dict(before=mask_secrets(current if before is None else before), after={})
        if module.check_mode:
            module.exit(changed=True, diff=diff, **dict(result, **{kind.key: current}))
        if prepare is not None:
            current = prepare(current)
        path, sent = kind.item(module, current['id']), []

        def send():
            sent.append(path)
            try:
                return module.request('DELETE', path, once=True)
            except ApiError as error:
                if error.status != 404:
                    raise
                return GONE

        def recheck():
            seen = self.read(current['id'])
            if seen is None or seen.get('state') in kind.gone | kind.deleting:
                return True, None
            return False, 'a read afterwards shows the %s in state %s, so the delete may not have taken effect' % (kind.noun, seen.get('state'))
        if module.send_once(send, recheck) is GONE and len(sent) == 1:
            self.absent()
        module.exit(changed=True, diff=diff, **dict(result, **{kind.key: self._wait_gone(current)}))

    def _wait_gone(self, resource):
        if not self.module.params['wait']:
            return resource
        last = [resource]

        def kept(seen, missing=None):
            """seen (a read's or a peek's) as the wait takes it; a resource still shown is what the task reports."""
            if isinstance(seen, dict) and seen is not GONE:
                last.append(seen)
            return missing if seen is None else seen
        goal = 'gone (HTTP 404%s)' % ''.join(' or %s' % state for state in sorted(self.kind.gone))
        self._until(lambda: kept(self.read(resource['id'], max_age=self._wait.poll_age), GONE), resource,
                    lambda seen: seen is GONE or seen.get('state') in self.kind.gone, lambda seen: False, goal,
                    first=resource if resource.get('state') in self.kind.deleting else None,
                    peek=lambda: kept(self.module.peek_item(self.kind.collection(self.module), resource['id'], gone=GONE)))
        return last[-1]

    def _budget(self, name):
        if self._wait is None:
            self._wait = Wait(self.module.params['wait_timeout'], '%s %s' % (self.kind.noun, name))
        return self._wait

    def _until(self, read, resource, done, failed, goal, first, peek=None, settle=None):
        try:
            return self._budget(resource.get('name') or resource.get('id')).until(read, done, failed, goal, current=first, peek=peek, settle=settle)
        except WaitError as error:
            self.module.fail(str(error), **{self.kind.key: error.resource})


class WaitError(Exception):
    def __init__(self, message, resource):
        super(WaitError, self).__init__(message)
        self.resource = resource


class Wait:
    """One time budget (wait_timeout) for everything a task waits for."""

    def __init__(self, timeout, what):
        self.timeout, self.what = timeout, what
        self.deadline = CLOCK.monotonic() + timeout
        self.poll_age = 0  # while read() polls: seconds since the look before ended (the age a shared read may have)

    def remaining(self):
        return self.deadline - CLOCK.monotonic()

    def until(self, read, done, failed, goal, current=None, before=None, command=None, peek=None, settle=None):
        """Poll read() until done(resource); WaitError when failed(resource) or at the deadline. current: the resource
        as just read, the first poll; without it (after a command) the first read comes one interval later: a command's
        answer is never a poll. before: the state before the command, not a failure until a read shows another. peek():
        between polls, the resource from another task's shared read (None: nothing new, False: nothing will come).
        settle: (shared reads, collection, command) after a command's answer: no poll comes sooner than other tasks saw the
        same command settle, and how long it took here is kept for them."""
        moved, resource = before is None, current
        looked = None if current is None else CLOCK.monotonic()
        commanded = CLOCK.monotonic() if settle is not None else None
        for interval in itertools.chain((1.0, 2.0, 4.0, 8.0), itertools.repeat(10.0)):
            if resource is not None:
                state = resource.get('state')
                moved = moved or state != before
                if done(resource):
                    if settle is not None:
                        settle[0].settled(settle[1], settle[2], CLOCK.monotonic() - commanded)
                    return resource
                if moved and failed(resource):
                    raise WaitError('%s entered the failure state %s' % (self.what, state), resource)
                if self.remaining() <= 0:
                    text = '%s did not reach %s within %s seconds; last state: %s' % (self.what, goal, self.timeout, state)
                    if command is not None and state == before:
                        text += ', as before the %s command, which may not have taken effect' % command
                    raise WaitError(text, resource)
            if commanded is not None:
                interval = max(interval, commanded + (settle[0].settle_hint(settle[1], settle[2]) or 0) - CLOCK.monotonic())
            resource = self._nap(max(0, min(interval, self.remaining())), peek)
            if resource is None:
                self.poll_age = self.timeout if looked is None else CLOCK.monotonic() - looked
                try:
                    resource = read()
                finally:
                    self.poll_age = 0
            looked = CLOCK.monotonic()

    @staticmethod
    def _nap(seconds, peek):
        """Sleep seconds (at most FLEET_POLL_SECONDS while others share the reads) or take what peek() gives first."""
        seen = False if peek is None else peek()
        slept, seconds = 0, seconds if seen is False else min(seconds, FLEET_POLL_SECONDS)
        while seen is None and seconds - slept > PEEK_SECONDS:
            CLOCK.sleep(PEEK_SECONDS)
            slept += PEEK_SECONDS
            seen = peek()
        if seen is None or seen is False:
            CLOCK.sleep(seconds - slept)
            return None
        return seen
