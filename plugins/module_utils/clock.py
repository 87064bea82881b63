# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The collection's one source of time. Backoff, state waits and request pacing read the time and
sleep through CLOCK, so a test replaces its methods once and all of them run on fake time."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time



class Clock:
    """Wall time, monotonic time and sleep, as the standard library gives them."""

    @staticmethod
    def time():
        return time.time()

    @staticmethod
    def monotonic():
        return time.monotonic()

    @staticmethod
    def sleep(seconds):
        time.sleep(seconds)


CLOCK = Clock()
