"""A memory cgroup of its own for a job's process, where the host lets this process make
one: cgroup v1's memory hierarchy writable (typically as root), or a cgroup v2 tree
whose memory controller is delegated to this process's cgroup. The kernel then bounds
the job's memory exactly (it kills the process at ``memory.limit_in_bytes`` /
``memory.max``), below the watch and the address-space backstop of datahub.platform.isolation.
Where no cgroup can be made, :func:`attach` answers None and those two remain."""

import errno
import logging
import os
import time

log = logging.getLogger("datahub.isolation.cgroups")

V1_ROOT = "/sys/fs/cgroup/memory"
V2_ROOT = "/sys/fs/cgroup"


def _write(path, value):
    with open(path, "w") as handle:
        handle.write(str(value))


def _own_v2_path():
    try:
        with open("/proc/self/cgroup") as handle:
            for line in handle:
                if line.startswith("0::"):
                    return os.path.join(V2_ROOT, line[3:].strip().lstrip("/"))
    except OSError:
        pass
    return None


def _parent():
    """``(version, folder)`` to make job cgroups in, or None."""
    if os.path.isfile(os.path.join(V1_ROOT, "memory.limit_in_bytes")) and os.access(
        V1_ROOT, os.W_OK
    ):
        return 1, V1_ROOT
    own = _own_v2_path()
    if own:
        try:
            with open(os.path.join(own, "cgroup.subtree_control")) as handle:
                delegated = "memory" in handle.read().split()
        except OSError:
            delegated = False
        if delegated and os.access(own, os.W_OK):
            return 2, own
    return None


def attach(pid, limit_bytes):
    """Put process ``pid`` in a new memory cgroup limited to ``limit_bytes``; the
    cgroup's folder, or None where none can be made."""
    found = _parent()
    if found is None:
        return None
    version, parent = found
    folder = os.path.join(parent, f"datahub-job-{os.getpid()}-{pid}")
    try:
        os.mkdir(folder)
    except OSError as exc:
        log.debug("no memory cgroup for job %s: %s", pid, exc)
        return None
    try:
        if version == 1:
            try:  # its memory so far counts too (refused by kernels that dropped it)
                _write(os.path.join(folder, "memory.move_charge_at_immigrate"), 3)
            except OSError:
                pass
            _write(os.path.join(folder, "memory.limit_in_bytes"), int(limit_bytes))
        else:
            _write(os.path.join(folder, "memory.max"), int(limit_bytes))
            _write(os.path.join(folder, "memory.swap.max"), 0)
        _write(os.path.join(folder, "cgroup.procs"), pid)
    except OSError as exc:
        log.warning("could not limit job %s with a memory cgroup: %s", pid, exc)
        remove(folder)
        return None
    return folder


def remove(folder, tries=50):
    """Remove a job's cgroup once its process is gone (the kernel refuses while it still
    has one)."""
    if folder is None:
        return
    for _ in range(tries):
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                break
            time.sleep(0.01)
    log.warning("could not remove the job cgroup %s", folder)
