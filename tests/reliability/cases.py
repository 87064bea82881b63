# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What the suite runs: the modules of tests/simulator/catalog.py (arguments that work against the
fixture, the request that reads, the request that writes), a few more writes whose lost answer
matters (a purge, a start, a resync), the faults, and the bad inputs generated from each module's
own DOCUMENTATION (options, types, choices, ranges stated in the descriptions)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import copy
import os
import re

import yaml

from harness import ROOT
from tests.simulator import catalog
from tests.simulator.fixture_ids import (DASHBOARD_HEALTH, ORGANIZATION, PIPE_POSTGRES, PIPE_STREAM, SERVICE_DEV, SERVICE_PROD,
                                         SOURCE_METRICS, WEBHOOK_PAGER, pipe_path, service_path)

# The modules the suite drives: the catalog every suite reads.
MODULES, BY_NAME, WRITERS = catalog.MODULES, catalog.BY_NAME, catalog.WRITERS


class Variant(catalog.Module):
    """A writer of the catalog driven with other args, for a write whose repetition after a lost answer
    would fail or do harm (the reference's "lost answers"); label names its cases and jobs."""

    def __init__(self, label, name, args, read, write, resource):
        super(Variant, self).__init__(name, 'cloud', args, read, write, resource)
        self.label = label


WRITE_VARIANTS = [
    # Removing an entry twice is a 400.
    Variant('service purge', 'service', dict(service_id=SERVICE_PROD, ip_access_list=[dict(source='203.0.113.0/24')],
                                             purge_ip_access_list=True, private_endpoint_ids=[], purge_private_endpoint_ids=True),
            ('GET', service_path()), ('PATCH', service_path()), ('services', SERVICE_PROD)),
    # A start repeated after it took effect is refused (409).
    Variant('service_state start', 'service_state', dict(service_id=SERVICE_DEV, state='started'),
            ('GET', service_path(SERVICE_DEV)), ('PATCH', service_path(SERVICE_DEV, '/state')), ('services', SERVICE_DEV)),
    # A second resync starts a second resync.
    Variant('pipe_state resync', 'pipe_state', dict(service_id=SERVICE_PROD, pipe_id=PIPE_POSTGRES, state='resynced', wait_timeout=4),
            ('GET', pipe_path(PIPE_POSTGRES)), ('PATCH', pipe_path(PIPE_POSTGRES, '/state')), ('pipes', PIPE_POSTGRES)),
]
FAULTED_WRITES = WRITERS + WRITE_VARIANTS


def label(module):
    return getattr(module, 'label', module.name)


BY_LABEL = dict((label(module), module) for module in MODULES + WRITE_VARIANTS)


# Modules whose PUT the client does not replay either: after a lost answer they read and send what still differs
# (an alert; a dashboard since issue 36, DESIGN 5a).
PUT_ONCE = ('alert', 'dashboard')


def replayable(module):
    """Whether the module's write is safe to send twice (the settings PUT). A PATCH is not, nor a PUT of PUT_ONCE: the
    client does not retry it after its answer may have been lost; the module reads and sends only what still differs."""
    return module.write is not None and module.write[0] != 'PATCH' and module.name not in PUT_ONCE


def command_once(module):
    """A resync: never sent twice in one task, even when its answer was lost."""
    return module.args.get('state') == 'resynced'


# --- faults -------------------------------------------------------------------------------------

RETRIES = 2          # api_retries of the "within" cases: two faults, then success on attempt 3
BEYOND_RETRIES = 1   # api_retries of the "beyond" cases: two faults, failure after attempt 2
TIMEOUT = 2          # api_timeout of every fault run; the delay fault answers after DELAY
DELAY = 3


class Fault:
    """One kind of fault. wait: the Retry-After-like wait it asks for (None: backoff).
    lost: on a write, the answer is lost after the request may have reached the API (a PATCH is then not
    retried by the client). applied: the simulator applies the write before it loses the answer."""

    def __init__(self, name, spec, retryable, expect, wait=None, apis=('cloud', 'observability'), lost=False):
        self.name, self.spec, self.retryable, self.expect, self.wait, self.apis = name, spec, retryable, expect, wait, apis
        self.lost, self.applied = lost, bool(spec.get('apply'))


FAULTS = [
    Fault('429 Retry-After', dict(kind='status', status=429, headers={'Retry-After': '1'}), True, ['HTTP 429'], 1),
    Fault('429 X-RateLimit-Reset', dict(kind='status', status=429, headers={'X-RateLimit-Reset': '1'}), True, ['HTTP 429'], 1),
    Fault('429 RateLimit-Reset', dict(kind='status', status=429, headers={'RateLimit-Reset': '1'}), True, ['HTTP 429'], 1,
          apis=('observability',)),
    Fault('429 no header', dict(kind='status', status=429), True, ['HTTP 429']),
    Fault('500', dict(kind='status', status=500), False, ['HTTP 500']),
    Fault('502', dict(kind='status', status=502), True, ['HTTP 502'], lost=True),
    Fault('503', dict(kind='status', status=503), True, ['HTTP 503'], lost=True),
    Fault('504', dict(kind='status', status=504), True, ['HTTP 504'], lost=True),
    Fault('connection reset', dict(kind='reset'), True, ['connection', 'failed'], lost=True),
    Fault('slower than api_timeout', dict(kind='delay', delay=DELAY), True, ['no response within api_timeout'], lost=True),
    Fault('malformed JSON', dict(kind='malformed_json'), False, ['not valid JSON']),
    Fault('HTML proxy page', dict(kind='html'), True, ['HTTP 502', 'HTML', '502 Bad Gateway'], lost=True),
    # Writes only: applied, then the answer is lost.
    Fault('502 applied', dict(kind='status', status=502, apply=True), True, ['HTTP 502'], lost=True),
    Fault('503 applied', dict(kind='status', status=503, apply=True), True, ['HTTP 503'], lost=True),
    Fault('504 applied', dict(kind='status', status=504, apply=True), True, ['HTTP 504'], lost=True),
    Fault('connection reset applied', dict(kind='reset', apply=True), True, ['connection', 'failed'], lost=True),
]
FAULT_BY_NAME = dict((fault.name, fault) for fault in FAULTS)
READ_FAULTS = tuple(fault.name for fault in FAULTS if not fault.applied)
# On writes: the faults that lose an answer (applied or not, at once or late), a refusal that is retried
# (429), and the non-retryable ones.
WRITE_FAULTS = ('429 Retry-After', '500', '502', '503', '504', 'connection reset', 'slower than api_timeout', 'malformed JSON',
                '502 applied', '503 applied', '504 applied', 'connection reset applied')
# The variants' point is a lost answer: not applied (read again, sent again), applied (read again, not sent again).
VARIANT_FAULTS = ('504', '504 applied', 'connection reset applied')


class FaultCase:
    """A fault armed on a module's read or write, within or beyond api_retries (or once: non-retryable, an
    applied write whose answer is lost, a resync, or a late write).

    A write the client does not replay (a PATCH) whose answer is lost is followed by a read; what still
    differs is sent again (within api_retries), nothing when the first attempt was applied; a resync is
    never sent again, so its task fails when the read shows no resync."""

    def __init__(self, module, fault, target, mode):
        self.module, self.fault, self.target, self.mode = module, fault, target, mode
        self.method, path = module.read if target == 'read' else module.write
        self.path = re.escape(path) + '$'
        self.retries = BEYOND_RETRIES if mode == 'beyond' else RETRIES
        self.count = {'within': RETRIES, 'beyond': BEYOND_RETRIES + 1, 'once': 1}[mode]
        self.key = re.sub(r'[^a-z0-9]+', '_', ('%s %s %s %s' % (label(module), target, fault.name, mode)).lower()).strip('_')

    @property
    def read_again(self):
        """The module, not the client, deals with this fault: a lost answer to a write that is not replayed."""
        return self.target == 'write' and self.fault.lost and not replayable(self.module)

    @property
    def succeeds(self):
        if self.read_again and command_once(self.module):
            return self.fault.applied
        return self.mode == 'within' or (self.mode == 'once' and self.fault.retryable)

    @property
    def attempts(self):
        """How many times the faulted request is sent; None where it depends on timing (a late write)."""
        if self.read_again:
            if self.fault.applied or command_once(self.module):
                return 1
            if self.fault.spec['kind'] == 'delay':
                return None
        return self.count + 1 if self.succeeds else self.count

    def spec(self):
        spec = dict(self.fault.spec, method=self.method, path=self.path, count=self.count)
        return spec

    def args(self):
        return dict(self.module.args, api_retries=self.retries, api_timeout=TIMEOUT)

    def __repr__(self):
        return self.key


def fault_cases(module, target):
    if target == 'read':
        names = READ_FAULTS
    else:
        names = WRITE_FAULTS if module in WRITERS else VARIANT_FAULTS
    cases = []
    for name in names:
        fault = FAULT_BY_NAME[name]
        if module.api not in fault.apis:
            continue
        cases.extend(FaultCase(module, fault, target, mode) for mode in _modes(module, fault, target))
    return cases


def _modes(module, fault, target):
    """A fault is armed within and beyond api_retries on reads; on writes within only (503 both), once
    where it is not retried, once where it applies the write (the read after it must prevent a second
    write), once on a resync (never sent twice), and once where the write is late (a PATCH; its second
    attempt, if any, depends on timing)."""
    if not fault.retryable or fault.applied or (target == 'write' and command_once(module)):
        return ('once',)
    if target == 'read' or fault.name == '503':
        return ('within', 'beyond')
    if fault.spec['kind'] == 'delay' and not replayable(module):
        return ('once',)
    return ('within',)


def all_fault_cases():
    cases = []
    for module in MODULES:
        cases.extend(fault_cases(module, 'read'))
    for module in FAULTED_WRITES:
        cases.extend(fault_cases(module, 'write'))
    return cases


# --- the lifecycle of a service: lost answers to a create or a delete, deletes during transitions --------

SERVICES_PATH = '/v1/organizations/%s/services' % ORGANIZATION
NEW_NAME = 'reliability new'
NEW_SERVICE = dict(name=NEW_NAME, provider='aws', region='eu-central-1', wait=False)
# A password given to a task: sent as its two hashes only; the secrets scan looks for it in every output.
SERVICE_PASSWORD = 'reliability-Service-Pw-5b1e'
PIPES_PATH = service_path(SERVICE_PROD, '/pipes')
PIPE_CREATE = dict(service_id=SERVICE_PROD, name='reliability-created', wait=False,
                   source=dict(stream=dict(format='JSONEachRow', stream_name='reliability', region='eu-central-1',
                                           authentication='IAM_ROLE', iam_role='arn:aws:iam::123456789012:role/reliability')),
                   destination=dict(database='analytics', table='reliability', managed_table=True, columns=[dict(name='id', type='UInt64')]))


class LifecycleKind:
    """A kind of resource with a lifecycle (module_utils/lifecycle.py), as the suite drives it: its module, the args
    of a new one (named), its collection and the state's key for it; the resource to delete (delete_args, its path)
    and how reads linger after a delete: linger (config) for a delete sent now, lingering (an admin edit) for one
    that an earlier run sent; after_create: the writes that follow a create whose lost answer was adopted (a
    service asks for a new generated password); again_after_404: whether a DELETE sent again after a lost answer,
    while reads linger, is answered 404 (a pipe) or not sent at all (a service is read as being deleted).
    A dashboard or an alert is one more row."""

    def __init__(self, name, module, create, collection, state_key, delete_args, delete_path, linger, lingering, after_create=(),
                 again_after_404=True):
        self.name, self.module, self.create, self.collection, self.state_key = name, module, create, collection, state_key
        self.delete_args, self.delete_path, self.linger, self.lingering = delete_args, delete_path, linger, lingering
        self.after_create, self.again_after_404 = list(after_create), again_after_404


SERVICE_KIND = LifecycleKind('service', 'service', NEW_SERVICE, SERVICES_PATH, 'services',
                             dict(service_id=SERVICE_DEV, state='absent', wait=False), service_path(SERVICE_DEV),
                             linger={'deleted_reads': 'softdeleted'},
                             lingering=('services', SERVICE_DEV, {'state': 'softdeleting', 'then': {'state': 'softdeleted', 'reads': 3}}),
                             after_create=[('PATCH', None)], again_after_404=False)
PIPE_KIND = LifecycleKind('pipe', 'pipe', PIPE_CREATE, PIPES_PATH, 'pipes',
                          dict(service_id=SERVICE_PROD, name='clicks-stream', state='absent', wait=False), pipe_path(PIPE_STREAM),
                          linger={'deleted_pipe_reads': 3}, lingering=('pipes', PIPE_STREAM, {'sim': {'deleted_reads': 3}}))
LIFECYCLE_KINDS = [SERVICE_KIND, PIPE_KIND]
# A create that runs on the server longer than api_timeout (TIMEOUT), and one longer than the module looks for it.
SLOW_CREATE, SLOWER_THAN_THE_WINDOW, WINDOW = TIMEOUT + 2, 60, 2


class LifecycleCase:
    """One run of a module with a lifecycle (kind: a LifecycleKind; the service by default) on a freshly reset
    simulator (config: its reset keys; edits: admin edits [kind, id, changes]; faults). writes: the (method, path)
    of every write it must send, in order; named: how many resources named as the kind's new one it must leave;
    gone: a service the run must leave deleted (absent from the state, or terminated / softdeleted); expect: words
    of the failure message when it must fail."""

    def __init__(self, key, args, writes, faults=(), config=None, edits=(), named=None, gone=None, changed=True, expect=None, kind=None,
                 topic=None):
        self.key, self.writes, self.faults, self.edits = key, writes, list(faults), [list(edit) for edit in edits]
        self.topic = topic  # what docs/reliability.md counts it under, per kind: 'slow create' or 'lingering delete'
        self.args = dict(args, api_retries=args.get('api_retries', RETRIES), api_timeout=TIMEOUT)
        self.config = dict(config or {}, transition_reads=1)
        self.named, self.gone, self.changed, self.expect = named, gone, changed, expect
        self.kind = kind or SERVICE_KIND

    def __repr__(self):
        return self.key


def _lost(method, kind='status', status=504, apply=False, count=1, path='$'):
    spec = dict(method=method, path=path, kind=kind, count=count, apply=apply)
    if kind == 'status':
        spec['status'] = status
    return spec


_POST = ('POST', SERVICES_PATH)
_NEW_PASSWORD = ('PATCH', None)  # the new service's id is not known beforehand
_DELETE_DEV, _DELETE_PROD = ('DELETE', service_path(SERVICE_DEV)), ('DELETE', service_path(SERVICE_PROD))
_STOP_PROD = ('PATCH', service_path(SERVICE_PROD, '/state'))
LIFECYCLE_CASES = [
    # A create whose answer was lost, applied: the services are read by name, the one found is taken, no second POST;
    # the generated password was in the lost answer only, so a new one is asked for (PATCH .../password without hashes).
    LifecycleCase('create_lost_502_applied', NEW_SERVICE, [_POST, _NEW_PASSWORD], [_lost('POST', status=502, apply=True)], named=1),
    LifecycleCase('create_lost_504_applied', NEW_SERVICE, [_POST, _NEW_PASSWORD], [_lost('POST', apply=True)], named=1),
    LifecycleCase('create_lost_reset_applied', NEW_SERVICE, [_POST, _NEW_PASSWORD], [_lost('POST', kind='reset', apply=True)], named=1),
    LifecycleCase('create_lost_applied_starting', NEW_SERVICE, [_POST, _NEW_PASSWORD], [_lost('POST', apply=True)],
                  config={'create_state': 'starting'}, named=1),
    # Not applied: none of that name shows within wait_timeout; the create is never sent again, whatever api_retries.
    LifecycleCase('create_lost_503_not_applied', dict(NEW_SERVICE, wait_timeout=WINDOW), [_POST], [_lost('POST', status=503)], named=0,
                  expect=['HTTP 503', 'the create was not sent again']),
    LifecycleCase('create_lost_not_applied_retries_8', dict(NEW_SERVICE, api_retries=8, wait_timeout=WINDOW), [_POST], [_lost('POST', count=2)],
                  named=0, expect=['HTTP 504', 'the create was not sent again']),
    # A delete whose answer was lost is confirmed by a read: applied -> not sent again; not applied -> sent again.
    LifecycleCase('delete_lost_504_applied', dict(service_id=SERVICE_DEV, state='absent'), [_DELETE_DEV], [_lost('DELETE', apply=True)],
                  gone=SERVICE_DEV),
    LifecycleCase('delete_lost_reset_applied_terminated', dict(service_id=SERVICE_DEV, state='absent'), [_DELETE_DEV],
                  [_lost('DELETE', kind='reset', apply=True)], config={'deleted_reads': 'terminated'}, gone=SERVICE_DEV),
    LifecycleCase('delete_lost_502_not_applied', dict(service_id=SERVICE_DEV, state='absent'), [_DELETE_DEV, _DELETE_DEV],
                  [_lost('DELETE', status=502)], gone=SERVICE_DEV),
    # A running service is stopped first; a stopping one is only waited for; one being deleted gets nothing.
    LifecycleCase('delete_running', dict(service_id=SERVICE_PROD, state='absent'), [_STOP_PROD, _DELETE_PROD],
                  config={'deleted_reads': 'softdeleted'}, gone=SERVICE_PROD),
    LifecycleCase('delete_while_stopping', dict(service_id=SERVICE_PROD, state='absent'), [_DELETE_PROD],
                  edits=[('services', SERVICE_PROD, {'state': 'stopping', 'then': {'state': 'stopped', 'reads': 2}})], gone=SERVICE_PROD),
    LifecycleCase('absent_while_deleting', dict(service_id=SERVICE_DEV, state='absent'), [],
                  edits=[('services', SERVICE_DEV, {'state': 'terminating', 'then': {'state': 'terminated', 'reads': 2}})],
                  gone=SERVICE_DEV, changed=False),
    # A password: set after the create that was found by name, and as a command on an existing service.
    LifecycleCase('create_lost_applied_with_password', dict(NEW_SERVICE, password=SERVICE_PASSWORD), [_POST, ('PATCH', None)],
                  [_lost('POST', apply=True)], named=1),
    LifecycleCase('password_always', dict(service_id=SERVICE_PROD, password=SERVICE_PASSWORD, update_password='always'),
                  [('PATCH', service_path(SERVICE_PROD, '/password'))]),
    # A lost stop before the delete: the table decides again from a read, the stop is not sent twice once it took effect.
    LifecycleCase('delete_stop_lost_applied', dict(service_id=SERVICE_PROD, state='absent'), [_STOP_PROD, _DELETE_PROD],
                  [_lost('PATCH', apply=True, path='/state$')], gone=SERVICE_PROD),
]


def kind_cases(kind):
    """The slow create and the lingering delete of one kind of resource."""
    post, delete = ('POST', kind.collection), ('DELETE', kind.delete_path)
    create = dict(kind.create, wait_timeout=30)
    return [
        # The server creates it after the client gave up: read by name until it shows, adopted, never sent again.
        LifecycleCase('%s_slow_create_late' % kind.name, create, [post] + kind.after_create,
                      config={'slow_create': SLOW_CREATE}, named=1, kind=kind, topic='slow create'),
        LifecycleCase('%s_slow_create_dropped_retries_8' % kind.name, dict(create, api_retries=8), [post] + kind.after_create,
                      config={'slow_create': SLOW_CREATE, 'slow_create_answer': 'dropped'}, named=1, kind=kind, topic='slow create'),
        # It does not show within wait_timeout: the task fails saying so; still one POST.
        LifecycleCase('%s_slow_create_beyond_wait_timeout' % kind.name, dict(create, api_retries=8, wait_timeout=WINDOW), [post],
                      config={'slow_create': SLOWER_THAN_THE_WINDOW}, named=0, kind=kind, topic='slow create',
                      expect=['no response within api_timeout', 'the create was not sent again', 'the next run reads by name first']),
        # Deleted by an earlier run, still read: absent, unchanged (a pipe's DELETE answers 404; a service is being deleted).
        LifecycleCase('%s_absent_again_while_reads_linger' % kind.name, kind.delete_args, [delete] if kind.again_after_404 else [],
                      edits=[kind.lingering], changed=False, kind=kind, topic='lingering delete'),
        # A lost DELETE, applied, then reads that linger: a second DELETE's 404 ends the task as deleted.
        LifecycleCase('%s_lost_delete_while_reads_linger' % kind.name, kind.delete_args, [delete, delete] if kind.again_after_404 else [delete],
                      faults=[_lost('DELETE', apply=True)], config=kind.linger, kind=kind, topic='lingering delete'),
    ]


LIFECYCLE_CASES += [case for kind in LIFECYCLE_KINDS for case in kind_cases(kind)]


# ansible-core, not the collection: a string where a list of dicts wants a dict fails in
# _list_no_log_values with check_type_dict's bare message, before any option context is known.
# (A number there is refused naming the option, though ansible-core says "must be a list".)
CORE_LIMITATIONS = {
    'element of wrong type (string)': "ansible-core's own message 'dictionary requested, could not parse JSON or key=value' "
                                      "does not name the option (raised by _list_no_log_values before validation)",
}

# --- bad input ------------------------------------------------------------------------------------

SHARED = {
    'cloud': dict(
        api_url=dict(type='str'), api_key_id=dict(type='str'), api_key_secret=dict(type='str'),
        organization_id=dict(type='str', description='UUID of the organization'),
    ),
    'observability': dict(observability_url=dict(type='str'), api_token=dict(type='str')),
}
COMMON = dict(
    validate_certs=dict(type='bool'),
    api_timeout=dict(type='int', description='at least 1'),
    api_retries=dict(type='int', description='at least 0'),
    api_rate_limit=dict(type='rate limit'),
)
OVER_LONG = 'x' * 300
_RANGE = re.compile(r'(?:between\s+(-?\d+)\s+and\s+(-?\d+)|\b(-?\d+)\s+to\s+(-?\d+)\b)', re.I)
_AT_LEAST = re.compile(r'at least\s+(-?\d+)', re.I)
_MULTIPLE = re.compile(r'multiple of\s+(\d+)')
_LENGTH = re.compile(r'(?:1 to (\d+) (?:letters|characters)|up to (\d+) characters|at most (\d+) characters)')
_SETTING = re.compile(r'^C\((\w+)\) \((?:(-?\d+) to (-?\d+)|boolean)')
# How a dict option whose keys follow a rule (tags) states it.
_KEY_RULE = 'letters, digits, dots, underscores or hyphens'


class BadInput:
    """One bad value: the option path, the kind of mistake, args, and words the message must hold."""

    def __init__(self, module, option, kind, args, expect):
        self.module, self.option, self.kind, self.args, self.expect = module, option, kind, args, expect
        self.key = re.sub(r'[^a-z0-9]+', '_', ('%s %s %s' % (module.name, option, kind)).lower()).strip('_')

    def __repr__(self):
        return self.key


def _assigned_yaml(nodes, name):
    for node in nodes:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', None) == name:
            return yaml.safe_load(node.value.value)
    return None


def fragment_options(fragment):
    """The options of one of this collection's doc fragments ('engine.cloud.cloud.SERVICE_ID'), or {}
    for the connection fragments, whose options SHARED and COMMON give with the rules they follow."""
    parts = fragment.split('.')[2:] + ['DOCUMENTATION']
    source, attribute = parts[0], parts[1]
    if source in ('cloud', 'observability') and attribute in ('DOCUMENTATION', 'UNUSED'):
        return {}
    with open(os.path.join(ROOT, 'plugins', 'doc_fragments', source + '.py')) as handle:
        tree = ast.parse(handle.read())
    body = next(node.body for node in tree.body if isinstance(node, ast.ClassDef) and node.name == 'ModuleDocFragment')
    return (_assigned_yaml(body, attribute) or {}).get('options') or {}


def documentation(name):
    """The module's DOCUMENTATION as data, read from its source without importing it, with the
    options of the collection's doc fragments it extends (chart_series's query, service_id)."""
    with open(os.path.join(ROOT, 'plugins', 'modules', name + '.py')) as handle:
        doc = _assigned_yaml(ast.parse(handle.read()).body, 'DOCUMENTATION')
    if doc is None:
        raise ValueError('%s has no DOCUMENTATION' % name)
    options = {}
    for fragment in doc.get('extends_documentation_fragment') or []:
        if fragment.startswith('engine.cloud.'):
            options.update(fragment_options(fragment))
    options.update(doc.get('options') or {})
    doc['options'] = options
    return doc


def text(spec):
    description = spec.get('description') or ''
    return ' '.join(description) if isinstance(description, list) else description


def _ranges(description):
    """(minimum, maximum, multiple_of) stated in a description, each None when not stated."""
    low = high = step = None
    found = _RANGE.search(description)
    if found:
        numbers = [int(value) for value in found.groups() if value is not None]
        low, high = numbers
    found = _AT_LEAST.search(description)
    if found and low is None:
        low = int(found.group(1))
    found = _MULTIPLE.search(description)
    if found:
        step = int(found.group(1))
    return low, high, step


def _with(base, path, value):
    """A deep copy of base with the value at path (('series', 0, 'agg_fn')) replaced."""
    args = copy.deepcopy(base)
    target = args
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return args


def _option_cases(module, base, path, label, spec, element_of=None):
    """Bad values for one option (path: where it sits in args; label: how messages name it)."""
    name = path[-1] if not isinstance(path[-1], int) else path[-2]
    kind, description = spec.get('type', 'str'), text(spec)
    # ansible-core names a suboption of a list element inside another list element as 'tiles -> series'.
    words = [name] if element_of is None else [name, element_of.replace('[].', ' -> ')]
    cases = []

    def add(mistake, value, *allowed):
        cases.append(BadInput(module, label, mistake, _with(base, path, value), words + list(allowed)))

    if kind == 'int':
        add('wrong type', 'abc', 'int')
        low, high, step = _ranges(description)
        if low is not None:
            below = low - (step or 1)
            # A value just below the range that the description allows on its own ("V(0) removes it") is not bad input.
            while 'V(%d)' % below in description:
                below -= step or 1
            add('below range', below, str(low))
        if high is not None:
            add('above range', high + (step or 1), str(high))
        if step:
            add('not a multiple', (low or 0) + step // 2 + step, 'multiple of %d' % step)
    elif kind == 'float':
        add('wrong type', 'abc', 'float')
    elif kind == 'bool':
        add('wrong type', 'maybe', 'bool')
    elif kind == 'list':
        add('wrong type', {'not': 'a list'}, 'list')
        counted = re.search(r'\b1 to (\d+)', description)
        if counted and 'V([])' in description:
            # [] is documented as a value of its own (an alert's channels: a legacy alert that has none), which only
            # the resource can refute: one element too many is the bad count that fails before any request.
            add('too many', ['%024x' % number for number in range(int(counted.group(1)) + 1)], '1 to')
        elif counted:
            add('empty list', [], '1 to')
        if spec.get('elements') == 'dict' and spec.get('suboptions'):
            element = base_element(spec)
            add('element of wrong type', [42])
            add('element of wrong type (string)', ['not-a-dict'], 'dict')
            add('unknown key', [dict(element, bogus_key=1)], 'bogus_key', sorted(spec['suboptions'])[0])
            for sub, sub_spec in sorted(spec['suboptions'].items()):
                sub_base = _with(base, path, [dict(element)])
                cases.extend(_option_cases(module, sub_base, tuple(path) + (0, sub), '%s[].%s' % (label, sub), sub_spec, element_of=label))
        elif spec.get('elements') == 'int':
            add('element of wrong type', ['abc'], 'int')
    elif kind == 'dict':
        add('wrong type', 'not-a-dict', 'dict')
        if any(_SETTING.match(line) for line in spec.get('description') or []):
            add('unknown key', {'bogus_key': 1}, 'bogus_key', 'engine_max_threads')
        if _KEY_RULE in description:
            add('malformed key', {'bad key': 'x'}, 'bad key', _KEY_RULE)
        cases.extend(_nested_range_cases(module, base, tuple(path), label, spec))
        for line in spec.get('description') or []:
            found = _SETTING.match(line)
            if not found:
                continue
            key, low, high = found.group(1), found.group(2), found.group(3)
            sub_label = '%s.%s' % (label, key)
            if low is None:
                cases.append(BadInput(module, sub_label, 'wrong type', _with(base, path, {key: 'maybe'}), [sub_label, 'true, false']))
                continue
            cases.append(BadInput(module, sub_label, 'wrong type', _with(base, path, {key: 'abc'}), [sub_label, 'integer', low, high]))
            cases.append(BadInput(module, sub_label, 'below range', _with(base, path, {key: int(low) - 1}), [sub_label, low, high]))
            cases.append(BadInput(module, sub_label, 'above range', _with(base, path, {key: int(high) + 1}), [sub_label, low, high]))
    elif kind == 'rate limit':
        add('malformed', '10 per 10 s', 'REQUESTS/SECONDS', 'off')
        add('below range', '0/10', 'at least 1 request')
    elif kind == 'raw':
        add('wrong type', {'not': 'a time'}, 'epoch')
        add('malformed', 'yesterday-ish', 'epoch', 'ISO 8601')
        add('out of range', 1700000000, 'epoch milliseconds', '13 digits')
    else:
        if spec.get('choices'):
            add('wrong enum', 'bogus-choice', *[str(choice) for choice in spec['choices']])
        if name.endswith('_id'):
            if 'UUID' in description:
                add('malformed id', 'not-a-uuid', 'UUID')
                add('malformed id (trailing newline)', SERVICE_PROD + '\n', 'UUID')
            elif 'object id' in description or '24 hexadecimal' in description:
                add('malformed id', 'not-an-object-id', '24 hexadecimal')
                add('malformed id (trailing newline)', DASHBOARD_HEALTH + '\n', '24 hexadecimal')
        limit = _LENGTH.search(description)
        if limit:
            longest = [value for value in limit.groups() if value][0]
            add('over-long', 'x' * max(len(OVER_LONG), int(longest) + 1), longest)
        if 'IPv4' in description:
            add('malformed address', '300.1.2.3/40', 'IPv4')
        if name.endswith('_url'):
            add('malformed url', 'not a url', 'http')
    return cases


def _nested_range_cases(module, base, path, label, spec):
    """Below and above the range of each int inside a dict option (at any depth) whose description states one, such
    as source.postgres.port or scaling.replicas: checked before any request, like a top-level option's range."""
    cases = []
    for sub, sub_spec in sorted((spec.get('suboptions') or {}).items()):
        sub_path, sub_label = path + (sub,), '%s.%s' % (label, sub)
        nested = _with(base, path, dict(_get(base, path) or {}, **{sub: {}}))
        if sub_spec.get('type') == 'dict':
            cases.extend(_nested_range_cases(module, nested, sub_path, sub_label, sub_spec))
        elif sub_spec.get('type') == 'int':
            low, high, dummy = _ranges(text(sub_spec))
            for mistake, value, bound in (('below range', low, low), ('above range', high, high)):
                if bound is not None:
                    value = value - 1 if mistake == 'below range' else value + 1
                    cases.append(BadInput(module, sub_label, mistake, _with(nested, sub_path, value), [sub_label, str(bound)]))
    return cases


def _get(args, path):
    for part in path:
        args = (args or {}).get(part)
    return args


def base_element(spec):
    """A valid element of a list of dicts, from its required suboptions."""
    element = {}
    for sub, sub_spec in spec['suboptions'].items():
        if sub_spec.get('required'):
            element[sub] = (sub_spec.get('choices') or ['10.9.8.0/24' if sub == 'source' else SOURCE_METRICS])[0]
            if sub_spec.get('type') == 'bool':
                element[sub] = True
            if sub_spec.get('type') == 'int':
                element[sub] = 1
    return element


def bad_inputs(module):
    """Every bad value for every option of the module (its own, the API's shared ones, the common ones)."""
    options = dict(SHARED[module.api])
    options.update(COMMON)
    options.update(documentation(module.name)['options'])
    cases = []
    for name, spec in sorted(options.items()):
        base = dict(module.args)
        if spec.get('type') == 'list' and spec.get('elements') == 'dict' and name not in base:
            base[name] = [base_element(spec)]
        cases.extend(_option_cases(module, base, (name,), name, spec))
    return cases


def options_of(module):
    """Every option name of the module, with the shared ones, for the coverage table."""
    names = set(SHARED[module.api]) | set(COMMON) | set(documentation(module.name)['options'])
    return sorted(names)


# --- a create whose answer is lost ------------------------------------------------------------------
# A create (POST) whose answer is lost may have been applied; it is never sent twice: the module reads the
# collection by name within wait_timeout. Applied: exactly one resource of that name, adopted. Not applied:
# none, and the task fails saying the create was not sent again. (The slow create, applied after the
# client's timeout, is a case of each kind in LIFECYCLE_CASES.)
LOST_CREATE_FAULTS = ('502', '504', 'connection reset', '502 applied', '504 applied', 'connection reset applied')


class LostCreate:
    """One fault on the create of a resource (module.fqcn, args with a name), on collection (a path); objects: the
    key of the simulator's state that holds the resources of that kind."""

    def __init__(self, label, module_name, args, collection, fault, objects='pipes'):
        self.label, self.module, self.args, self.collection, self.fault = label, BY_NAME[module_name], args, collection, fault
        self.objects = objects
        self.key = re.sub(r'[^a-z0-9]+', '_', ('%s %s' % (label, fault.name)).lower()).strip('_')

    def spec(self):
        return dict(self.fault.spec, method='POST', path=re.escape(self.collection) + '$', count=1)

    def run_args(self):
        return dict(self.args, api_retries=RETRIES, api_timeout=TIMEOUT, wait_timeout=WINDOW)

    @property
    def named(self):
        """The resources of the name afterwards: the one the create made, or none (it was not applied)."""
        return 1 if self.fault.applied else 0

    def __repr__(self):
        return self.key


ALERT_CREATE = dict(name='reliability alert', dashboard=DASHBOARD_HEALTH, tile='CPU usage', threshold=90, threshold_type='above',
                    interval='5m', channels=[WEBHOOK_PAGER])
LOST_CREATES = ([LostCreate('pipe create', 'pipe', PIPE_CREATE, PIPES_PATH, FAULT_BY_NAME[name]) for name in LOST_CREATE_FAULTS]
                + [LostCreate('alert create', 'alert', ALERT_CREATE, '/api/v2/alerts', FAULT_BY_NAME[name], objects='alerts')
                   for name in LOST_CREATE_FAULTS])
