# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The collection's one source of time: backoff, waits and pacing read and sleep through CLOCK, so a test replaces its
methods once and all of them run on fake time."""

import time
import types

CLOCK = types.SimpleNamespace(time=time.time, monotonic=time.monotonic, sleep=time.sleep)
