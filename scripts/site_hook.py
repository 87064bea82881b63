"""The install and uninstall commands of the test venvs' start-up hooks (scripts/zipimport_cache.py,
scripts/module_zygote.py): the hook's file is copied into the interpreter's site-packages as NAME.py, and
NAME.pth imports it at every start of that interpreter. Run through the hook script's own command line
(`python scripts/zipimport_cache.py install`); the installed copies never import this module."""

import os
import sysconfig


def _site_packages():
    return sysconfig.get_paths()['purelib']


def install(source, name):
    site = _site_packages()
    with open(source, 'rb') as original, open(os.path.join(site, name + '.py'), 'wb') as copy:
        copy.write(original.read())
    with open(os.path.join(site, name + '.pth'), 'w') as pth:
        pth.write('import %s\n' % name)


def uninstall(name):
    site = _site_packages()
    for file_name in (name + '.pth', name + '.py'):
        try:
            os.unlink(os.path.join(site, file_name))
        except FileNotFoundError:
            pass


def commands(source, name):
    """{command: function} for a hook script's command line."""
    return {'install': lambda: install(source, name), 'uninstall': lambda: uninstall(name)}
