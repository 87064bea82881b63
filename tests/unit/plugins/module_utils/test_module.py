# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every module does the same way (module_utils/module.py), through real modules on the simulator: the checks of
the connection options before any request, no secret in a failure that ansible-core's own validation raised, the
converge step after a lost answer, and the warning of a task that waited for the rate limit, whoever caused it."""

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import cloud, observability
from ansible_collections.engine.cloud.plugins.modules import alert_info, dashboard, pipe, service, service_info, service_state
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import ORGANIZATION, PIPE_KAFKA, SERVICE_PROD, service_path

SERVICES = '/v1/organizations/%s/services' % ORGANIZATION
GET = ('GET', service_path())
RENAME = ('PATCH', service_path(), {'name': 'renamed'})


@pytest.mark.parametrize('module, args, env, says', [
    (service_info, dict(api_url=None, api_key_id=' ', api_key_secret=''), {},
     'api_url is required: set api_url or the ENGINE_CLOUD_API_URL environment variable; api_key_id is required: set api_key_id or the '
     'ENGINE_CLOUD_KEY_ID environment variable (got an empty value); api_key_secret is required: set api_key_secret or the '
     'ENGINE_CLOUD_KEY_SECRET environment variable (got an empty value)'),
    (service_info, dict(api_url='ftp://x', organization_id='o'), {},
     "api_url must be an http:// or https:// address with a host name, like https://api.example.com, got 'ftp://x'; "
     "organization_id must be a UUID (8-4-4-4-12 hexadecimal digits), got 'o'"),
    (service_state, dict(service_id='s-1', state='started'), {}, "service_id must be a UUID (8-4-4-4-12 hexadecimal digits), got 's-1'"),
    (alert_info, dict(observability_url='', api_token=None), {},
     'observability_url is required: set observability_url or the ENGINE_OBSERVABILITY_URL environment variable (got an empty value); '
     'api_token is required: set api_token or the ENGINE_OBSERVABILITY_TOKEN environment variable'),
    (service_info, dict(api_timeout=0, api_retries=-1, api_url=None), {'ENGINE_CLOUD_RATE_LIMIT': '10 per 10'},
     "api_timeout must be at least 1 second, got 0; api_retries must be at least 0, got -1; api_rate_limit must be REQUESTS/SECONDS "
     "with at least 1 request and more than 0 seconds (for example 20/10), or off; got '10 per 10'; api_url is required: set api_url "
     "or the ENGINE_CLOUD_API_URL environment variable"),
    (service_state, dict(service_id=SERVICE_PROD, state='started', wait_timeout=0), {}, 'wait_timeout must be at least 1 second, got 0'),
], ids=['missing or empty', 'bad URL and UUID', 'bad resource id', 'observability', 'numbers and the rate limit', 'wait_timeout'])
def test_bad_connection_options_fail_together_before_any_request(run, monkeypatch, module, args, env, says):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert run(module, args, requests=[], fails=says)['msg'].startswith(says)


def test_each_api_has_its_own_rate_limit_variable_and_takes_the_others_connection_for_module_defaults():
    spec = cloud.API.argument_spec()
    assert spec['api_rate_limit']['fallback'][1] == ['ENGINE_CLOUD_RATE_LIMIT'] and spec['api_token'] == dict(type='str', no_log=True)
    assert 'api_token' not in cloud.API.argument_spec(also=False)
    assert observability.API.argument_spec()['api_rate_limit']['fallback'][1] == ['ENGINE_OBSERVABILITY_RATE_LIMIT']
    assert observability.API.argument_spec()['api_key_secret'] == dict(type='str', no_log=True)


# A failure of ansible-core's own validation, which loses the no_log values: every run checks (conftest.ModuleRun) that
# no secret of the fixture's connection options is printed.
@pytest.mark.parametrize('module, args, says', [
    (pipe, dict(service_id=SERVICE_PROD, pipe_id=PIPE_KAFKA, destination=dict(columns=[5])), "not 'int' (destination.columns)"),
    (dashboard, dict(name='x', tiles=[dict(name='t', x=0, y=0, w=1, h=1, series=[5])]), "not 'int' (tiles[].series)"),
    (service, dict(service_id=SERVICE_PROD, tags='not-a-dict'), 'tags'),
    (pipe, dict(service_id=SERVICE_PROD, pipe_id=PIPE_KAFKA, source='kafka'),
     'dictionary requested, could not parse JSON or key=value: source must be a dictionary'),
    (service, dict(service_id=SERVICE_PROD, ip_access_list=[5]), "not 'int' (ip_access_list)"),
    (service, dict(service_id=SERVICE_PROD, ip_access_list=['10.0.0.0/8']), 'each element of ip_access_list must be a dictionary'),
], ids=['nested list', 'list in a list', 'string for a dict', 'string for a dict with secrets', 'top-level list', 'string element'])
def test_an_element_that_is_not_a_dict_fails_naming_where_it_sits_and_shows_no_secret(run, module, args, says):
    run(module, args, requests=[], fails=says)


# The converge step ---------------------------------------------------------------------------------------------------

LOST = dict(kind='status', status=504, method='PATCH', path='.')


@pytest.mark.parametrize('case', [
    dict(faults=[dict(LOST, apply=True)], requests=[GET, RENAME, GET], result={'changed': True, 'service.name': 'renamed'}),
    dict(faults=[LOST], requests=[GET, RENAME, GET, RENAME], result={'changed': True, 'service.name': 'renamed'}),
    dict(faults=[dict(LOST, count=2)], requests=[GET, RENAME, GET, RENAME, GET], args=dict(api_retries=1),
         fails='a read afterwards shows name still to change, and api_retries (1) allows no further attempt'),
    dict(faults=[dict(LOST, status=500)], requests=[GET, RENAME], fails='HTTP 500'),
    dict(check=True, requests=[GET], result={'changed': True, 'service.name': 'renamed'}),
], ids=['applied: read, not sent again', 'not applied: sent again', 'bounded by api_retries', 'not lost', 'check mode'])
def test_a_write_whose_answer_was_lost_is_read_again_and_only_what_still_differs_is_sent(run, case):
    case = dict(case)
    run(service, dict(dict(service_id=SERVICE_PROD, name='renamed'), **case.pop('args', {})), **case)


# The wait warning ----------------------------------------------------------------------------------------------------

def warnings_of(result):
    texts = [item if isinstance(item, str) else item['event']['msg'] for item in result.get('warnings', [])]
    return [text for text in texts if 'rate limit' in text]


def limited(retry_after, count=1):
    return dict(kind='status', status=429, path='.', count=count, headers={'Retry-After': str(retry_after)})


WAITED = ("This task waited %s s in all for the API's rate limit: %sapi_rate_limit (or ENGINE_CLOUD_RATE_LIMIT) sets that budget "
          "(raise it only where the server allows more)")
BUDGET = 'at most %s requests per %s s per API key, shared by every process of this controller that uses the same API key; '


@pytest.mark.parametrize('before, args, faults, sent, warned', [
    (None, {}, [limited(6)], 2, ('6.0', BUDGET % (10, 10))),  # another client of the key used the window up
    (None, {}, [limited(5)], 2, None),
    ('1/2.5', {}, [limited(3)], 2, ('6.0', BUDGET % (1, 2.5))),  # its own pacing and a 429, in all
    ('1/6', {}, [], 1, ('6.5', BUDGET % (1, 6))),
    (None, dict(api_retries=1), [limited(6, count=2)], 2, ('6.0', BUDGET % (10, 10))),  # a task that failed
    (None, dict(api_rate_limit='off'), [limited(6)], 2, ('6.0', '')),
], ids=['429 of another client', 'five seconds', 'pacing and a 429', 'pacing', 'failed', 'pacing off'])
def test_a_task_that_waited_more_than_five_seconds_in_all_says_so(run, before, args, faults, sent, warned):
    if before is not None:
        run(service_info, dict(api_rate_limit=before), requests=[('GET', SERVICES)])
        args = dict(args, api_rate_limit=before)
    result = run(service_info, args, faults=faults, requests=[('GET', SERVICES)] * sent, fails='HTTP 429' if args.get('api_retries') else None)
    assert warnings_of(result) == ([] if warned is None else [WAITED % warned])
