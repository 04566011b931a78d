"""The shipped nginx site (deploy/nginx/rummy.conf) run on loopback with TLS and HTTP/2.

The production test and the page-load benchmark serve the site through the same file an operator
installs, with only the operator's own values replaced (host name, certificate, listening ports,
the Daphne ports), under a main configuration that stands for Debian's /etc/nginx/nginx.conf.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NGINX_SITE = ROOT / "deploy" / "nginx" / "rummy.conf"
NGINX = "/usr/sbin/nginx"
#: What the nginx site names as an example, and an operator replaces with their own.
EXAMPLE_HOST = "rummy.example.com"
EXAMPLE_CERT = f"/etc/letsencrypt/live/{EXAMPLE_HOST}/fullchain.pem"
EXAMPLE_KEY = f"/etc/letsencrypt/live/{EXAMPLE_HOST}/privkey.pem"


def replaced(text: str, values: dict[str, str], where: str) -> str:
    """``text`` with each example value an operator replaces by their own; each must be in it."""
    for example, own in values.items():
        assert example in text, f"{where} no longer names {example!r}: update tests/e2e/nginx_site.py"
        text = text.replace(example, own)
    return text


def self_signed_certificate(directory: Path, host: str) -> tuple[Path, Path]:
    """A certificate for ``host`` valid for a day, and its key (PEM files)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "fullchain.pem", directory / "privkey.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def spki_hash(cert_path: Path) -> str:
    """The certificate's public key hash, as Chromium's ``--ignore-certificate-errors-spki-list``
    takes it: a browser given it treats the certificate as valid, so it caches what it fetches
    (Chromium keeps nothing from a site whose certificate it merely tolerates)."""
    import base64
    import hashlib

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    der = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def nginx_main_config(prefix: Path, site: Path) -> str:
    """What Debian's /etc/nginx/nginx.conf is to an operator: a main context around the site, in ``prefix``."""
    temp = {k: prefix / "temp" / k for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
    # as root nginx would hand its workers to "nobody", who may not enter the test's directory
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"{user}daemon off;\nworker_processes 1;\npid {prefix}/nginx.pid;\n"
        f"error_log {prefix}/error.log info;\n"
        "events { worker_connections 256; }\n"
        "http {\n"
        f"    access_log {prefix}/access.log;\n"
        + "".join(f"    {k}_temp_path {path};\n" for k, path in temp.items())
        + f"    include {site};\n"
        "}\n"
    )


def write_nginx_site(
    nginx_dir: Path,
    *,
    host: str,
    cert: Path,
    key: Path,
    https_port: int,
    http_port: int,
    daphne_ports: dict[str, str],
) -> list[str]:
    """The shipped site with the operator's values written into ``nginx_dir`` (which has a
    ``temp/`` folder); the command line that runs it in the foreground.

    ``daphne_ports`` maps each port the shipped upstream names to the port of a Daphne here."""
    own = {
        EXAMPLE_CERT: str(cert),
        EXAMPLE_KEY: str(key),
        EXAMPLE_HOST: host,
        "listen 443 ssl": f"listen 127.0.0.1:{https_port} ssl",
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        **{f"server 127.0.0.1:{port};": f"server 127.0.0.1:{mine};" for port, mine in daphne_ports.items()},
    }
    site = nginx_dir / "rummy.conf"
    site.write_text(replaced(NGINX_SITE.read_text(), own, "deploy/nginx/rummy.conf"))
    main = nginx_dir / "nginx.conf"
    main.write_text(nginx_main_config(nginx_dir, site))
    return [NGINX, "-p", f"{nginx_dir}/", "-e", "stderr", "-c", str(main)]


def shipped_daphne_ports() -> list[str]:
    """The Daphne ports the shipped upstream names, in its order."""
    import re

    return re.findall(r"^\s*server 127\.0\.0\.1:(\d+);", NGINX_SITE.read_text(), re.M)
