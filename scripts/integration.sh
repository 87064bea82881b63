#!/usr/bin/env bash
# scripts/integration.sh [TARGET...]: ansible-test integration --local against a private simulator, every
# target when none is named, in a mktemp copy of the collection (runs side by side never share a port or file).
# ansible-test passes few environment variables on, so the simulator's address reaches the playbooks as the
# extra vars of tests/integration/integration_config.yml. VENV: whose ansible-test and Python (default .venv).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=$(cd "${VENV:-$root/.venv}" && pwd)
export PATH="$venv/bin:$PATH" SIM_PYTHON="$venv/bin/python"
# shellcheck source=scripts/simulator.sh
. "$root/scripts/simulator.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/engine-cloud-integration.XXXXXX")
trap 'sim_stop; rm -rf "$work"' EXIT
coll=$work/ansible_collections/engine/cloud
python "$root/scripts/layout.py" --src "$root" "$coll" >/dev/null
sim_start "$coll" "$work"
sed "s|@SIM_URL@|$SIM_URL|g" "$coll/tests/integration/integration_config.yml.template" >"$coll/tests/integration/integration_config.yml"

# ansible-test makes ~/.ansible/test/id_rsa on its first run: two at once (make ci) would hang at ssh-keygen's prompt.
mkdir -p ~/.ansible/test
(flock 9 && { [ -f ~/.ansible/test/id_rsa ] || ssh-keygen -m PEM -q -t rsa -N '' -f ~/.ansible/test/id_rsa; }) 9>~/.ansible/test/.id_rsa.lock

cd "$coll"
ansible-test integration --local --python "$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" --color no "$@" \
    || { rc=$?; echo "integration: ansible-test exited $rc; the simulator's log ends:" >&2; tail -n 40 "$work/simulator.log" >&2; exit $rc; }
