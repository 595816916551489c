"""The play-by-post commands of ``kingdomlog`` (registered by ``cli.build_parser``).

``serve`` (the one server of the table), ``status``, ``publish`` (the GM's opening), ``deadline``,
``ready``, ``answer``, ``message`` and ``resolve`` (move the turn on; commit when everything is in); ``table``
(a player at the table: their seats, declare, roll, withdraw, say).
Every command that records a player's or the GM's word then moves the turn on (``pbp.advance``) and
says what that did, so a game runs from the command line alone as well as from the server.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(m|min|h|d)?\s*$")


def _campaign(path: str) -> Any:
    from kingdomlog.app import Campaign

    return Campaign.open(path)


def _out(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str, ensure_ascii=False) + "\n")


def hours(text: str) -> float:
    """``48h``, ``2d``, ``90m``, ``36`` (hours) as hours.

    >>> hours("2d"), hours("90m"), hours("36")
    (48.0, 1.5, 36.0)
    """
    from kingdomlog.core.errors import InputError

    m = DURATION.match(text)
    if not m:
        raise InputError(f"{text!r} is not a duration (e.g. 48h, 2d, 90m)")
    n = float(m.group(1))
    unit = m.group(2) or "h"
    h = n * {"m": 1 / 60, "min": 1 / 60, "h": 1.0, "d": 24.0}[unit]
    if h > 24 * 366:
        raise InputError(f"{text!r} is more than a year; a deadline is due at most 366d from now")
    return h


def when(text: str) -> datetime:
    """An ISO time with its zone (``2026-12-05T18:00+01:00``; ``Z`` for UTC)."""
    from kingdomlog.core.errors import InputError

    try:
        t = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{text!r} is not a time like 2026-12-05T18:00+00:00") from None
    if t.tzinfo is None:
        raise InputError(f"{text!r}: say the time zone (e.g. 2026-12-05T18:00+00:00, or Z for UTC)")
    return t.astimezone(UTC)


def whole_minute(t: datetime) -> datetime:
    """``t`` rounded up to its next whole minute (a deadline ``--in`` a duration is then the minute it prints).

    >>> whole_minute(datetime(2026, 12, 8, 8, 6, 41, 630978, tzinfo=UTC)).isoformat()
    '2026-12-08T08:07:00+00:00'
    >>> whole_minute(datetime(2026, 12, 8, 8, 7, tzinfo=UTC)).isoformat()
    '2026-12-08T08:07:00+00:00'
    """
    floor = t.replace(second=0, microsecond=0)
    return floor if floor == t else floor + timedelta(minutes=1)


def _advance(camp: Any, viewer: Any = None) -> Any:
    """Move the turn on and say what that did, as ``viewer`` may hear it (default: the GM; a player is
    told nothing of another's questions nor the log's seqs)."""
    from kingdomlog.app import pbp
    from kingdomlog.core.errors import ConflictError
    from kingdomlog.core.viewers import GM_VIEWER

    try:
        res = pbp.advance(camp)
    except ConflictError:
        return None  # someone else moved it meanwhile
    for line in res.for_viewer(viewer if viewer is not None else GM_VIEWER):
        print(f"  then: {line}")
    return res


def _viewer(camp: Any, who: str | None, *, player: bool = False) -> Any:
    from kingdomlog.core.errors import InputError

    v = camp.viewer(who)
    if player and not v.is_player:
        raise InputError("--as must name a player or faction")
    return v


# ---- commands --------------------------------------------------------------------------------------------


def steps_words(player: str, names: Sequence[str]) -> str:
    """A player's steps in words, the player's own name left out (the line names the player): ``command_fabian,
    orders_fabian`` → ``command, orders``.

    >>> steps_words("fabian", ["command_fabian", "orders_fabian"]), steps_words("x", [])
    ('command, orders', '')
    """
    return ", ".join(re.sub(rf"[._-]?{re.escape(player)}$", "", n).replace("_", " ") or n for n in names)


def cmd_status(args: argparse.Namespace) -> int:
    from kingdomlog.app import pbp
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.turn import Plan

    camp = _campaign(args.dir)
    v = _viewer(camp, args.as_)
    if not v.is_gm:  # a player sees its own part, the public the deadline: nothing of the others
        seen = pbp.status_for(camp, v)
        if args.json:
            _out(seen.as_dict())
            return 0
        due = (f"orders due {subs.minute_words(seen.orders_due)} ({seen.time_left()})" if seen.orders_due
               else "no deadline for the orders")
        print(f"{camp.config.name}: {seen.turn_unit} {seen.turn} for {camp.viewer_name(v)}: {seen.stage}"
              + (f" (orders closed: {seen.closed})" if seen.closed else "") + f"; {due}")
        if seen.missing:
            print(f"  gave no orders: {', '.join(camp.player_name(p) for p in seen.missing)}")
        if seen.me is not None:
            print(f"  submitted: {steps_words(v.id, seen.me.submitted) or 'nothing'}; "
                  f"ready: {'yes' if seen.me.ready else 'no'}")
        for q in seen.questions:
            print(f"  question {question_words(q)}: {'answered' if q.answered else 'OPEN'}")
        return 0
    st = pbp.status(camp)
    if st.closed is not None:  # the GM sees whether (and why) the resolution refuses
        st = pbp.status(camp, now=st.now, preview=camp.preview(Plan(turn=st.turn)))
    if args.json:
        _out(st.as_dict())
        return 0
    due = f"orders due {subs.minute_words(st.orders_due)} ({st.time_left()})" if st.orders_due \
        else "no deadline for the orders"
    print(f"{camp.config.name}: {st.turn_unit} {st.turn}: {st.stage}"
          + (f" (orders closed: {st.closed})" if st.closed else "") + f"; {due}"
          + ("; resolves itself when everything is in" if st.auto_resolve else ""))
    if not st.published:
        print("  the opening is not published yet (publish it from the GM sheet, or kingdomlog publish DIR --plan"
              " OPENING.json)")
    names = {p.id: camp.player_name(p.id) for p in st.players}
    wide = max((len(n) for n in names.values()), default=6)
    print(f"  {'player':<{wide}} {'submitted':<32} {'missing':<30} ready  questions open")
    for p in st.players:
        print(f"  {names[p.id]:<{wide}} {steps_words(p.id, p.submitted) or '-':<32} "
              f"{steps_words(p.id, p.missing) or '-':<30} "
              f"{'yes' if p.ready else 'no':<6} {', '.join(p.questions_open) or '-'}")
    open_q = [q for q in st.questions if not q.answered]
    for q in open_q:
        left = pbp.time_words((q.deadline - st.now).total_seconds()) if q.deadline else "no deadline"
        print(f"  waiting for {camp.viewer_name(q.to)}: {question_words(q)} ({q.kind.replace('_', ' ')}; {left})")
    if st.problem:
        print(f"  the resolution is refused: {st.problem}")
    if st.waiting_on:
        print(f"  waiting on: {', '.join(camp.viewer_name(p) for p in st.waiting_on)}")
    return 0


def cmd_deadline(args: argparse.Namespace) -> int:
    from kingdomlog.app import pbp
    from kingdomlog.app import submissions as subs
    from kingdomlog.core.errors import InputError

    camp = _campaign(args.dir)
    if args.at and args.in_:
        raise InputError("give --at or --in, not both")
    due = when(args.at) if args.at else (whole_minute(datetime.now(UTC) + timedelta(hours=hours(args.in_)))
                                         if args.in_ else None)
    if args.close:
        pbp.close_orders(camp)
        print(f"closed the orders of {camp.ruleset.turn_unit} {camp.next_turn()}")
    else:
        pbp.set_deadline(camp, orders_due=due, answer_hours=hours(args.answers) if args.answers else None,
                         auto_resolve=args.auto_resolve, clear=args.clear)
        st = pbp.status(camp)
        print(f"{st.turn_unit} {st.turn}: orders due "
              + (f"{subs.minute_words(st.orders_due)} ({st.time_left()})" if st.orders_due else "when all are ready")
              + f"; {st.answer_hours:g} h per question; "
              + ("resolves itself" if st.auto_resolve else "the GM commits the turn"))
    _advance(camp)
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    from kingdomlog.app import pbp
    from kingdomlog.cli_input import load_plan as _load_plan
    from kingdomlog.core.viewers import GM_VIEWER

    camp = _campaign(args.dir)
    res = pbp.publish(camp, _load_plan(args.plan))
    asked = pbp.questions(camp, GM_VIEWER)
    print(f"published the opening of {camp.ruleset.turn_unit} {camp.next_turn()} (seq {res.first_seq}); "
          + (f"{len(asked)} {'question' if len(asked) == 1 else 'questions'} to the players: "
             + ", ".join(question_words(q) for q in asked) if asked else "no question to the players"))
    return 0


def cmd_ready(args: argparse.Namespace) -> int:
    from kingdomlog.app import pbp

    camp = _campaign(args.dir)
    v = _viewer(camp, args.as_, player=True)
    pbp.mark_ready(camp, v, not args.not_ready)
    print(f"{camp.viewer_name(v)} is {'not ' if args.not_ready else ''}ready for {camp.ruleset.turn_unit}"
          f" {camp.next_turn()}")
    _advance(camp, v)
    return 0


def gist(text: str, most: int = 60) -> str:
    """The start of a question's text, to say beside its id what it asks: its first sentence, cut at a word.

    >>> gist("The poor ask for bread. Resolving it takes one action slot.")
    'The poor ask for bread'
    >>> gist("Giulia (intriguer) offers to serve you for 1 wealth; the hiring takes one action slot", 40)
    'Giulia (intriguer) offers to serve you…'
    """
    first = re.split(r"(?<=[^A-Z.])\.(?:\s|$)", text.strip(), maxsplit=1)[0].strip()
    if len(first) <= most:
        return first
    return first[:most].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def question_words(q: Any) -> str:
    """A question's id with what it asks beside it (``dilemma:winter_relief (“The poor ask for bread”)``): the
    id is what ``kingdomlog answer`` takes."""
    said = gist(q.prompt)
    return f"{q.id} (“{said}”)" if said else q.id


def seat_words(camp: Any, viewer: Any, seat: Any, state: Any) -> str:
    """What a seat is, in words: what it proposes, the player's leader and the role it holds there (``Leadership
    activities, Ysolde as the Ruler``; ``Orders of battle 1, Amiri as the General``). The role is the seat's
    ``role``, else what its label says acts (``General: orders of battle 1``), else none (``Aino's actions``: the
    leader alone); the leader is named as ``state`` (the player's view) names it."""
    from kingdomlog.views.words import namer

    leader = namer(camp.ruleset, state)(camp.character(viewer.id))
    who, _, what = seat.label.rpartition(": ") if ": " in seat.label else ("", "", seat.label)
    role = seat.fixed.get("role")
    said = camp.ruleset.name_of(str(role), "role") if role else who
    what = what[:1].upper() + what[1:]
    return f"{what}, {leader} as the {said}" if said else f"{what}, {leader}" if leader not in what else what


def _answer_value(q: Any, raw: str) -> Any:
    """An option's number (1-based), its label or its words as listed (``Hire``; any case), else the text as
    JSON."""
    from kingdomlog.views.words import answer_words

    if raw.isdigit() and 1 <= int(raw) <= len(q.options):
        return q.options[int(raw) - 1].value
    for o in q.options:
        if o.label == raw or answer_words(q, o.value).casefold() == raw.strip().casefold():
            return o.value
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def cmd_answer(args: argparse.Namespace) -> int:
    from kingdomlog.app import pbp
    from kingdomlog.core.errors import InputError
    from kingdomlog.views.words import answer_words

    camp = _campaign(args.dir)
    v = _viewer(camp, args.as_, player=True)
    mine = pbp.questions(camp, v)
    if args.question is None:
        if args.json:
            _out([{"id": q.id, "kind": q.kind, "prompt": q.prompt, "answered": q.answered, "answer": q.answer,
                   "default": q.default, "deadline": q.deadline.isoformat() if q.deadline else None,
                   "options": [{"n": i, "value": o.value, "label": o.label} for i, o in enumerate(q.options, 1)]}
                  for q in mine])
            return 0
        if not mine:
            print(f"no questions for {camp.viewer_name(v)} this {camp.ruleset.turn_unit}")
        for item in mine:
            if item.answered:
                state = f"answered: {answer_words(item, item.answer)}" + (" (the default)" if item.by_default else "")
            else:
                state = f"OPEN until {item.deadline:%Y-%m-%d %H:%M} UTC" if item.deadline else "OPEN"
            print(f"{question_words(item)} [{state}]\n  {item.prompt}")
            for i, o in enumerate(item.options, 1):
                print(f"    {i}. {answer_words(item, o.value)}" + (f" ({o.detail})" if o.detail else ""))
        return 0
    q = next((x for x in mine if x.id == args.question), None)
    if q is None:
        open_ = "; ".join(question_words(x) for x in mine if not x.answered)
        raise InputError(f"no question {args.question!r} for {camp.viewer_name(v)}"
                         + (f"; theirs: {open_}" if open_ else f"; `kingdomlog answer DIR --as {v.id}` lists them"))
    if args.value is None:
        raise InputError("give the answer: an option's number, its label, or JSON")
    value = _answer_value(q, args.value)
    pbp.answer(camp, v, q.id, value, turn=q.turn)  # the turn whose question this is: refused if it moved on
    print(f"{camp.viewer_name(v)} answered {question_words(q)}: {answer_words(q, value)}")
    _advance(camp, v)
    return 0


def cmd_message(args: argparse.Namespace) -> int:
    from kingdomlog.app import pbp
    from kingdomlog.core.errors import InputError

    camp = _campaign(args.dir)
    v = _viewer(camp, args.as_ or "gm")
    if args.list:
        for m in pbp.messages(camp, v):  # as the orders page heads one: "month 8 · from Duke Fabian to …"
            to = ", ".join(camp.viewer_name(t) for t in m.to) or "everyone (an open letter)"
            print(f"{camp.ruleset.turn_unit} {m.turn} · from {camp.viewer_name(m.sender)} to {to}"
                  + (f" · {m.subject}" if m.subject else "") + f"\n  {m.text}")
        return 0
    if not args.text:
        raise InputError("write the message's text (or --list to read yours)")
    res = pbp.send_message(camp, v, args.to or [], " ".join(args.text), subject=args.subject or "")
    to = ", ".join(camp.viewer_name(t) for t in args.to or []) or "everyone (an open letter)"
    print(f"sent (seq {pbp.own_seq(camp, v, res.first_seq)}) from {camp.viewer_name(v)} to {to}")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    from kingdomlog.app import pbp
    from kingdomlog.cli_input import load_plan as _load_plan

    camp = _campaign(args.dir)
    plan = _load_plan(args.plan) if args.plan else None
    if args.close:
        pbp.close_orders(camp)
    res = pbp.advance(camp, plan=plan, commit=True if args.commit else None)
    for line in res.done or ["nothing to do now"]:
        print(line)
    st = res.status
    if st.problem:
        print(f"kingdomlog: error: the resolution is refused: {st.problem}", file=sys.stderr)
        return 1
    if res.committed is None and st.waiting_on:
        print(f"waiting on: {', '.join(camp.viewer_name(p) for p in st.waiting_on)} ({st.stage})")
    elif res.committed is None and st.stage == "to resolve":
        print("everything is in: commit with `kingdomlog resolve DIR --commit` (or the GM sheet)")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from kingdomlog.server import serve

    return serve(Path(args.dir), host=args.host, port=args.port, secure=args.secure, open_public=args.open_public,
                 new_credentials=args.new_credentials, gm_sheet=not args.no_gm_sheet, url=args.url)


# ---- parser ------------------------------------------------------------------------------------------------


def cmd_table(args: argparse.Namespace) -> int:
    """A player at the table from the command line: their seats and proposals and the feed (no act given), or
    ``--declare SEAT ROW`` (SEAT: its number as listed, or its id; ROW: the row's choices as JSON),
    ``--roll``/``--withdraw ID``, ``--say TEXT``. What it prints is what that player may read: a seat by its number
    and what it is, never its id."""
    from kingdomlog.app import table as tbl
    from kingdomlog.core.errors import InputError

    camp = _campaign(args.dir)
    v = _viewer(camp, args.as_)
    if not v.is_player:
        raise InputError("--as must name a player; the GM plays the turn on the sheet or with `kingdomlog turn`")
    op = tbl.opening(camp, v)
    if args.declare:
        which, text = args.declare
        seat = op.seats[int(which) - 1].id if which.isdigit() and 0 < int(which) <= len(op.seats) else which
        if seat not in {s.id for s in op.seats}:  # each seat said by its number (what --declare takes) and what it is
            yours = "; ".join(f"{i} ({seat_words(camp, v, s, op.view)})" for i, s in enumerate(op.seats, 1))
            raise InputError(f"--declare: no seat {which!r} of yours this {op.unit}; "
                             + (f"yours: {yours}" if yours else "you have none"))
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"--declare: the row {text!r} is not JSON ({exc.msg})") from None
        p, trial = tbl.declare(camp, v, seat, row)
        print(f"{p.id}: {p.title} declared. {tbl.odds_text(trial) or 'It rolls no dice.'}")
        return 0
    if args.roll or args.withdraw:
        mine = tbl.mine(camp, v, op.turn)
        asked = args.roll or args.withdraw
        if asked not in {p.id for p in mine}:  # each proposal said by its id and what it is
            listed = "; ".join(f"{p.id}: {p.title} ({p.status})" for p in mine)
            raise InputError(f"no proposal {asked!r} of yours this {op.unit}; "
                             + (f"yours: {listed}" if listed else "you have none"))
        p = tbl.roll(camp, v, args.roll) if args.roll else tbl.withdraw(camp, v, args.withdraw)
        print(f"{p.id}: {p.title}: {p.outcome if args.roll else 'withdrawn'}")
        return 0
    if args.say is not None:
        tbl.say(camp, v, args.say)
        return 0
    print(f"{camp.config.name}: {op.unit} {op.turn}, {camp.player_name(v.id)} at the table")
    for i, s in enumerate(op.seats, 1):
        print(f"  seat {i}: {seat_words(camp, v, s, op.view)}{': ' + s.help if s.help else ''}")
    for p in tbl.mine(camp, v, op.turn):
        print(f"  {p.id}: {p.title}: {p.status}{': ' + p.outcome if p.outcome else ''}"
              f"{': ' + p.note if p.note else ''}")
    from kingdomlog.views.table.feed import feed_text

    names = {pid: camp.player_name(pid) for pid in camp.players()}
    for ln in tbl.feed(camp, v, op.turn):
        print(f"  {ln.at[11:16]} {feed_text(ln, names)}")
    return 0


def add_commands(sub: Any) -> None:
    """Add the play-by-post commands to ``kingdomlog``'s subparsers."""
    from kingdomlog.cli_input import DIR_HELP, JSON_HELP

    s = sub.add_parser("serve", help="serve the whole table (GM sheet, each faction's orders and report, the public "
                                     "view) from one server, each page behind its own link")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface; put a TLS "
                                                       "reverse proxy in front, see docs/play-by-post.md)")
    s.add_argument("--port", type=int, default=2730, help="port to serve on (default 2730)")
    s.add_argument("--secure", action="store_true", help="behind TLS: mark the login cookie Secure, print https links")
    s.add_argument("--url", help="the address players open (behind a reverse proxy: https://table.example.org); "
                                 "the printed links use it")
    s.add_argument("--open-public", action="store_true", help="the public view needs no link")
    s.add_argument("--new-credentials", action="store_true", help="make new links for everyone (old ones stop)")
    s.add_argument("--no-gm-sheet", action="store_true", help="do not serve the GM sheet (the GM plays by CLI)")
    s.set_defaults(fn=cmd_serve)

    s = sub.add_parser("table", help="a player at the table: their seats, proposals and the feed; declare a row, "
                                      "roll it, withdraw it, say something")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--as", dest="as_", metavar="PLAYER", required=True,
                   help="the player (their id, as `kingdomlog serve` lists them)")
    acts = s.add_mutually_exclusive_group()
    acts.add_argument("--declare", nargs=2, metavar=("SEAT", "ROW"),
                      help="propose a row from a seat (its number, as the seats are listed); ROW: its choices as "
                           "JSON")
    acts.add_argument("--roll", metavar="ID", help="roll a declared proposal (p1, p2, ...)")
    acts.add_argument("--withdraw", metavar="ID", help="take back a proposal before its roll")
    acts.add_argument("--say", metavar="TEXT", help="a line of talk to the whole table")
    s.set_defaults(fn=cmd_table)

    s = sub.add_parser("status", help="where the next turn stands: submitted, ready, missing, questions, time left")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--as", dest="as_", metavar="VIEWER", help="a player sees its own part only (default: the GM)")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_status)

    s = sub.add_parser("publish", help="GM: publish the next turn's opening (events, dilemmas, candidates) to the "
                                       "players before their orders")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--plan", required=True, help="plan JSON with the opening step(s) only, or - for stdin")
    s.set_defaults(fn=cmd_publish)

    s = sub.add_parser("deadline", help="GM: when the next turn's orders are due, how long each question stays "
                                        "open, whether the turn resolves itself")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--at", help="orders due at this time (ISO, with its zone: 2026-12-05T18:00+00:00)")
    s.add_argument("--in", dest="in_", metavar="DURATION", help="orders due in 48h, 2d, 90m from now")
    s.add_argument("--answers", metavar="DURATION", help="time each question stays open (default 24h)")
    s.add_argument("--auto-resolve", action=argparse.BooleanOptionalAction, default=None,
                   help="commit the turn by itself when everything is in")
    s.add_argument("--clear", action="store_true", help="no orders deadline: wait until every player is ready")
    s.add_argument("--close", action="store_true", help="close the orders now")
    s.set_defaults(fn=cmd_deadline)

    s = sub.add_parser("ready", help="a player says it is done with the next turn (--not to take it back)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--as", dest="as_", metavar="FACTION", required=True, help="the player or faction")
    s.add_argument("--not", dest="not_ready", action="store_true", help="take a ready back")
    s.set_defaults(fn=cmd_ready)

    s = sub.add_parser("answer", help="a player answers a question of the turn (no question: list them)")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("question", nargs="?", help="the question's id (see `kingdomlog answer DIR --as F`)")
    s.add_argument("value", nargs="?", help="an option's number or label, or the answer as JSON")
    s.add_argument("--as", dest="as_", metavar="FACTION", required=True, help="the player or faction answering")
    s.add_argument("--json", action="store_true", help=JSON_HELP)
    s.set_defaults(fn=cmd_answer)

    s = sub.add_parser("message", help="write to other factions (private, or an open letter), or --list yours")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("text", nargs="*", help="the message (words; quote it or not)")
    s.add_argument("--as", dest="as_", metavar="SENDER", help="a faction, or gm (default)")
    s.add_argument("--to", action="append", metavar="FACTION", help="a recipient (repeat); none: an open letter")
    s.add_argument("--subject", help="a subject line")
    s.add_argument("--list", action="store_true", help="the messages you may read")
    s.set_defaults(fn=cmd_message)

    s = sub.add_parser("resolve", help="GM: move the next turn on (close, ask, let defaults stand) and commit it "
                                       "when everything is in")
    s.add_argument("dir", help=DIR_HELP)
    s.add_argument("--plan", help="the GM's plan for the resolution (rulings), merged with the table's inputs")
    s.add_argument("--commit", action="store_true", help="commit when nothing is left to ask, even without "
                                                         "--auto-resolve")
    s.add_argument("--close", action="store_true", help="close the orders first")
    s.set_defaults(fn=cmd_resolve)
