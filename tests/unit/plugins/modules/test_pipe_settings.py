# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from ansible_collections.engine.cloud.plugins.modules import pipe_settings
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import PIPE_KAFKA, PIPE_OBJECT_STORAGE, SERVICE_PROD, pipe_path

STORAGE = dict(service_id=SERVICE_PROD, pipe_id=PIPE_OBJECT_STORAGE)
GET = ('GET', pipe_path(PIPE_OBJECT_STORAGE, '/settings'))
# The objectStorage pipe's fixture settings: concurrency 4, file count 500, cluster function off, the rest unset.
WANTED = dict(object_storage_concurrency=8, object_storage_use_cluster_function=None)


def settings_of(pipe_id):
    return lambda result, sim: result['settings'] == sim.find('pipes', pipe_id)['settings']


CASES = {
    'puts only what differs and returns every setting': dict(
        args=dict(STORAGE, settings=dict(WANTED, engine_max_threads=None)), diff=True,
        requests=[GET, ('PUT', pipe_path(PIPE_OBJECT_STORAGE, '/settings'),
                        {'object_storage_concurrency': 8, 'object_storage_use_cluster_function': None})],
        result={'changed': True, 'settings.object_storage_concurrency': 8, 'settings.object_storage_use_cluster_function': True,
                'settings.object_storage_max_file_count': 500, 'settings.engine_max_threads': None,
                'diff': {'before': {'object_storage_concurrency': 4, 'object_storage_use_cluster_function': False},
                         'after': {'object_storage_concurrency': 8, 'object_storage_use_cluster_function': True}}},
        verify=settings_of(PIPE_OBJECT_STORAGE)),
    'a rerun, and defaults written out, change nothing': dict(
        args=dict(STORAGE, settings=WANTED),
        requests=[GET, ('PUT', pipe_path(PIPE_OBJECT_STORAGE, '/settings'))],
        then=dict(args=dict(STORAGE, settings=WANTED), diff=True, requests=[GET], result={'changed': False}, absent=['diff'],
                  then=dict(args=dict(STORAGE, settings=dict(object_storage_concurrency='8', object_storage_use_cluster_function=True,
                                                             engine_max_threads=3)),
                            diff=True, requests=[GET], result={'changed': False}, absent=['diff']))),
    'after a reset a setting may show its default value, one never set shows null (RETURN)': dict(
        args=dict(STORAGE, settings=dict(object_storage_max_file_count=None)),
        requests=[GET, ('PUT', pipe_path(PIPE_OBJECT_STORAGE, '/settings'), {'object_storage_max_file_count': None})],
        result={'changed': True, 'settings.object_storage_max_file_count': 100, 'settings.engine_max_threads': None}),
    'bad values fail together before any request': dict(
        args=dict(STORAGE, settings=dict(object_storage_concurrency=36, engine_parallel_view_processing='maybe', bogus=1)),
        requests=[],
        fails='settings.object_storage_concurrency must be between 1 and 35, got 36',
        verify=lambda result, sim: all(text in result['msg'] for text in (
            'settings has an unknown key', 'streaming_max_insert_wait_ms',
            "settings.engine_parallel_view_processing must be true, false or null, got 'maybe'"))),
    'a PUT answer without every key is completed by a read': dict(
        args=dict(service_id=SERVICE_PROD, pipe_id=PIPE_KAFKA, settings=dict(engine_max_threads=16)),
        faults=[dict(kind='status', status=200, method='PUT', body={'status': 200, 'result': {'engine_max_threads': 16}})],
        requests=[('GET', pipe_path(PIPE_KAFKA, '/settings')),
                  ('PUT', pipe_path(PIPE_KAFKA, '/settings'), {'engine_max_threads': 16}),
                  ('GET', pipe_path(PIPE_KAFKA, '/settings'))],
        result={'changed': True, 'settings.streaming_max_insert_wait_ms': 2000},
        verify=settings_of(PIPE_KAFKA)),
}


def test_pipe_settings(run, case):
    run(pipe_settings, **case)
