"""Words for the turn sheet: names as words (``control_dc`` → ``Control DC``), and the states' summaries.

Shared by the form codec (``views.forms``), the step cards (``sheet.cards``) and the kingdom panel (``sheet.panel``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from kingdomlog.core.choices import FieldSpec, Option
from kingdomlog.core.errors import InputError
from kingdomlog.core.memo import ByIdentity
from kingdomlog.core.viewers import parse_visibility
from kingdomlog.dice.checks import CheckSpec

__all__ = ["ACRONYMS", "Namer", "answer_words", "check_name", "check_title", "dc_against", "figure_label",
           "figure_text", "figure_words", "headed", "help_words", "id_words", "ids_in", "is_hex_field", "kept_names",
           "lone_word", "namer", "names_in", "option_text", "refusal_words", "roll_name", "said_breakdowns", "scalar",
           "summary_of", "visibility_words", "words"]

ACRONYMS = {"rp": "RP", "xp": "XP", "dc": "DC", "bp": "BP", "gp": "gp", "hp": "HP", "id": "id", "pc": "PC",
            "npc": "NPC", "pcs": "PCs", "gm": "GM", "ac": "AC"}


def words(name: str) -> str:
    """A field or figure name as words: ``control_dc`` → ``Control DC``, ``rp`` → ``RP``.

    >>> words("control_dc"), words("rp"), words("resource_dice"), words("unrest"), words("pcs")
    ('Control DC', 'RP', 'Resource dice', 'Unrest', 'PCs')
    """
    parts = re.split(r"[_\s.]+", name.strip())
    out = [ACRONYMS.get(p.lower(), p) for p in parts if p]
    if not out:
        return name
    first = out[0]
    out[0] = first if first.isupper() or first in ACRONYMS.values() else first[:1].upper() + first[1:]
    return " ".join(out)


def figure_words(ruleset: Any, key: str) -> str:
    """A figure's name as a panel heads it: the ruleset's (``Ruleset.name_of(key, "figure")``: aikakirjat's
    ``session_no`` → ``Session``, ``armies_max`` → ``Armies (most allowed)``) where it has one, else ``words``.

    >>> from kingdomlog.core.ruleset import Ruleset
    >>> figure_words(Ruleset(), "growth_dc")
    'Growth DC'
    """
    from kingdomlog.core.ruleset import plain_words

    said = ruleset.name_of(key, "figure") if ruleset is not None else ""
    return said if said and said != plain_words(key) else words(key)


def figure_label(ruleset: Any, names: Mapping[str, str], key: str) -> str:
    """A figure's heading (``figure_words``), a record's own figure said with the record's name: signoria's
    ``fabian_power`` is "Duke Fabian's power" (it read "Fabian power"); ``names``: the state's records by id (a
    ``Namer``'s ``names``).

    >>> from kingdomlog.core.ruleset import Ruleset
    >>> figure_label(Ruleset(), {"fabian": "Duke Fabian"}, "fabian_power"), figure_label(Ruleset(), {}, "growth_dc")
    ("Duke Fabian's power", 'Growth DC')
    """
    said = figure_words(ruleset, key)
    head, _, rest = key.partition("_")
    if rest and head in names and said == words(key):
        return f"{names[head]}'s {words(rest).lower()}"
    return said


def scalar(value: Any) -> str:
    """A compact text for a value: JSON for containers, plain text otherwise (``views.html`` puts it in cells).

    >>> scalar(None), scalar(False), scalar(2.50), scalar([1, "a"])
    ('—', 'no', '2.5', '[1, "a"]')
    """
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, default=str, ensure_ascii=False, separators=(", ", ": "))
    return str(value)


def figure_text(value: Any, name: Callable[[str], str] | None = None) -> str:
    """A figure's value in words, as a panel's tile and ``kingdomlog state`` show it: a switch "yes"/"no", nothing
    "—", an id (or ids joined by commas) as ``name`` says it (a ``Namer``: a feat ``law_and_order`` → "Law and
    Order"), a lone word with its capital ("Winter"), a list by its items.

    >>> figure_text(True), figure_text(None), figure_text("between_years"), figure_text("d4"), figure_text(2.5)
    ('yes', '—', 'Between years', 'd4', '2.5')
    >>> figure_text("holy_sites,fame_infamy"), figure_text(["a_b", 3])
    ('holy sites, fame infamy', 'a b, 3')
    """
    from kingdomlog.core.ruleset import plain_words

    say = name or plain_words
    if value is None or isinstance(value, (bool, int, float)):
        return scalar(value)  # "—", "yes"/"no", a number
    if isinstance(value, (list, tuple)):
        return ", ".join(say(v) if isinstance(v, str) else figure_text(v, say) for v in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{words(str(k)).lower()} {figure_text(v, say)}" for k, v in value.items()) or "none"
    if isinstance(value, str) and re.fullmatch(r"[a-z0-9_,]+", value):
        said = ", ".join(say(x) for x in value.split(",") if x)
        return headed(said) if re.fullmatch(r"[a-z]+(?: [a-z]+)*", said) else said
    return str(value)


def headed(text: str) -> str:
    """A name heading what it names, with its capital; the rest as it is (``growth DC`` → ``Growth DC``).

    >>> headed("growth DC"), headed("bureaucracy")
    ('Growth DC', 'Bureaucracy')
    """
    return text[:1].upper() + text[1:]


_SUMMARIES: ByIdentity[Any, dict[str, Any]] = ByIdentity(limit=257)


def summary_of(ruleset: Any, state: Any) -> dict[str, Any]:
    """``ruleset.summary(state)``, remembered for the states of the latest drafts (states are never changed)."""
    return _SUMMARIES.get(state, lambda s: dict(ruleset.summary(s)))


# ---- options and fields in words (shared by the widgets and the hex picker) ----------------------------


def option_text(o: Option) -> str:
    """What a dropdown shows for ``o``: ``label — detail``; a disabled one ``✗ label — reason``.

    An option without a label shows its value in words (``collect-taxes`` → ``collect taxes``, ``rp`` → ``RP``); a
    lone word, or a label that only repeats its value, with its capital (``ambush`` → ``Ambush``: a person reads a
    word, not an identifier); the value a plan stores is ``o.value``, as it was.

    >>> option_text(Option("rp")), option_text(Option("collect-taxes")), option_text(Option("xp_award"))
    ('RP', 'collect taxes', 'XP award')
    >>> option_text(Option("ambush")), option_text(Option("low", "low")), option_text(Option("x", "x — y"))
    ('Ambush', 'Low', 'x — y')

    A value an enum keeps in capitals, without a label of its own, as a word (pf1's acting ruler ``CONSORT`` →
    ``Consort``, an effect's kind ``ATTRIBUTE`` → ``Attribute``; they read in capitals); a short one stays (``NG``).

    >>> option_text(Option("CONSORT")), option_text(Option("HOLY_SITE")), option_text(Option("NG"))
    ('Consort', 'Holy site', 'NG')
    """
    label = o.label or (o.value.replace("_", " ").capitalize()
                        if isinstance(o.value, str) and re.fullmatch(r"[A-Z][A-Z_]{3,}", o.value) else "")
    text = label or (" ".join(ACRONYMS.get(w, w) for w in str(o.value).replace("_", " ").replace("-", " ").split())
                       if isinstance(o.value, str) and o.value.strip() else str(o.value) if o.value != "" else
                       "(none)")
    text = lone_word(text, o.value, label)
    if o.disabled:
        return f"✗ {text} — {o.disabled}"
    return f"{text} — {o.detail}" if o.detail else text


def lone_word(text: str, value: Any, label: str = "") -> str:
    """An option's ``text`` as a dropdown shows it: a lone lower-case word that is no label of its own, or a label
    that only repeats its ``value``, with its capital (``pass`` → ``Pass``: a person reads a word, not an
    identifier); any other text as it is. Shared by the sheet's dropdowns (``option_text``) and the orders page's
    answers (a question's options: signoria's ``hire``/``pass``).

    >>> lone_word("pass", "pass", "pass"), lone_word("hire", "hire"), lone_word("open the granaries", "open", "x")
    ('Pass', 'Hire', 'open the granaries')
    >>> lone_word("low", "low", "low"), lone_word("ambush", "a", "ambush")
    ('Low', 'ambush')
    """
    if re.fullmatch(r"[a-z][a-z0-9]*", text) and (not label or label == value):
        return headed(text)
    return text


def answer_words(q: Any, value: Any) -> str:
    """An answer to the question ``q`` (a ``pbp.Posted``) in words, as every place that shows one says it (the
    orders page, ``kingdomlog answer``, the GM sheet): its option's label (``Posted.label_of``), a lone word with
    its capital as the sheet's dropdowns show one (``lone_word``: "Hire", "Pass"; they read "hire", "pass"), an
    option without a label by its value in words ("hire_troops" → "hire troops"); the value the answer stores is
    ``value``, as it was.
    """
    o = next((o for o in q.options if o.value == value), None)
    if o is not None and not o.label and isinstance(value, str) and value.strip():
        return option_text(Option(value))
    said: str = q.label_of(value)
    return lone_word(said, value, o.label) if o is not None else said


def is_hex_field(spec: FieldSpec) -> bool:
    """Whether ``spec`` picks hexes of the state: a select or multiselect whose ``Pick`` source ends in ``_hexes``.

    >>> is_hex_field(FieldSpec("hex", "Hex", "select", options=(), source="region_hexes"))
    True
    >>> is_hex_field(FieldSpec("leader", "Leader", "select", options=(), source="leaders"))
    False
    """
    return (spec.kind in ("select", "multiselect") and spec.options is not None
            and bool(spec.source) and str(spec.source).endswith("_hexes"))


# ---- what a check or a roll is for ------------------------------------------------------------------------


def help_words(text: str) -> str:
    """A help text in words: the ids a ruleset's description names (``hire_troops: units hired``, ``default: option
    event_table``) with their underscores as spaces.

    >>> help_words("war: units sent; hire_troops: units hired")
    'war: units sent; hire troops: units hired'
    """
    return _unsnake(text)


def _unsnake(text: str) -> str:
    """Ids inside a ruleset's label in words: ``the tax_collection table`` → ``the tax collection table``."""
    return re.sub(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b", lambda m: m.group(0).replace("_", " "), text)


def check_name(key: str, spec: CheckSpec) -> str:
    """What a check is for, in words: its label (an activity id and its target said as words), else its key's.

    >>> check_name("a1", CheckSpec("pf2e", label="claim-hex on A5")), check_name("k", CheckSpec("flat"))
    ('Claim hex on A5', 'K')
    """
    target = re.fullmatch(r"([a-z0-9]+(?:[-_][a-z0-9]+)+) (on \S+)", spec.label or "")  # an activity id, its target
    if spec.label and re.fullmatch(r"[a-z0-9_.-]+", spec.label):
        return words(spec.label.replace("-", "_"))
    if target:
        return f"{words(target.group(1).replace('-', '_'))} {target.group(2)}"
    return _unsnake(spec.label) if spec.label else words(key)


def dc_against(spec: CheckSpec) -> str:
    """`` vs DC 15`` for a d20 check; nothing for one read on a result table (its rows are the outcomes)."""
    return "" if spec.bands and spec.kind != "pf2e" else f" vs DC {spec.dc}"


def check_title(key: str, spec: CheckSpec, ruleset: Any = None) -> str:
    """``Trade check +9 vs DC 16`` (what the odds depend on, before the dice), as a card and a board's Next to roll
    title it; ``ruleset``: the sheet's, whose ``Ruleset.check_title`` titles the checks it words itself (signoria's
    battle pools, pf1's kingdom checks labelled with their roll key).

    >>> check_title("a1", CheckSpec("pf2e", modifier=3, dc=15, label="claim-hex on A5"))
    'Claim hex on A5: d20 +3 vs DC 15'
    >>> check_title("growth", CheckSpec("5e", modifier=-1, dc=20, label="agriculture vs DC 20"))
    'Agriculture: d20 -1 vs DC 20'
    """
    own = ruleset.check_title(key, spec) if ruleset is not None else None
    if own:
        return str(own)
    name = check_name(key, spec)
    name = name[:1].upper() + name[1:]  # a title ("Random kingdom event: DC 16 flat check")
    if spec.kind in ("pf2e", "d20", "5e", "flat"):  # a label logged with its DC says it once ("Agriculture vs DC 20")
        name = name.removesuffix(f" vs DC {spec.dc}")
    if spec.kind in ("pf2e", "d20", "5e"):
        mode = f" with {spec.mode}" if spec.mode != "normal" else ""
        return f"{name}: d20 {spec.modifier:+d}{dc_against(spec)}{mode}"
    if spec.kind == "flat":
        return f"{name}: DC {spec.dc} flat check"
    if spec.kind == "total":  # an initiative: its total meets the other side's
        return f"{name}: d20 {spec.modifier:+d} against the other side's total"
    if spec.kind == "2d6":
        mod = f" {spec.modifier:+d}" if spec.modifier else ""
        return f"{name}: 2d6{mod}" + ("" if spec.bands else f" vs {spec.dc}")
    if spec.pool is not None:
        return f"{name}: {spec.pool.count} dice" + (f", {spec.dc}+ successes needed" if spec.dc else "")
    return name


def roll_name(key: str, checks: Mapping[str, CheckSpec], name_of: Callable[[str, str], str] | None = None) -> str:
    """What a roll that is no check rolls, in words: the dice of a check's outcome (keyed under the check's key:
    ``a1.e1.o0.e1``) are that check's ("Quell unrest: outcome dice"); any other roll is named by the ruleset
    (``Ruleset.name_of(key, "roll")``), else its key in words.

    >>> roll_name("a1.e1.o0.e1", {"a1": CheckSpec("pf2e", label="quell-unrest")})
    'Quell unrest: outcome dice'
    >>> roll_name("cmd.2", {}, lambda k, kind: "reroll 1"), roll_name("ruin", {})
    ('Reroll 1', 'Ruin')

    A die of the same act as a check, not under it, is that act's: ``a1.unrest`` beside the check ``a1.check``.

    >>> roll_name("a1.tyranny.crime", {"a1.check": CheckSpec("5e", label="Bureaucracy on the tax table")})
    'Bureaucracy on the tax table: tyranny crime'
    """
    from kingdomlog.core.ruleset import plain_words

    named = name_of(key, "roll") if name_of is not None else ""
    if named and named != plain_words(key):  # the ruleset's own name for it (pf2e's random event table)
        return named[:1].upper() + named[1:] if named == named.lower() else named
    parts = key.split(".")
    for i in range(len(parts) - 1, 0, -1):
        spec = checks.get(".".join(parts[:i]))
        if spec is not None:
            return f"{check_name('.'.join(parts[:i]), spec)}: outcome dice"
    for i in range(len(parts) - 1, 0, -1):  # a die of the same act as a check ("a1.unrest" beside "a1.check")
        head = ".".join(parts[:i]) + "."
        sibling = next((k for k in checks if k.startswith(head)), None)
        if sibling is not None:
            return f"{check_name(sibling, checks[sibling])}: {words('_'.join(parts[i:])).lower()}"
    if name_of is not None:
        named = name_of(key, "roll")
        if named:
            return named[:1].upper() + named[1:] if named == named.lower() else named
    return words(key)


def dice_label(key: str, notation: str, checks: Mapping[str, CheckSpec], ruleset: Any = None) -> str:
    """What a roll rolls and its dice, in words, as a box for its typed faces is labelled: a check by its name
    (``Ruleset.check_title`` when the ruleset titles it itself: a battle's pool), any other roll as ``roll_name``
    names it; never its key.

    >>> dice_label("a1", "1d20", {"a1": CheckSpec("pf2e", label="Quell Unrest, Ruler")})
    'Quell Unrest, Ruler: d20'
    >>> dice_label("a1.e1.o0.e1", "1d4", {"a1": CheckSpec("pf2e", label="Quell Unrest, Ruler")})
    'Quell Unrest, Ruler: outcome dice, 1d4'
    """
    die = notation[1:] if re.fullmatch(r"1d\d+", notation) else notation
    spec = checks.get(key)
    if spec is None:
        name = roll_name(key, checks, ruleset.name_of if ruleset is not None else None)
        name = name[:1].upper() + name[1:]
        return f"{name}{', ' if ': ' in name else ': '}{notation}"  # "Quell Unrest: outcome dice, 1d4"
    own = ruleset.check_title(key, spec) if ruleset is not None else None
    said = str(own) if own else f"{check_name(key, spec)}: {die}"
    return said[:1].upper() + said[1:]


_ID = re.compile(r"[a-z0-9]+(?:[_.:-][a-z0-9]+)+")


def id_words(value: Any, name_of: Callable[[str, str], str] | None = None) -> Any:
    """A value shown in a sentence: an id (``between_years``, ``natures-blessing``) by the ruleset's name for it
    (``Ruleset.name_of``, else its separators as spaces); any other value as it is.

    >>> id_words("between_years"), id_words("Greenbelt March"), id_words(3)
    ('between years', 'Greenbelt March', 3)
    """
    if not isinstance(value, str) or not _ID.fullmatch(value):
        return value
    if name_of is not None:
        return name_of(value, "")
    return re.sub(r"\s*:\s*", ": ", re.sub(r"[_\-.]+", " ", value)).strip()


def visibility_words(text: str, name_of: Callable[[str, str], str] | None = None) -> str:
    """Who may read an event, in words: ``gm`` → ``the GM only``, ``faction:fabian,faction:marburg`` → ``seen by
    Duke Fabian and Marburg`` (each player by ``name_of``, else their id with separators as spaces).

    >>> visibility_words("gm"), visibility_words("public"), visibility_words("faction:a_b,faction:c")
    ('the GM only', 'everyone', 'seen by a b and c')
    """
    try:
        vis = parse_visibility(text)
    except InputError:
        return "who may see it: unreadable"
    if vis.is_public:
        return "everyone"
    if vis.is_gm_only:
        return "the GM only"
    who = [str(id_words(p, name_of)) if name_of is None else name_of(p, "player") for p in vis.players]
    return "seen by " + (" and ".join(who) if len(who) <= 2 else ", ".join(who[:-1]) + " and " + who[-1])


_TAG = re.compile(r"^\[[^\]]+\]\s*")
_PATH = re.compile(r"^(?:step '[^']*':\s*)?(choice [\w.\[\]]+:\s*)?")
_QUOTED_ID = re.compile(r"'?\b([a-z0-9]+(?:[_-][a-z0-9]+)+)\b'?")
_LISTED = re.compile(r"((?:allowed|lists|feats|skills|armies|options)\s*:\s*)([^;()]+)")


def refusal_words(message: str, name_of: Callable[[str, str], str] | None = None) -> str:
    """A rule's refusal as a person reads it: without the step's tag or key, the rule as its section, no ``None``,
    the ids it quotes or lists said by the ruleset's names for them (``Ruleset.name_of``, else their separators as
    spaces); the choice it is about kept as it is (a page places the refusal at that field by it).

    A one-word id in quotes (``'cesare'``) is said by its name when ``name_of`` knows one (a ``Namer`` of the
    state: *Cesare*, *Duke Fabian*); one nobody names (a typo, a word the person typed) keeps its quotes. The
    ids listed after ``allowed:`` are said by their names too.

    >>> refusal_words("step 'actions': choice actions[0].action: 'attract_population' is not an action;"
    ...               " allowed: embassy, reduce_corruption")
    'choice actions[0].action: attract population is not an action; allowed: embassy, reduce corruption'
    >>> refusal_words("[orders_fabian] order O1: war needs an enemy province as target, got None (rule: §5.1)")
    'order O1: war needs an enemy province as target, none given (§5.1)'
    >>> refusal_words("step 'orders_fabian': choice orders[0].units: hire_troops needs units")
    'choice orders[0].units: hire troops needs units'
    >>> refusal_words("a PC cannot perform Attract Population (rule: A75)")
    'a PC cannot perform Attract Population (A75)'
    >>> names = {"cesare": "Cesare", "fabian.leader": "Duke Fabian"}
    >>> refusal_words("choice x[0]: 'cesare' is not here; allowed: fabian.leader, cesare",
    ...               lambda i, k: names.get(i, i))
    'choice x[0]: Cesare is not here; allowed: Duke Fabian, Cesare'
    >>> refusal_words("choice x: 'cesre' is not a character", lambda i, k: names.get(i, i))
    "choice x: 'cesre' is not a character"

    With a ``Namer`` the records of its state are named where a refusal writes their ids bare too (*of Duke
    Fabian*, not *of fabian*).
    """
    text = _TAG.sub("", message.strip())
    m = _PATH.match(text)
    head, rest = (m.group(1) or "") if m else "", text[m.end():] if m else text
    rest = re.sub(r"\(rule: ([^)]+)\)", r"(\1)", rest)
    rest = re.sub(r"\bNone\b", "none", re.sub(r",? got None\b", ", none given", rest))
    if name_of is not None:
        # a Namer names a record by its name; written bare, only a record that holds its own id is (never a field
        # keyed like an id: an army's "commander")
        records: Mapping[str, str] = getattr(name_of, "ids", {})

        def named(word: str) -> str | None:
            said = name_of(word, "")
            return said if said and said not in (word, plain_id(word)) else None

        rest = re.sub(r"(?<!choice )'([a-z][a-z0-9]*(?:\.[a-z0-9]+)*)'", lambda x: named(x.group(1)) or x.group(0),
                      rest)  # not a field's name ("unknown choice 'x'")
        rest = _LISTED.sub(lambda x: x.group(1) + ", ".join(
            named(t.strip()) or t.strip() if ONE_ID.fullmatch(t.strip()) else t.strip()
            for t in x.group(2).split(",")) + (" " if x.group(2).endswith(" ") else ""), rest)
        if records:  # a record's id written bare ("fabian's action")
            rest = re.sub(r"(?<![\w'.:-])[a-z][a-z0-9]*(?![\w.:-]*\w)",
                          lambda x: records.get(x.group(0), x.group(0)), rest)
    return head + _QUOTED_ID.sub(lambda x: str(id_words(x.group(1), name_of)), rest)


def plain_id(word: str) -> str:
    """An id with its separators as spaces (what a ruleset says for an id it has no name for).

    >>> plain_id("fabian.leader")
    'fabian leader'
    """
    return re.sub(r"[_\-.]+", " ", word).strip()


# ---- ids in words for one state ----------------------------------------------------------------------------

ID_TOKEN = re.compile(r"\b[a-z][a-z0-9]*(?:[_.:-][a-z0-9]+)+\b")
"""An id inside a text: ``hire_troops``, ``b4.1``, ``province:fabia``, ``natures-blessing``."""
ONE_ID = re.compile(r"[a-z][a-z0-9]*(?:[_.:-][a-z0-9]+)*")
"""A value that is an id as a whole (a single lowercase word too: ``ruler``, ``fabian``)."""
ORDER_KEY = re.compile(r"\b[a-z][a-z0-9]*\.[A-Z]+\d+\b")
"""A record's id and a key of its own in capitals inside a text: signoria's order ``fabian.S2``."""


def names_in(dump: Any, out: dict[str, str] | None = None) -> dict[str, str]:
    """Every record of a state's dump that has both an ``id`` and a ``name``, as ``{id: name}`` (a faction, a
    statesman, a settlement, an army), found at any depth; a record keyed by its id counts too.

    >>> names_in({"factions": {"fabian": {"name": "Duke Fabian"}}, "units": [{"id": "m", "name": "Militia"}]})
    {'fabian': 'Duke Fabian', 'm': 'Militia'}
    """
    found: dict[str, str] = {} if out is None else out
    if isinstance(dump, Mapping):
        for k, v in dump.items():
            if isinstance(v, Mapping):
                name = v.get("name")
                rid = v.get("id", k)
                if isinstance(name, str) and name and isinstance(rid, str) and rid and rid not in found:
                    found[rid] = name
            names_in(v, found)
        rid, name = dump.get("id"), dump.get("name")
        if isinstance(rid, str) and isinstance(name, str) and rid and name and rid not in found:
            found[rid] = name
    elif isinstance(dump, (list, tuple)):
        for v in dump:
            names_in(v, found)
    return found


def kept_names(dump: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """The records each collection of a state's dump keeps with a ``name``, as ``{collection: {id: name}}`` (a
    collection: a field holding records keyed by id, or a list of records with their ids).

    >>> kept_names({"provinces": {"marburg": {"name": "Marburg"}}, "cities": [{"id": "C1", "name": "Tatzlford"}],
    ...             "turn": 3})
    {'provinces': {'marburg': 'Marburg'}, 'cities': {'C1': 'Tatzlford'}}
    """
    out: dict[str, dict[str, str]] = {}
    for field, value in dump.items():
        pairs = value.items() if isinstance(value, Mapping) else (
            ((r.get("id") if isinstance(r, Mapping) else None, r) for r in value) if isinstance(value, list) else ())
        found = {str(r.get("id", k)): r["name"] for k, r in pairs
                 if isinstance(r, Mapping) and isinstance(r.get("name"), str) and r["name"] and k is not None}
        if found:
            out[field] = found
    return out


def ids_in(dump: Any, out: dict[str, str] | None = None) -> dict[str, str]:
    """Every record of a state's dump that holds its own ``id`` and a ``name``, as ``{id: name}`` (a character, a
    faction, a neighbour); unlike ``names_in``, never a record only keyed like an id (an army's ``commander``).

    >>> ids_in({"armies": {"A2": {"commander": {"name": "Amiri"}}}, "chars": {"cesare": {"id": "cesare",
    ...        "name": "Cesare"}}})
    {'cesare': 'Cesare'}
    """
    found: dict[str, str] = {} if out is None else out
    if isinstance(dump, Mapping):
        rid, name = dump.get("id"), dump.get("name")
        if isinstance(rid, str) and isinstance(name, str) and rid and name:
            found.setdefault(rid, name)
        for v in dump.values():
            ids_in(v, found)
    elif isinstance(dump, (list, tuple)):
        for v in dump:
            ids_in(v, found)
    return found


class Namer:
    """The ids a person sees, in words, for one state: a record's id by its name in the state (``fabian`` →
    ``Duke Fabian``), any other by the ruleset's vocabulary (``Ruleset.name_of``: ``ruler`` → ``Ruler``,
    ``b4.1`` → ``battle 1 of month 4``)."""

    def __init__(self, ruleset: Any, state: Any) -> None:
        dump = state.model_dump(mode="json") if hasattr(state, "model_dump") else {}
        self.names = {**ruleset.record_names(state), **names_in(dump)}
        self.ids = ids_in(dump)
        """The records that hold their own id (what a refusal names where it writes an id bare)."""
        self.kept = kept_names(dump)
        """The names of each collection's records, by the collection (an id two collections share is said by the
        one a field names: signoria's province ``marburg`` is "Marburg", its faction "Doge of Marburg")."""
        self.name_of: Callable[[str, str], str] = ruleset.name_of
        self.said: Mapping[tuple[str, str, str], str] = ruleset.field_words(state) if hasattr(state, "model_dump") \
            else {}
        """The values of records' fields the state says in words (``Ruleset.field_words``), by (collection, record
        id, field)."""

    def __call__(self, id: str, kind: str = "") -> str:
        """``id`` in words (an id the state names by its record's name, else the ruleset's name)."""
        return self.names.get(id) or self.name_of(id, kind)

    def value(self, text: str) -> str:
        """A value shown in a table: an id as a whole in words, any other text with the ids in it in words."""
        if text in self.names:  # an id the state names, whatever its form (pf1's city ``C1``: "Tatzlford")
            return str(self.names[text])
        return self(text) if ONE_ID.fullmatch(text) else self.text(text)

    def field(self, field: str, text: str) -> str:
        """A value of a record's ``field`` shown in a table: as the ruleset says that field's value
        (``Ruleset.name_of(text, "field:" + field)``: an institution's founder ``pc`` → ``a PC``, a province's owner
        ``players`` → ``the players' kingdom``) where it says it otherwise than as any value, else as ``value``.
        A record's own name comes first (a PC whose id is the value is said by name), the record of the collection
        ``field`` names first of all (a battle's ``province`` ``marburg`` is the province "Marburg", not the faction
        "Doge of Marburg"; pf1's building's ``city`` ``C1`` is "Tatzlford")."""
        kept = next((self.kept[c] for c in (field, f"{field}s", f"{field}es", f"{field[:-1]}ies") if c in self.kept),
                    None)
        if kept is not None and text in kept:
            return kept[text]
        if ONE_ID.fullmatch(text) and text not in self.names:
            said = self.name_of(text, f"field:{field}")
            if said and said not in (self.name_of(text, ""), plain_id(text)):  # what a ruleset says of it alone
                return said
        elif not ONE_ID.fullmatch(text):  # a field's rule kept as text (pf2e's selector "ability in [culture, …]")
            said = self.name_of(text, f"field:{field}")
            if said and said not in (text, plain_id(text)):
                return self.text(said)  # the ids the ruleset's words keep, by their names: "Duke Fabian low on …"
        return self.value(text)

    def text(self, text: str) -> str:
        """A text with each id inside it in words: ``o1 (hire_troops)`` → ``o1 (hire troops)``, ``fabian command
        roll`` → ``Duke Fabian command roll``."""
        out = ID_TOKEN.sub(lambda m: self(m.group(0)), text)
        out = ORDER_KEY.sub(lambda m: self._keyed(m.group(0)), out)
        return re.sub(r"\b[a-z][a-z0-9]*\b", lambda m: self.names.get(m.group(0), m.group(0)), out)


    def _keyed(self, key: str) -> str:
        """A record's id and a key of its own (signoria's ``fabian.S2``, a faction's order) as the ruleset says it,
        kept as written where it does not."""
        said = self.name_of(key, "")
        return said if said and said != plain_id(key) else key


def said_breakdowns(ruleset: Any, state: Any, items: Any) -> list[Any]:
    """``items`` (``Breakdown``s of ``state``) with the ids in their names, terms and notes in words, as the GM
    sheet's cards say them (``Namer.text``: "fabian treaties with gusso" → "Duke Fabian treaties with Signor
    Gusso"): for a player's page and ``kingdomlog state``."""
    import dataclasses

    say = namer(ruleset, state).text
    return [dataclasses.replace(b, name=say(b.name), note=say(b.note) if b.note else b.note,
                                terms=tuple(dataclasses.replace(t, label=say(t.label)) for t in b.terms))
            for b in items]


_NAMERS: ByIdentity[Any, Namer] = ByIdentity(limit=8)


def namer(ruleset: Any, state: Any) -> Namer:
    """The ``Namer`` of ``state`` (remembered for the latest states; states are never changed)."""
    return _NAMERS.get(state, lambda s: Namer(ruleset, s))
