# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Bad input for every option of every module, generated from each module's DOCUMENTATION (types, choices, and the
ranges, multiples and lengths its descriptions state) and the options every module shares: wrong type, out of
range, not a multiple, wrong choice, malformed id, address or URL, unknown or malformed key, empty or long list,
over-long text. Each fails naming the option and what is allowed, and sends nothing."""

import copy
import importlib
import re

import pytest
import yaml

from ansible_collections.engine.cloud.tests.simulator import catalog
from ansible_collections.engine.cloud.tests.simulator.fixture_ids import DASHBOARD_HEALTH, SERVICE_PROD, SOURCE_METRICS
from ansible_collections.engine.cloud.tests.unit.conftest import module_of

# The connection options, whose documented texts are not written as rules: their rules here.
SHARED = {
    'cloud': dict(api_url=dict(type='str'), api_key_id=dict(type='str'), api_key_secret=dict(type='str'),
                  organization_id=dict(type='str', description='UUID of the organization')),
    'observability': dict(observability_url=dict(type='str'), api_token=dict(type='str')),
}
COMMON = dict(validate_certs=dict(type='bool'), api_timeout=dict(type='int', description='at least 1'),
              api_retries=dict(type='int', description='at least 0'), api_rate_limit=dict(type='rate limit'))
# Options that take any text (credentials, names, ids of other systems, texts the API judges), so have no bad value here.
FREE = {'api_key_id', 'api_key_secret', 'api_token', 'name', 'tile_id', 'transparent_data_encryption_key_id', 'region', 'tier', 'profile',
        'byoc_id', 'data_warehouse_id', 'encryption_key', 'encryption_assumed_role_identifier', 'password', 'dashboard', 'tile', 'group_by',
        'schedule_start_at'}
# ansible-core, not the collection: a string where a list of dicts inside a list element wants a dict fails in
# _list_no_log_values with check_type_dict's bare message, before the option is known (the module names a top-level one).
CORE_LIMITATION = 'element of wrong type (string, in a list element)'

RANGE = re.compile(r'(?:between\s+(-?\d+)\s+and\s+(-?\d+)|\b(-?\d+)\s+to\s+(-?\d+)\b)', re.I)
AT_LEAST = re.compile(r'at least\s+(-?\d+)', re.I)
MULTIPLE = re.compile(r'multiple of\s+(\d+)')
LENGTH = re.compile(r'(?:1 to (\d+) (?:letters|characters)|up to (\d+) characters|at most (\d+) characters)')
SETTING = re.compile(r'^C\((\w+)\) \((?:(-?\d+) to (-?\d+)|boolean)')
KEY_RULE = 'letters, digits, dots, underscores or hyphens'


def fragment_options(name):
    """The options of one of the collection's doc fragments ('engine.cloud.cloud.SERVICE_ID'); SHARED and COMMON
    stand for the connection fragments."""
    source, attribute = (name.split('.')[2:] + ['DOCUMENTATION'])[:2]
    if source in ('cloud', 'observability') and attribute in ('DOCUMENTATION', 'UNUSED'):
        return {}
    fragment = importlib.import_module('ansible_collections.engine.cloud.plugins.doc_fragments.' + source).ModuleDocFragment
    return yaml.safe_load(getattr(fragment, attribute)).get('options') or {}


def options(module):
    """Every option of the module: its own, its fragments', the shared and common ones."""
    doc = yaml.safe_load(module_of(module.name).DOCUMENTATION)
    found = dict(SHARED[module.api], **COMMON)
    for name in doc.get('extends_documentation_fragment') or []:
        found.update(fragment_options(name) if name.startswith('engine.cloud.') else {})
    found.update(doc.get('options') or {})
    return found


def text(spec):
    description = spec.get('description') or ''
    return ' '.join(description) if isinstance(description, list) else description


def ranges(description):
    """(minimum, maximum, multiple) a description states, each None when it states none."""
    found = RANGE.search(description)
    low, high = [int(value) for value in found.groups() if value is not None] if found else (None, None)
    if low is None and AT_LEAST.search(description):
        low = int(AT_LEAST.search(description).group(1))
    step = MULTIPLE.search(description)
    return low, high, step and int(step.group(1))


def replaced(base, path, value):
    args = copy.deepcopy(base)
    target = args
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return args


def element(spec):
    """A valid element of a list of dicts, from its required suboptions."""
    made = {}
    for sub, sub_spec in spec['suboptions'].items():
        if sub_spec.get('required'):
            made[sub] = {'bool': True, 'int': 1}.get(sub_spec.get('type'),
                                                     (sub_spec.get('choices') or ['10.9.8.0/24' if sub == 'source' else SOURCE_METRICS])[0])
    return made


class BadInput:
    def __init__(self, module, option, mistake, args, words):
        self.module, self.option, self.mistake, self.args, self.words = module, option, mistake, args, words

    def __repr__(self):
        return re.sub(r'[^a-z0-9]+', '_', '%s %s %s' % (self.module.name, self.option, self.mistake)).strip('_')


def option_cases(module, base, path, label, spec, element_of=None):
    """Bad values for one option (path: where it sits in the arguments; label: how messages name it)."""
    name = path[-2] if isinstance(path[-1], int) else path[-1]
    kind, description = spec.get('type', 'str'), text(spec)
    # ansible-core names a suboption of a list element inside another list element as 'tiles -> series'
    words = [name] if element_of is None else [name, element_of.replace('[].', ' -> ')]
    cases = []

    def add(mistake, value, *allowed):
        cases.append(BadInput(module, label, mistake, replaced(base, path, value), words + list(allowed)))

    if kind == 'int':
        add('wrong type', 'abc', 'int')
        low, high, step = ranges(description)
        if low is not None:
            below = low - (step or 1)
            while 'V(%d)' % below in description:  # a value the description allows on its own ("V(0) removes it")
                below -= step or 1
            add('below range', below, str(low))
        if high is not None:
            add('above range', high + (step or 1), str(high))
        if step:
            add('not a multiple', (low or 0) + step // 2 + step, 'multiple of %d' % step)
    elif kind in ('float', 'bool'):
        add('wrong type', 'maybe' if kind == 'bool' else 'abc', kind)
    elif kind == 'list':
        add('wrong type', {'not': 'a list'}, 'list')
        counted = re.search(r'\b1 to (\d+)', description)
        if counted and 'V([])' in description:  # [] documented as a value of its own: one too many is the bad count
            add('too many', ['%024x' % number for number in range(int(counted.group(1)) + 1)], '1 to')
        elif counted:
            add('empty list', [], '1 to')
        if spec.get('elements') == 'dict' and spec.get('suboptions'):
            add('element of wrong type', [42])
            add('element of wrong type (string)' if element_of is None else CORE_LIMITATION, ['not-a-dict'], 'dict')
            add('unknown key', [dict(element(spec), bogus_key=1)], 'bogus_key', sorted(spec['suboptions'])[0])
            for sub, sub_spec in sorted(spec['suboptions'].items()):
                cases += option_cases(module, replaced(base, path, [element(spec)]), path + (0, sub), '%s[].%s' % (label, sub), sub_spec, label)
        elif spec.get('elements') == 'int':
            add('element of wrong type', ['abc'], 'int')
    elif kind == 'dict':
        add('wrong type', 'not-a-dict', 'dict')
        settings = [found for found in (SETTING.match(line) for line in spec.get('description') or []) if found]
        if settings:
            add('unknown key', {'bogus_key': 1}, 'bogus_key', 'engine_max_threads')
        if KEY_RULE in description:
            add('malformed key', {'bad key': 'x'}, 'bad key', KEY_RULE)
        cases += nested_range_cases(module, base, path, label, spec)
        for found in settings:
            key, low, high = found.groups()
            sub_label = '%s.%s' % (label, key)
            bad = [('wrong type', 'maybe', ['true, false'])] if low is None else [
                ('wrong type', 'abc', ['integer', low, high]), ('below range', int(low) - 1, [low, high]), ('above range', int(high) + 1, [low, high])]
            cases += [BadInput(module, sub_label, mistake, replaced(base, path, {key: value}), [sub_label] + allowed) for mistake, value, allowed in bad]
    elif kind == 'rate limit':
        add('malformed', '10 per 10 s', 'REQUESTS/SECONDS', 'off')
        add('below range', '0/10', 'at least 1 request')
    elif kind == 'raw':
        add('wrong type', {'not': 'a time'}, 'epoch')
        add('malformed', 'yesterday-ish', 'epoch', 'ISO 8601')
        add('out of range', 1700000000, 'epoch milliseconds', '13 digits')
    else:
        if spec.get('choices'):
            add('wrong choice', 'bogus-choice', *[str(choice) for choice in spec['choices']])
        if name.endswith('_id') and 'UUID' in description:
            add('malformed id', 'not-a-uuid', 'UUID')
            add('malformed id (trailing newline)', SERVICE_PROD + '\n', 'UUID')
        elif name.endswith('_id') and ('object id' in description or '24 hexadecimal' in description):
            add('malformed id', 'not-an-object-id', '24 hexadecimal')
            add('malformed id (trailing newline)', DASHBOARD_HEALTH + '\n', '24 hexadecimal')
        limit = LENGTH.search(description)
        if limit:
            longest = int([value for value in limit.groups() if value][0])
            add('over-long', 'x' * max(300, longest + 1), str(longest))
        if 'IPv4' in description:
            add('malformed address', '300.1.2.3/40', 'IPv4')
        if name.endswith('_url'):
            add('malformed url', 'not a url', 'http')
    return cases


def nested_range_cases(module, base, path, label, spec):
    """Below and above the stated range of each int inside a dict option, at any depth (source.postgres.port)."""
    cases = []
    for sub, sub_spec in sorted((spec.get('suboptions') or {}).items()):
        current = base
        for part in path:
            current = (current or {}).get(part)
        nested = replaced(base, path, dict(current or {}, **{sub: {}}))
        if sub_spec.get('type') == 'dict':
            cases += nested_range_cases(module, nested, path + (sub,), '%s.%s' % (label, sub), sub_spec)
        elif sub_spec.get('type') == 'int':
            low, high, dummy = ranges(text(sub_spec))
            for mistake, bound, value in (('below range', low, low is not None and low - 1), ('above range', high, high is not None and high + 1)):
                if bound is not None:
                    cases.append(BadInput(module, '%s.%s' % (label, sub), mistake, replaced(nested, path + (sub,), value),
                                          ['%s.%s' % (label, sub), str(bound)]))
    return cases


def bad_inputs(module):
    cases = []
    for name, spec in sorted(options(module).items()):
        base = dict(module.args)
        if spec.get('type') == 'list' and spec.get('suboptions') and name not in base:
            base[name] = [element(spec)]
        cases += option_cases(module, base, (name,), name, spec)
    return cases


CASES = [pytest.param(case, id=repr(case), marks=[pytest.mark.xfail(strict=True, reason=CORE_LIMITATION)] if case.mistake == CORE_LIMITATION else [])
         for module in catalog.MODULES for case in bad_inputs(module)]


@pytest.mark.parametrize('bad', CASES)
def test_bad_input_fails_naming_the_option_and_sends_nothing(run, sim, bad):
    result = run.main(module_of(bad.module.name), bad.args, check=False, diff=False)
    assert result.get('failed'), 'accepted %s: %s' % (bad.args, result)
    assert sim.requests() == []
    missing = [word for word in bad.words if str(word).lower() not in result['msg'].lower()]
    assert not missing and 'Traceback' not in result['msg'], 'the message lacks %s: %s' % (missing, result['msg'])


@pytest.mark.parametrize('module', catalog.MODULES, ids=repr)
def test_every_option_has_bad_input_or_takes_any_text(module):
    covered = set(re.split(r'[.\[]', case.option)[0] for case in bad_inputs(module))
    assert set(options(module)) - covered <= FREE
