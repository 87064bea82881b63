# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The simulator serves HTTPS with a self-signed certificate: validate_certs=true fails with a
clear certificate error (not retried), validate_certs=false works, and a CA bundle given in the
environment (REQUESTS_CA_BUNDLE, of the process or of the play) works with validate_certs=true."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

MODULES = ('service_info', 'dashboard_info')


@pytest.mark.parametrize('module', MODULES)
def test_verification_fails_with_a_certificate_error(suite, module):
    suite.counts.add('tls', 'tried')
    runs, dummy = suite.result('tls')
    result = runs['plain'].registered['verify_' + module]
    message = result.get('msg', '')
    assert result.get('failed'), result
    assert 'TLS certificate verification failed' in message and 'CERTIFICATE_VERIFY_FAILED' in message, message
    assert 'validate_certs' in message and 'CA bundle' in message, message
    assert result.get('attempts') == 1, 'a certificate error is not retried'
    suite.counts.add('tls', 'passed')


@pytest.mark.parametrize('module', MODULES)
@pytest.mark.parametrize('how', ['noverify', 'bundle_env', 'bundle_play'])
def test_connection_works(suite, module, how):
    suite.counts.add('tls', 'tried')
    runs, dummy = suite.result('tls')
    run = runs['plain'] if how == 'noverify' else runs[how]
    result = run.registered[('noverify_' if how == 'noverify' else 'bundle_') + module]
    assert not result.get('failed'), (result.get('msg'), run.explain())
    assert result.get('service' if module == 'service_info' else 'dashboard'), result
    suite.counts.add('tls', 'passed')


def test_failed_handshakes_never_reach_the_api(suite):
    dummy, requests = suite.result('tls')
    # Two modules x (no verification, bundle from the process environment, bundle from the play).
    assert len(requests) == 6, [(entry['method'], entry['path']) for entry in requests]
