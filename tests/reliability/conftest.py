# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""pytest wiring of the reliability suite: one Suite per session (its jobs start on first use and
run in parallel), and at the end the measured counts as JSON plus docs/reliability.md."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(os.path.dirname(HERE))]  # the suite's modules; the repository root (tests.simulator)

import render  # noqa: E402  pylint: disable=wrong-import-position
from harness import ROOT  # noqa: E402  pylint: disable=wrong-import-position
from suite import Suite  # noqa: E402  pylint: disable=wrong-import-position

_STATE = {}
SECTIONS = ('faults', 'bad_input', 'load', 'secrets', 'tls')


@pytest.fixture(scope='session')
def suite():
    if 'suite' not in _STATE:
        basedir = tempfile.mkdtemp(prefix='engine-cloud-reliability.')
        _STATE['basedir'] = basedir
        _STATE['suite'] = Suite(basedir)
        if os.environ.get('RELIABILITY_LAZY') != '1':  # RELIABILITY_LAZY=1: only the jobs the selected tests need
            _STATE['suite'].start_all()
    return _STATE['suite']


def pytest_sessionfinish(session, exitstatus):
    current = _STATE.get('suite')
    if current is None:
        return
    current.pool.shutdown(wait=True)
    counts = current.counts.data
    counts.setdefault('suite', {}).update(
        seconds=round(time.monotonic() - current.started), runs=len(current.ansible.runs), pytest_exit_status=int(exitstatus),
        tests_failed=session.testsfailed, tests_collected=session.testscollected)
    output = os.path.join(ROOT, 'tests', 'output', 'reliability')
    os.makedirs(output, exist_ok=True)
    with open(os.path.join(output, 'counts.json'), 'w') as handle:
        json.dump(counts, handle, indent=1, sort_keys=True)
    complete = all(section in counts for section in SECTIONS) and not session.config.option.keyword \
        and not session.config.option.markexpr
    if complete:
        with open(os.path.join(ROOT, 'docs', 'reliability.md'), 'w') as handle:
            handle.write(render.render(counts))
    if os.environ.get('RELIABILITY_KEEP') == '1':
        print('\nreliability: work directory kept: %s' % _STATE['basedir'])
    else:
        shutil.rmtree(_STATE['basedir'], ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    current = _STATE.get('suite')
    if current is None:
        return
    data = current.counts.data
    terminalreporter.section('reliability counts')
    for section in sorted(data):
        terminalreporter.write_line('%-10s %s' % (section, json.dumps(data[section], sort_keys=True)))
