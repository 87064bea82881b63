#!/usr/bin/env bash
# The engine.cloud.chart_series lookup against the simulator. main.yml: the same rows as the module
# for the same options (and the same request, from the simulator's log), and every bad option an
# error that names it, with nothing sent. env.yml runs with ENGINE_OBSERVABILITY_URL and
# ENGINE_OBSERVABILITY_TOKEN set, the way a lookup gets its connection without keyword arguments
# (a lookup runs in the ansible-playbook process: only that process's environment counts).
set -eu -o pipefail

# ansible-test passes integration_config.yml to role targets only; script targets read it here.
CONFIG=../../integration_config.yml

# config NAME: the value of NAME in integration_config.yml (quoted or not).
config() {
    sed -n -e "s/^$1: *\"\(.*\)\"$/\1/p" -e "t" -e "s/^$1: *\(.*\)$/\1/p" "$CONFIG"
}

ansible-playbook -i "${INVENTORY_PATH:-localhost,}" -e "@$CONFIG" main.yml "$@"

ENGINE_OBSERVABILITY_URL=$(config engine_observability_url) ENGINE_OBSERVABILITY_TOKEN=$(config engine_api_token) \
    ansible-playbook -i "${INVENTORY_PATH:-localhost,}" -e "@$CONFIG" env.yml "$@"
