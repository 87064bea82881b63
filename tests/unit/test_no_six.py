# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""No plugin imports ansible.module_utils.six: ansible-core is removing it, and every supported Python has
what it gave (urllib.parse, str)."""

import glob
import os
import re

from ansible_collections.engine.cloud.tests.unit.conftest import ROOT, read

SIX = re.compile(r'\bansible\.module_utils\.six\b|^\s*(from|import) six\b', re.M)


def test_no_plugin_imports_six():
    paths = [path for folder in ('plugins', 'tests/integration', 'tests/simulator')
             for path in glob.glob(os.path.join(ROOT, folder, '**', '*.py'), recursive=True)]
    assert [os.path.relpath(path, ROOT) for path in paths if SIX.search(read(path))] == []
