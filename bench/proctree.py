"""The memory of every process of a service: gunicorn's master, its web workers, the
supervised pipeline worker and the short-lived processes they start (queries, previews).

:class:`TreeSampler` walks ``/proc/<pid>/task/*/children`` from the master every ~20 ms and
keeps, per process, the largest of its sampled ``VmRSS`` and its ``VmHWM`` (the kernel's
own peak, so a process killed between two samples is not missed by more than its last
20 ms). The ``VmHWM`` of the processes already running is reset first (``clear_refs``).
"""

import threading
import time
from pathlib import Path


def children(pid):
    """The pids of ``pid``'s children (every thread's), or [] once it is gone."""
    found = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def tree(pid):
    """``pid`` and its descendants: {pid: parent pid}."""
    parents, todo = {pid: None}, [pid]
    while todo:
        parent = todo.pop()
        for child in children(parent):
            if child not in parents:
                parents[child] = parent
                todo.append(child)
    return parents


def status_kib(pid):
    """(VmRSS, VmHWM) of ``pid`` in KiB, or None once it is gone (or a zombie)."""
    values = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(("VmRSS", "VmHWM")):
                    values[line[:5]] = int(line.split()[1])
    except OSError:
        return None
    if "VmRSS" not in values:
        return None
    return values["VmRSS"], values.get("VmHWM", values["VmRSS"])


def command(pid):
    try:
        return (
            Path(f"/proc/{pid}/cmdline")
            .read_bytes()
            .replace(b"\0", b" ")
            .decode(errors="replace")
            .strip()
        )
    except OSError:
        return ""


def is_pipeline_worker(pid):
    """The ``flask --app datahub worker`` process the master supervises."""
    return " worker" in command(pid) and "flask" in command(pid)


def web_workers(master):
    """The master's children that answer HTTP (not the supervised pipeline worker)."""
    return [pid for pid in children(master) if not is_pipeline_worker(pid)]


class TreeSampler:
    """Samples every process under ``master`` every ``every`` seconds in a thread."""

    def __init__(self, master, every=0.02):
        self.master, self.every = master, every
        self.web = set(web_workers(master))
        self.idle_kib = {pid: (status_kib(pid) or (0, 0))[0] for pid in tree(master)}
        self.peak_kib, self.parent, self.cmd = {}, {}, {}
        self.running = False
        self.thread = threading.Thread(target=self._run, daemon=True, name="tree-sampler")

    def __enter__(self):
        for pid in self.idle_kib:
            try:
                Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS
            except OSError:
                pass
        self.running = True
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()
        self.sample()

    def _run(self):
        while self.running:
            self.sample()
            time.sleep(self.every)

    def sample(self):
        for pid, parent in tree(self.master).items():
            values = status_kib(pid)
            if values is None:
                continue
            if pid not in self.cmd or "datahub" not in self.cmd[pid]:
                # Again until it has exec'ed: a child just forked shows its parent's.
                self.parent[pid], self.cmd[pid] = parent, command(pid)
            self.peak_kib[pid] = max(self.peak_kib.get(pid, 0), *values)

    # --- the results

    def largest(self):
        """(peak KiB, pid, role) of the process with the largest peak."""
        pid = max(self.peak_kib, key=self.peak_kib.get)
        return self.peak_kib[pid], pid, self.role(pid)

    def role(self, pid):
        if pid == self.master:
            return "gunicorn master"
        if pid in self.web:
            return "web worker"
        if self.parent.get(pid) == self.master:
            return "pipeline worker" if "flask" in self.cmd.get(pid, "") else "web worker"
        if "isolation.child" in self.cmd.get(pid, ""):
            parent = self.parent.get(pid)
            return "preview process" if parent in self.web else "query process"
        return "other process"

    def web_growth_kib(self):
        """The largest growth of a web worker's RSS over its RSS before the sampling."""
        return max(
            (self.peak_kib.get(pid, 0) - self.idle_kib.get(pid, 0) for pid in self.web), default=0
        )

    def roles(self):
        """{role: (processes seen, the largest peak KiB among them)}."""
        found = {}
        for pid, peak in self.peak_kib.items():
            count, largest = found.get(self.role(pid), (0, 0))
            found[self.role(pid)] = (count + 1, max(largest, peak))
        return found

    def summary(self):
        peak, pid, role = self.largest()
        return (
            f"largest process {pid} ({role}) {peak / 1024:,.1f} MiB; web workers grew "
            f"by at most {self.web_growth_kib() / 1024:,.1f} MiB; processes seen "
            + ", ".join(
                f"{n} {r} (peak {kib / 1024:,.0f} MiB)"
                for r, (n, kib) in sorted(self.roles().items())
            )
        )
