#!/usr/bin/env bash
# The engine.cloud.services inventory plugin against the simulator, run as users run it:
#   1. a source with templated credentials (the key secret from a vaulted vars file), keyed_groups,
#      groups and compose: check_hosts.yml asserts the hosts, groups and variables, and that the
#      inventory sent one request; a service name that is not a valid host name warns; then the
#      secret as an inline vaulted value;
#   2. hostname: id, with the connection from the modules' environment variables;
#   3. strict: true fails on a compose expression that cannot be evaluated;
#   4. the cache: a second run sends 0 requests, --flush-cache reads again; the cache holds no secret;
#   5. a refused key fails the source with what to check;
#   6. filters (the tag filter sent to the API, the others applied by the plugin), a hostname template and
#      hostvars_prefix: check_filters.yml; a bad filter fails the source before any request;
#   7. API data is never rendered: a service renamed (and tagged) to a template that would create a file,
#      read by tasks (check_injection.yml) and by a hostname template, stays text, and the file never appears;
#   8. a softdeleted service that has a live service's name is no host and takes no name; include_deleted: true
#      makes it a host, and both are then named by their ids;
# and no output of any run holds the key secret.
set -eu -o pipefail

# ansible-test passes integration_config.yml to role targets only; script targets read it here.
CONFIG=../../integration_config.yml

# The playbooks' admin calls to the simulator go through setup_simulator's sim_admin lookup, on the controller
# (an ansible.builtin.uri task starts a module process for each); aliases says needs/target/setup_simulator, so
# that ansible-test copies that target beside this one.
export ANSIBLE_LOOKUP_PLUGINS
ANSIBLE_LOOKUP_PLUGINS=$(cd ../setup_simulator/lookup_plugins && pwd)

# config NAME: the value of NAME in integration_config.yml (quoted or not).
config() {
    sed -n -e "s/^$1: *\"\(.*\)\"$/\1/p" -e "t" -e "s/^$1: *\(.*\)$/\1/p" "$CONFIG"
}

KEY_SECRET=$(config engine_api_key_secret)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
output="$work/output.log"  # every run's output, searched for the key secret at the end

# run COMMAND...: runs it, keeps its output (shown on failure)
run() {
    "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log"; echo "inventory_services: failed: $*" >&2; return 1; }
    cat "$work/last.log" >>"$output"
}

# said PATTERN: the last run's output holds PATTERN (a grep pattern), also where ansible-core before 2.19 wrapped
# a warning or an error over several lines (a line break for a space)
said() {
    tr '\n' ' ' <"$work/last.log" | grep -q -- "$1"
}

# source_fails WHAT [NAME=VALUE...] COMMAND...: COMMAND (an ansible-inventory run, with the connection from the
# environment and NAME=VALUE added to it) fails its source (WHAT says which); its output is kept
source_fails() {
    local what=$1
    shift
    if cloud_env ANSIBLE_INVENTORY_UNPARSED_FAILED=true "$@" >"$work/last.log" 2>&1; then
        cat "$work/last.log"
        echo "inventory_services: $what did not fail the source" >&2
        exit 1
    fi
    cat "$work/last.log" >>"$output"
}

# The resets and the counts of the request log between the runs are admin calls only: admin.py makes them
# (a Python process; an ansible-playbook run took about 1 CPU-second to start).
# reset: the simulator back to its fixtures
reset() {
    run python3 admin.py "$(config engine_sim_admin_url)" reset
}

# requests N: the simulator received N API requests since the last call, each a GET of the list
requests() {
    run python3 admin.py "$(config engine_sim_admin_url)" requests "$1" "/v1/organizations/$(config engine_organization_id)/services"
}

cloud_env() {
    env ENGINE_CLOUD_API_URL="$(config engine_api_url)" ENGINE_CLOUD_KEY_ID="$(config engine_api_key_id)" \
        ENGINE_CLOUD_ORGANIZATION_ID="$(config engine_organization_id)" ENGINE_CLOUD_KEY_SECRET="$KEY_SECRET" "$@"
}

reset

# 1. Templated credentials, the secret from a vaulted file; constructed groups and variables.
printf 'integration-vault-password\n' >"$work/vault-password"
printf 'vault_engine_key_secret: "%s"\n' "$KEY_SECRET" >"$work/vault.yml"
ansible-vault encrypt --vault-password-file "$work/vault-password" "$work/vault.yml" >/dev/null
cat >"$work/groups.engine_cloud.yml" <<'SOURCE'
plugin: engine.cloud.services
api_url: "{{ engine_api_url }}"
api_key_id: "{{ engine_api_key_id }}"
api_key_secret: "{{ vault_engine_key_secret }}"
organization_id: "{{ engine_organization_id }}"
keyed_groups:
  - {key: engine_tier, prefix: tier}
  - {key: engine_provider, prefix: provider}
  - {key: engine_tags, prefix: tag, trailing_separator: false}
groups:
  team_ingest: engine_tags.team | default('') == 'ingest'
compose:
  ansible_connection: "'local'"
  engine_team: engine_tags.team | default('none')
  engine_owner: engine_tags.owner
SOURCE
run ansible-playbook -vvv -i "$work/groups.engine_cloud.yml" -e "@$CONFIG" -e "@$work/vault.yml" \
    --vault-password-file "$work/vault-password" check_hosts.yml
said "service .* is named by its id: its name 'reporting replica' is not a valid inventory host name" || {
    echo "inventory_services: no warning for the service named 'reporting replica'" >&2
    exit 1
}

# 1b. The secret as an inline vaulted value of the source.
{
    printf 'plugin: engine.cloud.services\napi_url: "%s"\napi_key_id: "%s"\norganization_id: "%s"\n' \
        "$(config engine_api_url)" "$(config engine_api_key_id)" "$(config engine_organization_id)"
    ansible-vault encrypt_string --vault-password-file "$work/vault-password" --name api_key_secret "$KEY_SECRET" 2>/dev/null
} >"$work/inline.engine_cloud.yml"
reset
run ansible-inventory -i "$work/inline.engine_cloud.yml" --vault-password-file "$work/vault-password" --graph
grep -q -- '--ingest-eu$' "$work/last.log"
requests 1

# 2. hostname: id, the connection from the environment.
printf 'plugin: engine.cloud.services\nhostname: id\n' >"$work/ids.engine_cloud.yml"
run cloud_env ansible-playbook -i "$work/ids.engine_cloud.yml" -e "@$CONFIG" check_ids.yml
if said 'is named by its id'; then
    echo "inventory_services: hostname: id warned about a name" >&2
    exit 1
fi

# 3. strict: true (an expression that cannot be evaluated fails the source) is
# tests/unit/plugins/inventory/test_inventory_services.py's (test_strict_fails_on_an_expression_that_cannot_be_evaluated);
# how ansible-inventory reports a failed source is proven here once, by the refused key (5).

# 4. The cache: one request, then none, then one again after --flush-cache.
cat >"$work/cache.engine_cloud.yml" <<SOURCE
plugin: engine.cloud.services
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: $work/cache
cache_timeout: 3600
SOURCE
reset
run cloud_env ansible-inventory -vvv -i "$work/cache.engine_cloud.yml" --list
requests 1
run cloud_env ansible-inventory -vvv -i "$work/cache.engine_cloud.yml" --list
grep -q 'engine.cloud.services: 6 services from the cache' "$work/last.log"
requests 0
# (ansible-inventory takes --flush-cache from ansible-core 2.17 on, ansible-playbook on every line)
run cloud_env ansible-playbook -i "$work/cache.engine_cloud.yml" --flush-cache -e "@$CONFIG" -e expected_requests=1 requests.yml
test -n "$(ls -A "$work/cache")"
if grep -r -l -F "$KEY_SECRET" "$work/cache"; then
    echo "inventory_services: the cache holds the key secret" >&2
    exit 1
fi

# 5. A refused key fails the source, saying what to check.
source_fails 'a refused key' ENGINE_CLOUD_KEY_SECRET=not-the-secret ansible-inventory -vvv -i "$work/ids.engine_cloud.yml" --list
said 'HTTP 401 UNAUTHORIZED.*check api_key_id and api_key_secret (ENGINE_CLOUD_KEY_ID, ENGINE_CLOUD_KEY_SECRET)'
if grep -q -F 'not-the-secret' "$work/last.log"; then
    echo "inventory_services: the refused secret is in the output" >&2
    exit 1
fi

# 6. Filters: by tag on the API's side, by tier and name on the plugin's; a hostname template; a prefix.
cat >"$work/filters.engine_cloud.yml" <<'SOURCE'
plugin: engine.cloud.services
filters:
  tags:
    team:
  state: [running, idle]
  tier: production
  provider: [aws, azure]
  region: [eu-central-1, germanywestcentral]
  name: [prod-*, ingest-*]
hostvars_prefix: svc_
hostname: "{{ svc_name }}.{{ svc_provider }}"
keyed_groups:
  - {key: svc_tier, prefix: tier}
compose:
  team: svc_tags.team
SOURCE
reset
run cloud_env ansible-playbook -i "$work/filters.engine_cloud.yml" -e "@$CONFIG" check_filters.yml
# An unknown filter fails before any request: test_bad_filters_and_names_fail_before_any_request (unit).
reset

# 7. A service named (and tagged) with a template that would create $marker when rendered: tasks read its host
# variables, a hostname template reads its name, and the file never appears.
marker="$work/rendered-from-api-data"
injected="{{ lookup('pipe', 'touch $marker') }}"
injected_id=$(python3 admin.py "$(config engine_sim_admin_url)" inject "$injected")
printf 'plugin: engine.cloud.services\nhostname: "{{ engine_name }}"\nfilters:\n  tags:\n    owner:\n' >"$work/injected.engine_cloud.yml"
run cloud_env ENGINE_INJECTED="$injected" ansible-playbook -i "$work/injected.engine_cloud.yml" -e "@$CONFIG" \
    -e "injected_id=$injected_id" check_injection.yml
said "service $injected_id is named by its id: the name its hostname template gives .* is not a valid inventory host name"
run cloud_env ansible-inventory -i "$work/injected.engine_cloud.yml" --list
grep -q -F "touch $marker" "$work/last.log"
if [ -e "$marker" ]; then
    echo "inventory_services: FAILED: a template in the API's data was rendered: $marker exists" >&2
    exit 1
fi

# 8. dev-sandbox softdeleted and renamed ingest-eu, as a list may show a deleted service for a while.
reset
deleted_id=$(python3 admin.py "$(config engine_sim_admin_url)" softdelete dev-sandbox ingest-eu)
printf 'plugin: engine.cloud.services\n' >"$work/plain.engine_cloud.yml"
run cloud_env ansible-inventory -i "$work/plain.engine_cloud.yml" --graph
grep -q -- '--ingest-eu$' "$work/last.log"
if grep -q -e "$deleted_id" -e 'is the name of 2 services' "$work/last.log"; then
    echo "inventory_services: the softdeleted service is a host, or took the name of ingest-eu" >&2
    exit 1
fi
printf 'plugin: engine.cloud.services\ninclude_deleted: true\nfilters:\n  name: ingest-eu\n' >"$work/deleted.engine_cloud.yml"
run cloud_env ansible-inventory -i "$work/deleted.engine_cloud.yml" --graph
grep -q -- "--$deleted_id\$" "$work/last.log"
said "its name 'ingest-eu' is the name of 2 services"
requests 2

# The search finds the secret where it is (control), and in no output of the runs.
grep -q -F "$KEY_SECRET" "$CONFIG"
if grep -n -F "$KEY_SECRET" "$output" | cut -c1-160; then
    echo "inventory_services: FAILED: the key secret appears in the output above" >&2
    exit 1
fi
echo "inventory_services: ok: $(wc -l <"$output") lines of output, no key secret"
