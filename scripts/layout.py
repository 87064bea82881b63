"""Copy the collection to DEST, a path ending in ansible_collections/engine/cloud (what ansible-test needs).

    python scripts/layout.py [--src ROOT] DEST

Copies what git lists (tracked files, and untracked ones that .gitignore does not exclude), so no venv,
build or test output comes along. DEST is emptied first and gets an empty git repository of its own:
ansible-test asks git which files exist, and would find none in a copy under this repository's ignored build/.
"""

import argparse
import os
import shutil
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('dest')
    parser.add_argument('--src', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    src, dest = os.path.abspath(args.src), os.path.abspath(args.dest)
    if src == dest or src.startswith(dest + os.sep):
        parser.error('%s must not contain the source tree' % dest)
    listed = subprocess.run(['git', '-C', src, 'ls-files', '-z', '-co', '--exclude-standard'],
                            check=True, capture_output=True).stdout.decode().split('\0')
    # ls-files -c lists a tracked file deleted from the work tree too, and a nested repository as a directory.
    files = sorted(set(rel for rel in listed if rel and os.path.isfile(os.path.join(src, rel))))
    shutil.rmtree(dest, ignore_errors=True)
    for rel in files:
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(os.path.join(src, rel), os.path.join(dest, rel), follow_symlinks=False)
    subprocess.run(['git', 'init', '--quiet', dest], check=True)
    print('layout: %d files copied to %s' % (len(files), dest))


if __name__ == '__main__':
    sys.exit(main())
