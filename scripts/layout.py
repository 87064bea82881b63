"""Copy the collection tree into DEST (e.g. build/ansible_collections/engine/cloud).

ansible-test needs the collection at .../ansible_collections/<namespace>/<name>/, so every
test runs from such a throw-away copy, never from the repository itself.

What is copied: in a git checkout, the tracked files plus the untracked ones that are not
ignored (``git ls-files -co --exclude-standard``), so nothing that .gitignore excludes (.venv,
build, dist, tests/output, ...) leaks into the copy. Outside a git checkout, the whole tree
except a fixed list of generated directories. DEST is emptied first and gets an empty git
repository of its own (see the end of main()).
"""

import argparse
import os
import shutil
import subprocess
import sys

EXCLUDED_DIRS = {'.git', '.venv', 'build', 'dist', '.collections', '.cache', '__pycache__',
                 '.pytest_cache', '.hypothesis', '.tox', '.mypy_cache'}
EXCLUDED_PATHS = {os.path.join('tests', 'output'),
                  os.path.join('tests', 'integration', 'integration_config.yml')}


def git_files(src):
    """Return the relative paths git reports, or None when src is not a git checkout."""
    try:
        inside = subprocess.run(['git', '-C', src, 'rev-parse', '--show-toplevel'],
                                capture_output=True, text=True, check=False)
    except OSError:
        return None
    if inside.returncode != 0 or os.path.realpath(inside.stdout.strip()) != os.path.realpath(src):
        return None
    out = subprocess.run(['git', '-C', src, 'ls-files', '-z', '-co', '--exclude-standard'],
                         capture_output=True, check=True).stdout
    paths = [p.decode('utf-8') for p in out.split(b'\0') if p]
    # -c also lists tracked files deleted from the work tree: skip those.
    return sorted(p for p in set(paths) if os.path.lexists(os.path.join(src, p)))


def walked_files(src):
    """Every file under src except the generated directories."""
    result = []
    for dirpath, dirnames, filenames in os.walk(src):
        rel_dir = os.path.relpath(dirpath, src)
        dirnames[:] = sorted(d for d in dirnames if d not in EXCLUDED_DIRS
                             and os.path.normpath(os.path.join(rel_dir, d)) not in EXCLUDED_PATHS)
        for name in filenames:
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if rel not in EXCLUDED_PATHS and not name.endswith(('.pyc', '.tar.gz')):
                result.append(rel)
    return sorted(result)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('dest', help='destination directory, emptied first')
    parser.add_argument('--src', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help='collection root (default: this repository)')
    args = parser.parse_args()

    src = os.path.abspath(args.src)
    dest = os.path.abspath(args.dest)
    if dest == src or src.startswith(dest + os.sep):
        parser.error('destination %s must not contain the source tree' % dest)

    files = git_files(src)
    if files is None:
        files = walked_files(src)

    if os.path.lexists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)

    for rel in files:
        source = os.path.join(src, rel)
        target = os.path.join(dest, rel)
        if os.path.isdir(source) and not os.path.islink(source):
            continue  # a nested git repository shows up as a directory; never copied
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)

    # ansible-test looks for a .git directory from the collection root upwards and, when it finds
    # one, asks git which files exist. A copy under this repository's (ignored) build/ would then
    # have no files at all, so the copy gets a repository of its own: its files are all
    # untracked-not-ignored, which ansible-test counts, and the copied .gitignore still keeps
    # tests/output out.
    if shutil.which('git'):
        subprocess.run(['git', 'init', '--quiet', dest], check=True)

    print('layout: %d files copied to %s' % (len(files), dest))
    return 0


if __name__ == '__main__':
    sys.exit(main())
