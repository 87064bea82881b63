# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Render docs/reliability.md from the counts the reliability suite measured
(tests/output/reliability/counts.json): python tests/reliability/render.py COUNTS [OUT]."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import sys

HEAD = '''# Reliability and security

Measured by the reliability suite (`make reliability`, `tests/reliability/`), which drives real
`ansible-playbook` runs of the collection against private simulators it starts on 127.0.0.1, and
asserts from the simulator's request log and state. The bad inputs and the fault cases run without
ansible-playbook: one process per module (and, for faults, per read or write) calls the module's
`main()` for each of them, as its module process would (`tests/reliability/module_runner.py`),
against a simulator of its own, with the admin calls around each case; what they test is the
module's own code (its argument checks, its client's retries, its read after a lost answer), where
ansible-playbook would add only its cost. This file is written by the
suite itself from what it measured (`tests/output/reliability/counts.json`); do not edit it by hand.

'''

LOAD_NOTE = '''
## Load under the rate limit

Every module process on one controller that uses the same key against the same base address paces
its requests under the limit together (`plugins/module_utils/pacer.py`, option `api_rate_limit`),
so the load runs need no more than the default `api_retries`. The floor is the requests at the
limit's pace (10 requests / 10 s: 1 per second). The total time includes ansible's start-up before
the first request: every fork's module process starts on the controller's cores at once, which at
forks 50 on a 2-core machine takes seconds that pacing cannot shorten; in brackets, the time from
the first request to the last (the paced part). Not covered: several controllers, or several AWX
execution nodes, that use one key do not share a pacer; for them, retrying on HTTP 429
(`api_retries`) stays the safety net.
'''


LOST_ANSWERS = '''
## After a lost answer

A write whose answer is lost (no response within `api_timeout`, a connection reset, HTTP 502, 503 or
504 to a PATCH) may have been applied, so the client does not send it again. The module reads the
resource and sends only what still differs: nothing when the first attempt was applied (the task
still reports the change it made), the rest otherwise, at most `api_retries` times. IP access list,
private endpoint and tag edits are computed anew from that read, so a purge whose answer was lost is
not repeated into a `400`. A start, stop or awake is sent again only when the read shows that it did
not take effect (it was not applied); a resync is never sent twice in one task: after a lost answer
the module looks for the resync in the pipe's state and `updatedAt`, and fails without sending it
again when it sees none within `wait_timeout`. GETs, the settings PUT (idempotent), the chart query
and HTTP 429 (refused before anything was applied) are retried as before. The fault cases check this
from the request log: a read right after every lost answer, one write where the first was applied,
one resync, and the resource's state of one write.

A create (POST) is never sent twice: the client sends it again only when it never reached the API
(connection refused) or the API answered 429. After a lost answer, or a create that runs on the server
longer than `api_timeout`, the collection is read by name within `wait_timeout`: the resource that
shows is taken as the one created (a second POST would make a second service, or a second pipe with its
own consumer group); when none shows, the task fails saying that the create was not sent again. A
delete (DELETE) whose answer is lost is confirmed by a read before it is sent again; a DELETE answered
404 means the resource is gone, also while reads still show it. The lifecycle cases check, for each
kind of resource with a lifecycle, that a slow create sends one POST and leaves one resource (or none
and that failure), and that absent stays idempotent while reads linger after a delete.
'''


def _kind_rows(lifecycle):
    """Per kind of resource: its slow creates and lingering deletes, tried and passed (counts 'kind:<kind> <topic>')."""
    tried = dict((key[len('kind:'):], value) for key, value in lifecycle.items() if key.startswith('kind:') and not key.endswith(' passed'))
    kinds = sorted(set(key.split(' ', 1)[0] for key in tried))
    lines = ['| kind | slow creates: one POST, one resource (or none and a failure that says so) | lingering deletes: absent stays idempotent |',
             '|---|---|---|']
    for kind in kinds:
        cells = ['%s of %s passed' % (lifecycle.get('kind:%s %s passed' % (kind, topic), 0), tried.get('%s %s' % (kind, topic), 0))
                 for topic in ('slow create', 'lingering delete')]
        lines.append('| %s | %s |' % (kind, ' | '.join(cells)))
    return '\n'.join(lines) + '\n' if kinds else ''


def _get(counts, section, key, default=0):
    return counts.get(section, {}).get(key, default)


def _rows(rows):
    lines = ['| what | measured |', '|---|---|']
    lines.extend('| %s | %s |' % (label, value) for label, value in rows)
    return '\n'.join(lines) + '\n'


def _load_rows(load):
    """Per load run: tasks, services, requests and 429s, and the time against the floor (the
    requests at the limit's pace: 10 requests / 10 s is 1 per second)."""
    rows = []
    for forks in sorted(int(key.split()[1]) for key in load if key.startswith('forks ')):
        run = load['forks %d' % forks]
        rows += [
            ('load, forks %d: tasks ok / failed' % forks, '%s / %s' % (run['tasks_ok'], run['tasks_failed'])),
            ('load, forks %d: services in the desired state' % forks, run['services_in_desired_state']),
            ('load, forks %d: API requests / HTTP 429 answers' % forks, '%s / %s' % (run['requests'], run['answered_429'])),
            ('load, forks %d: total time / floor (first request to last)' % forks,
             '%s s / %s s = %.2fx (%s s)' % (run['seconds'], run['floor_seconds'], run['against_floor'], run['first_to_last_request_seconds'])),
        ]
    return rows


def render(counts):
    faults, bad, load, secrets, tls, suite = (counts.get(name, {}) for name in ('faults', 'bad_input', 'load', 'secrets', 'tls', 'suite'))
    lifecycle = counts.get('lifecycle', {})
    out = [HEAD, '## Summary\n\n']
    out.append(_rows([
        ('faults tried (module x fault x read/write x within/beyond api_retries)', '%s (%s passed)' % (faults.get('tried', 0), faults.get('passed', 0))),
        ('modules under faults', faults.get('modules', 0)),
        ('API requests the fault cases made', faults.get('requests', 0)),
        ('faulted writes whose state equals one write (or none, where the task failed)',
         '%s of %s' % (faults.get('idempotent_writes', 0), faults.get('retried_writes', 0))),
        ("writes whose answer was lost (a PATCH, or an alert's or a dashboard's PUT: 502, 503, 504, reset, timeout), "
         'read again before anything else was sent',
         '%s of %s' % (faults.get('lost_answers_read_again', 0), faults.get('lost_answers', 0))),
        ('... of them applied before the answer was lost, and not sent again',
         '%s of %s' % (faults.get('lost_applied_one_write', 0), faults.get('lost_applied', 0))),
        ('... of them not applied, and sent again after the read', faults.get('lost_resent_after_a_read', 0)),
        ('lifecycle cases (a lost or slow create, a lost delete, reads that linger, a delete while stopping or deleting)',
         '%s (%s passed)' % (lifecycle.get('tried', 0), lifecycle.get('passed', 0))),
        ('... lost create or delete answers, read again before anything else was sent',
         '%s of %s' % (lifecycle.get('lost_answers_read_again', 0), lifecycle.get('lost_answers', 0))),
        ('bad inputs tried', '%s (%s passed)' % (bad.get('tried', 0), bad.get('passed', 0))),
        ('options with bad-input cases (the others take any string: credentials, key ids, exact-match filters)',
         '%s of %s' % (bad.get('options_covered', 0), bad.get('options', 0))),
        ('requests sent by bad inputs', sum(value for key, value in bad.items() if key.startswith('requests_sent:'))),
        ('hosts under load (one API key, api_retries %s, rate limit %s, requests paced by the modules)'
         % tuple(load.get(key, '-') for key in ('api_retries', 'rate_limit')), load.get('hosts', 0)),
    ] + _load_rows(load) + [
        ('TLS cases', '%s (%s passed)' % (tls.get('tried', 0), tls.get('passed', 0))),
        ('outputs scanned for secrets (runs / channels / bytes)',
         '%s / %s / %s' % (secrets.get('runs', 0), secrets.get('channels', 0), secrets.get('bytes', 0))),
        ('secret values looked for', secrets.get('values', 0)),
        ('**secrets found** (must be 0)', '**%s**' % secrets.get('found', 0)),
        ('planted secret found by the scan', 'yes' if secrets.get('planted_found') else 'no'),
        ('suite: tests / failed / time', '%s / %s / %s s' % (suite.get('tests_collected', 0), suite.get('tests_failed', 0), suite.get('seconds', 0))),
    ]))
    out.append(LOST_ANSWERS)
    kind_rows = _kind_rows(lifecycle)
    if kind_rows:
        out.append('\n## The lifecycle of each kind of resource\n\n' + kind_rows)
    if load:
        out.append(LOAD_NOTE)
    kinds = sorted(key[len('kind:'):] for key in faults if key.startswith('kind:'))
    if kinds:
        out.append('\n## Faults by kind\n\n| fault | cases | passed |\n|---|---|---|\n')
        out.extend('| %s | %s | %s |\n' % (kind, faults['kind:' + kind], faults.get('kind_passed:' + kind, 0)) for kind in kinds)
    mistakes = sorted(key[len('kind:'):] for key in bad if key.startswith('kind:'))
    if mistakes:
        out.append('\n## Bad inputs by mistake\n\n| mistake | cases | passed |\n|---|---|---|\n')
        out.extend('| %s | %s | %s |\n' % (kind, bad['kind:' + kind], bad.get('kind_passed:' + kind, 0)) for kind in mistakes)
    modules = sorted(key[len('module:'):] for key in bad if key.startswith('module:'))
    if modules:
        out.append('\n## Per module\n\n| module | fault cases | bad inputs |\n|---|---|---|\n')
        out.extend('| %s | %s | %s |\n' % (name, faults.get('module:' + name, 0), bad['module:' + name]) for name in modules)
    notes = counts.get('notes', {})
    if notes:
        out.append('\n## Known limitations (xfail in the suite)\n\n')
        out.extend('- %s\n' % text for dummy, text in sorted(notes.items()))
    out.append('\nRegenerate: `make reliability` (the suite rewrites this file after a complete run).\n')
    return ''.join(out)


def main(argv):
    with open(argv[1]) as handle:
        text = render(json.load(handle))
    if len(argv) > 2:
        with open(argv[2], 'w') as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
