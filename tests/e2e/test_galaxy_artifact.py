# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Galaxy artifact on its own: built from a copy of this tree as `make build` builds it,
installed with ansible-galaxy into an empty directory. Its README names only paths that it ships,
and contributor files stay out (tests/unit/test_version_agrees.py checks its changelog and version). Built at the root
of a working clone, with the venvs and build output of the Makefile beside the collection, it packs
the collection's files only."""

import glob
import os
import subprocess
import sys
import tarfile
import venv

import pytest

import doc_paths
from conftest import ROOT, layout, read

GALAXY = os.path.join(os.path.dirname(sys.executable), 'ansible-galaxy')
CONTRIBUTOR_FILES = ('CONTRIBUTING.md', 'Makefile', 'scripts', 'bench', 'requirements-dev.txt', 'requirements-docs.txt',
                     'requirements-uv.txt', 'constraints.txt', 'constraints-2.16.txt', 'constraints-2.21.txt', '.ci')
# The venvs the Makefile makes at the clone's root: the default line's, the event loop's, the version matrix's.
MAKEFILE_VENVS = ('.venv', '.venv-eda', '.venv-2.16', '.venv-2.21')


def galaxy(*args, **kwargs):
    cwd = kwargs.pop('cwd', None)
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith('ANSIBLE_'))
    env.update(kwargs)
    run = subprocess.run([GALAXY] + list(args), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=False)
    assert run.returncode == 0, run.stdout
    return run.stdout


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


def example_paths(pattern):
    """Paths that a .gitignore pattern matches: at the root when it is anchored (a leading /), else at the root and
    below tests/unit; its * filled in; a directory (ending in /) or a file."""
    name = pattern.strip('/').replace('*', 'x')
    places = [name] if pattern.startswith('/') else [name, os.path.join('tests', 'unit', name)]
    return [place + '/' if pattern.endswith('/') else place for place in places]


def test_a_build_in_a_working_clone_packs_the_collection_only(tmp_path):
    """`ansible-galaxy collection build` at the root of a clone where the Makefile made its venvs (each a real venv, with
    the lib64 symlink of a 64-bit Linux venv), built and installed, and where every other path .gitignore names exists:
    the artifact holds the clone's own files and nothing else."""
    clone = layout(tmp_path / 'engine.cloud')
    tracked = set(os.path.relpath(os.path.join(folder, name), str(clone)) for folder, dirs, names in os.walk(str(clone))
                  if '.git' not in os.path.relpath(folder, str(clone)).split(os.sep) for name in names)
    made = [name + '/' for name in MAKEFILE_VENVS]
    for name in MAKEFILE_VENVS:
        venv.create(str(clone / name), with_pip=False, symlinks=True)
    assert os.path.islink(str(clone / '.venv-eda' / 'lib64')) or sys.platform == 'darwin'
    for path in (path for pattern in doc_paths.ignore_patterns(ROOT) for path in example_paths(pattern)):
        target = clone / path
        if os.path.lexists(str(target)):
            continue
        if path.endswith('/'):
            (target / 'lib').mkdir(parents=True)
            (target / 'lib' / 'output.py').write_text('# generated\n')
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text('generated\n')
        made.append(path)

    galaxy('collection', 'build', '--output-path', 'dist', cwd=str(clone))
    tarball, = glob.glob(str(clone / 'dist' / 'engine-cloud-*.tar.gz'))
    with tarfile.open(tarball) as archive:
        packed = set(member.name for member in archive.getmembers() if not member.isdir()) - {'MANIFEST.json', 'FILES.json'}
    generated = sorted(name for name in packed for path in made if (name + '/').startswith(path if path.endswith('/') else path + '/'))
    assert generated == [], generated
    assert sorted(packed - tracked) == []
    assert 'plugins/modules/service.py' in packed


def test_every_path_the_shipped_readme_names_is_shipped(installed):
    assert doc_paths.missing_in_documents(ROOT, names=['README.md'], exists_root=installed) == {}


def test_contributor_files_stay_out(installed):
    assert [name for name in CONTRIBUTOR_FILES if os.path.lexists(os.path.join(installed, name))] == []
    assert os.path.exists(os.path.join(installed, 'requirements.txt')), 'execution-environment builds read it'


def test_the_licence_text_ships(installed):
    assert read(installed, 'COPYING') == read('COPYING')
