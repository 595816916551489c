"""This machine's key for the derived cache: what kingdomlog wrote under ``.cache/`` it trusts only if it signed it.

The cache (snapshots, the record of verified batch files, the recorded head) is derived
and rebuildable, but a reader that trusted it blindly could be shown an edited state, or
skip the per-event hash check of an altered batch. So every cache file is written with an
HMAC-SHA256 over its bytes, keyed by a secret kept outside the campaign folder
(``$KINGDOMLOG_KEY_FILE``, else ``$XDG_CACHE_HOME/kingdomlog/cache.key``, else
``~/.cache/kingdomlog/cache.key``; created on first use, mode 0600). A cache file whose
HMAC does not match (edited, or written on another machine or by another user) is
ignored and rebuilt. Someone who can read that key file can forge cache files; someone
who can only write the campaign folder (a shared or synced folder) cannot.

When the key cannot be stored (a read-only home), a key for this process only is used:
the cache then works within one process and is rebuilt by the next.

A signed file is one line holding the hex HMAC, then the JSON text it covers. A file of
signed *slots* (``write_signed_slot``) holds several such records, each padded with spaces to
a fixed size and rewritten in place: a record that is updated on every append (the recorded
head) costs one ``pwrite`` instead of a temp file and a rename over the old one (on ext4 that
rename makes the kernel flush the new file's data first, ``auto_da_alloc``: about half a
millisecond). A write torn by a crash only spoils its own slot, which its HMAC then refuses;
the other slot still holds the record before it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
import uuid
from functools import cache
from pathlib import Path
from typing import Any

ENV_KEY_FILE = "KINGDOMLOG_KEY_FILE"
KEY_BYTES = 32


def key_path() -> Path:
    """Where this machine's cache key lives (see the module docstring)."""
    env = os.environ.get(ENV_KEY_FILE)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kingdomlog" / "cache.key"


@cache
def local_key() -> bytes:
    """The key (read once per process; created if missing; a per-process key if it cannot be stored)."""
    path = key_path()
    try:
        return _read_key(path)
    except (OSError, ValueError):
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(KEY_BYTES) + "\n")
        try:
            os.link(tmp, path)  # exclusive: when two processes race, both end up with the winner's key
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
        return _read_key(path)
    except (OSError, ValueError):
        return secrets.token_bytes(KEY_BYTES)


def _read_key(path: Path) -> bytes:
    key = bytes.fromhex(path.read_text(encoding="ascii").strip())
    if len(key) < 16:
        raise ValueError("key too short")
    return key


def sign(data: bytes | memoryview) -> str:
    """The hex HMAC-SHA256 of ``data`` under this machine's key."""
    return hmac.new(local_key(), data, hashlib.sha256).hexdigest()


def verify(data: bytes | memoryview, mac: bytes) -> bool:
    """Whether ``mac`` (hex ASCII) is this machine's HMAC of ``data``."""
    return hmac.compare_digest(mac, sign(data).encode("ascii"))


def dumps_signed(doc: Any) -> bytes:
    """``doc`` as a signed file's bytes (HMAC line, then compact JSON)."""
    body = json.dumps(doc, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return sign(body).encode("ascii") + b"\n" + body


def loads_signed(data: bytes) -> Any | None:
    """The JSON a signed file holds, or None when it is not one or its HMAC does not match."""
    mac, sep, body = data.partition(b"\n")
    if not sep or len(mac) != 64:
        return None
    if not hmac.compare_digest(mac, sign(body).encode("ascii")):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def read_signed(path: Path) -> Any | None:
    """The JSON of the signed file ``path``, or None (missing, unreadable, not signed by this machine)."""
    try:
        return loads_signed(path.read_bytes())
    except OSError:
        return None


def write_signed(path: Path, doc: Any) -> bool:
    """Write ``doc`` to ``path`` atomically as a signed file; False (nothing raised) if it cannot be written.

    The cache is an optimisation: a full disk or a read-only folder only costs speed.
    """
    try:
        data = dumps_signed(doc)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
        try:
            try:
                tmp.write_bytes(data)
            except FileNotFoundError:  # the folder is made only when missing (not a mkdir call per write)
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp.write_bytes(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise
        return True
    except (OSError, ValueError):
        return False


_SAFE_OPEN = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
"""A slot file is opened without following a symlink (a planted link must not make an append overwrite
the file it points to) and without blocking (a planted FIFO must not hang it)."""


def read_slots(path: Path, size: int, count: int = 2) -> list[bytes] | None:
    """The raw bytes of each of the ``count`` slots of ``size`` bytes in ``path``, padding stripped (``b""`` for an
    empty slot); None when the file is missing, unreadable or not a regular file (never waits on a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | _SAFE_OPEN)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.pread(fd, size * count, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    return [data[i * size:(i + 1) * size].rstrip(b" \0") for i in range(count)]


def read_signed_slots(path: Path, size: int, count: int = 2) -> list[Any | None]:
    """The JSON of each of the ``count`` signed slots of ``size`` bytes in ``path`` (None for a slot that is
    empty, torn or not signed by this machine; all None when the file is missing or not a regular file)."""
    chunks = read_slots(path, size, count)
    if chunks is None:
        return [None] * count
    return [loads_signed(chunk) if chunk else None for chunk in chunks]


def signed_elsewhere(chunk: bytes) -> bool:
    r"""Whether ``chunk`` is a whole signed record (an HMAC line, then a JSON object) whose HMAC is not this
    machine's: written on another machine or under another key, not torn. ``loads_signed`` returns None for both.

    >>> signed_elsewhere(b"ab" * 32 + b'\n{"seq":3}')
    True
    >>> signed_elsewhere(b"xb" * 32 + b'\n{"seq":3}'), signed_elsewhere(b"ab" * 32 + b'\n{"seq":3')
    (False, False)
    """
    mac, sep, body = chunk.partition(b"\n")
    if not sep or len(mac) != 64 or not all(c in b"0123456789abcdef" for c in mac):
        return False
    try:
        return isinstance(json.loads(body), dict)
    except ValueError:
        return False


def write_signed_slot(path: Path, index: int, doc: Any, size: int,
                      stat_out: list[os.stat_result] | None = None) -> bool:
    """Write ``doc`` signed into slot ``index`` (``size`` bytes each) of ``path``, in place; False (nothing
    raised) if it cannot be written or does not fit. Not fsynced: like every cache file, a lost write only
    costs speed. See ``write_slot``."""
    try:
        return write_slot(path, index, dumps_signed(doc), size, stat_out)
    except ValueError:
        return False


def write_slot(path: Path, index: int, data: bytes, size: int, stat_out: list[os.stat_result] | None = None) -> bool:
    """Write ``data`` into slot ``index`` (``size`` bytes each) of ``path``, in place, padded with spaces; False
    (nothing raised) if it cannot be written or does not fit. A path that is not a regular file of one link (a
    planted symlink, FIFO or hard link) is removed and made anew rather than written through.

    ``stat_out``: the file's ``fstat`` right after the write is appended to it (through the descriptor written)."""
    try:
        if len(data) > size:
            return False
        data = data.ljust(size, b" ")
        flags = os.O_WRONLY | os.O_CREAT | _SAFE_OPEN
        for attempt in (1, 2, 3):
            try:
                fd = os.open(path, flags, 0o644)
            except FileNotFoundError:  # the folder is made only when missing (not a mkdir call per write)
                path.parent.mkdir(parents=True, exist_ok=True)
                continue
            except OSError:
                if attempt == 3:
                    raise
                path.unlink(missing_ok=True)  # a symlink (ELOOP) or a FIFO without a reader (ENXIO)
                continue
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
                    if attempt == 3:
                        return False
                    path.unlink(missing_ok=True)
                    continue
                if os.pwrite(fd, data, index * size) != size:
                    return False
                if stat_out is not None:
                    stat_out.append(os.fstat(fd))
                return True
            finally:
                os.close(fd)
        return False
    except OSError:
        return False


__all__ = ["ENV_KEY_FILE", "dumps_signed", "key_path", "loads_signed", "local_key", "read_signed", "read_signed_slots",
           "read_slots", "sign", "signed_elsewhere", "verify", "write_signed", "write_signed_slot", "write_slot"]
