# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Galaxy artifact on its own: built from a copy of this tree as `make build` builds it,
installed with ansible-galaxy into an empty directory. Its README names only paths that it ships,
and contributor files stay out (tests/unit/test_version_agrees.py checks its changelog and version,
tests/tools/test_packaging.py that a build at the root of a working clone packs no venv or build output)."""

import glob
import os
import subprocess
import sys

import pytest

import doc_paths
from conftest import ROOT, layout, read

GALAXY = os.path.join(os.path.dirname(sys.executable), 'ansible-galaxy')
CONTRIBUTOR_FILES = ('CONTRIBUTING.md', 'Makefile', 'scripts', 'bench', 'requirements-dev.txt', 'requirements-docs.txt',
                     'requirements-uv.txt', 'constraints.txt', 'constraints-2.16.txt', 'constraints-2.21.txt', '.ci')


def galaxy(*args, **extra_env):
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith('ANSIBLE_'))
    env.update(extra_env)
    run = subprocess.run([GALAXY] + list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=False)
    assert run.returncode == 0, run.stdout


@pytest.fixture(scope='module')
def installed(request, tmp_path_factory):
    """The collection root of the artifact, installed into an empty directory: the getting-started guide's make install
    builds it from a copy of this tree as `make build` does and installs it into the clone's empty .collections/ (built
    here the same way when that guide's test cannot run)."""
    try:
        clone = request.getfixturevalue('guide_install')
        return str(clone / '.collections' / 'ansible_collections' / 'engine' / 'cloud')
    except pytest.skip.Exception:
        pass
    work = tmp_path_factory.mktemp('artifact')
    source = work / 'src' / 'ansible_collections' / 'engine' / 'cloud'
    layout(source)
    galaxy('collection', 'build', str(source), '--output-path', str(work / 'dist'))
    tarball, = glob.glob(str(work / 'dist' / 'engine-cloud-*.tar.gz'))
    target = work / 'empty'
    target.mkdir()
    galaxy('collection', 'install', '--offline', '-p', str(target), tarball, ANSIBLE_COLLECTIONS_PATH=str(target))
    return str(target / 'ansible_collections' / 'engine' / 'cloud')


def test_every_path_the_shipped_readme_names_is_shipped(installed):
    assert doc_paths.missing_in_documents(ROOT, names=['README.md'], exists_root=installed) == {}


def test_contributor_files_stay_out(installed):
    assert [name for name in CONTRIBUTOR_FILES if os.path.lexists(os.path.join(installed, name))] == []
    assert os.path.exists(os.path.join(installed, 'requirements.txt')), 'execution-environment builds read it'


def test_the_licence_text_ships(installed):
    assert read(installed, 'COPYING') == read('COPYING')
