# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The shape of the state tables that service_state and pipe_state decide from (the tables themselves
are data in service.py and pipe.py). Pure, so every row is unit-tested on its own."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# What a table says to do in a state, besides a command to send (None: nothing to send, the resource
# is there or on its way there):
WAIT = 'wait'  # a transition away from the goal: wait until it ends, then decide again from the new state
FAIL = 'fail'  # no command brings the resource to the goal from here: fail before any write


class StateTable:
    """For one kind of resource: what to do in each state for each goal, and how a wait ends.

    actions: goal -> state -> None, a command, WAIT or FAIL (a state not listed: FAIL).
    settled: goal -> the states that end a wait. failures: goal -> the states that fail a wait.
    targets: goal -> the state the diff and check mode show as the outcome.
    transitions: each transition state -> the state it ends in (what check mode assumes without waiting).
    once: commands never sent twice in one task, even when their answer was lost (a second resync would
    start a second resync)."""

    def __init__(self, noun, actions, settled, failures, targets, transitions, once=()):
        self.noun, self.actions, self.settled, self.failures = noun, actions, settled, failures
        self.targets, self.transitions, self.once = targets, transitions, frozenset(once)

    def action(self, goal, resource, predict=False):
        """What to do for the resource in its state; with predict (check mode), a transition is taken as over."""
        state = resource.get('state')
        action = self.actions[goal].get(state, FAIL)
        if action == WAIT and predict:
            return self.actions[goal].get(self.transitions[state], FAIL)
        return action

    def in_transition(self, state):
        return state in self.transitions

    def goal_text(self, goal, resource):
        """The goal as a wait that does not end names it."""
        return ' or '.join(sorted(self.settled[goal]))

    def done(self, goal, before, wait=True):
        """The condition that ends the wait for goal, given the resource as it was before the command."""
        settled = self.settled[goal]
        return lambda resource: resource.get('state') in settled

    def failed(self, goal):
        failures = self.failures[goal]
        return lambda resource: resource.get('state') in failures

    def refusal(self, goal, resource, name):
        """Why no command helps in the resource's state (FAIL); a table names what is possible instead."""
        return '%s %s is in state %s, which is not one of the states the API documents for a %s; nothing was sent' % (
            self.noun, name, resource.get('state'), self.noun)

    def target(self, goal, resource):
        """The state the resource will show once goal is reached (check mode and diff)."""
        return self.targets[goal]
