# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the RETURN documentation promises about values the API shows in more than one form."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from conftest import ROOT, module_doc_string

yaml = pytest.importorskip('yaml')


def returned(module, key):
    """The description of one RETURN key of a module, as one line of text."""
    text = module_doc_string(os.path.join(ROOT, 'plugins', 'modules', module + '.py'), 'RETURN')
    description = yaml.safe_load(text)[key]['description']
    return ' '.join(description) if isinstance(description, list) else description


# The reference: after a reset, a GET of the settings may show either null or the default value.
@pytest.mark.parametrize('module', ['pipe_settings', 'pipe_settings_info'])
def test_settings_at_their_default_may_show_null_or_the_default_value(module):
    description = returned(module, 'settings')
    assert 'V(null) or as its default value' in description, description
    assert 'V(null) means the setting is at its default' not in description, description
