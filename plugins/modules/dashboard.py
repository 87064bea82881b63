#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: dashboard
short_description: Create, change and delete an observability dashboard
version_added: 0.2.0
description:
  - Manages an observability dashboard and its tiles as code. The dashboard is found by O(dashboard_id), or by O(name)
    in one list request (C(GET /api/v2/dashboards)); names are not unique, and two dashboards of the name fail the task
    before any write, listing their ids. With both, the dashboard of that id gets that name.
  - With O(state=present), a dashboard that does not exist is created (one C(POST)). An existing one is compared with
    the task and, when something differs, updated with one C(PUT) of its name, its tiles and (when given) its tags.
  - Tiles compare in one normal form, whatever form the server reads them back in (as they were sent, in series form,
    or in config form with the defaults the server adds, C(fillNulls), C(asRatio), C(where), C(whereLanguage),
    C(valueExpression)). A second run reports no change and sends no write.
  - Tiles are matched by O(tiles[].name); among tiles that share a name (the API allows it, and an empty name), the
    first of O(tiles) is the first of that name the dashboard lists, and so on. An update carries each kept tile's
    current id, so the tile and the alerts on it survive an edit of its position, size or query, and its section and
    tab (O(tiles[].container_id), O(tiles[].tab_id)). A tile that is new or renamed gets a new id.
  - The API deletes alerts on an update or a delete of the dashboard without asking. A change that would delete alerts
    (a tile removed or renamed, a tile whose display type cannot carry alerts, which the API cleans on every update,
    or O(state=absent) of a dashboard with tile alerts) fails before any write and names each alert, unless
    O(allow_alert_deletion=true); the result's RV(deleted_alerts) then names them.
  - With O(state=absent), the dashboard is deleted and a read confirms it is gone (the API answers a delete of a
    dashboard that is not there with success too). An absent dashboard reports no change.
  - What the API would refuse (positions and sizes out of range, series items of mixed types or without what their
    type needs, source ids that are not object ids, a tile with both or neither of O(tiles[].series) and
    O(tiles[].config), a C(valueExpression), C(groupBy) or C(level) the config form does not take), what it would drop
    (a C(config) key outside its schema for the display type; a O(tiles[].series) of type V(number), V(search) or
    V(markdown) of more than one item), and PromQL tiles (which no read shows) fail before any request, naming the
    option.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  state:
    description:
      - V(present) creates or updates the dashboard, V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  dashboard_id:
    description:
      - Id of the dashboard, an object id of 24 hexadecimal digits.
      - One of O(dashboard_id) and O(name) is required. A dashboard is created from O(name) alone.
    type: str
  name:
    description:
      - Name of the dashboard, up to 1024 characters. Without O(dashboard_id), the dashboard is found by this name.
    type: str
  tags:
    description:
      - The dashboard's tags (up to 50, each up to 32 characters). Given, they replace the current ones (compared as the
        server keeps them, duplicates removed, the first kept); left out, the current tags are kept.
    type: list
    elements: str
  tiles:
    description:
      - The whole list of tiles. A tile left out is removed (with its alerts, see O(allow_alert_deletion)). Left out,
        the current tiles are kept. The order of the list does not matter (a tile's place is O(tiles[].x) and
        O(tiles[].y)).
      - A PromQL tile fails before any request (see the notes).
    type: list
    elements: dict
    suboptions:
      name:
        description:
          - Name of the tile; it may be empty. It is the tile's identity; tiles that share a name are told apart by their
            order in the list.
        type: str
        required: true
      x:
        description: Column of the tile's left edge, 0 to 23.
        type: int
        required: true
      y:
        description: Row of the tile's top edge, 0 or more.
        type: int
        required: true
      w:
        description: Width in columns, 1 to 24.
        type: int
        required: true
      h:
        description: Height in rows, 1 or more.
        type: int
        required: true
      container_id:
        description:
          - Id of the section (one of the dashboard's C(containers), which this module leaves as they are) the tile is
            in, up to 256 characters. Left out, the tile stays where it is; V("") takes it out of its section.
          - A section (or tab) that the dashboard as read does not have fails before any write (a new dashboard has
            none).
        type: str
      tab_id:
        description:
          - Id of the tab of that section the tile is in. Left out, the tile keeps its tab while it stays in its
            section. Needs O(tiles[].container_id).
        type: str
      series:
        description:
          - The tile's query in series form, the API's series items in snake_case, all of one O(tiles[].series[].type).
          - The server stores it in config form (see the notes), with the display type of the items' type
            (V(table), V(number), V(search), V(markdown)); a V(time) tile is C(stacked_bar) when its first item says
            so, else C(line).
          - Exactly one of O(tiles[].series) and O(tiles[].config).
        type: list
        elements: dict
        suboptions:
          type:
            description: Kind of the item; every item of a tile has the same.
            type: str
            required: true
            choices: [time, table, number, search, markdown]
          source_id:
            description: Id of the source the item queries, 24 lowercase hexadecimal digits; required (except for
              V(markdown)).
            type: str
          data_source:
            description: The contract's older form (V(metrics)), without O(tiles[].series[].source_id); kept so that the
              definition of an old tile can be fed back unchanged. Current servers refuse an item without a source id.
            type: str
          agg_fn:
            description: Aggregation; required for V(time), V(table) and V(number).
            type: str
            choices: [avg, count, count_distinct, last_value, max, min, quantile, sum, any, none, increase]
          field:
            description: Field aggregated (not for C(count)).
            type: str
          where:
            description: Filter of the query (V("") for none); required (except for V(markdown)).
            type: str
          where_language:
            description: Language of O(tiles[].series[].where); V(lucene) when left out. V(promql) fails (see O(tiles)).
            type: str
            choices: [sql, lucene, promql]
          group_by:
            description: Fields to group by, up to 10; the first item's are the tile's. Required for V(time) and
              V(table) (V([]) for none); a V(number) tile keeps none.
            type: list
            elements: str
          alias:
            description: Label of the series.
            type: str
          level:
            description: Quantile level, 0 to 1; reads show it only for C(quantile) at 0.5, 0.9, 0.95 or 0.99, and only
              then is it compared.
            type: float
          metric_data_type:
            description: Type of the metric (stored as C(metricType)).
            type: str
          metric_name:
            description: Name of the metric.
            type: str
          number_format:
            description: How numbers are shown; the first item's moves to the tile.
            type: dict
          display_type:
            description: V(stacked_bar) on the first item of a V(time) tile makes it a stacked bar chart.
            type: str
            choices: [line, stacked_bar]
          sort_order:
            description: Order of a V(table) item's rows (a read in config form does not keep it).
            type: str
            choices: [asc, desc]
          fields:
            description: The fields a V(search) item shows (stored joined with C(", ")).
            type: list
            elements: str
          content:
            description: The text of a V(markdown) item.
            type: str
      as_ratio:
        description:
          - With O(tiles[].series) of exactly two items, chart the first divided by the second.
          - Only with O(tiles[].series); a tile in O(tiles[].config) form sets C(asRatio) in its config.
        type: bool
      config:
        description:
          - The tile in the API's config form, as the API writes it (camelCase), for example a number tile with
            C(displayType), C(sourceId) and C(select) (a list of one C(aggFn)).
          - Only the keys of the server's config schema for the display type are taken (see the notes).
          - Exactly one of O(tiles[].series) and O(tiles[].config).
        type: dict
  containers:
    description:
      - The dashboard's sections and tabs, as the API writes them (each C({id, title, tabs}) and what else the web
        console sets); the tiles' O(tiles[].container_id) and O(tiles[].tab_id) name them.
      - Left out, they are kept as they are; given, they are the whole list, compared and sent as given.
    type: list
    elements: dict
    version_added: 0.2.0
  allow_alert_deletion:
    description:
      - V(false) fails, before any write, a change that would delete alerts, naming each. V(true) lets it go; the
        result's RV(deleted_alerts) names them.
    type: bool
    default: false
  wait:
    description:
      - After a delete, read the dashboard until the API answers 404 (it answers a delete with success whether the
        dashboard was there or not, so only a read tells it is gone). V(false) takes the answer as it is.
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds, at least 1, for that wait.
    type: int
    default: 60
extends_documentation_fragment:
  - engine.cloud.observability
  - engine.cloud.cloud.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.OBSERVABILITY_GROUP
attributes:
  check_mode:
    support: full
    details:
      - Reports what would be created, changed or deleted, the alerts that would be deleted included, and sends no
        write. A change refused for its alerts fails in check mode too.
  diff_mode:
    support: full
    details:
      - Shows the name and tags that differ and the tiles by name (the second of one name with C(#2) after its name),
        with only what differs (in the normal form; a tile the task gives in series form in series form), and under
        C(alerts) the alerts the change would delete. Tiles are never masked for their names.
  idempotent:
    support: full
notes:
  - How a series tile is stored, and so compared - the display type of its items' type, one C(select) item per series item (C(aggFn), C(alias), C(level),
    C(metricName), C(metricType) from C(metric_data_type), C(valueExpression) from C(field), C(where) and
    C(whereLanguage) with their defaults), C(sourceId) and C(groupBy) (joined with commas) from the first item, the
    first C(numberFormat) on the tile, C(asRatio) only with exactly two items. Two tasks that differ only where the
    stored form does not (the C(type) of the items, say) describe the same tile.
  - A server that reads tiles back in series form cannot show what only the config form holds (C(fillNulls),
    C(having), C(orderBy), a C(select) item's C(numberFormat), a number tile's C(groupBy)). Against such a server, those
    are not compared (no client can see them); they are sent with any update of the dashboard.
  - A create whose answer is lost (a timeout, a reset, HTTP 502, 503 or 504) is never sent again blindly; the
    dashboards are read again by name, and one dashboard of that name is taken as created. An update whose answer is
    lost is not sent again either (a replay would give the tiles it added new ids); the dashboard is read again, and
    only what still differs is sent.
  - How a read shows a series - a V(number) series with its first item and no C(groupBy), a V(search) series with its
    fields joined by C(", "), C(alias) and C(metricName) only when not empty, C(level) only for C(quantile) at 0.5, 0.9,
    0.95 or 0.99 - is how the module compares it.
  - With O(tiles) left out, the tiles are neither compared nor changed; an update of the name or the tags sends them
    back as read, each with its id.
  - The API leaves tiles whose query language is PromQL out of every read, so no client can send them back, and a
    PromQL tile of the task would be sent again with a new id on every run; such a tile fails before any request. An
    update (a change of any option) drops the PromQL tiles made elsewhere, and their alerts; the module names those
    alerts as it does for a removed tile.
  - A config tile's C(displayType) is one of V(line), V(stacked_bar), V(table), V(number), V(pie), V(bar), V(heatmap),
    V(search), V(markdown), V(event_patterns). A chart has C(select) (1 to 20 items; V(number), V(pie) and V(bar)
    exactly 1, a V(number) tile with C(formulas) more); C(asRatio) needs exactly 2. A C(select) item's
    C(valueExpression) is refused with C(count) and required otherwise; C(level) goes only with C(quantile), at 0.5,
    0.9, 0.95 or 0.99; C(groupBy) is one string, the fields joined by commas.
  - Only the keys of the server's config schema for the display type are taken in O(tiles[].config) (the server drops
    any other, so it could never compare) - C(displayType), C(sourceId), C(select), C(groupBy), C(numberFormat) for
    every chart; C(asRatio) (line, stacked_bar, table), C(fillNulls) (line, stacked_bar), C(fitYAxisToData) and
    C(compareToPreviousPeriod) (line), C(alignDateRangeToGranularity) and C(seriesLimit) (line, stacked_bar),
    C(formulas) (line, stacked_bar, table, number), C(showOperandSeries) (line, stacked_bar, table), C(having),
    C(orderBy), C(groupByColumnsOnLeft) and C(onClick) (table), C(color), C(colorRules) and C(backgroundChart)
    (number), C(orderBy) and C(limit) (pie, bar); raw SQL tiles (C(configType=sql) with C(connectionId) and
    C(sqlTemplate), no C(select) needed) for line, stacked_bar, table, number, pie and bar; C(select), C(where),
    C(whereLanguage) for search; C(markdown) for markdown. A C(select) item takes C(aggFn), C(valueExpression),
    C(alias), C(level), C(where), C(whereLanguage), C(numberFormat), C(metricType), C(metricName), C(periodAggFn), and
    on a heatmap C(countExpression) and C(heatmapScaleType).
  - The API has no version or ETag on dashboards; the last writer wins.
seealso:
  - module: engine.cloud.dashboard_info
  - module: engine.cloud.alert_info
'''

EXAMPLES = r'''
- name: A dashboard with a line chart in series form and a number tile in config form
  engine.cloud.dashboard:
    name: Checkout service
    tags: [production, checkout]
    tiles:
      - name: Requests per minute
        x: 0
        y: 0
        w: 12
        h: 3
        series:
          - type: time
            source_id: 65b000000000000000000001
            agg_fn: count
            where: "service:checkout"
            group_by: [host]
      - name: Error count
        x: 12
        y: 0
        w: 6
        h: 3
        config:
          displayType: number
          sourceId: 65b000000000000000000001
          select:
            - aggFn: count
              where: "service:checkout AND level:error"
  register: checkout

- name: Move a tile; it keeps its id and the alerts on it
  engine.cloud.dashboard:
    dashboard_id: "{{ checkout.dashboard.id }}"
    tiles:
      - name: Requests per minute
        x: 0
        y: 3
        w: 24
        h: 3
        series:
          - type: time
            source_id: 65b000000000000000000001
            agg_fn: count
            where: "service:checkout"
            group_by: [host]
      - name: Error count
        x: 0
        y: 0
        w: 6
        h: 3
        config:
          displayType: number
          sourceId: 65b000000000000000000001
          select:
            - aggFn: count
              where: "service:checkout AND level:error"

- name: Export every dashboard, then apply the definitions (no change, no write)
  engine.cloud.dashboard_info:
  register: exported

- name: Apply the exported definitions
  engine.cloud.dashboard: "{{ dashboard.definition }}"
  loop: "{{ exported.dashboards }}"
  loop_control:
    loop_var: dashboard
    label: "{{ dashboard.name }}"

- name: Delete the dashboard, and the alerts on its tiles
  engine.cloud.dashboard:
    name: Checkout service
    state: absent
    allow_alert_deletion: true
  register: deleted

- name: Say which alerts went with it
  ansible.builtin.debug:
    msg: "{{ deleted.deleted_alerts | map(attribute='name') | list }}"
'''

RETURN = r'''
dashboard:
  description:
    - The dashboard after the task, as the API answered the create or update (or as read when nothing changed).
    - In check mode, the dashboard as it would be (new tiles, and a dashboard to be created, have no C(id) yet).
    - After a delete, the dashboard as read before it; V({}) when there was nothing to delete.
  returned: success
  type: dict
  contains:
    id:
      description: Id of the dashboard.
      type: str
      sample: 65a1b2c3d4e5f60718293a4b
    name:
      description: Name of the dashboard.
      type: str
      sample: Checkout service
    tags:
      description: Tags of the dashboard.
      type: list
      elements: str
      sample: [production, checkout]
    tiles:
      description:
        - The tiles, each with C(id), C(name), C(x), C(y), C(w), C(h) and C(series) (with C(asRatio)) or C(config), in
          the form the server reads them back.
      type: list
      elements: dict
      sample:
        - id: 6650f1a2b3c4d5e6f7a8b9c0
          name: Error count
          x: 12
          y: 0
          w: 6
          h: 3
          config:
            displayType: number
            sourceId: 65b000000000000000000001
            select:
              - aggFn: count
                where: "service:checkout AND level:error"
deleted_alerts:
  description:
    - The alerts the task deleted (in check mode, would delete), with O(allow_alert_deletion=true); V([]) when none.
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: Id of the alert.
      type: str
      sample: 65c000000000000000000001
    name:
      description: Name of the alert.
      type: str
      sample: High CPU
    tile_id:
      description: Id of the tile the alert was on.
      type: str
      sample: 6650f1a2b3c4d5e6f7a8b9c0
    tile:
      description: Name of that tile, as last read (null for a tile that reads leave out).
      type: str
      sample: CPU usage
    reason:
      description: Why the change deletes it.
      type: str
      sample: its tile is left out
'''

from ansible_collections.engine.cloud.plugins.module_utils import dashboard
from ansible_collections.engine.cloud.plugins.module_utils.observability import ObservabilityModule


def main():
    dashboard.run(ObservabilityModule(dashboard.SPEC, **dashboard.OPTIONS))


if __name__ == '__main__':
    main()
