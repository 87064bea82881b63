# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The GitOps example of the service_config role: its README and the guide print the same playbook
(test_guide_roles.py runs the guide's, beside a services/ directory of one file per service that holds the variable
as printed, against the simulator)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest

from conftest import ROOT
from test_guide_yaml import yaml_blocks

yaml = pytest.importorskip('yaml')

README = os.path.join(ROOT, 'roles', 'service_config', 'README.md')
GUIDE = os.path.join(ROOT, 'docs', 'docsite', 'rst', 'guide_service_config.rst')


def readme_example():
    with open(README) as handle:
        section = handle.read().split('## GitOps', 1)[1]
    return re.search(r'```yaml\n(.*?)```', section, re.S).group(1)


def guide_example():
    return dict(yaml_blocks(GUIDE))['site.yml']


def test_the_readme_and_the_guide_print_the_same_example():
    assert yaml.safe_load(readme_example()) == yaml.safe_load(guide_example())
