# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Properties of the local validators: a value is accepted exactly when it is allowed, and every refusal names the option
and what is allowed."""

import re
import uuid as uuid_module

import pytest
from hypothesis import example, given, strategies as st

from ansible_collections.engine.cloud.plugins.module_utils import validate

OPTIONS = st.from_regex(r'\A[a-z][a-z_]{0,20}\Z')
HEX = '0123456789abcdefABCDEF'


# --- uuid -------------------------------------------------------------------------------------

@given(OPTIONS, st.one_of(st.uuids().map(str), st.uuids().map(lambda value: str(value).upper()), st.text(max_size=60)))
@example('pipe_id', '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5')
@example('pipe_id', '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51\n')
@example('pipe_id', '3f1c2d4e5a6b4c7d8e9f0a1b2c3d4e51')
def test_a_uuid_in_any_case_is_accepted_and_a_refused_one_names_the_option_and_the_form(option, value):
    try:
        well_formed = str(uuid_module.UUID(value)) == value.lower()
    except ValueError:
        well_formed = False
    error = validate.uuid(option, value)
    assert (error is None) == well_formed
    if error:
        assert error.startswith(option + ' ') and 'UUID' in error and '8-4-4-4-12' in error


# --- object id --------------------------------------------------------------------------------

@given(OPTIONS, st.one_of(st.text(alphabet=HEX, min_size=24, max_size=24), st.text(max_size=40)))
@example('dashboard_id', '65a1b2c3d4e5f60718293a4')
@example('dashboard_id', '65a1b2c3d4e5f60718293a4g')
def test_every_24_hex_digit_id_is_accepted_and_a_refused_one_names_the_option_and_the_form(option, value):
    error = validate.object_id(option, value)
    assert (error is None) == bool(re.match(r'\A[0-9a-fA-F]{24}\Z', value))
    if error:
        assert error.startswith(option + ' ') and '24 hexadecimal digits' in error


# --- number_range -------------------------------------------------------------------------------

BOUNDS = st.tuples(st.one_of(st.none(), st.integers(-1000, 1000)), st.one_of(st.none(), st.integers(-1000, 1000)),
                   st.one_of(st.none(), st.integers(1, 50)))


@given(OPTIONS, st.one_of(st.none(), st.integers(-5000, 5000)), BOUNDS)
def test_number_range_accepts_exactly_the_allowed_values_and_none_for_not_asked_for(option, value, bounds):
    minimum, maximum, step = bounds
    allowed = value is None or ((minimum is None or value >= minimum) and (maximum is None or value <= maximum)
                                and (step is None or value % step == 0))
    error = validate.number_range(option, value, minimum, maximum, step)
    assert (error is None) == allowed
    if error:
        assert error.startswith(option + ' ')
        assert validate.describe_range(minimum, maximum, step) in error
        for bound in (minimum, maximum, step):
            if bound is not None:
                assert str(bound) in error


@given(OPTIONS, st.one_of(st.booleans(), st.text(), st.lists(st.integers())), BOUNDS)
def test_number_range_refuses_what_is_not_a_number(option, value, bounds):
    error = validate.number_range(option, value, *bounds)
    assert error and error.startswith(option + ' must be a number')


# --- max_length ---------------------------------------------------------------------------------

@given(OPTIONS, st.text(max_size=120), st.integers(0, 100))
def test_max_length(option, value, limit):
    error = validate.max_length(option, value, limit)
    assert (error is None) == (len(value) <= limit)
    if error:
        assert error.startswith(option + ' ') and str(limit) in error and str(len(value)) in error


# --- url ----------------------------------------------------------------------------------------

HOSTS = st.from_regex(r'\A[a-z][a-z0-9-]{0,20}(\.[a-z]{2,6}){0,2}\Z')


BASE_PATHS = st.from_regex(r'\A(/[a-z0-9]{1,8}){0,3}/?\Z').filter(lambda path: not path.rstrip('/').endswith(validate.API_PATHS))


@given(st.sampled_from(['http', 'https']), HOSTS, st.one_of(st.none(), st.integers(1, 65535)), BASE_PATHS)
def test_every_http_address_with_a_host_is_accepted(scheme, host, port, path):
    value = '%s://%s%s%s' % (scheme, host, '' if port is None else ':%d' % port, path)
    assert validate.url('api_url', value) is None


@pytest.mark.parametrize('value', ['not a url', 'api.example.com', 'ftp://api.example.com', 'https://', 'http:///v1',
                                   'https://api example.com', 'https://api.example.com:99999', ''])
def test_a_refused_url_names_the_option_and_the_form(value):
    error = validate.url('observability_url', value)
    assert error and error.startswith('observability_url must be an http:// or https:// address')


@given(st.text(alphabet=st.characters(blacklist_characters='@/?#'), max_size=40))
def test_a_refused_url_never_echoes_credentials(secret):
    error = validate.url('api_url', 'https://user:%s@' % secret)
    assert error and error.endswith('got a value with credentials in it') and 'user:' not in error


@given(st.sampled_from(['http', 'https']), HOSTS, st.one_of(st.none(), st.integers(1, 65535)), BASE_PATHS,
       st.sampled_from(validate.API_PATHS), st.sampled_from(['', '/']), st.sampled_from(['', 'user:s3cret@']))
@example('https', 'api.engine.example', None, '', '/v1', '', '')
def test_a_base_address_with_the_api_path_is_refused_naming_what_to_drop(scheme, host, port, path, api_path, slash, credentials):
    address = '%s://%s%s' % (scheme, host, '' if port is None else ':%d' % port)
    error = validate.url('api_url', '%s://%s%s%s%s%s' % (scheme, credentials, address.split('://')[1], path, api_path, slash))
    assert error == "api_url must be the base address without the API path: drop %s and use %r (got %r)" % (
        api_path, address + path, address + path + api_path + slash)


@pytest.mark.parametrize('value,shown', [
    ('https://user:s3cret@api.example.com:8443/base', 'https://api.example.com:8443/base'),
    ('http://key@127.0.0.1:8080', 'http://127.0.0.1:8080'),
    ('http://user:p@ss@host/x?a=1', 'http://host/x?a=1'),
    ('https://api.example.com/v1', 'https://api.example.com/v1'),
])
def test_a_url_is_shown_without_its_credentials(value, shown):
    assert validate.url_without_credentials(value) == shown
