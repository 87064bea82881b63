# shellcheck shell=bash
# Start and stop the module zygote (scripts/module_zygote.py, a test-suite accelerator) for a script that
# sources this file: scripts/integration.sh (the integration stages) and scripts/demo.sh (the matrix's demos).
#
#   zygote_start VENV DIR ENVIRONMENT  # VENV's installed copy serves DIR/module-zygote.sock; sets ZYGOTE_SOCKET
#                                      # (empty when not started: ENGINE_TEST_MODULE_ZYGOTE=off or no hook in VENV)
#   zygote_stop                        # stops and reaps it; idempotent; call it from an EXIT trap
#
# A zygote serves only the module processes whose PYTHON* settings are its own, so it starts with the
# environment theirs will have: ENVIRONMENT `inherit` (this shell's: the demo's ansible-playbook passes it
# on) or `ansible-test` (without the PYTHON* variables, which ansible-test does not pass on).
# It is reaped here, so that its children's CPU time counts in the stage's.

ZYGOTE_PID=
# shellcheck disable=SC2034  # set for the scripts that source this file
ZYGOTE_SOCKET=

zygote_start() {
    local venv=$1 dir=$2 environment=$3 zygote name unset_python=()
    zygote=$(compgen -G "$venv/lib/python*/site-packages/engine_cloud_module_zygote.py" || true)
    if [ "${ENGINE_TEST_MODULE_ZYGOTE:-on}" = off ] || [ -z "$zygote" ]; then
        return 0
    fi
    if [ "$environment" = ansible-test ]; then
        for name in $(compgen -e); do
            case $name in PYTHON*) unset_python+=(-u "$name") ;; esac
        done
    fi
    env "${unset_python[@]}" "$venv/bin/python" "$zygote" serve "$dir/module-zygote.sock" &
    ZYGOTE_PID=$!
    for _ in $(seq 40); do
        if [ -S "$dir/module-zygote.sock" ]; then
            ZYGOTE_SOCKET=$dir/module-zygote.sock
            return 0
        fi
        sleep 0.05
    done
}

# shellcheck disable=SC2034  # ZYGOTE_SOCKET: read by the scripts that source this file
zygote_stop() {
    if [ -n "$ZYGOTE_PID" ]; then
        kill "$ZYGOTE_PID" 2>/dev/null || true
        wait "$ZYGOTE_PID" || true
        ZYGOTE_PID=
        ZYGOTE_SOCKET=
    fi
}
