"""docs/log-format.md is enough to recompute every hash: a small implementation written from that page alone.

Nothing here serialises with ``json.dumps`` or calls kingdomlog's hashing code; ``json.loads``
and pyarrow only parse. The implementation checks the committed fixture log and a fresh log
whose payloads hold floats, escapes and non-ASCII text; it recomputes every event hash, the
file digests and both chains, and re-spells every payload canonically from its parsed value.
It also checks the page's worked example and that non-finite numbers are refused (issue 19, 9).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import pyarrow.parquet as pq
import pytest
from pydantic import Field

from kingdomlog.core.errors import InputError
from kingdomlog.core.events import Draft, EventModel, register_event
from kingdomlog.store.log import EventLog

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "toy-v1"
DOC = REPO / "docs" / "log-format.md"

# ---- the independent implementation (from docs/log-format.md only) ---------------------------

SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def j_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in SHORT:
            out.append(SHORT[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def j_float(x: float) -> str:
    assert math.isfinite(x)
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    x = abs(x)
    if x == 0:
        return sign + "0.0"
    for p in range(17):  # the shortest digits that read back as the same double
        text = f"{x:.{p}e}"
        if float(text) == x:
            break
    mant, exp = text.split("e")
    digits = mant.replace(".", "").rstrip("0") or "0"
    point = int(exp) + 1  # |x| = 0.D × 10^point
    n = len(digits)
    if -4 < point <= 16:
        if point <= 0:
            body = "0." + "0" * (-point) + digits
        elif point >= n:
            body = digits + "0" * (point - n) + ".0"
        else:
            body = digits[:point] + "." + digits[point:]
    else:
        e = point - 1
        body = digits[0] + ("." + digits[1:] if n > 1 else "") + "e" + ("-" if e < 0 else "+") + f"{abs(e):02d}"
    return sign + body


def j(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return j_float(value)
    if isinstance(value, str):
        return j_string(value)
    if isinstance(value, list):
        return "[" + ",".join(j(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(j_string(k) + ":" + j(value[k]) for k in sorted(value)) + "}"
    raise TypeError(type(value))


def j_time(t: datetime) -> str:
    t = t.astimezone(UTC)
    frac = f".{t.microsecond:06d}" if t.microsecond else ""
    return t.strftime("%Y-%m-%dT%H:%M:%S") + frac + "+00:00"


def event_hash(row: dict[str, Any]) -> str:
    doc = {k: row[k] for k in ("actor", "campaign", "commit_id", "event_id", "payload", "phase", "prev_hash",
                               "seq", "turn", "type", "version", "visibility")}
    doc["recorded_at"] = j_time(row["recorded_at"])
    return hashlib.sha256(j(doc).encode("utf-8")).hexdigest()


def file_digest(data: bytes) -> tuple[str, str]:
    at = data.rfind(b"kingdomlog.file_sha256") + len(b"kingdomlog.file_sha256")
    assert data[at:at + 2] == b"\x18\x40"
    stored = data[at + 2:at + 66]
    zeroed = data[:at + 2] + b"0" * 64 + data[at + 66:]
    return stored.decode("ascii"), hashlib.sha256(zeroed).hexdigest()


def check_log(log_dir: Path) -> int:
    """Every check of the page's "chains" section; returns the number of events."""
    files = sorted(p for p in log_dir.iterdir() if re.fullmatch(r"\d{12}\.parquet", p.name))
    expect, prev_hash, prev_file = 1, "0" * 64, "0" * 64
    campaign = None
    for path in files:
        data = path.read_bytes()
        stored, actual = file_digest(data)
        assert stored == actual, path
        pf = pq.ParquetFile(path)
        meta = {k.decode(): v.decode() for k, v in (pf.metadata.metadata or {}).items() if k != b"ARROW:schema"}
        rows = pf.read().to_pylist()
        assert int(path.stem) == expect == int(meta["kingdomlog.first_seq"])
        assert len(rows) == int(meta["kingdomlog.count"])
        assert meta["kingdomlog.prev_file_sha256"] == prev_file and meta["kingdomlog.file_sha256"] == stored
        for i, row in enumerate(rows):
            campaign = campaign or row["campaign"]
            assert row["seq"] == expect + i and row["campaign"] == campaign
            assert row["commit_id"] == meta["kingdomlog.commit_id"]
            assert row["prev_hash"] == prev_hash, (path, i)
            assert event_hash(row) == row["hash"], (path, row["seq"])
            prev_hash = row["hash"]
            assert j(json.loads(row["payload"])) == row["payload"], row["payload"]  # payloads are canonical
        assert meta["kingdomlog.last_hash"] == prev_hash
        expect += len(rows)
        prev_file = stored
    return expect - 1


def check_head(log_dir: Path) -> tuple[int, str]:
    """The page's record of the heads (``log/.heads``): its newest head, checked against the log."""
    data = (log_dir / ".heads").read_bytes()
    assert data.endswith(b"\n")
    heads = []
    for text in data[:-1].split(b"\n"):
        digest, space, body = text.partition(b" ")
        assert space and hashlib.sha256(body).hexdigest().encode() == digest
        assert body.isascii() and b", " not in body
        doc = json.loads(body)
        assert list(doc) == sorted(doc)
        heads.append(doc)
    head = max(heads, key=lambda d: d["seq"])
    assert head is heads[-1]  # one writer: in order
    rows = pq.read_table(log_dir / head["file"]).to_pylist()
    assert rows[-1]["seq"] == head["seq"] and rows[-1]["hash"] == head["hash"]
    assert file_digest((log_dir / head["file"]).read_bytes())[0] == head["file_sha"]
    return head["seq"], head["hash"]


# ---- the checks ------------------------------------------------------------------------------


@register_event
class Measured(EventModel):
    type: ClassVar[str] = "fmt.measured"
    version: ClassVar[int] = 1
    values: list[float]
    label: str
    extra: dict[str, Any] = Field(default_factory=dict)


FLOATS = [0.0, -0.0, 0.1, 0.5, 1.0, 100.0, 123.5, 1e15, 1e16, 1.5e300, 1e-4, 1e-5, 2.5e-7, 5e-324,
          1.7976931348623157e308, 123456789.125, -3.25, 2**53 + 0.0, 1 / 3]
LABEL = 'quote " backslash \\ tab \t nl \n nul \x00 bell \x07 del \x7f ls \u2028 é 😀 /slash'


def test_the_page_s_example_hashes_as_stated() -> None:
    text = DOC.read_text(encoding="utf-8")
    example = re.search(r"first event of `tests/fixtures/toy-v1` hashes this text \(one line\):\n\n```\n(.*?)\n```",
                        text, re.S)
    assert example is not None
    digest = re.search(r"to `([0-9a-f]{64})`", text[example.end():])
    assert digest is not None
    assert hashlib.sha256(example.group(1).encode("utf-8")).hexdigest() == digest.group(1)
    first = pq.read_table(FIXTURE / "log" / "000000000001.parquet").to_pylist()[0]
    assert event_hash(first) == first["hash"] == digest.group(1)


def test_the_fixture_log_verifies_with_the_page_alone() -> None:
    assert check_log(FIXTURE / "log") == 6


def test_floats_escapes_and_unicode_verify_with_the_page_alone(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log", "fmt-camp")
    log.dir.mkdir()
    big = {"z": 1, "a": [True, False, None], "é": 2, "\U0001f600": 3, "\uffff": 4, "Z": -(2**53 - 1)}
    log.append([Draft(Measured(values=FLOATS, label=LABEL, extra=big), turn=0, phase=None)], expect_seq=0,
               recorded_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    log.append([Draft(Measured(values=[-x for x in FLOATS], label="two"), turn=1, phase="p", actor="alice",
                      visibility="faction:alice")] * 3, expect_seq=1,
               recorded_at=datetime(2026, 1, 2, 3, 4, 5, 250_000, tzinfo=UTC))
    assert check_log(log.dir) == 4
    assert check_head(log.dir)[0] == 4
    assert pq.ParquetFile(log.files()[-1]).metadata.metadata[b"kingdomlog.head_witness"] == b".heads"
    rows = pq.read_table(log.files()[0]).to_pylist()
    assert '"values":[0.0,-0.0,0.1,0.5,1.0,100.0,123.5,1000000000000000.0,1e+16,1.5e+300,0.0001,1e-05,' \
           '2.5e-07,5e-324,1.7976931348623157e+308,123456789.125,-3.25,9007199254740992.0,0.3333333333333333]' \
           in rows[0]["payload"]
    assert '\\u0000' in rows[0]["payload"] and '\u2028' in rows[0]["payload"] and '😀' in rows[0]["payload"]
    assert rows[0]["payload"].index('"Z"') < rows[0]["payload"].index('"a"') < rows[0]["payload"].index('"é"') \
        < rows[0]["payload"].index('"\uffff"') < rows[0]["payload"].index('"\U0001f600"')


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_numbers_are_refused_with_nothing_written(tmp_path: Path, bad: float) -> None:
    log = EventLog(tmp_path / "log", "fmt-camp")
    log.dir.mkdir()
    with pytest.raises(InputError, match=r"event 'fmt.measured': payload: values\[1\] is -?(nan|inf); events carry"
                                         r" only finite numbers"):
        log.append([Draft(Measured(values=[1.0, bad], label="x"), turn=0)], expect_seq=0)
    with pytest.raises(InputError, match=r"extra\.deep\[0\] is"):
        log.append([Draft(Measured(values=[], label="x", extra={"deep": [bad]}), turn=0)], expect_seq=0)
    assert list(log.dir.iterdir()) == []


def test_an_integer_past_2_53_is_refused_with_nothing_written(tmp_path: Path) -> None:
    """The page: a new payload carries integers up to 2^53 - 1 either way (issue 28: 10**30 broke every query)."""
    log = EventLog(tmp_path / "log", "fmt-camp")
    log.dir.mkdir()
    with pytest.raises(InputError, match=r"event 'fmt.measured': payload: extra\.Z is -9007199254740992, past the"
                                         r" largest integer an event carries"):
        log.append([Draft(Measured(values=[], label="x", extra={"Z": -(2**53)}), turn=0)], expect_seq=0)
    assert list(log.dir.iterdir()) == []
