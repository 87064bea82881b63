# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A throw-away self-signed certificate for the TLS servers of the unit tests, the simulator's tests and the
reliability suite (not in the simulator package: the integration tests, which need only jsonschema, import that)."""

import datetime
import ipaddress
import os


def self_signed(directory, common_name='localhost'):
    """Write cert.pem and key.pem into directory: a CA certificate for localhost and 127.0.0.1, valid for a day.
    Returns (cert path, key path). Needs the cryptography package (tests/unit/requirements.txt)."""
    from cryptography import x509  # pylint: disable=import-outside-toplevel
    from cryptography.hazmat.primitives import hashes, serialization  # pylint: disable=import-outside-toplevel
    from cryptography.hazmat.primitives.asymmetric import ec  # pylint: disable=import-outside-toplevel
    from cryptography.x509.oid import NameOID  # pylint: disable=import-outside-toplevel

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName('localhost'), x509.IPAddress(ipaddress.ip_address('127.0.0.1'))]),
                                  critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    cert_path, key_path = os.path.join(str(directory), 'cert.pem'), os.path.join(str(directory), 'key.pem')
    with open(cert_path, 'wb') as handle:
        handle.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(key_path, 'wb') as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                       serialization.NoEncryption()))
    return cert_path, key_path
