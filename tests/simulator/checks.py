"""Zod-style body checks for the observability API's writes: each check appends ``path: message`` to a
list of problems and answers whether the value passed, so callers can stop at the first bad level."""

import re

OBJECT_ID = re.compile(r'[0-9a-fA-F]{24}')
MISSING = object()


def json_type(value):
    """The JSON type name zod uses in ``received ...``."""
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, (int, float)):
        return 'number'
    return {dict: 'object', list: 'array', str: 'string'}.get(type(value), 'unknown')


class Problems(list):
    """The problems found so far; each method checks one value at ``path`` (MISSING: the key is absent)."""

    def add(self, path, message):
        self.append('%s: %s' % (path or 'body', message))
        return False

    def present(self, path, value):
        """Whether there is a value to check (absent is a problem; null is left to the type checks)."""
        return value is not MISSING or self.add(path, 'Required')

    def typed(self, path, value, kind):
        """Check the JSON type: 'string', 'number', 'integer', 'boolean', 'array' or 'object'."""
        expected = 'number' if kind == 'integer' else kind
        if json_type(value) != expected:
            return self.add(path, 'Expected %s, received %s' % (expected, json_type(value)))
        if kind == 'integer' and value != int(value):
            return self.add(path, 'Expected integer, received float')
        return True

    def string(self, path, value, low=0, high=None):
        if not self.typed(path, value, 'string'):
            return False
        if len(value) < low:
            return self.add(path, 'String must contain at least %d character(s)' % low)
        if high is not None and len(value) > high:
            return self.add(path, 'String must contain at most %d character(s)' % high)
        return True

    def number(self, path, value, low=None, high=None, integer=False):
        if not self.typed(path, value, 'integer' if integer else 'number'):
            return False
        if low is not None and value < low:
            return self.add(path, 'Number must be greater than or equal to %s' % low)
        if high is not None and value > high:
            return self.add(path, 'Number must be less than or equal to %s' % high)
        return True

    def array(self, path, value, low=0, high=None):
        if not self.typed(path, value, 'array'):
            return False
        if len(value) < low:
            return self.add(path, 'Array must contain at least %d element(s)' % low)
        if high is not None and len(value) > high:
            return self.add(path, 'Array must contain at most %d element(s)' % high)
        return True

    def enum(self, path, value, allowed):
        if value not in allowed or isinstance(value, bool):
            expected = ' | '.join("'%s'" % choice for choice in allowed)
            return self.add(path, "Invalid enum value. Expected %s, received '%s'" % (expected, value))
        return True

    def object_id(self, path, value):
        if not self.typed(path, value, 'string'):
            return False
        return bool(OBJECT_ID.fullmatch(value)) or self.add(path, 'Invalid ObjectId')

    def strings(self, path, value, high_items=None, high_length=None):
        if not self.array(path, value, 0, high_items):
            return False
        passed = [self.string('%s.%d' % (path, index), item, 0, high_length) for index, item in enumerate(value)]  # every problem
        return all(passed)

    def optional(self, path, obj, key, check, *args, nullable=False):
        """Run ``check`` on obj[key] when the key is there (and not null, if nullable)."""
        value = obj.get(key, MISSING)
        if value is MISSING or (nullable and value is None):
            return True
        return check('%s.%s' % (path, key) if path else key, value, *args)


def pick(obj, keys):
    """The keys of obj that are known: everything else is dropped, as zod does."""
    return {key: obj[key] for key in keys if key in obj}
