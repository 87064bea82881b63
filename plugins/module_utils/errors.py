# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a failed call says: one ApiError for every API, the text of an error body or a connection failure, what to
check. Every text from outside goes through Redactor.say: masked first, then shortened, so no cut leaves a piece of a
secret behind."""

import json
import os
import re

from ansible_collections.engine.cloud.plugins.module_utils.compare import MASK, mask_secret_text
from ansible_collections.engine.cloud.plugins.module_utils.validate import url_without_credentials

MAX_TEXT = 300
CUT_PREFIX = 6  # the shortest start of a secret that a message never shows (a server may quote one cut off)
_ERROR_CODE = re.compile(r'^([A-Z][A-Z_]+):\s*(.*)$', re.S)
_HTML_TITLE = re.compile(r'<title>(.*?)</title>', re.I | re.S)
LOST_ANSWER_HINT = 'The answer to this write was lost, so it may have been applied; it was not sent again'
CA_HINT = ('If the API has a certificate of a private CA, give its CA bundle (a file or a directory) with ca_path '
           '(or REQUESTS_CA_BUNDLE=/path/to/ca.pem); set validate_certs to false only against a test server you control')
CLIENT_CERT_HINT = ('The server asks for a client certificate: give it with client_cert and client_key '
                    '(or client_cert alone, a file that holds the key too)')
CLIENT_CERT_MAYBE = 'If the server asks for a client certificate, give it with client_cert and client_key.'
PROXY_HINT = 'Check the proxy environment variables (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY)'


class ConnectionFailed(Exception):
    """A request that got no usable HTTP answer. reached: it may have reached the server (False when nothing was sent:
    refused, a name that did not resolve, a connect timeout, a TLS handshake that did not complete); final: sending it
    again cannot help."""

    def __init__(self, text, reached, timeout=False, tls=False, unresolved=False, refused=False, proxy=None, final=False):
        super(ConnectionFailed, self).__init__(text)
        self.reached, self.timeout, self.tls, self.unresolved = reached, timeout, tls, unresolved
        self.refused, self.proxy = refused, proxy
        self.final = final or unresolved or refused or (tls and tls_kind(text) != 'handshake')


class ApiError(Exception):
    def __init__(self, message, status=None, code=None, method=None, path=None, request_id=None, attempts=1, hint=None, url=None,
                 answer_lost=False):
        super(ApiError, self).__init__(message)
        self.message, self.status, self.code, self.method, self.path, self.url = message, status, code, method, path, url
        self.request_id, self.attempts, self.hint, self.answer_lost = request_id, attempts, hint, answer_lost

    def __str__(self):
        head = '%s %s failed' % (self.method, self.url or self.path)
        if self.status is not None:
            head += ': HTTP %s%s' % (self.status, ' %s' % self.code if self.code else '')
        details = (['request id %s' % self.request_id] if self.request_id else []) + (
            ['after %d attempts' % self.attempts] if self.attempts > 1 else [])
        return '%s: %s%s%s' % (head, self.message, ' (%s)' % ', '.join(details) if details else '', '. %s' % self.hint if self.hint else '')

    def as_result(self):
        return dict(status=self.status, code=self.code, method=self.method, path=self.path, request_id=self.request_id,
                    attempts=self.attempts)


def short(text):
    """text on one line, at most about MAX_TEXT characters: a long text loses its middle (its end often says why)."""
    text = ' '.join((text or '').split())
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT // 2] + ' ... ' + text[-(MAX_TEXT // 2):]


class Redactor:
    """The credentials a client sends, and say(text): the one way a text from outside becomes part of a message."""

    def __init__(self, secrets):
        forms = set()
        for secret in secrets:
            if secret and len(secret) >= 4:  # as sent, escaped as repr() shows it, a base64 value without its padding
                forms.update((secret, repr(secret)[1:-1], repr(secret.encode('utf-8'))[2:-1], secret.rstrip('=')))
        self.forms = sorted(forms, key=len, reverse=True)

    def mask(self, text):
        """text without any form of the credentials, nor a piece of CUT_PREFIX characters or more that starts one, nor the
        user:password@ of an address in it, nor the value of a secret-named field."""
        text = mask_secret_text(text)
        for form in self.forms:
            text = text.replace(form, MASK)
        for form in self.forms:
            start = text.find(form[:CUT_PREFIX])
            while start >= 0:
                end = start + len(os.path.commonprefix([text[start:start + len(form)], form]))
                text = text[:start] + MASK + text[end:]
                start = text.find(form[:CUT_PREFIX], start + len(MASK))
        return url_without_credentials(text)

    def say(self, text):
        return short(self.mask(text or ''))

    def error_body(self, text, content_type=''):
        """(code, message, request id) of any error body either API (or a proxy in between) sends."""
        try:
            body = json.loads(text)  # whatever the content type says: only an object is read
        except ValueError:
            body = None
        if isinstance(body, dict):
            raw = body.get('error') or body.get('message') or ''
            raw = raw if isinstance(raw, str) else repr(raw)
            match = _ERROR_CODE.match(raw)
            if match:
                return match.group(1), self.say(match.group(2)), body.get('requestId')
            return None, self.say(raw) or 'no error message in the response', body.get('requestId')
        if text and ('html' in content_type or text.lstrip().lower().startswith(('<!doctype', '<html'))):
            title = _HTML_TITLE.search(text)
            return None, 'unexpected HTML response%s' % (': ' + self.say(title.group(1)) if title else ''), None
        return None, self.say(text) or 'empty response body', None

    def failure(self, exc, timeout, url_hint, client_cert):
        """(message, hint) of a ConnectionFailed."""
        text, hint = self.say(str(exc)), None if exc.reached else url_hint
        if exc.tls:
            kind = tls_kind(str(exc))
            if kind == 'verify':
                hint = CA_HINT
            elif kind == 'client certificate':
                hint = CLIENT_CERT_HINT
            elif client_cert is None:  # a refusal of a client without a certificate can look like any failed handshake
                hint = ' '.join(part for part in (CLIENT_CERT_MAYBE, url_hint) if part)
            return '%s: %s' % ({'verify': 'TLS certificate verification failed', 'handshake': 'TLS handshake did not complete'}.get(
                kind, 'TLS handshake failed'), text), hint
        if exc.timeout:
            return '%s within api_timeout (%s s)' % ('no response' if exc.reached else 'no connection', timeout), hint
        if exc.proxy:
            return text, PROXY_HINT
        return text if exc.final and not exc.refused and not exc.unresolved else 'connection failed: %s' % text, hint


def tls_kind(text):
    """'verify' when this client refused the server's certificate or its CA; 'client certificate' when the server
    demanded one; 'handshake' when the connection broke off during the handshake (nothing was sent: retried); else
    'refused'."""
    if 'CERTIFICATE_REQUIRED' in text or 'certificate required' in text:
        return 'client certificate'
    if 'CERTIFICATE_VERIFY_FAILED' in text or 'certificate verify failed' in text or 'CA file' in text:
        return 'verify'
    if any(word in text for word in ('EOF occurred', 'UNEXPECTED_EOF', 'Connection reset', 'Broken pipe', 'timed out')):
        return 'handshake'
    return 'refused'
