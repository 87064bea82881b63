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

With ``uv`` in the cache (a link to an uv executable, which ``--install-cache VERSION --uv PATH``
makes), the pip it installs hands ``pip install`` and ``pip uninstall`` (ansible-test removes pip again
once the requirements are in) to uv's for the environment it runs in:
the same pinned requirements and constraints that ansible-test gives (its sanity requirements pin every
package), installed without pip's resolver and bytecode compilation, trusting the system's certificate
store as pip trusts the one its configuration names (ansible-test passes neither SSL_CERT_FILE nor
PIP_* variables on). Any other pip command, an uv that is gone or that fails: pip does it, as before.
`make sanity`'s environments (--prime-venvs, a new HOME): 24.9 CPU-s with pip, 13.4 with uv; most of
pip's time went to removing itself (1.7 CPU-s an environment: it compiles its own imports first).

Run by hand with ``--install-cache VERSION [--uv PATH]`` it copies itself to that cache path (replacing an
older stand-in, never a real get-pip script) and downloads the wheel of pip VERSION next to it.
"""

import glob
import os
import shutil
import subprocess
import sys

CACHE = os.path.expanduser('~/.ansible/test/cache')
WHEELS = os.path.join(CACHE, 'pip-wheels')
UV = os.path.join(CACHE, 'uv')
FIRST_LINE = '"""Offline stand-in for the pip bootstrap script'
# Put before pip's own __main__.py in each environment: `pip install` and `pip uninstall` by uv, when it can.
PIP_MAIN_BY_UV = """# Written by the get-pip stand-in of engine.cloud's tests (scripts/get_pip_standin.py): pip by uv.
import os as _os, subprocess as _subprocess, sys as _sys
if _sys.argv[1:2] in (['install'], ['uninstall']) and _os.access(%r, _os.X_OK):
    _options = [_arg for _arg in _sys.argv[2:] if _arg not in ('--disable-pip-version-check', '-y', '--yes')]
    if _subprocess.call([%r, 'pip', _sys.argv[1], '--quiet', '--system-certs', '--python', _sys.executable] + _options) == 0:
        _sys.exit(0)
    _sys.stderr.write('get-pip stand-in: uv could not %%s; pip does\\n' %% _sys.argv[1])
"""


def install_cache(version, uv=None):
    """Copy this file to ansible-test's cache path for the given pip version, unless a real get-pip
    script or this same file is there, download the wheel of that pip version, unless it is there, and
    link uv into the cache."""
    if not glob.glob(os.path.join(WHEELS, 'pip-%s-*.whl' % version)):
        subprocess.check_call([sys.executable, '-m', 'pip', 'download', '--quiet', '--disable-pip-version-check',
                               '--no-deps', '--only-binary', ':all:', '--dest', WHEELS, 'pip==%s' % version])
    path = os.path.join(CACHE, 'get_pip_%s.py' % version.replace('.', '_'))
    cached = read(path) if os.path.exists(path) else None
    if cached is None or cached != read(__file__) and cached.startswith(FIRST_LINE):
        replace(path, lambda temporary: shutil.copyfile(os.path.abspath(__file__), temporary))
        print('get-pip stand-in installed: %s' % path)
    if uv:
        replace(UV, lambda temporary: os.symlink(os.path.abspath(uv), temporary))
    return 0


def read(path):
    with open(path) as handle:
        return handle.read()


def replace(path, make):
    """Make path through a temporary name: the two sanity stages of make test install at once."""
    temporary = '%s.%d' % (path, os.getpid())
    make(temporary)
    os.replace(temporary, path)


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
    with open(os.path.join(purelib, dist_info, 'RECORD'), 'a') as handle:
        handle.write('%s/INSTALLER,,\n' % dist_info)  # so that an uninstall leaves no dist-info behind
    if os.path.exists(UV):
        pip_main = os.path.join(purelib, 'pip', '__main__.py')
        with open(pip_main) as handle:
            original = handle.read()
        with open(pip_main, 'w') as handle:
            handle.write(PIP_MAIN_BY_UV % (UV, UV) + original)
    return 0


def main():
    if len(sys.argv) in (3, 5) and sys.argv[1] == '--install-cache' and sys.argv[3:4] in ([], ['--uv']):
        return install_cache(sys.argv[2], (sys.argv[4:] or [None])[0])
    return bootstrap(sys.argv[1:])


if __name__ == '__main__':
    sys.exit(main())
