# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The module zygote (scripts/module_zygote.py, a test-suite accelerator) of a pytest stage that runs
ansible-playbook: e2e and the reliability suite. scripts/integration.sh starts the integration stages' own.

A run whose environment holds environ() has its module processes fork from the zygote instead of each
importing the standard library, requests and ansible-core's module_utils; a child prints what a process of
its own prints (tests/tools/test_module_zygote.py). None when the venv has no hook or with
ENGINE_TEST_MODULE_ZYGOTE=off: the runs then start their module processes as a user's do."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys
import time

try:  # the copy scripts/module_zygote.py installs into the venv beside its hook
    import engine_cloud_module_zygote as installed
except ImportError:
    installed = None


class ModuleZygote:
    def __init__(self, directory, environ):
        """Serve the module processes whose environment is environ (a zygote serves only those whose
        PYTHON* settings are its own: give it the environment its runs give their modules)."""
        self.process = self.socket = None
        if installed is None or os.environ.get('ENGINE_TEST_MODULE_ZYGOTE', '').lower() in installed.OFF:
            return
        path = os.path.join(directory, installed.SOCKET_NAME)
        self.process = subprocess.Popen([sys.executable, installed.__file__, 'serve', path], env=environ)
        deadline = time.monotonic() + 10
        while not os.path.exists(path) and self.process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        self.socket = path if os.path.exists(path) else None

    def environ(self):
        """What a run's environment needs to find the zygote."""
        return {'ENGINE_TEST_MODULE_ZYGOTE': self.socket} if self.socket else {}

    def stop(self):
        """Stop it and reap it, so that its children's CPU time counts in the stage's."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = self.socket = None
