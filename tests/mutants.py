"""Plant each defect the suite must catch (issue 47, item 5) in a clone of this repository's HEAD and show that the test
command fails for it:

    python tests/mutants.py [--command "make test"] [--only NAME ...] [--list]

Each mutant is one exact text replacement in one file (a replacement that no longer finds its text fails the run: the
mutant has to follow the code). A mutant is caught when the command exits non-zero. Prints one line per mutant and
exits 1 when any is missed.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MU = 'plugins/module_utils/'

# name -> (file, text, replacement)
MUTANTS = {
    'a lost create answer resent': (
        MU + 'resource.py', "            found = self.adopt(body['name'], error)\n",
        "            return self.create(body, predicted)\n"),
    'a PATCH replayed after a 504': (
        MU + 'cloud.py', "NOT_REPLAYABLE = frozenset(('PATCH', 'POST', 'DELETE'))", "NOT_REPLAYABLE = frozenset(('POST', 'DELETE'))"),
    'retries beyond api_retries': (
        MU + 'transport.py', '                if attempt <= self.retries:\n', '                if attempt <= self.retries + 1:\n'),
    'Retry-After ignored': (
        MU + 'transport.py', "for name in ('RateLimit-Reset', 'X-RateLimit-Reset', 'Retry-After'):", "for name in ('RateLimit-Reset', 'X-RateLimit-Reset'):"),
    'a write in check mode': (
        MU + 'module.py', '        if self.check_mode:\n            return dict(current, **diff[\'after\']), diff\n',
        '        if False:\n            return dict(current, **diff[\'after\']), diff\n'),
    'a second run not idempotent': (
        MU + 'service_rules.py', "        if params.get(option) is not None and params[option] != current.get(field):",
        "        if params.get(option) is not None:"),
    'a secret in -vvv output': (
        MU + 'module.py', "api_key_secret=dict(type='str', no_log=True,", "api_key_secret=dict(type='str', no_log=False,"),
    'a module left out of its action group': ('meta/runtime.yml', '    - pipe_state\n', ''),
    'a write built on a kept read': (
        MU + 'reads.py', "if answer is not None and answer['sent'] >= since and answer['sent'] > seen:",
        "if answer is not None and answer['sent'] >= since - 60:"),
    'a credential shown after shortening': (
        MU + 'errors.py', "        return short(self.mask(text or ''))", "        return self.mask(short(text or ''))"),
    "a tile's section dropped on update": (
        MU + 'dashboard_rules.py', "    return dict((key, value) for key, value in (('containerId', container), ('tabId', tab)) if value)",
        '    return {}'),
    'an alert deleted without allow_alert_deletion': (
        MU + 'dashboard.py', "    if doomed and not module.params['allow_alert_deletion']:", '    if False:'),
}


def plant(clone, path, text, replacement):
    with open(os.path.join(clone, path), encoding='utf-8') as handle:
        source = handle.read()
    if source.count(text) != 1:
        sys.exit('the mutant text is %s in %s; update tests/mutants.py: %r' % ('missing' if not source.count(text) else 'not unique', path, text))
    with open(os.path.join(clone, path), 'w', encoding='utf-8') as handle:
        handle.write(source.replace(text, replacement))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--command', default='make test', help='the test command, run in the clone (default: make test)')
    parser.add_argument('--only', action='append', help='a mutant name (repeatable)')
    parser.add_argument('--list', action='store_true', help='list the mutants')
    args = parser.parse_args()
    if args.list:
        print('\n'.join(MUTANTS))
        return 0
    missed = 0
    for name in args.only or MUTANTS:
        path, text, replacement = MUTANTS[name]
        with tempfile.TemporaryDirectory(prefix='engine-cloud-mutant.') as clone:
            subprocess.check_call(['git', 'clone', '--quiet', '--no-hardlinks', ROOT, clone])
            plant(clone, path, text, replacement)
            started = time.monotonic()
            caught = subprocess.call(args.command, shell=True, cwd=clone, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT) != 0
            missed += not caught
            print('%-48s %s (%.0f s)' % (name, 'caught' if caught else 'MISSED', time.monotonic() - started), flush=True)
    return 1 if missed else 0


if __name__ == '__main__':
    sys.exit(main())
