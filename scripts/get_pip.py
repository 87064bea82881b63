"""ansible-test's get-pip script, for a machine that reaches the package index and no other host.

ansible-test makes each sanity test's virtualenv without pip, then runs a get-pip script that it downloads
from its own host and caches as ~/.ansible/test/cache/get_pip_<version>.py (where the download fails, its
message says to save the script there by hand). `make sanity` saves this file there, and the wheel of that
pip version, from the package index, beside it. Like get-pip, it installs that pip into the interpreter that
runs it (ansible-test asks for pip alone): a pure-Python wheel installs by unpacking it into site-packages.
"""

import os
import sysconfig
import zipfile

VERSION = os.path.basename(__file__)[len('get_pip_'):-len('.py')].replace('_', '.')
with zipfile.ZipFile(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pip-%s-py3-none-any.whl' % VERSION)) as wheel:
    wheel.extractall(sysconfig.get_paths()['purelib'])
