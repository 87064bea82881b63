# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from ansible_collections.engine.cloud.plugins.modules import pipe_settings_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import PIPE_OBJECT_STORAGE, SERVICE_PROD, pipe_path

CASES = {
    'returns the settings the API holds': dict(
        args=dict(service_id=SERVICE_PROD, pipe_id=PIPE_OBJECT_STORAGE),
        requests=[('GET', pipe_path(PIPE_OBJECT_STORAGE, '/settings'))],
        result={'changed': False, 'settings.object_storage_concurrency': 4},
        verify=lambda result, sim: result['settings'] == sim.find('pipes', PIPE_OBJECT_STORAGE)['settings']),
}


def test_pipe_settings_info(run, case):
    run(pipe_settings_info, **case)
