# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every YAML block of the guides is YAML, and no line of it is longer than ansible-lint's production profile
allows (yaml[line-length], 160): a reader who copies a playbook gets one that lints. The examples tests run them."""

import glob
import os

import pytest

from conftest import GUIDES, code_blocks

yaml = pytest.importorskip('yaml')

MAX_LINE = 160


GUIDE_NAMES = sorted(os.path.basename(path) for path in glob.glob(os.path.join(GUIDES, '*.rst')))


@pytest.mark.parametrize('guide', GUIDE_NAMES)
def test_yaml_blocks_parse_and_fit_the_line_length(guide):
    for index, (dummy, caption, text) in enumerate(code_blocks(guide, 'yaml', 'yaml+jinja')):
        yaml.safe_load(text)
        long_lines = [line for line in text.splitlines() if len(line) > MAX_LINE]
        assert long_lines == [], '%s, %s' % (guide, caption or 'block %d' % index)
