# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How a state module (service_state, pipe_state, and the steps of service and pipe that stop or start) brings a
resource to a goal: a state table says what to do in each state, and Bring sends the command, judges a lost answer and
waits."""

import itertools

from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.resource import Wait, WaitError

WAIT = 'wait'  # a transition away from the goal: wait until it ends, then decide again
FAIL = 'fail'  # no command brings the resource to the goal from here: fail before any write
REFUSED_COMMAND_ROUNDS = 3  # a command refused in the current state (409, 400 "already") is decided again this often


class StateTable:
    """For one kind of resource: actions: goal -> state -> None (nothing to do), a command, WAIT or FAIL (a state not
    listed: FAIL); settled/failures: goal -> the states that end/fail a wait; targets: goal -> the state check mode
    shows; transitions: transition state -> where it ends; once: commands never sent twice in one task, even after a
    lost answer (a second resync would start a second resync)."""

    def __init__(self, noun, actions, settled, failures, targets, transitions, once=()):
        self.noun, self.actions, self.settled, self.failures = noun, actions, settled, failures
        self.targets, self.transitions, self.once = targets, transitions, frozenset(once)

    def action(self, goal, resource, predict=False):
        """What to do in the resource's state; predict (check mode) takes a transition as over."""
        state = resource.get('state')
        action = self.actions[goal].get(state, FAIL)
        if action == WAIT and predict:
            return self.actions[goal].get(self.transitions[state], FAIL)
        return action

    def goal_text(self, goal, resource):
        return ' or '.join(sorted(self.settled[goal]))

    def done(self, goal, before, wait=True):
        settled = self.settled[goal]
        return lambda resource: resource.get('state') in settled

    def refusal(self, goal, resource, name):
        return '%s %s is in state %s, which is not one of the states the API documents for a %s; nothing was sent' % (
            self.noun, name, resource.get('state'), self.noun)

    def target(self, goal, resource):
        return self.targets[goal]


def state_diff(table, goal, first):
    return dict(before=dict(state=first.get('state')), after=dict(state=table.target(goal, first)))


class Bring:
    """One task's way to goal for the resource at parts (the service itself without parts) of a CloudModule, a command
    being PATCH <resource>/state. After a lost answer the resource is read and the table decides again: a command of
    table.once is never sent again (its effect is looked for in the wait), another at most api_retries times."""

    def __init__(self, module, table, goal, key, parts, wait_timeout=None):
        self.module, self.table, self.goal, self.key, self.parts = module, table, goal, key, parts
        self.name = parts[-1] if parts else module.params['service_id']
        self.collection, self.item_id = module.listed_in(parts)
        self.wait = Wait(wait_timeout or module.params.get('wait_timeout'), '%s %s' % (table.noun, self.name))
        self.command = self.before = self.lost = None  # the command sent, the resource it was sent from, its lost answer
        self.resends = self.refusals = 0

    def read(self):
        return self.module.read_item(self.collection, self.item_id, self.wait.poll_age)

    def peek(self):
        return self.module.peek_item(self.collection, self.item_id)

    def run(self, current=None, wanted=None):
        """(resource, changed, diff): current (else a first read) brought to the goal, and with wanted, waited for until
        a poll (never the command's answer) shows it settled. Check mode: the prediction, nothing sent."""
        module, table, goal = self.module, self.table, self.goal
        first = resource = current or self.read()
        for rounds in itertools.count():
            action = table.action(goal, resource, predict=module.check_mode)
            if action == FAIL:
                module.fail(table.refusal(goal, resource, self.name), **{self.key: resource})
            if action == WAIT:
                resource = self._wait_out(resource)
                continue
            if action is None or (self.lost and action in table.once):
                break
            if module.check_mode:
                if self.parts[:1] == ('pipes',):
                    module.foresee_pipe_write('%s command' % action)
                return dict(resource, state=table.target(goal, first)), True, state_diff(table, goal, first)
            if self.lost:
                if self.resends >= module.params['api_retries']:
                    module.fail_api(self.lost, 'a read afterwards shows the %s in state %s, so the %s command did not take effect, '
                                               'and api_retries (%d) allows no further attempt'
                                    % (table.noun, resource.get('state'), action, module.params['api_retries']))
                self.resends += 1
            self.before = resource
            try:
                resource = module.write('PATCH', dict(command=action), *(self.parts + ('state',)))
                self.command, self.lost = action, None
                break
            except ApiError as error:
                if error.answer_lost:
                    self.command, self.lost = action, error
                elif not self._may_retry_refusal(error):
                    module.fail_api(error)
            CLOCK.sleep(module.client.backoff(rounds))
            resource = self.read()
        return self._settle(first, resource, wanted)

    def _may_retry_refusal(self, error):
        """A command refused in the current state is decided again from a fresh read, a few times within wait_timeout."""
        refused = error.status == 409 or (error.status == 400 and 'already' in (error.message or '').lower())
        if refused and self.refusals < REFUSED_COMMAND_ROUNDS and self.wait.remaining() > 0:
            self.refusals += 1
            return True
        return False

    def _wait_out(self, resource):
        try:
            return self.wait.until(self.read, lambda seen: seen.get('state') not in self.table.transitions, lambda seen: False,
                                   'the end of its transition', current=resource, peek=self.peek)
        except WaitError as error:
            self.module.fail(str(error), **{self.key: error.resource})

    def _settle(self, first, resource, wanted):
        """(resource, changed, diff), waited for (wanted, or a lost command of table.once: its effect has to be seen
        before the task can say it happened)."""
        module, table, goal, command = self.module, self.table, self.goal, self.command
        changed = command is not None
        answered = changed and self.lost is None
        diff = state_diff(table, goal, first) if changed else None
        lost_once = self.lost is not None and command in table.once
        if module.check_mode or not (wanted or lost_once):
            return resource, changed, diff
        before = self.before or first
        try:
            resource = self.wait.until(self.read, table.done(goal, before, wanted), lambda seen: seen.get('state') in table.failures[goal],
                                       table.goal_text(goal, first), current=None if answered else resource,
                                       before=before.get('state') if changed else None, command=command, peek=self.peek,
                                       settle=(module.shared, self.collection, command) if answered else None)
        except WaitError as error:
            if lost_once:
                module.fail_api(self.lost, '%s; the %s command was not sent again' % (error, command), **{self.key: error.resource})
            module.fail(str(error), **{self.key: error.resource})
        return resource, changed, diff
