# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""service_state's state table (what each goal does in each service state), apart from the rest of the
service rules (service_rules.py) because every module process that moves a service compiles it from the
AnsiballZ zip, and service_state needs nothing else of them. Pure data, unit-tested in test_states.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.engine.cloud.plugins.module_utils.states import FAIL, WAIT, StateTable

# The reference's service states. A command sent during a transition may be refused (409); a
# terminating, terminated, softdeleting or softdeleted service takes no command.
TRANSITIONS = {'starting': 'running', 'stopping': 'stopped', 'awaking': 'running', 'provisioning': 'running'}
TERMINAL = ('terminating', 'terminated', 'softdeleting', 'softdeleted')
_TERMINAL_FAIL = dict((state, FAIL) for state in TERMINAL)
# goal -> state -> what service_state does (None: no command; WAIT: wait the transition out, then
# decide again; FAIL: fail before any write). The module documentation shows the same table.
SERVICE_ACTIONS = {
    'started': dict(running=None, idle=None, partially_running=None, starting=None, awaking=None, provisioning=None,
                    stopped='start', stopping=WAIT, degraded=FAIL, failed=FAIL, **_TERMINAL_FAIL),
    'awake': dict(running=None, idle='awake', partially_running=None, starting=None, awaking=None, provisioning=None,
                  stopped='start', stopping=WAIT, degraded=FAIL, failed=FAIL, **_TERMINAL_FAIL),
    'stopped': dict(running='stop', idle='stop', partially_running='stop', starting=WAIT, awaking=WAIT, provisioning=WAIT,
                    stopped=None, stopping=None, degraded='stop', failed=FAIL, **_TERMINAL_FAIL),
}
SERVICE_STATES = tuple(SERVICE_ACTIONS['started'])


class ServiceStates(StateTable):
    """service_state's table, with messages that say what is possible instead."""

    def refusal(self, goal, resource, name):
        state = resource.get('state')
        if state in TERMINAL:
            return 'service %s is %s: a terminating, terminated, softdeleting or softdeleted service takes no command' % (name, state)
        if state == 'failed':
            return 'service %s is failed: no start or stop is sent to a failed service' % name
        if state == 'degraded':
            return ('service %s is degraded: state=%s sends no command to a degraded service (start applies to a stopped one); '
                    'it can be stopped with state=stopped' % (name, goal))
        return super(ServiceStates, self).refusal(goal, resource, name)


SERVICE_TABLE = ServiceStates(
    'service', SERVICE_ACTIONS,
    settled={'started': frozenset(('running', 'idle')), 'awake': frozenset(('running',)), 'stopped': frozenset(('stopped',))},
    failures={'started': frozenset(('failed', 'degraded') + TERMINAL), 'awake': frozenset(('failed', 'degraded') + TERMINAL),
              'stopped': frozenset(('failed',) + TERMINAL)},
    targets={'started': 'running', 'awake': 'running', 'stopped': 'stopped'},
    transitions=TRANSITIONS)
