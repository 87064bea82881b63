"""The release policy (CONTRIBUTING.md, "Releasing"): scripts/check_release.py, which
`make release` runs first, refuses to fold fragments into a released version or into too small a bump;
the tree's galaxy.yml version is the one its pending fragments call for, and every module or plugin new
since the last release says so in version_added."""

import glob
import importlib.util
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'scripts', 'check_release.py')
spec = importlib.util.spec_from_file_location('check_release', SCRIPT)
check_release = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_release)


def load(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


@pytest.mark.parametrize('version, released, sections, new_plugins, refused', [
    ('0.1.0', {'0.1.0'}, {'bugfixes'}, False, 'has a released section'),
    ('0.0.9', {'0.1.0'}, {'bugfixes'}, False, 'not greater'),
    ('0.1.1', {'0.1.0'}, {'bugfixes', 'minor_changes'}, False, 'need a minor bump'),
    ('0.1.1', {'0.1.0'}, {'bugfixes'}, True, 'need a minor bump'),
    ('1.0.1', {'1.0.0'}, {'bugfixes', 'trivial', 'security_fixes', 'known_issues'}, False, None),
    ('1.1.0', {'1.0.0'}, {'breaking_changes'}, False, 'need a major bump'),
    ('2.0.0', {'1.0.0'}, {'removed_features'}, False, None),
    ('0.2.0', {'0.1.0'}, {'breaking_changes', 'minor_changes'}, False, None),
    ('0.2.0', {'0.1.0'}, set(), False, 'nothing to release'),
    ('0.1.0', set(), {'minor_changes'}, False, None),
])
def test_the_policy(version, released, sections, new_plugins, refused):
    found = check_release.problems(version, released, sections, new_plugins)
    if refused is None:
        assert found == []
    else:
        assert len(found) == 1 and refused in found[0], found


def test_the_tree_is_ready_for_its_release():
    """galaxy.yml's version is new and the bump the pending fragments need (make release would go ahead)."""
    run = subprocess.run([sys.executable, SCRIPT, '--root', ROOT], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=False)
    assert run.returncode == 0, run.stdout


def test_make_release_checks_before_it_folds():
    env = dict(os.environ, MAKEFLAGS='', MAKELEVEL='')
    recipe = subprocess.run(['make', '--no-print-directory', '-C', ROOT, '-n', '-W', 'changelog', 'release'], env=env,
                            stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    lines = recipe.splitlines()
    check = [i for i, line in enumerate(lines) if 'scripts/check_release.py' in line]
    fold = [i for i, line in enumerate(lines) if 'antsibull-changelog release' in line]
    assert check and fold and check[0] < fold[0], recipe


def test_modules_and_plugins_new_since_the_last_release_name_the_next_version():
    releases = load('changelogs', 'changelog.yaml')['releases']
    listed = set()
    for release in releases.values():
        listed.update(('modules', item['name']) for item in release.get('modules', []))
        for kind, items in (release.get('plugins') or {}).items():
            listed.update((kind, item['name']) for item in items)
    version = str(load('galaxy.yml')['version'])
    wrong = {}
    for path in glob.glob(os.path.join(ROOT, 'plugins', '*', '*.py')):
        kind = os.path.basename(os.path.dirname(path))
        if kind not in ('modules', 'inventory', 'lookup', 'filter', 'test', 'callback', 'connection'):
            continue
        name = os.path.basename(path)[:-3]
        with open(path) as handle:
            added = re.search(r'^version_added: *[\'"]?([\w.]+)', handle.read(), re.M).group(1)
        expected = added if (kind, name) in listed else version
        if added != expected:
            wrong['%s/%s' % (kind, name)] = added
    assert wrong == {}, 'new since the last release, so version_added: %s' % version
