"""``run``: the CLI called in-process as a person types it, with its exit code and both outputs."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout

from kingdomlog import cli


def run(*argv: str, stdin: str | bytes = "") -> tuple[int, str, str]:
    """``kingdomlog *argv`` with ``stdin`` as its input: ``(exit code, stdout, stderr)``."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin if isinstance(stdin, bytes) else stdin.encode()), encoding="utf-8")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(list(argv))
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()
