#!/usr/bin/env bash
# The demo tour (make demo): playbooks/demo.yml against a simulator started on a free port, with the
# collection installed in COLLECTIONS (default: .collections, where make install puts it); the simulator
# is stopped whatever happens. VENV: whose ansible-playbook and Python (default .venv).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=$(cd "${VENV:-$root/.venv}" && pwd)
collections=${COLLECTIONS:-$root/.collections}
export PATH="$venv/bin:$PATH" SIM_PYTHON="$venv/bin/python"
# shellcheck source=scripts/simulator.sh
. "$root/scripts/simulator.sh"
if [ ! -d "$collections/ansible_collections/engine/cloud" ]; then
    echo "demo: the collection is not installed in $collections; run 'make demo'" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/engine-cloud-demo.XXXXXX")
trap 'sim_stop; rm -rf "$work"' EXIT
sim_start "$root" "$work"
export ENGINE_CLOUD_API_URL=$SIM_URL ENGINE_CLOUD_KEY_ID=$SIM_KEY_ID ENGINE_CLOUD_KEY_SECRET=$SIM_KEY_SECRET \
    ENGINE_CLOUD_ORGANIZATION_ID=$SIM_ORGANIZATION_ID ENGINE_OBSERVABILITY_URL=$SIM_URL ENGINE_OBSERVABILITY_TOKEN=$SIM_OBS_TOKEN \
    ANSIBLE_COLLECTIONS_PATH=$collections ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false

cd "$root"
export_file=build/demo/dashboards-and-alerts.yml  # the demo exports every dashboard and alert here, and keeps it
rm -f "$export_file"
ansible-playbook playbooks/demo.yml "$@"
[ -s "$export_file" ] || { echo "demo: the export $export_file was not written" >&2; exit 1; }
echo "demo: every dashboard and alert, as definitions, is in $export_file"
