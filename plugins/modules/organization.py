#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: organization
short_description: Keep a whole organization (services, pipes, dashboards, alerts) as code
version_added: 0.2.0
description:
  - Declares, exports, checks and converges every service, pipe, dashboard and alert of an organization and its
    observability team in one task.
  - Each entry of O(config) takes the options of its own module (M(engine.cloud.service), M(engine.cloud.pipe),
    M(engine.cloud.dashboard), M(engine.cloud.alert)), without the connection options, O(state) and the waits, and is
    checked and converged by that module's own code, with the same rules and messages (a message names the entry, for
    example C(config.pipes[3])).
  - "The task reads one list per type (the services, each service's pipes, the dashboards, every page of the alerts),
    plans every entry in check mode on those reads, judges the whole plan against the rails (O(allow_empty),
    O(allow_service_deletion), O(allow_alert_deletion), O(max_deletions), O(owner_tag), O(plan_digest)), and only then
    writes: creates and updates of services, pipes, dashboards and alerts in that order, deletions last, in reverse."
  - A no-op run sends no write. Every write is planned on a read of this task.
  - Identity - an entry with an id is that object; else it is found by name (a service in the organization, a pipe in
    its service, a dashboard, an alert); an alert with neither is found by its source (its tile, or its saved search)
    when that source carries exactly one alert. Two objects for one entry, or two entries for one object, fail the task
    before any write, naming both.
  - In O(state=overridden) an entry's lists are exact - a service entry's C(purge_ip_access_list),
    C(purge_private_endpoint_ids) and C(purge_tags) default to true.
  - There is no C(replaced) state - options left out of an entry are kept and lists given are replaced, as in the
    per-object modules.
  - The R(organization as code guide,ansible_collections.engine.cloud.docsite.guide_organization) walks a team from an
    export to a git repository, a drift job on a schedule and an apply gated by O(plan_digest).
author:
  - engine.cloud contributors (@engine-cloud)
options:
  state:
    description:
      - V(merged) converges each entry as its own module would; nothing that is not listed is touched.
      - V(overridden) does what V(merged) does, with exact lists (see the notes), then deletes every object of the types
        in O(resources) that no entry names (with O(owner_tag), that carries the tag).
      - V(deleted) deletes exactly the objects the entries name, behind the same rails.
      - V(gathered) only reads, and returns RV(gathered), the entries that describe what there is.
      - V(rendered) sends nothing and returns, as RV(rendered), the create request of each entry.
    type: str
    choices: [merged, overridden, deleted, gathered, rendered]
    default: merged
  config:
    description:
      - What the organization holds. Each list takes the options of its module; each entry is checked as that module
        checks them, before anything is read. An entry's secrets are masked in every result and log.
      - An entry with an id (C(service_id), C(pipe_id), C(dashboard_id), C(alert_id)) is that object; else it is found
        by name, and an alert with neither by its source. Two objects for one entry, or two entries for one object, fail
        the task before any write (see the notes).
    type: dict
    suboptions:
      services:
        description: M(engine.cloud.service) options, each entry a service.
        type: list
        elements: dict
      pipes:
        description:
          - M(engine.cloud.pipe) options, each entry a pipe, with C(service) - the name or id of its service (one this
            task creates, too).
        type: list
        elements: dict
      dashboards:
        description: M(engine.cloud.dashboard) options, each entry a dashboard.
        type: list
        elements: dict
      alerts:
        description:
          - M(engine.cloud.alert) options, each entry an alert, on a C(dashboard) and C(tile) (each a name or an id) or a
            C(saved_search_id).
        type: list
        elements: dict
  resources:
    description:
      - The types this task reads and, with O(state=overridden), may delete from. Required with O(state=overridden), so
        that a purge never reaches a type nobody meant.
      - Default - for V(gathered), all four; otherwise the types O(config) lists.
    type: list
    elements: str
    choices: [services, pipes, dashboards, alerts]
  include_ids:
    description:
      - O(state=gathered) - with each object's id (V(true)), or names only (V(false)), to promote the organization into
        another one (its entries are then found by name, and created where missing).
    type: bool
    default: true
  allow_empty:
    description:
      - O(state=overridden) with an empty list (or none) for a type in O(resources) fails before any request unless this
        is true. It protects against a variable that came out empty and would delete everything.
    type: bool
    default: false
  allow_service_deletion:
    description:
      - A plan that deletes a service (the service, its data and its pipes) fails before any write, naming it, unless this
        is true.
    type: bool
    default: false
  allow_alert_deletion:
    description:
      - A plan that deletes an alert (purged, or deleted by a dashboard change, as in M(engine.cloud.dashboard)) fails
        before any write, naming it, unless this is true. An entry of O(config.dashboards) may set its own.
    type: bool
    default: false
  max_deletions:
    description:
      - A plan that deletes more objects than this (alerts deleted with their dashboards included) fails before any
        write and lists them. V(-1) - no bound.
    type: int
    default: 10
  owner_tag:
    description:
      - "One C({key: value}), for example C({managed-by: ansible}). It is added to what this task creates and to the tags
        an entry gives (a service's tag; a dashboard's tag string C(key:value)), and O(state=overridden) deletes only
        objects that carry it (a pipe or an alert counts as owned when its service or dashboard does). Objects made by
        hand, or by another team's task, are then never purged."
    type: dict
  plan_digest:
    description:
      - The RV(plan_digest) of a check-mode run that a person reviewed. An apply whose own plan differs (something
        changed since the review) fails before any write.
    type: str
  wait_timeout:
    description:
      - How long the task waits, in all, for what it creates to be ready for what depends on it (a new service for its
        pipes), and for deletions to show in reads.
    type: int
    default: 1800
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.observability
  - engine.cloud.attributes
  - engine.cloud.attributes.ALL_GROUP
attributes:
  check_mode:
    support: full
    details: Check mode plans exactly the requests an apply sends and returns the same RV(summary); nothing is written.
  diff_mode:
    support: full
    details: Each object's difference, headed by its type and name.
  idempotent:
    support: full
notes:
  - Secrets are never exported - RV(omitted_secrets) lists where they were (service passwords, pipe credentials). An
    entry without them keeps what the server has.
  - A failed or partial read (a failed page of the alerts, a service whose pipes cannot be listed) fails the task before
    any write, whatever the state - nothing is ever deleted because it could not be seen.
  - Objects the API will not delete in their state (a failed service) are left and reported in RV(summary.skipped), with
    the reason.
  - The credentials - the environment (C(ENGINE_CLOUD_*), C(ENGINE_OBSERVABILITY_*)), an AWX credential, or
    C(module_defaults) for C(group/engine.cloud.all); the options of both APIs are needed for the types in scope.
seealso:
  - module: engine.cloud.service
  - module: engine.cloud.pipe
  - module: engine.cloud.dashboard
  - module: engine.cloud.alert
'''

EXAMPLES = r'''
- name: Export the whole organization (ids kept), to keep it in git
  engine.cloud.organization:
    state: gathered
  register: organization

- name: Make the directory of the files
  ansible.builtin.file:
    path: org
    state: directory
    mode: "0755"

- name: Write one file per type
  ansible.builtin.copy:
    content: "{{ organization.gathered[item] | to_nice_yaml }}"
    dest: "org/{{ item }}.yml"
    mode: "0644"
  loop: [services, pipes, dashboards, alerts]

- name: Export names only, to promote into another organization
  engine.cloud.organization:
    state: gathered
    include_ids: false
  register: promotion

- name: Drift - what would an apply change? (check mode, with --diff for each object)
  engine.cloud.organization:
    state: overridden
    resources: [services, pipes, dashboards, alerts]
    config:
      services: "{{ lookup('ansible.builtin.file', 'org/services.yml') | from_yaml }}"
      pipes: "{{ lookup('ansible.builtin.file', 'org/pipes.yml') | from_yaml }}"
      dashboards: "{{ lookup('ansible.builtin.file', 'org/dashboards.yml') | from_yaml }}"
      alerts: "{{ lookup('ansible.builtin.file', 'org/alerts.yml') | from_yaml }}"
  check_mode: true
  register: drift

- name: Apply exactly the plan a person reviewed
  engine.cloud.organization:
    state: overridden
    resources: [services, pipes, dashboards, alerts]
    config:
      services: "{{ lookup('ansible.builtin.file', 'org/services.yml') | from_yaml }}"
      pipes: "{{ lookup('ansible.builtin.file', 'org/pipes.yml') | from_yaml }}"
      dashboards: "{{ lookup('ansible.builtin.file', 'org/dashboards.yml') | from_yaml }}"
      alerts: "{{ lookup('ansible.builtin.file', 'org/alerts.yml') | from_yaml }}"
    plan_digest: "{{ reviewed_digest }}"

- name: Converge a few objects and leave the rest alone
  engine.cloud.organization:
    state: merged
    config:
      services:
        - name: analytics
          provider: aws
          region: eu-central-1
          idle_scaling: true
          tags: {team: data}
      pipes:
        - name: clicks
          service: analytics
          source:
            kafka: {type: kafka, format: JSONEachRow, brokers: "broker-1:9092", topics: clicks,
                    credentials: {username: ingest, password: "{{ vault_kafka_password }}"}}
          destination: {database: default, table: clicks, managed_table: true, columns: [{name: ts, type: DateTime}]}

- name: Purge only what this team manages, at most three deletions
  engine.cloud.organization:
    state: overridden
    resources: [dashboards, alerts]
    owner_tag: {managed-by: ansible}
    max_deletions: 3
    allow_alert_deletion: true
    config:
      dashboards: "{{ team_dashboards }}"
      alerts: "{{ team_alerts }}"

- name: Delete two named dashboards (and, as allowed, their alerts)
  engine.cloud.organization:
    state: deleted
    allow_alert_deletion: true
    config:
      dashboards:
        - name: old staging
        - name: scratch

- name: What would a create send? (offline)
  engine.cloud.organization:
    state: rendered
    config:
      dashboards:
        - name: Ingestion
          tiles: []
  register: rendered
'''

RETURN = r'''
summary:
  description:
    - What the plan does (check mode) or did, each item C({type, id, name}), C(type) one of C(service), C(pipe),
      C(dashboard), C(alert); C(id) is null for what a check-mode run would create. A skipped item also has C(reason).
    - V(adopted) - found by name or source (the entry had no id) with nothing to change.
  returned: state is merged, overridden or deleted
  type: dict
  contains:
    create: {description: Objects created., type: list, elements: dict}
    update:
      description: "Objects changed. Read it as C(summary['update']): in Jinja2, C(summary.update) is the method of a dictionary."
      type: list
      elements: dict
    delete: {description: Objects deleted., type: list, elements: dict}
    adopted: {description: 'Objects found by name or source, unchanged.', type: list, elements: dict}
    skipped: {description: 'Objects the API would not delete in their state, with the reason.', type: list, elements: dict}
    unchanged: {description: 'Objects found by id, unchanged.', type: list, elements: dict}
  sample: {create: [], update: [{type: alert, id: 65c000000000000000000001, name: CPU high}], delete: [], adopted: [],
           skipped: [], unchanged: [{type: dashboard, id: 65a1b2c3d4e5f60718293a4b, name: Service health}]}
plan_digest:
  description: A digest of the plan (every change and deletion with its difference), to give an apply as O(plan_digest).
  returned: state is merged, overridden or deleted
  type: str
  sample: 0f2b6c1e9a7d4e3c8b5a6f1d2e3c4b5a6f7e8d9c0b1a2f3e4d5c6b7a8f9e0d1c
gathered:
  description:
    - The entries that describe the organization, one list per type in O(resources), sorted by name then id, ready to
      be given back as O(config). References by name where the name is unique, by id otherwise.
  returned: state is gathered
  type: dict
  sample: {services: [{name: prod-analytics, service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51, provider: aws,
                       region: eu-central-1}], pipes: [], dashboards: [], alerts: []}
omitted_secrets:
  description: Where the export left secrets out (no read shows them), as paths into RV(gathered).
  returned: state is gathered
  type: list
  elements: str
  sample: ['services[0].password', 'pipes[2].source.kafka.credentials']
rendered:
  description: The create request of each entry (C(method), C(path), C(body), C(entry)), secrets masked.
  returned: state is rendered
  type: list
  elements: dict
  sample: [{method: POST, path: /api/v2/dashboards, body: {name: Ingestion, tiles: []}, entry: 'config.dashboards[0]'}]
applied:
  description: When a write failed, what the task had done before it (in the shape of RV(summary)).
  returned: on a failure while applying
  type: dict
'''

from ansible_collections.engine.cloud.plugins.module_utils import organization


def main():
    organization.run(organization.OrganizationModule())


if __name__ == '__main__':
    main()
