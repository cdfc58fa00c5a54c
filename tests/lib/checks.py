"""Checks a test counts, and how a test that cannot run says so (automake's
exit statuses)."""

import os
import sys

SKIP = 77        # automake: the test was skipped
HARD_ERROR = 99  # automake: the test itself broke (not used for skips)


class TestError(Exception):
    """What the test ran did not do what was expected (it failed, timed
    out, wrote nonsense)."""


class Checks:
    """Collects check results; exit() ends the test with 0 or 1."""

    def __init__(self):
        self.failures = 0
        self.count = 0

    def check(self, cond, what, detail=""):
        self.count += 1
        detail = str(detail).strip()
        if cond:
            # Short details only; failures get everything.
            if "\n" in detail or len(detail) > 100:
                detail = ""
            print("ok %d - %s%s" % (self.count, what, (": " + detail) if detail else ""),
                  flush=True)
        else:
            self.failures += 1
            print("FAIL %d - %s%s" % (self.count, what, (":\n" + detail) if detail else ""),
                  flush=True)
        return cond

    def exit(self):
        print("%d passed, %d failed" % (self.count - self.failures, self.failures), flush=True)
        sys.exit(1 if self.failures else 0)


def in_ci():
    return os.environ.get("CI") == "true"


def skip(reason):
    """Exit 77 (skipped): what the test needs is not in this build."""
    sys.stderr.write("SKIP: %s\n" % reason)
    sys.stderr.flush()
    sys.exit(SKIP)


def skip_or_fail(reason):
    """Exit 77 (skip) locally; under CI=true a missing tool is exit 1."""
    if in_ci():
        sys.stderr.write("FAIL: %s (CI=true: required, not skipping)\n" % reason)
        sys.stderr.flush()
        sys.exit(1)
    skip(reason)
