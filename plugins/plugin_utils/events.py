# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What the event sources of extensions/eda (engine.cloud.alert_events, engine.cloud.service_events) do, in plain
code that tests drive without ansible-rulebook: their options, checked as the modules check theirs (environment
fallbacks included); one listing per poll (every page) through the modules' HTTP client and the controller's shared
pacer; one event per state transition, diffed against the last complete listing only."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import asyncio
import time

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.errors import UnsupportedError

from ansible_collections.engine.cloud.plugins.module_utils import cloud, observability, service_filter
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.cloud import SERVICE_STATES

# The contract's inactive and the states live servers use (reference: alert state values).
ALERT_STATES = ('ALERT', 'OK', 'INSUFFICIENT_DATA', 'DISABLED', 'PENDING', 'inactive')
INITIAL = ('changes', 'current')


class OptionError(ValueError):
    """A bad option of an event source, found at its start, before any request."""


class PollError(Exception):
    """A listing whose answer is not a listing (no list where the items should be), or that ended short."""


class CredentialsRefused(Exception):
    """The API refused the source's credentials (401, 403): no later poll can do better, so the source stops."""


# An object missing from this many complete listings in a row is forgotten (should it come back, it is new).
FORGET_AFTER_POLLS = 10


def _source_spec(api, states, interval, **more):
    """The options of a source: the API's (as every module has them, env fallbacks included), and its own. A failed
    poll is tried at the next interval, so by default the client does not retry within one (api_retries 0)."""
    spec = api.argument_spec(also=False)
    spec['api_retries'] = dict(spec['api_retries'], default=0)
    spec.update(
        interval=dict(type='int', default=interval),
        names=dict(type='list', elements='str'),
        states=dict(type='list', elements='str', choices=list(states)),
        initial=dict(type='str', default='changes', choices=list(INITIAL)),
        **more)
    return spec


ALERT_SPEC = _source_spec(observability.API, ALERT_STATES, 60)
SERVICE_SPEC = _source_spec(cloud.API, SERVICE_STATES, 30, tags=dict(type='dict'))


def _secrets(spec, values):
    return set(value for name, option in spec.items() if option.get('no_log')
               for value in [values.get(name)] if isinstance(value, str) and value)


def checked_options(spec, args, source):
    """The source's options from the rulebook's args, checked (types, choices, unknown names, env fallbacks); OptionError
    naming the option and the source, with every secret masked."""
    result = ArgumentSpecValidator(spec).validate(dict(args or {}))
    secrets = _secrets(spec, result.validated_parameters) | _secrets(spec, dict(args or {}))
    if result.error_messages:
        messages = [('unsupported options: %s' % error.msg) if isinstance(error, UnsupportedError) else error.msg
                    for error in result.errors.errors]
        raise OptionError(remove_values('%s: %s' % (source, '; '.join(messages)), secrets))
    params = result.validated_parameters
    errors = []
    if params['interval'] < 1:
        errors.append('interval must be at least 1 second, got %d' % params['interval'])
    if params['names'] is not None and not all(params['names']):
        errors.append('names must hold names (non-empty strings), got %r' % (params['names'],))
    return params, errors, secrets


def connect(api, params, errors, secrets, source, warn):
    """The API's HTTP client after every check a module makes (Api.connect), paced with the modules of this controller
    that use the same credential; OptionError with every message (errors: the source's own ones) when one is bad."""
    def fail(*messages):
        messages = [message for message in list(errors) + list(messages) if message]
        if messages:
            raise OptionError(remove_values('%s: %s' % (source, '; '.join(messages)), secrets))
    fail()
    return api.connect(params, warn, fail)


def iso(moment):
    """UTC ISO 8601 with milliseconds and Z, as the APIs write times."""
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(moment)) + '.%03dZ' % (int(moment * 1000) % 1000)


def list_alerts(client):
    """Every alert, page by page up to the listing's total; a page that fails or ends short raises."""
    try:
        return _items(dict(data=observability.list_all(lambda method, path, params: client.request(method, path, params=params), '/alerts')), 'data')
    except ValueError as error:
        raise PollError(str(error))


def list_services(client, organization_id, tags):
    """Every service of the organization with these tags (the API's filter, checked again here): one request."""
    body = client.request('GET', cloud.services_path(organization_id), params=service_filter.tag_query(tags))
    return [service for service in _items(body, 'result') if service_filter.has_tags(service, tags)]


def _items(body, key):
    items = body.get(key) if isinstance(body, dict) else None
    if not isinstance(items, list):
        raise PollError('the answer holds no list under %r' % key)
    return [item for item in items if isinstance(item, dict) and item.get('id')]


def alert_event(alert, previous, seen_at):
    """The event of one alert's transition (DESIGN, Round 5); a read of the contract's older form names dashboardId
    `dashboard`."""
    return dict(alert=dict(
        id=alert['id'], name=alert.get('name'), state=alert.get('state'), previous_state=previous,
        threshold=alert.get('threshold'), threshold_type=alert.get('thresholdType'), interval=alert.get('interval'),
        dashboard_id=alert.get('dashboardId', alert.get('dashboard')), tile_id=alert.get('tileId'),
        saved_search_id=alert.get('savedSearchId'), silenced=alert.get('silenced')),
        engine=dict(source='alert_events', seen_at=seen_at))


def service_event(service, previous, seen_at):
    """The event of one service's transition; its tags as a dict of key to value (null for a tag without one)."""
    return dict(service=dict(
        id=service['id'], name=service.get('name'), state=service.get('state'), previous_state=previous,
        tier=service.get('tier'), region=service.get('region'),
        tags=dict((tag.get('key'), tag.get('value')) for tag in service.get('tags') or [] if isinstance(tag, dict))),
        engine=dict(source='service_events', seen_at=seen_at))


class Poller:
    """The state of one source between polls: the last state it saw of every object (by id), from complete listings
    only. poll() lists once and returns the events of the transitions since the last complete listing.

    list_items(): every object (raises ApiError or PollError when the listing fails or is cut short); event(object,
    previous_state, seen_at): its event; names, states: the filters (None: all); initial: 'current' also reports each
    watched object's state at the first complete listing (previous_state null), 'changes' only later transitions;
    warn(text): the log's warning."""

    def __init__(self, source, list_items, event, interval, names=None, states=None, initial='changes', warn=None):
        self.source, self.list_items, self.event, self.interval = source, list_items, event, interval
        self.names = None if names is None else frozenset(names)
        self.states = None if states is None else frozenset(states)
        self.initial, self.warn = initial, (lambda text: None) if warn is None else warn
        self.known = None  # id -> the state of the last complete listing that showed it; None before the first
        self.missing = {}  # id -> how many complete listings in a row have not shown it

    def poll(self):
        try:
            items = self.list_items()
        except (ApiError, PollError) as error:
            if getattr(error, 'status', None) in (401, 403):
                raise CredentialsRefused('%s: the API refused the credentials, so the source stops: %s' % (self.source, error))
            self.warn('%s: the poll failed, so it reports nothing; the next one comes in %d s: %s' % (self.source, self.interval, error))
            return []
        seen_at = iso(CLOCK.time())
        first, known = self.known is None, self.known or {}
        events = []
        listed = dict((item['id'], item) for item in items)  # a page that repeats an object shows it once
        for object_id, item in listed.items():
            state, before = item.get('state'), known.get(object_id)
            if first and self.initial == 'changes' or not first and object_id in known and before == state:
                continue
            if self._watched(item) and (self.states is None or state in self.states):
                events.append(self.event(item, before, seen_at))
        # An object missing from a listing keeps its last state for a while: should it come back, only a real change is reported.
        self.missing = dict((object_id, self.missing.get(object_id, 0) + 1) for object_id in known if object_id not in listed)
        self.known = dict(((object_id, state) for object_id, state in known.items() if self.missing.get(object_id, 0) < FORGET_AFTER_POLLS),
                          **dict((object_id, item.get('state')) for object_id, item in listed.items()))
        self.missing = dict((object_id, count) for object_id, count in self.missing.items() if object_id in self.known)
        return events

    def _watched(self, item):
        return self.names is None or item.get('name') in self.names


def alert_poller(args, warn):
    """The poller of engine.cloud.alert_events for the rulebook's args; OptionError for a bad option."""
    source = 'engine.cloud.alert_events'
    params, errors, secrets = checked_options(ALERT_SPEC, args, source)
    client = connect(observability.API, params, errors, secrets, source, warn)
    return Poller(source, lambda: list_alerts(client), alert_event, params['interval'], params['names'], params['states'],
                  params['initial'], warn)


def service_poller(args, warn):
    """The poller of engine.cloud.service_events for the rulebook's args; OptionError for a bad option."""
    source = 'engine.cloud.service_events'
    params, errors, secrets = checked_options(SERVICE_SPEC, args, source)
    tags, tag_errors = service_filter.check_tag_filter('tags', params['tags'])
    client = connect(cloud.API, params, errors + tag_errors, secrets, source, warn)
    organization_id = params['organization_id']
    return Poller(source, lambda: list_services(client, organization_id, tags), service_event, params['interval'],
                  params['names'], params['states'], params['initial'], warn)


async def run(poller, queue, warn):
    """The loop of a source under ansible-rulebook: a poll every poller.interval seconds (from the start of one to the
    start of the next), in a thread (the client blocks), its events put on the queue in order."""
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        try:
            found = await loop.run_in_executor(None, poller.poll)
        except CredentialsRefused:
            raise
        except Exception as error:  # pylint: disable=broad-except  # a source that stops polling acts on nothing again
            warn('%s: the poll failed unexpectedly, so it reports nothing: %s: %s' % (poller.source, type(error).__name__, error))
            found = []
        for event in found:
            await queue.put(event)
        await asyncio.sleep(max(0.0, poller.interval - (loop.time() - started)))
