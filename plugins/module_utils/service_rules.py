# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The rules of a service's changes: the add/remove lists of its PATCH (IP access list, private endpoints, tags),
endpoint toggles, name and scaling limits, what the service just read allows. Pure functions and data."""

import ipaddress
import re

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.compare import changes, non_empty
from ansible_collections.engine.cloud.plugins.module_utils.compare import diff as make_diff

NAME_MAX_LENGTH = 50
# The contract: "an alphanumeric string with whitespace, up to 50 characters"; the live service also takes hyphens,
# but no leading or trailing space or hyphen.
_NAME_CHAR = re.compile(r'[A-Za-z0-9 -]')
_NAME_ENDS = re.compile(r'^[A-Za-z0-9](.*[A-Za-z0-9])?$', re.S)
TOGGLEABLE_PROTOCOLS = ('mysql',)

# Limits of the contract (the create request, operation 2): minimum, maximum, step.
MEMORY, REPLICA_MEMORY, REPLICAS = (24, 1068, 12), (8, 356, 4), (1, 20)
LIMITS = dict(min_total_memory_gb=MEMORY, max_total_memory_gb=MEMORY, min_replica_memory_gb=REPLICA_MEMORY,
              max_replica_memory_gb=REPLICA_MEMORY, num_replicas=REPLICAS, min_replicas=REPLICAS, max_replicas=REPLICAS,
              idle_timeout_minutes=(5,))


def name_error(option, value):
    if value is None:
        return None
    rule = '1 to %d letters, digits, spaces or hyphens, starting and ending with a letter or digit' % NAME_MAX_LENGTH
    error = validate.max_length(option, value, NAME_MAX_LENGTH)
    if error:
        return '%s (%s)' % (error, rule)
    bad = sorted(set(char for char in value if not _NAME_CHAR.match(char)))
    if bad:
        return '%s must be %s; got %r, which holds %s' % (option, rule, value, ', '.join(repr(char) for char in bad))
    if not _NAME_ENDS.match(value):
        return '%s must be %s; got %r' % (option, rule, value)
    return None


def source_key(source):
    """The canonical form of an IP or CIDR, so that 198.51.100.17 and 198.51.100.17/32 match."""
    text = (source or '').strip()
    try:
        return str(ipaddress.IPv4Network(text))
    except ValueError:
        return text


def ip_access_list_errors(option, entries):
    errors, seen = [], set()
    for index, entry in enumerate(entries or []):
        source = entry.get('source')
        try:
            key = str(ipaddress.IPv4Network((source or '').strip()))
        except ValueError as error:
            errors.append('%s[%d].source must be an IPv4 address or CIDR block without host bits (like 203.0.113.0/24), got %r: %s'
                          % (option, index, source, error))
            continue
        if key in seen:
            errors.append('%s lists the source %s more than once' % (option, source))
        seen.add(key)
    return errors


def ip_access_list_patch(current, desired, purge):
    """(add, remove) for the ipAccessList PATCH, and the list after it. Entries match by source (canonical form); a
    desired entry without description keeps the current one; a changed description is a remove of the current entry
    and an add of the new one (the API removes before it adds). With purge, entries not desired are removed."""
    current = current or []
    wanted = dict((source_key(entry['source']), entry) for entry in desired or [])
    add, remove, after = [], [], []
    for entry in current:
        source, description = entry.get('source'), entry.get('description')
        key = source_key(source)
        if key not in wanted:
            if purge:
                remove.append(_entry(source, description))
            else:
                after.append(entry)
            continue
        new = wanted[key].get('description')
        if new is None or new == (description or ''):
            after.append(entry)
        else:
            remove.append(_entry(source, description))
            add.append(_entry(source, new))
            after.append(add[-1])
    known = set(source_key(entry.get('source')) for entry in current)
    for key, entry in wanted.items():
        if key not in known:
            add.append(_entry(entry['source'].strip(), entry.get('description')))
            after.append(add[-1])
    return add, remove, after


def _entry(source, description):
    return dict(source=source) if description is None else dict(source=source, description=description)


def private_endpoints_patch(current, desired, purge):
    current = list(current or [])
    desired = list(desired or [])
    add = [item for item in dict.fromkeys(desired) if item not in current]
    remove = [item for item in current if purge and item not in desired]
    after = [item for item in current if item not in remove] + add
    return add, remove, after


# The reference's ResourceTagsV1: key 1 to 128, value (optional) up to 256 characters of these.
TAG_CHARACTERS = re.compile(r'^[a-zA-Z0-9._-]+\Z')
TAG_KEY_MAX, TAG_VALUE_MAX, TAGS_MAX = 128, 256, 50


def check_tags(option, tags, null='a tag without a value'):
    """(tags with string values, [error messages]); an integer value is taken as its digits, null means what null says."""
    if tags is None:
        return None, []
    checked, errors = {}, []
    rule = 'letters, digits, dots, underscores or hyphens'
    if len(tags) > TAGS_MAX:
        errors.append('%s may hold at most %d tags (the API\'s limit), got %d' % (option, TAGS_MAX, len(tags)))
    for key in sorted(tags, key=str):
        value = tags[key]
        if not isinstance(key, str) or not TAG_CHARACTERS.match(key) or len(key) > TAG_KEY_MAX:
            errors.append('%s keys must be 1 to %d %s, got %r' % (option, TAG_KEY_MAX, rule, key))
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if value is not None and (not isinstance(value, str) or not TAG_CHARACTERS.match(value) or len(value) > TAG_VALUE_MAX):
            errors.append('%s.%s must be 1 to %d %s, or null for %s, got %r' % (option, key, TAG_VALUE_MAX, rule, null, value))
            continue
        checked[key] = value
    return checked, errors


def _tag(key, value):
    return dict(key=key) if value is None else dict(key=key, value=value)


def tags_patch(current, desired, purge):
    """(add, remove) for the tags PATCH, and the tags after it: as ip_access_list_patch, by key."""
    current = current or []
    add, remove, after = [], [], []
    for tag in current:
        key, value = tag.get('key'), tag.get('value')
        if key not in desired:
            (remove if purge else after).append(tag)
        elif desired[key] == value:
            after.append(tag)
        else:
            remove.append(_tag(key, value))
            add.append(_tag(key, desired[key]))
            after.append(add[-1])
    known = set(tag.get('key') for tag in current)
    for key in sorted(set(desired) - known):
        add.append(_tag(key, desired[key]))
        after.append(add[-1])
    return add, remove, after


def endpoint_enabled(endpoints, protocol):
    return any(item.get('protocol') == protocol and item.get('enabled', True) is not False for item in endpoints or [])


def endpoints_errors(option, endpoints):
    protocols = [item['protocol'] for item in endpoints or []]
    return ['%s lists the protocol %s more than once' % (option, protocol)
            for protocol in sorted(set(protocols)) if protocols.count(protocol) > 1]


def endpoints_patch(current, desired):
    """(changes for the PATCH, endpoints after it): what the service will list, where an enabled endpoint appears as
    {protocol} (its host, port and username are the service's to assign) and a disabled one is no longer listed."""
    changes = [dict(protocol=item['protocol'], enabled=item['enabled']) for item in desired or []
               if item['enabled'] != endpoint_enabled(current, item['protocol'])]
    after = [dict(item) for item in current or []]
    for change in changes:
        flagged = [item for item in after if item.get('protocol') == change['protocol'] and 'enabled' in item]
        if flagged:
            for item in flagged:
                item['enabled'] = change['enabled']
        elif change['enabled']:
            after.append(dict(protocol=change['protocol']))
        else:
            after = [item for item in after if item.get('protocol') != change['protocol']]
    return changes, after


def service_patch(current, params):
    """(body, diff) of the service PATCH (operation 1): only what differs, in the API's terms."""
    body, before, after = {}, {}, {}
    for option, field in (('name', 'name'), ('release_channel', 'releaseChannel'), ('enable_core_dumps', 'enableCoreDumps'),
                          ('transparent_data_encryption_key_id', 'transparentDataEncryptionKeyId')):
        if params.get(option) is not None and params[option] != current.get(field):
            body[field] = after[field] = params[option]
            before[field] = current.get(field)
    for option, purge, field, compute in (('ip_access_list', 'purge_ip_access_list', 'ipAccessList', ip_access_list_patch),
                                          ('private_endpoint_ids', 'purge_private_endpoint_ids', 'privateEndpointIds',
                                           private_endpoints_patch),
                                          ('tags', 'purge_tags', 'tags', tags_patch)):
        if params.get(option) is not None:
            add, remove, listed = compute(current.get(field), params[option], params.get(purge))
            if add or remove:
                body[field] = non_empty(remove=remove, add=add)
                before[field], after[field] = current.get(field) or [], listed
    if params.get('endpoints') is not None:
        toggles, listed = endpoints_patch(current.get('endpoints'), params['endpoints'])
        if toggles:
            body['endpoints'] = toggles
            before['endpoints'], after['endpoints'] = current.get('endpoints') or [], listed
    return body, make_diff(before, after)


VERTICAL_ONLY_OPTIONS = (('num_replicas', 'numReplicas'), ('min_total_memory_gb', 'minTotalMemoryGb'),
                         ('max_total_memory_gb', 'maxTotalMemoryGb'))
PRODUCTION_ONLY_OPTIONS = ('min_total_memory_gb', 'max_total_memory_gb', 'release_channel')


def service_errors(service, params):
    """Messages for the options the service just read does not allow, before any write."""
    name = service.get('name') or service.get('id')
    errors = []
    if service.get('autoscalingMode') == 'horizontal':
        errors += ['%s cannot be set on service %s: it uses horizontal autoscaling (autoscalingMode horizontal), which has no %s '
                   '(its replica count scales between minReplicas and maxReplicas)' % (option, name, field)
                   for option, field in VERTICAL_ONLY_OPTIONS if params.get(option) is not None]
    tier = service.get('tier')
    if tier not in (None, 'production'):
        errors += ['%s is for production services only; service %s is a %s service (tier %s)' % (option, name, tier, tier)
                   for option in PRODUCTION_ONLY_OPTIONS if params.get(option) is not None]
    replicas = params.get('num_replicas')
    if service.get('isPrimary') and replicas is not None and replicas < 2 and replicas != service.get('numReplicas'):
        errors.append('num_replicas must be at least 2 for service %s, the primary service of its warehouse (isPrimary), got %d'
                      % (name, replicas))
    if params.get('tags') is not None:
        after = tags_patch(service.get('tags'), params['tags'], params.get('purge_tags'))[2]
        if len(after) > TAGS_MAX:
            errors.append('tags would leave service %s with %d tags, more than the API\'s limit of %d; set purge_tags=true '
                          'or list fewer' % (name, len(after), TAGS_MAX))
    return errors


def not_running_warning(service, change):
    state = service.get('state')
    if state == 'running':
        return None
    return ('service %s is %s, not running: the API allows %s only while a service is running, so the real run would be refused '
            '(HTTP 424 FAILED_DEPENDENCY); run engine.cloud.service_state with state=awake first, which starts or wakes the service '
            'and waits until it runs' % (service.get('name') or service.get('id'), state, change))


SCALING_FIELDS = (('min_total_memory_gb', 'minTotalMemoryGb'), ('max_total_memory_gb', 'maxTotalMemoryGb'),
                  ('num_replicas', 'numReplicas'), ('idle_scaling', 'idleScaling'), ('idle_timeout_minutes', 'idleTimeoutMinutes'))
DEPRECATED_SCALING_OPTIONS = ('min_total_memory_gb', 'max_total_memory_gb')


def limit_errors(params):
    return [validate.number_range(option, params.get(option), *limits) for option, limits in LIMITS.items()]


def memory_order_error(params, current=None):
    current = current or {}
    requested_min, requested_max = params.get('min_total_memory_gb'), params.get('max_total_memory_gb')
    if requested_min is None and requested_max is None:
        return None
    minimum = requested_min if requested_min is not None else current.get('minTotalMemoryGb')
    maximum = requested_max if requested_max is not None else current.get('maxTotalMemoryGb')
    if minimum is None or maximum is None or maximum >= minimum:
        return None
    if requested_max is None:
        return 'min_total_memory_gb (%s) must be at most the current maxTotalMemoryGb (%s); set max_total_memory_gb too' % (
            requested_min, maximum)
    return 'max_total_memory_gb (%s) must be at least %s (%s)' % (
        requested_max, 'min_total_memory_gb' if requested_min is not None else 'the current minTotalMemoryGb', minimum)


def scaling_step(module, params):
    """(plan, write) of the converge step of service_scaling and of service (its scaling options on an existing service):
    plan(current) checks what the service just read allows, and gives (body, diff) of the scaling PATCH with only what differs."""
    def plan(current):
        module.fail_on_errors(*service_errors(current, params) + [memory_order_error(params, current)])
        body = changes(current, dict((field, params.get(option)) for option, field in SCALING_FIELDS))
        module.warn_in_check_mode(body and not_running_warning(current, 'scaling changes'))
        return body, make_diff(current, body)
    return plan, lambda body: module.write('PATCH', body, 'scaling')
