"""The suite's own TLS certificates: a local CA and a server certificate for 127.0.0.1, ::1 and
localhost, signed by it (no outside CA). `python -m harness.tls` makes them, or says where they are.

Written once into .state/tls/ (git-ignored) and reused while valid; made again when a file is
missing, a file does not parse, the server certificate does not chain to the CA, or either expires
within RENEW_BEFORE. The tests and the benchmark call ensure(), which makes the pair on demand,
under a lock (parallel test workers share one pair). Keys are ECDSA P-256, certbot's default key
type since 2.0 (what a Let's Encrypt deployment serves today), signed with SHA-256. Clients trust
ca.pem (`curl --cacert`, ssl.create_default_context(cafile=...), vegeta -root-certs); servers get
server.pem and server-key.pem through the entries' --certfile and --keyfile.
"""
from __future__ import annotations

import argparse
import datetime as dt
import fcntl
import ipaddress
import os
import ssl
import sys
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / ".state" / "tls"
VALID_FOR = dt.timedelta(days=365)
RENEW_BEFORE = dt.timedelta(days=7)
HOSTS = ("127.0.0.1", "::1", "localhost")  # what the suite's clients dial
CA_NAME = "refsuite local CA"


@dataclass(frozen=True)
class Pair:
    """The files of one pair: the CA's certificate (what clients trust), the server's certificate and key."""

    ca: Path
    cert: Path
    key: Path

    def server_flags(self) -> list[str]:
        """The flags that make an entry serve HTTPS with this pair."""
        return ["--certfile", str(self.cert), "--keyfile", str(self.key)]

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts this CA only and checks the host name, as a browser would."""
        return ssl.create_default_context(cafile=str(self.ca))


def files(directory: Path = DEFAULT_DIR) -> Pair:
    return Pair(ca=directory / "ca.pem", cert=directory / "server.pem", key=directory / "server-key.pem")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def problem(pair: Pair) -> str:
    """Why the pair cannot be reused ("" when it can)."""
    try:
        ca = x509.load_pem_x509_certificate(pair.ca.read_bytes())
        cert = x509.load_pem_x509_certificate(pair.cert.read_bytes())
        key = serialization.load_pem_private_key(pair.key.read_bytes(), password=None)
    except FileNotFoundError as exc:
        return f"{exc.filename} is missing"
    except ValueError as exc:
        return f"a file does not parse ({exc})"
    try:
        cert.verify_directly_issued_by(ca)
    except (ValueError, TypeError, InvalidSignature):
        return f"{pair.cert.name} is not signed by {pair.ca.name}"
    if key.public_key().public_numbers() != cert.public_key().public_numbers():
        return f"{pair.key.name} is not the key of {pair.cert.name}"
    for path, certificate in ((pair.ca, ca), (pair.cert, cert)):
        if certificate.not_valid_after_utc - _now() < RENEW_BEFORE:
            return f"{path.name} expires on {certificate.not_valid_after_utc:%Y-%m-%d}"
    return ""


def _certificate(subject: x509.Name, issuer: x509.Name, public_key, signing_key, *, ca: bool,
                 hosts: tuple[str, ...] = ()) -> x509.Certificate:
    start = _now() - dt.timedelta(days=1)  # a clock a little behind still accepts it
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key)
               .serial_number(x509.random_serial_number()).not_valid_before(start)
               .not_valid_after(start + VALID_FOR)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(
            digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False, encipher_only=False,
            decipher_only=False), critical=True)
    else:
        names = [x509.IPAddress(ipaddress.ip_address(h)) if h[0].isdigit() or ":" in h else x509.DNSName(h)
                 for h in hosts]
        builder = (builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
                   .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                   .add_extension(x509.KeyUsage(
                       digital_signature=True, key_cert_sign=False, crl_sign=False, content_commitment=False,
                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                       encipher_only=False, decipher_only=False), critical=True))
    return builder.sign(signing_key, hashes.SHA256())


def _write(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Atomically: a reader never sees half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.chmod(mode)
    os.replace(tmp, path)


def make(pair: Pair) -> None:
    """Write a new CA and a server certificate for HOSTS signed by it (the CA's key is not kept: a new
    pair is a new CA, and nothing else can be signed by the old one)."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)])
    ca = _certificate(ca_name, ca_name, ca_key.public_key(), ca_key, ca=True)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    cert = _certificate(name, ca_name, key.public_key(), ca_key, ca=False, hosts=HOSTS)
    pair.ca.parent.mkdir(parents=True, exist_ok=True)
    _write(pair.key, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()), mode=0o600)
    _write(pair.cert, cert.public_bytes(serialization.Encoding.PEM))
    _write(pair.ca, ca.public_bytes(serialization.Encoding.PEM))


def ensure(directory: Path = DEFAULT_DIR, force: bool = False) -> Pair:
    """The pair in directory, made first when it is missing, invalid or about to expire (or force)."""
    pair = files(directory)
    if not force and not problem(pair):
        return pair
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if force or problem(pair):  # another process may have made it meanwhile
            make(pair)
    return pair


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.tls",
        description="Make (or reuse) the suite's local CA and a server certificate for "
                    f"{', '.join(HOSTS)}, and print how to use them.")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=f"where (default {DEFAULT_DIR.relative_to(ROOT)})")
    parser.add_argument("--force", action="store_true", help="make a new CA and certificate even if the current ones are valid")
    args = parser.parse_args(argv)
    why = problem(files(args.dir))
    pair = ensure(args.dir, force=args.force)
    made = "made" if args.force or why else "reused (valid)"
    cert = x509.load_pem_x509_certificate(pair.cert.read_bytes())
    print(f"{made}: {pair.cert} for {', '.join(HOSTS)}, valid until {cert.not_valid_after_utc:%Y-%m-%d}"
          + (f" ({why})" if why and not args.force else ""))
    print(f"  CA (clients trust it): {pair.ca}\n  key: {pair.key}\n"
          f"serve HTTPS:  python -m servers.run nethttp --port 8443 {' '.join(pair.server_flags())}\n"
          f"request:      curl --cacert {pair.ca} https://127.0.0.1:8443/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
