# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every repository path that the READMEs, CONTRIBUTING.md, docs/, meta/ and the tests' READMEs
name exists (doc_paths.py says what counts as one)."""

import pytest

import doc_paths
from conftest import ROOT


def test_every_path_named_in_the_documents_exists():
    assert doc_paths.missing_in_documents(ROOT) == {}


def test_the_documents_scanned_are_those_a_newcomer_reads():
    scanned = doc_paths.documents(ROOT)
    for document in ('README.md', 'CONTRIBUTING.md', 'docs/awx/README.md', 'docs/docsite/rst/getting_started.rst',
                     'meta/execution-environment.yml', 'roles/service_config/README.md', 'tests/simulator/README.md'):
        assert document in scanned


# The three stale references of issue 15, as the documents had them.
@pytest.mark.parametrize('document,text,stale', [
    ('docs/awx/credential_type_inputs.yml', '# Paste into ... or load with\n# docs/awx/create_credential_type.yml. The injectors',
     'docs/awx/create_credential_type.yml'),
    ('docs/awx/README.md', 'the job output does not contain them either (`tests/awx/` proves this', 'tests/awx/'),
    ('meta/execution-environment.yml', '#      (tests/ee/test_execution_environment.sh runs `ansible-builder create`',
     'tests/ee/test_execution_environment.sh'),
    ('README.md', 'see [the AWX guide](docs/awx/GUIDE.md).', 'docs/awx/GUIDE.md'),
])
def test_a_stale_reference_is_found(document, text, stale):
    assert doc_paths.missing_paths(ROOT, document, text) == [stale]


@pytest.mark.parametrize('text', [
    'https://github.com/engine-cloud/engine.cloud/blob/main/README.md',   # a URL
    'REQUESTS_CA_BUNDLE=/path/to/ca.pem and ~/.ansible/test',             # the user's machine
    "query('ansible.builtin.fileglob', 'services/*.yml')",               # a user's project
    'put `collections/requirements.yml` in it',                          # a user's project
    'make build writes dist/engine-cloud-0.1.0.tar.gz and build/',       # generated (.gitignore)
    'ansible-test writes tests/output/',                                 # generated (.gitignore)
    'the contract in `../shared/contract/`',                             # outside the repository
    'docs.ansible.com and roles of other collections',                   # words, not paths
    'each target has `tests/integration/targets/<module>/aliases`',      # a placeholder
    'roles/*/README.md and `meta/argument_specs.yml` of the role',       # a glob; relative to a role
    'see [the credential type](credential_type_inputs.yml#L3)',          # a link next to the document
])
def test_what_is_not_a_missing_repository_path(text):
    document = 'roles/service_config/README.md' if 'argument_specs' in text else 'docs/awx/README.md'
    assert doc_paths.missing_paths(ROOT, document, text) == []
