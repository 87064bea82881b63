#!/usr/bin/env bash
# scripts/pip_install.sh VENV REQUIREMENTS [CONSTRAINTS]: install the pinned REQUIREMENTS into the
# virtualenv VENV (made first, with python3 or $VENV_PYTHON, when VENV/bin/python is missing), every
# package at the version CONSTRAINTS names when it names one.
#
# uv (requirements-uv.txt, installed into .venv by `make venv`; $INSTALLER_UV names it, else this
# repository's .venv/bin/uv) makes the venv and installs into it when it is there: 1.1 CPU-seconds for requirements-dev.txt into a new venv against 12.9 with pip
# (measured with empty caches), the same pinned packages, no bytecode compiled (as pip's --no-compile:
# Python compiles what it imports). pip does it when uv is missing or fails, e.g. on a machine whose
# package index only pip's own configuration names (uv does not read pip.conf).
set -euo pipefail
venv=$1 requirements=$2 python=${VENV_PYTHON:-python3}
constraints=()
[ -z "${3:-}" ] || constraints=(-c "$3")
uv=${INSTALLER_UV:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv/bin/uv}
[ -x "$uv" ] || uv=

if [ ! -x "$venv/bin/python" ]; then
    echo "venv: creating $venv with $python ($("$python" --version 2>&1))"
    # --seed: pip in the venv, as python -m venv gives it; --allow-existing: line_venv.sh keeps its lock file there
    if [ -z "$uv" ] || ! "$uv" venv --quiet --seed --allow-existing --python "$python" "$venv"; then
        rm -rf "${venv:?}/bin" "${venv:?}/lib" "${venv:?}/pyvenv.cfg"
        "$python" -m venv "$venv"
    fi
fi
echo "venv: installing $requirements${3:+ (held to $3)} into $venv${uv:+ (uv)}"
if [ -n "$uv" ] && "$uv" pip install --quiet --python "$venv/bin/python" -r "$requirements" "${constraints[@]}"; then
    exit 0
fi
[ -z "$uv" ] || echo "venv: uv could not install $requirements; installing it with pip" >&2
# -qq prints errors only (this keeps machine-specific index warnings out)
exec "$venv/bin/python" -m pip install -qq --no-compile --disable-pip-version-check -r "$requirements" "${constraints[@]}"
