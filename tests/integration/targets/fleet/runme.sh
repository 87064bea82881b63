#!/usr/bin/env bash
# Reads shared across the forks of one play (module_utils/shared_reads.py), from the simulator's log:
# ten stopped services started by one play with forks 10 read the organization's services once
# before acting (one list read, not ten GETs); the waits end on the state the simulator shows after
# every command; tasks of another organization or with another key secret, in the same play at the
# same time, are never served from that list; a single task sends what it sends without sharing.
#
# How many list reads a fleet sends before acting depends on whether every task asks before the first
# one leaves: on a busy machine a fork may start seconds after the others. gate.py holds the fleet's
# requests in the pacer until all ten tasks are live on the list (then lets go), so the count is the
# protocol's, not the scheduler's.
set -eu -o pipefail

# ansible-test passes integration_config.yml to role targets only; script targets read it here.
CONFIG=../../integration_config.yml

# The playbooks' admin calls to the simulator go through setup_simulator's sim_admin lookup, on the controller
# (an ansible.builtin.uri task starts a module process for each); aliases says needs/target/setup_simulator, so
# that ansible-test copies that target beside this one.
export ANSIBLE_LOOKUP_PLUGINS
ANSIBLE_LOOKUP_PLUGINS=$(cd ../setup_simulator/lookup_plugins && pwd)

config() {
    sed -n -e "s/^$1: *\"\(.*\)\"$/\1/p" -e "t" -e "s/^$1: *\(.*\)$/\1/p" "$CONFIG"
}
work=$(mktemp -d)
gate=
trap '[ -z "$gate" ] || kill "$gate" 2>/dev/null || true; rm -rf "$work"' EXIT

{
    echo '[fleet]'
    for index in 0 1 2 3 4 5 6 7 8 9; do
        echo "fleet$index ansible_connection=local fleet_index=$index"
    done
} > "$work/inventory.ini"

ansible-playbook -i localhost, -e "@$CONFIG" -e "fleet_work=$work" fleet_setup.yml

python3 gate.py "$work/pacing" "$(config engine_api_url)" "$(config engine_api_key_id)" 10 "$work/gate-ready" &
gate=$!
while [ ! -e "$work/gate-ready" ]; do
    kill -0 "$gate" 2>/dev/null || { echo "fleet: gate.py ended before it held the pacer" >&2; exit 1; }
    sleep 0.1
done
ansible-playbook -i "$work/inventory.ini" -f 10 -e "@$CONFIG" -e "@$work/ids.json" -e "fleet_work=$work" \
    fleet_start.yml fleet_checks.yml
wait "$gate"
gate=
echo "fleet: ok"
