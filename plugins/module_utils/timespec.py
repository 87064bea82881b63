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

_RELATIVE = re.compile(r'(?:now|(?:now)?\s*([+-])\s*(\d+)\s*([smhdw]))\Z')
_ISO = re.compile(r'\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?P<zone>Z|[+-](\d{2})(?::?(\d{2}))?)?)?\Z')
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


def order_error(start_option, start, end_option, end):
    if start is None or end is None or end > start:
        return None
    return '%s (%s, %s) must be after %s (%s, %s)' % (end_option, end, iso_utc(end), start_option, start, iso_utc(start))


def iso_utc(ms):
    moment = _EPOCH + datetime.timedelta(milliseconds=ms)
    return moment.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (moment.microsecond // 1000)


def epoch_ms(moment):
    """The epoch milliseconds of a naive UTC datetime, finer digits cut."""
    return (moment - _EPOCH) // datetime.timedelta(milliseconds=1)


def _epoch(option, number):
    if number < MIN_EPOCH_MS:
        raise TimeSpecError('%s must be in epoch milliseconds (13 digits or more), got %d; '
                            'epoch seconds need three more digits (%d)' % (option, number, number * 1000)
                            if number > 0 else '%s must be a positive number of epoch milliseconds, got %d' % (option, number))
    return number


def _iso(option, value, match):
    zone = match.group('zone') or ''
    try:
        moment = datetime.datetime.fromisoformat(match.group(0)[:match.end() - len(zone)])
    except ValueError as error:
        raise TimeSpecError('%s is no valid date-time (%s), got %r' % (option, error, value))
    hours, minutes = int(match.group(2) or 0), int(match.group(3) or 0)
    if hours > 23 or minutes > 59:
        raise TimeSpecError('%s has an invalid time zone offset %s, got %r' % (option, zone, value))
    offset = datetime.timedelta(hours=hours, minutes=minutes)
    result = epoch_ms(moment + offset if zone.startswith('-') else moment - offset)
    if result < MIN_EPOCH_MS:
        raise TimeSpecError('%s must be on or after %s (the API takes epoch milliseconds of 13 digits or more), got %r'
                            % (option, iso_utc(MIN_EPOCH_MS), value))
    return result
