"""pf2e's ids in words (``Ruleset.name_of``): activities, events, structures, feats, roles, skills, what a flat check
is for, a modifier's selector.

Kept apart from the forms (``choices``) so that what names a figure (``kingdomlog state``, the panel) does not
load every form of the turn: this module needs the tables alone.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from kingdomlog.rulesets.pf2e import tables as T

__all__ = ["PURPOSES", "ROLLS", "name_of", "selector_words"]

PURPOSES = {"hex_loss": "losing a hex (U2)", "unrest_reduction": "lowering Unrest (C1, no taxes)",
            "crop_failure": "crop failure", "failed_irrigation": "after a failed Irrigation",
            "ruin_penalty_reduction": "easing a Ruin's penalty", "pull-together": "Pull Together",
            "scheduled": "a scheduled event"}
"""What a flat check is for (its recorded ``purpose``, ``<what>[:<detail>]``), in words."""


@functools.cache
def _data_text(table: str) -> str:
    """The text of catalog table ``table``'s bundled data file (``tables.CATALOG_FILES``), unparsed."""
    return resources.files(T.PKG).joinpath(T.CATALOG_FILES[table][0]).read_text(encoding="utf-8")


def _title(table: str, tag: str) -> str | None:
    """The title of ``table``'s row ``tag``, or None. A row's name is a quoted TOML string in its data file, so a
    tag quoted nowhere in the file's text is no row of it: the table is parsed and validated (~35 ms for the four,
    most of ``kingdomlog state``'s naming of its figures) only when the tag may be one of its rows."""
    plain = re.fullmatch(r"[\w:.*-]+", tag) is not None  # written in the file as it is (nothing TOML escapes)
    if plain and f'"{tag}"' not in _data_text(table) and f"'{tag}'" not in _data_text(table):
        return None
    row = T.base_rows(table).get(tag)  # the bundled rows: ``name_of`` names no homebrew
    return row.title if row is not None and bool(getattr(row, "title", "")) else None


ROLLS = {"resource": "Resource Dice", "table": "the random kingdom event table",
         "table2": "the random kingdom event table, the second roll (Prognostication)"}
"""The rolls of a turn that are no check, by their key's last part (the others are named after their check)."""


_SELECTED = {"ability": "{} checks", "skill": "{} checks", "category": "{} activities", "event": "the event {}",
             "target": "on {}"}


def selector_words(selector: str) -> str | None:
    """What a modifier's ``selector`` (a predicate over a check, §2.2) applies to, in words; None for one not of
    the predicate's form.

    >>> selector_words("ability in [culture, stability]"), selector_words("ability:economy")
    ('Culture or Stability checks', 'Economy checks')
    >>> selector_words("category == event and traits has dangerous"), selector_words("all")
    ('event activities, dangerous ones', 'every check')
    >>> selector_words("event in [bandit-activity, sacrifices]")
    'the event Bandit Activity or Sacrifices'
    """
    if selector.strip() == "all":
        return "every check"
    said = []
    for clause in selector.split(" and "):
        m = re.fullmatch(r"\s*(\w+)\s*(?:==|:)\s*([\w-]+)\s*", clause) or re.fullmatch(
            r"\s*(\w+) in \[([^\]]*)\]\s*", clause)
        trait = re.fullmatch(r"\s*traits has ([\w-]+)\s*", clause)
        if trait:
            said.append(f"{trait.group(1).replace('-', ' ')} ones")
            continue
        if m is None or m.group(1) not in _SELECTED:
            return None
        field, values = m.group(1), [v.strip() for v in m.group(2).split(",") if v.strip()]
        named = [v if field == "category" else (name_of(v) or v.replace("_", " ").capitalize()) for v in values]
        said.append(_SELECTED[field].format(" or ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1
                                                       else named)))
    return ", ".join(said) or None


def name_of(id: str, kind: str = "") -> str | None:
    """pf2e's names of its ids in words (activities, events, structures, feats, roles, skills, what a flat check
    is for), or None for one it does not name.

    >>> name_of("natures-blessing"), name_of("ruler", "role"), name_of("pull-together:claim-hex", "check")
    ("Nature's Blessing", 'Ruler', 'Pull Together for Claim Hex')
    >>> name_of("crop_failure:A2", "check"), name_of("scheduled:squatters", "check")
    ('crop failure on A2', 'Squatters (a scheduled event)')
    >>> name_of("repair-reputation:crime"), name_of("repair-reputation:*")  # a cooldown's key (§2.10)
    ('Repair Reputation (crime)', 'Repair Reputation (every target)')

    A figure of the kingdom (``kind="figure"``: ``control_dc``, ``food_storage``) is none of these: pf2e leaves
    its heading to plain words, without reading the catalog (~50 ms of TOML that ``kingdomlog state`` need not
    pay to say "Control DC").

    >>> name_of("control_dc", "figure"), name_of("natures-blessing", "figure")
    (None, None)
    """
    if kind == "figure":
        return None
    if kind == "roll" and id.rpartition(".")[2] in ROLLS:
        return ROLLS[id.rpartition(".")[2]]
    if kind == "field:selector":  # a modifier's selector: what it applies to ("Culture or Stability checks")
        return selector_words(id)
    if kind == "field:kind" and id in ("pc", "npc"):  # a leader held by a player's character or not (§2.4)
        return "a PC" if id == "pc" else "an NPC"
    what, _, detail = id.partition(":")
    if kind == "check" or (detail and what in PURPOSES):
        said = PURPOSES.get(what)
        if said is None:
            return None
        if not detail:
            return said
        named = name_of(detail)
        if what == "pull-together":
            return f"{said} for {named or detail}"
        if what == "scheduled":
            return f"{named or detail} ({said})"
        return f"{said} on {detail}" if what == "crop_failure" else f"{detail}: {said}" \
            if what == "failed_irrigation" else f"{said} ({named or detail})"
    activity = _title("activities", what) if detail else None
    if activity is not None:  # a cooldown's key (§2.10): an activity blocked for one target, or for every one (*)
        return f"{activity} ({'every target' if detail == '*' else name_of(detail) or detail.replace('-', ' ')})"
    for table in ("activities", "events", "structures", "feats"):
        got = _title(table, id)
        if got:
            return got
    if id in T.ROLES or id in T.core().skills:
        return id.capitalize()
    return None
