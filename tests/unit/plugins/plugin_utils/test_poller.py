# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The event sources' memory and paging, on plain listings (issue 48 item 15): an id gone for a while is forgotten, one
gone briefly comes back without an event, a listing stops at its total, and importing the sources leaves every other
library of the ansible-rulebook process importable."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys

import pytest

from ansible_collections.engine.cloud.plugins.module_utils import observability
from ansible_collections.engine.cloud.plugins.plugin_utils import events


def poller(listings):
    """A Poller whose polls answer each listing of listings in turn; its events are (id, previous state, state)."""
    answers = iter(listings)
    return events.Poller('test', lambda: next(answers), lambda item, before, seen_at: (item['id'], before, item['state']), 60)


def test_an_object_gone_briefly_comes_back_without_an_event():
    gone = events.FORGET_AFTER_POLLS - 1
    source = poller([[dict(id='a', state='OK')]] + [[]] * gone + [[dict(id='a', state='OK')], [dict(id='a', state='ALERT')]])
    found = [source.poll() for dummy in range(gone + 3)]
    assert found == [[]] * (gone + 2) + [[('a', 'OK', 'ALERT')]]


def test_an_object_gone_for_a_while_is_forgotten_and_new_when_it_comes_back():
    gone = events.FORGET_AFTER_POLLS
    source = poller([[dict(id='a', state='OK'), dict(id='b', state='OK')]] + [[dict(id='b', state='OK')]] * gone + [
        [dict(id='a', state='OK'), dict(id='b', state='OK')]])
    found = [source.poll() for dummy in range(gone + 2)]
    assert source.known == dict(a='OK', b='OK') and source.missing == {}
    assert found == [[]] * (gone + 1) + [[('a', None, 'OK')]]


def test_the_memory_holds_only_what_recent_listings_showed():
    source = poller([[dict(id=str(index), state='OK')] for index in range(50)])
    for dummy in range(50):
        source.poll()
    assert len(source.known) == events.FORGET_AFTER_POLLS and len(source.missing) == events.FORGET_AFTER_POLLS - 1


@pytest.mark.parametrize('total, pages', [(0, 1), (3, 2), (4, 2), (5, 3)])
def test_a_listing_stops_at_its_total(total, pages):
    sent = []

    def request(method, path, params):  # a server whose pages never run dry: only the total ends the listing
        sent.append(params['offset'])
        return dict(data=[dict(id='%s' % (params['offset'] + index)) for index in range(params['limit'])], meta=dict(total=total))

    items = observability.list_all(request, '/alerts', page_size=2)
    assert sent == [offset * 2 for offset in range(pages)]
    assert len(items) >= total


def test_importing_the_sources_leaves_every_other_library_importable():
    code = ('import sys\n'
            'from ansible_collections.engine.cloud.plugins.plugin_utils import events\n'
            'from ansible_collections.engine.cloud.plugins.module_utils import transport\n'
            'blocked = sorted(name for name, module in sys.modules.items() if module is None)\n'
            'assert not blocked, blocked\n'
            'import charset_normalizer, json, ssl, urllib3\n'
            'print("ok")\n')
    done = subprocess.run([sys.executable, '-c', code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          env=dict(os.environ, PYTHONPATH=':'.join(sys.path)), check=False)
    assert done.stdout.strip().endswith('ok'), done.stdout
