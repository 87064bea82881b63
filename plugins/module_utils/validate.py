# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Checks of option values before any request: each returns a message naming the option and what is allowed, or None."""

import re

from urllib.parse import unquote, urlsplit, urlunsplit

# \Z, not $: $ also matches before a trailing newline, which would then be sent in the path.
_UUID = re.compile(r'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z')
_OBJECT_ID = re.compile(r'^[0-9a-fA-F]{24}\Z')
# The paths the modules append to a base address: one that already ends in one would send /v1/v1/... and get a 404
# that names a resource, not the address.
API_PATHS = ('/v1', '/api/v2')
# scheme://userinfo@ in a text, the userinfo up to the last @ before a space or a quote. A match starts only where a run
# of scheme characters starts: tried inside every run, a text of one long run took quadratic time (16 s for 80 kB).
_USERINFO = re.compile(r'(?<![a-zA-Z0-9+.-])([0-9+.-]*[a-zA-Z][a-zA-Z0-9+.-]*://)[^\s\'"<>]*@')

UUID_HINTS = {
    'service_id': 'engine.cloud.service_info with name returns the id of a service of that name',
    'pipe_id': 'engine.cloud.pipe_info with service_id and name returns the id of a pipe of that name',
}


def uuid(option, value):
    if value is None or _UUID.match(value):
        return None
    hint = UUID_HINTS.get(option)
    return '%s must be a UUID (8-4-4-4-12 hexadecimal digits), got %r%s' % (option, value, '; ' + hint if hint else '')


def object_id(option, value):
    if value is None or _OBJECT_ID.match(value):
        return None
    return '%s must be an object id of 24 hexadecimal digits, got %r' % (option, value)


def number_range(option, value, minimum=None, maximum=None, multiple_of=None):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return '%s must be a number, got %r' % (option, value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum) or (
            multiple_of is not None and value % multiple_of):
        return '%s must be %s, got %r' % (option, describe_range(minimum, maximum, multiple_of), value)
    return None


def describe_range(minimum=None, maximum=None, multiple_of=None):
    if minimum is not None and maximum is not None:
        text = 'between %s and %s' % (minimum, maximum)
    elif minimum is not None:
        text = 'at least %s' % minimum
    elif maximum is not None:
        text = 'at most %s' % maximum
    else:
        text = 'a number'
    if multiple_of is not None:
        text += ' and a multiple of %s' % multiple_of
    return text


def max_length(option, value, limit):
    if value is None or len(value) <= limit:
        return None
    return '%s must be at most %d characters long, got %d' % (option, limit, len(value))


def url(option, value):
    """An http:// or https:// base address with a host and without an API path (never echoed with its credentials)."""
    if value is None:
        return None
    try:
        parts = urlsplit(value)
        dummy = parts.port  # raises ValueError for a port out of range
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ('http', 'https') or not parts.hostname or any(char.isspace() for char in value):
        shown = 'a value with credentials in it' if '@' in value else repr(value)
        return '%s must be an http:// or https:// address with a host name, like https://api.example.com, got %s' % (option, shown)
    path = parts.path.rstrip('/')
    for api_path in API_PATHS:
        if path.lower().endswith(api_path):
            base = urlunsplit((parts.scheme, parts.netloc.rpartition('@')[2], path[:-len(api_path)], '', ''))
            return '%s must be the base address without the API path: drop %s and use %r (got %r)' % (
                option, path[-len(api_path):], base, url_without_credentials(value))
    return None


def url_without_credentials(value):
    """value without the user:password@ of any address in it, up to the last @ of the address, so that a password with
    an unescaped / or # (which urlsplit reads as a path) shows no part of itself."""
    return _USERINFO.sub(r'\1', value)


def url_passwords(value):
    """The passwords of the addresses in value (user:password@), as written and unescaped."""
    passwords = set()
    for match in _USERINFO.finditer(value):
        password = match.group(0)[len(match.group(1)):-1].partition(':')[2]
        passwords.update((password, unquote(password)) if password else ())
    return passwords
