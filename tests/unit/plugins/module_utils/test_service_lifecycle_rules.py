# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The lifecycle rules of engine.cloud.service: the create body, the fields fixed at creation, the password hashes,
the local checks of the creation and scaling options."""

import base64
import hashlib

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import service

EVERY_OPTION = dict(
    name='staging-eu', provider='aws', region='eu-central-1', tier='production', min_replica_memory_gb=16, max_replica_memory_gb=32,
    num_replicas=2, autoscaling_mode='vertical', idle_scaling=False, idle_timeout_minutes=30, release_channel='fast',
    enable_core_dumps=False, backup_id='5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d99', encryption_key='arn:key', encryption_assumed_role_identifier='arn:role',
    transparent_data_encryption=True, compliance_type='hipaa', profile='v1-highmem-s', byoc_id='byoc-1', data_warehouse_id='dw-1',
    readonly=True, ip_access_list=[{'source': ' 203.0.113.0/24 ', 'description': None}, {'source': '10.0.0.1', 'description': 'vpn'}],
    endpoints=[{'protocol': 'mysql', 'enabled': True}], private_endpoint_ids=['vpce-1'], transparent_data_encryption_key_id='k2',
    password='secret')


def test_the_create_body_holds_every_creation_field_in_the_api_names():
    body = service.create_body(EVERY_OPTION, {'env': 'staging', 'flag': None})
    assert body == {
        'name': 'staging-eu', 'provider': 'aws', 'region': 'eu-central-1', 'tier': 'production', 'minReplicaMemoryGb': 16,
        'maxReplicaMemoryGb': 32, 'numReplicas': 2, 'autoscalingMode': 'vertical', 'idleScaling': False, 'idleTimeoutMinutes': 30,
        'releaseChannel': 'fast', 'enableCoreDumps': False, 'backupId': '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d99',
        'encryptionKey': 'arn:key', 'encryptionAssumedRoleIdentifier': 'arn:role', 'hasTransparentDataEncryption': True,
        'complianceType': 'hipaa', 'profile': 'v1-highmem-s', 'byocId': 'byoc-1', 'dataWarehouseId': 'dw-1', 'isReadonly': True,
        'ipAccessList': [{'source': '203.0.113.0/24'}, {'source': '10.0.0.1', 'description': 'vpn'}],
        'endpoints': [{'protocol': 'mysql', 'enabled': True}],
        'tags': [{'key': 'env', 'value': 'staging'}, {'key': 'flag'}],
    }
    # the API takes no password, no private endpoints at creation (set afterwards) and no key rotation
    assert not set(body) & {'password', 'privateEndpointIds', 'transparentDataEncryptionKeyId'}
    assert service.create_body(dict(name='a', provider='gcp', region='us-east1', idle_scaling=False), None) == {
        'name': 'a', 'provider': 'gcp', 'region': 'us-east1', 'idleScaling': False}  # options left out are left out


def test_the_predicted_service_adds_the_private_endpoints_and_a_provisioning_state():
    predicted = service.predicted_service({'name': 'a'}, dict(private_endpoint_ids=['vpce-1']))
    assert predicted == {'name': 'a', 'state': 'provisioning', 'privateEndpointIds': ['vpce-1']}


def test_a_replica_memory_bound_is_not_called_fixed_and_names_what_moves_it():
    current = {'name': 'svc', 'minReplicaMemoryGb': 16, 'maxReplicaMemoryGb': 120}
    assert service.replica_memory_errors(dict(min_replica_memory_gb=16, max_replica_memory_gb=None), current) == []
    errors = service.replica_memory_errors(dict(min_replica_memory_gb=8, max_replica_memory_gb=64), current)
    assert [error.split(' ')[0] for error in errors] == ['min_replica_memory_gb', 'max_replica_memory_gb']
    assert 'it is 16 now (got 8)' in errors[0] and 'min_total_memory_gb of engine.cloud.service_scaling' in errors[0]
    assert 'max_total_memory_gb' in errors[1] and not any('fixed' in error for error in errors)


def test_fixed_fields_pair_each_option_with_what_a_read_shows():
    current = {'provider': 'aws', 'region': 'eu-central-1', 'minReplicaMemoryGb': 16, 'isReadonly': False, 'autoscalingMode': 'vertical'}
    pairs = dict((option, (wanted, value)) for option, wanted, value in service.fixed_fields(EVERY_OPTION, current))
    assert pairs['region'] == ('eu-central-1', 'eu-central-1')
    assert pairs['readonly'] == (True, False)
    assert 'min_replica_memory_gb' not in pairs  # the deprecated total memory moves it: not fixed (replica_memory_errors)
    assert pairs['max_replicas'] == (None, None)
    assert 'backup_id' not in pairs  # no read shows it
    assert 'num_replicas' not in pairs and 'idle_timeout_minutes' not in pairs  # they converge through the scaling step


def test_the_password_body_is_the_two_hashes_never_the_password():
    body = service.password_body('pässword')
    assert body == {'newPasswordHash': base64.b64encode(hashlib.sha256('pässword'.encode('utf-8')).digest()).decode(),
                    'newDoubleSha1Hash': hashlib.sha1(hashlib.sha1('pässword'.encode('utf-8')).digest()).hexdigest()}
    assert len(base64.b64decode(body['newPasswordHash'])) == 32 and len(body['newDoubleSha1Hash']) == 40
    assert 'pässword' not in str(body)


@pytest.mark.parametrize('params, message', [
    (dict(min_replica_memory_gb=6), 'min_replica_memory_gb must be between 8 and 356 and a multiple of 4, got 6'),
    (dict(max_replica_memory_gb=30), 'max_replica_memory_gb must be'),
    (dict(max_replica_memory_gb=360), 'max_replica_memory_gb must be'),
    (dict(min_replica_memory_gb=32, max_replica_memory_gb=16), 'max_replica_memory_gb (16) must be at least min_replica_memory_gb (32)'),
    (dict(num_replicas=21), 'num_replicas must be between 1 and 20'),
    (dict(min_replicas=0, autoscaling_mode='horizontal', max_replicas=2), 'min_replicas must be between 1 and 20'),
    (dict(num_replicas=2, min_replicas=1), 'num_replicas and min_replicas are mutually exclusive'),
    (dict(max_replicas=3), 'max_replicas needs autoscaling_mode=horizontal'),
    (dict(autoscaling_mode='horizontal', num_replicas=3), 'num_replicas is for vertical autoscaling'),
    (dict(autoscaling_mode='horizontal', min_replicas=1, max_replicas=2, min_replica_memory_gb=8, max_replica_memory_gb=16),
     'must be equal with autoscaling_mode=horizontal'),
    (dict(autoscaling_mode='horizontal', min_replicas=3, max_replicas=2), 'max_replicas (2) must be at least min_replicas (3)'),
    (dict(idle_timeout_minutes=4), 'idle_timeout_minutes must be at least 5'),
    (dict(readonly=True), 'readonly=true needs data_warehouse_id'),
])
def test_lifecycle_errors(params, message):
    errors = [error for error in service.lifecycle_errors(params) if error]
    assert len(errors) == 1 and message in errors[0], errors


def test_good_lifecycle_options_have_no_error():
    assert [error for error in service.lifecycle_errors(EVERY_OPTION) if error] == []
    horizontal = dict(autoscaling_mode='horizontal', min_replicas=1, max_replicas=4, min_replica_memory_gb=32, max_replica_memory_gb=32)
    assert [error for error in service.lifecycle_errors(horizontal) if error] == []
    assert service.create_errors(dict(horizontal, name='a', provider='aws', region='x')) == []


def test_create_needs_provider_and_region_and_a_horizontal_band():
    assert service.create_errors(dict(name='a')) == ['provider is required to create service a (no service of that name exists)',
                                                     'region is required to create service a (no service of that name exists)']
    assert service.create_errors(dict(name='a', provider='aws', region='x', tier='development', release_channel='fast')) == [
        'release_channel is for production services only; tier is development']
    assert service.create_errors(dict(name='a', provider='aws', region='x', autoscaling_mode='horizontal', min_replicas=1)) == [
        'max_replicas is required to create a service with autoscaling_mode=horizontal']
