# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Module tests and controller-plugin tests in one process.

Importing controller code (ansible.errors, ansible.plugins: what the inventory and lookup tests
import) marks the whole process as the controller (ansible.module_utils._internal.is_controller),
and a module run in such a process sends its deprecations to the display instead of its result.
A module never runs in the controller's process, so the mark is taken back once every test file
is imported, and set again only for the tests that use the `controller` fixture."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.module_utils import _internal


def pytest_collection_finish(session):
    _internal.is_controller = False


@pytest.fixture
def controller(monkeypatch):
    """The controller's process, for the test of an inventory or lookup plugin."""
    monkeypatch.setattr(_internal, 'is_controller', True)
