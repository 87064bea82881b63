# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every unit test needs: a private, empty pacing directory (module_utils/pacer.py), so that
no test reads or writes the user's own (~/.cache/engine.cloud/pacing) or another test's."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.engine.cloud.plugins.module_utils.pacer import DIRECTORY_ENV


@pytest.fixture(autouse=True)
def pacing_directory(tmp_path, monkeypatch):
    directory = tmp_path / 'pacing'
    monkeypatch.setenv(DIRECTORY_ENV, str(directory))
    return directory
