"""Every venv is pinned whole: each pin of requirements-<name>.txt is the one its constraints file holds
(constraints.txt for .venv's two files, requirements-dev.txt and requirements-docs.txt, resolved together), and
every package of the venv running these tests is at the version constraints.txt names."""

import importlib.metadata
import os
import re
import sys

import pytest
from packaging.utils import canonicalize_name

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIN = re.compile(r'^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)')
# requirements-uv.txt aside: pip installs uv, which has no dependencies, before the rest.
REQUIREMENTS = sorted(name for name in os.listdir(ROOT) if re.match(r'requirements-(?!uv\.).+\.txt$', name))


def pins(name):
    with open(os.path.join(ROOT, name)) as handle:
        return dict((canonicalize_name(match.group(1)), match.group(2)) for match in map(PIN.match, handle) if match)


@pytest.mark.parametrize('requirements', REQUIREMENTS)
def test_every_pin_of_a_requirements_file_is_a_constraint(requirements):
    line = re.match(r'requirements-(\d+\.\d+|eda)\.txt$', requirements)
    name = 'constraints-%s.txt' % line.group(1) if line else 'constraints.txt'
    constraints = pins(name)
    differing = dict((package, (version, constraints.get(package)))
                     for package, version in pins(requirements).items() if constraints.get(package) != version)
    assert differing == {}, '%s and %s differ (make constraints): %s' % (requirements, name, differing)


def test_every_package_of_the_venv_is_at_its_constrained_version():
    if not os.path.exists(os.path.join(sys.prefix, '.requirements-dev.stamp')):
        pytest.skip('%s is not a venv that make venv installed' % sys.prefix)
    constraints = dict(pins('constraints.txt'), uv=pins('requirements-uv.txt')['uv'])
    installed = dict((canonicalize_name(d.metadata['Name']), d.version) for d in importlib.metadata.distributions())
    differing = dict((package, (version, constraints.get(package))) for package, version in installed.items()
                     if constraints.get(package) != version and package != 'pip')
    assert differing == {}, 'installed, constrained (None: not in constraints.txt): %s' % differing
