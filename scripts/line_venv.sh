#!/usr/bin/env bash
# scripts/line_venv.sh VENV REQUIREMENTS PYTHON CONSTRAINTS: the virtualenv of one ansible-core line
# of make test's version matrix. Creates VENV with the interpreter PYTHON and installs the pinned
# REQUIREMENTS into it, every package at its version in CONSTRAINTS, unless its stamp is newer than
# both; under a lock, so that two stages of one line that start together install it once. Its
# module processes share their compiled imports (scripts/zipimport_cache.py), and in the integration
# stages and the demos fork from a zygote (scripts/module_zygote.py).
set -euo pipefail
venv=$1 requirements=$2 python=$3 constraints=$4
mkdir -p "$venv"
exec 9>"$venv/.line_venv.lock"  # not .lock: uv locks that one while it installs
flock 9
stamp="$venv/.requirements.stamp"
scripts=$(dirname "${BASH_SOURCE[0]}")
if [ -f "$stamp" ] && [ "$stamp" -nt "$requirements" ] && [ "$stamp" -nt "$constraints" ] && [ "$stamp" -nt "$scripts/zipimport_cache.py" ] \
    && [ "$stamp" -nt "$scripts/module_zygote.py" ] && [ "$stamp" -nt "$scripts/site_hook.py" ]; then
    exit 0
fi
VENV_PYTHON=$python "$scripts/pip_install.sh" "$venv" "$requirements" "$constraints"
"$venv/bin/python" "$scripts/zipimport_cache.py" install
"$venv/bin/python" "$scripts/module_zygote.py" install
touch "$stamp"
