"""The launcher: failures to start say why, and the shell entry point (serve) hands over the
address and the fixture's credentials, then stops the simulator on SIGTERM."""

import os
import shlex
import signal
import subprocess
import sys

import pytest

from . import fixture_ids
from .process import ROOT, SimulatorProcess, admin_call


def test_a_simulator_that_cannot_start_raises_with_its_log(tmp_path):
    missing = str(tmp_path / 'no-such-fixtures.json')
    with pytest.raises(RuntimeError) as info:
        SimulatorProcess(str(tmp_path), fixtures=missing).start()
    assert 'exited with 1 before it answered' in str(info.value)
    assert 'no-such-fixtures.json' in str(info.value)


def test_a_temporary_workdir_goes_away_at_stop():
    process = SimulatorProcess().start()
    workdir = process.workdir
    assert os.path.exists(os.path.join(workdir, 'simulator.port'))
    assert process.stop() == 0
    assert not os.path.exists(workdir)


def test_serve_prints_shell_assignments_and_stops_on_sigterm(tmp_path):
    launcher = subprocess.Popen([sys.executable, '-m', 'tests.simulator.process', 'serve', '--workdir', str(tmp_path)],
                                cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        output = launcher.stdout.read()  # to its end: the launcher closes it once the simulator answers
        assert launcher.poll() is None
        values = dict(shlex.split(line)[0].split('=', 1) for line in output.splitlines())
        assert values == dict(SIM_PORT=values['SIM_PORT'], SIM_URL='http://127.0.0.1:' + values['SIM_PORT'],
                              SIM_ORGANIZATION_ID=fixture_ids.ORGANIZATION, SIM_KEY_ID=fixture_ids.KEY_ID,
                              SIM_KEY_SECRET=fixture_ids.KEY_SECRET, SIM_OBS_TOKEN=fixture_ids.TOKEN)
        assert admin_call(values['SIM_URL'] + '/_admin', 'GET', 'requests') == {'requests': []}
    finally:
        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(15) == 0
    with pytest.raises(OSError):
        admin_call(values['SIM_URL'] + '/_admin', 'GET', 'config', timeout=2)
