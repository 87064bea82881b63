# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r'''
name: sim_requests
short_description: The simulator's request log since its last reset or clear (test only)
description:
  - Reads the request log of the simulator at C(engine_sim_admin_url) through the C(sim_admin) lookup and
    returns its entries in order, each with C(call) added, the method and the path under the API's root
    (C(/v1/organizations/<id>/) or C(/api/v2/)), for example C(PATCH services/<id>/scaling) or C(POST dashboards).
  - Use it with C(query), which always returns a list.
options:
  writes:
    description: Only the writes, every request but a C(GET) and the chart queries (C(POST charts/series)).
    type: bool
    default: false
'''

import re

from ansible.plugins.lookup import LookupBase
from ansible.plugins.loader import lookup_loader

API_ROOT = re.compile(r'^/v1/organizations/[^/]+/?|^/api/v2/?')


class LookupModule(LookupBase):

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        admin = lookup_loader.get('sim_admin', loader=self._loader, templar=self._templar)
        log = admin.run([variables['engine_sim_admin_url'] + '/requests'], variables)[0]['requests']
        for entry in log:
            entry['call'] = '%s %s' % (entry['method'], API_ROOT.sub('', entry['path']))
        if self.get_option('writes'):
            log = [entry for entry in log if entry['method'] != 'GET' and entry['call'] != 'POST charts/series']
        return log
