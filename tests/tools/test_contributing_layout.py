"""CONTRIBUTING.md's layout table names every shared file of plugins/. CONTRIBUTING.md does not ship in
the artifact, so this runs here (make simtests), not among the unit tests that ansible-test runs on it."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize('folder', ['plugins/module_utils', 'plugins/plugin_utils', 'plugins/inventory', 'plugins/lookup'])
def test_the_contributors_layout_table_names_every_shared_file(folder):
    with open(os.path.join(ROOT, 'CONTRIBUTING.md'), encoding='utf-8') as handle:
        layout = handle.read()
    names = sorted(name for name in os.listdir(os.path.join(ROOT, folder)) if re.match(r'^(?!_)\w+\.py$', name))
    assert [name for name in names if '%s/%s' % (folder, name) not in layout] == []
