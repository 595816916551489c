"""A kingdom kept by another tool, brought in as a new campaign, and written back (issue 32).

``import_kingdom`` reads a JSON document another kingdom tool exported (pf2e-kingmaker-tools, the PF2e system's
party kingdom, the PF1 kingdom sheet: whichever ruleset's ``foreign_formats`` recognises it), and creates a
campaign of that ruleset whose first batch after its configuration records the imported kingdom as a fact.
Homebrew the source holds becomes the campaign's data files; every field kingdomlog cannot hold is returned as
the import's report (and kept in the import event).

Like the log import (``exchange``), the campaign is built in a hidden folder beside the target and moved into
place only once it is complete and verifies: a refused document or a failure half way leaves nothing behind.

``export_kingdom`` writes a campaign's state back in the first format its ruleset can write.
"""

from __future__ import annotations

import json
import shlex
import shutil
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import tomli_w

from kingdomlog.app.campaign import Campaign
from kingdomlog.app.exchange import move_into_place
from kingdomlog.core.errors import InputError, StoreError
from kingdomlog.core.fold import last_live_turn
from kingdomlog.core.foreign import (
    SECRET_TITLE,
    Carried,
    ForeignFormat,
    ForeignKingdom,
    ImportedKingdom,
    Unmapped,
    read_secret,
)
from kingdomlog.core.ruleset import Ruleset, all_rulesets
from kingdomlog.store.config import slug_ok
from kingdomlog.store.log import describe_os_error


@dataclass(frozen=True)
class KingdomImport:
    """What ``import_kingdom`` made: the campaign, the format it read, the data files written, the report."""

    campaign: Campaign
    format: ForeignFormat
    version: str
    data_files: tuple[str, ...]
    unmapped: tuple[Unmapped, ...]
    unnamed: tuple[tuple[str, str], ...] = ()
    """The settlements and leaders the export held only the Foundry ids of and no name was given for: (the id to
    name it by, the placeholder a page shows until then)."""

    def as_dict(self) -> dict[str, Any]:
        return {"campaign": self.campaign.id, "folder": str(self.campaign.folder),
                "ruleset": self.campaign.config.ruleset, "format": self.format.id, "format_title": self.format.title,
                "schema": self.version, "data_files": list(self.data_files),
                "unmapped": [u.as_dict() for u in self.unmapped],
                "unnamed": [{"id": i, "shown_as": shown} for i, shown in self.unnamed],
                "name_them": self.name_command()}

    def name_command(self) -> str:
        """The command line that names what is still unnamed (empty when nothing is)."""
        if not self.unnamed:
            return ""
        return f"kingdomlog name {shlex.quote(str(self.campaign.folder))} " + " ".join(
            shlex.quote(f"{i}=NAME") for i, _ in self.unnamed)


MAX_DEPTH = 64
"""How deep a kingdom export's JSON may nest (the deepest of the formats read nests about a dozen levels)."""


def parse_document(text: str, source: str) -> Any:
    """The JSON document of a kingdom export; ``InputError`` naming the line and column when it does not parse,
    or the field that nests deeper than ``MAX_DEPTH``. A byte-order mark (an editor's, on a hand-edited export)
    is skipped."""
    try:
        doc = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not JSON ({exc.msg}: line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise InputError(f"{source}: not a kingdom export: its JSON nests deeper than {MAX_DEPTH} levels") from None
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"{source}: field {path} nests deeper than {MAX_DEPTH} levels; not a kingdom export")
        if isinstance(value, dict):
            stack += [(v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return doc


def recognise(doc: Any, source: str, rulesets: Sequence[Ruleset] | None = None) -> tuple[Ruleset, ForeignFormat]:
    """The ruleset and format that read ``doc``; ``InputError`` naming the fields looked for when none does."""
    known: list[str] = []
    for rs in rulesets if rulesets is not None else all_rulesets():
        for fmt in rs.foreign_formats():
            if fmt.detect(doc):
                return rs, fmt
            known.append(f"{fmt.marker} ({fmt.title})")
    raise InputError(f"{source}: not a kingdom export kingdomlog reads; looked for "
                     + ("; ".join(known) if known else "nothing: no ruleset reads other tools' kingdoms"))


def read_kingdom(text: str, source: str) -> tuple[Ruleset, ForeignFormat, ForeignKingdom]:
    """Parse, recognise and read an export; every refusal is one ``InputError`` line starting with ``source``."""
    doc = parse_document(text, source)
    rs, fmt = recognise(doc, source)
    try:
        return rs, fmt, fmt.read(doc)
    except InputError as exc:
        raise InputError(f"{source}: {fmt.title}: {exc}") from None


def import_kingdom(text: str, folder: str | Path, *, source: str = "import", name: str | None = None,
                   recorded_at: datetime | None = None, names: Mapping[str, str] | None = None) -> KingdomImport:
    """Create the campaign folder ``folder`` from the kingdom export ``text`` (see the module docstring).

    The campaign's id is the folder's name; ``name`` (default: the kingdom's) its display name; ``names``
    (``{id: name}``) names the settlements and leaders the export holds only Foundry ids of. Raises
    ``InputError`` for a document that is malformed or no ruleset reads (naming the field) and ``StoreError``
    when the folder is not new and empty or the file system refuses; nothing is left behind then.
    """
    source = "standard input" if source in ("-", "") else source
    rs, fmt, kingdom = read_kingdom(text, source)
    if names:
        if fmt.name is None:
            raise InputError(f"{source}: a {fmt.title} export names its settlements and leaders itself; --name"
                             f" {next(iter(names))}=… has nothing to name")
        kingdom = fmt.name(kingdom, names)
    target = Path(folder)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise StoreError(f"{target}: folder is not empty; import into a new folder")
    if not slug_ok(target.name):
        raise InputError(f"campaign id {target.name!r} must be lower case letters, digits, - or _, starting with a"
                         " letter (name the folder so)")
    tmp = target.parent / f".{target.name}.import-{uuid.uuid4().hex[:12]}"
    label = source if source == "standard input" else Path(source).name
    events = [_with_file(d, label) for d in kingdom.events]
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{target}: cannot import here: {describe_os_error(exc)}") from None
        camp = Campaign.create(tmp, rs.id, name=name or kingdom.name, options=kingdom.options,
                               campaign_id=target.name, recorded_at=recorded_at)
        files = _write_data(tmp, kingdom.homebrew)
        camp = Campaign.open(tmp)
        camp.append(events, expect_seq=camp.head_seq)
        rep = camp.verify()
        if not rep.ok:
            raise StoreError(f"{source}: the imported campaign does not verify ({rep.problems[0]}); nothing was"
                             " imported")
        move_into_place(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    camp = Campaign.open(target)
    left = tuple(fmt.unnamed(camp.state())) if fmt.unnamed is not None else ()
    return KingdomImport(camp, fmt, kingdom.version, files, kingdom.unmapped, left)


def read_names(text: str, source: str) -> dict[str, str]:
    """A ``--names`` file: one JSON object ``{id: name}``; ``InputError`` naming the file and the entry."""
    doc = parse_document(text, source)
    if not isinstance(doc, dict):
        raise InputError(f"{source}: must be a JSON object {{id: name}}, got {type(doc).__name__}")
    for key, value in doc.items():
        if not isinstance(value, str):
            raise InputError(f"{source}: the name for {key} must be text, got {value!r}")
    return dict(doc)


def parse_name(arg: str, flag: str = "--name ") -> tuple[str, str]:
    """``ID=NAME`` (one ``--name``) as (id, name); ``InputError`` for one without an id or a '='."""
    ident, sep, name = arg.partition("=")
    if not sep or not ident.strip():
        raise InputError(f"{flag}{arg!r}: give ID=NAME (a settlement's scene id or a leader's actor id, '=', the"
                         " name)")
    return ident.strip(), name


def unnamed_in(ruleset: Ruleset, state: Any) -> list[tuple[str, str]]:
    """The settlements and leaders of ``state`` still without a name, as (the id to name them by, the placeholder a
    page shows): empty for a ruleset that names nothing this way."""
    fmt = next((f for f in ruleset.foreign_formats() if f.naming is not None and f.unnamed is not None), None)
    return list(fmt.unnamed(state)) if fmt is not None and fmt.unnamed is not None else []


def naming_refused(ruleset: Ruleset, state: Any, names: Mapping[str, str]) -> str | None:
    """Why ``names`` (``{id: name}``) would be refused in ``state``, as ``name_in_campaign`` would say it, or None:
    nothing is written."""
    fmt = next((f for f in ruleset.foreign_formats() if f.naming is not None), None)
    if fmt is None or fmt.naming is None:
        return f"a {ruleset.name} campaign has nothing kingdomlog names this way"
    try:
        fmt.naming(state, names)
    except InputError as exc:
        return str(exc)
    return None


def name_in_campaign(camp: Campaign, names: Mapping[str, str]) -> list[tuple[str, str]]:
    """Record the GM's names (``{id: name}``) for the campaign's unnamed settlements and leaders as one batch
    (``pf2e.named``: a fact, folded by replay); returns what is still unnamed. ``InputError`` naming the id the
    state does not hold or the name refused; nothing is written then."""
    fmt = next((f for f in camp.ruleset.foreign_formats() if f.naming is not None), None)
    if fmt is None or fmt.naming is None:
        raise InputError(f"{camp.id}: a {camp.ruleset.name} campaign has nothing kingdomlog names this way")
    if not names:
        raise InputError(f"{camp.id}: give at least one ID=NAME")
    events = camp.events()
    last = last_live_turn(events)
    drafts = [d.at_turn(0 if last is None else last) for d in fmt.naming(camp.state(), names)]
    camp.append(drafts, expect_seq=camp.head_seq)
    return list(fmt.unnamed(camp.state())) if fmt.unnamed is not None else []


def _with_file(draft: Any, label: str) -> Any:
    """The import event names the file it came from (its name only, never a path)."""
    payload = draft.payload
    if "file" in type(payload).model_fields and not getattr(payload, "file", ""):
        from dataclasses import replace

        return replace(draft, payload=payload.model_copy(update={"file": label[:500]}))
    return draft


def _write_data(folder: Path, homebrew: dict[str, Any]) -> tuple[str, ...]:
    """The homebrew documents as ``data/<stem>.toml`` (how a campaign's homebrew is loaded)."""
    if not homebrew:
        return ()
    out = []
    data = folder / "data"
    data.mkdir(exist_ok=True)
    for stem, doc in sorted(homebrew.items()):
        path = data / f"{stem}.toml"
        path.write_text("# Homebrew brought in by kingdomlog import-kingdom (issue 32).\n" + tomli_w.dumps(doc),
                        encoding="utf-8")
        out.append(f"data/{path.name}")
    return tuple(out)


def export_kingdom(camp: Campaign, fmt: str | None = None) -> tuple[ForeignFormat, Any]:
    """The campaign's current state (the GM's) as a document of ``fmt`` (default: the first format its ruleset
    writes); ``InputError`` when the ruleset writes none, or not that one."""
    rs = camp.ruleset
    writable = [f for f in rs.foreign_formats() if f.write is not None]
    if fmt is not None:
        writable = [f for f in writable if f.id == fmt]
    if not writable:
        which = f" as {fmt}" if fmt else ""
        names = ", ".join(f.id for f in rs.foreign_formats() if f.write is not None) or "none"
        raise InputError(f"{camp.id}: a {rs.name} campaign cannot be exported{which} (formats written: {names})")
    chosen = writable[0]
    assert chosen.write is not None
    try:
        return chosen, chosen.write(camp.state(), carried(camp))
    except InputError as exc:
        raise InputError(f"{camp.id}: {exc}") from None


def carried(camp: Campaign) -> Carried:
    """What the campaign's import (its last ``*.kingdom_imported`` event) found and the state does not hold: the
    event itself, and the source's notes it kept as journal entries in the same batch (parts joined in order)."""
    events = camp.events()
    imp = next((e for e in reversed(events) if isinstance(e.payload, ImportedKingdom)), None)
    if imp is None:
        return Carried()
    notes: dict[str, str] = {}
    secret: list[Unmapped] = []
    for e in events:
        if e.commit_id != imp.commit_id or e.type != "core.note_added" or e.visibility not in ("public", "gm"):
            continue
        text = str(getattr(e.payload, "text", ""))
        if getattr(e.payload, "title", "") == SECRET_TITLE and e.visibility == "gm":
            secret += read_secret(text)
        else:
            notes[e.visibility] = notes.get(e.visibility, "") + text
    assert isinstance(imp.payload, ImportedKingdom)
    return Carried(imported=imp.payload, notes=notes, secret=tuple(secret))
