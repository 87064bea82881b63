#!/usr/bin/env bash
# The engine.cloud.chart_series lookup against the simulator. main.yml: the same rows as the module
# for the same options (and the same request, from the simulator's log), and every bad option an
# error that names it, with nothing sent. templated.yml: the arguments from variables templated
# with filters, facts, a loop and inventory variables (hosts.yml adds the host that holds them).
# env.yml runs with ENGINE_OBSERVABILITY_URL and ENGINE_OBSERVABILITY_TOKEN set, the way a lookup
# gets its connection without keyword arguments (a lookup runs in the ansible-playbook process:
# only that process's environment counts), and a bad ENGINE_OBSERVABILITY_RATE_LIMIT.
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

ansible-playbook -i "${INVENTORY_PATH:-localhost,}" -e "@$CONFIG" main.yml "$@"

ansible-playbook -i "${INVENTORY_PATH:-localhost,}" -i hosts.yml -e "@$CONFIG" templated.yml "$@"

ENGINE_OBSERVABILITY_URL=$(config engine_observability_url) ENGINE_OBSERVABILITY_TOKEN=$(config engine_api_token) \
    ENGINE_OBSERVABILITY_RATE_LIMIT=0/60 ansible-playbook -i "${INVENTORY_PATH:-localhost,}" -e "@$CONFIG" env.yml "$@"
