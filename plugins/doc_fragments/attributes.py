# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # What every module states about where it runs, check mode, diff mode and idempotency; modules set `support`.
    DOCUMENTATION = r'''
options: {}
notes:
  - "Runs on the controller (C(hosts: localhost) or C(delegate_to: localhost))."
attributes:
  check_mode:
    description: Can run in C(check_mode) and return changed status prediction without modifying target.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in C(check_mode)), when in diff mode.
  idempotent:
    description:
      - When run twice in a row outside check mode, with the same arguments, the second invocation indicates no change.
      - This assumes that the system controlled or queried by the module has not changed in a relevant way.
'''

    # For the modules that only read.
    INFO_MODULE = r'''
options: {}
attributes:
  check_mode:
    support: full
    details:
      - This action does not modify state.
  diff_mode:
    support: N/A
    details:
      - This action does not modify state.
  idempotent:
    support: full
'''

    CLOUD_GROUP = r'''
options: {}
attributes:
  action_group:
    description: Use C(group/engine.cloud.cloud) or C(group/engine.cloud.all) in C(module_defaults) to set defaults for this module.
    support: full
    membership:
      - engine.cloud.cloud
      - engine.cloud.all
'''

    OBSERVABILITY_GROUP = r'''
options: {}
attributes:
  action_group:
    description: Use C(group/engine.cloud.observability) or C(group/engine.cloud.all) in C(module_defaults) to set defaults for this module.
    support: full
    membership:
      - engine.cloud.observability
      - engine.cloud.all
'''

    ALL_GROUP = r'''
options: {}
attributes:
  action_group:
    description: Use C(group/engine.cloud.all) in C(module_defaults) to set defaults for this module (it uses both APIs).
    support: full
    membership:
      - engine.cloud.all
'''
