"""Reading what a command is given: a UTF-8 text file (or stdin) and a plan, each error naming the file.

Shared by the command modules (``cli``, ``pbp_cli``) so neither imports the other.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kingdomlog.core.turn import Plan

DIR_HELP = "the campaign's folder, e.g. campaigns/stolen-lands"
"""What every command's ``dir`` is, in its ``--help``."""
DIR_NEW_HELP = "the campaign folder to create (a new or empty folder)"
"""``dir`` of the commands that make a campaign (``new``, ``import``, ``import-kingdom``)."""
JSON_HELP = "print the result as JSON (stable fields: docs/cli.md)"
"""Every ``--json`` option's ``--help``."""


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of ``path`` (``-``: stdin); ``InputError`` saying what is wrong with it."""
    from kingdomlog.core.errors import InputError
    from kingdomlog.store.errors import describe_os_error

    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8",
                                                                                                       "surrogateescape")
        else:
            raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{name}: cannot read {what}: {describe_os_error(exc)}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(f"{name}: {what} is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}); save it"
                         " as UTF-8") from None


def load_plan(path: str) -> Plan:
    """The plan in the file ``path`` (``-``: stdin), parsed; ``InputError`` naming what is wrong."""
    from kingdomlog.core.turn import Plan

    return Plan.parse(read_text(path, "plan"), source=path)
