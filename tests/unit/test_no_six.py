# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""No plugin imports ansible.module_utils.six: ansible-core is removing it, and every supported Python has
what it gave (urllib.parse, str)."""

import glob
import os
import re

from ansible_collections.engine.cloud.tests.unit.conftest import ROOT


def test_no_plugin_imports_six():
    found = []
    for folder in ('plugins', 'tests/integration', 'tests/simulator'):
        for path in glob.glob(os.path.join(ROOT, folder, '**', '*.py'), recursive=True):
            with open(path) as handle:
                text = handle.read()
            if re.search(r'\bansible\.module_utils\.six\b|^\s*(from|import) six\b', text, re.M):
                found.append(os.path.relpath(path, ROOT))
    assert found == []
