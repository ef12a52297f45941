"""``python -m tests [pytest arguments]``: the whole suite, in two parts.

1. Every test not marked ``serial``, on DATAHUB_TEST_WORKERS (default 4) pytest-xdist
   workers (``--dist loadgroup``: tests are spread one by one, except that the tests of
   one ``xdist_group``, such as the modules that open many connections at once, run on
   one worker). tests/workers.py gives each worker its own databases.
2. The tests marked ``serial`` (their subject is timing: rate-limit windows, load), alone.

The arguments are pytest's and go to both parts (a ``-m`` expression is combined with each
part's). Exits with the first failing part's status, or 5 (pytest's "no tests ran") when
neither part ran a test.
"""

import os
import shlex
import subprocess
import sys

NO_TESTS_RAN = 5


def with_marker(args, expression):
    """``args`` with ``-m expression``, and-ed with a ``-m`` already in ``args``."""
    args = list(args)
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            args[index + 1] = f"({args[index + 1]}) and {expression}"
            return args
        if arg.startswith("-m") and not arg.startswith("--") and len(arg) > 2:
            args[index] = f"-m({arg[2:]}) and {expression}"
            return args
    return ["-m", expression, *args]


def run(args):
    print("$ pytest " + shlex.join(args), flush=True)
    return subprocess.call([sys.executable, "-m", "pytest", *args])


def main(args):
    workers = os.environ.get("DATAHUB_TEST_WORKERS", "4")
    # The slowest tests are listed at the end: where the pass's time goes.
    parallel = run(
        ["-n", workers, "--dist", "loadgroup", "--durations=25", *with_marker(args, "not serial")]
    )
    serial = run([*with_marker(args, "serial"), "-n", "0"])
    print(f"tests: parallel part exited {parallel}, serial part {serial}", flush=True)
    if parallel == serial == NO_TESTS_RAN:
        return NO_TESTS_RAN
    for status in (parallel, serial):
        if status not in (0, NO_TESTS_RAN):
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
