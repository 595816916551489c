"""One turn's report for play-by-post: the kingdom in words, the turn's chronicle, the leaders and the map,
as Markdown, BBCode or HTML, with the map written beside it as an image (SVG and PNG).

The report is the player view of one turn (``views.player.page``): the same portrait (figures and
their change since the turn before), the same chronicle sentences, the same viewer's map
(``views.player.maps``), so it holds only what that viewer may see. ``write_report`` writes the
report file and ``<stem>-map.svg`` / ``<stem>-map.png`` next to it (PNG by vl-convert's SVG
renderer) and returns the paths written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from kingdomlog.core.errors import InputError
from kingdomlog.core.mapdata import MapData
from kingdomlog.core.portrait import Portrait
from kingdomlog.views.html import Html, document, h
from kingdomlog.views.player.chronicle import TurnStory
from kingdomlog.views.player.maps import map_html, standalone_svg, svg_to_png
from kingdomlog.views.player.page import (
    PAGE_CSS,
    PlayerView,
    change_sentence,
    generic_portrait,
    player_view,
    settlement_cards,
)

Format = Literal["md", "bbcode", "html"]
FORMATS: tuple[str, ...] = ("md", "bbcode", "html")


@dataclass
class TurnReport:
    """What one viewer is told of one turn."""

    campaign: str
    name: str
    ruleset: str
    viewer: str
    turn: int
    turn_name: str
    previous_name: str | None
    portrait: Portrait
    story: TurnStory | None
    map: MapData | None
    viewer_name: str = ""
    """Who the viewer is, in words ("everyone", "Duke Fabian"): what "as ... sees it" says."""

    @property
    def title(self) -> str:
        return f"{self.name} — {self.turn_name}"

    @property
    def who(self) -> str:
        return self.viewer_name or ("the GM" if self.viewer == "gm" else "everyone" if self.viewer == "public"
                                    else self.viewer)


def turn_report(folder: Path, viewer: str, turn: int | None = None, *, view: PlayerView | None = None) -> TurnReport:
    """The report of ``turn`` (default: the last) for ``viewer``; ``InputError`` for a turn the log does not have."""
    v = view or player_view(folder, viewer)
    hist = v.history
    if hist is None or not hist.turns:
        raise InputError(f"{folder}: nothing has been played yet")
    t = hist.turns[-1] if turn is None else turn
    if t not in hist.states:
        raise InputError(f"{folder} has no turn {t}; turns played: {hist.turns[0]}–{hist.turns[-1]}")
    rs, vw = v.ruleset_obj, v.viewer_obj
    assert rs is not None and vw is not None
    state, prev = hist.states[t], hist.previous(t)
    portrait = _untold(rs.portrait(state, prev, vw) or generic_portrait(rs, state, prev, v.name), hist.story(t))
    earlier = [x for x in hist.turns if x < t]
    maps = dict(v.maps)
    return TurnReport(campaign=v.campaign, name=v.name, ruleset=v.ruleset, viewer=v.viewer, turn=t,
                      turn_name=v.turn_name(t), previous_name=v.turn_name(earlier[-1]).lower() if earlier else None,
                      portrait=portrait, story=hist.story(t), map=maps.get(t), viewer_name=v.who)


def _said(line: str) -> str:
    return line.strip().rstrip(".").lower()


def _untold(p: Portrait, story: TurnStory | None) -> Portrait:
    """``p`` without the lines of its sections that the turn's story already tells (a Signoria faction's
    "Reports this month" are its story's "What we learned"): a report says each thing once."""
    if story is None or not p.sections:
        return p
    told = {_said(x) for x in (*story.lines, *(y for ys in story.sections.values() for y in ys))}
    kept = [replace(sec, lines=tuple(x for x in sec.lines if _said(x) not in told)) for sec in p.sections]
    return replace(p, sections=tuple(sec for sec in kept if sec.lines))


def _value(v: object, unit: str) -> str:
    if v is None:
        return "unknown"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return f"{v:,g}" + (f" {unit}" if unit else "")
    return str(v)


def _figure_lines(r: TurnReport) -> list[tuple[str, str, str]]:
    out = []
    for f in r.portrait.figures:
        d = f.change
        ch = "" if d in (None, 0) else f"{d:+,g}"
        out.append((f.label, _value(f.value, f.unit), ch))
    return out


def _story_blocks(s: TurnStory | None) -> list[tuple[str, Sequence[str]]]:
    if s is None:
        return [("What happened", ["A quiet time."])]
    blocks: list[tuple[str, Sequence[str]]] = list(s.sections.items())
    if s.lines or not blocks:
        blocks.append(("What happened", s.lines or ["A quiet time."]))
    return blocks


def to_markdown(r: TurnReport, image: str | None) -> str:
    """The report as Markdown (forums that take Markdown, a wiki, a chat)."""
    p = r.portrait
    out = [f"# {r.title}", "", f"*{r.ruleset} · as {r.who} sees it*", "", p.headline, ""]
    out += [*(s for s in p.sentences), ""] if p.sentences else []
    if r.previous_name and p.figures:
        out += [change_sentence(p.figures, r.previous_name), ""]
    if p.figures:
        out += ["| Figure | Now | Change |", "|---|---:|---:|"]
        out += [f"| {a} | {b} | {c or '—'} |" for a, b, c in _figure_lines(r)]
        out.append("")
    for sec in p.sections:
        out += [f"## {sec.title}", "", *(f"- {x}" for x in sec.lines), ""]
    out += [f"## {r.turn_name}", ""]
    for title, lines in _story_blocks(r.story):
        out += [f"**{title}**", "", *(f"- {x}" for x in lines), ""]
    if r.story:
        for title, text in r.story.notes:
            out += [f"> **{title or 'Note'}**: {text}", ""]
        out += [*(f"*{u}*" for u in r.story.undone), ""] if r.story.undone else []
    if p.leaders:
        out += ["## Leaders", "", *(f"- {x.role}: **{x.name}**" + (f" ({x.note})" if x.note else "")
                                    for x in p.leaders), ""]
    if image:
        out += [f"![Map: {r.title}]({image})", ""]
    return "\n".join(out).rstrip() + "\n"


def _bb(text: str) -> str:
    """Text with BBCode's brackets neutralised (a name like ``[b]`` stays text)."""
    return text.replace("[", "(").replace("]", ")")


def to_bbcode(r: TurnReport, image: str | None) -> str:
    """The report as BBCode (phpBB, vBulletin, Discourse's BBCode, most play-by-post forums)."""
    p = r.portrait
    out = [f"[size=150][b]{_bb(r.title)}[/b][/size]", f"[i]{_bb(r.ruleset)} · as {_bb(r.who)} sees it[/i]", "",
           _bb(p.headline)]
    out += [_bb(s) for s in p.sentences]
    if r.previous_name and p.figures:
        out += ["", _bb(change_sentence(p.figures, r.previous_name))]
    if p.figures:
        out += ["", "[list]", *(f"[*][b]{_bb(a)}[/b]: {_bb(b)}" + (f" ({c})" if c else "")
                                for a, b, c in _figure_lines(r)), "[/list]"]
    for sec in p.sections:
        out += ["", f"[b]{_bb(sec.title)}[/b]", "[list]", *(f"[*]{_bb(x)}" for x in sec.lines), "[/list]"]
    out += ["", f"[size=120][b]{_bb(r.turn_name)}[/b][/size]"]
    for title, lines in _story_blocks(r.story):
        out += [f"[b]{_bb(title)}[/b]", "[list]", *(f"[*]{_bb(x)}" for x in lines), "[/list]"]
    if r.story:
        for title, text in r.story.notes:
            out += [f"[quote][b]{_bb(title or 'Note')}[/b]: {_bb(text)}[/quote]"]
        out += [f"[i]{_bb(u)}[/i]" for u in r.story.undone]
    if p.leaders:
        out += ["", "[b]Leaders[/b]", "[list]", *(f"[*]{_bb(x.role)}: [b]{_bb(x.name)}[/b]"
                                                  + (f" ({_bb(x.note)})" if x.note else "") for x in p.leaders),
                "[/list]"]
    if image:
        out += ["", f"[img]{image}[/img]"]
    return "\n".join(out).rstrip() + "\n"


def to_html(r: TurnReport, image: str | None) -> Html:
    """The report as one self-contained HTML page (the map inline; no script, no URL)."""
    p = r.portrait
    parts = [h("h1", r.title, class_="kl-h1"), h("p", f"{r.ruleset} · as {r.who} sees it", class_="kl-sub"),
             h("p", p.headline, class_="kl-lead"), *(h("p", s) for s in p.sentences)]
    if r.previous_name and p.figures:
        parts.append(h("p", change_sentence(p.figures, r.previous_name), class_="kl-change"))
    if p.figures:
        parts.append(h("div", (h("div", h("div", label, class_="kl-card-label"),
                                  h("div", value, h("span", change, class_="kl-delta kl-changed") if change else None,
                                    class_="kl-card-value"), class_="kl-card")
                               for label, value, change in _figure_lines(r)), class_="kl-cards"))
    for sec in p.sections:
        parts += [h("h2", sec.title, class_="kl-h2"), h("ul", (h("li", x) for x in sec.lines))]
    parts.append(h("h2", r.turn_name, class_="kl-h2"))
    for title, lines in _story_blocks(r.story):
        parts += [h("h4", title, class_="kl-h4"), h("ul", (h("li", x) for x in lines), class_="kl-story")]
    if r.story:
        parts += [h("blockquote", h("b", t or "Note"), ": ", x) for t, x in r.story.notes]
    if r.map is not None:
        parts += [h("h2", "The map", class_="kl-h2"), map_html(r.map)]
        if r.map.settlements:
            parts.append(settlement_cards(r.map.settlements))
    if p.leaders:
        parts += [h("h2", "Leaders", class_="kl-h2"),
                  h("ul", (h("li", h("span", x.role, class_="kl-role"), " ", h("b", x.name)) for x in p.leaders),
                    class_="kl-leaders")]
    return document(r.title, PAGE_CSS, parts)


RENDERERS = {"md": to_markdown, "bbcode": to_bbcode, "html": to_html}
SUFFIX = {"md": ".md", "bbcode": ".bbcode.txt", "html": ".html"}


def default_output(r: TurnReport, fmt: str) -> Path:
    """``<campaign>-<viewer>-turn-<N>.<ext>`` in the working folder."""
    return Path(f"{r.campaign}-{r.viewer}-turn-{r.turn:02d}{SUFFIX[fmt]}")


def report_text(folder: Path, viewer: str, *, turn: int | None = None, fmt: str = "md") -> str:
    """The report of ``turn`` for ``viewer`` as ``fmt``, with no map file beside it (``kingdomlog report -o -``:
    the text for standard output; an HTML report still draws its map inline)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown report format {fmt!r}; formats: {', '.join(FORMATS)}")
    return str(RENDERERS[fmt](turn_report(folder, viewer, turn), None))


def write_report(folder: Path, viewer: str, *, turn: int | None = None, fmt: str = "md",
                 output: Path | None = None, png: bool = True) -> list[Path]:
    """Write the report of ``turn`` for ``viewer`` as ``fmt`` and its map beside it; the paths written, in order."""
    if fmt not in FORMATS:
        raise InputError(f"unknown report format {fmt!r}; formats: {', '.join(FORMATS)}")
    r = turn_report(folder, viewer, turn)
    out = output or default_output(r, fmt)
    stem = out.name.removesuffix(SUFFIX[fmt]) if out.name.endswith(SUFFIX[fmt]) else out.stem
    written: list[Path] = []
    image: str | None = None
    files: list[tuple[Path, bytes]] = []
    if r.map is not None:
        svg = standalone_svg(r.map)
        svg_path = out.with_name(f"{stem}-map.svg")
        files.append((svg_path, svg.encode("utf-8")))
        image = svg_path.name
        if png:
            png_path = out.with_name(f"{stem}-map.png")
            files.append((png_path, svg_to_png(svg, scale=1.0)))
            image = png_path.name
    files.insert(0, (out, RENDERERS[fmt](r, image).encode("utf-8")))
    for path, data in files:
        try:
            path.write_bytes(data)
        except OSError as exc:
            raise InputError(f"{path}: cannot write: {exc.strerror}") from None
        written.append(path)
    return written
