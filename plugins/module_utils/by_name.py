# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one item of a name in a list (the ``name`` option of service_info and pipe_info). Pure function."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json


def one_named(items, name, noun, id_option, gone=()):
    """(the one item of items named name, None) or (None, a message): none has the name, or several have it.
    Items in a state of gone (a deleted service that the list still shows) do not count."""
    named = [item for item in items if item.get('name') == name and item.get('state') not in gone]
    if len(named) == 1:
        return named[0], None
    if named:
        return None, '%d %ss are named %s (%s): give %s to choose one' % (
            len(named), noun, json.dumps(name), ', '.join(sorted(item.get('id') for item in named)), id_option)
    names = sorted(item.get('name') for item in items if item.get('state') not in gone)
    return None, 'no %s is named %s; the %ss are: %s' % (noun, json.dumps(name), noun, ', '.join(json.dumps(other) for other in names) or 'none')
