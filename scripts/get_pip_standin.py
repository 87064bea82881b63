"""Offline stand-in for the pip bootstrap script that ``ansible-test --venv`` downloads.

ansible-test creates each of its virtual environments without pip, then runs a get-pip script
that it downloads from ci-files.testing.ansible.com and caches as
~/.ansible/test/cache/get_pip_<version>.py (its error message documents saving the file there by
hand). Machines that reach only the package registries cannot download it, so the Makefile puts
this file there instead, unless a real one is already cached.

Run by ansible-test with pip's arguments (e.g. ``--disable-pip-version-check pip==24.2
--no-setuptools --no-wheel``), it does what the real get-pip.py does: it runs pip from a wheel put
on sys.path (a zip, the way get-pip.py carries it) to install that pip into the interpreter that
runs it. The wheel is the one ansible-test asks for, downloaded once from the configured index into
the cache next to this file. For each of the ten environments `make sanity` makes: 8 s when this
file used ensurepip, then let pip upgrade itself and remove setuptools; 2 s when it ran pip from the
wheel to install it; 0.1 CPU-s now that it unpacks the wheel (pip alone, the usual request; a
request for more packages still runs pip).

Run by hand with ``--install-cache VERSION`` it copies itself to that cache path and downloads
the wheel of pip VERSION next to it.
"""

import glob
import os
import shutil
import subprocess
import sys

CACHE = os.path.expanduser('~/.ansible/test/cache')
WHEELS = os.path.join(CACHE, 'pip-wheels')


def install_cache(version):
    """Copy this file to ansible-test's cache path for the given pip version, unless one is there,
    and download the wheel of that pip version, unless it is there."""
    if not glob.glob(os.path.join(WHEELS, 'pip-%s-*.whl' % version)):
        subprocess.check_call([sys.executable, '-m', 'pip', 'download', '--quiet', '--disable-pip-version-check',
                               '--no-deps', '--only-binary', ':all:', '--dest', WHEELS, 'pip==%s' % version])
    path = os.path.join(CACHE, 'get_pip_%s.py' % version.replace('.', '_'))
    if not os.path.exists(path):
        shutil.copyfile(os.path.abspath(__file__), path)
        print('get-pip stand-in installed: %s' % path)
    return 0


def bootstrap(args):
    """Install the requested pip (pip==VERSION among the arguments) from its cached wheel."""
    args = [arg for arg in args if arg not in ('--no-setuptools', '--no-wheel')]
    versions = [arg.split('==', 1)[1] for arg in args if arg.startswith('pip==')]
    wheels = glob.glob(os.path.join(WHEELS, 'pip-%s-*.whl' % (versions[0] if versions else '*')))
    if len(wheels) != 1:
        sys.stderr.write('get-pip stand-in: no single pip wheel for %s in %s; run make sanity, which downloads it\n'
                         % (' '.join(args), WHEELS))
        return 1
    packages = [arg for arg in args if not arg.startswith('-')]
    if versions and packages == ['pip==' + versions[0]]:
        return unpack(wheels[0])
    sys.path.insert(0, wheels[0])
    from pip._internal.cli.main import main as pip_main  # pylint: disable=import-outside-toplevel
    return pip_main(['install', '--no-index', '--find-links', WHEELS] + args)


def unpack(wheel):
    """Install pip alone into this interpreter's empty environment by unpacking its wheel, as an
    installer does for a pure-Python wheel that has no scripts ansible-test uses (it runs
    ``python -m pip``): 0.1 CPU-seconds against 1 for a pip run that installs itself."""
    import sysconfig  # pylint: disable=import-outside-toplevel
    import zipfile  # pylint: disable=import-outside-toplevel
    purelib = sysconfig.get_paths()['purelib']
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(purelib)
        dist_info = next(name.split('/')[0] for name in archive.namelist() if name.split('/')[0].endswith('.dist-info'))
    with open(os.path.join(purelib, dist_info, 'INSTALLER'), 'w') as handle:
        handle.write('get-pip stand-in\n')
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--install-cache':
        return install_cache(sys.argv[2])
    return bootstrap(sys.argv[1:])


if __name__ == '__main__':
    sys.exit(main())
