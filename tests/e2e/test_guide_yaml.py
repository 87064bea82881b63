# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every YAML block of the guides is YAML, and no line of it is longer than ansible-lint's production profile
allows (yaml[line-length], 160): a reader who copies a playbook gets one that lints. The examples tests run them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import os
import re

import pytest

from conftest import ROOT

yaml = pytest.importorskip('yaml')

GUIDES = sorted(glob.glob(os.path.join(ROOT, 'docs', 'docsite', 'rst', '*.rst')))
BLOCK = re.compile(r'\.\. code-block:: (yaml|yaml\+jinja)\n(?:   :caption: (.+)\n)?\n((?:   .*\n|\n)+)')
MAX_LINE = 160


def yaml_blocks(path):
    with open(path) as handle:
        text = handle.read()
    return [(caption or 'block %d' % index, '\n'.join(line[3:] for line in block.rstrip('\n').splitlines()) + '\n')
            for index, (dummy, caption, block) in enumerate(BLOCK.findall(text))]


@pytest.mark.parametrize('path', GUIDES, ids=[os.path.basename(path) for path in GUIDES])
def test_yaml_blocks_parse_and_fit_the_line_length(path):
    for name, text in yaml_blocks(path):
        yaml.safe_load(text)
        long_lines = [line for line in text.splitlines() if len(line) > MAX_LINE]
        assert long_lines == [], '%s, %s' % (os.path.basename(path), name)
