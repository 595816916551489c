"""After a commit the sheet opens the next month on the campaign it holds: exactly what a fresh open gives.

The next month's sheet decodes only the batch the commit appended and folds it onto the state before it
(``Campaign._grown``, ``Campaign._onward``; ``sheet.reopened``), and builds its widgets without clones and
without rendering a label it rendered before (``views.forms.dictionary``, ``keep_labels``). Each test here
holds one of those to a fresh open of the same folder: the state, the draft, the forms and the widgets'
values must be the same.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from nb_support import copy_demo, make_toy_campaign

from kingdomlog.app import Campaign
from kingdomlog.core.errors import CorruptLogError
from kingdomlog.store.log import EventLog
from kingdomlog.views import forms as sf
from kingdomlog.views.sheet import draft as sheet


@pytest.fixture(params=["toy", "demo"])
def folder(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "demo":
        return copy_demo(tmp_path / "stolen-lands")
    return make_toy_campaign(tmp_path / "farm")


def committed(s: sheet.SheetSession) -> None:
    """Roll every check of ``s``'s draft and commit it (as Roll all and Commit on the page)."""
    s.widgets()
    s.roll_all()
    done = sheet.commit(s, s.draft)
    assert done is not None and done.kind == "success", done


def values(s: sheet.SheetSession) -> dict[str, Any]:
    return dict(s.widgets().value)


def same_as_fresh(folder: Path, nxt: sheet.SheetSession) -> None:
    """``nxt`` (opened on the campaign the session before held) against a fresh open of ``folder``, its forms listed
    afresh (the forms kept across sessions, ``sheet._SPECS``, forgotten first)."""
    sheet._SPECS.clear()
    fresh, _ = sheet.open_session(folder, after_commit=True)  # restores the draft ``nxt`` saved: the same seed
    assert fresh is not None and fresh.start.camp is not nxt.start.camp
    assert (nxt.start.turn, nxt.start.start_seq) == (fresh.start.turn, fresh.start.start_seq)
    assert nxt.start.state == fresh.start.state
    assert nxt.start.state.model_dump_json() == fresh.start.state.model_dump_json()
    assert [p.id for p in nxt.start.phases] == [p.id for p in fresh.start.phases]
    assert nxt.start.camp.events() == fresh.start.camp.events()
    assert nxt.plan == fresh.plan
    assert nxt.draft is not None and fresh.draft is not None
    assert [c.signature() for c in nxt.draft.cards] == [c.signature() for c in fresh.draft.cards]
    assert nxt.draft.committable == fresh.draft.committable
    assert {k: sf.form_key(f) for k, f in nxt.forms.items()} == {k: sf.form_key(f) for k, f in fresh.forms.items()}
    assert values(nxt) == values(fresh)
    mine, theirs = nxt.widgets(), fresh.widgets()
    ids = re.compile(r"(object-id|random-id)='[^']*'|[0-9a-f]{32}")  # marimo's ids, an anywidget's model id
    assert [(k, ids.sub("", e.text)) for k, e in mine.elements.items()] == \
        [(k, ids.sub("", e.text)) for k, e in theirs.elements.items()]


def test_the_next_month_after_commits_is_what_a_fresh_open_gives(folder: Path) -> None:
    s, _ = sheet.open_session(folder)
    assert s is not None
    for _ in range(2):
        committed(s)
        nxt, _ = sheet.open_session(folder, after_commit=True, camp=s.start.camp)
        assert nxt is not None and nxt.start.camp is s.start.camp  # held, not opened again
        same_as_fresh(folder, nxt)
        s = nxt


def test_the_next_month_decodes_only_the_batch_the_commit_appended(folder: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the sheet opened the campaign again after each commit and decoded the whole log (0.59 s of a
    0.9 s open under load); now only the new batch is decoded, the whole log still checked."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    committed(s)
    calls: list[int] = []
    real_after = EventLog.read_after

    def read_after(self: EventLog, seq: int) -> Any:
        calls.append(seq)
        return real_after(self, seq)

    def read(self: EventLog, **_: Any) -> Any:
        raise AssertionError("the whole log decoded again")

    monkeypatch.setattr(EventLog, "read", read)
    monkeypatch.setattr(EventLog, "read_after", read_after)
    nxt, _ = sheet.open_session(folder, after_commit=True, camp=s.start.camp)
    assert nxt is not None and calls == [s.start.start_seq]
    monkeypatch.undo()
    same_as_fresh(folder, nxt)


def test_another_writer_and_an_undo_in_between_still_give_a_fresh_open(folder: Path) -> None:
    """The log moved on after the commit by another hand (a note), or by an undo that retracts the turn: the
    held campaign reads what was appended, and an undo's retraction folds from before the batch it retracts."""
    s, _ = sheet.open_session(folder)
    assert s is not None
    committed(s)
    Campaign.open(folder).note("written by another tab", visibility="gm")
    nxt, _ = sheet.open_session(folder, after_commit=True, camp=s.start.camp)
    assert nxt is not None and nxt.start.camp is s.start.camp
    same_as_fresh(folder, nxt)
    held = nxt.start.camp
    camp = Campaign.open(folder)
    camp.retract(camp.next_turn() - 1, reason="undo", expect_seq=camp.head_seq)
    nxt, _ = sheet.open_session(folder, after_commit=True, camp=held)
    assert nxt is not None and nxt.start.camp is held
    same_as_fresh(folder, nxt)
    assert held.state() == Campaign.open(folder).state(use_cache=False)


def test_a_held_campaign_is_not_reused_for_another_folder_or_an_edited_config(folder: Path, tmp_path: Path) -> None:
    camp = Campaign.open(folder)
    assert sheet.reopened(folder, camp) is camp
    assert sheet.reopened(folder, None) is None
    other = make_toy_campaign(tmp_path / "other")
    assert sheet.reopened(other, camp) is None
    toml = folder / "campaign.toml"
    toml.write_text(toml.read_text().replace(f'name = "{camp.config.name}"', 'name = "Renamed"'))
    assert Campaign.open(folder).config.name == "Renamed"
    assert sheet.reopened(folder, camp) is None


def test_a_held_campaign_whose_log_was_replaced_is_not_served(toy: Path) -> None:
    """A batch file the held campaign read, replaced since by one that does not chain: the read that follows
    the next append is refused, as a fresh open's is."""
    camp = Campaign.open(toy)
    camp.events()
    camp.note("one more", visibility="gm")
    first = sorted((toy / "log").glob("*.parquet"))[1]
    first.write_bytes(first.read_bytes()[:-40] + b"\0" * 40)
    with pytest.raises(CorruptLogError):
        camp.events()
    with pytest.raises(CorruptLogError):
        Campaign.open(toy).events()


def test_widget_labels_are_marimos_own_rendering_made_once(toy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A label is rendered by marimo once per text; a widget holds marimo's own HTML for it."""
    import marimo as mo
    from marimo._output.md import _md
    from marimo._plugins.core import web_component

    assert sf.keep_labels() and getattr(web_component._md, "kept", False)
    label = re.compile(r"data-label='[^']*'")
    for text in ("Crop", "**Bold** and `code`", "A & B <i>", "Sell (0–9)"):
        want = label.findall(mo.ui.dropdown(options=["a"], label=text).text)
        monkeypatch.setattr(web_component, "_md", _md)
        plain = label.findall(mo.ui.dropdown(options=["a"], label=text).text)
        monkeypatch.undo()
        assert want == plain and len(want) == 1
    s, _ = sheet.open_session(toy)
    assert s is not None
    s.widgets()
    rendered: list[str] = []
    real = sf._LABELS.copy()
    monkeypatch.setattr(sf, "_LABELS", real)
    monkeypatch.setattr("marimo._output.md._render_markdown", lambda text: rendered.append(text) or text)
    s.built = {}
    forms = s.widgets()
    assert forms.elements and rendered == []  # every label of the second build was kept from the first


def test_the_sheets_dictionary_holds_its_widgets_not_copies(toy: Path) -> None:
    import marimo as mo

    elems = {"a": mo.ui.dropdown(options=["x", "y"], value="x", label="A"), "b": mo.ui.number(value=3, label="B")}
    d = sf.dictionary(elems)
    assert isinstance(d, mo.ui.dictionary)
    assert d.elements["a"] is elems["a"] and d.elements["b"] is elems["b"]
    assert d.value == {"a": "x", "b": 3}
    assert elems["a"]._lens is not None and elems["a"]._lens.parent_id == d._id
    d._update({"a": "y", "b": 4})  # as a change from the page reaches it
    assert d.value == {"a": "y", "b": 4} and elems["a"].value == "y"
    with pytest.raises(ValueError, match="'c'"):
        sf.dictionary({"c": 3})


def test_the_next_month_keeps_the_widgets_that_show_what_its_own_would(folder: Path) -> None:
    """After a commit the next month's first build keeps each widget of the page before that was made the same way
    and still holds the value it started with (``sf.keep_same``): the very widget, so the page leaves it as it is.
    A widget the GM changed last month is made again with the new month's value, never kept with the old one; the
    widgets kept become views of the new build's dictionary; what the new month shows is a fresh open's."""
    from kingdomlog.views.sheet import late as sheet_late

    s, _ = sheet.open_session(folder)
    assert s is not None
    forms = sheet_late.widgets(s, lambda f: None, lambda o: None)
    changed = next(k for k, e in forms.elements.items()
                   if type(e).__name__ == "dropdown" and len(e.options) > 1)
    other = next(k for k, v in forms.elements[changed].options.items() if v != forms.elements[changed].value)
    forms._update({**forms._value_frontend, changed: [other]})  # as the page's change reaches the dictionary
    s.update(forms.value)
    assert forms.elements[changed]._value_frontend != forms.elements[changed]._initial_value_frontend
    before = sheet_late.on_page(s)
    assert before is not None and before[changed] is forms.elements[changed]
    s.roll_all()
    done = sheet.commit(s, s.draft)
    assert done is not None and done.kind == "success", done
    nxt, _ = sheet.open_session(folder, after_commit=True, camp=s.start.camp, widgets=before)
    assert nxt is not None
    mine = sheet_late.widgets(nxt, lambda f: None, lambda o: None)
    kept = [k for k, e in mine.elements.items() if before.get(k) is e]
    assert nxt.kept_widgets == len(kept) > 0
    assert nxt.keep_from is None  # kept at the first build only
    assert mine.elements[changed] is not before[changed]  # changed last month: made again
    for k in kept:
        e = mine.elements[k]
        assert e._lens is not None and e._lens.parent_id == mine._id  # a change on it reaches the new build
        assert e._value_frontend == e._initial_value_frontend
    assert all(not isinstance(e, sf.mo.ui.anywidget) for e in (mine.elements[k] for k in kept))
    made = nxt.widgets()  # the same month's widgets all made anew: what the kept ones must show
    assert made.elements[changed].value != before[changed].value or \
        made.elements[changed]._initial_value_frontend != before[changed]._value_frontend
    assert dict(mine.value) == dict(made.value)
    ids = re.compile(r"(object-id|random-id)='[^']*'|[0-9a-f]{32}")
    assert [(k, ids.sub("", e.text)) for k, e in mine.elements.items()] == \
        [(k, ids.sub("", e.text)) for k, e in made.elements.items()]
    same_as_fresh(folder, nxt)


def test_a_widget_is_kept_only_when_it_shows_what_the_new_one_would() -> None:
    import marimo as mo

    def dd(value: str = "x", options: tuple[str, ...] = ("x", "y"), label: str = "A") -> Any:
        return mo.ui.dropdown(options=list(options), value=value, label=label)

    old = dd()
    assert sf.same_widget(old, dd())
    assert not sf.same_widget(old, dd(value="y"))  # starts from another value
    assert not sf.same_widget(old, dd(options=("x", "y", "z")))  # other options
    assert not sf.same_widget(old, dd(label="B"))
    assert not sf.same_widget(old, mo.ui.text(value="x", label="A"))  # another kind
    moved = dd()
    moved._update(["y"])  # the person changed it
    assert not sf.same_widget(moved, dd())
    assert sf.same_widget(moved, dd(value="y")) is False  # made with "x" first: its page shows another start
    back = dd()
    back._update(["y"])
    back._update(["x"])  # and back again
    assert sf.same_widget(back, dd())
    new = {"a": dd(), "b": dd(value="y")}
    got, n = sf.keep_same(new, {"a": old, "b": moved})
    assert n == 1 and got["a"] is old and got["b"] is new["b"]
    assert sf.keep_same(new, None) == (new, 0)
