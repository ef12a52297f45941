"""A real OpenLDAP server for the tests: Debian's ``slapd`` on a free port of 127.0.0.1,
with its own slapd.conf and mdb database in a temporary folder, filled through ldap3 as
its rootdn. Its stats log (``-d 256``) shows every BIND it receives."""
import os
import shutil
import socket
import subprocess
import time

import ldap3

from tests import processes

SUFFIX = "dc=example,dc=org"
ROOT_DN = f"cn=admin,{SUFFIX}"
ROOT_PASSWORD = "root secret"
SERVICE_DN = f"cn=datahub,{SUFFIX}"
SERVICE_PASSWORD = "service secret"
PEOPLE = f"ou=people,{SUFFIX}"
GROUPS = f"ou=groups,{SUFFIX}"
ADMINS = f"cn=admins,{GROUPS}"
EDITORS = f"cn=editors,{GROUPS}"
SLAPD_PATHS = ("/usr/sbin/slapd",)
SCHEMAS = ("core", "cosine", "inetorgperson")

CONFIG = """\
{includes}
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {folder}/slapd.pid
argsfile {folder}/slapd.args

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
        raise RuntimeError("slapd is not installed: the LDAP tests need Debian's slapd "
                           "(.ci/run installs it: apt-get install slapd)")
    return found


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def person(uid, email, name, password):
    return f"uid={uid},{PEOPLE}", {
        "objectClass": ["inetOrgPerson"], "uid": uid, "cn": name, "sn": name.split()[-1],
        "mail": email, "userPassword": password,
    }


class Slapd:
    """One slapd process; ``start`` fills the tree, ``stop`` ends it."""

    def __init__(self, folder):
        self.folder = str(folder)
        self.port = free_port()
        self.url = f"ldap://127.0.0.1:{self.port}"
        self.log_path = os.path.join(self.folder, "slapd.log")
        self.process = None

    def start(self):
        os.makedirs(os.path.join(self.folder, "data"), exist_ok=True)
        includes = "\n".join(f"include /etc/ldap/schema/{name}.schema" for name in SCHEMAS)
        config = os.path.join(self.folder, "slapd.conf")
        with open(config, "w") as out:
            out.write(CONFIG.format(includes=includes, folder=self.folder, suffix=SUFFIX,
                                    root_dn=ROOT_DN, root_password=ROOT_PASSWORD))
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [slapd_binary(), "-f", config, "-h", f"{self.url}/", "-d", "256"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"slapd did not start:\n{self.log()}") from None
                time.sleep(0.05)
        self._fill()
        return self

    def stop(self):
        processes.stop(self.process)

    def log(self):
        with open(self.log_path, errors="replace") as log:
            return log.read()

    def binds(self):
        """The BIND operations slapd has received so far."""
        return [line for line in self.log().splitlines() if " BIND dn=" in line]

    def admin(self):
        return ldap3.Connection(ldap3.Server(self.url, get_info=ldap3.NONE), ROOT_DN,
                                ROOT_PASSWORD, auto_bind=True, raise_exceptions=True)

    def _fill(self):
        with self.admin() as conn:
            conn.add(SUFFIX, ["dcObject", "organization"], {"dc": "example", "o": "Example"})
            conn.add(SERVICE_DN, ["organizationalRole", "simpleSecurityObject"],
                     {"userPassword": SERVICE_PASSWORD})
            conn.add(PEOPLE, ["organizationalUnit"], {"ou": "people"})
            conn.add(GROUPS, ["organizationalUnit"], {"ou": "groups"})
            # groupOfNames needs a member: the service account holds every group's place.
            for group in (ADMINS, EDITORS):
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
            conn.modify(group, {"member": [(ldap3.MODIFY_ADD if member else ldap3.MODIFY_DELETE,
                                            [dn])]})
