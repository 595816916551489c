"""``campaign.toml``: a campaign's id, name, ruleset, options and declared players, read and written.

The log's first event records the ruleset and options, so the log alone replays;
this file is their readable copy plus what the log does not hold (the players a
view may be shared with). Players' ids are checked once here: lower case, and never
a reserved viewer name (``gm``, ``public``, ``system``).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kingdomlog.core.errors import CampaignNotFoundError, InputError
from kingdomlog.core.viewers import RESERVED

CONFIG_FILE = "campaign.toml"
CONFIG_FORMAT = 1
SLUG_RE = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


class ViewerEntry(BaseModel):
    """A player or faction declared in ``campaign.toml`` (someone a view may be shared with)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")
    name: str = ""
    character: str = ""
    """The player's character as the kingdom's state names it (a pf2e leader's holder, an aikakirjat PC's id
    or name): the seats the ruleset gives that character are this player's (default: ``name``)."""

    @field_validator("id")
    @classmethod
    def _not_reserved(cls, v: str) -> str:
        if v in RESERVED:
            raise ValueError(f"{v!r} is reserved (gm, public and system cannot be players or factions)")
        return v


class TableSettings(BaseModel):
    """How the table plays (``[table]`` in ``campaign.toml``; ``app.table``).

    ``rolls``: who sees a player's roll when it is made: ``when_accepted`` (the default: the player and the
    GM, and the whole table once the GM accepts the row) or ``at_once`` (the whole table at once, like dice
    rolled on a real table; a row only declared stays the player's and the GM's either way).
    """

    model_config = ConfigDict(extra="forbid")
    rolls: Literal["when_accepted", "at_once"] = "when_accepted"


class CampaignConfig(BaseModel):
    """The contents of ``campaign.toml``."""

    model_config = ConfigDict(extra="forbid")

    format: int = CONFIG_FORMAT
    id: str
    name: str = ""
    ruleset: str
    options: dict[str, Any] = Field(default_factory=dict)
    viewers: list[ViewerEntry] = Field(default_factory=list)
    table: TableSettings = Field(default_factory=TableSettings)

    @property
    def player_ids(self) -> tuple[str, ...]:
        return tuple(v.id for v in self.viewers)


def slug_ok(slug: str) -> bool:
    """Whether ``slug`` is a valid campaign id (lower case, starts with a letter)."""
    return bool(SLUG_RE.match(slug))


def load_config(folder: Path) -> CampaignConfig:
    """Read and validate ``campaign.toml``; errors name the file and the field."""
    path = folder / CONFIG_FILE
    if not folder.is_dir():
        raise CampaignNotFoundError(f"{folder}: no such campaign folder")
    if not path.is_file():
        raise CampaignNotFoundError(f"{folder}: not a kingdomlog campaign (no {CONFIG_FILE}); create one with"
                                    " `kingdomlog new`")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot parse: {exc}") from None
    try:
        cfg = CampaignConfig.model_validate(raw)
    except ValidationError as exc:
        errs = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        raise InputError(f"{path}: {errs}") from None
    if cfg.format > CONFIG_FORMAT:
        raise InputError(f"{path}: format {cfg.format} is newer than this kingdomlog reads ({CONFIG_FORMAT})")
    if not slug_ok(cfg.id):
        raise InputError(f"{path}: id {cfg.id!r} must be lower case letters, digits, - or _, starting with a letter")
    return cfg


def dump_config(cfg: CampaignConfig) -> str:
    """``campaign.toml`` text for ``cfg`` (with a header saying the log is the truth)."""
    data = cfg.model_dump(mode="json")
    data["options"] = {k: v for k, v in data["options"].items() if v is not None}
    if not data["viewers"]:
        del data["viewers"]
    if data["table"] == TableSettings().model_dump(mode="json"):
        del data["table"]
    head = ("# kingdomlog campaign. The log (log/*.parquet) is the truth; options here are a readable copy of the\n"
            "# options recorded in the log's first event. Homebrew data goes in data/*.toml.\n")
    return head + tomli_w.dumps(data)


def write_config(folder: Path, cfg: CampaignConfig) -> None:
    """Write ``campaign.toml`` into ``folder``."""
    (folder / CONFIG_FILE).write_text(dump_config(cfg), encoding="utf-8")


__all__ = ["CONFIG_FILE", "CampaignConfig", "ViewerEntry", "dump_config", "load_config", "slug_ok", "write_config"]
