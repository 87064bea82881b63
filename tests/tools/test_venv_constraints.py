"""Every venv of make test is pinned whole. constraints.txt holds .venv to one resolution of
requirements-dev.txt and requirements-docs.txt: make test installs requirements-docs.txt while other
stages already run from .venv, and an install that replaced a package they import (attrs, once)
failed them at random. constraints-<line>.txt holds .venv-<line>. So every pin of a requirements
file is in its constraints file as it is, and every package of the venv running these tests is at
the version constraints.txt names (requirements-uv.txt's for uv; the venv's own pip aside)."""

import importlib.metadata
import os
import re
import sys

import pytest
from packaging.utils import canonicalize_name

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIN = re.compile(r'^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)')


def pins(name):
    with open(os.path.join(ROOT, name)) as handle:
        return dict((canonicalize_name(match.group(1)), match.group(2)) for match in map(PIN.match, handle) if match)


def constraints_of(requirements):
    """The constraints file that holds requirements-<name>.txt: one per matrix line, one for .venv's two."""
    line = re.match(r'requirements-(\d+\.\d+|eda)\.txt$', requirements)
    return 'constraints-%s.txt' % line.group(1) if line else 'constraints.txt'


# requirements-uv.txt aside: pip installs uv (which has no dependencies) before the rest.
REQUIREMENTS = sorted(name for name in os.listdir(ROOT)
                      if re.match(r'requirements-.+\.txt$', name) and name != 'requirements-uv.txt')


@pytest.mark.parametrize('requirements', REQUIREMENTS)
def test_every_pin_of_a_requirements_file_is_a_constraint(requirements):
    constraints_file = constraints_of(requirements)
    constraints = pins(constraints_file)
    differing = dict((package, (version, constraints.get(package)))
                     for package, version in pins(requirements).items() if constraints.get(package) != version)
    assert differing == {}, '%s and %s differ (make constraints): %s' % (requirements, constraints_file, differing)


def test_every_package_of_the_venv_is_at_its_constrained_version():
    if not os.path.exists(os.path.join(sys.prefix, '.requirements-dev.stamp')):
        pytest.skip('%s is not a venv that make venv installed' % sys.prefix)
    constraints = pins('constraints.txt')
    constraints['uv'] = pins('requirements-uv.txt')['uv']
    differing = {}
    for distribution in importlib.metadata.distributions():
        package = canonicalize_name(distribution.metadata['Name'])
        if package == 'pip' and package not in constraints:
            continue  # the venv's own, which neither file asks for
        if constraints.get(package) != distribution.version:
            differing[package] = (distribution.version, constraints.get(package))
    assert differing == {}, 'installed, constrained (None: not in constraints.txt): %s' % differing
