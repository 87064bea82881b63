# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""In a module process (module_utils imported from the AnsiballZ zip), each module of module_utils is compiled
once instead of twice: Python's zipimport compiles a module from its source to find it (zipimporter.get_filename)
and again to run it (get_code), and AnsiballZ ships no bytecode (about 25 ms of CPU a task, bench/NOTES.md). A
finder in front of sys.meta_path gives those modules a spec without compiling them, and runs the code of the
zip's own importer (zipimporter.get_code, once). On the controller (imported from files) it installs nothing.
The module_utils that a module imports first (base, cloud, client, validate, clock) import this first."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys
import zipimport
from importlib.machinery import ModuleSpec


class _ZipModuleLoader:
    """Runs a module of the zip with the code its zipimporter compiles."""

    def __init__(self, importer):
        self.importer = importer

    def create_module(self, spec):  # pylint: disable=unused-argument
        return None  # the default module object

    def exec_module(self, module):
        exec(self.importer.get_code(module.__name__), module.__dict__)  # pylint: disable=exec-used

    def get_source(self, fullname):  # tracebacks read the source through the module's __loader__
        return self.importer.get_source(fullname)

    def is_package(self, fullname):  # pylint: disable=unused-argument
        return False


class _ZipModuleFinder:
    """Finds the modules directly in this package (never a subpackage) in its zip."""

    def __init__(self, package, path):
        self.prefix = package + '.'
        self.location = path.rstrip('/') + '/'
        self.loader = _ZipModuleLoader(zipimport.zipimporter(path))

    def find_spec(self, fullname, path=None, target=None):  # pylint: disable=unused-argument
        name = fullname[len(self.prefix):] if fullname.startswith(self.prefix) else ''
        if not name or '.' in name:
            return None
        try:
            if self.loader.importer.is_package(fullname):
                return None
        except ImportError:  # not in the zip: the other finders say why
            return None
        spec = ModuleSpec(fullname, self.loader, origin=self.location + name + '.py')
        spec.has_location = True
        return spec


def install(spec):
    """The finder for the package of the module of spec, when that module came from a zip."""
    if spec is None or not isinstance(spec.loader, zipimport.zipimporter) or not spec.parent:
        return
    package = sys.modules.get(spec.parent)
    if package is not None and not any(isinstance(finder, _ZipModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ZipModuleFinder(spec.parent, list(package.__path__)[0]))


install(globals().get('__spec__'))
