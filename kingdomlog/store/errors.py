"""What a refusal of the file system means to a person, in one line (no heavy imports: the CLI uses it at once)."""

from __future__ import annotations

import errno
from pathlib import Path

from kingdomlog.core.errors import StoreError

_OS_HINTS = {
    errno.ENOSPC: ("the disk is full", "free some space and retry"),
    errno.EDQUOT: ("the disk quota is exceeded", "free some space and retry"),
    errno.EROFS: ("the file system is read-only", "use a writable copy of the campaign"),
    errno.EACCES: ("permission denied", "check who owns the folder and its permissions"),
    errno.EPERM: ("the operation is not permitted", "check who owns the folder and its permissions"),
    errno.EIO: ("an input/output error from the disk", "check the disk, then run `kingdomlog verify`"),
}


def describe_os_error(exc: OSError) -> str:
    """``what happened (strerror); what to do`` for an error from the file system.

    >>> import errno
    >>> describe_os_error(OSError(errno.ENOSPC, "No space left on device"))
    'the disk is full (No space left on device); free some space and retry'
    """
    what, todo = _OS_HINTS.get(exc.errno or 0, (exc.strerror or type(exc).__name__, ""))
    detail = f" ({exc.strerror})" if exc.strerror and exc.strerror.lower() != what.lower() else ""
    return f"{what}{detail}" + (f"; {todo}" if todo else "")


def write_error(where: Path, exc: OSError, *, linked: bool = False) -> StoreError:
    """The ``StoreError`` for an append that the file system refused (nothing appended, unless ``linked``)."""
    if linked:
        return StoreError(f"{where}: the batch is in the log, but making it durable failed: {describe_os_error(exc)}")
    return StoreError(f"{where}: nothing appended: {describe_os_error(exc)}")
