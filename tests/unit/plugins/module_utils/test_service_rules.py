# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import pytest
from hypothesis import given, strategies as st

from ansible_collections.engine.cloud.plugins.module_utils import service_rules

CURRENT_IPS = [
    {'source': '203.0.113.0/24', 'description': 'Office Berlin'},
    {'source': '198.51.100.17', 'description': 'CI runner'},
    {'source': '192.0.2.64/26', 'description': 'VPN egress'},
]


def apply_patch(current, add, remove):
    """What the API does with an {add, remove} patch: remove first (by source), then add."""
    removed = set(entry['source'] for entry in remove)
    result = dict((entry['source'], entry) for entry in current if entry['source'] not in removed)
    for entry in add:
        result[entry['source']] = dict(entry, description=entry.get('description', ''))
    return result


# --- IP access list -----------------------------------------------------------------------

VPC = {'source': '10.0.0.0/8', 'description': 'VPC'}
CI_2 = {'source': '198.51.100.17', 'description': 'CI runner 2'}


@pytest.mark.parametrize('desired, purge, add, remove, after', [
    pytest.param(list(reversed(CURRENT_IPS)), True, [], [], CURRENT_IPS, id='the same entries in another order'),
    pytest.param([VPC], False, [VPC], [], CURRENT_IPS + [VPC], id='a new source added, the others kept without purge'),
    pytest.param(CURRENT_IPS[:1], True, [], CURRENT_IPS[1:], CURRENT_IPS[:1], id='purge removes with the current description'),
    pytest.param([CI_2], False, [CI_2], CURRENT_IPS[1:2], [CURRENT_IPS[0], CI_2, CURRENT_IPS[2]], id='a new description: remove and add'),
    pytest.param([dict(CI_2, description=None), {'source': '10.1.0.0/16', 'description': None}], False, [{'source': '10.1.0.0/16'}], [],
                 CURRENT_IPS + [{'source': '10.1.0.0/16'}], id='a description left out keeps the current one'),
    pytest.param([{'source': '198.51.100.17/32', 'description': 'CI runner'}], True, [], CURRENT_IPS[::2], CURRENT_IPS[1:2],
                 id='a host and its /32 are one source'),
    pytest.param([], True, [], CURRENT_IPS, [], id='an empty list with purge removes everything'),
])
def test_ip_access_list_patch(desired, purge, add, remove, after):
    assert service_rules.ip_access_list_patch(CURRENT_IPS, desired, purge) == (add, remove, after)


@pytest.mark.parametrize('source, error', [(source, 'ip_access_list[1].source must be an IPv4 address or CIDR block')
                                           for source in ['203.0.113.5/24', '300.1.1.1', 'example.com', '', '2001:db8::/32']] + [
    ('10.0.0.1/32', 'ip_access_list lists the source 10.0.0.1/32 more than once'), ('10.0.0.2', None)])
def test_bad_and_duplicate_sources_are_named(source, error):
    errors = service_rules.ip_access_list_errors('ip_access_list', [{'source': '10.0.0.1'}, {'source': source}])
    assert errors == [] if error is None else len(errors) == 1 and errors[0].startswith(error), errors


_OCTET = st.integers(min_value=0, max_value=255)
_ENTRY = st.builds(lambda a, b, d: {'source': '10.%d.%d.0/24' % (a, b), 'description': d},
                   _OCTET, _OCTET, st.sampled_from(['x', 'y', 'z']))
_ENTRIES = st.lists(_ENTRY, max_size=6, unique_by=lambda entry: entry['source'])


@given(current=_ENTRIES, desired=_ENTRIES, purge=st.booleans())
def test_patch_brings_the_api_to_the_predicted_list(current, desired, purge):
    add, remove, after = service_rules.ip_access_list_patch(current, desired, purge)
    result = apply_patch(current, add, remove)
    assert sorted(result.values(), key=lambda e: e['source']) == sorted(after, key=lambda e: e['source'])
    for entry in desired:
        assert result[entry['source']]['description'] == entry['description']
    kept = set(entry['source'] for entry in current) - set(entry['source'] for entry in desired)
    if purge:
        assert not kept.intersection(result)
    else:
        assert kept.issubset(result)
    # Applying the desired list again to the result asks for nothing.
    again = service_rules.ip_access_list_patch(list(result.values()), desired, purge)
    assert again[:2] == ([], [])


# --- private endpoints --------------------------------------------------------------------

def test_private_endpoints_add_and_purge():
    current = ['vpce-a', 'vpce-b']
    assert service_rules.private_endpoints_patch(current, ['vpce-b', 'vpce-c'], purge=False) == (
        ['vpce-c'], [], ['vpce-a', 'vpce-b', 'vpce-c'])
    assert service_rules.private_endpoints_patch(current, ['vpce-b', 'vpce-c', 'vpce-c'], purge=True) == (
        ['vpce-c'], ['vpce-a'], ['vpce-b', 'vpce-c'])
    assert service_rules.private_endpoints_patch(current, ['vpce-b', 'vpce-a'], purge=True) == ([], [], current)


# --- endpoints ----------------------------------------------------------------------------

LISTED = [{'protocol': 'https', 'port': 8443}, {'protocol': 'nativesecure', 'port': 9440}]


def test_an_endpoint_is_enabled_when_listed_and_not_flagged_off():
    assert service_rules.endpoint_enabled(LISTED, 'https')
    assert not service_rules.endpoint_enabled(LISTED, 'mysql')
    assert not service_rules.endpoint_enabled(LISTED + [{'protocol': 'mysql', 'enabled': False}], 'mysql')
    assert service_rules.endpoint_enabled(LISTED + [{'protocol': 'mysql', 'enabled': True}], 'mysql')


MYSQL = {'protocol': 'mysql', 'port': 3306}


@pytest.mark.parametrize('current, enabled, changes, after', [
    pytest.param(LISTED, True, [{'protocol': 'mysql', 'enabled': True}], LISTED + [{'protocol': 'mysql'}], id='enabled: listed as the endpoint'),
    pytest.param(LISTED, False, [], LISTED, id='already disabled'),
    pytest.param(LISTED + [MYSQL], True, [], LISTED + [MYSQL], id='already enabled'),
    pytest.param(LISTED + [MYSQL], False, [{'protocol': 'mysql', 'enabled': False}], LISTED, id='disabled: no longer listed'),
])
def test_endpoints_patch(current, enabled, changes, after):
    assert service_rules.endpoints_patch(current, [{'protocol': 'mysql', 'enabled': enabled}]) == (changes, after)


def test_duplicate_protocols_are_refused():
    assert service_rules.endpoints_errors('endpoints', [{'protocol': 'mysql'}, {'protocol': 'mysql'}]) == [
        'endpoints lists the protocol mysql more than once']


# --- name ---------------------------------------------------------------------------------

@pytest.mark.parametrize('name, part', [(name, None) for name in ('prod-analytics', 'reporting replica', 'A', 'x' * 50, 'Team 7 warehouse')] + [
    ('x' * 51, 'at most 50 characters'), ('', 'starting and ending'), ('prod_analytics', "'_'"),
    ('-prod', 'starting and ending'), ('prod ', 'starting and ending'), ('caf\u00e9', "'\u00e9'"), ('a\tb', "'\\t'")])
def test_a_bad_name_names_the_option_and_the_rule(name, part):
    error = service_rules.name_error('name', name)
    assert error is None if part is None else error.startswith('name must be') and part in error, error


# --- service PATCH ------------------------------------------------------------------------

SERVICE = {
    'name': 'prod-analytics', 'releaseChannel': 'default', 'transparentDataEncryptionKeyId': 'tde-1',
    'ipAccessList': CURRENT_IPS, 'privateEndpointIds': ['vpce-a'], 'endpoints': LISTED,
}


def test_nothing_asked_or_everything_equal_is_an_empty_body():
    assert service_rules.service_patch(SERVICE, {}) == ({}, {'before': {}, 'after': {}})
    same = dict(name='prod-analytics', release_channel='default', transparent_data_encryption_key_id='tde-1',
                ip_access_list=list(reversed(CURRENT_IPS)), private_endpoint_ids=['vpce-a'],
                endpoints=[{'protocol': 'mysql', 'enabled': False}], purge_ip_access_list=True, purge_private_endpoint_ids=True)
    assert service_rules.service_patch(SERVICE, same)[0] == {}


def test_one_body_carries_every_change_and_the_diff_only_changed_fields():
    body, diff = service_rules.service_patch(SERVICE, dict(
        name='prod analytics', release_channel='default', transparent_data_encryption_key_id='tde-2',
        ip_access_list=[{'source': '10.0.0.0/8', 'description': 'VPC'}], private_endpoint_ids=['vpce-b'],
        purge_private_endpoint_ids=True, endpoints=[{'protocol': 'mysql', 'enabled': True}]))
    assert body == {
        'name': 'prod analytics', 'transparentDataEncryptionKeyId': 'tde-2',
        'ipAccessList': {'add': [{'source': '10.0.0.0/8', 'description': 'VPC'}]},
        'privateEndpointIds': {'remove': ['vpce-a'], 'add': ['vpce-b']},
        'endpoints': [{'protocol': 'mysql', 'enabled': True}],
    }
    assert diff == dict(before=dict(name='prod-analytics', transparentDataEncryptionKeyId='tde-1', ipAccessList=CURRENT_IPS,
                                    privateEndpointIds=['vpce-a'], endpoints=LISTED),
                        after=dict(name='prod analytics', transparentDataEncryptionKeyId='tde-2', ipAccessList=CURRENT_IPS + [VPC],
                                   privateEndpointIds=['vpce-b'], endpoints=LISTED + [{'protocol': 'mysql'}]))


# --- tags and core dumps -------------------------------------------------------------------

TAGS = [{'key': 'team', 'value': 'data-platform'}, {'key': 'env', 'value': 'production'}, {'key': 'pii'}]


@pytest.mark.parametrize('desired, purge, add, remove, after', [
    pytest.param({'env': 'prod', 'owner': 'ana', 'pii': None}, False, [{'key': 'env', 'value': 'prod'}, {'key': 'owner', 'value': 'ana'}],
                 [TAGS[1]], [TAGS[0], {'key': 'env', 'value': 'prod'}, TAGS[2], {'key': 'owner', 'value': 'ana'}],
                 id='added, changed as remove plus add, kept without purge'),
    pytest.param({'team': 'data-platform'}, True, [], TAGS[1:], TAGS[:1], id='purge removes the unlisted ones with their values'),
    pytest.param({}, True, [], TAGS, [], id='purge of every tag'),
    pytest.param({'pii': None, 'env': 'production', 'team': 'data-platform'}, True, [], [], TAGS, id='the same tags in another order'),
])
def test_tags_patch(desired, purge, add, remove, after):
    assert service_rules.tags_patch(TAGS, desired, purge) == (add, remove, after)


@given(st.dictionaries(st.sampled_from(['a', 'b', 'c', 'd']), st.sampled_from([None, 'x', 'y'])),
       st.dictionaries(st.sampled_from(['a', 'b', 'c', 'd']), st.sampled_from([None, 'x', 'y'])), st.booleans())
def test_the_tags_patch_brings_the_api_to_the_predicted_tags(current, desired, purge):
    current_list = [dict(key=key) if value is None else dict(key=key, value=value) for key, value in current.items()]
    add, remove, after = service_rules.tags_patch(current_list, desired, purge)
    tags = dict((tag['key'], tag.get('value')) for tag in current_list)
    for tag in remove:  # the API: remove (the pair must exist), then add (the key must not)
        assert tags.pop(tag['key']) == tag.get('value')
    for tag in add:
        assert tag['key'] not in tags
        tags[tag['key']] = tag.get('value')
    assert tags == dict((tag['key'], tag.get('value')) for tag in after)
    expected = dict(desired) if purge else dict(current, **desired)
    assert tags == expected


KEY_RULE = 'tags keys must be 1 to 128 letters, digits, dots, underscores or hyphens, got %r'
VALUE_RULE = 'tags.team must be 1 to 256 letters, digits, dots, underscores or hyphens, or null for a tag without a value, got %r'


@pytest.mark.parametrize('tags, errors', [
    ({'team': 'ingest', 'cost-center': 4711, 'pii': None}, []),
    ({'a b': 'x'}, [KEY_RULE % 'a b']), ({'k' * 129: 'x'}, [KEY_RULE % ('k' * 129)]), ({'': 'x'}, [KEY_RULE % '']),
    ({'team': ''}, [VALUE_RULE % '']), ({'team': 'v' * 257}, [VALUE_RULE % ('v' * 257)]), ({'team': True}, [VALUE_RULE % True]),
    ({'team': ['a']}, [VALUE_RULE % ['a']]),
    (dict(('k%d' % n, None) for n in range(51)), ["tags may hold at most 50 tags (the API's limit), got 51"]),
])
def test_tags_are_checked_against_the_reference_rules(tags, errors):
    assert service_rules.check_tags('tags', tags)[1] == errors


def test_tags_and_core_dumps_in_the_service_patch():
    current = dict(SERVICE, tags=TAGS, enableCoreDumps=False)
    body, diff = service_rules.service_patch(current, dict(tags={'env': 'prod'}, purge_tags=False, enable_core_dumps=True))
    assert body == {'tags': {'remove': [{'key': 'env', 'value': 'production'}], 'add': [{'key': 'env', 'value': 'prod'}]},
                    'enableCoreDumps': True}
    assert diff['before'] == {'tags': TAGS, 'enableCoreDumps': False}
    assert diff['after']['tags'][1] == {'key': 'env', 'value': 'prod'}
    assert service_rules.service_patch(current, dict(tags={'pii': None}, enable_core_dumps=False))[0] == {}


# --- what the service just read allows ------------------------------------------------------

HORIZONTAL = {'name': 'events', 'autoscalingMode': 'horizontal', 'tier': 'production', 'isPrimary': False, 'state': 'running'}
DEVELOPMENT = {'name': 'sandbox', 'autoscalingMode': 'vertical', 'tier': 'development', 'isPrimary': False, 'state': 'stopped'}
PRIMARY = {'name': 'prod', 'autoscalingMode': 'vertical', 'tier': 'production', 'isPrimary': True, 'state': 'running'}


HORIZONTAL_ONLY = ('%s cannot be set on service events: it uses horizontal autoscaling (autoscalingMode horizontal), which has no %s '
                   '(its replica count scales between minReplicas and maxReplicas)')
PRODUCTION_ONLY = '%s is for production services only; service sandbox is a development service (tier development)'
CROWDED = dict(PRIMARY, tags=[{'key': 'k%d' % n} for n in range(45)])
SIX_TAGS = dict(('n%d' % n, None) for n in range(6))


@pytest.mark.parametrize('current, given, errors', [
    (HORIZONTAL, {'num_replicas': 48}, [HORIZONTAL_ONLY % ('num_replicas', 'numReplicas')]),
    (HORIZONTAL, {'min_total_memory_gb': 48}, [HORIZONTAL_ONLY % ('min_total_memory_gb', 'minTotalMemoryGb')]),
    (HORIZONTAL, {'max_total_memory_gb': 48}, [HORIZONTAL_ONLY % ('max_total_memory_gb', 'maxTotalMemoryGb')]),
    (PRIMARY, {'num_replicas': 48, 'min_total_memory_gb': 48, 'max_total_memory_gb': 48, 'release_channel': 'fast'}, []),
    (DEVELOPMENT, {'min_total_memory_gb': 48}, [PRODUCTION_ONLY % 'min_total_memory_gb']),
    (DEVELOPMENT, {'max_total_memory_gb': 48}, [PRODUCTION_ONLY % 'max_total_memory_gb']),
    (DEVELOPMENT, {'release_channel': 'fast'}, [PRODUCTION_ONLY % 'release_channel']),
    (PRIMARY, {'num_replicas': 1},
     ['num_replicas must be at least 2 for service prod, the primary service of its warehouse (isPrimary), got 1']),
    (PRIMARY, {'num_replicas': 2}, []), (DEVELOPMENT, {'num_replicas': 1}, []),
    (CROWDED, {'tags': SIX_TAGS, 'purge_tags': False},
     ["tags would leave service prod with 51 tags, more than the API's limit of 50; set purge_tags=true or list fewer"]),
    (CROWDED, {'tags': SIX_TAGS, 'purge_tags': True}, []),
])
def test_what_the_service_just_read_allows(current, given, errors):
    assert service_rules.service_errors(current, given) == errors


@pytest.mark.parametrize('state', ['idle', 'stopped', 'starting', 'awaking'])
def test_a_change_that_needs_a_running_service_warns_otherwise(state):
    warning = service_rules.not_running_warning(dict(PRIMARY, state=state), 'scaling changes')
    assert warning.startswith('service prod is %s, not running: the API allows scaling changes only while a service is running' % state)
    assert 'HTTP 424' in warning and 'state=awake' in warning
    assert service_rules.not_running_warning(PRIMARY, 'scaling changes') is None


# --- service_scaling ----------------------------------------------------------------------

@pytest.mark.parametrize('option, value, text', [
    ('min_total_memory_gb', 12, 'between 24 and 1068 and a multiple of 12'),
    ('min_total_memory_gb', 1080, 'between 24 and 1068 and a multiple of 12'),
    ('max_total_memory_gb', 50, 'between 24 and 1068 and a multiple of 12'),
    ('num_replicas', 0, 'between 1 and 20'), ('num_replicas', 21, 'between 1 and 20'), ('idle_timeout_minutes', 4, 'at least 5'),
    ('min_total_memory_gb', 24, None), ('min_total_memory_gb', 1068, None), ('num_replicas', 1, None), ('num_replicas', 20, None),
    ('idle_timeout_minutes', 5, None),
])
def test_each_limit_names_the_option_and_range_and_allows_its_bounds(option, value, text):
    errors = [error for error in service_rules.limit_errors({option: value}) if error]
    assert errors == ([] if text is None else ['%s must be %s, got %d' % (option, text, value)])


def test_max_must_be_at_least_the_requested_or_current_min():
    current = {'minTotalMemoryGb': 48, 'maxTotalMemoryGb': 360}
    assert service_rules.memory_order_error(dict(min_total_memory_gb=96, max_total_memory_gb=48)) == \
        'max_total_memory_gb (48) must be at least min_total_memory_gb (96)'
    assert service_rules.memory_order_error(dict(max_total_memory_gb=48)) is None  # current min unknown yet
    assert service_rules.memory_order_error(dict(max_total_memory_gb=36), current) == \
        'max_total_memory_gb (36) must be at least the current minTotalMemoryGb (48)'
    assert 'min_total_memory_gb (372) must be at most the current maxTotalMemoryGb (360)' in service_rules.memory_order_error(
        dict(min_total_memory_gb=372), current)
    assert service_rules.memory_order_error(dict(max_total_memory_gb=48), current) is None
    assert service_rules.memory_order_error(dict(num_replicas=3), {'minTotalMemoryGb': 48, 'maxTotalMemoryGb': 24}) is None
