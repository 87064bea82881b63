"""Chart series: body validation, the ``where`` grammar and deterministic bucketed data.

``where`` grammar (a small Lucene-like subset)::

    expr  := term ((AND | OR)? term)*        adjacent terms mean AND
    term  := NOT? ( '(' expr ')' | word [':' value] )
    word  := a bare token; value := a bare token or a "double-quoted" string

Unbalanced quotes or parentheses, an empty group, a dangling operator or ``field:`` without a
value are malformed and give a 500, as the live service does.
"""

import hashlib
import math
import re

GRANULARITIES = {'30s': 30, '1m': 60, '5m': 300, '10m': 600, '15m': 900, '30m': 1800, '1h': 3600, '2h': 7200,
                 '6h': 21600, '12h': 43200, '1d': 86400, '2d': 172800, '7d': 604800, '30d': 2592000}
AUTO_STEPS = (15, 30, 60, 300, 900, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 604800, 2592000)
AGG_FNS = ('count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p95', 'p99')
COUNTING = ('count', 'count_distinct')
RETURN_TYPES = ('ratio', 'column')
BODY_KEYS = {'series', 'startTime', 'endTime', 'granularity', 'seriesReturnType'}
SERIES_KEYS = {'sourceId', 'aggFn', 'where', 'groupBy', 'field'}
MAX_BUCKETS = 100000
GAP_ONE_IN = 7


class WhereError(ValueError):
    """A malformed ``where`` expression."""


# Validation --------------------------------------------------------------------------------------

def validate(body):
    """Return the list of ``path: message`` problems of a request body (empty when valid)."""
    if not isinstance(body, dict):
        return ['body: Expected object, received %s' % _json_type(body)]
    problems = _unknown_keys('', body, BODY_KEYS)
    for key in ('startTime', 'endTime'):
        problems += _timestamp(key, body.get(key, _MISSING))
    problems += _enum('granularity', body, list(GRANULARITIES) + ['auto'])
    problems += _enum('seriesReturnType', body, RETURN_TYPES)
    items = body.get('series', _MISSING)
    if items is _MISSING:
        return problems + ['series: Required']
    if not isinstance(items, list):
        return problems + ['series: Expected array, received %s' % _json_type(items)]
    if not 1 <= len(items) <= 5:
        problems.append('series: Array must contain %s' % ('at least 1 element(s)' if not items else 'at most 5 element(s)'))
    for index, item in enumerate(items):
        problems += _series_item('series.%d' % index, item)
    if not problems and len({tuple(item['groupBy']) for item in items}) > 1:
        problems.append('series: All series must have the same groupBy fields')
    if not problems and bucket_count(body) > MAX_BUCKETS:
        problems.append('granularity: Too many buckets for the time range (at most %d)' % MAX_BUCKETS)
    return problems


_MISSING = object()


def _json_type(value):
    names = {dict: 'object', list: 'array', str: 'string', bool: 'boolean', int: 'number', float: 'number'}
    return 'null' if value is None else names.get(type(value), 'unknown')


def _unknown_keys(prefix, obj, allowed):
    unknown = sorted(set(obj) - allowed)
    if not unknown:
        return []
    return ['%s: Unrecognized key(s) in object: %s' % (prefix or 'body', ', '.join("'%s'" % k for k in unknown))]


def _timestamp(key, value):
    if value is _MISSING:
        return ['%s: Required' % key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ['%s: Expected number, received %s' % (key, _json_type(value))]
    if not isinstance(value, int):
        return ['%s: Expected integer, received float' % key]
    if value < 10 ** 12:
        return ['%s: Timestamp must be in milliseconds' % key]
    return []


def _enum(key, body, allowed):
    if key in body and body[key] not in allowed:
        return ["%s: Invalid enum value. Expected %s, received '%s'" % (key, ' | '.join("'%s'" % a for a in allowed), body[key])]
    return []


def _series_item(path, item):
    if not isinstance(item, dict):
        return ['%s: Expected object, received %s' % (path, _json_type(item))]
    problems = _unknown_keys(path, item, SERIES_KEYS)
    for key in ('sourceId', 'aggFn', 'where'):
        if key not in item:
            problems.append('%s.%s: Required' % (path, key))
        elif not isinstance(item[key], str):
            problems.append('%s.%s: Expected string, received %s' % (path, key, _json_type(item[key])))
    if isinstance(item.get('sourceId'), str) and not re.fullmatch(r'[0-9a-fA-F]{24}', item['sourceId']):
        problems.append('%s.sourceId: Invalid ObjectId' % path)
    if isinstance(item.get('aggFn'), str):
        problems += ['%s.%s' % (path, problem) for problem in _enum('aggFn', item, AGG_FNS)]
    if 'field' in item and not isinstance(item['field'], str):
        problems.append('%s.field: Expected string, received %s' % (path, _json_type(item['field'])))
    elif item.get('aggFn') in AGG_FNS and item['aggFn'] not in COUNTING and not item.get('field'):
        problems.append('%s.field: Required for aggFn %s' % (path, item['aggFn']))
    problems += _group_by(path + '.groupBy', item.get('groupBy', _MISSING))
    return problems


def _group_by(path, value):
    if value is _MISSING:
        return [path + ': Required']
    if not isinstance(value, list):
        return ['%s: Expected array, received %s' % (path, _json_type(value))]
    problems = ['%s.%d: Expected string, received %s' % (path, i, _json_type(v)) for i, v in enumerate(value) if not isinstance(v, str)]
    if len(value) > 10:
        problems.append(path + ': Array must contain at most 10 element(s)')
    return problems


# Buckets -----------------------------------------------------------------------------------------

def step_seconds(body):
    """Bucket size in seconds; ``auto`` (and no granularity) picks it from the range."""
    granularity = body.get('granularity', 'auto')
    if granularity != 'auto':
        return GRANULARITIES[granularity]
    wanted = math.ceil((body['endTime'] - body['startTime']) / 1000 / 60)
    return next((step for step in AUTO_STEPS if step >= wanted), AUTO_STEPS[-1])


def bucket_starts(body):
    """Bucket starts in ms, floored to the epoch-aligned grid, covering [startTime, endTime)."""
    step = step_seconds(body) * 1000
    return range(body['startTime'] // step * step, body['endTime'], step)


def bucket_count(body):
    """How many buckets a (valid) body asks for."""
    return len(bucket_starts(body))


# Where -------------------------------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:(?P<paren>[()])|(?P<quoted>"(?:[^"\\]|\\.)*")|(?P<word>[^\s()"]+)|(?P<bad>"))')


def parse_where(text):
    """Check a ``where`` expression and return a canonical form of it (used to seed the data)."""
    tokens = _tokenize(text)
    if not tokens:
        return ''
    canonical, position = _expression(tokens, 0)
    if position != len(tokens):
        raise WhereError("Unexpected ')' at token %d in where clause" % (position + 1))
    return canonical


def _tokenize(text):
    tokens, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or not match.group(0).strip():
            break
        if match.group('bad'):
            raise WhereError('Unterminated quoted string in where clause: %s' % text)
        tokens.append(match.group(match.lastgroup))
        position = match.end()
    return tokens


def _expression(tokens, position):
    parts = []
    while position < len(tokens) and tokens[position] != ')':
        if parts and tokens[position] in ('AND', 'OR'):
            parts.append(tokens[position])
            position += 1
        term, position = _term(tokens, position)
        parts.append(term)
    if not parts:
        raise WhereError('Empty expression in where clause')
    return ' '.join(parts), position


def _term(tokens, position):
    if position >= len(tokens) or tokens[position] == ')' or tokens[position] in ('AND', 'OR'):
        raise WhereError('Expected a search term after operator in where clause')
    if tokens[position] == 'NOT':
        term, position = _term(tokens, position + 1)
        return 'NOT ' + term, position
    if tokens[position] == '(':
        inner, position = _expression(tokens, position + 1)
        if position >= len(tokens):
            raise WhereError("Missing ')' in where clause")
        return '(%s)' % inner, position + 1
    word = tokens[position]
    if word.endswith(':'):
        if position + 1 >= len(tokens) or tokens[position + 1] in ('(', ')', 'AND', 'OR', 'NOT'):
            raise WhereError("Missing value after '%s' in where clause" % word)
        return word + tokens[position + 1], position + 2
    return word, position + 1


# Data --------------------------------------------------------------------------------------------

def compute(body):
    """The rows for a valid body; raises WhereError for a malformed ``where``."""
    wheres = [parse_where(item['where']) for item in body['series']]
    group_by = body['series'][0]['groupBy']
    groups = _groups(group_by)
    starts = bucket_starts(body)
    columns = [_column(item, where, groups, starts) for item, where in zip(body['series'], wheres)]
    if body.get('seriesReturnType') == 'column':
        rows = [dict(row, **{'series_%d.data' % index: value})
                for index, column in enumerate(columns) for row, value in column]
        return sorted(rows, key=lambda row: row['ts_bucket'])
    merged = {}
    for index, column in enumerate(columns):
        for row, value in column:
            key = (row['ts_bucket'], tuple(row['group']))
            merged.setdefault(key, dict(row))['series_%d.data' % index] = value
    return [merged[key] for key in sorted(merged)]


def _groups(group_by):
    if not group_by:
        return [[]]
    return [[_group_value(field, index + offset) for offset, field in enumerate(group_by)] for index in range(3)]


_GROUP_VALUES = {'host': ('ip-10-0-1-17', 'ip-10-0-2-42', 'ip-10-0-3-8'), 'level': ('info', 'warn', 'error'),
                 'service': ('prod-analytics', 'dev-sandbox', 'reporting replica'),
                 'pipe': ('orders-kafka', 'events-objectstorage', 'users-postgres')}


def _group_value(field, index):
    values = _GROUP_VALUES.get(field, tuple('%s-%s' % (field, letter) for letter in 'abc'))
    return values[index % len(values)]


def _column(item, where, groups, starts):
    """(row skeleton, value) pairs of one series; about one bucket in GAP_ONE_IN has no data.

    The data are coherent across wheres: a bucket has data or not whatever the where, and a count is the
    bucket's events (from the source, aggregation, field and group) times the share of them that each ANDed
    term of the where keeps. So a where with one more term never counts more (failed queries never above all
    queries), and a term that names an error or a failure keeps under one percent of the events."""
    agg = item['aggFn']
    bucket_seed = '|'.join((item['sourceId'].lower(), agg, item.get('field', '')))
    share = _where_share(item['where']) if agg in COUNTING else None
    pairs = []
    for group in groups:
        prefix = (bucket_seed + '|' + '\x1f'.join(group) + '|').encode('utf-8')
        for start in starts:
            number = int.from_bytes(hashlib.blake2b(prefix + str(start).encode(), digest_size=8).digest(), 'big')
            if number % GAP_ONE_IN == 0:
                continue
            if share is None:
                number = _hash(where, prefix, start)
            pairs.append(({'ts_bucket': start, 'group': group}, _value(agg, number, share)))
    return pairs


def _hash(*parts):
    text = '|'.join(part.decode('utf-8') if isinstance(part, bytes) else str(part) for part in parts)
    return int.from_bytes(hashlib.blake2b(text.encode('utf-8'), digest_size=8).digest(), 'big')


_RARE = re.compile(r'error|fail|fatal|5\d\d|exception|timeout', re.I)


def _where_share(where):
    """The share of a bucket's events that where keeps: the product of its ANDed terms' shares (a where with a
    top-level OR is one term). A term that names an error or a failure keeps 0.1 to 0.6 %, a NOT term 50 to
    100 %, any other 20 to 100 %; the share of a term is fixed by its text."""
    share = 1.0
    for term in _conjuncts(where):
        fraction = (_hash('share', term) % 1000) / 1000
        if term.startswith('NOT '):
            share *= 0.5 + 0.5 * fraction
        elif _RARE.search(term):
            share *= 0.001 + 0.005 * fraction
        else:
            share *= 0.2 + 0.8 * fraction
    return share


def _conjuncts(where):
    """The terms of a where that are ANDed at the top level (adjacent terms are ANDed too), each as its tokens
    joined by spaces; the whole where as one term when it has a top-level OR."""
    tokens = _tokenize(where)
    terms, current, depth = [], [], 0
    for token in tokens:
        if depth == 0 and token == 'OR':
            return [' '.join(tokens)]
        if depth == 0 and token == 'AND':
            continue
        current.append(token)
        depth += {'(': 1, ')': -1}.get(token, 0)
        if depth == 0 and token != 'NOT' and not token.endswith(':'):
            terms.append(' '.join(current))
            current = []
    return terms


def _value(agg, number, share=None):
    if agg in COUNTING:
        # 1,000 to 6,000 events in a bucket: enough that the rare terms' counts are not all 0.
        return str(int((1000 + (number >> 8) % 5000) * share))
    value = ((number >> 8) % 1000000) / 1000
    return round(value * (2 if agg == 'sum' else 1), 3)
