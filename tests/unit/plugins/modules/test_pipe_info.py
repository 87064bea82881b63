# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from ansible_collections.engine.cloud.plugins.modules import pipe, pipe_info
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import (
    PIPE_KAFKA, PIPE_OBJECT_STORAGE, PIPE_STREAM, SERVICE_PROD, pipe_path, service_path)

MISSING = '00000000-0000-4000-8000-000000000000'


CASES = {
    'a pipe_id that is not a UUID fails before any request': dict(
        args=dict(service_id=SERVICE_PROD, pipe_id='not-a-uuid'),
        requests=[], fails='', result={'msg': "pipe_id must be a UUID (8-4-4-4-12 hexadecimal digits), got 'not-a-uuid'; "
                                              "engine.cloud.pipe_info with service_id and name returns the id of a pipe of that name"}),
    'without pipe_id, lists the pipes of the service with one GET, secrets masked': dict(
        args=dict(service_id=SERVICE_PROD),
        requests=[('GET', service_path(SERVICE_PROD, '/pipes'))],
        result={'changed': False}, absent=['pipe'],
        verify=lambda result, sim: (
            sorted(item['id'] for item in result['pipes'])
            == sorted(item['id'] for item in sim.state()['pipes'] if item['serviceId'] == SERVICE_PROD)
            and [item['source']['objectStorage']['connectionString'] for item in result['pipes']
                 if item['id'] == PIPE_OBJECT_STORAGE] == ['********'])),
    'name: the one pipe of that name, from one list request, secrets masked': dict(
        args=dict(service_id=SERVICE_PROD, name='events-objectstorage'),
        requests=[('GET', service_path(SERVICE_PROD, '/pipes'))],
        result={'changed': False, 'pipe.id': PIPE_OBJECT_STORAGE, 'pipe.source.objectStorage.connectionString': '********'},
        absent=['pipes']),
    'name: none of that name fails naming the names there are': dict(
        args=dict(service_id=SERVICE_PROD, name='orders'),
        requests=[('GET', service_path(SERVICE_PROD, '/pipes'))],
        fails='no pipe is named "orders"; the pipes are: "clicks-stream", "events-objectstorage", "orders-kafka", "users-postgres"'),
    'name: two of that name fail listing their ids': dict(
        args=dict(service_id=SERVICE_PROD, name='orders-kafka'), edits=[('pipes', PIPE_STREAM, dict(name='orders-kafka'))],
        requests=[('GET', service_path(SERVICE_PROD, '/pipes'))],
        fails='2 pipes are named "orders-kafka" (%s, %s): give pipe_id to choose one' % tuple(sorted((PIPE_KAFKA, PIPE_STREAM)))),
    'name and pipe_id: one or the other, before any request': dict(
        args=dict(service_id=SERVICE_PROD, name='orders-kafka', pipe_id=PIPE_KAFKA), requests=[],
        fails='mutually exclusive: pipe_id|name'),
    'listing the pipes of an unknown service fails with the 404': dict(
        args=dict(service_id=MISSING),
        requests=[('GET', service_path(MISSING, '/pipes'))],
        fails='HTTP 404 NOT_FOUND: Service %s not found' % MISSING),
}


def test_pipe_info(run, case):
    run(pipe_info, **case)


def test_each_listed_pipe_s_definition_fed_back_to_pipe_changes_nothing(run, sim):
    listed = run(pipe_info, dict(service_id=SERVICE_PROD), requests=[('GET', pipe_path('')[:-1])])['pipes']
    assert listed and all('definition' in item and 'credentials' not in str(item['definition']) for item in listed)
    for item in listed:
        run(pipe, item['definition'], requests=[('GET', pipe_path(item['id']))], result={'changed': False})
