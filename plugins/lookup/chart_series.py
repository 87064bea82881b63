# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: chart_series
short_description: Query observability time series inline
version_added: 0.1.0
description:
  - Queries one to five aggregated time series over a time range and returns one row per time bucket,
    for use in a template or a condition, for example a health gate with C(ansible.builtin.assert).
  - It takes the options of M(engine.cloud.chart_series) as keyword arguments, checks them in the same way
    (a bad value raises an error that names the option, and nothing is sent), sends the same request
    and returns the same rows, through the same code as the module.
  - The keyword arguments can be literals or any value a template reads, such as variables built with filters,
    facts, another host's variables or a loop item.
  - It takes no positional terms.
  - "The rows are data from the API, marked unsafe on every ansible-core version: a value that holds C({{ ... }}) stays
    that text, also where unsafe lookups are allowed."
  - Use it with the C(query) function, or with C(lookup) and C(wantlist=true); then the result is always the list of rows.
    A plain C(lookup) returns a single row as a dict instead of a list, and no rows as an empty list.
  - Every evaluation of the template sends one query. To use the rows more than once (a variable that several
    tasks or expressions read is evaluated each time), store them once with C(ansible.builtin.set_fact).
  - Lookups run on the controller and do not see C(module_defaults); give the connection as keyword arguments
    or set the environment variables E(ENGINE_OBSERVABILITY_URL) and E(ENGINE_OBSERVABILITY_TOKEN) (and
    E(ENGINE_OBSERVABILITY_RATE_LIMIT) for O(api_rate_limit)) in the environment of C(ansible-playbook).
    A keyword argument wins over its environment variable.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  observability_url:
    env:
      - name: ENGINE_OBSERVABILITY_URL
  api_token:
    env:
      - name: ENGINE_OBSERVABILITY_TOKEN
  api_rate_limit:
    env:
      - name: ENGINE_OBSERVABILITY_RATE_LIMIT
extends_documentation_fragment:
  - engine.cloud.chart_series
  - engine.cloud.observability
seealso:
  - module: engine.cloud.chart_series
  - ref: ansible_collections.engine.cloud.docsite.guide_discovery
    description: The health gate example of the discovery guide.
'''

EXAMPLES = r'''
- name: Gate on the p95 query latency of the last 15 minutes (one query)
  ansible.builtin.assert:
    that:
      # The series keys hold a dot (series_0.data), so the values are picked by key from dict2items.
      - >-
        query('engine.cloud.chart_series', start_time='-15m',
              series=[{'source_id': '65b000000000000000000001', 'agg_fn': 'p95', 'field': 'query.duration_ms',
                       'where': 'service:prod-analytics'}],
              observability_url='https://observability.engine.example', api_token=vault_engine_observability_token)
        | map('dict2items') | flatten | selectattr('key', 'equalto', 'series_0.data') | map(attribute='value')
        | select('gt', 500) | list | length == 0
    fail_msg: The p95 latency of prod-analytics was above 500 ms in the last 15 minutes

- name: Query once, for several tasks (the connection from ENGINE_OBSERVABILITY_URL and ENGINE_OBSERVABILITY_TOKEN)
  ansible.builtin.set_fact:
    error_rows: >-
      {{ query('engine.cloud.chart_series', start_time='-1h', granularity='5m',
               series=[{'source_id': '65b000000000000000000001', 'agg_fn': 'count', 'where': 'level:error', 'group_by': ['host']}]) }}

- name: Show the hosts with errors in the last hour
  ansible.builtin.debug:
    msg: "{{ error_rows | map(attribute='group') | map('first') | unique | list }}"
'''

RETURN = r'''
_raw:
  description:
    - The rows, as the module returns them in RV(engine.cloud.chart_series#module:rows), in ascending C(ts_bucket) order;
      numeric strings among the series values are numbers.
    - Each row holds C(ts_bucket) (epoch milliseconds), C(group) (the O(series[].group_by) values) and
      C(series_N.data) for each series N that has data in that bucket.
  type: list
  elements: dict
'''

from ansible.errors import AnsibleError
from ansible.plugins.lookup import LookupBase
from ansible.utils.display import Display
from ansible.utils.unsafe_proxy import wrap_var

from ansible_collections.engine.cloud.plugins.module_utils import chart, observability
from ansible_collections.engine.cloud.plugins.plugin_utils.api import call, open_client, plugin_options, raise_on_errors, without_fallbacks

display = Display()
NAME = 'engine.cloud.chart_series lookup'
# The module's options and checks; the environment variables come from DOCUMENTATION (set_options).
SPEC = without_fallbacks(dict(observability.API.argument_spec(also=False), **chart.SPEC))


class LookupModule(LookupBase):

    def run(self, terms, variables=None, **kwargs):
        if terms:
            raise AnsibleError('engine.cloud.chart_series takes keyword arguments only (series=..., start_time=...), '
                               'got %d positional term(s)' % len(terms))
        params = plugin_options(self, SPEC, variables, kwargs, NAME)
        body, errors = chart.request(params)
        raise_on_errors(errors)
        client = open_client(params, observability.API, display.warning, secrets=[params['api_token']])
        try:
            answer = call(client, 'POST', observability.PREFIX + chart.PATH, body)
        finally:
            waited = observability.API.wait_warning(client)
            if waited:
                display.warning('The %s %s' % (NAME, waited))
        # Data from the API, never a template, also where a user allows unsafe lookups (ALLOW_UNSAFE_LOOKUPS).
        return wrap_var(chart.rows(answer.get('data')))
