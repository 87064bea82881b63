# shellcheck shell=bash
# Start and stop the API simulator for a script that sources this file.
#
#   . scripts/simulator.sh
#   sim_start DIR WORKDIR     # runs `python -m tests.simulator` from DIR (a collection root) on a
#                             # free port of 127.0.0.1; sets SIM_PID, SIM_PORT and SIM_URL
#   sim_stop                  # idempotent; call it from an EXIT trap
#
# SIM_PYTHON is the interpreter (default: python3). The simulator's output goes to
# WORKDIR/simulator.log, which is printed if it fails to start.

# The credentials the simulator's fixture accepts (CONTRIBUTING.md). Test values, not secrets.
# shellcheck disable=SC2034  # used by the scripts that source this file
SIM_ORGANIZATION_ID=7e0b7e1c-1d2a-4c6b-9f3e-0a1b2c3d4e5f
# shellcheck disable=SC2034
SIM_KEY_ID=sim-key-id
# shellcheck disable=SC2034
SIM_KEY_SECRET=sim-key-secret-4f9a8e7d
# shellcheck disable=SC2034
SIM_OBS_TOKEN=sim-obs-token-2b7c1d9e

SIM_PID=
SIM_PORT=
SIM_URL=

sim_start() {
    local dir=$1 work=$2 python=${SIM_PYTHON:-python3} waited=0
    local port_file="$work/simulator.port" log="$work/simulator.log"
    rm -f "$port_file"
    (cd "$dir" && exec "$python" -m tests.simulator --host 127.0.0.1 --port 0 --port-file "$port_file") \
        >"$log" 2>&1 </dev/null &
    SIM_PID=$!
    # Wait (at most 30 s) until the port file exists and the admin interface answers.
    while :; do
        if ! kill -0 "$SIM_PID" 2>/dev/null; then
            echo "simulator: exited before it answered; its log:" >&2
            cat "$log" >&2
            SIM_PID=
            return 1
        fi
        if [ -s "$port_file" ]; then
            SIM_PORT=$(tr -d '[:space:]' <"$port_file")
            SIM_URL="http://127.0.0.1:$SIM_PORT"
            if "$python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2).read()' \
                "$SIM_URL/_admin/config" >/dev/null 2>&1; then
                echo "simulator: pid $SIM_PID answering at $SIM_URL"
                return 0
            fi
        fi
        if [ "$waited" -ge 300 ]; then
            echo "simulator: no answer after 30 s; its log:" >&2
            cat "$log" >&2
            sim_stop
            return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
}

sim_stop() {
    if [ -n "$SIM_PID" ]; then
        kill "$SIM_PID" 2>/dev/null || true
        wait "$SIM_PID" 2>/dev/null || true
        SIM_PID=
    fi
}
