#!/usr/bin/env bash
# The organization as code, end to end through ansible-playbook: engine.cloud.org_export writes the files (no secret
# in them), engine.cloud.org_drift exits 0 on them, fails (non-zero, the summary in its message) once an object is
# changed behind the collection's back, engine.cloud.org_apply applies the reviewed plan (a stale digest: unit tests),
# and the drift job is quiet again; no secret of the fixture in any output line, at -vvv too.
set -eu -o pipefail

CONFIG=../../integration_config.yml
config() {
    sed -n -e "s/^$1: *\"\(.*\)\"$/\1/p" -e "t" -e "s/^$1: *\(.*\)$/\1/p" "$CONFIG"
}
export ENGINE_CLOUD_API_URL ENGINE_CLOUD_KEY_ID ENGINE_CLOUD_KEY_SECRET ENGINE_CLOUD_ORGANIZATION_ID ENGINE_OBSERVABILITY_URL ENGINE_OBSERVABILITY_TOKEN
ENGINE_CLOUD_API_URL=$(config engine_api_url)
ENGINE_CLOUD_KEY_ID=$(config engine_api_key_id)
ENGINE_CLOUD_KEY_SECRET=$(config engine_api_key_secret)
ENGINE_CLOUD_ORGANIZATION_ID=$(config engine_organization_id)
ENGINE_OBSERVABILITY_URL=$(config engine_observability_url)
ENGINE_OBSERVABILITY_TOKEN=$(config engine_api_token)
export ENGINE_CLOUD_RATE_LIMIT=off ENGINE_OBSERVABILITY_RATE_LIMIT=off
export ANSIBLE_PYTHON_INTERPRETER
ANSIBLE_PYTHON_INTERPRETER=$(python -c 'import sys; print(sys.executable)')
admin=$(config engine_sim_admin_url)
secrets=("$ENGINE_CLOUD_KEY_SECRET" "$ENGINE_OBSERVABILITY_TOKEN" "c2ltLXNlY3JldC1kby1ub3QtbGVhaw==")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sim() {  # sim METHOD PATH [JSON]: one call to the simulator's admin interface
    python - "$admin" "$@" <<'PY'
import json, sys, urllib.request
admin, method, path = sys.argv[1:4]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
request = urllib.request.Request(admin + path, data=body, method=method, headers={'Content-Type': 'application/json'})
print(urllib.request.urlopen(request).read().decode())
PY
}
no_secret() {  # no_secret FILE...: none of the fixture's secrets in them
    for secret in "${secrets[@]}"; do
        if grep -F -- "$secret" "$@"; then echo "a secret was shown in $*" >&2; exit 1; fi
    done
}
playbook() {  # playbook NAME [ARGS...]: run engine.cloud.NAME, its output in $work/NAME.out; returns its exit code
    local name=$1; shift
    ansible-playbook "engine.cloud.$name" -e "org_dir=$work/org" "$@" >"$work/$name.out" 2>&1
}

sim POST /reset '{}' >/dev/null
playbook org_export
test -s "$work/org/services.yml" && test -s "$work/org/pipes.yml" && test -s "$work/org/dashboards.yml" && test -s "$work/org/alerts.yml"
no_secret "$work"/org/*.yml "$work/org_export.out"
grep -q 'services\[0\].password' "$work/org_export.out"

playbook org_drift
grep -q 'No drift' "$work/org_drift.out"

# A service changed in the web console, behind the collection's back: drift, with the summary, and a non-zero exit.
sim PATCH /services/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e71 '{"idleTimeoutMinutes": 45}' >/dev/null
if playbook org_drift; then echo "org_drift passed with drift" >&2; cat "$work/org_drift.out" >&2; exit 1; fi
grep -q 'Drift: 0 to create, 1 to update (service ingest-staging), 0 to delete' "$work/org_drift.out"
digest=$(sed -n 's/.*plan_digest \([0-9a-f]\{64\}\).*/\1/p' "$work/org_drift.out" | head -n 1)

playbook org_apply -e "org_plan_digest=$digest" -vvv
grep -q '0 created, 1 updated, 0 deleted, 0 skipped' "$work/org_apply.out"
no_secret "$work/org_apply.out"

playbook org_drift
grep -q 'No drift' "$work/org_drift.out"
