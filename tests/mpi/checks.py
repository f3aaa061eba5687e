"""The "ok"/"FAIL" lines of the Python test scripts of this folder, and their count."""
import sys

fails = 0


def check(ok, what):
    """Print one result line; count it when it failed."""
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails += 1


def finish(name):
    """The summary line, and the exit status: 1 when a check failed."""
    print(f"{name}: {fails} failed")
    sys.exit(1 if fails else 0)
