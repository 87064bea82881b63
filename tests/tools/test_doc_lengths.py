"""ansible-doc pages stay usable (issue 38): each option's description says what a user needs to choose a
value, in one to three sentences (at most MAX_CHARS characters); edge cases go to the plugin's notes or to
the guides (docs/docsite/rst/), which the description may point to. And what RETURN promises about values the API
shows in more than one form."""

import glob
import os
import re

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Three sentences of the collection's style; the longest description was 1,587 characters before.
MAX_CHARS = 550
SOURCES = sorted(glob.glob(os.path.join(ROOT, 'plugins', '*', '*.py')))
DOC = re.compile(r"^\s*(DOCUMENTATION|[A-Z_]+) = r'''\n(.*?)'''", re.M | re.S)


def documented_options(source):
    """(block, option path, description text) of every option documented in a plugin or doc fragment file."""
    with open(source, encoding='utf-8') as handle:
        text = handle.read()
    for block, body in DOC.findall(text):
        if block in ('EXAMPLES', 'RETURN'):
            continue
        doc = yaml.safe_load(body)
        if isinstance(doc, dict) and isinstance(doc.get('options'), dict):
            for path, description in walk(doc['options']):
                yield block, path, description


def walk(options, prefix=''):
    for name, spec in options.items():
        description = spec.get('description') or []
        yield prefix + name, ' '.join([description] if isinstance(description, str) else description)
        yield from walk(spec.get('suboptions') or {}, prefix + name + '.')


def too_long(source):
    return {'%s %s' % (block, path): len(description) for block, path, description in documented_options(source)
            if len(description) > MAX_CHARS}


def test_every_plugin_file_has_options_to_check():
    assert len([source for source in SOURCES if list(documented_options(source))]) >= 19


@pytest.mark.parametrize('source', SOURCES, ids=lambda path: os.path.relpath(path, ROOT))
def test_option_descriptions_are_short(source):
    assert too_long(source) == {}, 'move the edge cases to notes or a guide'


def test_a_long_description_is_found(tmp_path):
    source = tmp_path / 'sample.py'
    source.write_text("DOCUMENTATION = r'''\noptions:\n  a:\n    description: [short]\n    suboptions:\n"
                      "      b:\n        description:\n          - %s\n          - %s\n'''\n" % ('x' * 300, 'y' * 300))
    assert too_long(str(source)) == {'DOCUMENTATION a.b': 601}


# The reference: after a reset, a GET of the settings may show either null or the default value.
@pytest.mark.parametrize('module', ['pipe_settings', 'pipe_settings_info'])
def test_settings_at_their_default_may_show_null_or_the_default_value(module):
    with open(os.path.join(ROOT, 'plugins', 'modules', module + '.py'), encoding='utf-8') as handle:
        returned = yaml.safe_load(dict(DOC.findall(handle.read()))['RETURN'])
    description = returned['settings']['description']
    description = ' '.join([description] if isinstance(description, str) else description)
    assert 'V(null) or as its default value' in description, description
    assert 'V(null) means the setting is at its default' not in description, description


def test_every_test_the_docs_cite_exists():
    """docs/*.md, bench/NOTES.md and CONTRIBUTING.md name the tests that hold each guarantee: a test removed or renamed
    must take its citation along."""
    defined = set()
    for path in glob.glob(os.path.join(ROOT, 'tests', '**', '*.py'), recursive=True):
        defined.add(os.path.basename(path)[:-3])
        with open(path, encoding='utf-8') as handle:
            defined.update(re.findall(r'^\s*def (test_\w+)', handle.read(), re.M))
    cited = {}
    documents = glob.glob(os.path.join(ROOT, 'docs', '*.md')) + [os.path.join(ROOT, name) for name in ('bench/NOTES.md', 'CONTRIBUTING.md')]
    for path in documents:
        with open(path, encoding='utf-8') as handle:
            for name in re.findall(r'`(?:[\w/.]+::)?(test_\w+)(?:\[[^\]`]*\])?`', handle.read()):
                cited.setdefault(name, os.path.relpath(path, ROOT))
    assert sorted('%s (%s)' % (name, path) for name, path in cited.items() if name not in defined) == []


def test_the_contributors_map_names_every_file_of_module_utils():
    """CONTRIBUTING.md, "Where the code lives": a file added to plugins/module_utils takes its place in the map."""
    with open(os.path.join(ROOT, 'CONTRIBUTING.md'), encoding='utf-8') as handle:
        text = handle.read().partition('## Where the code lives')[2].partition('\n## ')[0]
    files = sorted(os.path.basename(path) for path in glob.glob(os.path.join(ROOT, 'plugins', 'module_utils', '*.py')))
    assert [name for name in files if '`%s`' % name not in text] == []
