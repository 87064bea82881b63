"""tests/unit/requirements.txt and tests/integration/requirements.txt name every package that the shipped
tests import beyond the standard library, ansible-core and what ansible-test installs itself, so that
`ansible-test units` and `ansible-test integration` work on the installed artifact (make units-2.16 runs
the former there)."""

import ast
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Imported name -> the distribution a requirements file names for it.
DISTRIBUTIONS = {'jsonschema': 'jsonschema', 'referencing': 'jsonschema', 'hypothesis': 'hypothesis', 'cryptography': 'cryptography',
                 'requests': 'requests', 'urllib3': 'urllib3'}
# ansible-core and what it depends on, and the collection itself (tests.* from the collection root).
ALWAYS = {'ansible', 'ansible_collections', 'yaml', 'jinja2', 'tests'}
# ansible-test's own units requirements (ansible_test/_data/requirements/units.txt).
UNITS_PROVIDED = {'pytest', '_pytest', 'mock', 'pytest_mock', 'xdist'}


def python_files(*tops):
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if d not in ('__pycache__', 'output')]
            for name in filenames:
                if name.endswith('.py'):
                    yield os.path.join(dirpath, name)


def simulator_modules():
    """The simulator as the tests run it: its modules, not its own tests."""
    return [path for path in python_files('tests/simulator')
            if not os.path.basename(path).startswith('test_') and os.path.basename(path) != 'conftest.py']


def imported(paths):
    """{top-level name: [files]} of the absolute imports of paths."""
    found = {}
    for path in paths:
        with open(path, encoding='utf-8') as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            for name in names:
                found.setdefault(name.split('.')[0], []).append(os.path.relpath(path, ROOT))
    return found


def required(path):
    with open(os.path.join(ROOT, path)) as handle:
        return {re.split(r'[\s<>=!~;\[]', line.strip())[0].lower() for line in handle
                if line.strip() and not line.startswith('#')}


def unlisted(paths, requirements, provided=frozenset()):
    """The imports of paths that neither the standard library nor requirements nor provided cover."""
    missing = {}
    for name, where in imported(paths).items():
        if name in sys.stdlib_module_names or name in ALWAYS or name in provided or name == '__future__':
            continue
        if DISTRIBUTIONS.get(name) not in requirements:
            missing[name] = sorted(set(where))[:3]
    return missing


@pytest.mark.parametrize('tests, provided', [('unit', UNITS_PROVIDED), ('integration', frozenset())])
def test_the_tests_requirements_are_complete(tests, provided):
    paths = list(python_files('tests/' + tests)) + simulator_modules()
    assert unlisted(paths, required('tests/%s/requirements.txt' % tests), provided) == {}


@pytest.mark.parametrize('source, requirements, missing', [
    ('import hypothesis.strategies\nfrom jsonschema import Draft202012Validator\n', {'jsonschema'}, {'hypothesis'}),
    ('import requests\n', {'jsonschema', 'hypothesis'}, {'requests'}),
    ('from referencing import Registry\nimport json, ssl\nfrom . import state\n', {'jsonschema'}, set()),
    ('import pytest\n', set(), {'pytest'}),
])
def test_an_unlisted_import_is_found(tmp_path, source, requirements, missing):
    path = tmp_path / 'sample.py'
    path.write_text(source)
    assert set(unlisted([str(path)], requirements)) == missing
