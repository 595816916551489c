"""Input that reaches the GM sheet for widgets a rebuild has replaced: placed on the new ones, never dropped.

When an edit makes the sheet rebuild its widgets (a row added, an activity that brings other fields), the
page shows the old widgets until the new ones are drawn (a second or more on a loaded machine), and the
busy state (``views.sheet.live``) comes a moment after the edit. What the GM does on the old widgets
meanwhile reaches the kernel after the rebuild, for a widget no global names any more: marimo set its
value and ran nothing, and the edit was gone (an activity added a second after the one before was lost,
1 run in 3; 3 in 3 under load).

So the sheet keeps its last few builds of widgets alive (``LateInput``), and each build's dictionary
reports its changes here (its ``on_change``). A change to the build on the page is the notebook's
ordinary path. A change to an older build is late: its widget's key is followed to the build now on
the page (a row an earlier edit removed shifts the rows after it; an added row shifts nothing), its
value is given to that place (a click counter adds its clicks), the draft is read again and saved as if
the edit had been made there, and the widgets are rebuilt to show it. A change whose place is gone (its
row was removed meanwhile, its step is now edited as JSON) is said in the outcome box, never dropped
without a word. A hex picked on the map (an anywidget, which marimo closes with the build it belongs to)
cannot be followed: the map is disabled while a rebuild runs instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kingdomlog.views import forms as sf
from kingdomlog.views.sheet import live as sheet_live
from kingdomlog.views.sheet.draft import Outcome, SheetSession

__all__ = ["KEEP", "LateInput", "follow", "on_page", "shift", "widgets"]

KEEP = 6
"""How many builds of widgets are kept alive (the one on the page and the five before it)."""


@dataclass(eq=False)
class Build:
    """One build of the sheet's widgets: its dictionary and the values it last reported."""

    forms: Any = None
    seen: dict[str, Any] = field(default_factory=dict)
    basis: dict[str, Any] | None = None
    """Its values when the next build was made from them (what rows that build's draft had removed)."""


def _clicked(v: Any) -> bool:
    return bool(v)


def shift(key: str, basis: Mapping[str, Any]) -> str | None:
    """``key`` of a widget in one build, as the key of the same widget in the build made from ``basis``.

    A row removed in ``basis`` (its ``_remove`` clicked) is gone (None for a widget in it) and the rows
    after it move up; an added row moves nothing.

    >>> basis = {"s/c/acts/rows/#0/_remove": 1, "s/c/acts/rows/#1/_remove": 0, "s/c/acts/rows/#2/_remove": 0}
    >>> shift("s/c/acts/rows/#2/skill", basis), shift("s/c/acts/rows/#0/skill", basis), shift("s/c/acts/_add", basis)
    ('s/c/acts/rows/#1/skill', None, 's/c/acts/_add')
    """
    parts = key.split(sf.SEP)
    out = list(parts)
    for i, part in enumerate(parts):
        if i == 0 or parts[i - 1] != "rows" or not part.startswith("#") or not part[1:].isdigit():
            continue
        stem, n = sf.SEP.join(parts[:i]), int(part[1:])
        if _clicked(basis.get(f"{stem}{sf.SEP}#{n}{sf.SEP}{sf.REMOVE}")):
            return None
        gone = sum(1 for j in range(n) if _clicked(basis.get(f"{stem}{sf.SEP}#{j}{sf.SEP}{sf.REMOVE}")))
        out[i] = f"#{n - gone}"
    return sf.SEP.join(out)


def follow(key: str, bases: Sequence[Mapping[str, Any] | None]) -> str | None:
    """``key`` followed through each build made since (``bases``, oldest first); None when its place is gone."""
    for basis in bases:
        if basis is None:
            return None
        got = shift(key, basis)
        if got is None:
            return None
        key = got
    return key


class LateInput:
    """The builds of one session's widgets that a change may still arrive for, and what to do with it."""

    def __init__(self, session: SheetSession) -> None:
        self.session = session
        self.builds: list[Build] = []
        self.rebuild: Callable[[], None] = lambda: None
        """Rebuild the widgets (the notebook's layout state)."""
        self.tell: Callable[[Outcome], None] = lambda outcome: None
        """Show an outcome (the notebook's outcome box)."""
        self.next_basis: dict[str, Any] | None = None
        self.placed = 0
        """Late changes placed so far (for tests and benchmarks)."""

    @property
    def current(self) -> Build | None:
        return self.builds[-1] if self.builds else None

    def add(self, build: Build, forms: Any) -> None:
        """``forms`` (built for ``build``, whose ``changed`` is its ``on_change``) is now the build on the page."""
        build.forms = forms
        build.seen = dict(forms._value)  # what it starts with (marimo refuses .value in the cell that made it)
        if self.builds:
            last = self.builds[-1]
            last.basis = self.next_basis if self.next_basis is not None else dict(last.seen)
        self.next_basis = None
        self.builds.append(build)
        del self.builds[:-KEEP]

    def watcher(self) -> tuple[Build, Callable[[Any], None]]:
        """A new build and the ``on_change`` its dictionary reports to."""
        build = Build()
        return build, lambda value: self.changed(build, value)

    def changed(self, build: Build, value: Mapping[str, Any]) -> None:
        """A build's dictionary changed to ``value``: nothing more when it is the one on the page, else place it."""
        before, build.seen = build.seen, dict(value)
        current = self.current
        if current is None or build is current or build not in self.builds or self.session.done:
            return
        changes = {k: v for k, v in value.items() if k not in before or before[k] != v}
        if changes:
            self._place(build, before, changes, current)

    def _place(self, build: Build, before: Mapping[str, Any], changes: Mapping[str, Any], current: Build) -> None:
        import marimo as mo

        now = dict(current.forms.value)
        bases = [b.basis for b in self.builds[self.builds.index(build):-1]]
        merged = dict(now)
        lost: list[str] = []
        for key, value in changes.items():
            target = follow(key, bases)
            if target is None and key.endswith(sf.SEP + sf.REMOVE):
                continue  # a click on the remove button of a row already removed
            if target is None or target not in now:
                lost.append(key)
                continue
            elem = build.forms.elements.get(key)
            if isinstance(elem, mo.ui.button):  # a click counter: its clicks, added to the new one's
                merged[target] = int(now[target] or 0) + int(value or 0) - int(before.get(key) or 0)
            else:
                merged[target] = value
        if merged != now:
            s = self.session
            s.update(now, save=False)  # the build on the page, as the kernel last read it
            draft = s.update(merged)  # the late change, read as if made on it; saved
            shown = sf.unflatten(now)
            for step in {next(iter(sf.unflatten({k: 0}))) for k in merged if merged[k] != now.get(k)}:
                # What the build on the page holds is what was last read from it: marimo still names the old
                # build after the global the new one now has, and runs the cells that read it with the new one.
                s.last_raw[step] = shown.get(step)
                s.built.pop(step, None)  # its widgets show the old value: build them again
            s.refresh_forms(draft)
            self.placed += 1
            self.next_basis = merged
            sheet_live.rebuilding(s)
            self.rebuild()
        if lost:
            self.tell(Outcome("warn", lost_words(self.session, lost)))


def lost_words(session: SheetSession, keys: list[str]) -> str:
    """What a late change that has no place any more says (the steps it was in, by number and title)."""
    ids = [next(iter(sf.unflatten({k: 0}))) for k in keys]
    named = [f"step {i + 1} ({p.title})" for i, p in enumerate(session.start.phases) if p.id in ids]
    where = ", ".join(named) or "a step"
    return (f"An edit in {where} came while the sheet was redrawing its widgets, and the field it was made on is no"
            " longer there (its row was removed or the step changed meanwhile): it was not applied. Please make it"
            " again.")


def widgets(session: SheetSession, rebuild: Callable[[Any], None], tell: Callable[[Any], None]) -> Any:
    """``session.widgets()``, kept alive for the changes that arrive late (bind the result to a global).

    ``rebuild`` is the layout state's setter (it must allow self loops: marimo credits a late change to
    the cell that made the widgets), ``tell`` the outcome box's.
    """
    late = session.late
    if not isinstance(late, LateInput):
        late = LateInput(session)
        session.late = late
    late.rebuild = lambda: rebuild(lambda n: n + 1)
    late.tell = tell
    build, on_change = late.watcher()
    forms = session.widgets(on_change=on_change)
    late.add(build, forms)
    return forms


def on_page(session: SheetSession | None) -> dict[str, Any] | None:
    """The widgets of the build ``session`` has on the page, by path (None before its first): what the session
    opened after a commit may keep (``sheet.open_session(widgets=...)``)."""
    late = getattr(session, "late", None)
    current = late.current if isinstance(late, LateInput) else None
    if current is None or current.forms is None:
        return None
    return dict(current.forms.elements)
