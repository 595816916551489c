"""The urban-grid picker of the turn sheet: an entry's ``block`` and ``lots`` chosen on its settlement's grid.

A ruleset whose settlements carry an urban grid (a state record with ``blocks``: per block, what stands
on each lot, ``""`` when empty; pf2e §4.9.2) asks for a building's place with two plain fields, an
integer ``block`` and a list of integer ``lots``. On the sheet they become pickers read from the grid
of the entry's settlement: the block a select of the settlement's blocks (each with its empty lots; a
full block stays visible but cannot be picked) and a new block next to them, the lots a multiselect of
the chosen block's lots (what stands on a built one says why it cannot be picked). The values stay
the numbers the fields take, so the plan is the same as typed; the rules still judge the choice (a new
block before every lot is filled, lots that are not contiguous).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from kingdomlog.core.choices import FieldSpec, Option


def grids(dump: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every record of a state dump that carries an urban grid (``blocks``: a list of lists of lots)."""
    out: list[Mapping[str, Any]] = []
    for value in dump.values():
        rows = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
        out += [r for r in rows if isinstance(r, Mapping) and isinstance(r.get("blocks"), list)
                and all(isinstance(b, list) for b in r["blocks"])]
    return out


def settlement_grid(records: Sequence[Mapping[str, Any]], given: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The grid of the entry's ``settlement`` (by id or name), else the first (the capital); None without grids."""
    want = given.get("settlement")
    return next((r for r in records if want is not None and want in (r.get("id"), r.get("name"))),
                records[0] if records else None)


def _is_grid_pair(fields: Sequence[FieldSpec]) -> tuple[FieldSpec, FieldSpec] | None:
    by = {f.name: f for f in fields}
    block, lots = by.get("block"), by.get("lots")
    if block is None or lots is None or block.kind != "int" or lots.kind != "list" or lots.item_kind != "int":
        return None
    return block, lots


def block_options(blocks: Sequence[Sequence[Any]]) -> tuple[Option, ...]:
    """``block N`` with its empty lots (a full block disabled), then the new block next to them."""
    out = []
    for i, lots in enumerate(blocks):
        empty = sum(1 for lot in lots if not lot)
        built = ", ".join(sorted({str(lot) for lot in lots if lot}))
        detail = f"{empty} empty lot{'s' if empty != 1 else ''}" + (f"; {built}" if built else "")
        out.append(Option(i, f"block {i}", detail, "" if empty else "no empty lot"))
    out.append(Option(len(blocks), f"block {len(blocks)}", "a new block (once every lot is built)"))
    return tuple(out)


def lot_options(blocks: Sequence[Sequence[Any]], block: int, chosen: Sequence[Any]) -> tuple[Option, ...]:
    """The lots of ``block``: empty ones can be picked, a built one says what stands on it."""
    lots: Sequence[Any] = blocks[block] if 0 <= block < len(blocks) else ("",) * 4
    picked = set(chosen)
    return tuple(Option(j, f"lot {j}", "empty" if not lot else str(lot),
                        "" if not lot or j in picked else f"{lot} stands here") for j, lot in enumerate(lots))


def grid_fields(fields: tuple[FieldSpec, ...], given: Mapping[str, Any],
                records: Sequence[Mapping[str, Any]]) -> tuple[FieldSpec, ...]:
    """``fields`` of one entry with ``block``/``lots`` turned into pickers on the settlement's grid (else as is)."""
    pair = _is_grid_pair(fields)
    rec = settlement_grid(records, given) if pair is not None else None
    if pair is None or rec is None:
        return fields
    block_spec, lots_spec = pair
    blocks = rec["blocks"]
    name = rec.get("name") or rec.get("id") or "the settlement"
    # the help stays the ruleset's (the sheet shows a field whose help names the entry's kind: Build Structure)
    new_block = replace(block_spec, kind="select", options=block_options(blocks),
                        help=_join(block_spec.help, f"a block of {name}'s urban grid (none: the first with room)"))
    chosen = given.get("block")
    new_lots = lots_spec
    if isinstance(chosen, int) and not isinstance(chosen, bool) and 0 <= chosen <= len(blocks):
        picked = [x for x in given.get("lots") or () if isinstance(x, int)]
        new_lots = replace(lots_spec, kind="multiselect", options=lot_options(blocks, chosen, picked),
                           depends=tuple(dict.fromkeys((*lots_spec.depends, "block"))),
                           help=_join(lots_spec.help, f"lots of block {chosen} (none: the first that fit)"))
    return tuple(new_block if f is block_spec else new_lots if f is lots_spec else f for f in fields)


def _join(help_: str, more: str) -> str:
    return f"{help_}; {more}" if help_ else more


def with_grid_pickers(specs: tuple[FieldSpec, ...], values: Mapping[str, Any],
                      dump: Mapping[str, Any] | None) -> tuple[FieldSpec, ...]:
    """A step's specs with every entry's ``block``/``lots`` made pickers (rows, groups, variants, nested)."""
    if dump is None:
        return specs
    records = grids(dump)
    if not records:
        return specs
    return tuple(_spec(s, values.get(s.name), records) for s in specs)


def _spec(s: FieldSpec, value: Any, records: Sequence[Mapping[str, Any]]) -> FieldSpec:
    if s.kind == "rows" and s.entries:
        given = value if isinstance(value, list) else []
        entries = tuple(
            _entry(fields, given[i] if i < len(given) and isinstance(given[i], Mapping) else {}, records)
            for i, fields in enumerate(s.entries))
        return replace(s, entries=entries)
    if s.kind == "group" and s.fields:
        return replace(s, fields=_entry(s.fields, value if isinstance(value, Mapping) else {}, records))
    return s


def _entry(fields: tuple[FieldSpec, ...], given: Mapping[str, Any],
           records: Sequence[Mapping[str, Any]]) -> tuple[FieldSpec, ...]:
    nested = tuple(_spec(f, given.get(f.name), records) for f in fields)
    return grid_fields(nested, given, records)
