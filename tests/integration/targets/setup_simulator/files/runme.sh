# shellcheck shell=bash
# What the runme.sh targets share (their aliases say needs/target/setup_simulator, so that ansible-test copies this
# directory beside them): . ../setup_simulator/files/runme.sh
#   CONFIG          integration_config.yml (ansible-test passes it to role targets only; script targets read it)
#   config NAME     the value of NAME in it (quoted or not)
#   admin ARGS...   files/admin.py against the simulator (reset, calls, edit: see there)
#   calls EXPECTED  the requests since the last check, one "METHOD path" a line, are EXPECTED (else exit 1)
#   fail MESSAGE    says that the target failed, and why, and exits 1
# and the playbooks find setup_simulator's lookups (sim_admin, sim_requests) through ANSIBLE_LOOKUP_PLUGINS.

CONFIG=../../integration_config.yml
SETUP_SIMULATOR=$(cd ../setup_simulator && pwd)
export ANSIBLE_LOOKUP_PLUGINS="$SETUP_SIMULATOR/lookup_plugins"

config() {
    sed -n -e "s/^$1: *\"\(.*\)\"$/\1/p" -e "t" -e "s/^$1: *\(.*\)$/\1/p" "$CONFIG"
}

admin() {
    python3 "$SETUP_SIMULATOR/files/admin.py" "$(config engine_sim_admin_url)" "$@"
}

fail() {
    echo "$(basename "$PWD"): FAILED: $*" >&2
    exit 1
}

calls() {
    local seen
    seen=$(admin calls)
    if [ "$seen" != "$1" ]; then
        printf '%s: expected the requests\n%s\ngot\n%s\n' "$(basename "$PWD")" "$1" "$seen" >&2
        exit 1
    fi
}
