#!/usr/bin/env bash
# The demo tour (make demo): start the simulator on a free port of 127.0.0.1, run
# playbooks/demo.yml against it with the collection installed in .collections/ (make install
# put it there; COLLECTIONS=DIR for another place), stop the simulator whatever happens.
# Exit status: ansible-playbook's, or 1 when the demo did not write its export (build/demo/).
# DEMO_ZYGOTE=1 (the version matrix's demos in make test): the module processes fork from a module zygote
# (scripts/zygote.sh), a test-suite accelerator; make demo runs them as a user's job does.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${VENV:-.venv}
case $venv in /*) ;; *) venv="$root/$venv" ;; esac
export PATH="$venv/bin:$PATH"
SIM_PYTHON="$venv/bin/python"

# shellcheck source=scripts/simulator.sh
. "$root/scripts/simulator.sh"
# shellcheck source=scripts/zygote.sh
. "$root/scripts/zygote.sh"

# COLLECTIONS: where the collection is installed (the version matrix installs it in its own directory)
collections=${COLLECTIONS:-$root/.collections}
if [ ! -d "$collections/ansible_collections/engine/cloud" ]; then
    echo "demo: the collection is not installed in $collections; run 'make demo'" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/engine-cloud-demo.XXXXXX")
# shellcheck disable=SC2329  # invoked by the EXIT trap below
cleanup() {
    zygote_stop
    sim_stop
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sim_start "$root" "$work"
if [ "${DEMO_ZYGOTE:-0}" = 1 ]; then
    zygote_start "$venv" "$work" inherit
    if [ -n "$ZYGOTE_SOCKET" ]; then
        export ENGINE_TEST_MODULE_ZYGOTE="$ZYGOTE_SOCKET"
    fi
fi

export ENGINE_CLOUD_API_URL="$SIM_URL"
export ENGINE_CLOUD_KEY_ID="$SIM_KEY_ID"
export ENGINE_CLOUD_KEY_SECRET="$SIM_KEY_SECRET"
export ENGINE_CLOUD_ORGANIZATION_ID="$SIM_ORGANIZATION_ID"
export ENGINE_OBSERVABILITY_URL="$SIM_URL"
export ENGINE_OBSERVABILITY_TOKEN="$SIM_OBS_TOKEN"
export ANSIBLE_COLLECTIONS_PATH="$collections"
export ANSIBLE_LOCALHOST_WARNING=false
export ANSIBLE_INVENTORY_UNPARSED_WARNING=false

cd "$root"
# The demo writes every dashboard and alert to this file under the clone and keeps it (demo/dashboards.yml).
export_file=build/demo/dashboards-and-alerts.yml
rm -f "$export_file"
ansible-playbook playbooks/demo.yml "$@"
if [ ! -s "$export_file" ]; then
    echo "demo: the export $export_file was not written" >&2
    exit 1
fi
echo "demo: every dashboard and alert, as definitions, is in $export_file"
