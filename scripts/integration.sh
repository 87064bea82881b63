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

zygote_pid=
work=$(mktemp -d "${TMPDIR:-/tmp}/engine-cloud-integration.XXXXXX")
coll="$work/ansible_collections/engine/cloud"

# shellcheck disable=SC2329  # invoked by the EXIT trap below
cleanup() {
    if [ -n "$zygote_pid" ]; then
        kill "$zygote_pid" 2>/dev/null || true
        wait "$zygote_pid" || true  # reaped here: its module processes' CPU counts in this stage's
    fi
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

# The module zygote (scripts/module_zygote.py, a test-suite accelerator): the module processes of this
# run, whose ANSIBLE_CONFIG and cwd are under $work/ansible_collections/, find its socket in $work
# and fork from it instead of importing the standard library and requests each. Started without the
# PYTHON* variables, which ansible-test does not pass to the module processes; the zygote serves only
# processes whose interpreter state is its own. ENGINE_TEST_MODULE_ZYGOTE=off: not started.
# It runs the venv's installed copy: the hook that talks to it is that one.
zygote=$(compgen -G "$venv/lib/python*/site-packages/engine_cloud_module_zygote.py" || true)
if [ "${ENGINE_TEST_MODULE_ZYGOTE:-on}" != off ] && [ -n "$zygote" ]; then
    unset_python=()
    for name in $(compgen -e); do
        case $name in PYTHON*) unset_python+=(-u "$name") ;; esac
    done
    env "${unset_python[@]}" "$venv/bin/python" "$zygote" serve "$work/module-zygote.sock" &
    zygote_pid=$!
    for _ in $(seq 40); do
        [ -S "$work/module-zygote.sock" ] && break
        sleep 0.05
    done
fi

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
