#!/usr/bin/env bash
# Reads shared across the forks of one play (module_utils/shared_reads.py), from the simulator's log:
# ten stopped services started by one play with forks 10 read the organization's services once
# before acting (one list read, not ten GETs); the waits end on the state the simulator shows after
# every command; tasks of another organization or with another key secret, in the same play at the
# same time, are never served from that list; a single task sends what it sends without sharing.
set -eu -o pipefail

# ansible-test passes integration_config.yml to role targets only; script targets read it here.
CONFIG=../../integration_config.yml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
    echo '[fleet]'
    for index in 0 1 2 3 4 5 6 7 8 9; do
        echo "fleet$index ansible_connection=local fleet_index=$index"
    done
} > "$work/inventory.ini"

ansible-playbook -i "$work/inventory.ini" -f 10 -e "@$CONFIG" -e "fleet_work=$work" fleet.yml
echo "fleet: ok"
