"""What a packager needs from the tree (issue 38): the licence text, and a shipped test tree that points to nothing
outside the repository (tests/unit/test_no_six.py keeps ansible.module_utils.six out)."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Generated, never shipped (galaxy.yml's build_ignore).
NOT_SHIPPED = {os.path.join('tests', 'output'), os.path.join('tests', 'integration', 'integration_config.yml')}
# A relative path that climbs: '../x', '../../x' (not '.../x', the documents' ellipsis).
CLIMB = re.compile(r'(?<![\w.])((?:\.\./)+)([\w.-]*)')


def files_under(top):
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
        dirnames[:] = [d for d in dirnames if d != '__pycache__'
                       and os.path.relpath(os.path.join(dirpath, d), ROOT) not in NOT_SHIPPED]
        for name in filenames:
            path = os.path.join(dirpath, name)
            if os.path.relpath(path, ROOT) not in NOT_SHIPPED:
                yield path


def read_text(path):
    with open(path, 'rb') as handle:
        data = handle.read()
    return None if b'\0' in data else data.decode('utf-8', 'replace')


def leaving_paths(path, text, root=ROOT):
    """The climbing relative paths of text (a file at path) that resolve outside the repository, and the
    absolute paths of this machine's checkout (the clone, and the shared documents beside it) in it."""
    found = []
    base = os.path.dirname(path)
    for match in CLIMB.finditer(text):
        target = os.path.normpath(os.path.join(base, match.group(1), match.group(2)))
        if os.path.relpath(target, root).startswith(os.pardir):
            found.append(match.group(0))
    # (Written in pieces, so that this file does not name them itself.)
    # Not the clone's parent itself: a clone in /tmp/x would find every '/tmp' of the tests.
    for machine_path in (root, os.path.join(os.path.dirname(root), 'shared'), '/' + 'home/', '/' + 'root/'):
        if machine_path in text:
            found.append(machine_path)
    return found


def test_the_shipped_test_tree_points_inside_the_repository():
    leaving = {}
    for path in files_under('tests'):
        text = read_text(path)
        if text is not None and leaving_paths(path, text):
            leaving[os.path.relpath(path, ROOT)] = leaving_paths(path, text)
    assert leaving == {}


# A clone in /tmp, which must find its own paths only. (Its path made here, not written: this file is in the tree
# that the test above reads, from any clone.)
CLONE_IN_TMP = os.path.join(os.sep, 'tmp', 'a-clone')


@pytest.mark.parametrize('text, root, leaves', [
    ('the contract (`%sshared/contract/`)' % (('..' + '/') * 3), ROOT, True),
    ('CONFIG=../../integration_config.yml', ROOT, False),
    ('PATCH .../pipes/{id}', ROOT, False),
    ('cd %s/tests' % ROOT, ROOT, True),
    ('python -m tests.simulator --port-file /tmp/sim.port', CLONE_IN_TMP, False),
    ('the contract (%s/shared/contract/)' % os.path.dirname(CLONE_IN_TMP), CLONE_IN_TMP, True),
    ('cd %s/tests' % CLONE_IN_TMP, CLONE_IN_TMP, True),
])
def test_a_path_that_leaves_is_found(text, root, leaves):
    assert bool(leaving_paths(os.path.join(root, 'tests', 'simulator', 'README.md'), text, root)) is leaves


def test_copying_holds_the_gplv3_text_that_galaxy_yml_names():
    with open(os.path.join(ROOT, 'COPYING')) as handle:
        text = handle.read()
    assert text.lstrip().startswith('GNU GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007')
    assert 'END OF TERMS AND CONDITIONS' in text and 'How to Apply These Terms to Your New Programs' in text
    assert len(text.splitlines()) > 600, 'the full text, not a pointer to it'
    with open(os.path.join(ROOT, 'galaxy.yml')) as handle:
        assert re.search(r'^license:\n  - GPL-3\.0-or-later$', handle.read(), re.M)


def test_the_execution_environment_says_why_its_ansible_core_pin_differs():
    with open(os.path.join(ROOT, 'meta', 'execution-environment.yml')) as handle:
        text = handle.read()
    block = re.search(r'^  ansible_core:\n((?:    #.*\n)+)    package_pip: (.*)$', text, re.M)
    assert block, 'a comment right above the pin'
    comment, pin = block.groups()
    assert pin == 'ansible-core>=2.16,<2.20'
    assert 'README' in comment and '3.11' in comment and '2.20' in comment


def test_no_venv_or_build_output_of_the_makefile_is_packed(tmp_path):
    """ansible-galaxy's own file walk (what `collection build` packs), with galaxy.yml's build_ignore, over a tree that
    holds every venv the Makefile makes (with a 64-bit Linux venv's lib64 symlink) and a path of every pattern of
    .gitignore (an anchored one at the root, the others at the root and below tests/unit): only the collection's file
    is packed."""
    import yaml  # pylint: disable=import-outside-toplevel
    from ansible.galaxy.collection import _build_files_manifest_walk  # pylint: disable=import-outside-toplevel

    with open(os.path.join(ROOT, 'Makefile')) as handle:
        venvs = set(re.findall(r'(?<![\w/])(\.venv(?:-[\w.]+)?)/', handle.read()))
    with open(os.path.join(ROOT, 'galaxy.yml')) as handle:
        ignored = yaml.safe_load(handle)['build_ignore']
    with open(os.path.join(ROOT, '.gitignore')) as handle:
        patterns = [line.strip() for line in handle if line.strip() and not line.startswith('#')]
    assert {'.venv', '.venv-eda', '.venv-2.16', '.venv-2.21'} <= venvs
    made = ['%s/lib/python3.11/site-packages/pip/__init__.py' % name for name in sorted(venvs)]
    for pattern in patterns:
        name = pattern.strip('/').replace('*', 'x') + ('/lib/output.py' if pattern.endswith('/') else '')
        made += [name] if pattern.startswith('/') else [name, 'tests/unit/' + name]
    for path in made + ['plugins/modules/kept.py']:
        if not os.path.lexists(str(tmp_path / path)):  # /.venv: the venv's directory, made above
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(u'x\n')
    for name in venvs:
        os.symlink('lib', str(tmp_path / name / 'lib64'))
    manifest = _build_files_manifest_walk(str(tmp_path).encode(), 'engine', 'cloud', ignored)
    packed = sorted(item['name'] for item in manifest['files'] if item['ftype'] == 'file')
    assert packed == ['plugins/modules/kept.py']
