# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Points in time as users write them (FORMS; an ISO 8601 date-time without a zone is UTC, a date alone its midnight),
turned into the epoch milliseconds the observability API takes. Every relative value of one task is resolved against
the same now, so start_time: -1h and end_time: now span exactly one hour."""

import datetime
import re

from ansible_collections.engine.cloud.plugins.module_utils.clock import CLOCK

UNIT_MS = dict(s=1000, m=60 * 1000, h=3600 * 1000, d=86400 * 1000, w=7 * 86400 * 1000)
# The API refuses epoch values of fewer than 13 digits ("Timestamp must be in milliseconds").
MIN_EPOCH_MS = 10 ** 12

_RELATIVE = re.compile(r'^(?P<now>now)?\s*(?:(?P<sign>[+-])\s*(?P<amount>\d+)\s*(?P<unit>[smhdw]))?$')
_ISO = re.compile(
    r'^(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})'
    r'(?:[Tt ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,](?P<fraction>\d+))?)?'
    r'(?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$')
_EPOCH = datetime.datetime(1970, 1, 1)
FORMS = 'epoch milliseconds (13 digits or more), an ISO 8601 date-time such as 2024-10-12T13:37:00Z, or now, now-15m, -2h (units s, m, h, d, w)'


class TimeSpecError(ValueError):
    """A value that is no point in time; the message names the option."""


def now_ms():
    return int(CLOCK.time() * 1000)


def parse(option, value, now):
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return _epoch(option, value)
    if not isinstance(value, str):
        raise TimeSpecError('%s must be %s, got %r' % (option, FORMS, value))
    text = value.strip()
    if text.isdigit():
        return _epoch(option, int(text))
    relative = _RELATIVE.match(text)
    if text and relative and (relative.group('now') or relative.group('sign')):
        offset = 0
        if relative.group('sign'):
            offset = int(relative.group('amount')) * UNIT_MS[relative.group('unit')]
            offset = -offset if relative.group('sign') == '-' else offset
        return now + offset
    iso = _ISO.match(text)
    if iso:
        return _iso(option, value, iso)
    raise TimeSpecError('%s must be %s, got %r' % (option, FORMS, value))


def resolve(option, value, now):
    try:
        return parse(option, value, now), None
    except TimeSpecError as error:
        return None, str(error)


def order_error(start_option, start, end_option, end):
    if start is None or end is None or end > start:
        return None
    return '%s (%s, %s) must be after %s (%s, %s)' % (end_option, end, iso_utc(end), start_option, start, iso_utc(start))


def iso_utc(ms):
    moment = _EPOCH + datetime.timedelta(milliseconds=ms)
    return moment.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (moment.microsecond // 1000)


def _epoch(option, number):
    if number < MIN_EPOCH_MS:
        raise TimeSpecError('%s must be in epoch milliseconds (13 digits or more), got %d; '
                            'epoch seconds need three more digits (%d)' % (option, number, number * 1000)
                            if number > 0 else '%s must be a positive number of epoch milliseconds, got %d' % (option, number))
    return number


def _iso(option, value, match):
    parts = match.groupdict()
    fraction = (parts['fraction'] or '0')[:6].ljust(6, '0')
    try:
        moment = datetime.datetime(int(parts['year']), int(parts['month']), int(parts['day']), int(parts['hour'] or 0),
                                   int(parts['minute'] or 0), int(parts['second'] or 0), int(fraction))
    except ValueError as error:
        raise TimeSpecError('%s is no valid date-time (%s), got %r' % (option, error, value))
    zone = parts['zone']
    if zone and zone not in ('Z', 'z'):
        digits = zone[1:].replace(':', '')
        hours, minutes = int(digits[:2]), int(digits[2:] or 0)
        if hours > 23 or minutes > 59:
            raise TimeSpecError('%s has an invalid time zone offset %s, got %r' % (option, zone, value))
        offset = datetime.timedelta(hours=hours, minutes=minutes)
        moment = moment - offset if zone[0] == '+' else moment + offset
    delta = moment - _EPOCH
    result = delta.days * 86400000 + delta.seconds * 1000 + delta.microseconds // 1000
    if result < MIN_EPOCH_MS:
        raise TimeSpecError('%s must be on or after %s (the API takes epoch milliseconds of 13 digits or more), got %r'
                            % (option, iso_utc(MIN_EPOCH_MS), value))
    return result
