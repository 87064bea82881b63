# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

import calendar
import datetime

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import chart

NOW = 1728740220123  # 2024-10-12T13:37:00.123Z
MINUTE = 60 * 1000
HOUR = 60 * MINUTE


def utc_ms(*parts):
    return calendar.timegm(datetime.datetime(*parts).timetuple()) * 1000


@pytest.mark.parametrize('value, expected', [
    ('now', NOW), ('now-15m', NOW - 15 * MINUTE), ('now - 15m', NOW - 15 * MINUTE), ('now+1h', NOW + HOUR),
    ('-2h', NOW - 2 * HOUR), ('+30s', NOW + 30 * 1000), ('now-1d', NOW - 24 * HOUR),
    ('now-2w', NOW - 14 * 24 * HOUR), ('  -5m ', NOW - 5 * MINUTE), ('now-0m', NOW),
])
def test_relative_expressions_count_from_the_given_now(value, expected):
    assert chart.parse('start_time', value, NOW) == expected


INSTANT = utc_ms(2024, 10, 12, 13, 37)  # 2024-10-12T13:37:00Z, written in every form the option takes


@pytest.mark.parametrize('value, expected', [
    (1728740220123, 1728740220123), ('1728740220123', 1728740220123), (1728740220123.0, 1728740220123),
    (10 ** 12, 10 ** 12), ('17287402201230', 17287402201230),
    ('2024-10-12T13:37:00.250Z', INSTANT + 250), ('2024-10-12T13:37:00.2509999Z', INSTANT + 250),
    ('2024-10-12T13:37:00,5Z', INSTANT + 500), ('2024-10-12T00:30:00+01:00', utc_ms(2024, 10, 11, 23, 30)),
    ('2024-10-12', utc_ms(2024, 10, 12)), ('2024-02-29T00:00:00Z', utc_ms(2024, 2, 29)),
] + [(value, INSTANT) for value in (
    '2024-10-12T13:37:00Z', '2024-10-12t13:37:00z', '2024-10-12T15:37:00+02:00', '2024-10-12T15:37:00+0200',
    '2024-10-12T15:37:00+02', '2024-10-12T08:07:00-05:30', '2024-10-13T01:00:00+11:23', '2024-10-12T13:37',
    '2024-10-12 13:37:00', '2024-10-12T13:37:00')])
def test_epoch_milliseconds_and_iso_date_times_with_and_without_zones_whatever_now(value, expected):
    assert chart.parse('end_time', value, NOW) == chart.parse('end_time', value, 0) == expected


NO_POINT_IN_TIME = ['', 'yesterday', 'now-', 'now-15', 'now-15y', 'now-15M', '15m', 'now-1.5h', 'now-15m-1h', 'NOW',
                    None, True, [1], 1.5, '2024-10-12T13:37:00 UTC', '2024-10-12Z', '12/10/2024']


@pytest.mark.parametrize('value, fragment', [(value, 'must be epoch milliseconds') for value in NO_POINT_IN_TIME] + [
    ('2024-13-01T00:00:00Z', 'no valid date-time'), ('2024-02-30', 'no valid date-time'),
    ('2024-10-12T25:00:00Z', 'no valid date-time'),
    ('2024-10-12T13:37:00+25:00', 'invalid time zone offset'),
    ('2024-10-12T13:37:00+02:75', 'invalid time zone offset'),
    ('1999-01-01T00:00:00Z', 'on or after 2001-09-09T01:46:40.000Z'),
    (1728740220, 'epoch seconds need three more digits (1728740220000)'),
    ('1728740220', 'epoch seconds need three more digits'),
    (0, 'positive number of epoch milliseconds'), (-5, 'positive number of epoch milliseconds'),
])
def test_invalid_values_raise_a_message_naming_the_option(value, fragment):
    with pytest.raises(chart.TimeSpecError) as info:
        chart.parse('start_time', value, NOW)
    assert str(info.value).startswith('start_time ')
    assert fragment in str(info.value)
