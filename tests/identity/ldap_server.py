"""A real OpenLDAP server for the tests: Debian's ``slapd`` on a free port of 127.0.0.1,
with its own slapd.conf and mdb database in a temporary folder, filled through ldap3 as
its rootdn. Its stats log (``-d 256``) shows every BIND it receives. It listens on
``ldap://`` (StartTLS offered) and ``ldaps://``, with a certificate for the IP address
127.0.0.1 only, signed by a throw-away CA made with ``openssl``."""

import os
import secrets
import shutil
import socket
import ssl
import subprocess
import time

import ldap3

from tests import processes
from tests.workers import free_port

SUFFIX = "dc=example,dc=org"
ROOT_DN = f"cn=admin,{SUFFIX}"
ROOT_PASSWORD = "root secret"
SERVICE_DN = f"cn=datahub,{SUFFIX}"
SERVICE_PASSWORD = "service secret"
PEOPLE = f"ou=people,{SUFFIX}"
GROUPS = f"ou=groups,{SUFFIX}"
ADMINS = f"cn=admins,{GROUPS}"
EDITORS = f"cn=editors,{GROUPS}"
# Groups that map to no role: their ``cn`` names datahub groups of source ldap.
ANALYSTS = f"cn=Analysts,{GROUPS}"
ENGINEERS = f"cn=engineers,{GROUPS}"
SLAPD_PATHS = ("/usr/sbin/slapd",)
SCHEMAS = ("core", "cosine", "inetorgperson")

CONFIG = """\
{includes}
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {folder}/slapd.pid
argsfile {folder}/slapd.args
TLSCACertificateFile {ca_file}
TLSCertificateFile {cert_file}
TLSCertificateKeyFile {key_file}

database mdb
maxsize 16777216
suffix "{suffix}"
rootdn "{root_dn}"
rootpw "{root_password}"
directory {folder}/data
access to attrs=userPassword by anonymous auth by * none
access to * by users read by * none
"""


def slapd_binary():
    found = shutil.which("slapd") or next((p for p in SLAPD_PATHS if os.access(p, os.X_OK)), None)
    if found is None:
        raise RuntimeError(
            "slapd is not installed: the LDAP tests need Debian's slapd "
            "(.ci/run installs it: apt-get install slapd)"
        )
    return found


def _openssl(*args):
    done = subprocess.run(["openssl", *map(str, args)], capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"openssl {args[0]} failed:\n{done.stderr}")


def _new_key(*args):
    """``openssl req`` options for a new unencrypted P-256 key (fast to make)."""
    return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", *args]


def make_ca(folder, name):
    """A throw-away CA in ``folder``: (cert path, key path)."""
    cert, key = os.path.join(folder, f"{name}.pem"), os.path.join(folder, f"{name}.key")
    _openssl(
        "req",
        "-x509",
        *_new_key("-keyout", key),
        "-days",
        "1",
        "-subj",
        f"/CN={name}",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        "-out",
        cert,
    )
    return cert, key


def make_server_certificate(folder, ca_cert, ca_key, ip="127.0.0.1"):
    """A server certificate for the IP address ``ip`` only (no DNS name), signed by the
    CA: (cert path, key path)."""
    cert, key = os.path.join(folder, "server.pem"), os.path.join(folder, "server.key")
    request, extensions = os.path.join(folder, "server.csr"), os.path.join(folder, "server.ext")
    with open(extensions, "w") as out:
        out.write(
            f"subjectAltName=IP:{ip}\nbasicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
            "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
        )
    _openssl(
        "req", "-new", *_new_key("-keyout", key), "-subj", "/CN=datahub test slapd", "-out", request
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        request,
        "-CA",
        ca_cert,
        "-CAkey",
        ca_key,
        "-days",
        "1",
        "-set_serial",
        secrets.randbits(63),
        "-extfile",
        extensions,
        "-out",
        cert,
    )
    return cert, key


def person(uid, email, name, password):
    return f"uid={uid},{PEOPLE}", {
        "objectClass": ["inetOrgPerson"],
        "uid": uid,
        "cn": name,
        "sn": name.split()[-1],
        "mail": email,
        "userPassword": password,
    }


class Slapd:
    """One slapd process; ``start`` fills the tree, ``stop`` ends it."""

    def __init__(self, folder):
        self.folder = str(folder)
        self.port, self.tls_port = free_port(), free_port()
        while self.tls_port == self.port:
            self.tls_port = free_port()
        self.url = f"ldap://127.0.0.1:{self.port}"
        self.ldaps_url = f"ldaps://127.0.0.1:{self.tls_port}"
        self.log_path = os.path.join(self.folder, "slapd.log")
        self.ca_file = None
        self.process = None

    def start(self):
        os.makedirs(os.path.join(self.folder, "data"), exist_ok=True)
        tls = os.path.join(self.folder, "tls")
        os.makedirs(tls, exist_ok=True)
        self.ca_file, ca_key = make_ca(tls, "datahub-test-ca")
        cert_file, key_file = make_server_certificate(tls, self.ca_file, ca_key)
        includes = "\n".join(f"include /etc/ldap/schema/{name}.schema" for name in SCHEMAS)
        config = os.path.join(self.folder, "slapd.conf")
        with open(config, "w") as out:
            out.write(
                CONFIG.format(
                    includes=includes,
                    folder=self.folder,
                    suffix=SUFFIX,
                    root_dn=ROOT_DN,
                    root_password=ROOT_PASSWORD,
                    ca_file=self.ca_file,
                    cert_file=cert_file,
                    key_file=key_file,
                )
            )
        self._launch()
        self._fill()
        return self

    def _launch(self):
        with open(self.log_path, "ab") as log:
            self.process = processes.popen(
                [
                    slapd_binary(),
                    "-f",
                    os.path.join(self.folder, "slapd.conf"),
                    "-h",
                    f"{self.url}/ {self.ldaps_url}/",
                    "-d",
                    "256",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        try:
            self._wait_for(self.port)
            self._wait_for(self.tls_port)
            self._check_tls()
        except RuntimeError:
            self.stop()
            raise

    def restart(self):
        """Stop slapd (it closes every client connection) and start it again on the same
        ports with the same data."""
        self.stop()
        self._launch()

    def resume(self):
        """Start a stopped slapd again on the same ports with the same data."""
        self._launch()

    def _wait_for(self, port):
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"slapd did not start:\n{self.log()}") from None
                time.sleep(0.05)

    def _check_tls(self):
        """A TLS handshake on the ldaps:// port, verified against the test CA."""
        context = ssl.create_default_context(cafile=self.ca_file)
        try:
            with (
                socket.create_connection(("127.0.0.1", self.tls_port), timeout=5) as raw,
                context.wrap_socket(raw, server_hostname="127.0.0.1"),
            ):
                pass
        except (OSError, ssl.SSLError) as exc:
            raise RuntimeError(f"slapd's TLS does not work ({exc}):\n{self.log()}") from None

    def stop(self):
        processes.stop(self.process)

    def log(self):
        with open(self.log_path, errors="replace") as log:
            return log.read()

    def binds(self):
        """The BIND operations slapd has received so far."""
        return [line for line in self.log().splitlines() if " BIND dn=" in line]

    def admin(self):
        return ldap3.Connection(
            ldap3.Server(self.url, get_info=ldap3.NONE),
            ROOT_DN,
            ROOT_PASSWORD,
            auto_bind=True,
            raise_exceptions=True,
        )

    def _fill(self):
        with self.admin() as conn:
            conn.add(SUFFIX, ["dcObject", "organization"], {"dc": "example", "o": "Example"})
            conn.add(
                SERVICE_DN,
                ["organizationalRole", "simpleSecurityObject"],
                {"userPassword": SERVICE_PASSWORD},
            )
            conn.add(PEOPLE, ["organizationalUnit"], {"ou": "people"})
            conn.add(GROUPS, ["organizationalUnit"], {"ou": "groups"})
            # groupOfNames needs a member: the service account holds every group's place.
            for group in (ADMINS, EDITORS, ANALYSTS, ENGINEERS):
                conn.add(group, ["groupOfNames"], {"member": [SERVICE_DN]})

    def add_person(self, uid, email, name, password, groups=()):
        dn, attributes = person(uid, email, name, password)
        with self.admin() as conn:
            conn.add(dn, attributes=attributes)
            for group in groups:
                conn.modify(group, {"member": [(ldap3.MODIFY_ADD, [dn])]})
        return dn

    def set_member(self, group, dn, member):
        with self.admin() as conn:
            conn.modify(
                group, {"member": [(ldap3.MODIFY_ADD if member else ldap3.MODIFY_DELETE, [dn])]}
            )
