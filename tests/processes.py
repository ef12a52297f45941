"""Ending the server processes that tests start (nginx, slapd, the OIDC provider)."""
import subprocess


def stop(process, timeout=10):
    """SIGTERM, then SIGKILL if ``process`` has not ended within ``timeout`` seconds."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
