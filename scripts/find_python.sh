#!/usr/bin/env bash
# Print the path of a Python VERSION interpreter (e.g. 3.13) for a line of make test's version
# matrix: python<VERSION> on PATH, else the newest <VERSION>.x that pyenv installed (its root from
# PYENV_ROOT, `pyenv root`, where the pyenv command lives, or ~/.pyenv). Exit 1 with a message
# saying what to install when there is none.
set -euo pipefail
version=${1:?usage: find_python.sh VERSION}

works() {
    "$1" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$version'.split('.'))))" >/dev/null 2>&1
}

candidates=()
if command -v "python$version" >/dev/null 2>&1; then
    candidates+=("$(command -v "python$version")")
fi
roots=("${PYENV_ROOT:-}")
if command -v pyenv >/dev/null 2>&1; then
    roots+=("$(pyenv root 2>/dev/null || true)")
    # bin/pyenv is a link to libexec/pyenv under the root
    roots+=("$(dirname "$(dirname "$(readlink -f "$(command -v pyenv)")")")")
fi
roots+=("$HOME/.pyenv")
for root in "${roots[@]}"; do
    [ -n "$root" ] && [ -d "$root/versions" ] || continue
    while IFS= read -r dir; do
        candidates+=("$dir/bin/python$version")
    done < <(find "$root/versions" -mindepth 1 -maxdepth 1 -name "$version.*" | sort -V -r)
done
for python in "${candidates[@]}"; do
    if [ -x "$python" ] && works "$python"; then
        echo "$python"
        exit 0
    fi
done
echo "find_python.sh: no Python $version found (neither python$version on PATH nor a pyenv version $version.x):" \
    "install one, e.g. 'pyenv install $version', or put python$version on PATH" >&2
exit 1
