# shellcheck shell=bash
# Start and stop the module zygote (scripts/module_zygote.py, a test-suite accelerator) for a script that
# sources this file: scripts/integration.sh (the integration stages) and scripts/demo.sh (the matrix's demos).
#
#   zygote_start VENV DIR ENVIRONMENT  # VENV's installed copy serves DIR/module-zygote.sock; sets ZYGOTE_SOCKET
#                                      # (empty when not started: ENGINE_TEST_MODULE_ZYGOTE=off, 0, false or no, or no hook in VENV)
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
    local venv=$1 socket=$2/module-zygote.sock environment=$3 switch=${ENGINE_TEST_MODULE_ZYGOTE:-on} zygote name unset_python=()
    zygote=$(compgen -G "$venv/lib/python*/site-packages/engine_cloud_module_zygote.py" || true)
    # The hook's reading of the switch (module_zygote.py's OFF), so that no stage starts a zygote its modules never use.
    case ${switch,,} in off | 0 | false | no) return 0 ;; esac
    [ -n "$zygote" ] || return 0
    if [ "$environment" = ansible-test ]; then
        for name in $(compgen -e); do
            case $name in PYTHON*) unset_python+=(-u "$name") ;; esac
        done
    fi
    env "${unset_python[@]}" "$venv/bin/python" "$zygote" serve "$socket" &
    ZYGOTE_PID=$!
    for _ in $(seq 40); do
        if [ -S "$socket" ]; then
            ZYGOTE_SOCKET=$socket
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
