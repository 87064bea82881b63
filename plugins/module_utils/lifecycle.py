# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The life of a resource that the management API creates and deletes (a service, a pipe): found by
id or by name, fields fixed at creation, a create or a delete whose answer was lost never sent again
before a read has shown what became of it, and the waits after both. One implementation, used by
the service and pipe modules with a Kind each."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.engine.cloud.plugins.module_utils.base import Wait, WaitError
from ansible_collections.engine.cloud.plugins.module_utils.compare import equal, mask_secrets

# What a wait for a deleted resource sees once reads answer 404.
GONE = {'state': None}


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
    of collection, unwrapped; give one for a paged listing). ready / failures: the states that end / fail the
    wait after a create (none: the create is done when answered). deleting: states of a delete in progress
    (nothing to send, only to wait). gone: states that reads show for a deleted resource, besides 404.
    answer_key: where the create answer's payload holds the resource (a service's also holds its password).

    A DELETE of a resource that is not there may answer 404 or 2xx depending on the API; either ends the
    delete, and with wait=true reads confirm it (until they answer 404 or show a gone state)."""

    def __init__(self, noun, key, id_option, collection, item, ready=(), failures=(), deleting=(), gone=(), answer_key=None,
                 unwrap=envelope('result'), listing=None):
        self.noun, self.key, self.id_option = noun, key, id_option
        self.collection, self.item = collection, item
        self.ready, self.failures = frozenset(ready), frozenset(failures)
        self.deleting, self.gone = frozenset(deleting), frozenset(gone)
        self.answer_key, self.unwrap = answer_key, unwrap
        self.listing = listing or (lambda module: unwrap(module.request_or_fail('GET', collection(module))) or [])

    def resource(self, answer):
        """The resource in a create answer's payload."""
        return answer[self.answer_key] if self.answer_key else answer


class Lifecycle:
    """Find, create, wait for and delete one resource of a kind, for one module run: any EngineModule (of either
    API) with the options name, the kind's id option, wait and wait_timeout (base.wait_options). It uses only
    EngineModule's request, request_or_fail, send_once, fail, exit, check_mode and params. One wait_timeout
    budget covers every wait."""

    def __init__(self, module, kind):
        self.module, self.kind = module, kind
        self._wait = None

    # --- finding -------------------------------------------------------------------------------

    def find(self):
        """The resource the task names, or None: by id (404 or a gone state: None), else by name (one list request)."""
        resource_id = self.module.params.get(self.kind.id_option)
        if resource_id is not None:
            resource = self.read(resource_id)
            return None if resource is None or resource.get('state') in self.kind.gone else resource
        return self.one_named(self.module.params['name'])

    def read(self, resource_id):
        """The resource as the API shows it now, or None once it answers 404."""
        answer = self.module.request_or_fail('GET', self.kind.item(self.module, resource_id), missing_ok=True)
        return None if answer is None else self.kind.unwrap(answer)

    def one_named(self, name):
        """The one resource of that name (deleted ones aside), or None; two or more fail before any write."""
        listed = self.kind.listing(self.module)
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
                for option, wanted, value in fields if wanted is not None and not equal(value, wanted)]

    # --- creating ------------------------------------------------------------------------------

    def create(self, body, predicted):
        """POST body to the collection and return the answer's result. Check mode: exit with predicted.

        A create whose answer was lost may have made the resource: the list is read again, by name, and a
        resource of that name is taken as the one created (the answer is then rebuilt around it, without
        anything only the answer held, such as a generated password); without one, the create is sent
        again, at most api_retries times."""
        module, kind = self.module, self.kind
        if module.params.get(kind.id_option) is not None:
            module.fail('%s %s does not exist, and a %s is created from its name alone (without %s). Nothing was sent'
                        % (kind.noun, module.params[kind.id_option], kind.noun, kind.id_option))
        if module.check_mode:
            module.exit(changed=True, diff=dict(before={}, after=mask_secrets(predicted)), **{kind.key: predicted})

        def recheck():
            created = self.one_named(body['name'])
            if created is not None:
                return True, {kind.answer_key: created} if kind.answer_key else created
            return False, 'a read of the %ss afterwards shows none named %s' % (kind.noun, json.dumps(body['name']))
        return module.send_once(lambda: kind.unwrap(module.request('POST', kind.collection(module), body=body, once=True)), recheck)

    def wait_ready(self, resource):
        """With wait=true, the resource once a read shows it in a ready state (the create answer is never taken
        for a poll); a failure state or wait_timeout fails the task. With wait=false (or a kind without ready
        states), resource as given."""
        if not (self.module.params['wait'] and self.kind.ready):
            return resource
        path = self.kind.item(self.module, resource['id'])
        return self._until(lambda: self.kind.unwrap(self.module.request_or_fail('GET', path)), resource,
                           lambda seen: seen.get('state') in self.kind.ready, lambda seen: seen.get('state') in self.kind.failures,
                           ' or '.join(sorted(self.kind.ready)), first=None)

    # --- deleting ------------------------------------------------------------------------------

    def absent(self):
        """Nothing to delete: exit unchanged."""
        self.module.exit(changed=False, **{self.kind.key: {}})

    def delete(self, current, prepare=None, **result):
        """Delete current and exit (with result's other keys, if any). A delete in progress is only waited for.
        prepare(current), when given, does what must come before the DELETE (sending what it must, without exiting)
        and returns the resource as last read. A lost answer is followed by a read: a resource that is gone, or going,
        is not deleted again; one that is still there is, at most api_retries times (a 404 to a DELETE sent again
        means it was gone)."""
        module, kind = self.module, self.kind
        if current.get('state') in kind.deleting:
            module.exit(changed=False, **dict(result, **{kind.key: self._wait_gone(current)}))
        diff = dict(before=mask_secrets(current), after={})
        if module.check_mode:
            module.exit(changed=True, diff=diff, **dict(result, **{kind.key: current}))
        if prepare is not None:
            current = prepare(current)

        def recheck():
            seen = self.read(current['id'])
            if seen is None or seen.get('state') in kind.gone | kind.deleting:
                return True, None
            return False, 'a read afterwards shows the %s in state %s, so the delete did not take effect' % (kind.noun, seen.get('state'))
        path = kind.item(module, current['id'])
        module.send_once(lambda: module.request('DELETE', path, once=True), recheck, missing_done=True)
        module.exit(changed=True, diff=diff, **dict(result, **{kind.key: self._wait_gone(current)}))

    def _wait_gone(self, resource):
        """With wait=true, poll until reads answer 404 or show a gone state; the resource as last seen before."""
        if not self.module.params['wait']:
            return resource
        last = [resource]

        def read():
            seen = self.read(resource['id'])
            if seen is None:
                return GONE
            last.append(seen)
            return seen
        goal = 'gone (HTTP 404%s)' % ''.join(' or %s' % state for state in sorted(self.kind.gone))
        self._until(read, resource, lambda seen: seen is GONE or seen.get('state') in self.kind.gone, lambda seen: False, goal,
                    first=resource if resource.get('state') in self.kind.deleting else None)
        return last[-1]

    def _until(self, read, resource, done, failed, goal, first):
        if self._wait is None:
            self._wait = Wait(self.module.params['wait_timeout'], '%s %s' % (self.kind.noun, resource.get('name') or resource.get('id')))
        try:
            return self._wait.until(read, done, failed, goal, current=first)
        except WaitError as error:
            self.module.fail(str(error), **{self.kind.key: error.resource})
