# shellcheck shell=bash
# Start and stop the API simulator for a script that sources this file.
#
#   . scripts/simulator.sh
#   sim_start DIR WORKDIR     # runs the simulator from DIR (a collection root) on a free port of
#                             # 127.0.0.1 through its launcher (python -m tests.simulator.process
#                             # serve); sets SIM_PID, SIM_PORT, SIM_URL and the fixture's
#                             # credentials SIM_ORGANIZATION_ID, SIM_KEY_ID, SIM_KEY_SECRET, SIM_OBS_TOKEN
#   sim_stop                  # idempotent; call it from an EXIT trap
#
# SIM_PYTHON is the interpreter (default: python3). The simulator's output goes to
# WORKDIR/simulator.log; the launcher prints it if the simulator fails to start.

SIM_PID=
# shellcheck disable=SC2034  # set for the scripts that source this file
SIM_PORT=
SIM_URL=

sim_start() {
    local dir=$1 work=$2 python=${SIM_PYTHON:-python3} line fd
    # The launcher prints NAME=value lines once the simulator answers, then closes its output and
    # runs until SIGTERM; it is this shell's child, so sim_stop can wait for it.
    coproc SIM_LAUNCHER { cd "$dir" && exec "$python" -m tests.simulator.process serve --workdir "$work"; }
    SIM_PID=$SIM_LAUNCHER_PID
    exec {fd}<&"${SIM_LAUNCHER[0]}"  # our own copy: bash closes the coproc's when the launcher ends
    while IFS= read -r line; do
        case $line in
            SIM_[A-Z_]*=*) eval "$line" ;;
            *) echo "simulator: unexpected launcher output: $line" >&2 ;;
        esac
    done <&"$fd"
    exec {fd}<&-
    if [ -z "$SIM_URL" ]; then
        echo "simulator: the launcher exited before the simulator answered" >&2
        sim_stop
        return 1
    fi
    echo "simulator: launcher pid $SIM_PID, answering at $SIM_URL"
}

sim_stop() {
    if [ -n "$SIM_PID" ]; then
        kill "$SIM_PID" 2>/dev/null || true
        wait "$SIM_PID" 2>/dev/null || true
        SIM_PID=
    fi
}
