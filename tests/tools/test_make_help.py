"""`make help` names every target a contributor can run: each .PHONY target and each stage of TEST_STAGES
has an entry (a line `  make NAME[, NAME...]  what it does`)."""

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENTRY = re.compile(r'^\s+make ((?:[\w.-]+, )*[\w.-]+)(?:\s{2,}|:|$)')


def make(*args):
    env = dict(os.environ, MAKEFLAGS='', MAKELEVEL='')
    return subprocess.run(['make', '--no-print-directory', '-C', ROOT] + list(args), env=env, check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True).stdout


def listed(help_text):
    names = set()
    for line in help_text.splitlines():
        match = ENTRY.match(line)
        if match:
            names.update(match.group(1).split(', '))
    return names


@pytest.fixture(scope='module')
def help_entries():
    return listed(make('-s', 'help'))


def phony_targets():
    database = make('-pn', 'help')
    return set(' '.join(re.findall(r'^\.PHONY: (.*)$', database, re.M)).split())


def test_every_phony_target_has_an_entry(help_entries):
    targets = phony_targets()
    assert 'help' in targets and 'galaxy-importer' in targets
    assert sorted(targets - help_entries) == []


def test_every_stage_of_make_test_has_an_entry(help_entries):
    stages = set(make('-s', '--eval', 'print-test-stages: ; @echo $(TEST_STAGES)', 'print-test-stages').split())
    assert 'sanity-2.21' in stages
    assert sorted(stages - help_entries) == []


def test_an_entry_names_its_targets_and_no_more():
    assert listed('  make docs-lint      antsibull-docs lint\n'
                  '  make units-2.16, units-2.21   the unit tests\n'
                  '  make reliability    faults; make load: load only\n'
                  '                      sanity lint units\n') == {'docs-lint', 'units-2.16', 'units-2.21', 'reliability'}
