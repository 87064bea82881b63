#!/usr/bin/env bash
# The organization as code, end to end through ansible-playbook: engine.cloud.org_export writes the files (no secret
# in them), engine.cloud.org_drift exits 0 on them, fails (non-zero, the summary in its message) once a service is
# changed behind the collection's back, engine.cloud.org_apply applies the reviewed plan (its plan_digest; a stale one:
# unit tests), and the drift job is quiet again; no secret of the fixture in any output line, at -vvv too.
set -eu -o pipefail

# shellcheck source=../setup_simulator/files/runme.sh
. ../setup_simulator/files/runme.sh

export ENGINE_CLOUD_API_URL ENGINE_CLOUD_KEY_ID ENGINE_CLOUD_KEY_SECRET ENGINE_CLOUD_ORGANIZATION_ID ENGINE_OBSERVABILITY_URL ENGINE_OBSERVABILITY_TOKEN
ENGINE_CLOUD_API_URL=$(config engine_api_url)
ENGINE_CLOUD_KEY_ID=$(config engine_api_key_id)
ENGINE_CLOUD_KEY_SECRET=$(config engine_api_key_secret)
ENGINE_CLOUD_ORGANIZATION_ID=$(config engine_organization_id)
ENGINE_OBSERVABILITY_URL=$(config engine_observability_url)
ENGINE_OBSERVABILITY_TOKEN=$(config engine_api_token)
export ENGINE_CLOUD_RATE_LIMIT=off ENGINE_OBSERVABILITY_RATE_LIMIT=off

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

no_secret() {  # no_secret FILE...: none of the fixture's secrets in them
    for secret in "$ENGINE_CLOUD_KEY_SECRET" "$ENGINE_OBSERVABILITY_TOKEN" "c2ltLXNlY3JldC1kby1ub3QtbGVhaw=="; do
        if grep -F -- "$secret" "$@"; then echo "a secret was shown in $*" >&2; exit 1; fi
    done
}
playbook() {  # playbook NAME [ARGS...]: engine.cloud.NAME on $work/org, its output in $work/NAME.out; its exit code
    local name=$1; shift
    ansible-playbook "engine.cloud.$name" -e "org_dir=$work/org" "$@" >"$work/$name.out" 2>&1
}

admin reset
playbook org_export
for kind in services pipes dashboards alerts; do test -s "$work/org/$kind.yml"; done
no_secret "$work"/org/*.yml "$work/org_export.out"
grep -q 'services\[0\].password' "$work/org_export.out"

playbook org_drift
grep -q 'No drift' "$work/org_drift.out"
test -z "$(admin calls | grep -v '^GET')"  # reads only

admin edit services ingest-staging '{"idleTimeoutMinutes": 45}' >/dev/null
if playbook org_drift; then echo "org_drift passed with drift" >&2; cat "$work/org_drift.out" >&2; exit 1; fi
grep -q 'Drift: 0 to create, 1 to update (service ingest-staging), 0 to delete' "$work/org_drift.out"
digest=$(sed -n 's/.*plan_digest \([0-9a-f]\{64\}\).*/\1/p' "$work/org_drift.out" | head -n 1)

admin calls >/dev/null
playbook org_apply -e "org_plan_digest=$digest" -vvv
grep -q '0 created, 1 updated, 0 deleted, 0 skipped' "$work/org_apply.out"
no_secret "$work/org_apply.out"
admin calls | grep -v '^GET' | grep -qx 'PATCH services/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e71/scaling'

playbook org_drift
grep -q 'No drift' "$work/org_drift.out"
