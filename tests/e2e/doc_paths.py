# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The repository paths a document names, and which of them do not exist.

A repository path is a word that starts with a top-level entry of the repository (``docs/...``,
``tests/...``, ``README.md``) or a relative link of Markdown (``[text](file.yml)``). What is not one:
URLs (``https://host/README.md``: the name follows a ``/``), paths of a user's machine
(``/path/to/ca.pem``, ``~/.ansible``, ``services/*.yml`` of a user's project: no top-level entry of
the repository starts them), generated paths (those .gitignore names: ``build/``, ``tests/output/``),
and paths that leave the repository (``../shared/``). A path is found when it exists relative to the
repository root or to the document's directory (a role README's ``meta/argument_specs.yml``);
``<placeholder>``/``{placeholder}`` segments end it, and ``*`` is a glob that must match."""

import fnmatch
import glob
import os
import re

# The documents of issue 15: READMEs, contributor docs, docs/, meta/ and tests' READMEs.
DOCUMENTS = ('README.md', 'CONTRIBUTING.md', 'docs/**/*', 'roles/*/README.md', 'meta/*', 'tests/*/README.md')

_PATH_CHARS = r'[\w.*<>{}@+-]'
_MARKDOWN_LINK = re.compile(r'\]\(([^)\s]+)\)')
_PLACEHOLDER = re.compile(r'[<{$]')
_SCHEME = re.compile(r'^[a-z][a-z0-9+.-]*:', re.I)


def documents(root):
    """The documents to scan under root, as relative paths."""
    found = set()
    for pattern in DOCUMENTS:
        found.update(path for path in glob.glob(os.path.join(root, pattern), recursive=True) if os.path.isfile(path))
    return sorted(os.path.relpath(path, root) for path in found)


def ignore_patterns(root):
    """The patterns of root's .gitignore (generated paths), without comments and blanks."""
    with open(os.path.join(root, '.gitignore')) as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith('#')]


def is_ignored(path, patterns):
    """Whether path or a directory above it matches a .gitignore pattern (anchored with a leading /)."""
    parts = path.strip('/').split('/')
    prefixes = ['/'.join(parts[:count]) for count in range(1, len(parts) + 1)]
    for pattern in patterns:
        anchored, bare = pattern.startswith('/'), pattern.strip('/')
        for prefix in prefixes:
            if fnmatch.fnmatch(prefix if anchored else prefix.rsplit('/', 1)[-1], bare):
                return True
    return False


def top_level_names(root, patterns):
    """The repository's own top-level entries: what a repository path starts with."""
    return sorted(name for name in os.listdir(root) if name != '.git' and not is_ignored(name, patterns))


def named_paths(text, top_names):
    """Every repository path a text names: words starting with a top-level entry, and relative links."""
    starts = '|'.join(re.escape(name) for name in sorted(top_names, key=len, reverse=True))
    word = re.compile(r'(?<![\w./~:-])(?:\./)?(?:%s)(?:/%s*)*/?(?![\w-])' % (starts, _PATH_CHARS))
    paths = [match.group(0) for match in word.finditer(text)]
    for target in _MARKDOWN_LINK.findall(text):
        target = target.split('#')[0]
        if target and not _SCHEME.match(target) and not target.startswith(('/', '~')):
            paths.append(target)
    return [path.rstrip('.,:;') for path in paths]


def _exists(base, path):
    if '*' in path or '?' in path:
        return bool(glob.glob(os.path.join(base, path)))
    return os.path.lexists(os.path.join(base, path))


def resolve(path):
    """path up to its first placeholder segment (``targets/<module>/`` checks ``targets/``)."""
    kept = []
    for part in path.split('/'):
        if _PLACEHOLDER.search(part):
            break
        kept.append(part)
    return '/'.join(kept)


def missing_paths(root, document, text, exists_root=None):
    """The paths text (the content of document, relative to root) names that exist neither relative
    to exists_root (default: root) nor to the document's directory there."""
    patterns = ignore_patterns(root)
    top_names = top_level_names(root, patterns)
    exists_root = exists_root or root
    doc_dir = os.path.join(exists_root, os.path.dirname(document))
    missing = []
    for named in named_paths(text, top_names):
        path = resolve(named)
        inside = os.path.normpath(os.path.join(os.path.dirname(document), path))
        if not path or inside.startswith('..') or is_ignored(path, patterns):
            continue
        if not (_exists(exists_root, path) or _exists(doc_dir, path)):
            missing.append(named)
    return sorted(set(missing))


def missing_in_documents(root, names=None, exists_root=None):
    """{document: [missing paths]} for the documents of root (or the given names)."""
    report = {}
    for document in names or documents(root):
        with open(os.path.join(exists_root or root, document)) as handle:
            missing = missing_paths(root, document, handle.read(), exists_root)
        if missing:
            report[document] = missing
    return report
