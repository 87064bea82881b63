# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The private directory and the locked state files (module_utils/store.py) as an execution environment, another
local user, a stuck process and a full disk meet them. What needs another user id runs as root (it skips otherwise),
in a forked child that takes that id (in_child)."""

import errno
import fcntl
import json
import os
import resource
import shutil
import signal
import stat
import tempfile
import traceback

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import pacing, reads, store

OTHER_USER = 4242
JOB_USER = 1000870000  # an OpenShift-style arbitrary uid, as AWX runs a job in an execution environment
URL, KEY = 'https://api.engine.example', 'key-secret-9f8e'
LISTED = [dict(id='a', state='running')]
as_root = pytest.mark.skipif(os.geteuid() != 0, reason='another user id takes root')


def in_child(function, *args):
    """function(*args) in a forked child: what it returns (through JSON), or the test fails with its traceback."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            outcome = ['returned', function(*args)]
        except BaseException:  # pylint: disable=broad-except
            outcome = ['raised', traceback.format_exc()]
        with os.fdopen(write_end, 'w') as handle:
            json.dump(outcome, handle)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as handle:
        kind, value = json.load(handle)
    os.waitpid(pid, 0)
    assert kind == 'returned', value
    return value


def mode(path):
    return stat.S_IMODE(os.lstat(str(path)).st_mode)


# The directory -------------------------------------------------------------------------------------------------------

@pytest.fixture
def reachable():
    """A directory every user can reach (pytest's are root's alone), removed afterwards."""
    top = tempfile.mkdtemp(prefix='engine-cloud-store-')
    os.chmod(top, 0o755)
    yield top
    shutil.rmtree(top)


def job(top, home):
    """In the child: a job of an ansible-builder image (an arbitrary uid in group 0) with that HOME; what the module's
    pacing and shared reads get."""
    os.setgroups([0])
    os.setgid(0)
    os.setuid(JOB_USER)
    os.environ.update(HOME=home, TMPDIR=os.path.join(top, 'tmp'))
    for name in ('XDG_RUNTIME_DIR', 'XDG_CACHE_HOME', store.DIRECTORY_ENV):
        os.environ.pop(name, None)
    tempfile.tempdir = None
    warnings = []
    pacer = pacing.shared_pacer((10, 10), URL, KEY, warnings.append)
    pacer.acquire()
    shared = reads.for_module(pacer, (URL, 'key-id', KEY, 'org'), warnings.append)
    return dict(directory=store.directory(), paced=not pacer.broken, shared=not shared.broken,
                warnings=warnings)


@as_root
@pytest.mark.parametrize('home', ['runner', 'missing'])
def test_in_an_execution_environment_state_is_kept_under_the_temporary_directory(reachable, home):
    """HOME=/runner is root's, group 0, mode 0775: a directory below it could be changed by every job's user. The
    default falls back to <tmp>/engine.cloud-<uid>; pacing and shared reads are on; a missing home is not created."""
    runner, tmp = os.path.join(reachable, 'runner'), os.path.join(reachable, 'tmp')
    os.mkdir(runner)
    os.chmod(runner, 0o775)
    os.mkdir(tmp)
    os.chmod(tmp, 0o1777)
    seen = in_child(job, reachable, runner if home == 'runner' else os.path.join(reachable, 'missing', 'home'))
    directory = os.path.join(tmp, 'engine.cloud-%d' % JOB_USER)
    assert seen == dict(directory=directory, paced=True, shared=True, warnings=[])
    assert (os.stat(directory).st_uid, mode(directory)) == (JOB_USER, 0o700)
    assert [(os.stat(os.path.join(directory, name)).st_uid, mode(os.path.join(directory, name))) for name in os.listdir(directory)] == [
        (JOB_USER, 0o600)]
    assert os.listdir(runner) == [] and sorted(os.listdir(reachable)) == ['runner', 'tmp']


@pytest.mark.parametrize('owner, wide', [(None, 0o777), (None, 0o1777), (None, 0o775), (None, 0o757), (OTHER_USER, 0o700)])
def test_a_directory_others_can_write_or_of_another_user_is_refused_and_left_as_it_is(pacing_directory, owner, wide):
    if owner and os.geteuid() != 0:
        pytest.skip('another user id takes root')
    pacing_directory.mkdir()
    os.chmod(str(pacing_directory), wide)
    if owner:
        os.chown(str(pacing_directory), owner, owner)
    warnings = []
    assert isinstance(pacing.shared_pacer((10, 10), URL, KEY, warnings.append), pacing.Unpaced)
    why = ('belongs to user id %d, not to this user (0)' % owner if owner else 'can be written by its group or others (mode %04o)' % wide)
    assert warnings == [store.REFUSED % ('%s %s' % (pacing_directory, why), store.DIRECTORY_ENV)]
    assert mode(pacing_directory) == wide and os.listdir(str(pacing_directory)) == []


@as_root
@pytest.mark.parametrize('owner, wide, why', [
    (OTHER_USER, 0o755, 'belongs to user id %d, neither this user (0) nor root' % OTHER_USER),
    (0, 0o777, 'can be written by its group or others and is not sticky (mode 0777)'),
    (0, 0o1777, None),  # sticky, as /tmp: nobody else can rename or remove what is ours in it
], ids=['of another user', 'writable by others', 'sticky'])
def test_every_directory_above_it_is_checked(tmp_path, monkeypatch, owner, wide, why):
    above = tmp_path / 'above'
    (above / 'mine').mkdir(parents=True, mode=0o700)
    os.chmod(str(above), wide)
    os.chown(str(above), owner, owner)
    monkeypatch.setenv(store.DIRECTORY_ENV, str(above / 'mine' / 'state'))
    if why is None:
        assert store.directory() == str(above / 'mine' / 'state') and mode(above / 'mine' / 'state') == 0o700
        return
    with pytest.raises(store.Unavailable) as error:
        store.directory()
    assert str(error.value) == '%s %s' % (above, why) and not (above / 'mine' / 'state').exists()


def test_a_missing_directory_is_made_private_and_a_missing_base_is_never_made(pacing_directory, monkeypatch, tmp_path):
    umask = os.umask(0o022)
    try:
        pacing.shared_pacer((10, 10), URL, KEY, pytest.fail).acquire()
    finally:
        os.umask(umask)
    assert mode(pacing_directory) == 0o700 and [mode(path) for path in pacing_directory.iterdir()] == [0o600]
    monkeypatch.setenv(store.DIRECTORY_ENV, str(tmp_path / 'missing' / 'state'))
    with pytest.raises(store.Unavailable, match='missing does not exist'):
        store.directory()
    monkeypatch.delenv(store.DIRECTORY_ENV)
    monkeypatch.setenv('HOME', str(tmp_path / 'no-home'))
    monkeypatch.setenv('XDG_RUNTIME_DIR', str(tmp_path))
    assert store.directory() == str(tmp_path / 'engine.cloud') and not (tmp_path / 'no-home').exists()


# The files -----------------------------------------------------------------------------------------------------------

def plant(path, content, file_mode=0o600, owner=None):
    with os.fdopen(os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, file_mode), 'w') as handle:
        handle.write(content)
    os.chmod(str(path), file_mode)
    if owner is not None:
        os.chown(str(path), owner, owner)


@pytest.mark.parametrize('owner, file_mode', [(None, 0o644), (None, 0o620), (OTHER_USER, 0o600)],
                         ids=['readable by others', 'writable by its group', 'of another user'])
def test_a_state_file_that_is_not_ours_alone_is_neither_read_nor_written(clock, tmp_path, owner, file_mode):
    if owner and os.geteuid() != 0:
        pytest.skip('another user id takes root')
    path = tmp_path / 'state.json'
    planted = json.dumps(dict(sends=[], hold=clock.monotonic() + 59))  # would hold every request back for 59 s
    plant(path, planted, file_mode, owner)
    with pytest.raises(PermissionError, match='not a regular file of this user alone'):
        with store.locked(str(path)):
            pass
    warnings = []
    pacer = pacing.Pacer(str(path), 1, 10, warnings.append)
    pacer.acquire()
    pacer.acquire()
    assert clock.sleeps == [] and warnings == ['Request pacing is off for the rest of this task: %s: not a regular file of this user '
                                               'alone' % path]
    assert path.read_text() == planted


def test_a_link_is_not_followed(tmp_path):
    plant(tmp_path / 'target', '{}')
    os.symlink(str(tmp_path / 'target'), str(tmp_path / 'state.json'))
    with pytest.raises(OSError) as error:
        with store.locked(str(tmp_path / 'state.json')):
            pass
    assert error.value.errno == errno.ELOOP and (tmp_path / 'target').read_text() == '{}'


def test_a_lock_held_too_long_ends_the_wait_and_sharing_for_the_task(clock, tmp_path):
    """A process stopped while it holds the lock (SIGSTOP, a debugger): the others give up after LOCK_SECONDS."""
    path = str(tmp_path / 'state.json')
    with store.locked(path):
        pass
    holder = os.open(path, os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        with pytest.raises(OSError) as error:
            with store.locked(path):
                pass
        assert error.value.errno == errno.ETIMEDOUT and 'its lock was held for more than 10 s' in str(error.value)
        assert store.LOCK_SECONDS <= sum(clock.sleeps) < store.LOCK_SECONDS + 0.1
        warnings, own = [], []
        shared = reads.SharedReads(lambda collection: path, warnings.append, play_size=lambda: 2)
        assert shared.item('/services', 'a', lambda: own.append(1) or 'own read', pytest.fail) == 'own read'
        assert shared.peek('/services', 'a') is False and own == [1]
        assert warnings == ['Shared reads are off for the rest of this task: [Errno %d] its lock was held for more than 10 s: %r'
                            % (errno.ETIMEDOUT, path)]
    finally:
        os.close(holder)


def full_disk(directory, limit):
    """In the child: files may not grow beyond limit bytes, as on a full disk. A pacer and a task's shared reads."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing the process
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    warnings, sent = [], []
    pacer = pacing.Pacer(os.path.join(directory, 'pacing.json'), 100, 60, warnings.append)
    for dummy in range(3):
        pacer.acquire()
    shared = reads.SharedReads(lambda collection: os.path.join(directory, 'reads.json'), warnings.append, play_size=lambda: 2)
    for max_age in (0, 5):
        shared.item('/services', 'a', lambda: sent.append('own') or {}, lambda on_send: sent.append('list') or LISTED, max_age)
    return dict(warnings=warnings, sent=sent)


def test_a_full_disk_turns_pacing_and_sharing_off_without_a_request_more_and_leaves_no_cut_file(tmp_path):
    """Another task is live on the list, so the list would be shared; the state files cannot be written: each read is
    the task's own (never a list read more), one warning each, and every file is either whole or empty."""
    pacing.Pacer(str(tmp_path / 'pacing.json'), 100, 60, pytest.fail).acquire()
    reads.SharedReads(lambda collection: str(tmp_path / 'reads.json'), pytest.fail).peek('/services', 'a')
    seen = in_child(full_disk, str(tmp_path), os.path.getsize(str(tmp_path / 'pacing.json')) + 8)
    assert seen['sent'] == ['own', 'own']
    assert [warning.split(':')[0] for warning in seen['warnings']] == ['Request pacing is off for the rest of this task',
                                                                       'Shared reads are off for the rest of this task']
    assert all('File too large' in warning for warning in seen['warnings'])
    assert sorted(os.listdir(str(tmp_path))) == ['pacing.json', 'reads.json']
    assert os.path.getsize(str(tmp_path / 'pacing.json')) == 0 and os.path.getsize(str(tmp_path / 'reads.json')) == 0
    pacing.Pacer(str(tmp_path / 'pacing.json'), 100, 60, pytest.fail).acquire()  # an empty file is a fresh state
