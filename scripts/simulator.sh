# shellcheck shell=bash
# Start and stop the API simulator, for the scripts that source this file:
#   sim_start DIR WORKDIR   # the simulator of DIR (a collection root) on a free port of 127.0.0.1, its log in
#                           # WORKDIR/simulator.log, run by SIM_PYTHON (default python3); sets SIM_URL and the
#                           # fixture's credentials (SIM_KEY_ID, ...)
#   sim_stop                # idempotent: call it from an EXIT trap

SIM_PID=

sim_start() {
    local line fd
    # The launcher prints NAME=value lines once the simulator answers, closes its output and runs until SIGTERM.
    coproc SIM_LAUNCHER { cd "$1" && exec "${SIM_PYTHON:-python3}" -m tests.simulator.process serve --workdir "$2"; }
    SIM_PID=$SIM_LAUNCHER_PID
    exec {fd}<&"${SIM_LAUNCHER[0]}"  # a copy of our own: bash closes the coproc's when the launcher ends
    while IFS= read -r line; do
        case $line in
            SIM_[A-Z_]*=*) eval "$line" ;;
            *) echo "simulator: unexpected launcher output: $line" >&2 ;;
        esac
    done <&"$fd"
    exec {fd}<&-
    if [ -z "${SIM_URL:-}" ]; then
        echo "simulator: the launcher exited before the simulator answered" >&2
        sim_stop
        return 1
    fi
    echo "simulator: answering at $SIM_URL"
}

sim_stop() {
    if [ -n "$SIM_PID" ]; then
        kill "$SIM_PID" 2>/dev/null || true
        wait "$SIM_PID" 2>/dev/null || true
        SIM_PID=
    fi
}
