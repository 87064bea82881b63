# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a module process compiles: AnsiballZ ships module_utils as source, and every module process compiles
each one it imports (twice: Python's zipimport compiles a module once to find it and once to run it), so a
module imports at its start only what every run of it needs (bench/NOTES.md, "Where a module's time goes")."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import subprocess
import sys

PREFIX = 'ansible_collections.engine.cloud.plugins.module_utils.'


def loaded_module_utils(module):
    """The collection's module_utils a fresh interpreter holds after importing plugins/modules/<module>.py."""
    script = ('import sys; import ansible_collections.engine.cloud.plugins.modules.%s; '
              'print(" ".join(sorted(name[%d:] for name in sys.modules if name.startswith("%s"))))' % (module, len(PREFIX), PREFIX))
    return set(subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, check=True).stdout.split())


def test_service_state_loads_its_state_table_without_the_service_rules_and_filters():
    loaded = loaded_module_utils('service_state')
    assert {'base', 'client', 'cloud', 'service_states'} <= loaded, loaded
    assert not loaded & {'service_rules', 'service_filter', 'lifecycle', 'by_name'}, loaded
