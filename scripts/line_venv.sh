#!/usr/bin/env bash
# scripts/line_venv.sh VENV REQUIREMENTS PYTHON: the virtualenv of one ansible-core line of make
# test's version matrix. Creates VENV with the interpreter PYTHON and installs the pinned
# REQUIREMENTS into it, unless its stamp is newer than REQUIREMENTS; under a lock, so that two
# stages of one line that start together install it once.
set -euo pipefail
venv=$1 requirements=$2 python=$3
mkdir -p "$venv"
exec 9>"$venv/.lock"
flock 9
stamp="$venv/.requirements.stamp"
if [ -f "$stamp" ] && [ "$stamp" -nt "$requirements" ]; then
    exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "venv: creating $venv with $python ($("$python" --version 2>&1))"
    "$python" -m venv "$venv"
fi
echo "venv: installing $requirements into $venv"
# -qq and --no-compile as for .venv (see the Makefile)
"$venv/bin/python" -m pip install -qq --no-compile --disable-pip-version-check -r "$requirements"
touch "$stamp"
