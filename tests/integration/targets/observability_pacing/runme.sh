#!/usr/bin/env bash
# Ten hosts at forks 10 run alert and dashboard tasks against the simulator with the observability
# API's live rate limit on (100 requests per 60 s per token, shared by every route), with the
# default pacing and api_retries 0, so that any 429 would fail its task. forks.yml sends more than
# 100 requests and checks, from the simulator's log, that no request was answered 429 and that the
# requests past the 100th waited for the next window.
set -eu -o pipefail

# ansible-test passes integration_config.yml to role targets only; script targets read it here.
CONFIG=../../integration_config.yml

# The playbooks' admin calls to the simulator go through setup_simulator's sim_admin lookup, on the controller
# (an ansible.builtin.uri task starts a module process for each); aliases says needs/target/setup_simulator, so
# that ansible-test copies that target beside this one.
export ANSIBLE_LOOKUP_PLUGINS
ANSIBLE_LOOKUP_PLUGINS=$(cd ../setup_simulator/lookup_plugins && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The ten hosts, all run on the controller.
{
    echo '[observers]'
    for index in 0 1 2 3 4 5 6 7 8 9; do
        echo "observer$index ansible_connection=local ansible_python_interpreter=$(command -v python)"
    done
} >"$work/hosts.ini"

# A private pacing directory: the state the forks share, and nothing left behind.
ENGINE_CLOUD_PACING_DIR="$work/pacing" ANSIBLE_FORKS=10 \
    ansible-playbook -i "$work/hosts.ini" -e "@$CONFIG" forks.yml
echo "observability_pacing: ok"
