"""Refuse a release that breaks the versioning policy (CONTRIBUTING.md, "What ships, and releasing").

    python scripts/check_release.py [--root DIR]

`make release` runs it before antsibull-changelog folds the fragments. galaxy.yml's version must be
new (no section of that version in changelogs/changelog.yaml: a released version is never folded into
again) and at least the bump that the pending fragments call for, by semantic versioning:

- major: breaking_changes or removed_features (before 1.0.0, a minor bump is enough);
- minor: major_changes, minor_changes, deprecated_features, or a module or plugin whose version_added is
  the new version;
- patch: bugfixes, security_fixes, known_issues and trivial only.

Exit status 0 and one line saying what is released, or 1 and the reason.
"""

import argparse
import glob
import os
import re
import sys

import yaml

MAJOR_SECTIONS = {'breaking_changes', 'removed_features'}
MINOR_SECTIONS = {'major_changes', 'minor_changes', 'deprecated_features'}
BUMPS = ('patch', 'minor', 'major')


def parse(version):
    match = re.match(r'^(\d+)\.(\d+)\.(\d+)$', str(version))
    if not match:
        raise ValueError('%r is not a MAJOR.MINOR.PATCH version' % (version,))
    return tuple(int(part) for part in match.groups())


def required_bump(sections, latest):
    """The least bump ('patch', 'minor' or 'major') that fragments with these sections need after latest."""
    if sections & MAJOR_SECTIONS:
        return 'major' if latest >= (1, 0, 0) else 'minor'
    if sections & MINOR_SECTIONS:
        return 'minor'
    return 'patch'


def bump_of(latest, version):
    """Which part version bumps over latest, or None when it is not greater."""
    if version <= latest:
        return None
    if version[0] != latest[0]:
        return 'major'
    return 'minor' if version[1] != latest[1] else 'patch'


def problems(version, released, sections, new_plugins=False):
    """What is wrong with releasing version (a string) after the released versions, for fragments with
    these sections (a set); new_plugins: a module or plugin is new in it. An empty list when nothing is."""
    if version in released:
        return ['%s has a released section in changelogs/changelog.yaml already: bump galaxy.yml\'s version '
                'instead of folding more fragments into it (CONTRIBUTING.md, "What ships, and releasing")' % version]
    if not sections and not new_plugins:
        return ['no fragment in changelogs/fragments/ and no module or plugin new in %s: nothing to release' % version]
    if not released:
        return []
    latest = max(parse(v) for v in released)
    bump = bump_of(latest, parse(version))
    if bump is None:
        return ['%s is not greater than the last release, %s' % (version, '.'.join(map(str, latest)))]
    need = 'minor' if new_plugins and required_bump(sections, latest) == 'patch' else required_bump(sections, latest)
    if BUMPS.index(bump) < BUMPS.index(need):
        return ['%s is a %s bump over %s, but the pending fragments (%s) need a %s bump'
                % (version, bump, '.'.join(map(str, latest)), ', '.join(sorted(sections)) or 'none', need)]
    return []


def pending_sections(root):
    sections = set()
    for path in sorted(glob.glob(os.path.join(root, 'changelogs', 'fragments', '*.y*ml'))):
        with open(path) as handle:
            sections.update((yaml.safe_load(handle) or {}).keys())
    return sections


def new_plugin_files(root, version):
    pattern = re.compile(r'^version_added: *[\'"]?%s[\'"]?$' % re.escape(version), re.M)
    found = []
    for path in sorted(glob.glob(os.path.join(root, 'plugins', '*', '*.py'))):
        with open(path) as handle:
            if pattern.search(handle.read()):
                found.append(os.path.relpath(path, root))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    with open(os.path.join(args.root, 'galaxy.yml')) as handle:
        version = str(yaml.safe_load(handle)['version'])
    with open(os.path.join(args.root, 'changelogs', 'changelog.yaml')) as handle:
        released = set(str(v) for v in (yaml.safe_load(handle).get('releases') or {}))
    sections = pending_sections(args.root)
    found = problems(version, released, sections, bool(new_plugin_files(args.root, version)))
    if found:
        for problem in found:
            print('release: refused: %s' % problem, file=sys.stderr)
        return 1
    print('release: %s, from the fragments of changelogs/fragments/ (%s)' % (version, ', '.join(sorted(sections))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
