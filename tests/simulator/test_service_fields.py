"""Service fields the reference adds to the contract: autoscaling modes (a horizontal service has no
numReplicas or total memory bounds, and its scaling PATCH refuses them), tiers, tags and core dumps."""

import pytest

from .fixture_ids import SERVICE_DEV, SERVICE_HORIZONTAL, SERVICE_PROD, service_path
from .test_cloud import assert_error


def tags_patch(**patch):
    return {'tags': patch}


def test_a_horizontal_service_has_no_vertical_fields(sim):
    service = sim.cloud('GET', service_path(SERVICE_HORIZONTAL)).result
    assert service['autoscalingMode'] == 'horizontal'
    assert not {'numReplicas', 'minTotalMemoryGb', 'maxTotalMemoryGb'} & set(service)
    assert (service['minReplicas'], service['maxReplicas'], service['replicaMemoryGb']) == (2, 6, 32)


@pytest.mark.parametrize('field, value', [('numReplicas', 3), ('minTotalMemoryGb', 48), ('maxTotalMemoryGb', 96)])
def test_the_scaling_patch_of_a_horizontal_service_refuses_vertical_fields(sim, field, value):
    reply = sim.cloud('PATCH', service_path(SERVICE_HORIZONTAL, '/scaling'), {field: value, 'idleScaling': True})
    assert_error(reply, 400, 'BAD_REQUEST', 'request body.%s: not available for a service with horizontal autoscaling' % field)
    assert sim.cloud('GET', service_path(SERVICE_HORIZONTAL)).result['idleScaling'] is False


def test_the_scaling_patch_of_a_horizontal_service_takes_idle_scaling(sim):
    result = sim.cloud('PATCH', service_path(SERVICE_HORIZONTAL, '/scaling'), {'idleScaling': True, 'idleTimeoutMinutes': 20}).result
    assert (result['idleScaling'], result['idleTimeoutMinutes']) == (True, 20)
    assert result['currentScaling']['effectiveMinReplicas'] == 2 and 'numReplicas' not in result


@pytest.mark.parametrize('body, field', [({'releaseChannel': 'fast'}, 'releaseChannel')])
def test_production_only_fields_are_refused_on_a_development_service(sim, body, field):
    assert_error(sim.cloud('PATCH', service_path(SERVICE_DEV), body), 400, 'BAD_REQUEST', 'request body.%s: available only for production' % field)


def test_tags_remove_before_add(sim):
    body = tags_patch(remove=[{'key': 'env', 'value': 'production'}], add=[{'key': 'env', 'value': 'prod'}, {'key': 'cost.center'}])
    tags = sim.cloud('PATCH', service_path(), body).result['tags']
    assert tags == [{'key': 'team', 'value': 'data-platform'}, {'key': 'env', 'value': 'prod'}, {'key': 'cost.center'}]


@pytest.mark.parametrize('patch, fragment', [
    (tags_patch(remove=[{'key': 'owner'}]), 'request body.tags.remove[0].key: tag owner does not exist'),
    (tags_patch(remove=[{'key': 'env', 'value': 'dev'}]), 'request body.tags.remove[0].value: tag env has the value production'),
    (tags_patch(add=[{'key': 'env', 'value': 'prod'}]), 'request body.tags.add[0].key: tag env already exists'),
    (tags_patch(add=[{'key': 'x' * 129}]), 'request body.tags.add[0].key: must be at most 128 characters long'),
    (tags_patch(add=[{'key': ''}]), 'request body.tags.add[0].key: must be at least 1 characters long'),
    (tags_patch(add=[{'key': 'k', 'value': 'v' * 257}]), 'request body.tags.add[0].value: must be at most 256'),
    (tags_patch(add=[{'key': 'k', 'value': 'a b'}]), 'request body.tags.add[0].value: must match'),
    (tags_patch(add=[{'value': 'v'}]), 'request body.tags.add[0]'),
    (tags_patch(add=[{'key': 'k%d' % n} for n in range(51)]), 'request body.tags.add: must have at most 50 items'),
    (tags_patch(add=[{'key': 'k%d' % n} for n in range(49)]), 'request body.tags: a service can have at most 50 tags, this would give 51'),
    ({'enableCoreDumps': 'yes'}, 'request body.enableCoreDumps: must be a boolean'),
])
def test_tag_and_core_dump_errors_change_nothing(sim, patch, fragment):
    before = sim.cloud('GET', service_path()).result
    assert_error(sim.cloud('PATCH', service_path(), patch), 400, 'BAD_REQUEST', fragment)
    after = sim.cloud('GET', service_path()).result
    assert (after['tags'], after['enableCoreDumps']) == (before['tags'], before['enableCoreDumps'])


def test_core_dumps_switch(sim):
    assert sim.cloud('PATCH', service_path(SERVICE_PROD), {'enableCoreDumps': True}).result['enableCoreDumps'] is True
