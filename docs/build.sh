#!/usr/bin/env bash
# Build the collection's HTML documentation (module and role reference plus docs/docsite guides)
# with antsibull-docs and Sphinx:   docs/build.sh COLLECTIONS_PATH DEST
# COLLECTIONS_PATH holds ansible_collections/engine/cloud (make docs passes a copy of the tree); the HTML ends up
# in DEST/build/html. Sphinx warnings fail the build, except those that only come from having no
# network: the cross-references into docs.ansible.com (intersphinx) cannot be resolved offline.
set -euo pipefail

collections=$1
dest=$2
export ANSIBLE_COLLECTIONS_PATH=$collections

rm -rf "$dest"
mkdir -p "$dest"
antsibull-docs sphinx-init --use-current --squash-hierarchy --fail-on-error --dest-dir "$dest" engine.cloud >/dev/null
mkdir -p "$dest/rst"
chmod og-w "$dest/rst"
antsibull-docs --config-file "$dest/antsibull-docs.cfg" collection --cleanup everything --fail-on-error \
    --use-current --squash-hierarchy --dest-dir "$dest/rst" engine.cloud
# Offline: no inventories to fetch.
echo 'intersphinx_mapping = {}' >>"$dest/conf.py"
sphinx-build -M html "$dest/rst" "$dest/build" -c "$dest" -q -w "$dest/warnings.log" 2>"$dest/sphinx.log" || true

# Offline, references into docs.ansible.com cannot resolve: its labels, and ansible-core's own environment
# variables (ANSIBLE_CACHE_PLUGIN, ... that the inventory plugin's cache options name). The collection's
# ENGINE_* variables are documented here and must resolve.
offline='undefined label: .(common_return_values|ansible_configuration_settings|[a-z_]*ansible[a-z_]*). \[ref\.ref\]'
offline+="|'envvar' reference target not found: ANSIBLE_[A-Z_]+ \\[ref\\.envvar\\]"
if grep -v -E "$offline" "$dest/warnings.log" | grep -q .; then
    echo "docs: Sphinx warnings:" >&2
    grep -v -E "$offline" "$dest/warnings.log" >&2
    exit 1
fi
test -f "$dest/build/html/index.html"
pages=$(find "$dest/build/html" -name '*_module.html' | wc -l)
roles=$(find "$dest/build/html" -name '*_role.html' | wc -l)
echo "docs: $pages module pages, $roles role pages: $dest/build/html/index.html"
