#!/usr/bin/env bash
# Runs every pipe module with -vvv (reads, lists, check mode, diff, writes, waits, a wait timeout and a
# 404; engine.cloud.pipe creating, changing and deleting pipes whose credentials are that string) and searches all of ansible-playbook's output for the object storage pipe's connection
# string, and for its account key alone: neither may appear. Before that, a control playbook
# prints the pipe as the API returns it (ansible.builtin.uri, -vvv) and the same search must
# find the string there: that proves the search can fail.
set -eu -o pipefail

# The fixture's connection string (CONTRIBUTING.md): a test value of the simulator, not a secret.
CONNECTION_STRING='DefaultEndpointsProtocol=https;AccountName=simacct;AccountKey=c2ltLXNlY3JldC1kby1ub3QtbGVhaw==;EndpointSuffix=core.windows.net'
ACCOUNT_KEY='c2ltLXNlY3JldC1kby1ub3QtbGVhaw=='

# ansible-test passes integration_config.yml to role targets only; script targets read it here.
CONFIG=../../integration_config.yml

# The playbooks' admin calls to the simulator go through setup_simulator's sim_admin lookup, on the controller
# (an ansible.builtin.uri task starts a module process for each); aliases says needs/target/setup_simulator, so
# that ansible-test copies that target beside this one.
export ANSIBLE_LOOKUP_PLUGINS
ANSIBLE_LOOKUP_PLUGINS=$(cd ../setup_simulator/lookup_plugins && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# leaks FILE: lists the lines of FILE that hold the connection string or its account key; exits 0
# when there is at least one.
leaks() {
    grep -n -F -e "$CONNECTION_STRING" -e "$ACCOUNT_KEY" "$1"
}

run() {
    local playbook=$1 log=$2
    ansible-playbook -vvv -i "${INVENTORY_PATH:-localhost,}" -e "@$CONFIG" "$playbook" >"$log" 2>&1 || {
        cat "$log" | sed -e "s/$ACCOUNT_KEY/<ACCOUNT KEY>/g"
        echo "pipe_secrets: $playbook failed" >&2
        return 1
    }
}

run control.yml "$work/control.log"
if ! leaks "$work/control.log" >/dev/null; then
    echo "pipe_secrets: the control output does not show the connection string: the search cannot be trusted" >&2
    exit 1
fi
echo "pipe_secrets: control: the search finds the string in $(leaks "$work/control.log" | wc -l) line(s) of uri output"

run modules.yml "$work/modules.log"
lines=$(wc -l <"$work/modules.log")
if leaks "$work/modules.log" | sed -e "s/$ACCOUNT_KEY/<ACCOUNT KEY>/g" | cut -c1-160; then
    echo "pipe_secrets: FAILED: the connection string appears in the -vvv output of the pipe modules (lines above)" >&2
    exit 1
fi
grep -q -F '"connectionString": "********"' "$work/modules.log" || {
    echo "pipe_secrets: the masked connectionString is missing from the output: the modules did not run as expected" >&2
    exit 1
}
echo "pipe_secrets: ok: $lines lines of -vvv output of every pipe module, no connection string"
