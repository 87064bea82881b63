#!/usr/bin/env bash
# scripts/find_python.sh VERSION (3.10, 3.13): the path of a Python VERSION for make ci's oldest and newest lines:
# python<VERSION> on PATH, else the newest VERSION.x that pyenv installed; exit 1 saying what to install.
set -euo pipefail
version=${1:?usage: find_python.sh VERSION}
for python in "$(command -v "python$version" || true)" \
    $(find "${PYENV_ROOT:-$HOME/.pyenv}/versions" -mindepth 1 -maxdepth 1 -name "$version.*" 2>/dev/null | sort -V -r | sed 's|$|/bin/python|'); do
    if [ -x "$python" ] && [ "$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$version" ]; then
        echo "$python"
        exit 0
    fi
done
echo "find_python.sh: no Python $version (python$version on PATH or pyenv's $version.x): install one, e.g. 'pyenv install $version'" >&2
exit 1
