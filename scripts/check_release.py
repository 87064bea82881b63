"""Refuse a release that breaks the versioning policy (CONTRIBUTING.md, "Releasing"); `make release` runs it first.

galaxy.yml's version must have no released section in changelogs/changelog.yaml yet, and be at least the bump
the pending fragments call for: major for breaking_changes or removed_features (minor before 1.0.0); minor for
major_changes, minor_changes, deprecated_features or a plugin whose version_added is the new version; else patch.
"""

import argparse
import glob
import os
import re
import sys

import yaml

BUMPS = ('patch', 'minor', 'major')
MAJOR, MINOR = {'breaking_changes', 'removed_features'}, {'major_changes', 'minor_changes', 'deprecated_features'}


def parse(version):
    return tuple(int(part) for part in re.fullmatch(r'(\d+)\.(\d+)\.(\d+)', str(version)).groups())


def problems(version, released, sections, new_plugins=False):
    """What is wrong with releasing version after the released versions, for fragments of these sections."""
    if version in released:
        return ['%s has a released section in changelogs/changelog.yaml already: bump galaxy.yml\'s version' % version]
    if not sections and not new_plugins:
        return ['no fragment in changelogs/fragments/ and no plugin new in %s: nothing to release' % version]
    if not released:
        return []
    latest, new = max(parse(v) for v in released), parse(version)
    if new <= latest:
        return ['%s is not greater than the last release, %s' % (version, '.'.join(map(str, latest)))]
    bump = 'major' if new[0] != latest[0] else 'minor' if new[1] != latest[1] else 'patch'
    need = 'major' if sections & MAJOR else 'minor' if sections & MINOR or new_plugins else 'patch'
    if need == 'major' and latest < (1, 0, 0):
        need = 'minor'
    if BUMPS.index(bump) < BUMPS.index(need):
        return ['%s is a %s bump over %s, but the pending fragments (%s) need a %s bump'
                % (version, bump, '.'.join(map(str, latest)), ', '.join(sorted(sections)) or 'none', need)]
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = parser.parse_args().root

    def read(*path):
        with open(os.path.join(root, *path), encoding='utf-8') as handle:
            return handle.read()

    def load(*path):
        return yaml.safe_load(read(*path)) or {}

    version = str(load('galaxy.yml')['version'])
    released = set(str(v) for v in load('changelogs', 'changelog.yaml').get('releases') or {})
    sections = set()
    for path in glob.glob(os.path.join(root, 'changelogs', 'fragments', '*.y*ml')):
        sections.update(load(path))
    added = re.compile(r'^version_added: *[\'"]?%s[\'"]?$' % re.escape(version), re.M)
    new_plugins = any(added.search(read(path)) for path in glob.glob(os.path.join(root, 'plugins', '*', '*.py')))
    found = problems(version, released, sections, new_plugins)
    for problem in found:
        print('release: refused: %s' % problem, file=sys.stderr)
    if not found:
        print('release: %s, from the fragments of changelogs/fragments/ (%s)' % (version, ', '.join(sorted(sections))))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
