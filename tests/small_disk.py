"""A real, small file system for the storage: a tmpfs mounted for one test (as root, as
the tests run in CI). Nothing is simulated: writes fail with the kernel's ENOSPC."""

import os
import subprocess

import pytest


def mounted_tmpfs(path, options):
    """Mount a tmpfs with ``options`` (``size=256k``, ``nr_inodes=4``) on ``path``."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the CI runs the tests as root)")
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], check=True)
    return path


def unmount(path):
    subprocess.run(["umount", "--lazy", str(path)], check=True)


def used_bytes(path):
    stats = os.statvfs(path)
    return (stats.f_blocks - stats.f_bfree) * stats.f_frsize
