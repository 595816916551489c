"""pf2e's ids in words (``Ruleset.name_of``): activities, events, structures, feats, roles, skills, what a flat check
is for, a modifier's selector.

Kept apart from the forms (``choices``) so that what names a figure (``kingdomlog state``, the panel) does not
load every form of the turn: this module needs the tables and ``state`` (its ``predicate_text``, which reads a
selector's compact form; the ruleset loads it anyway) alone.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from kingdomlog.rulesets.pf2e import tables as T
from kingdomlog.rulesets.pf2e.state import predicate_text

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


@functools.lru_cache(maxsize=4096)
def _title(table: str, tag: str) -> str | None:
    """The title of ``table``'s row ``tag``, or None. A row's name is a quoted TOML string in its data file, so a
    tag quoted nowhere in the file's text is no row of it: the table is parsed and validated (~35 ms for the four,
    most of ``kingdomlog state``'s naming of its figures) only when the tag may be one of its rows.

    Kept per (table, tag): the bundled files do not change while the process runs, and the search of a file's text
    for a tag cost the GM sheet's kingdom panel ~20 ms per drawing (1,500 look-ups, most of them the same ids)."""
    plain = re.fullmatch(r"[\w:.*-]+", tag) is not None  # written in the file as it is (nothing TOML escapes)
    if plain and f'"{tag}"' not in _data_text(table) and f"'{tag}'" not in _data_text(table):
        return None
    row = T.base_rows(table).get(tag)  # the bundled rows: ``name_of`` names no homebrew
    return row.title if row is not None and bool(getattr(row, "title", "")) else None


ROLLS = {"resource": "Resource Dice", "table": "the random kingdom event table",
         "table2": "the random kingdom event table, the second roll (Prognostication)"}
"""The rolls of a turn that are no check, by their key's last part (the others are named after their check)."""


_SAME = {"ability": "checks of the same ability", "skill": "checks with the same skill",
         "event": "checks to resolve the same event", "target": "for the same target", "activity": "the same activity",
         "category": "activities of the same kind"}
"""A clause whose value is a placeholder (``skill == {skill}``: the data's row before its activity fills it), said."""


def _clause_values(field: str, values: list[str]) -> str:
    """The values a clause of a selector picks among, by their names, joined with "or" ("Wall, Stone" said "Stone
    Wall" in a list, where its comma would read as the list's)."""
    if field in ("ability", "skill", "category"):
        named = [v.replace("_", " ").capitalize() for v in values]
    else:  # an activity, an event, a target (a structure, a Ruin, a commodity...): its title, else its id in words
        named = [name_of(v) or v.replace("_", " ").replace("-", " ").capitalize() for v in values]
    if len(named) == 1:
        return named[0]
    named = [re.sub(r"^([^,]+), ([^,]+)$", r"\2 \1", n) for n in named]
    return f"{', '.join(named[:-1])} or {named[-1]}"


def selector_words(selector: str) -> str | None:
    """What a modifier's ``selector`` (a predicate over a check, §2.2; or the data's compact form, which
    ``state.predicate_text`` translates) applies to, in words; None for a clause this does not know how to say.

    The one place a selector is said: the turn sheet's effect lines (``choices``) and ``name_of(kind=
    "field:selector")`` (a recorded modifier in the panel) both read it.

    >>> selector_words("ability in [culture, stability]"), selector_words("ability:economy")
    ('Culture or Stability checks', 'Economy checks')
    >>> selector_words("category == event and traits has dangerous"), selector_words("all"), selector_words("")
    ('dangerous event checks', 'every check', 'every check')
    >>> selector_words("event in [bandit-activity, sacrifices]"), selector_words("category == leadership")
    ('checks to resolve Bandit Activity or Sacrifices', 'Leadership activities')
    >>> selector_words("activity == send-diplomatic-envoy and target == {target}")
    'Send Diplomatic Envoy for the same target'
    >>> selector_words("skill:magic+activity:quell-unrest"), selector_words("warfare_activities")
    ('Magic checks for Quell Unrest', 'warfare activities')
    >>> selector_words("skill == {skill}"), selector_words("ability == loyalty or skill == magic")
    ('checks with the same skill', None)
    """
    text = predicate_text(selector).strip()
    if text == "true":
        return "every check"
    said: list[str] = []  # what the checks are: "Magic checks", "Leadership activities", "Quell Unrest"
    where: list[str] = []  # what narrows them, after: "for Quell Unrest", "for the same target", "in the settlement..."
    traits: list[str] = []
    clauses = sorted((c.strip() for c in text.split(" and ")), key=lambda c: c.startswith(("activity", "target")))
    fields = {c.split()[0] for c in clauses if c}
    for clause in clauses:
        m = re.fullmatch(r"(\w+)\s*(?:==|:)\s*(\{\w+\}|[\w-]+)", clause) or re.fullmatch(
            r"(\w+) in \[([^\]]*)\]", clause)
        trait = re.fullmatch(r"traits has ([\w-]+)", clause)
        built = re.fullmatch(r"(not )?settlement_structures has ([\w-]+)", clause)
        if trait:
            traits.append(trait.group(1).replace("-", " "))
        elif built:
            where.append(f"{'without' if built.group(1) else 'with'} a {_clause_values('structure', [built.group(2)])}")
        elif clause == "struck == true":
            where.append("in the settlement struck")
        elif clause == "warfare":
            said.append("warfare activities")
        elif m is None or m.group(1) not in _SAME:
            return None
        else:
            field, values = m.group(1), [v.strip() for v in m.group(2).split(",") if v.strip()]
            if not values:
                return None
            if any(v.startswith("{") for v in values):
                (where if field == "target" else said).append(_SAME[field])
            elif field == "category" and values == ["event"]:
                if "event" not in fields:  # "checks to resolve Feud" says it already
                    said.append("event checks")
            elif field in ("target", "activity") and (field == "target" or said):
                where.append(f"for {_clause_values(field, values)}")
            else:
                said.append({"ability": "{} checks", "skill": "{} checks", "category": "{} activities",
                             "event": "checks to resolve {}", "activity": "{}"}[field].format(
                    _clause_values(field, values)))
    if traits:
        adjectives = " and ".join(traits)
        if said and said[0].endswith((" checks", " activities")) and not said[0].startswith("checks "):
            said[0] = f"{adjectives} {said[0]}"
        elif said:
            where.append(f"(when {adjectives})")
        else:
            said.append(f"checks to resolve {adjectives} events")
    return " ".join([", ".join(said) or "checks", *where])


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
