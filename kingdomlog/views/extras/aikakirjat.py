"""Aikakirjat's extras: the session planner (its GM sheet panel, notebooks/session.py and ``kingdomlog session``), an
aikakirjat growth session planned year by year, its figures as rows, charts and a table, and its commit.

No rule lives here. The planning is ``rulesets.aikakirjat.session.plan_session`` with the GM's policy
(``rulesets.aikakirjat.policy``); this module opens the campaign, turns a plan into words and figures, and
commits its years through ``Campaign`` (one turn per year, each checked against the plan before it is written).
``panel_html`` is the whole preview as one HTML fragment, for the turn sheet's "plan the session" panel.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kingdomlog.app import Campaign
from kingdomlog.core.errors import ConflictError, InputError, RuleError
from kingdomlog.dice.roller import new_seed
from kingdomlog.rulesets.aikakirjat import rules as R
from kingdomlog.rulesets.aikakirjat import tables
from kingdomlog.rulesets.aikakirjat.events import ACTION_TYPES
from kingdomlog.rulesets.aikakirjat.mapview import record_names
from kingdomlog.rulesets.aikakirjat.policy import STEWARD, Policy, incident_war
from kingdomlog.rulesets.aikakirjat.session import (
    Overrides,
    SessionPlan,
    SessionStatus,
    SessionYear,
    plan_session,
    session_status,
)
from kingdomlog.rulesets.aikakirjat.state import KingdomState
from kingdomlog.rulesets.aikakirjat.tables import TRACKS
from kingdomlog.rulesets.aikakirjat.vocabulary import action_name
from kingdomlog.views.extras import Command, Extras, Page, Panel
from kingdomlog.views.html import EMPTY, Html, h, join, style
from kingdomlog.views.player.charts import CHART_STYLE, chart_grid, line_chart_svg, series

ENV_CAMPAIGN = "KINGDOMLOG_CAMPAIGN"
RULESET_ID = "aikakirjat"

EVENT_WORDS = {
    "evil_manifested": "evil takes form", "natural_disaster": "natural disaster", "plague": "plague",
    "poor_harvest": "poor harvest", "bad_omens": "bad omens", "nothing": "quiet year", "good_omens": "good omens",
    "neighbour_event": "neighbour event", "good_harvest": "good harvest", "trade_boom": "trade boom",
    "new_god": "a new god",
}
"""The random events (§3.7) in words."""


def in_words(ids: Sequence[str]) -> dict[str, str]:
    """Options of a page's dropdown or multiselect by their names in words, each giving its id back:
    ``reduce_unrest`` → "reduce unrest" (the planner's policy actions, the advantages' uses).

    >>> in_words(["reduce_unrest", "hold"])
    {'reduce unrest': 'reduce_unrest', 'hold': 'hold'}
    """
    return {i.replace("_", " "): i for i in ids}



def event_faces(s: KingdomState, key: str) -> tuple[int, int] | None:
    """Two d6 faces that give random event ``key`` (§3.7) this year, the omen modifier counted (2d6 + omen,
    §4.2); None when no roll of 2d6 can give it this year.

    >>> event_faces(KingdomState(), "plague"), event_faces(KingdomState(omen_modifier=-1), "plague")
    ((1, 2), (1, 3))
    """
    for total, k in sorted(tables.random_events().items()):
        dice = total - s.omen_modifier
        if k == key and 2 <= dice <= 12:
            return (1, dice - 1) if dice <= 7 else (dice - 6, 6)
    return None


def event_options(s: KingdomState) -> dict[str, str]:
    """The random events a GM may type for a year that starts in ``s`` (label → result key)."""
    out = {"(as the dice fall)": ""}
    for key, words in EVENT_WORDS.items():
        if event_faces(s, key) is not None:
            out[words] = key
    return out


# --- the campaign ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionStart:
    """A campaign ready to plan: its next turn, the log's last seq, the state and where its session stands."""

    folder: Path
    campaign: str
    name: str
    turn: int
    start_seq: int
    state: KingdomState
    status: SessionStatus


def open_session(folder: str | Path) -> SessionStart:
    """Open an aikakirjat campaign for planning; ``InputError`` for another ruleset or an unfounded kingdom."""
    camp = Campaign.open(folder)
    if camp.config.ruleset != RULESET_ID:
        raise InputError(f"{camp.folder}: growth sessions are aikakirjat's (§4.0); this campaign plays"
                         f" {camp.ruleset.name}")
    start = camp.turn_start()
    state = start.state
    if not isinstance(state, KingdomState) or not state.founded:
        raise InputError(f"{camp.folder}: the kingdom is not founded yet; play turn 0 first (kingdomlog turn)")
    return SessionStart(Path(folder), camp.id, camp.config.name, start.turn, start.start_seq, state,
                        session_status(state))


def plan(start: SessionStart, *, policy: Policy = STEWARD, overrides: Overrides | None = None,
         years: int | None = None, seed: str | None = None) -> SessionPlan:
    """The rest of the session from ``start`` (or its next ``years``), each year checked as a commit would be."""
    return plan_session(start.state, campaign=start.campaign, first_turn=start.turn, seed=seed or new_seed(),
                        policy=policy, overrides=overrides, years=years, verify=True)


@dataclass(frozen=True)
class Committed:
    """One year written to the log."""

    turn: int
    first_seq: int
    last_seq: int


def commit(folder: str | Path, sp: SessionPlan, *, years: int | None = None) -> list[Committed]:
    """Commit the planned years in order (the next ``years``, or all), one turn each.

    Each year is previewed again from the log as it stands (``Campaign.preview``) and written only if it gives
    the planned state; a log that moved since the plan (another commit, a retraction) stops the commit with a
    ``ConflictError`` before anything of that year is written. Years already in the log are skipped, so a
    commit can be repeated after a partial one.
    """
    camp = Campaign.open(folder)
    done: list[Committed] = []
    todo = list(sp.years if years is None else sp.years[: max(0, years)])
    for y in todo:
        start = camp.turn_start()
        if start.turn > y.turn:
            continue
        if start.turn != y.turn:
            raise ConflictError(y.turn, start.turn)
        preview = camp.preview(y.plan, start=start)
        if not preview.ok:
            raise RuleError(f"year {y.turn} is refused now: {preview.error}")
        if preview.state_after != y.state_after:
            raise InputError(f"year {y.turn} no longer plays as planned (the campaign changed); plan again")
        res = camp.commit(preview)
        done.append(Committed(y.turn, res.first_seq, res.last_seq))
    return done


# --- the years in words and figures ------------------------------------------------------------------------------


def _worst(s: KingdomState) -> int:
    return min(s.tracks[t].modifier for t in TRACKS)


def figures(s: KingdomState) -> dict[str, Any]:
    """The figures a session is watched by (§2): what the charts and the table show for a year."""
    return {"unrest": s.unrest, "population": s.population, "fame": s.fame, "level": s.level,
            "militia": s.militia, "stored advantages": s.stored_advantages, "worst corruption": _worst(s),
            "government": s.government}


def _outcome(p: Any) -> str:
    """What an action did, in words, from the numbers its event recorded (§3.10)."""
    a, au = p.action, p.audit
    band = str(au.get("band", ""))
    tr = ", ".join(f"{k} +{v}" for k, v in (au.get("tracks") or {}).items())
    if a == "reduce_unrest":
        ch = au.get("unrest_change")
        return f"Unrest {ch:+d}" if ch else "no effect"
    if a == "reduce_corruption":
        if band == "tyranny":
            return f"tyranny: Unrest +{au.get('unrest', 0)}"
        if band == "nothing":
            return "no effect"
        out = f"{p.target_track} −{au.get('target_reduction', 0)}"
        others = au.get("others") or {}
        if others:
            out += ", others −" + "/".join(str(v) for v in others.values())
        return out + (f", Unrest −{au['unrest_reduction']}" if au.get("unrest_reduction") else "")
    if a == "attract_population":
        extra = f", {p.use_positive} +{au['positive_points']}" if au.get("positive_points") else ""
        if band == "incident":
            return f"incident: diplomacy now {au.get('diplomacy', '?')}{extra}"
        if band == "not_their_best":
            nb = au.get("not_their_best") or {}
            return f"+1 population, {nb.get('track', '?')} +{nb.get('points', '?')}{extra}"
        gained = au.get("population_gained", 0)
        return (f"+{gained} population" if gained else "no one came") + extra
    if a == "tax_collection":
        if band == "tyranny":
            return f"tyranny: Unrest +{au.get('unrest', 0)}, {tr}"
        if band == "year_advantage":
            return "an advantage for this year" if au.get("advantage_taken") else "no effect (the advantage declined)"
        return {"store_one": "1 advantage stored", "store_two": "2 advantages stored"}.get(band, band)
    if a == "embassy":
        return {"improved": f"diplomacy now {au.get('diplomacy')}", "annexed": "joins the kingdom",
                "worsened": f"diplomacy now {au.get('diplomacy')}", "no_effect": "no effect"}.get(band, band)
    if a == "declare_war":
        words = {"tyranny": f"tyranny: Unrest +{au.get('unrest', 0)}, {tr}", "unpopular":
                 f"unpopular: Unrest +{au.get('unrest', 0)}", "accepted": "accepted",
                 "eager": f"eager: militia +{au.get('militia_gained', 0)}"}
        return f"war begins ({words.get(band, band)})"
    if a == "research":
        if band == "catastrophe":
            return f"catastrophe: closed {au.get('disabled_years')} years, decay +{au.get('decay')}"
        return {"one": "+1 research", "two": "+2 research"}.get(band, "no result")
    if a == "equip":
        if band == "abyss":
            return f"wasted: {tr}"
        return f"{au.get('dice', 0)} dice ({au.get('naval', 0)} naval)" if au.get("dice") else "no effect"
    if a == "building_project":
        return f"+{au.get('points', 0)} points" + (", completed" if au.get("completed") else "")
    return str(band)


def _action_words(p: Any, state: KingdomState | None = None) -> str:
    """An action of a planned year in words, its PC and neighbour by their names in ``state``: "reduce unrest by
    Ilmari (persuasion) [11] → no effect"."""
    names = {**{k: n.name for k, n in state.neighbours.items()}, **{k: c.name for k, c in state.pcs.items()}} \
        if state is not None else {}
    target = p.target_track or names.get(p.neighbour_id or "", p.neighbour_id) or p.project_id or p.institution_id \
        or ""
    who = f" by {names.get(p.pc_id, p.pc_id)}" if p.performer == "pc" else " by the Court" \
        if p.performer == "court" else ""
    skill = f" ({p.skill})" if p.action == "reduce_unrest" and p.skill else ""
    total = p.audit.get("check", {}).get("total")
    roll = f" [{total}]" if total is not None else ""
    return f"{p.action.replace('_', ' ')}{' ' + target if target else ''}{who}{skill}{roll} → {_outcome(p)}"


def year_events(y: SessionYear) -> dict[str, Any]:
    """What happened in a planned year, in words: the random event, growth, actions and the rest."""
    event, growth, actions, notes = "", "", [], []
    for d in y.drafts:
        t = d.type.split(".", 1)[1]
        p: Any = d.payload
        if t == "random_event_rolled":
            event = EVENT_WORDS.get(p.audit.get("result_key", ""), p.audit.get("result_key", ""))
        elif t == "neighbour_event_rolled":
            who = y.state_after.neighbours.get(p.neighbour_id)
            event += f": {who.name if who is not None else p.neighbour_id}" \
                     f" {str(p.audit.get('result_key', '')).replace('_', ' ')}"
        elif t in ("natural_disaster_resolved", "plague_resolved"):
            event += f" (+{p.audit.get('unrest', 0)} unrest" + (f", −{p.audit['loss']} population" if
                                                                 p.audit.get("loss") else "") + ")"
        elif t == "growth_rolled":
            dc = p.audit.get("dc")
            growth = "no room" if dc is None else f"{'+1' if p.audit.get('success') else 'failed'} (DC {dc})"
        elif t == "action_taken":
            actions.append(_action_words(p, y.state_after))
        elif t == "revolution_rolled":
            gov = p.audit.get("government")
            notes.append(f"REVOLUTION: {str(p.audit.get('result_key', '')).replace('_', ' ')}"
                         + (f" → {gov}" if gov else ""))
        elif t == "war_begun":
            notes.append(f"war with {p.attacker if p.defender == 'players' else p.defender} begins")
        elif t == "war_ended":
            notes.append(f"war ends ({p.reason.replace('_', ' ')}{', won' if p.winner == 'players' else ''})")
        elif t == "level_changed":
            notes.append(f"level {p.from_level} → {p.to_level}")
        elif t == "benefit_chosen":
            notes.append(f"chose {p.feat or p.benefit.replace('_', ' ')}")
        elif t == "session_started":
            notes.append(f"session {p.session_no} begins: {p.audit.get('years_total')} years")
        elif t == "session_ended":
            notes.append(f"session {p.session_no} ends")
    return {"event": event, "growth": growth, "actions": actions, "notes": notes}


def rows(sp: SessionPlan) -> list[dict[str, Any]]:
    """One row per planned year: the year, what happened, the figures after it, why, what the GM changed."""
    out = []
    for y in sp.years:
        ev = year_events(y)
        out.append({"year": y.turn, **ev, **figures(y.state_after), "why": list(y.reasons),
                    "changed": list(y.overridden),
                    "revolution": any("REVOLUTION" in n for n in ev["notes"])})
    return out


def start_row(start: SessionStart) -> dict[str, Any]:
    return {"year": start.state.year, **figures(start.state)}


def summary(sp: SessionPlan) -> str:
    """One sentence about the plan."""
    if not sp.years:
        return "Nothing to plan."
    end = sp.state_after
    revs = sum(1 for r in rows(sp) if r["revolution"])
    what = "the session ends" if sp.complete else "the plan stops"
    return (f"{len(sp.years)} year(s), {sp.years[0].turn}–{sp.years[-1].turn}; {what} at level {end.level},"
            f" population {end.population}, fame {end.fame}, unrest {end.unrest};"
            f" {revs} revolution roll(s).")


def text_table(sp: SessionPlan, *, why: bool = True) -> str:
    """The plan as a text table (``kingdomlog session``): long cells wrap, each year's reasons under it."""
    import textwrap

    w_ev, w_gr, w_act = 20, 14, 50
    head = (f"{'year':>4}  {'random event':<{w_ev}} {'growth':<{w_gr}} {'actions → outcome':<{w_act}} {'unrest':>6}"
            f" {'pop':>4} {'fame':>4} {'lvl':>3} {'mil':>4} {'adv':>3} {'corr':>4}  notes")
    lines = [head, "-" * len(head)]
    for r in rows(sp):
        ev = textwrap.wrap(r["event"], w_ev) or [""]
        gr = textwrap.wrap(r["growth"], w_gr) or [""]
        acts = [part for a in (r["actions"] or ["—"]) for part in textwrap.wrap(a, w_act, subsequent_indent="  ")]
        first = (f" {r['unrest']:>6} {r['population']:>4} {r['fame']:>4} {r['level']:>3} {r['militia']:>4}"
                 f" {r['stored advantages']:>3} {r['worst corruption']:>4}  {'; '.join(r['notes'])}")
        for i in range(max(len(ev), len(gr), len(acts))):
            cells = (f"{r['year'] if i == 0 else '':>4}  {ev[i] if i < len(ev) else '':<{w_ev}}"
                     f" {gr[i] if i < len(gr) else '':<{w_gr}} {acts[i] if i < len(acts) else '':<{w_act}}")
            lines.append((cells + (first if i == 0 else "")).rstrip())
        if why:
            lines.extend(textwrap.fill(w, 118, initial_indent="      why: ", subsequent_indent=" " * 11)
                         for w in r["why"])
    return "\n".join(lines)


def json_doc(start: SessionStart, sp: SessionPlan) -> dict[str, Any]:
    """The plan as JSON (``kingdomlog session --json``): status, policy, each year's plan, words and figures."""
    return {
        "campaign": start.campaign, "next_turn": start.turn, "expect_seq": start.start_seq,
        "status": {"session_no": start.status.session_no, "years_total": start.status.years_total,
                   "years_played": start.status.years_played, "under_way": start.status.under_way,
                   "remaining": start.status.remaining, "text": start.status.describe()},
        "seed": sp.seed, "policy": sp.policy.model_dump(mode="json"), "complete": sp.complete,
        "summary": summary(sp),
        "years": [{**r, "plan": y.plan.model_dump(mode="json")} for r, y in zip(rows(sp), sp.years, strict=True)],
    }


# --- charts and HTML ----------------------------------------------------------------------------------------------

CHART_FIGURES = ("unrest", "population", "fame", "level", "militia", "stored advantages", "worst corruption")


def charts_html(sp: SessionPlan, start: SessionStart | None = None) -> Html:
    """A small chart of each figure year by year (from the year the session starts in); Unrest against the
    revolution threshold (20, dashed), its revolution years marked ▲. Empty when nothing is planned."""
    if not sp.years:
        return EMPTY
    rows_ = ([start_row(start)] if start is not None else []) + rows(sp)
    revolts = {r["year"] for r in rows_ if r.get("revolution")}
    charts = []
    for f in CHART_FIGURES:
        pts = series(rows_, f, x="year")
        if f == "unrest":
            charts.append(line_chart_svg("Unrest", pts, turn_unit="year", rule=(20, "revolution at 20"),
                                         marked=revolts, marked_as="a revolution roll"))
        else:
            charts.append(line_chart_svg(f.capitalize(), pts, turn_unit="year"))
    return join([h("p", "The session year by year (Unrest: dashed, the revolution threshold; ▲ a revolution roll).",
                   class_="status"), chart_grid(charts)])


STYLE = """
.kl-sess {font: 14px/1.4 system-ui, sans-serif; max-width: 100%; overflow-x: auto}
.kl-sess table {border-collapse: collapse; font-size: 13px}
.kl-sess th, .kl-sess td {border-bottom: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top}
.kl-sess td.n {text-align: right; font-variant-numeric: tabular-nums}
.kl-sess tr.changed td {background: #fff7d6}
.kl-sess tr.revolution td {background: #fde2e0}
.kl-sess .why {color: #555; font-size: 12px; margin: 0; padding-left: 1em}
.kl-sess .status {font-weight: 600}
.kl-sess .kl-charts {margin: .4em 0 .8em}
""" + CHART_STYLE


def framed(*parts: Any) -> Html:
    """``parts`` in the planner's frame (``kl-sess``, with its CSS): how the sheet and the page show them."""
    return h("div", style(STYLE), parts, class_="kl-sess")


def table_html(sp: SessionPlan) -> Html:
    """The years as an HTML table (changed years and revolution years highlighted), reasons under the actions."""
    head = h("tr", (h("th", x) for x in ("year", "random event", "growth", "actions, and why", "unrest", "pop.", "fame",
                                          "level", "militia", "adv.", "corr.", "notes")))
    body = []
    for r in rows(sp):
        cls = " ".join(c for c, on in (("changed", r["changed"]), ("revolution", r["revolution"])) if on)
        numbers = (h("td", r[k], class_="n") for k in ("population", "fame", "level", "militia", "stored advantages",
                                                       "worst corruption"))
        body.append(h("tr", h("td", r["year"], " ✎" if r["changed"] else None, class_="n"), h("td", r["event"]),
                      h("td", r["growth"]),
                      h("td", join(r["actions"], h("br")) or "—", (h("p", w, class_="why") for w in r["why"])),
                      h("td", r["unrest"], class_="n"), numbers, h("td", "; ".join(r["notes"])),
                      class_=cls, data_year=r["year"]))
    return h("table", h("thead", head), h("tbody", body), class_="kl-sess-years")


def status_html(start: SessionStart) -> Html:
    s = start.state
    return join([h("p", f"{start.name} — {start.status.describe()}.", class_="status"),
                 h("p", f"After year {s.year}: level {s.level} ({R.title(s)}), population {s.population}, fame"
                        f" {s.fame}, unrest {s.unrest}, {s.government}; next turn {start.turn}.")])


def panel_html(folder: str | Path, *, policy: Policy = STEWARD, overrides: Overrides | None = None,
               years: int | None = None, seed: str | None = None, charts: bool = True) -> Html:
    """The whole session preview as one HTML fragment (status, charts as inline SVG, table): the turn sheet's
    "plan the session" panel. Errors become a message in the fragment, never an exception."""
    try:
        start = open_session(folder)
        sp = plan(start, policy=policy, overrides=overrides, years=years, seed=seed)
    except (InputError, RuleError) as exc:
        return framed(h("p", exc, class_="kl-error"))
    return framed(status_html(start), h("p", f"{summary(sp)} Dice seed ", h("code", sp.seed), "."),
                  charts_html(sp, start) if charts else None, table_html(sp))


# --- changing a year (the page's widgets) ----------------------------------------------------------------------------


def action_options(s: KingdomState) -> dict[str, dict[str, Any] | None]:
    """The actions a GM may put in a year's action slot, by label (None: the policy's choice), from the state
    the year starts in. The rules still judge each one when the year is planned."""
    out: dict[str, dict[str, Any] | None] = {"(the policy's choice)": None, "(no action)": {}}
    said = {a: action_name(a) for a in ACTION_TYPES}  # as the report names them: "Tax Collection"
    for t in TRACKS:
        tr = s.tracks[t]
        out[f"{said['reduce_corruption']}: {t.capitalize()} ({tr.points} pts, {tr.modifier:+d})"] = {
            "action": "reduce_corruption", "target_track": t}
    for n in s.neighbours.values():
        if n.status != "independent":
            continue
        risk = ", an incident could start a war" if incident_war(s, n.id) else ""
        out[f"{said['attract_population']}: {n.name} ({n.diplomacy:+d}, pop. {n.population}{risk})"] = {
            "action": "attract_population", "neighbour_id": n.id}
        out[f"{said['embassy']}: {n.name} (diplomacy {n.diplomacy:+d})"] = {"action": "embassy", "neighbour_id": n.id}
        out[f"{said['declare_war']}: {n.name}"] = {"action": "declare_war", "neighbour_id": n.id}
    for pid, pc in s.pcs.items():
        for skill in ("persuasion", "intimidation"):
            out[f"{said['reduce_unrest']}: {pc.name}, {skill.capitalize()} (bonus from the policy)"] = {
                "action": "reduce_unrest", "performer": "pc", "pc_id": pid, "skill": skill}
    if s.highest_level_reached >= 10:
        out[f"{said['reduce_unrest']}: the Court notable, Persuasion"] = {
            "action": "reduce_unrest", "performer": "court", "skill": "persuasion"}
    out[said["tax_collection"]] = {"action": "tax_collection"}
    out[said["tax_collection"] + ", taking this year's advantage"] = {"action": "tax_collection",
                                                                      "take_advantage": True}
    for p in s.building_projects:
        if not p.completed:
            out[f"{said['building_project']}: {p.name} ({p.points}/{p.points_required})"] = {
                "action": "building_project", "project_id": p.id}
    names = record_names(s)
    for i in s.institutions:
        if i.type in ("academy", "university"):
            out[f"{said['research']} at {names.get(i.id, i.id)}"] = {"action": "research", "institution_id": i.id}
    out[said["equip"]] = {"action": "equip"}
    return out


def action_slots(year: SessionYear) -> int:
    """How many action slots a year offers (§2.9: its actions per year; at least one)."""
    planned = year.plan.steps["actions"].choices.get("actions") or [] if "actions" in year.plan.steps else []
    start = year.state_before if year.state_before is not None else year.state_after
    return max(1, len(planned), R.actions_per_year(start))


def year_override(year: SessionYear, policy: Policy, slots: Sequence[dict[str, Any] | None],
                  event: str | None) -> dict[str, Any]:
    """The override of one planned year from the page's widgets: the actions per slot (None keeps the action the
    plan has there, ``{}`` takes none; a PC's bonus comes from the policy), and this year's random event typed as
    two faces (``event_faces``, the omen counted). Empty when nothing is changed."""
    over: dict[str, Any] = {}
    if any(a is not None for a in slots):
        planned = list(year.plan.steps["actions"].choices.get("actions") or []) if "actions" in year.plan.steps \
            else []
        acts = []
        for i, a in enumerate(slots):
            if a is None:
                if i < len(planned):
                    acts.append(planned[i])
                continue
            if a:
                body = dict(a)
                if body.get("performer") == "pc":
                    body["pc_bonus"] = policy.unrest_bonus
                acts.append(body)
        over["actions"] = {"choices": {"actions": acts}}
    if event:
        start = year.state_before if year.state_before is not None else year.state_after
        faces = event_faces(start, event)
        if faces is None:
            raise InputError(f"year {year.turn}: with its omen ({start.omen_modifier:+d}) no 2d6 gives {event}")
        over["events"] = {"rolls": {"event": list(faces)}}
    return over


def page_args(args: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Path:
    """The campaign folder of the page (``--campaign DIR`` or $KINGDOMLOG_CAMPAIGN); the page is the GM's, so a
    ``--viewer`` other than ``gm`` is refused."""
    environ = os.environ if env is None else env
    folder = args.get("campaign") or environ.get(ENV_CAMPAIGN)
    if not folder or not isinstance(folder, str):
        raise InputError("no campaign folder: run `kingdomlog session DIR --serve`, or pass `-- --campaign DIR`,"
                         f" or set {ENV_CAMPAIGN}")
    viewer = args.get("viewer") or "gm"
    if viewer != "gm":
        raise InputError(f"the session planner commits turns: it is the GM's page, not {viewer!r}'s")
    return Path(folder).expanduser()


# --- the command and the registry entry (views.extras) ------------------------------------------------------------


def _overrides(path: str) -> dict[int, Any]:
    """The changed years of ``--override FILE`` (``-`` for stdin): JSON ``{"YEAR": {"STEP": {...}}}``."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        doc = json.loads(text)
        return {int(k): v for k, v in doc.items()}
    except (json.JSONDecodeError, AttributeError, ValueError) as exc:
        raise InputError(f'{path}: changed years must be JSON {{"YEAR": {{"STEP": {{...}}}}}}: {exc}') from None


def session_command(args: argparse.Namespace) -> int:
    """``kingdomlog session DIR``: plan the rest of the growth session, print it (``--json``: as one document),
    commit it with ``--commit``. The arguments are declared by the CLI; ``--serve`` is the CLI's (it serves
    the ``session`` page)."""
    from kingdomlog.rulesets.aikakirjat.policy import parse_policy

    start = open_session(args.dir)
    overrides = _overrides(args.override) if args.override else None
    sp = plan(start, policy=parse_policy(args.policy or []), overrides=overrides, years=args.years, seed=args.seed)
    done = commit(args.dir, sp) if args.commit else []
    if args.json:
        doc = {**json_doc(start, sp), "committed": [c.__dict__ for c in done]}
        sys.stdout.write(json.dumps(doc, indent=2, default=str, ensure_ascii=False) + "\n")
        return 0
    print(f"{start.name}: {start.status.describe()}; policy {sp.policy.name}, dice seed {sp.seed}")
    print(text_table(sp))
    print(summary(sp))
    if done:
        print(f"committed {len(done)} year(s): turns {done[0].turn}-{done[-1].turn}, seq {done[0].first_seq}.."
              f"{done[-1].last_seq}")
    else:
        print(f"not committed: add --commit (with --seed {sp.seed} to commit these dice)")
    return 0


def _panel(folder: Path, seed: str | None) -> str:
    return panel_html(folder, seed=seed)


EXTRAS = Extras(
    panels=(Panel("The years ahead: this growth session planned by the steward policy"
                  " (change them with kingdomlog session)", _panel),),
    pages=(Page("session", "session", "Session planner", open_session),),
    commands=(Command("session", session_command),),
    seat_hidden=("situational",),
)
"""Aikakirjat's turns come in growth sessions planned ahead (§4.0): the sheet's years-ahead panel, the planner's
page and ``kingdomlog session``."""

__all__ = [
    "EXTRAS",
    "Committed",
    "SessionStart",
    "action_options",
    "action_slots",
    "charts_html",
    "commit",
    "event_faces",
    "event_options",
    "figures",
    "framed",
    "json_doc",
    "open_session",
    "page_args",
    "panel_html",
    "plan",
    "rows",
    "session_command",
    "summary",
    "table_html",
    "text_table",
    "year_override",
]
