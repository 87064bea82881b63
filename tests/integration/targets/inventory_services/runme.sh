#!/usr/bin/env bash
# The engine.cloud.services inventory plugin against the simulator, run as users run it: a source whose key
# secret comes from a vaulted file, with keyed_groups, groups, compose and a cache.
#   1. ansible-playbook: one list request; check.yml asserts the hosts, groups and variables; a service renamed
#      (and tagged) to a template that would create a file when rendered stays text in every variable a task
#      reads, and -vvv prints it as text;
#   2. ansible-inventory --graph: served from the cache (no request);
# and the file never appears, and no output of any run holds the key secret.
set -eu -o pipefail

# shellcheck source=../setup_simulator/files/runme.sh
. ../setup_simulator/files/runme.sh

KEY_SECRET=$(config engine_api_key_secret)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf 'integration-vault-password\n' >"$work/vault-password"
printf 'vault_engine_key_secret: "%s"\n' "$KEY_SECRET" >"$work/vault.yml"
ansible-vault encrypt --vault-password-file "$work/vault-password" "$work/vault.yml" >/dev/null
cat >"$work/services.engine_cloud.yml" <<SOURCE
plugin: engine.cloud.services
api_url: "{{ engine_api_url }}"
api_key_id: "{{ engine_api_key_id }}"
api_key_secret: "{{ vault_engine_key_secret }}"
organization_id: "{{ engine_organization_id }}"
keyed_groups:
  - {key: engine_tier, prefix: tier}
  - {key: engine_provider, prefix: provider}
groups:
  team_ingest: engine_tags.team | default('') == 'ingest'
  owned: engine_tags.owner is defined
compose:
  ansible_connection: "'local'"
  engine_team: engine_tags.team | default('none')
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: $work/cache
cache_timeout: 3600
SOURCE

marker="$work/rendered-from-api-data"
injected="{{ lookup('pipe', 'touch $marker') }}"
admin reset
injected_id=$(admin edit services dev-sandbox "$(printf '{"name": "%s", "tags": [{"key": "owner", "value": "%s"}]}' "$injected" "$injected")")

# run COMMAND...: runs it with the vault and the template, keeps its output in $work/output.log
run() {
    ENGINE_INJECTED="$injected" "$@" --vault-password-file "$work/vault-password" >"$work/last.log" 2>&1 ||
        { cat "$work/last.log"; echo "inventory_services: failed: $*" >&2; exit 1; }
    cat "$work/last.log" >>"$work/output.log"
}

run ansible-playbook -vvv -i "$work/services.engine_cloud.yml" -e "@$CONFIG" -e "@$work/vault.yml" \
    -e "injected_id=$injected_id" check.yml
calls 'GET services'
grep -q -F "touch $marker" "$work/last.log"
run ansible-inventory -vvv -i "$work/services.engine_cloud.yml" -e "@$CONFIG" -e "@$work/vault.yml" --graph
grep -q 'engine.cloud.services: 6 services from the cache' "$work/last.log"
grep -q -- "--$injected_id\$" "$work/last.log"
calls ''

[ -e "$marker" ] && fail "a template in the API's data was rendered: $marker exists"
grep -r -l -F "$KEY_SECRET" "$work/cache" && fail "the cache holds the key secret"
grep -q -F "$KEY_SECRET" "$work/vault.yml" && fail "the vault file is not encrypted"
grep -n -F "$KEY_SECRET" "$work/output.log" | cut -c1-160 && fail "the key secret appears in the output above"
echo "inventory_services: ok: $(wc -l <"$work/output.log") lines of output, no key secret"
