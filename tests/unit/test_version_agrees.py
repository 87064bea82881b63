# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One version everywhere: the collection's (galaxy.yml in a clone, MANIFEST.json in an installed artifact), its
changelog, the execution environment's image and Galaxy requirement, and every version the documents print.

Between two releases the fragments in changelogs/fragments/ wait for the version of galaxy.yml, which no release
holds yet; `antsibull-changelog release` (make release) folds them into it and removes them."""

import glob
import json
import os
import re

import yaml

from ansible_collections.engine.cloud.tests.unit.conftest import ROOT, read

DOCUMENTS = ('README.md', 'docs/**/*.rst', 'docs/**/*.md', 'meta/*.yml')
# Where a document names the collection's version: an image tag, an artifact, a Galaxy requirement.
PRINTED_VERSION = re.compile(r'engine-cloud-ee:(\d+(?:\.\d+)*)|engine-cloud-(\d+(?:\.\d+)*)\.tar\.gz|version: "(?:>=)?(\d+(?:\.\d+)*)"')


def version():
    if os.path.exists(os.path.join(ROOT, 'galaxy.yml')):
        return str(yaml.safe_load(read('galaxy.yml'))['version'])
    return json.loads(read('MANIFEST.json'))['collection_info']['version']


def numbers(text):
    return tuple(int(part) for part in text.split('.'))


def test_the_changelog_ends_at_the_last_release_and_the_version_is_the_next_one_or_it():
    releases = sorted((yaml.safe_load(read('changelogs/changelog.yaml'))['releases'] or {}), key=numbers)
    sections = re.findall(r'^v(\d[\w.-]*)\n=+\n', read('CHANGELOG.rst'), re.M)
    assert sections == releases[::-1], 'CHANGELOG.rst is not changelogs/changelog.yaml: run antsibull-changelog generate'
    pending = glob.glob(os.path.join(ROOT, 'changelogs', 'fragments', '*.y*ml'))
    if pending:
        assert version() not in releases, '%s is released, yet fragments wait: bump galaxy.yml for them' % version()
        assert not releases or numbers(version()) > numbers(releases[-1]), (version(), releases[-1])
    else:
        assert releases and releases[-1] == version(), 'no fragment waits and %s is not released: make release' % version()


def test_the_execution_environment_builds_the_image_of_this_version():
    definition = yaml.safe_load(read('meta/execution-environment.yml'))
    assert definition['options']['tags'] == ['engine-cloud-ee:%s' % version()]
    assert definition['dependencies']['galaxy']['collections'] == [{'name': 'engine.cloud', 'version': version()}]


def test_every_version_the_documents_print_is_this_one():
    printed = {}
    for pattern in DOCUMENTS:
        for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            for match in PRINTED_VERSION.finditer(read(path)):
                printed.setdefault(next(group for group in match.groups() if group), set()).add(os.path.relpath(path, ROOT))
    assert set(printed) == {version()}, printed
