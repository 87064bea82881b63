#!/usr/bin/env bash
# Run the integration targets against a private simulator:
#   scripts/integration.sh [TARGET...]     (no target: every target that is not hidden)
#
# Every run works in its own mktemp directory (its own collection copy, simulator, port and
# tests/output), so several runs on one machine never collide. ansible-test drops most
# environment variables, so the simulator's address and credentials reach the playbooks
# through tests/integration/integration_config.yml, which ansible-test passes as extra vars.
# Exit status: ansible-test's. KEEP_WORKDIR=1 keeps the directory for inspection.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${VENV:-.venv}
case $venv in /*) ;; *) venv="$root/$venv" ;; esac
if [ ! -x "$venv/bin/ansible-test" ]; then
    echo "integration: $venv/bin/ansible-test not found; run 'make venv' first" >&2
    exit 2
fi
export PATH="$venv/bin:$PATH"
SIM_PYTHON="$venv/bin/python"

# shellcheck source=scripts/simulator.sh
. "$root/scripts/simulator.sh"
# shellcheck source=scripts/zygote.sh
. "$root/scripts/zygote.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/engine-cloud-integration.XXXXXX")
coll="$work/ansible_collections/engine/cloud"

# shellcheck disable=SC2329  # invoked by the EXIT trap below
cleanup() {
    zygote_stop
    sim_stop
    if [ "${KEEP_WORKDIR:-0}" = 1 ]; then
        echo "integration: work directory kept: $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$venv/bin/python" "$root/scripts/layout.py" --src "$root" "$coll"
sim_start "$coll" "$work"

# The module zygote: the module processes of this run, whose ANSIBLE_CONFIG and cwd are under
# $work/ansible_collections/, find its socket in $work and fork from it instead of importing the standard
# library and requests each (ENGINE_TEST_MODULE_ZYGOTE=off: not started).
zygote_start "$venv" "$work" ansible-test

sed "s|@SIM_URL@|$SIM_URL|g" "$coll/tests/integration/integration_config.yml.template" \
    >"$coll/tests/integration/integration_config.yml"

# ansible-test makes a per-user SSH key (~/.ansible/test/id_rsa) the first time it runs. Two runs
# that start together (the two integration lanes of make test) would both make it, and the second
# ssh-keygen stops at its "Overwrite?" prompt; so the first run makes it here, under a lock, the way
# ansible-test does (core_ci.py, SshKey), and every later run finds it.
keydir="$HOME/.ansible/test"
mkdir -p "$keydir"
(
    flock 9
    if [ ! -f "$keydir/id_rsa" ] || [ ! -f "$keydir/id_rsa.pub" ]; then
        rm -f "$keydir/id_rsa" "$keydir/id_rsa.pub"
        ssh-keygen -m PEM -q -t rsa -N '' -f "$keydir/id_rsa"
        sed -i 's/\(BEGIN\|END\) PRIVATE KEY/\1 RSA PRIVATE KEY/' "$keydir/id_rsa"
    fi
) 9>"$keydir/.id_rsa.lock"

# --local runs the targets with the venv's own Python (3.11 for the pinned line, 3.13 for 2.21).
python_version=$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
rc=0
(cd "$coll" && ansible-test integration --local --python "$python_version" --color no "$@") || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "integration: ansible-test exited $rc; simulator log (last 40 lines):" >&2
    tail -n 40 "$work/simulator.log" >&2 || true
fi
exit "$rc"
