"""S3 storage benchmark: a large file up and down through the service against boto3 alone.

    python -m bench.s3                      # 200 MiB, 2 interleaved rounds (< 3 minutes)
    python -m bench.s3 --mib 50 --rounds 1  # quick check

Starts moto's S3 server (``python -m moto.server``) and datahub under gunicorn
(``bench/gunicorn_bench.conf.py``, one worker, SQLite in a temporary instance folder) with
``STORAGE_URL=s3://bench/files`` on that server. Each round uploads the file with
``PUT .../file`` (raw body with a Content-Length) and downloads it with ``GET .../file``,
and, alternating with those, boto3's own ``upload_file`` and ``download_file`` (its
default TransferConfig: 8 MiB parts, 10 threads) move the same file to and from the same
server, and the server copies it with CopyObject (its own copy speed, no client in
between: a reference line). Throughput is the file's size over the median time; the ratio is ours over
boto3's (target >= 0.5: the service also reads the body from a socket, hashes it, and
writes a database row). The downloaded bytes are checked.

See bench/README.rst ("S3 storage").
"""

import argparse
import hashlib
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import (
    EMAIL,
    PASSWORD,
    Server,
    _download_seconds,
    _upload_seconds,
    datahub_env,
    prepare_datahub,
)
from tests.s3_server import CREDENTIALS, S3Server

BUCKET, PREFIX = "bench", "files"
TARGET = 0.5


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while block := source.read(1024 * 1024):
            digest.update(block)
    return digest.hexdigest()


def boto3_seconds(s3, action, *args, **kwargs):
    start = time.perf_counter()
    getattr(s3.client(), action)(*args, **kwargs)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mib", type=int, default=200, help="the file's size in MiB")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds")
    parser.add_argument("--part-mib", type=int, default=8, help="S3_PART_SIZE in MiB")
    parser.add_argument("--concurrency", type=int, default=2, help="S3_UPLOAD_CONCURRENCY")
    parser.add_argument("--scratch", default=None, help="folder for the file")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.environ.update(CREDENTIALS)
    size = args.mib * 1024 * 1024

    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        scratch = Path(scratch)
        source, copy = scratch / "source.bin", scratch / "copy.bin"
        with open(source, "wb") as out:
            out.writelines([os.urandom(1024 * 1024)] * args.mib)
        expected = sha256_of(source)

        s3 = S3Server.start(scratch / "moto.log", bucket=BUCKET)
        try:
            env = {
                **datahub_env(scratch / "instance", None, 4),
                **s3.env(PREFIX),
                "DATAHUB_S3_PART_SIZE": str(args.part_mib * 1024 * 1024),
                "DATAHUB_S3_UPLOAD_CONCURRENCY": str(args.concurrency),
                "DATAHUB_MAX_CONTENT_LENGTH": str(size + 1),
                "DATAHUB_PIPELINE_EMBEDDED_WORKER": "false",
            }
            prepare_datahub(env)
            times = {
                "upload": [],
                "download": [],
                "boto3 upload": [],
                "boto3 download": [],
                "server copy": [],
            }
            with Server("wsgi:app", env, 1) as datahub:
                status, body, _ = datahub.request(
                    "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
                )
                assert status == 200, body
                headers = {"Authorization": f"Bearer {json.loads(body)['access_token']}"}
                status, body, _ = datahub.request(
                    "POST", "/api/v1/datasets/", {"name": "big file"}, headers=headers
                )
                assert status == 201, body
                path = f"/api/v1/datasets/{json.loads(body)['id']}/file"
                for round_ in range(args.rounds):
                    times["upload"].append(
                        _upload_seconds(
                            datahub.port, path + "?filename=big.bin", source, size, headers
                        )
                    )
                    times["boto3 upload"].append(
                        boto3_seconds(s3, "upload_file", str(source), BUCKET, "boto3/big.bin")
                    )
                    times["download"].append(_download_seconds(datahub.port, path, size, headers))
                    times["boto3 download"].append(
                        boto3_seconds(s3, "download_file", BUCKET, "boto3/big.bin", str(copy))
                    )
                    times["server copy"].append(
                        boto3_seconds(
                            s3,
                            "copy_object",
                            Bucket=BUCKET,
                            Key="boto3/copied.bin",
                            CopySource={"Bucket": BUCKET, "Key": "boto3/big.bin"},
                        )
                    )
                    print(
                        f"round {round_ + 1}: "
                        + ", ".join(f"{name} {values[-1]:.2f} s" for name, values in times.items()),
                        flush=True,
                    )
                status, body, _ = datahub.request("GET", path.rsplit("/", 1)[0], headers=headers)
                assert json.loads(body)["file"]["sha256"] == expected
                assert sha256_of(copy) == expected
        finally:
            s3.stop()

    def mib_s(seconds):
        return size / seconds / 2**20

    ok = True
    for direction in ("upload", "download"):
        ours, theirs = (statistics.median(times[k]) for k in (direction, f"boto3 {direction}"))
        ratio = theirs / ours
        ok &= ratio >= TARGET
        print(
            f"{direction} {args.mib} MiB through datahub vs boto3 {direction}_file: "
            f"{mib_s(ours):.0f} MiB/s vs {mib_s(theirs):.0f} MiB/s = {ratio:.2f}x "
            f"(target >= {TARGET}) {'ok' if ratio >= TARGET else 'MISSED'}",
            flush=True,
        )
    # The S3 server's own speed, with no client in the way: a server-side CopyObject.
    copy_seconds = statistics.median(times["server copy"])
    print(
        f"the S3 server's own copy (CopyObject) of {args.mib} MiB: "
        f"{mib_s(copy_seconds):.0f} MiB/s; datahub's upload is "
        f"{copy_seconds / statistics.median(times['upload']):.2f}x and its download "
        f"{copy_seconds / statistics.median(times['download']):.2f}x of it",
        flush=True,
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
