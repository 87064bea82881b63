# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a module process compiles: AnsiballZ ships module_utils as source, and every module process compiles
each one it imports (twice: Python's zipimport compiles a module once to find it and once to run it), so a
module imports at its start only what every run of it needs (bench/NOTES.md, "Where a module's time goes")."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys

PREFIX = 'ansible_collections.engine.cloud.plugins.module_utils.'


def loaded_module_utils(module):
    """The collection's module_utils a fresh interpreter holds after importing plugins/modules/<module>.py."""
    script = ('import sys; import ansible_collections.engine.cloud.plugins.modules.%s; '
              'print(" ".join(sorted(name[%d:] for name in sys.modules if name.startswith("%s"))))' % (module, len(PREFIX), PREFIX))
    from ansible_collections.engine.cloud.plugins.module_utils import clock
    root = clock.__file__.rsplit('/ansible_collections/', 1)[0]  # ansible-test units gives only its own process this path
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root] + [part for part in os.environ.get('PYTHONPATH', '').split(os.pathsep) if part]))
    return set(subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, check=True, env=env).stdout.split())


ZIP_SCRIPT = '''
import collections, sys, traceback
compiled = collections.Counter()
def hook(event, args):
    if event == 'compile' and isinstance(args[1], str) and args[1].startswith(UTILS) and not args[1].endswith('__init__.py'):
        compiled[args[1].rpartition('/')[2]] += 1
UTILS = sys.argv[1] + '/ansible_collections/engine/cloud/plugins/module_utils/'
sys.addaudithook(hook)
sys.path.insert(0, sys.argv[1])
from ansible_collections.engine.cloud.plugins.module_utils import clock, cloud
print(sorted(compiled.items()))
print(cloud.__file__ == UTILS + 'cloud.py')
try:
    cloud.http.HttpClient(None)
except AttributeError:
    print('base_url.rstrip' in traceback.format_exc())
'''


def test_a_module_process_compiles_each_module_util_of_its_zip_once(tmp_path):
    """AnsiballZ's zip on sys.path, as in a module process: every module after the first (clock, which installs
    the finder) is compiled once, has its __file__ in the zip, and shows its source in a traceback."""
    import zipfile
    from ansible_collections.engine.cloud.plugins.module_utils import clock as clock_module
    utils = os.path.dirname(clock_module.__file__)
    archive = str(tmp_path / 'payload.zip')
    with zipfile.ZipFile(archive, 'w') as payload:
        for package in ('ansible_collections', 'ansible_collections/engine', 'ansible_collections/engine/cloud',
                        'ansible_collections/engine/cloud/plugins', 'ansible_collections/engine/cloud/plugins/module_utils'):
            payload.writestr(package + '/__init__.py', '')
        for name in os.listdir(utils):
            if name.endswith('.py') and name != '__init__.py':
                payload.write(os.path.join(utils, name), 'ansible_collections/engine/cloud/plugins/module_utils/' + name)
    env = dict((name, value) for name, value in os.environ.items() if name not in ('PYTHONPATH', 'ENGINE_TEST_ZIPIMPORT_CACHE'))
    env['ENGINE_TEST_ZIPIMPORT_CACHE'] = 'off'
    out = subprocess.run([sys.executable, '-c', ZIP_SCRIPT, archive], capture_output=True, text=True, check=True, env=env).stdout.splitlines()
    counts = dict(eval(out[0]))  # pylint: disable=eval-used
    for first in ('clock.py', 'compile_once.py'):  # found and run before the finder was in place
        counts.pop(first, None)
    assert {'base.py', 'client.py', 'cloud.py', 'validate.py'} <= set(counts) and set(counts.values()) == {1}, counts
    assert out[1:] == ['True', 'True'], out


def test_service_state_loads_its_state_table_without_the_service_rules_and_filters():
    loaded = loaded_module_utils('service_state')
    assert {'base', 'client', 'cloud', 'service_states'} <= loaded, loaded
    assert not loaded & {'service_rules', 'service_filter', 'lifecycle', 'by_name'}, loaded
