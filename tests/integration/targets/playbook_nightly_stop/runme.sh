#!/usr/bin/env bash
# The example job "nightly stop of development services", run as shipped: the collection's
# playbook engine.cloud.nightly_stop_development with its inventory source
# playbooks/inventory/engine_cloud.yml, the connection in ENGINE_CLOUD_* as AWX injects it.
# From the simulator's log: a service tagged nightly-stop=no is not stopped; --check stops
# nothing; the run stops exactly the running development services; a second run changes nothing; a
# softdeleted development service of a live one's name is no host (never read) and takes no name;
# a source that fails or lists no host of the pattern fails the job.
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

export ENGINE_CLOUD_API_URL ENGINE_CLOUD_KEY_ID ENGINE_CLOUD_KEY_SECRET ENGINE_CLOUD_ORGANIZATION_ID
ENGINE_CLOUD_API_URL=$(config engine_api_url)
ENGINE_CLOUD_KEY_ID=$(config engine_api_key_id)
ENGINE_CLOUD_KEY_SECRET=$(config engine_api_key_secret)
ENGINE_CLOUD_ORGANIZATION_ID=$(config engine_organization_id)
# Pacing off, as in the role targets (see integration_config.yml.template).
export ENGINE_CLOUD_RATE_LIMIT
ENGINE_CLOUD_RATE_LIMIT=$(config engine_api_rate_limit)

source=$(ansible-galaxy collection list engine.cloud --format json |
    python -c 'import json, sys; print(next(iter(json.load(sys.stdin))))')/engine/cloud/playbooks/inventory/engine_cloud.yml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# check EXTRA_VARS_JSON: check.yml with these extra vars (see there)
check() {
    ansible-playbook -i localhost, -e "@$CONFIG" -e "$1" check.yml
}

# nightly [ARGS]: the job as users run it
nightly() {
    ansible-playbook -i "$source" engine.cloud.nightly_stop_development "$@" | tee "$work/nightly.log"
}

# must_fail NEEDLE... -- ARGS: the job with ARGS exits non-zero and its output holds every NEEDLE. With
# Ansible's default, a pattern that matches no host is a warning (ansible-test makes it an error).
must_fail() {
    local needles=()
    while [ "$1" != -- ]; do needles+=("$1"); shift; done
    shift
    if ANSIBLE_HOST_PATTERN_MISMATCH=warning ansible-playbook "$@" engine.cloud.nightly_stop_development > "$work/failed.log" 2>&1; then
        cat "$work/failed.log"; echo "playbook_nightly_stop: the job exited 0 with $*" >&2; exit 1
    fi
    for needle in "${needles[@]}"; do
        grep -qF "$needle" "$work/failed.log" || { cat "$work/failed.log"; echo "no '$needle' in the output" >&2; exit 1; }
    done
}

# The job fails, saying why, when its inventory source cannot be read (a path that does not exist, a
# refused key) or lists no host of the pattern; it stops nothing. nightly_stop_allow_none accepts the last.
check '{"setup": "exempt"}'
must_fail 'The inventory has no host at all' 'Nothing was stopped' -- -i "$work/missing/engine_cloud.yml"
ENGINE_CLOUD_KEY_SECRET=wrong-secret must_fail 'HTTP 401' 'The inventory has no host at all' -- -i "$source"
must_fail 'None of the 6 services of the inventory is in tag_none' -- -i "$source" -e nightly_stop_hosts=tag_none
ANSIBLE_HOST_PATTERN_MISMATCH=warning ansible-playbook -i "$source" engine.cloud.nightly_stop_development \
    -e nightly_stop_hosts=tag_none -e nightly_stop_allow_none=true
check '{"stopped": [], "reads": [], "lists": 3}'

nightly
grep -q 'ingest-staging: kept running (tag nightly-stop=no)' "$work/nightly.log"
check '{"stopped": [], "reads": ["dev-sandbox"]}'

# stop_after SETUP: from the simulator state SETUP, --check stops nothing and says what it would stop;
# then the run stops ingest-staging and leaves dev-sandbox (already stopped) as it is.
stop_after() {
    check "{\"setup\": \"$1\"}"
    nightly --check
    grep -q 'ingest-staging: would be stopped (check mode)' "$work/nightly.log"
    check '{"stopped": [], "reads": ["dev-sandbox", "ingest-staging"]}'

    nightly
    grep -q 'ingest-staging: stopped' "$work/nightly.log"
    grep -q 'dev-sandbox: was already stopped' "$work/nightly.log"
    check '{"stopped": ["ingest-staging"], "reads": ["dev-sandbox", "ingest-staging"]}'
}

# From the state with a softdeleted service of the same name as ingest-staging (the list still shows it):
# the live one is stopped, the deleted one never read. (The same run from the plain reset state proved
# nothing more: every check also asserts that no softdeleted service was read.) Then the second run.
stop_after deleted
nightly
check '{"stopped": [], "reads": ["dev-sandbox", "ingest-staging"]}'
echo "playbook_nightly_stop: ok"
