"""Loading rules data (TOML or JSON) into typed rows, with errors naming file and entry.

Rules data ships as package data and is read with ``importlib.resources``, so
an installed wheel works; a campaign may add homebrew files of the same shape.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from kingdomlog.core.errors import InputError

M = TypeVar("M", bound=BaseModel)


def read_document(text: str, source: str) -> Any:
    """Parse TOML or JSON ``text`` (by ``source``'s suffix); ``InputError`` names the file."""
    try:
        if source.endswith(".json"):
            return json.loads(text)
        return tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{source}: cannot parse: {exc}") from None


def package_document(package: str, name: str) -> Any:
    """Read data file ``name`` shipped in ``package``."""
    text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    return read_document(text, f"{package}/{name}")


def file_document(path: Path) -> Any:
    """Read a data file from disk (homebrew); ``InputError`` if missing or malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start});"
                         " save it as UTF-8") from None
    return read_document(text, str(path))


def rows(model: type[M], items: Any, *, source: str, key: str = "name") -> list[M]:
    """Validate a list of tables into ``model`` rows; errors name ``source`` and the entry.

    Duplicate ``key`` values are an error.
    """
    if isinstance(items, Mapping):
        items = [dict(v, **{key: k}) if isinstance(v, Mapping) and key not in v else v for k, v in items.items()]
    if not isinstance(items, list):
        raise InputError(f"{source}: expected a list of entries")
    out: list[M] = []
    seen: set[Any] = set()
    for i, item in enumerate(items):
        label = item.get(key, f"#{i + 1}") if isinstance(item, Mapping) else f"#{i + 1}"
        try:
            row = model.model_validate(item)
        except ValidationError as exc:
            errs = "; ".join(
                f"{'.'.join(str(x) for x in e['loc']) or '(entry)'}: {e['msg']}" for e in exc.errors()[:4]
            )
            raise InputError(f"{source}: entry {label!r} (#{i + 1}): {errs}") from None
        ident = getattr(row, key, None)
        if ident is not None:
            if ident in seen:
                raise InputError(f"{source}: entry {label!r} (#{i + 1}) duplicates an earlier {key}")
            seen.add(ident)
        out.append(row)
    return out
