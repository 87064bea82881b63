#!/usr/bin/env bash
# The engine.cloud.chart_series lookup as plays call it (lookup.yml): its arguments from variables templated with
# filters, facts, a loop, another host's and the host's own inventory variables (hosts.yml), its connection from
# the ENGINE_OBSERVABILITY_* environment variables (a lookup runs in the ansible-playbook process: only that
# process's environment counts). Every query must return the module's rows from the module's request.
set -eu -o pipefail

# shellcheck source=../setup_simulator/files/runme.sh
. ../setup_simulator/files/runme.sh

ENGINE_OBSERVABILITY_URL=$(config engine_observability_url) ENGINE_OBSERVABILITY_TOKEN=$(config engine_api_token) \
    ENGINE_OBSERVABILITY_RATE_LIMIT=$(config engine_api_rate_limit) \
    ansible-playbook -i "${INVENTORY_PATH:-localhost,}" -i hosts.yml -e "@$CONFIG" lookup.yml "$@"
