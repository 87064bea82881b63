#!/usr/bin/env bash
# The modules that handle secrets, run with -vvv in the ways that print them: results, lists, check mode, diff,
# waits, a wait timeout, errors, and error bodies that quote the credentials (modules.yml). No line of the output
# may hold a secret: the key secret, its Basic value, the token, the object storage pipe's connection string (and
# its account key alone), a password. First a control run prints every one of them, and the same search must find
# each there: that proves the search can fail.
set -eu -o pipefail

# shellcheck source=../setup_simulator/files/runme.sh
. ../setup_simulator/files/runme.sh

# The object storage pipe's connection string and its account key (tests/simulator/test_fixture_ids.py checks them).
CONNECTION_STRING='DefaultEndpointsProtocol=https;AccountName=simacct;AccountKey=c2ltLXNlY3JldC1kby1ub3QtbGVhaw==;EndpointSuffix=core.windows.net'
ACCOUNT_KEY='c2ltLXNlY3JldC1kby1ub3QtbGVhaw=='
export SECRETS_CONNECTION_STRING=$CONNECTION_STRING SECRETS_PASSWORD=It-Service-Pw-2024 SECRETS_BASIC
SECRETS_BASIC=$(printf '%s:%s' "$(config engine_api_key_id)" "$(config engine_api_key_secret)" | base64)
secrets=("$(config engine_api_key_secret)" "$SECRETS_BASIC" "$(config engine_api_token)" "$CONNECTION_STRING" "$ACCOUNT_KEY"
         "$SECRETS_PASSWORD")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run PLAYBOOK: runs it with -vvv, its output in $work/PLAYBOOK.log
run() {
    ansible-playbook -vvv -i "${INVENTORY_PATH:-localhost,}" -e "@$CONFIG" "$1" >"$work/$1.log" 2>&1 ||
        { sed 's/[A-Za-z0-9+\/=]\{16,\}/<LONG VALUE>/g' "$work/$1.log"; echo "secrets_vvv: $1 failed" >&2; exit 1; }
}

run control.yml
for secret in "${secrets[@]}"; do
    grep -q -F -- "$secret" "$work/control.yml.log" || fail "the control output does not show a secret"
done

admin reset '{"transition_delay": 0}'
# The next read of prod, and of a dashboard, fail with a body that quotes the request's credentials.
admin fault "{\"method\": \"GET\", \"path\": \"/services/[^/]+$\", \"kind\": \"status\", \"status\": 500,
              \"body\": {\"error\": \"no access for Authorization: Basic $SECRETS_BASIC ($(config engine_api_key_secret))\"}}"
admin fault "{\"method\": \"GET\", \"path\": \"/dashboards/\", \"kind\": \"status\", \"status\": 401,
              \"body\": {\"message\": \"token Bearer $(config engine_api_token) refused\"}}"
run modules.yml
for secret in "${secrets[@]}"; do
    grep -n -F -- "$secret" "$work/modules.yml.log" | cut -c1-100 | sed 's/[A-Za-z0-9+\/=]\{16,\}/<LONG VALUE>/g' &&
        fail "a secret appears in the -vvv output (the lines above, long values hidden)"
done
grep -q -F '"connectionString": "********"' "$work/modules.yml.log" ||
    fail "no masked connectionString in the output: the modules did not run as expected"
echo "secrets_vvv: ok: $(wc -l <"$work/modules.yml.log") lines of -vvv output, no secret"
