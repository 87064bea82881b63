#!/usr/bin/env bash
# The example job "nightly stop of development services", run as shipped: the collection's playbook
# engine.cloud.nightly_stop_development with its inventory source playbooks/inventory/engine_cloud.yml, the
# connection in ENGINE_CLOUD_* as AWX injects it. The development services: dev-sandbox (made running here) and
# ingest-staging (running, tagged nightly-stop=no here). From the simulator's log: --check stops nothing; the run
# stops dev-sandbox only; a second run changes nothing; a source that fails fails the job, saying why.
set -eu -o pipefail

# shellcheck source=../setup_simulator/files/runme.sh
. ../setup_simulator/files/runme.sh

export ENGINE_CLOUD_API_URL ENGINE_CLOUD_KEY_ID ENGINE_CLOUD_KEY_SECRET ENGINE_CLOUD_ORGANIZATION_ID ENGINE_CLOUD_RATE_LIMIT
ENGINE_CLOUD_API_URL=$(config engine_api_url)
ENGINE_CLOUD_KEY_ID=$(config engine_api_key_id)
ENGINE_CLOUD_KEY_SECRET=$(config engine_api_key_secret)
ENGINE_CLOUD_ORGANIZATION_ID=$(config engine_organization_id)
ENGINE_CLOUD_RATE_LIMIT=$(config engine_api_rate_limit)

source=$(ansible-galaxy collection list engine.cloud --format json |
    python -c 'import json, sys; print(next(iter(json.load(sys.stdin))))')/engine/cloud/playbooks/inventory/engine_cloud.yml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# nightly [ARGS]: the job as users run it; its output in $work/nightly.log
nightly() {
    ansible-playbook -i "$source" engine.cloud.nightly_stop_development "$@" 2>&1 | tee "$work/nightly.log"
}

# said TEXT...: the last run's output holds each TEXT
said() {
    for text in "$@"; do
        grep -q -F -- "$text" "$work/nightly.log" || fail "no '$text' in the output"
    done
}

admin reset '{"transition_delay": 0}'
dev=$(admin edit services dev-sandbox '{"state": "running"}')
admin edit services ingest-staging '{"tags": [{"key": "team", "value": "ingest"}, {"key": "nightly-stop", "value": "no"}]}' >/dev/null
reads=$(printf 'GET services\nGET services/%s' "$dev")

nightly --check
said 'dev-sandbox: would be stopped (check mode)' 'ingest-staging: kept running (tag nightly-stop=no)'
calls "$reads"

nightly
said 'dev-sandbox: stopped' 'ingest-staging: kept running (tag nightly-stop=no)'
calls "$(printf '%s\nPATCH services/%s/state\nGET services/%s' "$reads" "$dev" "$dev")"

nightly
said 'dev-sandbox: was already stopped'
calls "$reads"

# A refused key: Ansible only warns that the source failed (and, by default, that the play's pattern matches no
# host; ansible-test makes that an error); the job fails, saying why, and stops nothing.
ENGINE_CLOUD_KEY_SECRET=wrong-secret ANSIBLE_HOST_PATTERN_MISMATCH=warning nightly >/dev/null &&
    fail "the job exited 0 with a refused key"
said 'HTTP 401' 'The inventory has no host at all' 'Nothing was stopped'
calls 'GET services'
echo "playbook_nightly_stop: ok"
