# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A chart series query, behind the chart_series module and lookup: its options, their checks, the request body and
the API's rows as both return them. Its times are points as users write them (FORMS; an ISO 8601 date-time without a
zone is UTC, a date alone its midnight), turned into the epoch milliseconds the API takes; every relative value of one
task is resolved against the same now, so start_time: -1h and end_time: now span exactly one hour."""

import datetime
import re

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK
from ansible_collections.engine.cloud.plugins.module_utils.compare import normalize

PATH = '/charts/series'
AGG_FNS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p95', 'p99']
COUNTING = ('count', 'count_distinct')
GRANULARITIES = ['30s', '1m', '5m', '10m', '15m', '30m', '1h', '2h', '6h', '12h', '1d', '2d', '7d', '30d', 'auto']
MAX_SERIES = 5
MAX_GROUP_BY = 10
OPTIONAL_KEYS = (('granularity', 'granularity'), ('series_return_type', 'seriesReturnType'))
_VALUE_KEY = re.compile(r'^(ts_bucket|series_\d+\.data)$')
UNIT_MS = dict(s=1000, m=60 * 1000, h=3600 * 1000, d=86400 * 1000, w=7 * 86400 * 1000)
# The API refuses epoch values of fewer than 13 digits ("Timestamp must be in milliseconds").
MIN_EPOCH_MS = 10 ** 12
_RELATIVE = re.compile(r'(?:now|(?:now)?\s*([+-])\s*(\d+)\s*([smhdw]))\Z')
_ISO = re.compile(
    r'(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})'
    r'(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,](?P<fraction>\d+))?)?'
    r'(?P<zone>Z|[+-](?P<zone_hours>\d{2})(?::?(?P<zone_minutes>\d{2}))?)?)?\Z')
_EPOCH = datetime.datetime(1970, 1, 1)
FORMS = 'epoch milliseconds (13 digits or more), an ISO 8601 date-time such as 2024-10-12T13:37:00Z, or now, now-15m, -2h (units s, m, h, d, w)'

SPEC = dict(
    series=dict(type='list', elements='dict', required=True, options=dict(
        source_id=dict(type='str', required=True),
        agg_fn=dict(type='str', required=True, choices=AGG_FNS),
        field=dict(type='str'),
        where=dict(type='str', default=''),
        group_by=dict(type='list', elements='str', default=[]),
    )),
    start_time=dict(type='raw', required=True),
    end_time=dict(type='raw', default='now'),
    granularity=dict(type='str', choices=GRANULARITIES),
    series_return_type=dict(type='str', choices=['ratio', 'column']),
)


def series_errors(series):
    errors = [None if 1 <= len(series) <= MAX_SERIES else 'series must have 1 to %d elements, got %d' % (MAX_SERIES, len(series))]
    for index, item in enumerate(series):
        name = 'series[%d]' % index
        errors.append(validate.object_id(name + '.source_id', item['source_id']))
        if item['agg_fn'] not in COUNTING and not item['field']:
            errors.append('%s.field is required for agg_fn %s (only %s work without it)' % (name, item['agg_fn'], ' and '.join(COUNTING)))
        if len(item['group_by']) > MAX_GROUP_BY:
            errors.append('%s.group_by must have at most %d fields, got %d' % (name, MAX_GROUP_BY, len(item['group_by'])))
        if item['group_by'] != series[0]['group_by']:
            errors.append('%s.group_by must equal series[0].group_by (the API requires the same fields, in the same order, in every series), '
                          'got %s and %s' % (name, item['group_by'], series[0]['group_by']))
    return errors


def request(params):
    """(the API's request body, []) with every relative time resolved against the same now, or (None, errors)."""
    now = int(CLOCK.time() * 1000)
    start, start_error = resolve('start_time', params['start_time'], now)
    end, end_error = resolve('end_time', params['end_time'], now)
    errors = series_errors(params['series']) + [start_error, end_error]
    if None not in (start, end) and end <= start:
        errors.append('end_time (%s, %s) must be after start_time (%s, %s)' % (end, iso_utc(end), start, iso_utc(start)))
    errors = [error for error in errors if error]
    if errors:
        return None, errors
    body = dict(startTime=start, endTime=end, series=[
        dict(sourceId=item['source_id'], aggFn=item['agg_fn'], where=item['where'], groupBy=item['group_by'],
             **(dict(field=item['field']) if item['field'] else {}))
        for item in params['series']])
    body.update((key, params[option]) for option, key in OPTIONAL_KEYS if params[option] is not None)
    return body, []


def rows(data):
    """The rows by time, numeric strings among their values turned into numbers (group values stay strings)."""
    return sorted((dict((key, normalize(value) if _VALUE_KEY.match(key) and isinstance(value, str) else value) for key, value in row.items())
                   for row in data or []), key=lambda row: row.get('ts_bucket', 0))


class TimeSpecError(ValueError):
    """A value that is no point in time; the message names the option."""


def parse(option, value, now):
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return _epoch(option, value)
    text = value.strip() if isinstance(value, str) else ''
    relative, iso = _RELATIVE.match(text), _ISO.match(text.upper())
    if text.isdigit():
        return _epoch(option, int(text))
    if relative:
        sign, amount, unit = relative.groups()
        return now + int(sign + amount) * UNIT_MS[unit] if sign else now
    if iso:
        return _iso(option, value, iso)
    raise TimeSpecError('%s must be %s, got %r' % (option, FORMS, value))


def resolve(option, value, now):
    try:
        return parse(option, value, now), None
    except TimeSpecError as error:
        return None, str(error)


def iso_utc(ms):
    return (_EPOCH + datetime.timedelta(milliseconds=ms)).isoformat(timespec='milliseconds') + 'Z'


def _epoch(option, number):
    if number < MIN_EPOCH_MS:
        raise TimeSpecError('%s must be in epoch milliseconds (13 digits or more), got %d; '
                            'epoch seconds need three more digits (%d)' % (option, number, number * 1000)
                            if number > 0 else '%s must be a positive number of epoch milliseconds, got %d' % (option, number))
    return number


def _iso(option, value, match):
    number = dict((key, int(part or 0)) for key, part in match.groupdict().items() if key not in ('fraction', 'zone'))
    try:
        moment = datetime.datetime(number['year'], number['month'], number['day'], number['hour'], number['minute'], number['second'],
                                   int((match.group('fraction') or '0')[:6].ljust(6, '0')))
    except ValueError as error:
        raise TimeSpecError('%s is no valid date-time (%s), got %r' % (option, error, value))
    if number['zone_hours'] > 23 or number['zone_minutes'] > 59:
        raise TimeSpecError('%s has an invalid time zone offset %s, got %r' % (option, match.group('zone'), value))
    offset = datetime.timedelta(hours=number['zone_hours'], minutes=number['zone_minutes'])
    moment = moment + offset if (match.group('zone') or '').startswith('-') else moment - offset
    result = (moment - _EPOCH) // datetime.timedelta(milliseconds=1)
    if result < MIN_EPOCH_MS:
        raise TimeSpecError('%s must be on or after %s (the API takes epoch milliseconds of 13 digits or more), got %r'
                            % (option, iso_utc(MIN_EPOCH_MS), value))
    return result
