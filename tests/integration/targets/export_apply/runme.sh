#!/usr/bin/env bash
# Export to adopt: the first play (export.yml) writes every dashboard and alert of the simulator to a
# YAML file as their definitions; the second (apply.yml) applies that file. On servers of the two later
# eras (tiles read in series form, and in config form with the defaults added; alerts read in the current
# form, with and without `channels`), the second play reports changed=0, prints no warning but the one
# of the fixture's alert on a table tile, and the simulator's log holds reads only. The oldest era (the
# simulator's default) is the one tests/e2e/test_guide_dashboards_as_code.py runs the guide's
# export.yml and apply.yml against.
set -eu -o pipefail

# ansible-test passes integration_config.yml to role targets only; script targets read it here.
CONFIG=../../integration_config.yml

# config NAME: the value of NAME in integration_config.yml (quoted or not).
config() {
    sed -n -e "s/^$1: *\"\(.*\)\"$/\1/p" -e "t" -e "s/^$1: *\(.*\)$/\1/p" "$CONFIG"
}

export ENGINE_OBSERVABILITY_URL ENGINE_OBSERVABILITY_TOKEN ENGINE_OBSERVABILITY_RATE_LIMIT
ENGINE_OBSERVABILITY_URL=$(config engine_observability_url)
ENGINE_OBSERVABILITY_TOKEN=$(config engine_api_token)
ENGINE_OBSERVABILITY_RATE_LIMIT=$(config engine_api_rate_limit)
export ANSIBLE_ROLES_PATH=..
# check.yml reads the simulator's state and request log through setup_simulator's sim_admin lookup, also
# in a run that does not include the role (an ansible.builtin.url lookup imports ansible.module_utils.urls
# in every task's fork).
export ANSIBLE_LOOKUP_PLUGINS
ANSIBLE_LOOKUP_PLUGINS=$(cd ../setup_simulator/lookup_plugins && pwd)
# Modules run with the controller's Python, as on the implicit localhost.
export ANSIBLE_PYTHON_INTERPRETER
ANSIBLE_PYTHON_INTERPRETER=$(python -c 'import sys; print(sys.executable)')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# check EXTRA_VARS_JSON: check.yml with these extra vars (see there)
check() {
    ansible-playbook -i localhost, -e "@$CONFIG" -e "$1" check.yml
}

for era in \
    '{"dashboard_read_form": "series", "alert_read_form": "current", "alert_channels": true}' \
    '{"dashboard_read_form": "config", "alert_read_form": "current", "alert_channels": false}'; do
    file="$work/definitions.yml"
    check "{\"export_apply_reset\": $era}"
    ansible-playbook -i localhost, -e "export_apply_file=$file" export.yml
    check "{\"export_apply_file\": \"$file\", \"export_apply_reads\": true}"
    ansible-playbook -i localhost, -e "export_apply_file=$file" apply.yml 2>&1 | tee "$work/apply.log"
    grep -Eq '^localhost +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0' "$work/apply.log"
    if grep WARNING "$work/apply.log" | grep -v 'cannot carry alerts'; then
        echo "export_apply: a warning besides the table tile's" >&2
        exit 1
    fi
    check '{"export_apply_reads": true}'
    echo "export_apply: $era: applied again, changed=0, reads only"
done
