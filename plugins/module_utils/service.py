# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""engine.cloud.service: a service from creation to deletion, and a service's definition (the options that describe it)."""

import base64
import hashlib

from ansible_collections.engine.cloud.plugins.module_utils import service_rules
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.cloud import SERVICE_TABLE, services_path
from ansible_collections.engine.cloud.plugins.module_utils.compare import MASK, mask_secrets, merge_diffs
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError
from ansible_collections.engine.cloud.plugins.module_utils.module import wait_options
from ansible_collections.engine.cloud.plugins.module_utils.resource import NEXT_RUN, Kind, Lifecycle
from ansible_collections.engine.cloud.plugins.module_utils.service_rules import _entry, _tag

KIND = Kind(noun='service', key='service', id_option='service_id',
            collection=lambda module: services_path(module.params['organization_id']),
            item=lambda module, service_id: '%s/%s' % (services_path(module.params['organization_id']), service_id),
            ready=('running', 'idle'), failures=('failed',), deleting=('terminating', 'softdeleting'),
            gone=('terminated', 'softdeleted'), answer_key='service')
# option -> field of the create request (reference: "the lifecycle of a service"), in the order it is built.
CREATE_FIELDS = dict(
    name='name', provider='provider', region='region', tier='tier', min_replica_memory_gb='minReplicaMemoryGb',
    max_replica_memory_gb='maxReplicaMemoryGb', num_replicas='numReplicas', autoscaling_mode='autoscalingMode',
    min_replicas='minReplicas', max_replicas='maxReplicas', idle_scaling='idleScaling', idle_timeout_minutes='idleTimeoutMinutes',
    release_channel='releaseChannel', enable_core_dumps='enableCoreDumps', backup_id='backupId', encryption_key='encryptionKey',
    encryption_assumed_role_identifier='encryptionAssumedRoleIdentifier', transparent_data_encryption='hasTransparentDataEncryption',
    compliance_type='complianceType', profile='profile', byoc_id='byocId', data_warehouse_id='dataWarehouseId', readonly='isReadonly')
# Fixed once the service exists: no operation changes them (the scaling PATCH takes neither the autoscaling mode nor the
# replica band). backup_id is not here: no read shows it, so it is used at creation only.
FIXED_OPTIONS = ('provider', 'region', 'tier', 'encryption_key', 'encryption_assumed_role_identifier', 'transparent_data_encryption',
                 'compliance_type', 'profile', 'byoc_id', 'data_warehouse_id', 'readonly', 'autoscaling_mode', 'min_replicas',
                 'max_replicas')
# Sent at creation and not fixed: no request sets them directly, but the deprecated total memory bounds of the scaling
# PATCH move them.
REPLICA_MEMORY_TOTALS = (('min_replica_memory_gb', 'min_total_memory_gb'), ('max_replica_memory_gb', 'max_total_memory_gb'))


SPEC = dict(
    state=dict(type='str', default='present', choices=['present', 'absent']),
    name=dict(type='str'),
    provider=dict(type='str', choices=['aws', 'gcp', 'azure']),
    region=dict(type='str'),
    tier=dict(type='str'),
    backup_id=dict(type='str'),
    encryption_key=dict(type='str', no_log=False),
    encryption_assumed_role_identifier=dict(type='str'),
    transparent_data_encryption=dict(type='bool'),
    compliance_type=dict(type='str', choices=['hipaa', 'pci']),
    profile=dict(type='str'),
    byoc_id=dict(type='str'),
    data_warehouse_id=dict(type='str'),
    readonly=dict(type='bool'),
    num_replicas=dict(type='int'),
    min_replica_memory_gb=dict(type='int'),
    max_replica_memory_gb=dict(type='int'),
    autoscaling_mode=dict(type='str', choices=['vertical', 'horizontal']),
    min_replicas=dict(type='int'),
    max_replicas=dict(type='int'),
    idle_scaling=dict(type='bool'),
    idle_timeout_minutes=dict(type='int'),
    password=dict(type='str', no_log=True),
    update_password=dict(type='str', default='on_create', choices=['on_create', 'always'], no_log=False),
    ip_access_list=dict(type='list', elements='dict', options=dict(
        source=dict(type='str', required=True),
        description=dict(type='str'),
    )),
    purge_ip_access_list=dict(type='bool', default=False),
    private_endpoint_ids=dict(type='list', elements='str'),
    purge_private_endpoint_ids=dict(type='bool', default=False),
    release_channel=dict(type='str', choices=['slow', 'default', 'fast']),
    endpoints=dict(type='list', elements='dict', options=dict(
        protocol=dict(type='str', required=True, choices=list(service_rules.TOGGLEABLE_PROTOCOLS)),
        enabled=dict(type='bool', required=True),
    )),
    transparent_data_encryption_key_id=dict(type='str', no_log=False),
    tags=dict(type='dict'),
    purge_tags=dict(type='bool', default=False),
    enable_core_dumps=dict(type='bool'),
    **wait_options(1800))
OPTIONS = dict(uuid_options=('backup_id',), service_id_required=False, required_one_of=[('service_id', 'name')])


def run(module):
    tags, tag_errors = service_rules.check_tags('tags', module.params['tags'])
    params = dict(module.params, tags=tags)
    module.fail_on_errors(
        service_rules.name_error('name', params['name']),
        None if params['transparent_data_encryption_key_id'] is None or params['transparent_data_encryption_key_id'].strip()
        else 'transparent_data_encryption_key_id must not be empty',
        None if all((item or '').strip() for item in params['private_endpoint_ids'] or [])
        else 'private_endpoint_ids must not hold empty ids',
        None if params['password'] is None or params['password'] else 'password must not be empty',
        *(service_rules.ip_access_list_errors('ip_access_list', params['ip_access_list'])
          + service_rules.endpoints_errors('endpoints', params['endpoints']) + tag_errors + lifecycle_errors(params)))
    life = Lifecycle(module, KIND)
    current = life.find()
    if params['state'] == 'absent':
        if current is None:
            life.absent()
        module.params['service_id'] = current['id']
        if current.get('state') == 'failed':
            module.warn_in_check_mode('service %s is failed: a failed service takes no stop, so the real run sends the delete as it is, '
                                      'and the API, which deletes stopped services, may refuse it' % (current.get('name') or current['id']))
        life.delete(current, prepare=lambda service: stop_to_delete(module, service))
    if current is None:
        create(module, life, params, tags)
    if current.get('state') in KIND.deleting:
        module.fail('service %s is being deleted (state %s): state=present cannot change it; once reads show it gone, the task '
                    'creates a new one by name. Nothing was sent' % (current.get('name') or current['id'], current['state']),
                    service=current)
    module.params['service_id'] = current['id']
    module.fail_on_errors(*(life.fixed_errors(current, fixed_fields(params, current))
                            + replica_memory_errors(params, current)))
    service, patched = module.apply(module.read, patch_plan(module, params), lambda body: module.write('PATCH', body), current=current)
    service, scaled = module.apply(module.read, *service_rules.scaling_step(module, params), current=service)
    password_diff = None
    if params['password'] is not None and params['update_password'] == 'always':
        password_diff = dict(before={}, after=dict(password=MASK))
        if not module.check_mode:
            set_password(module, params['password'])
    diff = merge_diffs([patched, scaled, password_diff])
    module.exit(changed=diff is not None, diff=diff, service=service)


def stop_to_delete(module, service):
    """The API deletes a stopped service only: service_state's table stops it, and the stop is waited for. A failed
    service takes no stop: its delete is sent as it is, and the API's answer tells."""
    if service.get('state') == 'failed':
        return service
    return module.bring(SERVICE_TABLE, 'stopped', 'service', current=service, wait=True)[0]


def patch_plan(module, params):
    def plan(current):
        module.fail_on_errors(*service_rules.service_errors(current, params))
        body, diff = service_rules.service_patch(current, params)
        module.warn_in_check_mode('transparentDataEncryptionKeyId' in body and service_rules.not_running_warning(current, 'a key rotation'))
        return body, diff
    return plan


def create(module, life, params, tags):
    """Create the service, set its password, wait until it runs, set what the create request does not take; exit. A
    failure after the create reports the service and its password, or that none was set."""
    if params['service_id'] is None:
        module.fail_on_errors(*create_errors(params))
    body = create_body(params, tags)
    predicted = predicted_service(body, params)
    answer = life.create(body, predicted)
    service, password = answer['service'], answer.get('password')
    module.params['service_id'] = service['id']
    # While the password step is pending, a failure says how to set a password instead of that the next run carries on:
    # the next run (update_password: on_create) sets none.
    life.next_run = None
    # After a lost answer (password None) the generated password was in that answer only: the API generates another one.
    given = params['password']
    if given is not None or password is None:
        unset = report_password(module, password, PASSWORD_NOT_SET if given is not None else NO_PASSWORD_KNOWN)
        answer = set_password(module, given)
        module.failure_amends.remove(unset)
        password = None if given is not None else answer['password']
    life.next_run = NEXT_RUN
    if password is not None:
        module.no_log_values.discard(password)
        report_password(module, password, GENERATED)
    service = life.wait_ready(service)
    service, dummy = module.apply(module.read, patch_plan(module, params), lambda body: module.write('PATCH', body), current=service)
    result = dict(changed=True, service=mask_secrets(service))
    if module._diff:
        result['diff'] = dict(before={}, after=mask_secrets(predicted))
    if password is not None:
        result['initial_password'] = password
    module.exit_json(**result)


# What a failure after a create says of the password (report_password).
PASSWORD_NOT_SET = ('The password given was not set: the service has the password the API generated%(returned)s; run the task again '
                    'with update_password: always to set the one given')
GENERATED = 'The password the API generated is returned as initial_password: store it (register the result with no_log)'
NO_PASSWORD_KNOWN = ('No password of the service is known: the one the API generated was in the lost create answer only, and no new one '
                     'was set; run the task again with password and update_password: always to set one')


def report_password(module, password, sentence):
    """Until removed from module.failure_amends, a failure also returns password (the generated one: no later run can
    return it) as initial_password, and says sentence (what was not set and how to set it)."""
    def amend(msg, result):
        if password is not None:
            module.no_log_values.discard(password)
            result = dict(result, initial_password=password)
        return '%s. %s' % (msg.rstrip('.'), sentence % dict(returned=' (returned as initial_password)' if password is not None else '')), result
    module.failure_amends.append(amend)
    return amend


def set_password(module, password):
    """PATCH S/password with the two hashes of password, or with neither (password None): the API then generates one
    and answers it. Sent twice, the same hashes set the same password, and a second generated one replaces the first,
    so a lost answer is followed by the same request (at most api_retries times)."""
    body = {} if password is None else password_body(password)
    for attempt in range(module.params['api_retries'] + 1):
        try:
            return module.write('PATCH', body, 'password')
        except ApiError as error:
            if not error.answer_lost or attempt == module.params['api_retries']:
                module.fail_api(error)
        CLOCK.sleep(module.client.backoff(attempt))


def create_body(params, tags):
    """The create request (ServicePostRequest); tags: the checked dict of check_tags. Private endpoints are not in it
    (the API deprecates them at creation: the update afterwards sets them), nor a key rotation (nothing to rotate)."""
    body = dict((field, params[option]) for option, field in CREATE_FIELDS.items() if params.get(option) is not None)
    if params.get('ip_access_list') is not None:
        body['ipAccessList'] = [_entry(entry['source'].strip(), entry.get('description')) for entry in params['ip_access_list']]
    if params.get('endpoints') is not None:
        body['endpoints'] = [dict(protocol=item['protocol'], enabled=item['enabled']) for item in params['endpoints']]
    if tags is not None:
        body['tags'] = [_tag(key, tags[key]) for key in sorted(tags)]
    return body


def predicted_service(body, params):
    predicted = dict(body, state='provisioning')
    if params.get('private_endpoint_ids'):
        predicted['privateEndpointIds'] = list(params['private_endpoint_ids'])
    return predicted


def fixed_fields(params, current):
    return [(option, params.get(option), current.get(CREATE_FIELDS[option])) for option in FIXED_OPTIONS]


def replica_memory_errors(params, current):
    name = current.get('name') or current.get('id')
    return ['%s cannot change on service %s with this module: it is %s now (got %s); no request sets the replica memory '
            'directly, only the deprecated %s of engine.cloud.service_scaling moves it (production services with vertical '
            'autoscaling)' % (option, name, current.get(CREATE_FIELDS[option]), params[option], total)
            for option, total in REPLICA_MEMORY_TOTALS if params.get(option) is not None and params[option] != current.get(CREATE_FIELDS[option])]


def create_errors(params):
    errors = ['%s is required to create service %s (no service of that name exists)' % (option, params.get('name'))
              for option in ('provider', 'region') if not params.get(option)]
    if params.get('release_channel') and params.get('tier') not in (None, 'production'):
        errors.append('release_channel is for production services only; tier is %s' % params['tier'])
    if params.get('autoscaling_mode') == 'horizontal':
        errors += ['%s is required to create a service with autoscaling_mode=horizontal' % option
                   for option in ('min_replicas', 'max_replicas') if params.get(option) is None]
    return errors


def lifecycle_errors(params):
    errors = service_rules.limit_errors(params)
    low, high = params.get('min_replica_memory_gb'), params.get('max_replica_memory_gb')
    if low is not None and high is not None and high < low:
        errors.append('max_replica_memory_gb (%d) must be at least min_replica_memory_gb (%d)' % (high, low))
    band = [option for option in ('min_replicas', 'max_replicas') if params.get(option) is not None]
    horizontal = params.get('autoscaling_mode') == 'horizontal'
    if band and params.get('num_replicas') is not None:
        errors.append('num_replicas and %s are mutually exclusive: num_replicas is the fixed replica count of vertical autoscaling, '
                      'min_replicas and max_replicas the band of horizontal autoscaling' % ' and '.join(band))
    elif band and not horizontal:
        errors.append('%s needs autoscaling_mode=horizontal' % ' and '.join(band))
    if horizontal and params.get('num_replicas') is not None and not band:
        errors.append('num_replicas is for vertical autoscaling; with autoscaling_mode=horizontal set min_replicas and max_replicas')
    if horizontal and low is not None and high is not None and low != high:
        errors.append('min_replica_memory_gb (%d) and max_replica_memory_gb (%d) must be equal with autoscaling_mode=horizontal '
                      '(the memory of a replica is fixed; the replica count scales)' % (low, high))
    if len(band) == 2 and params['max_replicas'] < params['min_replicas']:
        errors.append('max_replicas (%d) must be at least min_replicas (%d)' % (params['max_replicas'], params['min_replicas']))
    if params.get('readonly') and not params.get('data_warehouse_id'):
        errors.append('readonly=true needs data_warehouse_id: a read-only service joins an existing data warehouse')
    return errors


def password_body(password):
    """The body of PATCH S/password: base64(SHA-256) and hex(SHA-1(SHA-1)); the password itself is never sent."""
    data = password.encode('utf-8')
    return dict(newPasswordHash=base64.b64encode(hashlib.sha256(data).digest()).decode('ascii'),
                newDoubleSha1Hash=hashlib.sha1(hashlib.sha1(data).digest()).hexdigest())


def definition(service):
    """The options of engine.cloud.service that describe a service as read: fed back to the module, they change nothing."""
    horizontal = service.get('autoscalingMode') == 'horizontal'
    skipped = {'backup_id', 'name'} | ({'num_replicas'} if horizontal else {'min_replicas', 'max_replicas'}) | (
        set() if service.get('tier') in (None, 'production') else {'release_channel'})
    found = dict(name=service.get('name'), service_id=service.get('id'))
    found.update((option, service[field]) for option, field in CREATE_FIELDS.items()
                 if option not in skipped and service.get(field) not in (None, ''))
    found.update(ip_access_list=[_entry(entry.get('source'), entry.get('description')) for entry in service.get('ipAccessList') or []],
                 private_endpoint_ids=list(service.get('privateEndpointIds') or []),
                 tags=dict((tag.get('key'), tag.get('value')) for tag in service.get('tags') or []),
                 endpoints=[dict(protocol=protocol, enabled=service_rules.endpoint_enabled(service.get('endpoints'), protocol))
                            for protocol in service_rules.TOGGLEABLE_PROTOCOLS])
    if service.get('transparentDataEncryptionKeyId'):
        found['transparent_data_encryption_key_id'] = service['transparentDataEncryptionKeyId']
    return found
