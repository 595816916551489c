"""Measuring only (``benchmarks.serve_quiet`` puts this folder on the served process's path): each Python thread
gives its name to the OS as it starts (``prctl(PR_SET_NAME)``, 15 bytes), so that ``/proc/PID/task/TID/comm`` names
it (Python 3.11 does not): a table page's watcher reads ``kingdomlog-tabl``, a marimo kernel ``Thread-N (launch``,
an ``asyncio.to_thread`` worker ``asyncio_N``."""

import contextlib
import ctypes
import threading

try:
    _prctl = ctypes.CDLL(None).prctl
    _start = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def _named(self: threading.Thread) -> None:
        with contextlib.suppress(Exception):
            _prctl(15, self.name.encode()[:15], 0, 0, 0)
        _start(self)

    threading.Thread._bootstrap_inner = _named  # type: ignore[attr-defined]
except Exception:  # not Linux: nothing is named
    pass
