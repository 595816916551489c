"""The ``kingdomlog`` command line (design §8). ``python -m kingdomlog`` is the same program.

Exit codes: 0 success, 1 a rule, input or store error (one line on stderr, no
traceback), 2 a usage error. ``--json`` outputs are stable (see docs/cli.md); an error
asked for JSON is also one object on stdout (``{"ok": false, "error", "error_kind"}``).

Nothing heavy is imported at module level: each command imports what it uses, so
``--help`` costs little more than argparse and ``state`` imports only the campaign's
ruleset (``tests/core/test_perf_imports.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kingdomlog import __version__
from kingdomlog.cli_input import DIR_HELP, DIR_NEW_HELP, JSON_HELP
from kingdomlog.cli_input import load_plan as _load_plan
from kingdomlog.cli_input import read_text as _read_text

if TYPE_CHECKING:
    from kingdomlog.core.turn import Plan, TurnPreview

EPILOG = """examples:
  kingdomlog new campaigns/my-realm --ruleset pf2e-kingmaker --name "My Realm"
  kingdomlog turn campaigns/my-realm --plan plans/turn-01.json --dry-run
  kingdomlog state campaigns/stolen-lands --json
  kingdomlog sql "select campaign, turn, unrest from states order by 1, 2" --root campaigns
  kingdomlog gm campaigns/stolen-lands
  kingdomlog import-kingdom campaigns/from-foundry --from fvtt-Actor-kingdom.json
  kingdomlog export-kingdom campaigns/from-foundry --to kingdom-for-foundry.json
"""


class UsageError(Exception):
    """Bad arguments: exit code 2."""


def turn_number(text: str) -> int:
    """An argparse type: a turn number the log can hold (0 to 2**31 - 1)."""
    from kingdomlog.core.events import MAX_TURN

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a turn number") from None
    if not 0 <= value <= MAX_TURN:
        raise argparse.ArgumentTypeError(f"turn {value} is out of range (0 to {MAX_TURN})")
    return value


def _campaign(path: str) -> Any:
    from kingdomlog.app import Campaign

    return Campaign.open(path)


def _out(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=False, default=str, ensure_ascii=False) + "\n")


def _parse_set(items: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        key, _, raw = item.partition("=")
        key = key.strip()
        if not key:
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key] = value
    return out


def _viewer(camp: Any, viewer: str | None) -> Any:
    """The ``--as`` viewer, parsed against the campaign (unknown viewers are refused)."""
    return camp.viewer(viewer)


def _progress_printer(what: str) -> Any:
    """A progress callback that redraws one stderr line when stderr is a terminal (else None)."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, name: str) -> None:
        end = "\n" if done == total else ""
        sys.stderr.write(f"\r{what} {done}/{total} ({name[:30]})\x1b[K{end}")
        sys.stderr.flush()

    return show


# ---- commands ---------------------------------------------------------------------------


def cmd_rulesets(args: argparse.Namespace) -> int:
    from kingdomlog.core.ruleset import all_rulesets

    rows: list[dict[str, Any]] = []
    for rs in all_rulesets():
        rows.append({
            "id": rs.id, "name": rs.name, "aliases": list(rs.aliases), "turn_unit": rs.turn_unit,
            "options": [{"name": o.name, "type": o.type, "default": o.default, "help": o.help,
                         "choices": list(o.choices)} for o in rs.options],
        })
    from kingdomlog.rulesets import BROKEN

    for pkg, err in BROKEN.items():
        print(f"kingdomlog: warning: ruleset package {pkg!r} failed to load: {err}", file=sys.stderr)
    if args.json:
        _out(rows)
        return 0
    for r in rows:
        print(f"{r['id']:<16} {r['name']}  (turn = {r['turn_unit']}; aliases: {', '.join(r['aliases']) or '-'})")
        for o in r["options"]:
            extra = f" [{'|'.join(o['choices'])}]" if o["choices"] else ""
            print(f"    {o['name']} ({o['type']}, default {o['default']!r}){extra}: {o['help']}")
    return 0


def _player(text: str) -> Any:
    """``--player ID[:NAME[:CHARACTER]]`` as a player's entry (``ysolde:Ysolde``, ``aino:Aino:aino``)."""
    from pydantic import ValidationError

    from kingdomlog.core.errors import InputError
    from kingdomlog.store.config import ViewerEntry

    pid, _, rest = text.partition(":")
    name, _, character = rest.partition(":")
    try:
        return ViewerEntry(id=pid.strip(), name=name.strip(), character=character.strip())
    except ValidationError as exc:
        raise InputError(f"--player {text!r}: {exc.errors()[0]['msg']} (give ID[:NAME[:CHARACTER]], the id lower"
                         " case)") from None


def cmd_new(args: argparse.Namespace) -> int:
    from kingdomlog.app import Campaign

    camp = Campaign.create(args.dir, args.ruleset, name=args.name, options=_parse_set(args.set or []),
                           viewers=[*(args.viewer or []), *map(_player, args.player or [])], campaign_id=args.id)
    if args.json:
        _out({"campaign": camp.id, "ruleset": camp.config.ruleset, "folder": str(camp.folder),
              "options": camp.config.options})
    else:
        print(f"created campaign {camp.id!r} ({camp.ruleset.name}) in {camp.folder}")
        print(f"next: write a plan for turn 0 and run `kingdomlog turn {camp.folder} --plan PLAN.json`,"
              f" or open the turn sheet with `kingdomlog gm {camp.folder}`")
    return 0


def _preview_json(p: TurnPreview) -> dict[str, Any]:
    return {
        "turn": p.turn, "seed": p.seed, "expect_seq": p.start_seq, "ok": p.ok, "error": p.error,
        "steps": [
            {"step": s.phase.id, "title": s.phase.title, "choices": s.choices, "error": s.error,
             "rolls": [r.as_dict() for r in s.rolls],
             **({"waits_for_roll": {"key": s.pending.key, "notation": s.pending.notation}} if s.pending else {}),
             "events": [{"type": d.type, "phase": d.phase, "actor": d.actor, "visibility": d.visibility,
                         "payload": d.payload.model_dump(mode="json")} for d in s.drafts]}
            for s in p.steps
        ],
        "notes": [{"type": d.type, "actor": d.actor, "visibility": d.visibility,
                   "payload": d.payload.model_dump(mode="json")} for d in p.notes],
    }


def _turn_plan(camp: Any, args: argparse.Namespace) -> tuple[Plan, str, str, bool]:
    """The plan ``turn`` plays, its seed and where both came from; True when the plan is the saved draft.

    The plan is ``--plan``, else the turn sheet's saved draft of the next turn. Its
    seed is the plan's own, else ``--seed``, else the saved draft's (so a dry run
    plays the dice the sheet shows and the commit will play), else a new one.
    """
    from kingdomlog.app.drafts import Drafts
    from kingdomlog.core.errors import InputError
    from kingdomlog.dice.roller import new_seed

    turn = camp.next_turn()
    drafts = Drafts(camp.folder)
    try:
        saved = drafts.load(turn)
    except InputError as exc:
        print(f"kingdomlog: warning: {exc}", file=sys.stderr)
        saved = None
    if args.plan is not None:
        plan, source, from_draft = _load_plan(args.plan), args.plan, False
    elif saved is not None:
        plan, source, from_draft = saved.plan, f"the saved draft {drafts.path(turn)}", True
    else:
        raise InputError(f"no --plan given and no saved draft of turn {turn} in {drafts.dir}"
                         " (the turn sheet saves one on every change; or pass --plan PLAN.json)")
    if plan.seed:
        seed, why = plan.seed, "the plan" if args.plan is not None else source
    elif args.seed:
        seed, why = args.seed, "--seed"
    elif saved is not None and saved.plan.seed:
        seed, why = saved.plan.seed, f"the saved draft {drafts.path(turn)}"
    else:
        seed, why = new_seed(), "new"
    return plan.model_copy(update={"seed": seed}), source, why, from_draft


def _step_named(step: Any) -> str:
    """A step as ``turn`` names it to a plan's author: its title in words first, then its id, the plan's key.

    >>> from kingdomlog.core.ruleset import Step
    >>> _step_named(Step("upkeep.unrest", "Upkeep: Adjust Unrest"))
    'Upkeep: Adjust Unrest (upkeep.unrest)'
    """
    return f"{step.title} ({step.id})" if step.title and step.title != step.id else str(step.id)


def _without_step(error: str, step_id: str) -> str:
    """A step's refusal without the tag naming its step (``[id]``, ``step 'id':``), for a line that names it first.

    >>> _without_step("step 'upkeep.unrest': choice lost_hex: 'ZZ9' is not a claimed hex", "upkeep.unrest")
    "choice lost_hex: 'ZZ9' is not a claimed hex"
    >>> _without_step("[event.resolve] no event (rule: §3.4)", "event.resolve")
    'no event (rule: §3.4)'
    """
    for tag in (f"[{step_id}] ", f"step '{step_id}': "):
        if error.startswith(tag):
            return error[len(tag):]
    return error


def cmd_turn(args: argparse.Namespace) -> int:
    camp = _campaign(args.dir)
    plan, source, seed_from, from_draft = _turn_plan(camp, args)
    preview = camp.preview(plan)
    result = None
    if preview.ok and not args.dry_run:
        result = camp.commit(preview, plan=plan, from_draft=from_draft)
    if args.json:
        doc = _preview_json(preview)
        doc["plan_source"] = source
        doc["seed_source"] = seed_from
        doc["committed"] = None if result is None else {
            "commit_id": result.commit_id, "first_seq": result.first_seq, "last_seq": result.last_seq,
            "file": result.file, "idempotent": result.idempotent}
        _out(doc)
    else:
        origin = "a new seed" if seed_from == "new" else f"from {seed_from}"
        print(f"turn {preview.turn} from {source}; dice seed {preview.seed} ({origin})")
        for s in preview.steps:
            mark = "refused" if s.error else f"waits for its roll {s.pending.key}" if s.pending \
                else counted(len(s.drafts), "event")
            print(f"{_step_named(s.phase)}: {mark}")
            for r in s.rolls:
                print(f"    roll {r.key}: {r.notation} -> {list(r.faces)} = {r.total}{' (typed)' if r.manual else ''}")
            for d in s.drafts:
                print(f"    {d.type} {json.dumps(d.payload.model_dump(mode='json'), sort_keys=True)[:160]}")
            if s.error:
                print(f"    error: {_without_step(s.error, s.phase.id)}")
        for d in preview.notes:
            text = d.payload.model_dump(mode='json')['text']
            print(f"[note] the plan's note: {d.type} <{d.visibility}> {text[:120]}")
        if result is not None:
            span = f"seq {result.first_seq}..{result.last_seq}"
            again = "; it was already in the log: nothing written again" if result.idempotent else ""
            print(f"committed turn {preview.turn}: {span} ({Path(result.file).name}){again}")
        elif args.dry_run and preview.ok:
            print(f"dry run: turn {preview.turn} not committed (committing this plan plays seed {preview.seed})")
    if not preview.ok:
        from kingdomlog.core.turn import waiting_words

        waiting = preview.pending
        if any(s.internal for s in preview.steps):
            print(f"kingdomlog: turn {preview.turn}: {preview.error}", file=sys.stderr)
        elif preview.error is None and waiting is not None:
            print(f"kingdomlog: error: turn {preview.turn} not played: {waiting_words(waiting)}", file=sys.stderr)
        else:
            at = next(s for s in preview.steps if s.error)
            print(f"kingdomlog: error: turn {preview.turn} refused at {_step_named(at.phase)}:"
                  f" {_without_step(at.error or '', at.phase.id)}", file=sys.stderr)
        return 1
    return 0


def cmd_retract(args: argparse.Namespace) -> int:
    camp = _campaign(args.dir)
    res = camp.retract(args.turn, reason=args.reason or "")
    print(f"retracted turn {args.turn} (core.turn_retracted at seq {res.first_seq}); nothing was deleted")
    return 0


def _visibility_words(camp: Any, vis: str) -> str:
    """Who may read an event of ``vis``, in words: ``the GM only``, ``everyone``, players by their names.

    >>> class C:
    ...     def viewer_name(self, pid: str) -> str: return {"ysolde": "Ysolde"}.get(pid, pid)
    >>> _visibility_words(C(), "gm"), _visibility_words(C(), "public"), _visibility_words(C(), "faction:ysolde")
    ('the GM only', 'everyone', 'Ysolde')
    """
    from kingdomlog.views.words import visibility_words

    return visibility_words(vis, lambda pid, _kind: str(camp.viewer_name(pid))).removeprefix("seen by ")


def cmd_note(args: argparse.Namespace) -> int:
    from kingdomlog.core.viewers import normalise_visibility

    camp = _campaign(args.dir)
    vis = normalise_visibility(args.visibility, camp.players())
    res = camp.note(args.text, turn=args.turn, visibility=vis, title=args.title or "")
    print(f"note added at seq {res.first_seq} (seen by {_visibility_words(camp, vis)})")
    return 0


def cmd_append(args: argparse.Namespace) -> int:
    camp = _campaign(args.dir)
    text = _read_text(args.events, "the events file")
    drafts = camp.parse_jsonl(text.splitlines(), source=args.events)
    res = camp.append_raw(drafts, expect_seq=args.expect_seq)
    if args.json:
        _out({"first_seq": res.first_seq, "last_seq": res.last_seq, "commit_id": res.commit_id})
    else:
        print(f"appended {counted(res.last_seq - res.first_seq + 1, 'event')}: seq {res.first_seq}..{res.last_seq}")
    return 0


def _event_json(ev: Any) -> dict[str, Any]:
    env: dict[str, Any] = ev.envelope()
    env["recorded_at"] = ev.recorded_at.isoformat()
    env["payload"] = ev.payload.model_dump(mode="json")
    return env


def cmd_log(args: argparse.Namespace) -> int:
    from kingdomlog.core.fold import timeline

    camp = _campaign(args.dir)
    viewer = _viewer(camp, args.as_)
    mine = camp.visible_events(viewer)  # numbered as this viewer's own log (nothing hidden shows)
    head = _head_of(viewer, mine)
    batches = timeline(mine, viewer)
    retracted = {b.commit_id for b in batches if b.retracted}
    events = mine if args.turn is None else [e for e in mine if e.turn == args.turn]
    last = max((e.turn for e in mine), default=None)
    if args.turn is not None and (last is None or args.turn > last):
        from kingdomlog.core.errors import InputError

        unit = camp.ruleset.turn_unit
        logged = "the log is empty" if last is None else f"the log's last {unit} is {last}"
        raise InputError(f"--turn {args.turn}: {unit} {args.turn} has not begun; {logged}")
    if args.json:
        _out({"campaign": camp.id, "viewer": str(viewer), "numbering": "log" if viewer.is_gm else "viewer",
              "head": head.as_dict(),
              "events": [dict(_event_json(e), retracted=e.commit_id in retracted) for e in events],
              "batches": [b.__dict__ for b in batches if args.turn is None or args.turn in b.turns]})
        return 0
    current = None
    for e in events:
        if e.commit_id != current:
            current = e.commit_id
            tag = "  [RETRACTED]" if e.commit_id in retracted else ""
            print(f"-- batch {e.commit_id[:8]} (turn {e.turn}, {e.recorded_at:%Y-%m-%d %H:%M}){tag}")
        body = json.dumps(e.payload.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        if len(body) > 140:
            body = body[:137] + "..."
        vis = "" if e.visibility == "public" else f" <{e.visibility}>"
        print(f"{e.seq:>6}  t{e.turn:<3} {e.phase or '-':<10} {e.type}{vis} {body}")
    print(_head_line(head, camp))
    return 0


def _head_of(viewer: Any, mine: Sequence[Any]) -> Any:
    from kingdomlog.app.campaign import Witness
    from kingdomlog.core.events import GENESIS_HASH

    return Witness(viewer.id, mine[-1].seq, mine[-1].hash) if mine else Witness(viewer.id, 0, GENESIS_HASH)


def _head_line(head: Any, camp: Any) -> str:
    whose = "log" if head.viewer == "gm" else f"log as {camp.viewer_name(head.viewer)} sees it"
    return (f"-- head of this {whose}: {head.text} (keep it: `kingdomlog verify DIR --expect-head {head.short}` later"
            " shows whether anything in it was removed)")


def cmd_state(args: argparse.Namespace) -> int:
    camp = _campaign(args.dir)
    viewer = _viewer(camp, args.as_)
    rs = camp.ruleset
    if args.turn is None and viewer.is_gm and not args.no_cache:
        from kingdomlog.app.campaign import Witness

        got = camp.latest()  # the warm path: nothing of the log decoded when a snapshot stands at its head
        state, last, head = got.state, got.last_turn, Witness(viewer.id, got.seq, got.hash)
    else:
        from kingdomlog.core.fold import last_live_turn

        last = last_live_turn(camp.events())
        if args.turn is not None and (last is None or args.turn > last):
            from kingdomlog.core.errors import InputError

            played = "nothing has been played yet" if last is None else f"the log's last {rs.turn_unit} is {last}"
            raise InputError(f"--turn {args.turn}: {rs.turn_unit} {args.turn} has not been played; {played}")
        state = camp.state(args.turn, viewer=viewer, use_cache=not args.no_cache)
        head = camp.head_for(viewer)
    shown_turn = last if args.turn is None else args.turn
    if args.json:
        doc = state.model_dump(mode="json")
        doc["kingdomlog"] = {"campaign": camp.id, "ruleset": rs.id, "turn": shown_turn,
                             "next_turn": 0 if last is None else last + 1, "head_seq": head.seq,
                             "head": head.as_dict(), "viewer": str(viewer)}
        doc["summary"] = rs.summary(state)
        doc["explain"] = [
            {"name": b.name, "total": b.total, "note": b.note,
             "terms": [{"label": t.label, "value": t.value, "kind": t.kind, "source": t.source} for t in b.terms]}
            for b in rs.explain(state)
        ]
        _out(doc)
        return 0
    from kingdomlog.views.words import figure_label, figure_text, headed, namer, said_breakdowns

    when = f"after {rs.turn_unit} {shown_turn}" if shown_turn is not None else "nothing played yet"
    print(f"{camp.config.name} ({rs.name}) — {when}, as {camp.viewer_name(viewer)} sees it")
    print(rs.render(state))
    print()
    said = namer(rs, state)  # each figure as the GM sheet's panel says it: "Feats  Law and Order", "At war  no"
    figures = [(figure_label(rs, said.names, k), figure_text(v, said.value)) for k, v in rs.summary(state).items()
               if k != "viewer"]  # whose view a summary is (signoria's): the line above says it
    wide = max([24, *(len(label) + 1 for label, _ in figures)])
    for label, value in figures:
        print(f"  {label:<{wide}} {value}")
    bd = said_breakdowns(rs, state, rs.explain(state))
    if bd:
        print("\nwhy:")
        for b in bd:
            print(f"  {headed(b.render())}")
    print()
    print(_head_line(head, camp))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    camp = _campaign(args.dir)
    if args.accept_head:
        head, said = camp.accept_head()
        for p in said:
            print(f"kingdomlog: verify: before --accept-head: {p}", file=sys.stderr)
        print(f"accepted: the log's head is now {head.text}"
              + ("" if said else " (it already was: the records of the head held)"), file=sys.stderr)
    rep = camp.verify(expect_head=args.expect_head)
    if args.json:
        _out({"campaign": rep.campaign, "ok": rep.ok, "files": rep.files, "events": rep.events,
              "head": rep.head.as_dict() if rep.head else None,
              "expect_head": None if rep.witness is None else {
                  "expected": rep.witness.expected, "found": rep.witness.ok, "message": rep.witness.message,
                  "at": rep.witness.found.as_dict() if rep.witness.found else None},
              "problems": rep.problems, "warnings": rep.warnings, "temp_files": rep.temp_files})
    elif rep.ok:
        head = f"; head {rep.head.text}" if rep.head else ""
        print(f"ok: {rep.campaign}: {rep.events} events in {rep.files} batch files; hash chain intact{head}")
        if rep.witness is not None:
            print(f"ok: {rep.witness.message}")
        if rep.temp_files:
            print(f"note: {counted(len(rep.temp_files), 'stray temp file')} from an interrupted append (ignored;"
                  " the next append removes them)")
    for p in rep.problems:
        print(f"kingdomlog: verify: {p}", file=sys.stderr)
    for w in rep.warnings:
        print(f"kingdomlog: warning: {w}", file=sys.stderr)
    return 0 if rep.ok else 1


def cmd_head(args: argparse.Namespace) -> int:
    camp = _campaign(args.dir)
    viewer = _viewer(camp, args.as_)
    head = camp.head_for(viewer)
    if args.json:
        _out(dict(head.as_dict(), campaign=camp.id))
        return 0
    whose = "" if viewer.is_gm else f" as {camp.viewer_name(viewer)} sees it"
    print(f"{camp.id}{whose}: seq {head.seq}, head {head.hash}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from kingdomlog.core.errors import InputError
    from kingdomlog.store.errors import describe_os_error

    camp = _campaign(args.dir)
    viewer = _viewer(camp, args.as_)
    lines = camp.export_lines(viewer)
    data = "\n".join(lines) + "\n"
    head = json.loads(lines[0])["head"]
    if args.output == "-":
        sys.stdout.write(data)
    else:
        try:
            Path(args.output).write_text(data, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{args.output}: cannot write the export: {describe_os_error(exc)}") from None
        print(f"exported {counted(len(lines) - 1, 'event')} for {camp.viewer_name(viewer)} to {args.output};"
              f" head seq {head['seq']} ·"
              f" {head['short']}", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from kingdomlog.app import Campaign

    text = _read_text(args.file, "the export")
    camp, warnings = Campaign.import_checked(text.splitlines(), args.dir, source=args.file)
    head = camp.head_for()
    print(f"imported {counted(head.seq, 'event')} into {camp.folder}; verify: ok; {head.text}")
    for w in warnings:
        print(f"kingdomlog: warning: {w}", file=sys.stderr)
    return 0


def cmd_import_kingdom(args: argparse.Namespace) -> int:
    from kingdomlog.app.kingdom_import import import_kingdom, parse_name, read_names

    title: str | None = None
    names: dict[str, str] = {}
    if args.names:
        names.update(read_names(_read_text(args.names, "the names file"), args.names))
    for arg in args.name or []:
        if "=" in arg:  # ID=NAME: a settlement or leader the export holds only the Foundry id of
            ident, given = parse_name(arg)
            names[ident] = given
        else:
            title = arg  # the campaign's display name
    done = import_kingdom(_read_text(args.source, "the kingdom export"), args.dir, source=args.source,
                          name=title, names=names)
    if args.json:
        _out(done.as_dict())
        return 0
    camp = done.campaign
    print(f"imported {done.format.title} ({done.version}) into {camp.folder} as a {camp.ruleset.name} campaign;"
          f" {camp.head_for().text}")
    for f in done.data_files:
        print(f"homebrew written to {camp.folder / f}")
    if done.unmapped:
        print(f"not mapped ({counted(len(done.unmapped), 'field')}; kept in the import event):")
        for u in done.unmapped:
            print(f"  {u.line()}")
    _print_unnamed(done.unnamed, done.name_command())
    return 0


def _print_unnamed(unnamed: list[tuple[str, str]] | tuple[tuple[str, str], ...], command: str) -> None:
    if not unnamed:
        return
    print(f"without a name ({len(unnamed)}; Foundry keeps their names, the export only their ids; pages show"
          " the placeholder until named):")
    for ident, shown in unnamed:
        print(f"  {ident}: shown as {shown!r}")
    print(f"name them: {command}")


def cmd_name(args: argparse.Namespace) -> int:
    import shlex

    from kingdomlog.app.kingdom_import import name_in_campaign, parse_name, read_names

    names: dict[str, str] = {}
    if args.names:
        names.update(read_names(_read_text(args.names, "the names file"), args.names))
    for arg in args.pairs:
        ident, given = parse_name(arg, "")
        names[ident] = given
    camp = _campaign(args.dir)
    left = name_in_campaign(camp, names)
    print(f"named {len(names)}: " + "; ".join(f"{i} is {n.strip()!r}" for i, n in names.items()))
    _print_unnamed(left, f"kingdomlog name {shlex.quote(args.dir)} "
                   + " ".join(shlex.quote(f"{i}=NAME") for i, _ in left))
    return 0


def cmd_export_kingdom(args: argparse.Namespace) -> int:
    from kingdomlog.app.kingdom_import import export_kingdom
    from kingdomlog.core.errors import InputError
    from kingdomlog.store.errors import describe_os_error

    fmt, doc = export_kingdom(_campaign(args.dir), args.format)
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if args.to == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(args.to).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{args.to}: cannot write the kingdom: {describe_os_error(exc)}") from None
    print(f"exported the kingdom as {fmt.title} to {args.to}", file=sys.stderr)
    return 0


def cmd_plan_schema(args: argparse.Namespace) -> int:
    from kingdomlog.core.errors import InputError
    from kingdomlog.core.ruleset import find_ruleset
    from kingdomlog.core.turn import plan_schema

    if args.campaign:
        camp = _campaign(args.campaign)
        rs = camp.ruleset
        if args.ruleset and find_ruleset(args.ruleset) is not rs:
            raise InputError(f"{args.campaign} plays {rs.id}, not {args.ruleset}")
        _out(plan_schema(rs, rs.phases_for(camp.state(), camp.next_turn())))
        return 0
    if not args.ruleset:
        raise UsageError("plan-schema needs a RULESET or --campaign DIR")
    _out(plan_schema(find_ruleset(args.ruleset)))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from kingdomlog.app.audit import audit

    camp = _campaign(args.dir)
    rep = audit(camp)
    if args.json:
        _out({"campaign": rep.campaign, "events": rep.events, "clean": rep.clean,
              "findings": [f.__dict__ for f in rep.findings]})
        return 0
    if rep.clean:
        print(f"audit: {rep.campaign}: {rep.events} events agree with today's rules")
        return 0
    rs = camp.ruleset
    print(f"audit: {rep.campaign}: {counted(len(rep.findings), 'difference')} between the log and today's rules"
          f" (warnings: the log's recorded facts are what the campaign replays)")
    for turn, found in sorted(rep.by_turn().items()):
        print(f"{rs.turn_unit} {turn}:")
        for f in found:
            print(f"  seq {f.seq} [{f.step or '-'}] {f.type}: {f.message}")
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    from kingdomlog.projections.sql import SafeConsole

    console = SafeConsole(Path(args.root), timeout=args.timeout, progress=_progress_printer("loading campaigns"),
                          memory_limit=args.memory_limit, threads=args.threads)
    for w in console.warnings:
        print(f"kingdomlog: warning: {w}", file=sys.stderr)
    sys.stdout.write(console.run(args.query, args.format))
    return 0


def cmd_gm(args: argparse.Namespace) -> int:
    from kingdomlog.notebook_server import open_gm

    return int(open_gm(Path(args.dir), port=args.port, headless=args.headless, token=not args.no_token,
                       edit=args.edit))


def cmd_share(args: argparse.Namespace) -> int:
    from kingdomlog.notebook_server import share

    return int(share(Path(args.dir), viewer=args.as_, output=args.output, port=args.port, password=args.password))


def cmd_report(args: argparse.Namespace) -> int:
    from kingdomlog.views.player.report import report_text, write_report

    folder = Path(args.dir)
    camp = _campaign(args.dir)
    who = camp.viewer(args.as_)
    if args.output == "-":  # the report alone, to standard output: no map file is written
        sys.stdout.write(report_text(folder, who.id, turn=args.turn, fmt=args.format))
        return 0
    paths = write_report(folder, who.id, turn=args.turn, fmt=args.format,
                         output=Path(args.output) if args.output else None, png=not args.no_png)
    print(f"wrote the {args.format} report for {camp.viewer_name(who)}: " + ", ".join(str(p) for p in paths))
    return 0


def cmd_orders(args: argparse.Namespace) -> int:
    from kingdomlog.notebook_server import serve_orders

    return int(serve_orders(Path(args.dir), viewer=args.as_, port=args.port, password=args.password))


def cmd_session(args: argparse.Namespace) -> int:
    """A ruleset's ``session`` command and page (aikakirjat's growth-session planner), found in its extras."""
    from kingdomlog.core.errors import InputError
    from kingdomlog.views.extras import extras_for, offering

    camp = _campaign(args.dir)
    extras = extras_for(camp.config.ruleset)
    command, page = extras.command("session"), extras.page("session")
    if command is None or page is None:
        which = ", ".join(offering("command", "session")) or "none"
        raise InputError(f"{camp.folder}: {camp.ruleset.name} plans no growth sessions (rulesets that do: {which})")
    if args.serve:
        from kingdomlog.notebook_server import _run_for_viewer

        page.check(camp.folder)  # a clear error before the server starts
        return int(_run_for_viewer(page.notebook, Path(args.dir), "gm", args.port, args.password,
                                   f"{page.title} of {camp.config.name!r}"))
    return command.run(args)


def _load_text(path: str) -> str:
    from kingdomlog.core.errors import InputError

    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None


def cmd_submit(args: argparse.Namespace) -> int:
    from kingdomlog.app import pbp
    from kingdomlog.core.errors import InputError

    camp = _campaign(args.dir)
    viewer = _viewer(camp, args.as_)
    if not viewer.is_player:
        raise InputError("--as must name a player or faction; the GM plays the turn with `kingdomlog turn`")
    plan = _load_plan(args.plan)
    turn = camp.next_turn()
    if plan.turn is not None and plan.turn != turn:
        raise InputError(f"{args.plan}: the plan is for turn {plan.turn} but the campaign's next turn is {turn}")
    if plan.seed:
        raise InputError(f"{args.plan}: a submission has no seed; the server rolls its dice")
    # the write carries the turn read here: refused (nothing filed, no dice sealed) if the campaign moved on
    res = camp.submit(viewer, {sid: sp.model_dump() for sid, sp in plan.steps.items()}, note=plan.note, turn=turn)
    ev = next(e for e in camp.events() if e.seq == res.first_seq)
    sub = ev.payload
    seq = pbp.own_seq(camp, viewer, res.first_seq)  # its seq in this player's own numbering
    head = camp.head_for(viewer)
    if args.json:
        _out({"turn": ev.turn, "viewer": viewer.id, "seq": seq, "commit_id": res.commit_id, "head": head.as_dict(),
              "steps": sub.model_dump(mode="json")["steps"]})
    else:
        rs, who = camp.ruleset, camp.viewer_name(viewer)

        def step(sid: str) -> str:  # its title, without the spec's section or the player's own name
            return re.sub(r"\s*\(§[^)]*\)$", "", rs.name_of(sid, "step")).removesuffix(f": {who}")

        print(f"{who} submitted {', '.join(step(sid) for sid in sub.steps)} for {rs.turn_unit} {ev.turn}"
              f" (seq {seq} of your log; only you and the GM see it); {head.text}")
        for st in sub.steps.values():
            for key, faces in st.rolls.items():
                said = rs.name_of(key, "roll")
                print(f"    {said[:1].upper()}{said[1:]}: {', '.join(str(f) for f in faces)}")
    return 0


def counted(n: int, noun: str) -> str:
    """``n`` of ``noun`` as a person counts them ("1 event", "5 differences"; never "event(s)").

    >>> counted(1, "event"), counted(5, "difference"), counted(0, "stray temp file")
    ('1 event', '5 differences', '0 stray temp files')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# ---- parser -----------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    """``argparse`` that suggests the nearest word for a misspelt subcommand, choice or option (Python 3.12's
    ``suggest_on_error``, which 3.11 lacks); its subcommands' parsers (``pbp_cli``'s too) are of this class.

    >>> p = Parser(prog="k"); sub = p.add_subparsers(dest="c"); st = sub.add_parser("state")
    >>> _ = st.add_argument("--json", action="store_true")
    >>> p.near("stat", ["state", "log"]), p.near("zzz", ["state"])
    (" (did you mean 'state'?)", '')
    """

    @staticmethod
    def near(word: str, known: Sequence[str]) -> str:
        """`` (did you mean 'x'?)`` for the known word nearest ``word``, or "" when none is near."""
        import difflib

        match = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
        return f" (did you mean {match[0]!r}?)" if match else ""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            hint = self.near(str(value), [str(c) for c in action.choices])
            if hint:
                raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint}")
        super()._check_value(action, value)

    _intermixing = False

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        ns, extras = super().parse_known_args(args, namespace)
        if (extras and not self._intermixing and self._subparsers is None and namespace is None
                and any(not e.startswith("-") for e in extras)):
            # a subcommand's positionals after its options (``answer DIR --as marburg Q 1``, ``message DIR --to x
            # TEXT``): argparse takes its optional positionals before the options and calls the rest unrecognized
            self._intermixing = True
            try:
                ns, extras = super().parse_known_intermixed_args(args, None)
            except TypeError:  # a parser argparse cannot intermix (a positional in a group): as parsed first
                pass
            finally:
                self._intermixing = False
        for extra in extras:
            if extra.startswith("-") and extra != "-":
                hint = self.near(extra.split("=", 1)[0], list(self._option_string_actions))
                if hint:
                    self.error(f"unrecognized argument: {extra}{hint}")
        return ns, extras


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="kingdomlog",
        description="Event-sourced kingdom turns: an append-only log per campaign, state derived by replay.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"kingdomlog {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("rulesets", help="list rule systems and their campaign options")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_rulesets)

    s = sub.add_parser("new", help="create a campaign folder")
    s.add_argument("dir", help=DIR_NEW_HELP)
    s.add_argument("--ruleset", required=True, help="id or alias (see `kingdomlog rulesets`)")
    s.add_argument("--name", help="the campaign's name as pages show it (default: its id)")
    s.add_argument("--id", help="campaign id (default: the folder name)")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="campaign option (value read as JSON if it parses)")
    s.add_argument("--viewer", action="append", metavar="ID", help="a player or faction who may get a view")
    s.add_argument("--player", action="append", metavar="ID[:NAME[:CHARACTER]]",
                   help="a player at the table: their id, name, and the character they play as the kingdom names"
                        " it (default: the name), e.g. ysolde:Ysolde")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_new)

    s = sub.add_parser("turn", help="play the next turn from a plan (all steps or nothing)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--plan", help="plan JSON file, or - for stdin (default: the turn sheet's saved draft)")
    s.add_argument("--dry-run", action="store_true", help="show what would be appended, write nothing")
    s.add_argument("--seed", help="seed for keyed dice if the plan has none (default: the saved draft's seed)")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_turn)

    s = sub.add_parser("retract", help="undo the last turn by appending core.turn_retracted")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--turn", type=turn_number, required=True, help="the turn to undo (the last played)")
    s.add_argument("--reason", help="why, kept in the log beside the retraction")
    s.set_defaults(fn=cmd_retract)

    s = sub.add_parser("note", help="add a journal entry (public, gm or for one faction)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("text", help="the entry's text")
    s.add_argument("--turn", type=turn_number, help="the turn it is about (default: the last played)")
    s.add_argument("--title", help="a heading for the entry")
    s.add_argument("--visibility", default="public", help="public | gm | faction:<id>[,faction:<id>...]")
    s.set_defaults(fn=cmd_note)

    s = sub.add_parser("append", help="append raw events from JSONL, validated, all or nothing")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("events", help="JSONL file, or - for stdin")
    s.add_argument("--expect-seq", type=int,
                   help="refuse unless the log's last event is this seq (nothing appended if another writer moved it)")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_append)

    s = sub.add_parser("log", help="show the event log (timeline of batches)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.add_argument("--as", dest="as_", metavar="VIEWER", help="gm (default), public or a player/faction id")
    s.add_argument("--turn", type=turn_number, help="only this turn's batches")
    s.set_defaults(fn=cmd_log)

    s = sub.add_parser("state", help="show the state folded from the log")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--turn", type=turn_number, help="state after this turn (default: latest)")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.add_argument("--as", dest="as_", metavar="VIEWER",
                   help="gm (default), public or a player/faction id: the state as they may see it")
    s.add_argument("--no-cache", action="store_true", help="replay from the log, ignoring .cache/")
    s.set_defaults(fn=cmd_state)

    s = sub.add_parser("sql", help="read-only SQL over every campaign under a root")
    s.add_argument("query",
                   help="a read-only query over the views (events, turns, states, campaigns and each rule "
                        "system's; \"SHOW TABLES\" lists them)")
    s.add_argument("--root", default="campaigns", help="the folder holding the campaigns (default: campaigns)")
    s.add_argument("--format", choices=["table", "csv", "json"], default="table", help="how rows are printed")
    s.add_argument("--timeout", type=float, default=30.0,
                   help="seconds for the query, its fetch and its formatting before it is interrupted")
    s.add_argument("--memory-limit", default="1GB", help="the console's memory limit (DuckDB size, e.g. 512MB, 4GB)")
    s.add_argument("--threads", type=int, default=2, help="threads DuckDB may use (at most the machine's cores)")
    s.set_defaults(fn=cmd_sql)

    s = sub.add_parser("plan-schema", help="print the JSON Schema of a ruleset's plans (for editors)")
    s.add_argument("ruleset", nargs="?", help="id or alias (see `kingdomlog rulesets`)")
    s.add_argument("--campaign", metavar="DIR", help="include the steps this campaign's state adds (e.g. per faction)")
    s.set_defaults(fn=cmd_plan_schema)

    s = sub.add_parser("audit", help="list, turn by turn, what today's rules compute differently from the log")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_audit)

    s = sub.add_parser(
        "verify", help="check the log: chain, gaps, files; exit 1 on any fault",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check every batch file and event of a campaign's log; exit 1 on any fault, naming the file"
                    " and seq.",
        epilog="""what verify promises:
  every byte of every batch file (its sha256), every event's hash and its link to the one before,
  gapless seqs, each file's link to the one before, and that the log folds. A batch removed,
  swapped or reordered anywhere but at the end is a gap or a broken link.

  A log cut short at its end is itself a sound, shorter log. Two records of its head say how
  far it reached: log/.heads (a line added by every append, beside the batches; each batch
  appended since says it is kept) and this machine's signed .cache/head.rec. verify fails,
  naming the missing seqs, when the log ends before either record or differs from it at its
  seq, when log/.heads holds no readable head, has a damaged newest line while the log ends at
  the line before, or is missing though the newest batch says it was kept. Reads (state, log,
  head, share, export) refuse such a log and appends append nothing until the batches are
  restored or the GM runs verify --accept-head.

what only --expect-head catches:
  whoever can write the folder can delete the newest batches, cut their lines from log/.heads
  (or write one: it is not signed) and delete or roll back .cache/, or replace the whole folder
  with a sound older or rewritten copy. Nothing inside the folder tells then; a head printed
  before (`kingdomlog head`, any view's footer, a player's page), given as --expect-head,
  does: it is no longer in the log.""")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--expect-head", metavar="HASH",
                   help="a head printed earlier (`kingdomlog head`, a view's footer): fail unless it is still in the"
                        " log (as its head, or with events appended after it)")
    s.add_argument("--accept-head", action="store_true",
                   help="the log's newest batches are gone for good (or an older copy was restored on purpose):"
                        " after checking the whole log, record its present head as its head, so reads and appends"
                        " go on from it (the next append reuses the lost seqs)")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_verify)

    s = sub.add_parser("head", help="print the log's head (last seq and hash), the witness to keep")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--as", dest="as_", metavar="VIEWER", help="the head of what this viewer sees (default: gm)")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_head)

    s = sub.add_parser("export", help="write the log as JSONL (optionally as one viewer sees it)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("-o", "--output", required=True, help="file, or - for stdout")
    s.add_argument("--as", dest="as_", metavar="VIEWER",
                   help="only what this viewer may see (gm, public or a player/faction id; default: everything)")
    s.set_defaults(fn=cmd_export)

    s = sub.add_parser("import", help="create a campaign folder from an export")
    s.add_argument("file", help="a JSONL file written by `kingdomlog export`")
    s.add_argument("dir", help=DIR_NEW_HELP)
    s.set_defaults(fn=cmd_import)

    s = sub.add_parser("import-kingdom", help="create a campaign from a kingdom another tool exported (Foundry VTT)")
    s.add_argument("dir", help=DIR_NEW_HELP)
    s.add_argument("--from", dest="source", required=True, metavar="FILE", help="the exported JSON (- for stdin)")
    s.add_argument("--name", action="append", metavar="NAME or ID=NAME",
                   help="the campaign's name (default: the kingdom's); ID=NAME (repeatable) names a settlement or"
                        " leader the export holds only the Foundry scene or actor id of")
    s.add_argument("--names", metavar="FILE", help="a JSON object {id: name} naming settlements and leaders")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_import_kingdom)

    s = sub.add_parser("name", help="name a settlement or leader a Foundry import left without a name")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("pairs", nargs="*", metavar="ID=NAME",
                   help="a settlement's id, a leader's Foundry actor id or role (or the name a page shows, e.g."
                        " 'Ruler (unnamed in Foundry)'), '=', the name")
    s.add_argument("--names", metavar="FILE", help="a JSON object {id: name}")
    s.set_defaults(fn=cmd_name)

    s = sub.add_parser("export-kingdom", help="write the kingdom now in another tool's format (pf2e-kingmaker-tools)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--to", required=True, metavar="FILE", help="file, or - for stdout")
    s.add_argument("--format", help="the format's id (default: the first its ruleset writes)")
    s.set_defaults(fn=cmd_export_kingdom)

    s = sub.add_parser("gm", help="serve the GM turn sheet on a campaign (an app; --edit for marimo's editor)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--edit", action="store_true", help="open the notebook in marimo's editor instead of the app")
    s.add_argument("--port", type=int, default=2718, help="port to serve on (default 2718)")
    s.add_argument("--headless", action="store_true", help="do not try to open a browser")
    s.add_argument("--no-token", action="store_true", help="serve without an access token (localhost only)")
    s.set_defaults(fn=cmd_gm)

    s = sub.add_parser("share", help="a read-only player view: served (marimo run) or one HTML file")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--as", dest="as_", metavar="VIEWER", required=True,
                   help="whose view: public or a player/faction id")
    s.add_argument("-o", "--output", help="write one self-contained HTML file instead of serving (- for stdout)")
    s.add_argument("--port", type=int, default=2719, help="port to serve on (default 2719)")
    s.add_argument("--password", help="access password (default: a random one, printed)")
    s.set_defaults(fn=cmd_share)

    s = sub.add_parser("report", help="one turn's report for a forum thread (md, bbcode or html) and its map image")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--as", dest="as_", metavar="VIEWER", required=True,
                   help="whose report: public or a player/faction id")
    s.add_argument("--turn", type=int, help="the turn to report (default: the last played)")
    s.add_argument("--format", choices=("md", "bbcode", "html"), default="md",
                   help="Markdown (default), BBCode for a forum, or one HTML page")
    s.add_argument("-o", "--output", help="the report file (default: CAMPAIGN-VIEWER-turn-NN.EXT here); the map "
                   "is written beside it as STEM-map.svg and STEM-map.png. - writes the report to standard output "
                   "and no map file (an html report keeps its map inline)")
    s.add_argument("--no-png", action="store_true", help="write the map as SVG only")
    s.set_defaults(fn=cmd_report)

    s = sub.add_parser("orders", help="serve one player's orders sheet (marimo run; writes only its submission)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--as", dest="as_", metavar="FACTION", required=True, help="the player or faction (fixed)")
    s.add_argument("--port", type=int, default=2720, help="port to serve on (default 2720)")
    s.add_argument("--password", help="access password (default: a random one, printed)")
    s.set_defaults(fn=cmd_orders)

    s = sub.add_parser("session", help="plan the rest of an aikakirjat growth session year by year; commit it")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--years", type=int, help="plan (and commit) only the next N years")
    s.add_argument("--policy", action="append", metavar="NAME|KEY=VALUE",
                   help="steward (default) or simple, and settings (docs/aikakirjat-session.md)")
    s.add_argument("--override", metavar="FILE", help='changed years: JSON {"YEAR": {"STEP": {"choices": ...}}}')
    s.add_argument("--seed", help="seed of the session's dice (default: a new one, printed)")
    s.add_argument("--commit", action="store_true", help="commit the planned years, one turn each")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.add_argument("--serve", action="store_true", help="open the session planner page (marimo run) instead")
    s.add_argument("--port", type=int, default=2721, help="port of --serve (default 2721)")
    s.add_argument("--password", help="access password of --serve (default: a random one, printed)")
    s.set_defaults(fn=cmd_session)

    s = sub.add_parser("submit", help="submit a player's steps for the next turn (dice rolled here)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--as", dest="as_", metavar="FACTION", required=True, help="the player or faction submitting")
    s.add_argument("--plan", required=True, help="plan JSON with only this player's steps (choices), or - for stdin")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_submit)

    from kingdomlog.pbp_cli import add_commands  # play by post: serve, status, publish, deadline, ready, ...

    add_commands(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if not getattr(args, "fn", None):
        parser.print_help()
        return 2
    from kingdomlog.core.errors import ConflictError, InternalError, KingdomlogError
    from kingdomlog.store.errors import describe_os_error

    def fail(code: int, kind: str, line: str, message: str) -> int:
        """The error's line on stderr; for ``--json`` (``sql --format json``) also a JSON object on stdout."""
        print(line, file=sys.stderr)
        if _wants_json(args):
            print(json.dumps({"ok": False, "error": message, "error_kind": kind}, ensure_ascii=False))
        return code

    try:
        fn: Any = args.fn
        return int(fn(args))
    except UsageError as exc:
        return fail(2, "usage", f"kingdomlog: usage error: {exc}", str(exc))
    except ConflictError as exc:
        return fail(1, "conflict", f"kingdomlog: error: {exc}", str(exc))
    except InternalError as exc:
        if os.environ.get("KINGDOMLOG_DEBUG"):
            raise
        return fail(1, "internal", f"kingdomlog: {exc}; rerun with KINGDOMLOG_DEBUG=1 for the traceback", str(exc))
    except KingdomlogError as exc:
        return fail(1, _error_kind(exc), f"kingdomlog: error: {exc}", str(exc))
    except KeyboardInterrupt:
        print("kingdomlog: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the file system refused (full, read-only, no permission): not a bug
        where = f"{exc.filename}: " if exc.filename else ""
        message = f"{where}{describe_os_error(exc)}"
        return fail(1, "file", f"kingdomlog: error: {message}", message)
    except Exception as exc:
        if os.environ.get("KINGDOMLOG_DEBUG"):
            raise
        return fail(1, "internal", f"kingdomlog: internal error: {type(exc).__name__}: {exc} (this is a bug; rerun"
                    " with KINGDOMLOG_DEBUG=1 for the traceback)", f"internal error: {type(exc).__name__}: {exc}")


def _wants_json(args: argparse.Namespace) -> bool:
    """Whether the command was asked for JSON: ``--json``, or ``sql --format json``."""
    return getattr(args, "json", False) is True or (
        getattr(args, "command", None) == "sql" and getattr(args, "format", None) == "json")


def _error_kind(exc: Exception) -> str:
    """A refusal's kind for ``--json``: ``corrupt``, ``store``, ``refused`` (SQL), ``rule`` or ``input``."""
    from kingdomlog.core.errors import CorruptLogError, InputError, RuleError, SqlRefusedError, StoreError

    if isinstance(exc, CorruptLogError):
        return "corrupt"
    if isinstance(exc, SqlRefusedError):
        return "refused"
    if isinstance(exc, InputError):  # before StoreError: a campaign not found is the person's input
        return "input"
    if isinstance(exc, StoreError):
        return "store"
    if isinstance(exc, RuleError):
        return "rule"
    return "error"


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
