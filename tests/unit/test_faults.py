# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Faults on every module's read and every write (tests/simulator/catalog.py, plus a purge, a start and a resync),
within and beyond api_retries, asserted from the simulator's request log and state:

- a retryable fault ends in success after exactly count + 1 attempts, waiting what the server asked for (Retry-After;
  the other headers a 429 may name its wait in: test_http.py); beyond api_retries the task fails naming the status
  and the attempts; a fault that is not retried fails at once;
- a write whose answer is lost (a timeout, a reset, 502, 503 or 504 to a PATCH or to a PUT the module does not
  replay) is followed by a read; only what still differs is sent again, nothing when it was applied, never a
  second resync; the resource ends in the state of one write (or of none, where the task failed);
- a create whose answer is lost, or that the server finishes after api_timeout, is never sent again (every kind with a
  lifecycle): the collection is read by name and the one found adopted, or the task fails saying so; a lost delete is
  confirmed by a read."""

import re

import pytest

from ansible_collections.engine.cloud.tests.simulator import catalog
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    ALERTS, DASHBOARD_HEALTH, DASHBOARD_STAGING_A, ORGANIZATION, PIPE_POSTGRES, PIPE_STREAM, SERVICE_DEV, SERVICE_PROD,
    WEBHOOK_PAGER, pipe_path, service_path)
from ansible_collections.engine.cloud.tests.unit.conftest import module_of, seconds

RETRIES, BEYOND = 2, 1      # api_retries within (two faults, then success) and beyond (two faults, then failure)
TIMEOUT, DELAY = 2, 3       # api_timeout of every case; a delay fault answers after DELAY
WAIT = '20'                 # what a 429 asks to wait: longer than any backoff before the third attempt
LOST = 'The answer to this write was lost'
VOLATILE = ('updatedAt', '_pending')


class Fault:
    def __init__(self, name, spec, retryable, expect, wait=None, lost=False):
        self.name, self.spec, self.retryable, self.expect, self.wait = name, spec, retryable, expect, wait
        self.lost, self.applied = lost, bool(spec.get('apply'))


FAULTS = dict((fault.name, fault) for fault in [
    Fault('429 Retry-After', dict(kind='status', status=429, headers={'Retry-After': WAIT}), True, ['HTTP 429'], int(WAIT)),
    Fault('500', dict(kind='status', status=500), False, ['HTTP 500']),
    Fault('502', dict(kind='status', status=502), True, ['HTTP 502'], lost=True),
    Fault('503', dict(kind='status', status=503), True, ['HTTP 503'], lost=True),
    Fault('504', dict(kind='status', status=504), True, ['HTTP 504'], lost=True),
    Fault('reset', dict(kind='reset'), True, ['connection', 'failed'], lost=True),
    Fault('slower than api_timeout', dict(kind='delay', delay=DELAY), True, ['no response within api_timeout'], lost=True),
    Fault('malformed JSON', dict(kind='malformed_json'), False, ['not valid JSON']),
    Fault('502 applied', dict(kind='status', status=502, apply=True), True, ['HTTP 502'], lost=True),
    Fault('504 applied', dict(kind='status', status=504, apply=True), True, ['HTTP 504'], lost=True),
    Fault('reset applied', dict(kind='reset', apply=True), True, ['connection', 'failed'], lost=True),
])
READ_FAULTS = [name for name, fault in FAULTS.items() if not fault.applied]
WRITE_FAULTS = ['429 Retry-After', '500', '502', '503', '504', 'reset', 'slower than api_timeout', 'malformed JSON',
                '502 applied', '504 applied', 'reset applied']
# Writes whose repetition after a lost answer would fail or harm: a purge (its entries are gone: 400), a start
# (refused once it took effect: 409), a resync (a second one runs). Only the faults that lose an answer.
VARIANT_FAULTS = ['504', '504 applied', 'reset applied']


def variant(label, name, args, read, write, resource):
    module = catalog.Module(name, 'cloud', args, read, write, resource)
    module.label = label
    return module


VARIANTS = [
    variant('service purge', 'service', dict(service_id=SERVICE_PROD, ip_access_list=[dict(source='203.0.113.0/24')],
                                             purge_ip_access_list=True, private_endpoint_ids=[], purge_private_endpoint_ids=True),
            ('GET', service_path()), ('PATCH', service_path()), ('services', SERVICE_PROD)),
    variant('service_state start', 'service_state', dict(service_id=SERVICE_DEV, state='started'), ('GET', service_path(SERVICE_DEV)),
            ('PATCH', service_path(SERVICE_DEV, '/state')), ('services', SERVICE_DEV)),
    variant('pipe_state resync', 'pipe_state', dict(service_id=SERVICE_PROD, pipe_id=PIPE_POSTGRES, state='resynced', wait_timeout=4),
            ('GET', pipe_path(PIPE_POSTGRES)), ('PATCH', pipe_path(PIPE_POSTGRES, '/state')), ('pipes', PIPE_POSTGRES)),
]


def replayed(module):
    """Whether the client sends the module's write again after a lost answer: only the settings PUT, which is
    idempotent; not a PATCH, nor the PUT of a dashboard or an alert (the module reads and sends what still differs)."""
    return module.write[0] == 'PUT' and module.name not in ('alert', 'dashboard')


class FaultCase:
    """A fault on a module's read or write, armed count times: within api_retries, beyond them, or once (not retried,
    applied, a resync, or a write slower than api_timeout whose second attempt depends on timing). The client's own wait
    for a 429 with pacing off: test_http.py and test_module.py (the wait warning)."""

    def __init__(self, module, fault, target, mode):
        self.module, self.fault, self.target, self.mode = module, fault, target, mode
        self.method, path = module.read if target == 'read' else module.write
        self.path = re.escape(path) + '$'
        self.count = {'within': RETRIES, 'beyond': BEYOND + 1, 'once': 1}[mode]
        self.args = dict(module.args, api_retries=BEYOND if mode == 'beyond' else RETRIES, api_timeout=TIMEOUT)
        self.resync = module.args.get('state') == 'resynced'
        self.read_again = target == 'write' and fault.lost and not replayed(module)
        if self.read_again and self.resync:
            self.succeeds = fault.applied
        else:
            self.succeeds = mode == 'within' or (mode == 'once' and fault.retryable)
        if self.read_again and (fault.applied or self.resync):
            self.attempts = 1
        elif self.read_again and fault.spec['kind'] == 'delay':
            self.attempts = None  # its second attempt depends on whether the first was applied in time
        else:
            self.attempts = self.count + 1 if self.succeeds else self.count

    def __repr__(self):
        return re.sub(r'[^a-z0-9]+', '_', '%s %s %s %s' % (getattr(self.module, 'label', self.module.name), self.target,
                                                           self.fault.name, self.mode)).strip('_')


def modes(module, fault, target):
    """Reads: within and beyond api_retries. Writes: within (503 beyond too); once where nothing is retried, where the
    write is applied (the read after it must prevent a second one), on a resync, and where a write the client does not
    replay is slower than api_timeout."""
    if not fault.retryable or fault.applied or (target == 'write' and module.args.get('state') == 'resynced'):
        return ['once']
    if target == 'read' or fault.name == '503':
        return ['within', 'beyond']
    if fault.spec['kind'] == 'delay' and not replayed(module):
        return ['once']
    return ['within']


def fault_cases():
    targets = [(module, 'read', READ_FAULTS) for module in catalog.MODULES]
    targets += [(module, 'write', WRITE_FAULTS) for module in catalog.WRITERS] + [(module, 'write', VARIANT_FAULTS) for module in VARIANTS]
    return [FaultCase(module, FAULTS[name], target, mode) for module, target, names in targets for name in names
            for mode in modes(module, FAULTS[name], target)]


def resource(sim, kind, object_id):
    return dict((key, value) for key, value in sim.find(kind, object_id).items() if key not in VOLATILE)


@pytest.mark.parametrize('case', fault_cases(), ids=repr)
def test_fault(run, sim, case):
    module = module_of(case.module.name)
    initial = case.target == 'write' and resource(sim, *case.module.resource)
    sim.faults(dict(case.fault.spec, method=case.method, path=case.path, count=case.count))
    result = run.main(module, case.args, check=False, diff=True)
    log = sim.requests()
    writes = [entry for entry in log if entry['method'] in ('PATCH', 'PUT')]
    # A read case counts the reads before the first write (a state module's polls read the same path later).
    before = log[:log.index(writes[0])] if case.target == 'read' and writes else log
    hits = [entry for entry in before if entry['method'] == case.method and re.search(case.path, entry['path'])]
    faulted = [entry for entry in hits if entry['fault']]
    context = '%s\n%s' % (result.get('msg'), [(e['method'], e['path'][-40:], e['status'], e['fault']) for e in log])
    assert len(faulted) == case.count and hits[:case.count] == faulted, context
    if case.attempts is None:
        assert 1 <= len(hits) <= 2, 'a late write is sent again at most once\n' + context
    else:
        assert len(hits) == case.attempts, context
    if case.succeeds:
        assert not result.get('failed'), context
        if case.fault.wait and not case.read_again:
            gaps = [seconds(later) - seconds(earlier) for earlier, later in zip(hits, hits[1:])]
            assert min(gaps) >= case.fault.wait, 'the wait the server asked for\n' + context
        if case.module.write:
            assert result['changed'] is True
            assert case.target == 'write' or len(writes) == 1, context
        if case.target == 'write' and not case.read_again:
            assert len(writes) == case.attempts and all(entry['body'] == writes[0]['body'] for entry in writes), context
    else:
        assert result.get('failed') and 'Traceback' not in str(result), context
        assert all(word in result['msg'] for word in case.fault.expect), context
        if not case.read_again and case.attempts > 1:
            assert 'after %d attempts' % case.attempts in result['msg'] and result['attempts'] == case.attempts, context
        elif not case.read_again:
            assert 'attempts' not in result['msg'], 'a fault that is not retried fails at once: ' + context
        assert case.target == 'write' or not writes, 'nothing is written after a failed read'
    if case.read_again:
        for write in writes[:-1] + [write for write in writes[-1:] if write['fault']]:
            following = log[log.index(write) + 1:]
            assert following and (following[0]['method'], following[0]['path']) == case.module.read, 'a read after a lost answer\n' + context
        assert not case.fault.applied or len(writes) == 1, 'applied: nothing may be sent again\n' + context
        if not case.succeeds:
            assert LOST in result['msg'] and ('was not sent again' if case.resync else 'allows no further attempt') in result['msg']
    if case.target == 'write':
        after = resource(sim, *case.module.resource)
        sim.reset()
        clean = run.main(module, case.module.args, check=False, diff=True)
        assert clean['changed'] and not clean.get('failed')
        assert after == (resource(sim, *case.module.resource) if case.succeeds else initial), 'the state of one write, or of none'


# A create whose answer is lost, and a delete, for every kind with a lifecycle ------------------------------------------------

SERVICES = '/v1/organizations/%s/services' % ORGANIZATION
PIPES = service_path(SERVICE_PROD, '/pipes')
NEW_PIPE = dict(service_id=SERVICE_PROD, name='faults-new',
                source=dict(stream=dict(format='JSONEachRow', stream_name='faults', region='eu-central-1', authentication='IAM_ROLE',
                                        iam_role='arn:aws:iam::123456789012:role/x')),
                destination=dict(database='analytics', table='faults', managed_table=True, columns=[dict(name='id', type='UInt64')]))
NOTES = dict(name='Notes', x=0, y=0, w=6, h=2, config=dict(displayType='markdown', markdown='m'))
NEW_ALERT = dict(name='faults new', dashboard=DASHBOARD_HEALTH, tile='CPU usage', threshold=90, threshold_type='above', interval='5m',
                 channels=[WEBHOOK_PAGER])
# Per kind: a create and its collection, the state's key, a delete and the path it sends.
KINDS = {
    'service': dict(create=dict(name='faults new', provider='aws', region='eu-central-1'), collection=SERVICES, key='services',
                    delete=dict(service_id=SERVICE_DEV, state='absent'), path=service_path(SERVICE_DEV)),
    'pipe': dict(create=NEW_PIPE, collection=PIPES, key='pipes', delete=dict(service_id=SERVICE_PROD, pipe_id=PIPE_STREAM, state='absent'),
                 path=pipe_path(PIPE_STREAM)),
    'dashboard': dict(create=dict(name='faults new', tiles=[NOTES]), collection='/api/v2/dashboards', key='dashboards',
                      delete=dict(dashboard_id=DASHBOARD_STAGING_A, state='absent', allow_alert_deletion=True),
                      path='/api/v2/dashboards/' + DASHBOARD_STAGING_A),
    'alert': dict(create=NEW_ALERT, collection='/api/v2/alerts', key='alerts', delete=dict(alert_id=ALERTS[0], state='absent'),
                  path='/api/v2/alerts/' + ALERTS[0]),
}
LOST_ANSWERS = ['502', '504', 'reset', '502 applied', '504 applied', 'reset applied']


@pytest.mark.parametrize('fault', LOST_ANSWERS)
@pytest.mark.parametrize('kind', sorted(KINDS))
def test_a_lost_create_answer_is_never_sent_again(run, sim, kind, fault):
    """Applied: the one of that name is adopted. Not applied: none shows within wait_timeout, and the task says so."""
    spec = KINDS[kind]
    sim.faults(dict(FAULTS[fault].spec, method='POST', path=re.escape(spec['collection']) + '$', count=1))
    args = dict(spec['create'], wait=False, wait_timeout=2, api_retries=RETRIES, api_timeout=TIMEOUT)
    result = run.main(module_of(kind), args, check=False, diff=False)
    log = sim.requests()
    posts = [index for index, entry in enumerate(log) if entry['method'] == 'POST']
    assert len(posts) == 1 and log[posts[0] + 1]['method'] == 'GET' and log[posts[0] + 1]['path'] == spec['collection'], log
    assert len(sim.named(spec['key'], spec['create']['name'])) == int(FAULTS[fault].applied)
    if FAULTS[fault].applied:
        assert result['changed'] is True and not result.get('failed'), result.get('msg')
    else:
        assert result.get('failed') and 'the create was not sent again' in result['msg'], result


@pytest.mark.parametrize('fault, deletes', [('504 applied', 1), ('reset applied', 1), ('502', 2)])
@pytest.mark.parametrize('kind', sorted(KINDS))
def test_a_lost_delete_answer_is_confirmed_by_a_read(run, sim, kind, fault, deletes):
    spec = KINDS[kind]
    sim.config(deleted_reads='gone')
    sim.faults(dict(FAULTS[fault].spec, method='DELETE', count=1))
    result = run.main(module_of(kind), dict(spec['delete'], api_retries=RETRIES, api_timeout=TIMEOUT), check=False, diff=False)
    log = sim.requests()
    sent = [entry for entry in log if entry['method'] == 'DELETE']
    assert [entry['path'] for entry in sent] == [spec['path']] * deletes, log
    assert log[log.index(sent[0]) + 1]['method'] == 'GET', 'a read right after the lost answer'
    assert result['changed'] is True and not result.get('failed'), result.get('msg')
    assert all(item['id'] != spec['path'].rsplit('/', 1)[1] or item.get('state') in ('terminated', 'softdeleted')
               for item in sim.state()[spec['key']])


@pytest.mark.parametrize('answer, seconds, wait_timeout', [('late', 4, 30), ('dropped', 4, 30), ('late', 60, 2)],
                         ids=['answered late', 'answer dropped', 'beyond wait_timeout'])
@pytest.mark.parametrize('kind', ['service', 'pipe'])
def test_a_create_slower_than_api_timeout_is_sent_once(run, sim, kind, answer, seconds, wait_timeout):
    """The server makes it after the client gave up: adopted once reads by name show it, or, when none shows within
    wait_timeout, the task fails saying the create was not sent again and what the next run does."""
    spec = KINDS[kind]
    sim.config(slow_create=seconds, slow_create_answer=answer)
    result = run.main(module_of(kind), dict(spec['create'], wait=False, wait_timeout=wait_timeout, api_retries=8, api_timeout=TIMEOUT),
                      check=False, diff=False)
    assert [entry['method'] for entry in sim.requests()].count('POST') == 1
    assert len(sim.named(spec['key'], spec['create']['name'])) == int(seconds < wait_timeout)
    if seconds < wait_timeout:
        assert result['changed'] is True and not result.get('failed'), result.get('msg')
    else:
        expected = ('no response within api_timeout', 'the create was not sent again', 'the next run reads by name first')
        assert all(words in result['msg'] for words in expected), result
