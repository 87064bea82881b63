"""Offline stand-in for the pip bootstrap script that ``ansible-test --venv`` downloads.

ansible-test creates each of its virtual environments without pip, then runs a get-pip script
that it downloads from ci-files.testing.ansible.com and caches as
~/.ansible/test/cache/get_pip_<version>.py (its error message documents saving the file there by
hand). Machines that reach only the package registries cannot download it, so the Makefile puts
this file there instead, unless a real one is already cached.

Run by ansible-test with pip's arguments (e.g. ``--disable-pip-version-check pip==24.2
--no-setuptools --no-wheel``), it installs the pip that ships with Python (ensurepip, no network),
lets that pip install the requested packages from the configured index, and removes the
setuptools that ensurepip brings along when ``--no-setuptools`` was asked for.

Run by hand with ``--install-cache VERSION`` it copies itself to that cache path.
"""

import os
import shutil
import subprocess
import sys


def install_cache(version):
    """Copy this file to ansible-test's cache path for the given pip version, if none is there."""
    path = os.path.expanduser('~/.ansible/test/cache/get_pip_%s.py' % version.replace('.', '_'))
    if os.path.exists(path):
        return 0
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copyfile(os.path.abspath(__file__), path)
    print('get-pip stand-in installed: %s' % path)
    return 0


def bootstrap(args):
    """Do what get-pip.py does: give this interpreter pip, then `pip install` the arguments."""
    no_setuptools = '--no-setuptools' in args
    no_wheel = '--no-wheel' in args
    args = [a for a in args if a not in ('--no-setuptools', '--no-wheel')]
    # In a child process: ensurepip sets PIP_CONFIG_FILE=/dev/null in its own environment, and the
    # pip run below must see the machine's pip configuration (index, certificates).
    rc = subprocess.call([sys.executable, '-m', 'ensurepip', '--default-pip'], stdout=subprocess.DEVNULL)
    if rc:
        return rc
    rc = subprocess.call([sys.executable, '-m', 'pip', 'install', '--quiet'] + args)
    if rc:
        return rc
    unwanted = [name for name, drop in (('setuptools', no_setuptools), ('wheel', no_wheel)) if drop]
    if unwanted:
        subprocess.call([sys.executable, '-m', 'pip', 'uninstall', '--quiet', '--yes'] + unwanted,
                        stderr=subprocess.DEVNULL)
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--install-cache':
        return install_cache(sys.argv[2])
    return bootstrap(sys.argv[1:])


if __name__ == '__main__':
    sys.exit(main())
