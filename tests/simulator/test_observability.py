"""Observability API: auth, dashboards, alert paging, chart series validation and data, rate limit."""

import json

import pytest

from .conftest import BASIC, BEARER
from .fixture_ids import ALERT_LEGACY, ALERTS, DASHBOARD_HEALTH, DASHBOARD_INGESTION, SOURCE_LOGS, SOURCE_METRICS, TOKEN

SERIES = '/api/v2/charts/series'
T0 = 1700000000000  # 2023-11-14T22:13:20Z, not on a minute boundary
HOUR = 3600 * 1000


def series_body(*items, start=T0, end=T0 + HOUR, **extra):
    """A chart series request body."""
    items = items or (series_item(),)
    return dict({'series': list(items), 'startTime': start, 'endTime': end}, **extra)


def series_item(agg='count', where='service:prod-analytics', group_by=(), source=SOURCE_METRICS, **extra):
    """One series of a chart series request."""
    return dict({'sourceId': source, 'aggFn': agg, 'where': where, 'groupBy': list(group_by)}, **extra)


def message(reply, status=400):
    """The ``message`` of a JSON error."""
    assert reply.status == status, reply.text[:300]
    return reply.json()['message']


# Auth ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize('header', [None, 'bearer ' + TOKEN, 'Bearer wrong', 'Bearer  ' + TOKEN, BASIC, TOKEN])
@pytest.mark.parametrize('method, path', [('GET', '/api/v2/alerts'), ('GET', '/api/v2/dashboards/' + DASHBOARD_HEALTH),
                                          ('POST', SERIES)])
def test_unauthorized_is_plain_text(sim, header, method, path):
    headers = {'Authorization': header} if header else {}
    reply = sim.request(method, path, series_body() if method == 'POST' else None, headers)
    assert reply.status == 401 and reply.text == 'Unauthorized'
    assert reply.headers['Content-Type'].startswith('text/plain')


# Dashboards --------------------------------------------------------------------------------------

def test_dashboard(sim):
    reply = sim.obs('GET', '/api/v2/dashboards/' + DASHBOARD_HEALTH)
    assert reply.status == 200 and set(reply.json()) == {'data'}
    dashboard = reply.json()['data']
    assert dashboard['name'] == 'Service health' and dashboard['tags']
    for tile in dashboard['tiles']:
        assert {'id', 'name', 'x', 'y', 'w', 'h', 'asRatio', 'series'} <= set(tile)
        for item in tile['series']:
            assert item['type'] == 'time' and item['dataSource'] == 'metrics' and item['aggFn'] in ('avg', 'count')
            assert isinstance(item['groupBy'], list)
    assert sim.obs('GET', '/api/v2/dashboards/' + DASHBOARD_INGESTION).json()['data']['name'] == 'Ingestion'


@pytest.mark.parametrize('dashboard_id', ['65a1b2c3d4e5f60718293a4', 'zza1b2c3d4e5f60718293a4b', 'x'])
def test_dashboard_malformed_id(sim, dashboard_id):
    reply = sim.obs('GET', '/api/v2/dashboards/' + dashboard_id)
    assert message(reply) == 'Params validation failed: id: Invalid ObjectId'


def test_dashboard_not_found_is_plain_text(sim):
    reply = sim.obs('GET', '/api/v2/dashboards/65a1b2c3d4e5f60718293a4f')
    assert reply.status == 404 and reply.text == 'Not Found' and reply.headers['Content-Type'].startswith('text/plain')


def test_unknown_observability_route(sim):
    assert sim.obs('PATCH', '/api/v2/dashboards/' + DASHBOARD_HEALTH).status == 404
    assert sim.obs('DELETE', '/api/v2/alerts').text == 'Not Found'
    assert sim.obs('GET', '/api/v2/dashboards/%s/tiles' % DASHBOARD_HEALTH).text == 'Not Found'


# Alerts ------------------------------------------------------------------------------------------

def test_alerts_default_page(sim):
    reply = sim.obs('GET', '/api/v2/alerts')
    body = reply.json()
    total = len(ALERTS)
    assert body['meta'] == {'total': total, 'limit': 1000, 'offset': 0} and reply.headers['X-Total-Count'] == str(total)
    alerts = body['data']
    assert len(alerts) == total and len({a['dashboard'] for a in alerts if a['source'] == 'tile'}) == 5
    assert {'inactive', 'ALERT', 'OK', 'INSUFFICIENT_DATA', 'DISABLED', 'PENDING'} <= {a['state'] for a in alerts}
    assert len({a['thresholdType'] for a in alerts}) >= 3
    assert [(a['createdAt'], a['id']) for a in alerts] == sorted((a['createdAt'], a['id']) for a in alerts)
    assert {a['source'] for a in alerts} == {'tile', 'saved_search'}
    # every alert has a webhook channel but the legacy one, which reads with neither channel nor channels
    assert [a['id'] for a in alerts if a.get('channel', {}).get('type') != 'webhook'] == [ALERT_LEGACY]


def test_alerts_page_slice(sim):
    everything = sim.obs('GET', '/api/v2/alerts').json()['data']
    page = sim.obs('GET', '/api/v2/alerts?limit=3&offset=2').json()
    assert page['data'] == everything[2:5] and page['meta'] == {'total': len(ALERTS), 'limit': 3, 'offset': 2}
    assert sim.obs('GET', '/api/v2/alerts?offset=%d' % len(ALERTS)).json()['data'] == []


@pytest.mark.parametrize('query, fragment', [
    ('limit=0', 'limit: Number must be greater than or equal to 1'),
    ('limit=1001', 'limit: Number must be less than or equal to 1000'),
    ('limit=abc', 'limit: Expected integer'),
    ('limit=2.5', 'limit: Expected integer'),
    ('offset=-1', 'offset: Number must be greater than or equal to 0'),
    ('page=2', "Unrecognized key(s) in object: 'page'"),
])
def test_alerts_query_validation(sim, query, fragment):
    text = message(sim.obs('GET', '/api/v2/alerts?' + query))
    assert text.startswith('Query validation failed: ') and fragment in text


def test_alerts_paging_over_five_thousand(sim):
    sim.admin('PATCH', 'config', {'alert_count': 5000})
    pages, offset = [], 0
    while True:
        reply = sim.obs('GET', '/api/v2/alerts?limit=1000&offset=%d' % offset)
        assert reply.headers['X-Total-Count'] == str(5000 + len(ALERTS))
        pages += reply.json()['data']
        offset += 1000
        if offset >= 5000 + len(ALERTS):
            break
    assert len(pages) == 5000 + len(ALERTS) and len({a['id'] for a in pages}) == 5000 + len(ALERTS)
    assert [(a['createdAt'], a['id']) for a in pages] == sorted((a['createdAt'], a['id']) for a in pages)


def test_alerts_without_paging(sim):
    sim.admin('POST', 'reset', {'alerts_paging': False, 'alert_count': 1500})
    reply = sim.obs('GET', '/api/v2/alerts?limit=10&offset=5')
    body = reply.json()
    assert set(body) == {'data'} and len(body['data']) == 1500 + len(ALERTS) and 'X-Total-Count' not in reply.headers
    assert sim.obs('GET', '/api/v2/alerts?state=ALERT').status == 400


# Chart series: validation ------------------------------------------------------------------------

@pytest.mark.parametrize('body, fragment', [
    ({}, 'series: Required'),
    ({'series': [series_item()], 'endTime': T0}, 'startTime: Required'),
    (series_body(start=1700000000), 'startTime: Timestamp must be in milliseconds'),
    (series_body(end=999999999999), 'endTime: Timestamp must be in milliseconds'),
    (series_body(start='1700000000000'), 'startTime: Expected number, received string'),
    (series_body(start=1700000000000.5), 'startTime: Expected integer'),
    (dict(series_body(), series=[]), 'series: Array must contain at least 1 element(s)'),
    (series_body(*[series_item()] * 6), 'series: Array must contain at most 5 element(s)'),
    (series_body(series_item(group_by=['a']), series_item(group_by=['b'])), 'All series must have the same groupBy fields'),
    (series_body(series_item(group_by=['f%d' % i for i in range(11)])), 'series.0.groupBy: Array must contain at most 10'),
    (series_body({'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': '', 'groupBy': 'host'}), 'series.0.groupBy: Expected array'),
    (series_body({'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'where': ''}), 'series.0.groupBy: Required'),
    (series_body({'sourceId': SOURCE_METRICS, 'aggFn': 'count', 'groupBy': []}), 'series.0.where: Required'),
    (series_body({'aggFn': 'count', 'where': '', 'groupBy': []}), 'series.0.sourceId: Required'),
    (series_body(series_item(source='metrics')), 'series.0.sourceId: Invalid ObjectId'),
    (series_body(series_item(agg='median')), "series.0.aggFn: Invalid enum value"),
    (series_body(series_item(agg='avg')), 'series.0.field: Required for aggFn avg'),
    (series_body(series_item(color='red')), "series.0: Unrecognized key(s) in object: 'color'"),
    (series_body(limit=10), "body: Unrecognized key(s) in object: 'limit'"),
    (series_body(granularity='45s'), 'granularity: Invalid enum value'),
    (series_body(seriesReturnType='row'), 'seriesReturnType: Invalid enum value'),
    (series_body(start=T0 - 400 * 86400 * 1000, granularity='30s'), 'granularity: Too many buckets'),
])
def test_series_validation(sim, body, fragment):
    text = message(sim.obs('POST', SERIES, body))
    assert text.startswith('Body validation failed: ') and fragment in text


def test_series_validation_lists_every_problem(sim):
    text = message(sim.obs('POST', SERIES, {'series': [series_item()], 'startTime': 1, 'endTime': 2}))
    assert text == 'Body validation failed: startTime: Timestamp must be in milliseconds; endTime: Timestamp must be in milliseconds'


def test_series_body_must_be_json(sim):
    reply = sim.request('POST', SERIES, raw=json.dumps(series_body()), headers={'Authorization': BEARER, 'Content-Type': 'text/plain'})
    assert 'series: Required' in message(reply)


def test_unknown_source_numbers_series_from_one(sim):
    reply = sim.obs('POST', SERIES, series_body(series_item(), series_item(source='65b000000000000000000009')))
    assert reply.status == 404 and reply.json() == {'error': 'Source not found for series 2'}


@pytest.mark.parametrize('where', ['service:"prod', 'level:error AND', 'OR level:error', '(level:error', 'level:error)',
                                   'a:b AND OR c:d', '()', 'level:', 'NOT', 'a:b AND (c:d OR)'])
def test_malformed_where_is_a_500(sim, where):
    reply = sim.obs('POST', SERIES, series_body(series_item(where=where)))
    assert reply.status == 500 and set(reply.json()) == {'error'} and reply.json()['error']


@pytest.mark.parametrize('where', ['', 'level:error', 'service:"prod analytics" AND (level:error OR level:warn)',
                                   'NOT level:info', 'timeout', 'host:ip-10-0-1-17 status:500'])
def test_wellformed_where(sim, where):
    assert sim.obs('POST', SERIES, series_body(series_item(where=where))).status == 200


# Chart series: data ------------------------------------------------------------------------------

def rows_of(sim, body):
    """Post a series request and return its rows."""
    reply = sim.obs('POST', SERIES, body)
    assert reply.status == 200, reply.text[:300]
    assert set(reply.json()) == {'data'}
    return reply.json()['data']


def test_buckets_floor_to_the_grid_and_ascend(sim):
    rows = rows_of(sim, series_body(series_item(), series_item(agg='avg', field='cpu.usage'), granularity='5m'))
    starts = [row['ts_bucket'] for row in rows]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    assert all(ts % 300000 == 0 and T0 - 300000 < ts < T0 + HOUR for ts in starts)
    everything = rows_of(sim, series_body(start=T0, end=T0 + 100 * HOUR, granularity='1h'))
    assert min(row['ts_bucket'] for row in everything) <= T0


def test_counts_are_strings_and_averages_numbers(sim):
    rows = rows_of(sim, series_body(series_item(), series_item(agg='avg', field='cpu.usage'), granularity='1m'))
    for row in rows:
        assert row['group'] == []
        if 'series_0.data' in row:
            assert isinstance(row['series_0.data'], str) and row['series_0.data'].isdigit()
        if 'series_1.data' in row:
            assert isinstance(row['series_1.data'], (int, float)) and not isinstance(row['series_1.data'], bool)


def test_gaps_leave_out_rows_and_keys(sim):
    body = series_body(series_item(), series_item(agg='max', field='cpu.usage'), start=T0, end=T0 + 300 * HOUR, granularity='1h')
    rows = rows_of(sim, body)
    grid = set(range(T0 // HOUR * HOUR, T0 + 300 * HOUR, HOUR))
    assert {row['ts_bucket'] for row in rows} < grid  # some buckets have no row at all
    assert any('series_0.data' not in row for row in rows) and any('series_1.data' not in row for row in rows)
    assert all('series_0.data' in row or 'series_1.data' in row for row in rows)


def test_data_is_deterministic_and_depends_on_the_query(sim):
    body = series_body(series_item(where='level:error'), granularity='1m')
    assert rows_of(sim, body) == rows_of(sim, body)
    assert rows_of(sim, body) != rows_of(sim, series_body(series_item(where='level:warn'), granularity='1m'))
    assert rows_of(sim, body) != rows_of(sim, series_body(series_item(where='level:error', source=SOURCE_LOGS), granularity='1m'))


@pytest.mark.parametrize('narrow, wide', [
    ('service:prod-analytics AND status:error', 'service:prod-analytics'),
    ('service:prod-analytics status:error', 'service:prod-analytics'),
    ('level:error AND (host:a OR host:b)', 'level:error'),
    ('NOT level:info AND service:"reporting replica"', 'service:"reporting replica"'),
])
def test_counts_are_coherent_a_narrower_where_never_counts_more(sim, narrow, wide):
    for agg in ('count', 'count_distinct'):
        body = series_body(series_item(agg=agg, where=narrow, group_by=['host']), series_item(agg=agg, where=wide, group_by=['host']),
                           start=T0, end=T0 + 24 * HOUR, granularity='5m')
        rows = rows_of(sim, body)
        # A bucket has data for both or for neither: the where does not decide whether there were events.
        assert rows and all(('series_0.data' in row) == ('series_1.data' in row) for row in rows)
        assert all(int(row['series_0.data']) <= int(row['series_1.data']) for row in rows if 'series_0.data' in row)


def test_errors_are_under_one_percent_as_the_discovery_guide_gate_expects(sim):
    body = series_body(series_item(where='service:prod-analytics AND status:error'), series_item(where='service:prod-analytics'),
                       start=T0, end=T0 + 7 * 24 * HOUR, granularity='15m')
    rows = rows_of(sim, body)
    failed, total = (sum(int(row.get('series_%d.data' % index, 0)) for row in rows) for index in (0, 1))
    assert 0 < failed < 0.01 * total


@pytest.mark.parametrize('span_ms, step_ms', [
    (15 * 60 * 1000, 15000), (HOUR, 60000), (5 * HOUR, 300000), (24 * HOUR, 1800000), (30 * 24 * HOUR, 43200000),
    (HOUR + 1, 300000), (10 ** 12, 2592000000),
])
def test_auto_granularity(sim, span_ms, step_ms):
    start = 1700000000000 // 2592000000 * 2592000000
    for body in (series_body(start=start, end=start + span_ms), series_body(start=start, end=start + span_ms, granularity='auto')):
        starts = sorted({row['ts_bucket'] for row in rows_of(sim, body)})
        assert all(ts % step_ms == 0 for ts in starts)
        assert min(b - a for a, b in zip(starts, starts[1:])) == step_ms


def test_column_rows_are_unmerged(sim):
    items = (series_item(), series_item(agg='avg', field='cpu.usage'))
    merged = rows_of(sim, series_body(*items, granularity='5m', seriesReturnType='ratio'))
    assert merged == rows_of(sim, series_body(*items, granularity='5m'))
    column = rows_of(sim, series_body(*items, granularity='5m', seriesReturnType='column'))
    assert all(len([key for key in row if key.startswith('series_')]) == 1 for row in column)
    assert [row['ts_bucket'] for row in column] == sorted(row['ts_bucket'] for row in column)
    assert len(column) == sum(len([key for key in row if key.startswith('series_')]) for row in merged)


def test_group_by(sim):
    rows = rows_of(sim, series_body(series_item(group_by=['host', 'level']), series_item(group_by=['host', 'level']),
                                    granularity='5m'))
    groups = {tuple(row['group']) for row in rows}
    assert 1 < len(groups) <= 3 and all(len(group) == 2 for group in groups)
    keys = [(row['ts_bucket'], row['group']) for row in rows]
    assert keys == sorted(keys) and len(set(map(str, keys))) == len(keys)


def test_start_after_end_is_not_checked(sim):
    assert rows_of(sim, series_body(start=T0 + HOUR, end=T0)) == []


def test_ten_thousand_buckets_times_five_series(sim):
    # How fast this answers is measured by `make bench`, not asserted here.
    items = [series_item(agg=agg, field='cpu.usage') for agg in ('count', 'avg', 'max', 'p95', 'sum')]
    rows = rows_of(sim, series_body(*items, start=T0, end=T0 + 10000 * 30000, granularity='30s'))
    assert 9000 < len(rows) <= 10001
    assert [row['ts_bucket'] for row in rows] == sorted(row['ts_bucket'] for row in rows)


# Rate limit --------------------------------------------------------------------------------------

def test_rate_limit_headers_and_429_before_auth(sim):
    sim.admin('POST', 'reset', {'rate_limit': True})
    first = sim.obs('GET', '/api/v2/alerts')
    assert first.headers['RateLimit-Limit'] == '100' and first.headers['RateLimit-Remaining'] == '99'
    assert 1 <= int(first.headers['RateLimit-Reset']) <= 60
    for _attempt in range(98):
        sim.obs('GET', '/api/v2/dashboards/65a1b2c3d4e5f60718293a4f')
    last = sim.obs('GET', '/api/v2/alerts')
    assert last.status == 200 and last.headers['RateLimit-Remaining'] == '0'
    refused = sim.obs('GET', '/api/v2/alerts')
    assert refused.status == 429 and refused.headers['Content-Type'].startswith('text/plain')
    assert refused.text == 'Too many requests, please try again later.' and refused.headers['Retry-After'] == '60'
    assert refused.headers['RateLimit-Remaining'] == '0'
    bad = {'Authorization': 'Bearer nope'}
    replies = [sim.request('GET', '/api/v2/alerts', headers=bad) for _attempt in range(101)]
    assert [r.status for r in replies] == [401] * 100 + [429]
    assert replies[0].headers['RateLimit-Remaining'] == '99'


def test_rate_limit_headers_on_every_answer_also_with_the_switch_off(sim):
    assert sim.obs('GET', '/api/v2/alerts').headers['RateLimit-Limit'] == '100'  # tests/simulator/test_rate_window.py
