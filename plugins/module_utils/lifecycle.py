# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The life of a resource that an API creates and deletes (a service, a pipe; next a dashboard, an alert):
found by id or by name, fields fixed at creation, a create never sent twice (after a lost answer the
resource is looked for by name, never created again in the same task), a failure after a create that
still reports it, a delete whose answer was lost confirmed by a read, an absent resource (or holder)
that is simply absent, and the waits. One implementation, used by each module with a Kind."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.engine.cloud.plugins.module_utils import client as http
from ansible_collections.engine.cloud.plugins.module_utils.base import Wait, WaitError
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import equal, mask_secrets
from ansible_collections.engine.cloud.plugins.module_utils.shared_reads import ABSENT

# What a wait for a deleted resource sees once reads answer 404; what a read by name sees before a resource is there.
GONE = {'state': None}
NOT_YET = {'state': None}
# After the lost answer of a create, the reads by name take this long at most (after 1, 2, 4 and 8 seconds), or
# wait_timeout when shorter: a create that never reached the API (a gateway's 503) never shows, however long one looks.
ADOPT_SECONDS = 15
# What a failure after a create says of the next run, unless a step of this run that the next one does not redo failed.
NEXT_RUN = 'the next run finds it by name and carries on'


def envelope(key):
    """How an API wraps its answers: the unwrap of a Kind whose answers hold the resource under key
    (the management API's 'result', the observability API's 'data'); an answer without it gives None."""
    return lambda answer: (answer or {}).get(key)


class Kind:
    """One kind of resource, as its lifecycle needs to know it. The contract, for any API:

    noun, key, id_option: the resource's name in messages, the key of the module's result, the option that
    holds its id. collection(module) and item(module, resource_id): the full paths of the list and of one
    resource. unwrap(answer): the payload of an answer (envelope('result') by default, envelope('data') for
    the observability API). listing(module): every resource of the collection as a list (by default one GET
    of collection, unwrapped; give one for a paged listing); an API error raises http.ApiError (a 404 of the
    collection, whose holder is gone, means none for an absent resource) or fails the task. ready / failures: the states that end / fail the
    wait after a create (none: the create is done when answered). deleting: states of a delete in progress
    (nothing to send, only to wait). gone: states that reads show for a deleted resource, besides 404.
    answer_key: where the create answer's payload holds the resource (a service's also holds its password).

    A DELETE answered 404 means the resource is gone (also while reads still show it); one answered 2xx, or a 404 to
    one sent again after a lost answer, ends the delete, and with wait=true reads confirm it (until they answer 404 or
    show a gone state). An API whose
    DELETE answers 2xx for a missing resource is fine: the resource was read just before."""

    def __init__(self, noun, key, id_option, collection, item, ready=(), failures=(), deleting=(), gone=(), answer_key=None,
                 unwrap=envelope('result'), listing=None):
        self.noun, self.key, self.id_option = noun, key, id_option
        self.collection, self.item = collection, item
        self.ready, self.failures = frozenset(ready), frozenset(failures)
        self.deleting, self.gone = frozenset(deleting), frozenset(gone)
        self.answer_key, self.unwrap = answer_key, unwrap
        self.listing = listing or (lambda module: unwrap(module.request('GET', collection(module))) or [])

    def resource(self, answer):
        """The resource in a create answer's payload."""
        return answer[self.answer_key] if self.answer_key else answer


class Lifecycle:
    """Find, create, wait for and delete one resource of a kind, for one module run: any EngineModule (of either
    API) with the options name, the kind's id option, wait and wait_timeout (base.wait_options). It uses only
    EngineModule's request, request_or_fail, send_once, shared_item, shared_list, peek_item (reads shared with the
    other tasks of this controller, module_utils/shared_reads.py), fail, fail_api, warn, exit, failure_amends,
    check_mode and params. One wait_timeout budget covers every wait (and the look for a create whose answer was lost)."""

    def __init__(self, module, kind):
        self.module, self.kind = module, kind
        self._wait = None
        self.created = None  # the resource this run created, as last seen: every later failure reports it
        # What a failure after the create says of the next run (None: nothing, while a step the next run does not
        # redo is pending, such as setting the password given: the module says instead what to do).
        self.next_run = NEXT_RUN

    # --- finding -------------------------------------------------------------------------------

    def find(self, missing_ok=False):
        """The resource the task names, or None: by id (404 or a gone state: None), else by name (one list request).
        missing_ok (state=absent): a 404 for the collection (the service that holds the resource is gone) is None too."""
        resource_id = self.module.params.get(self.kind.id_option)
        # What a task deletes it reads live; a task that converges may take a list read an earlier task of this
        # playbook run kept (EngineModule.kept_item): it reads again before it writes (EngineModule.fresh).
        kept = self.module.params.get('state') != 'absent'
        if resource_id is not None:
            resource = self.read(resource_id, kept=kept)
            return None if resource is None or resource.get('state') in self.kind.gone else resource
        return self.one_named(self.module.params['name'], missing_ok, kept=kept)

    def read(self, resource_id, max_age=0, missing_ok=True, kept=False):
        """The resource as the API shows it now (a poll: at most max_age seconds ago), or None once it answers 404
        (without missing_ok, a 404 fails the task); a read shared with the other tasks of this controller that
        read the list now (EngineModule.shared_item; an API without sharing reads alone). kept: a read before
        acting that a list read kept by an earlier task of this run may serve (EngineModule.kept_item)."""
        def single():
            answer = self.module.request_or_fail('GET', self.kind.item(self.module, resource_id), missing_ok=missing_ok)
            return None if answer is None else self.kind.unwrap(answer)

        def live():
            found = self.module.shared_item(self.kind.collection(self.module), resource_id, single, max_age)
            if found is ABSENT:
                return None if missing_ok else single()  # its own GET says what is missing
            return found
        if not kept:
            return live()

        def listing():
            try:
                return self._listing()
            except http.ApiError:
                return None  # the task's own read says what failed
        return self.module.kept_item(self.kind.collection(self.module), resource_id, live, listing)

    def _listing(self):
        """Every resource of the collection, in a list read shared as read's are."""
        return self.module.shared_list(self.kind.collection(self.module), lambda: self.kind.listing(self.module))

    def one_named(self, name, missing_ok=False, kept=False):
        """The one resource of that name (deleted ones aside), or None; two or more fail before any write.
        missing_ok: a 404 for the collection gives None. The list read is shared as read's are; kept: a list read kept
        by an earlier task of this run serves when it holds the name (EngineModule.kept_list)."""
        try:
            if kept:
                listed = self.module.kept_list(self.kind.collection(self.module), self._listing,
                                               lambda items: any(item.get('name') == name for item in items))
            else:
                listed = self._listing()
        except http.ApiError as error:
            if missing_ok and error.status == 404:
                return None
            self.module.fail_api(error)
        named = [item for item in listed if item.get('name') == name and item.get('state') not in self.kind.gone]
        if len(named) > 1:
            ids = ', '.join(sorted(item.get('id') for item in named))
            self.module.fail('%d %ss are named %s (%s): a %s found by name must be the only one of that name; give %s '
                             'to choose one. Nothing was sent' % (len(named), self.kind.noun, json.dumps(name), ids,
                                                                  self.kind.noun, self.kind.id_option))
        return named[0] if named else None

    def fixed_errors(self, current, fields):
        """A message for each (option, wanted, current value) whose wanted value (None: not asked for) differs:
        those fields are fixed when the resource is created."""
        name = current.get('name') or current.get('id')
        return ['%s cannot change on %s %s: it was fixed at creation as %s (got %s)'
                % (option, self.kind.noun, name, json.dumps(value, sort_keys=True), json.dumps(wanted, sort_keys=True))
                for option, wanted, value in fields if wanted is not None and not equal(value, wanted, field=option)]

    # --- creating ------------------------------------------------------------------------------

    def create(self, body, predicted):
        """POST body to the collection once and return the answer's payload. Check mode: exit with predicted.

        The create is never sent twice. The client sends it again only when it provably did not reach the
        API (the connection was refused or never opened) or the API refused it with a 429. An answer lost
        after the request was sent (a timeout, a reset, a 502, 503 or 504) may come from a create that goes
        on: the collection is read by name a few times until the resource shows (adopt); it is then
        taken as the one created (the payload is rebuilt around it, without anything only the answer held,
        such as a generated password). Once created, every later failure of the run reports it (changed)."""
        module, kind = self.module, self.kind
        if module.params.get(kind.id_option) is not None:
            module.fail('%s %s does not exist, and a %s is created from its name alone (without %s). Nothing was sent'
                        % (kind.noun, module.params[kind.id_option], kind.noun, kind.id_option))
        if module.check_mode:
            module.exit(changed=True, diff=dict(before={}, after=mask_secrets(predicted)), **{kind.key: predicted})
        try:
            answer = kind.unwrap(module.request('POST', kind.collection(module), body=body, once=True))
        except http.ApiError as error:
            if not error.answer_lost:
                module.fail_api(error)
            found = self.adopt(body['name'], error)
            answer = {kind.answer_key: found} if kind.answer_key else found
        self._report_created(kind.resource(answer))
        return answer

    def adopt(self, name, lost):
        """After the lost answer of a create: the resource of that name, once a read by name shows it (reads after 1, 2, 4
        and 8 seconds: ADOPT_SECONDS, or what is left of wait_timeout when shorter, also with wait=false); the create is not
        sent again. None shows: the task fails, saying that the create may or may not have happened and what to check."""
        kind = self.kind

        def read():
            found = self.one_named(name)
            return NOT_YET if found is None else found
        left = self._budget(name).remaining()
        search = Wait(min(ADOPT_SECONDS, left), '%s %s' % (kind.noun, name))
        try:
            found = search.until(read, lambda seen: seen is not NOT_YET, lambda seen: False, 'a read by name')
        except WaitError:
            lost.hint = None  # the client's generic sentence on a lost answer; LOST_CREATE says what was done instead
            self.module.fail_api(lost, LOST_CREATE % dict(
                noun=kind.noun, name=json.dumps(name), collection=kind.collection(self.module), seconds=int(round(search.timeout)),
                bound=' (wait_timeout)' if left <= ADOPT_SECONDS else ''))
        self.module.warn('the answer to the create of %s %s was lost; the %s found by name afterwards (id %s) was taken as the one '
                         'created, and the create was not sent again' % (kind.noun, json.dumps(name), kind.noun, found.get('id')))
        return found

    def _report_created(self, resource):
        """From now on, a failure of this run reports the created resource (as last seen) and changed=true."""
        self.created = resource
        kind = self.kind

        def amend(msg, result):
            shown = result.get(kind.key) or self.created
            result = dict(result, changed=True, **{kind.key: mask_secrets(shown)})
            return ('%s. The %s %s (id %s) was created by this task before this failure%s'
                    % (msg.rstrip('.'), kind.noun, json.dumps(shown.get('name')), shown.get('id'),
                       '; ' + self.next_run if self.next_run else ''), result)
        self.module.failure_amends.append(amend)

    def wait_ready(self, resource):
        """With wait=true, the resource once a read shows it in a ready state (the create answer is never taken
        for a poll); a failure state or wait_timeout fails the task. With wait=false (or a kind without ready
        states), resource as given."""
        if not (self.module.params['wait'] and self.kind.ready):
            return resource
        collection, answered = self.kind.collection(self.module), CLOCK.time()
        ready = self._until(lambda: self.read(resource['id'], max_age=self._wait.poll_age, missing_ok=False), resource,
                            lambda seen: seen.get('state') in self.kind.ready, lambda seen: seen.get('state') in self.kind.failures,
                            ' or '.join(sorted(self.kind.ready)), first=None, peek=lambda: self._peek(resource['id']),
                            expect=None if self.created is None else lambda: self.module.shared.settle_hint(collection, 'create'))
        if self.created is not None:
            self.created = ready
            self.module.shared.settled(collection, 'create', CLOCK.time() - answered)
        return ready

    # --- deleting ------------------------------------------------------------------------------

    def absent(self):
        """Nothing to delete: exit unchanged."""
        self.module.exit(changed=False, **{self.kind.key: {}})

    def delete(self, current, prepare=None, before=None, **result):
        """Delete current and exit (with result's other keys, if any; the diff's before is before, current if not
        given). A delete in progress is only waited for.
        prepare(current), when given, does what must come before the DELETE (sending what it must, without exiting)
        and returns the resource as last read. A DELETE answered 404 means the resource is gone, also while reads
        still show it: the first one, absent all along (unchanged); one sent again after a lost answer, deleted by
        this task (changed), and waited for as any delete (until reads answer 404). A lost answer is followed by a
        read: a resource that is gone, or going, is not deleted again; one that is still shown is (at most api_retries
        times): a second DELETE is harmless."""
        module, kind = self.module, self.kind
        if current.get('state') in kind.deleting:
            module.exit(changed=False, **dict(result, **{kind.key: self._wait_gone(current)}))
        diff = dict(before=mask_secrets(current if before is None else before), after={})
        if module.check_mode:
            module.exit(changed=True, diff=diff, **dict(result, **{kind.key: current}))
        if prepare is not None:
            current = prepare(current)
        path = kind.item(module, current['id'])
        sent = []

        def send():
            sent.append(path)
            try:
                return module.request('DELETE', path, once=True)
            except http.ApiError as error:
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
        """With wait=true, poll until reads answer 404 or show a gone state; the resource as last seen before."""
        if not self.module.params['wait']:
            return resource
        last = [resource]

        def read():
            seen = self.read(resource['id'], max_age=self._wait.poll_age)
            if seen is None:
                return GONE
            last.append(seen)
            return seen
        goal = 'gone (HTTP 404%s)' % ''.join(' or %s' % state for state in sorted(self.kind.gone))

        def peek():
            seen = self._peek(resource['id'], gone=GONE)
            if seen and seen is not GONE:
                last.append(seen)
            return seen
        self._until(read, resource, lambda seen: seen is GONE or seen.get('state') in self.kind.gone, lambda seen: False, goal,
                    first=resource if resource.get('state') in self.kind.deleting else None, peek=peek)
        return last[-1]

    def _peek(self, resource_id, gone=None):
        """The resource from another task's shared read (EngineModule.peek_item), for a wait."""
        return self.module.peek_item(self.kind.collection(self.module), resource_id, gone)

    def _budget(self, name):
        """The one Wait of this run (wait_timeout), started by its first wait."""
        if self._wait is None:
            self._wait = Wait(self.module.params['wait_timeout'], '%s %s' % (self.kind.noun, name))
        return self._wait

    def _until(self, read, resource, done, failed, goal, first, peek=None, expect=None):
        try:
            wait = self._budget(resource.get('name') or resource.get('id'))
            return wait.until(read, done, failed, goal, current=first, peek=peek, expect=expect)
        except WaitError as error:
            self.module.fail(str(error), **{self.kind.key: error.resource})


# The end of a lost create's message (after the lost answer's own): what was done, what was not, what to check.
LOST_CREATE = ('the create was not sent again: reads of the %(noun)ss by name for %(seconds)s seconds%(bound)s showed none named '
               '%(name)s. The create may or may not have happened: it may never have reached the API, or the API may still be '
               'creating it. Check the %(noun)ss (GET %(collection)s) for one named %(name)s; the next run reads by name first '
               'and carries on with it once it is there, or creates it when none is')
