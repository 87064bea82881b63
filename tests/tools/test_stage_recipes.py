"""What the matrix stages leave to the pinned line, read from `make -n` (the commands each stage runs):
units-2.21 asks for the property tests' short profile and make units does not; sanity-2.21 runs the style
linters (pylint, pep8, yamllint) on the shipped code only, leaves changelog and shellcheck (the repository's
text) to make sanity and runs every other sanity test on the whole tree, while make sanity runs all of them."""

import os
import shlex
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def commands(target, word):
    """The shell words of each command of `make -n target` that contains word."""
    env = dict(os.environ, MAKEFLAGS='', MAKELEVEL='')
    out = subprocess.run(['make', '--no-print-directory', '-n', '-C', ROOT, target], env=env, check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True).stdout
    found = []
    for line in out.replace('\\\n', ' ').splitlines():
        for part in line.split('&&'):
            if word in part:
                found.append(shlex.split(part.replace('$(', '').replace('$tmp', 'TMP')))
    return found


def test_only_the_matrix_units_take_the_short_hypothesis_profile():
    assert [c for c in commands('units-2.21', 'pytest') if 'ENGINE_CLOUD_HYPOTHESIS=matrix' in c]
    assert commands('units', 'pytest') and not [c for c in commands('units', 'pytest')
                                                if any(w.startswith('ENGINE_CLOUD_HYPOTHESIS') for w in c)]


def test_sanity_221_lints_the_shipped_code_and_runs_every_other_test_on_everything():
    runs = [c[c.index('sanity'):] for c in commands('sanity-2.21', 'ansible-test sanity')]
    assert len(runs) == 2
    whole, style = sorted(runs, key=lambda c: '--skip-test' not in c)
    skipped = [whole[i + 1] for i, w in enumerate(whole) if w == '--skip-test']
    assert sorted(skipped) == ['changelog', 'pep8', 'pylint', 'shellcheck', 'yamllint'] and '--test' not in whole
    assert not [w for w in whole[1:] if not w.startswith('-') and w not in ['3.13', 'no'] + skipped]
    assert sorted(style[i + 1] for i, w in enumerate(style) if w == '--test') == ['pep8', 'pylint', 'yamllint']
    assert style[-2:] == ['plugins/', 'extensions/'] and '--skip-test' not in style


def test_make_sanity_runs_every_test_on_everything():
    (run,) = commands('sanity', 'ansible-test sanity')
    assert '--test' not in run and '--skip-test' not in run and run[-1] == '-v'
