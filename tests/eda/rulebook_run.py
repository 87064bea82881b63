# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ansible-rulebook (of .venv-eda) running the rulebooks of extensions/eda/rulebooks/ against a simulator, for the
rulebook test (tests/eda/test_rulebooks.py) and the demo (scripts/demo_events.py): the collection from a layout copy
on the collections path, the connection from the ENGINE_* variables, what it printed in a file, the request log read
through the simulator's admin interface."""

import ast
import os
import re
import signal
import subprocess
import sys
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# pylint: disable=wrong-import-position
from tests.simulator import fixture_ids as ids  # noqa: E402

VENV_EDA = os.environ.get('EDA_VENV', os.path.join(ROOT, '.venv-eda'))
RULEBOOKS = os.path.join(ROOT, 'extensions', 'eda', 'rulebooks')
WAIT = 90  # seconds for any one step on a loaded machine
EVENT = re.compile(r'^\*\* [^\n]*\[received event\] \*+\nRuleset: ([^\n]*)\nEvent:\n(.*?)\n\*{80}$', re.S | re.M)


def layout(directory):
    """A layout copy of the collection (what ansible-galaxy would install) under directory, a collections path."""
    subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'layout.py'), os.path.join(directory, 'ansible_collections', 'engine', 'cloud')],
                   check=True, stdout=subprocess.DEVNULL)
    return directory


def rulebook(directory, names):
    """The rulesets of the shipped rulebooks of these names, unchanged, in one rulebook file: one ansible-rulebook, one JVM."""
    rulesets = []
    for name in names:
        with open(os.path.join(RULEBOOKS, name), encoding='utf-8') as handle:
            rulesets.extend(yaml.safe_load(handle))
    path = os.path.join(directory, 'rulebook.yml')
    with open(path, 'w', encoding='utf-8') as handle:
        yaml.safe_dump(rulesets, handle, sort_keys=False)
    return path


class Run:
    """ansible-rulebook running the rulesets of the shipped rulebooks of these names with these variables (--vars),
    against sim, the collection from the collections path collection; what it prints goes to a file in directory."""

    def __init__(self, sim, collection, directory, names, variables):
        self.sim, self.output_path = sim, os.path.join(directory, 'ansible-rulebook.out')
        with open(os.path.join(directory, 'vars.yml'), 'w', encoding='utf-8') as handle:
            yaml.safe_dump(variables, handle)
        env = dict(os.environ, PATH=os.path.join(VENV_EDA, 'bin') + os.pathsep + os.environ['PATH'], ANSIBLE_COLLECTIONS_PATH=collection,
                   ENGINE_CLOUD_API_URL=sim.url, ENGINE_OBSERVABILITY_URL=sim.url, ENGINE_CLOUD_KEY_ID=ids.KEY_ID,
                   ENGINE_CLOUD_KEY_SECRET=ids.KEY_SECRET, ENGINE_CLOUD_ORGANIZATION_ID=ids.ORGANIZATION,
                   ENGINE_OBSERVABILITY_TOKEN=ids.TOKEN, ENGINE_CLOUD_PACING_DIR=os.path.join(directory, 'pacing'),
                   ANSIBLE_LOCAL_TEMP=os.path.join(directory, 'ansible-tmp'), ANSIBLE_NOCOLOR='1', PYTHONUNBUFFERED='1')
        with open(self.output_path, 'w', encoding='utf-8') as output:
            self.process = subprocess.Popen(  # pylint: disable=consider-using-with
                [os.path.join(VENV_EDA, 'bin', 'ansible-rulebook'), '--rulebook', rulebook(directory, names),
                 '-i', os.path.join(ROOT, 'extensions', 'eda', 'inventory.yml'), '--vars', os.path.join(directory, 'vars.yml'), '--print-events'],
                cwd=directory, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT)

    def output(self):
        with open(self.output_path, encoding='utf-8', errors='replace') as handle:
            return handle.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self):
        return self.sim.requests()

    def wait_for(self, what, predicate):
        """Until predicate(request log) holds; RuntimeError naming what when ansible-rulebook exits or WAIT passes."""
        deadline = time.monotonic() + WAIT
        while not predicate(self.log()):
            if self.process.poll() is not None:
                raise RuntimeError('ansible-rulebook exited (%s) before %s:\n%s' % (self.process.returncode, what, self.output()))
            if time.monotonic() > deadline:
                raise RuntimeError('no %s within %d s:\n%s' % (what, WAIT, self.output()[-4000:]))
            time.sleep(0.2)

    def next_poll(self, path):
        """Wait until a listing of path is sent after now, and answered."""
        count = len(listings(self.log(), path))
        self.wait_for('poll of %s' % path, lambda log: len(listings(log, path)) > count)

    def events(self):
        """(ruleset, event) for every event ansible-rulebook printed (--print-events)."""
        return [(ruleset, ast.literal_eval(text)) for ruleset, text in EVENT.findall(self.output())]


def listings(log, path):
    return [entry for entry in log if entry['method'] == 'GET' and entry['path'] == path]


def service_state(sim, service_id):
    return next(service['state'] for service in sim.state()['services'] if service['id'] == service_id)


def writes(log, suffix):
    return [entry['body'] for entry in log if entry['method'] in ('PATCH', 'POST') and entry['path'].endswith(suffix)]
