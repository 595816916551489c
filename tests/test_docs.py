"""The docs say what the code does: README.md and docs/*.md checked against the parser, the files and the demos.

- every ``kingdomlog SUBCOMMAND --option`` the docs name is a subcommand with that option, and every concrete
  example command (no placeholder) parses as written;
- every subcommand, with each of its options, is listed in docs/cli.md's command blocks;
- every relative link leads to a file, and a ``#heading`` to a heading of it;
- every file path (``kingdomlog/...``, ``tests/...``, ``notebooks/...``), dotted name (``kingdomlog.x.y``) and
  ``KINGDOMLOG_*`` environment variable the docs name in code exists (is read);
- a transcript block (a fenced block whose first line is ``$ kingdomlog ...``) prints exactly what it shows, run
  on a copy of the bundled demos;
- the README's table of the bundled demos says how many turns each has played.

Each check is a function over a docs root, and each is shown to fail on a broken copy of the docs. No browser,
no server: a few seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kingdomlog.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
# a command: at the start of a line or a code span (after "$ ", ".venv/bin/", "python -m "), never in the middle
# of prose or of another tool's command line ("ruff check kingdomlog tests")
COMMAND = re.compile(r"(?:^|(?<=\$ )|(?<=/)|(?<=-m ))kingdomlog[ \t]+([a-z][a-z-]*)(.*)", re.M)
PLACEHOLDER = re.compile(r"\[|\]|\.\.\.|…|<|>|\b[A-Z][A-Z_]*[A-Z]\b|\|")


def doc_files(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def help_problems(commands: dict[str, argparse.ArgumentParser]) -> list[str]:
    """Every argument of every subcommand that ``--help`` shows with no words beside it."""
    return [f"kingdomlog {name}: {'/'.join(a.option_strings) or a.dest} has no help text"
            for name, sub in commands.items() for a in sub._actions
            if not isinstance(a, argparse._HelpAction) and a.help != argparse.SUPPRESS and not (a.help or "").strip()]


def code(text: str) -> Iterator[tuple[str, bool]]:
    """The code of a Markdown text: each line of a fenced block (True), then each inline code span (False)."""
    for block in FENCE.findall(text):
        for line in block.splitlines():
            yield line, True
    for span in re.findall(r"`([^`]+)`", FENCE.sub("", text)):
        yield span.replace("\n", " "), False


def commands(root: Path) -> Iterator[tuple[Path, str, str, bool]]:
    """(file, subcommand, the rest of its line, in a fenced block) for every kingdomlog command the docs show."""
    for path in doc_files(root):
        for snippet, fenced in code(path.read_text(encoding="utf-8")):
            for m in COMMAND.finditer(snippet.strip()):
                yield path, m.group(1), m.group(2), fenced


def without_comment(rest: str) -> str:
    return re.split(r"\s+#\s", rest, maxsplit=1)[0]


def option_problems(root: Path) -> tuple[list[str], int]:
    """Subcommands and options the docs name that the parser lacks; and how many commands were read."""
    subs = subcommands()
    problems: list[str] = []
    seen = 0
    for path, sub, rest, _ in commands(root):
        seen += 1
        if sub not in subs:
            problems.append(f"{path.name}: no subcommand {sub!r}: kingdomlog {sub}{rest}")
            continue
        known = subs[sub]._option_string_actions
        for opt in re.findall(r"(?:^|[\s\[|(])(--?[a-zA-Z][\w-]*)", without_comment(rest)):
            if opt not in known:
                problems.append(f"{path.name}: kingdomlog {sub} has no {opt}: kingdomlog {sub}{rest}")
    return problems, seen


def example_problems(root: Path) -> tuple[list[str], int]:
    """Concrete example commands of the fenced blocks (no placeholder) that the parser refuses as written."""
    parser = build_parser()
    problems: list[str] = []
    seen = 0
    for path, sub, rest, fenced in commands(root):
        line = f"{sub}{without_comment(rest)}".strip()
        if not fenced or line.endswith("\\") or PLACEHOLDER.search(re.sub(r"'[^']*'|\"[^\"]*\"", "", line)):
            continue
        seen += 1
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                parser.parse_args(shlex.split(line))
        except SystemExit as exc:
            if exc.code:
                problems.append(f"{path.name}: kingdomlog {line}: {err.getvalue().strip().splitlines()[-1]}")
    return problems, seen


def cli_md_problems(root: Path) -> list[str]:
    """Subcommands, or options of one, that docs/cli.md's command blocks do not list."""
    lines = [ln for block in FENCE.findall((root / "docs" / "cli.md").read_text(encoding="utf-8"))
             for ln in block.splitlines()]
    listed: dict[str, str] = {}
    sub = None
    for ln in lines:
        m = re.match(r"kingdomlog ([a-z][a-z-]*)\b", ln)
        if m:
            sub = m.group(1)
            listed[sub] = listed.get(sub, "") + " " + without_comment(ln)
        elif sub and ln.startswith(" "):  # a command's continuation line
            listed[sub] += " " + without_comment(ln)
        else:
            sub = None
    problems = []
    for name, sp in subcommands().items():
        if name not in listed:
            problems.append(f"docs/cli.md does not list kingdomlog {name}")
            continue
        for action in sp._actions:
            opts = [o for o in action.option_strings if o not in ("-h", "--help")]
            if opts and not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", listed[name]) for o in opts):
                problems.append(f"docs/cli.md: kingdomlog {name} does not list {'/'.join(opts)}")
    return problems


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    out: set[str] = set()
    counts: dict[str, int] = {}
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = counts.get(s, 0)
            counts[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def link_problems(root: Path, code_root: Path = REPO) -> tuple[list[str], int]:
    """Relative links (README, docs/*.md, the rulesets' READMEs) to a file that is not there, or to a heading the
    file lacks. A target outside ``root`` is looked for in ``code_root`` (a copy of the docs links into the code)."""
    files = doc_files(root) + sorted((code_root / "kingdomlog" / "rulesets").glob("*/README.md"))
    problems: list[str] = []
    seen = 0
    for path in files:
        prose = re.sub(r"`[^`]+`", "", FENCE.sub("", path.read_text(encoding="utf-8")))
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target):
                continue
            seen += 1
            file, _, frag = target.partition("#")
            found = (path.parent / file).resolve() if file else path
            if not found.exists() and found.is_relative_to(root.resolve()):
                found = code_root / found.relative_to(root.resolve())
            if not found.exists():
                problems.append(f"{path.name}: link to a missing file: {target}")
            elif frag and found.suffix == ".md" and frag not in anchors(found):
                problems.append(f"{path.name}: link to a missing heading: {target}")
    return problems, seen


def name_problems(root: Path, code_root: Path = REPO) -> tuple[list[str], int]:
    """File paths and ``kingdomlog.`` dotted names in the docs' code that do not exist."""
    problems: list[str] = []
    seen = 0
    sources = "".join(f.read_text(encoding="utf-8") for f in (code_root / "kingdomlog").rglob("*.py"))
    for path in doc_files(root):
        for snippet, fenced in code(path.read_text(encoding="utf-8")):
            if fenced:
                continue
            for tok in re.findall(r"[\w./*-]+", snippet):
                tok = tok.rstrip(".")
                if re.fullmatch(r"(kingdomlog|notebooks|tests|benchmarks|docs)/[\w./-]*", tok):
                    seen += 1
                    if not (code_root / tok).exists():
                        problems.append(f"{path.name}: no file {tok}")
                elif re.fullmatch(r"kingdomlog(\.\w+)+", tok):
                    seen += 1
                    if not dotted_exists(tok) and not (tok.count(".") == 1 and f'"{tok}"' in sources):
                        problems.append(f"{path.name}: no {tok}")  # a module, or a key of the files' metadata
    return problems, seen


def env_problems(root: Path, code_root: Path = REPO) -> list[str]:
    """``KINGDOMLOG_*`` environment variables the docs name that no code reads."""
    code = "".join(f.read_text(encoding="utf-8") for f in [*(code_root / "kingdomlog").rglob("*.py"),
                                                            *(code_root / "notebooks").glob("*.py"),
                                                            code_root / ".ci" / "run"])
    named = {v for path in doc_files(root) for v in re.findall(r"\bKINGDOMLOG_[A-Z_]+\b", path.read_text("utf-8"))}
    return [f"no code reads {v}" for v in sorted(named) if v not in code]


def dotted_exists(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def transcripts(root: Path) -> list[tuple[Path, str, str]]:
    """(file, command, the output it shows) of every fenced block that starts with ``$ kingdomlog ...``."""
    out = []
    for path in doc_files(root):
        for block in FENCE.findall(path.read_text(encoding="utf-8")):
            first, _, shown = block.partition("\n")
            if first.startswith("$ kingdomlog "):
                out.append((path, first[2:], shown))
    return out


def run_transcript(command: str, folder: Path) -> str:
    argv = shlex.split(command)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINGDOMLOG_")}
    done = subprocess.run([sys.executable, "-m", "kingdomlog", *argv[1:]], cwd=folder, capture_output=True,
                          text=True, timeout=120, env=dict(env, PYTHONPATH=str(REPO)))
    return done.stdout + done.stderr


def demo_problems(root: Path, campaigns: Path) -> list[str]:
    """Rows of the README's table of demos whose first number (*founding + 18 months*, *a 16-year session*,
    *7 months*) is not the last turn the demo's log has played."""
    from kingdomlog.app import Campaign

    problems = []
    readme = (root / "README.md").read_text("utf-8")
    rows = re.findall(r"^\| `campaigns/([\w-]+)` \| `[\w-]+` \| (.*) \|$", readme, re.M)
    for slug_, shows in rows:
        number = re.search(r"\d+", shows)
        said = int(number.group()) if number else None
        played = Campaign.open(campaigns / slug_).next_turn() - 1
        if said != played:
            problems.append(f"README: campaigns/{slug_} has played {played} turns after its founding, not {said}")
    if len(rows) != len([d for d in campaigns.iterdir() if (d / "campaign.toml").is_file()]):
        on_disk = sorted(d.name for d in campaigns.iterdir())
        problems.append(f"README: {len(rows)} demos in the table, {on_disk} on disk")
    return problems


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the bundled demos (never the repository's own folder: reading one writes its cache)."""
    folder = tmp_path_factory.mktemp("demos") / "campaigns"
    shutil.copytree(REPO / "campaigns", folder, ignore=shutil.ignore_patterns(".cache", "drafts", "table", ".secrets"))
    return folder


# ---- the docs as they are ------------------------------------------------------------------------------------


def test_every_command_and_option_the_docs_name_exists() -> None:
    problems, seen = option_problems(REPO)
    assert seen > 150, f"only {seen} commands found: the extraction broke"
    assert problems == [], "\n".join(problems)


def test_every_example_command_parses_as_written() -> None:
    problems, seen = example_problems(REPO)
    assert seen > 40, f"only {seen} example commands found: the extraction broke"
    assert problems == [], "\n".join(problems)


def test_cli_md_lists_every_subcommand_and_option() -> None:
    problems = cli_md_problems(REPO)
    assert problems == [], "\n".join(problems)


def test_every_argument_of_every_command_says_what_it_is_in_its_help() -> None:
    commands = subcommands()
    assert len(commands) > 30
    problems = help_problems(commands)
    assert problems == [], "\n".join(problems)


def test_every_relative_link_resolves() -> None:
    problems, seen = link_problems(REPO)
    assert seen > 40, f"only {seen} links found"
    assert problems == [], "\n".join(problems)


def test_every_file_and_module_the_docs_name_exists() -> None:
    problems, seen = name_problems(REPO)
    assert seen > 100, f"only {seen} names found"
    assert problems == [], "\n".join(problems)


def test_every_environment_variable_the_docs_name_is_read() -> None:
    assert env_problems(REPO) == []


def test_transcripts_print_what_they_show(tmp_path: Path) -> None:
    shown = transcripts(REPO)
    assert shown, "no transcript block found"
    shutil.copytree(REPO / "campaigns", tmp_path / "campaigns",
                    ignore=shutil.ignore_patterns(".cache", "drafts", "table", ".secrets"))
    for path, command, expected in shown:
        assert run_transcript(command, tmp_path) == expected, f"{path.name}: {command}"


def test_the_readme_counts_each_demos_turns(demos: Path) -> None:
    problems = demo_problems(REPO, demos)
    assert problems == [], "\n".join(problems)


# ---- each check fails on a broken copy ------------------------------------------------------------------------


@pytest.fixture
def docs_copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    shutil.copy(REPO / "README.md", root / "README.md")
    for f in (REPO / "docs").glob("*.md"):
        shutil.copy(f, root / "docs" / f.name)
    return root


def append(root: Path, name: str, text: str) -> None:
    path = root / name
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_checks_pass_on_a_faithful_copy(docs_copy: Path) -> None:
    assert option_problems(docs_copy)[0] == [] and example_problems(docs_copy)[0] == []
    assert cli_md_problems(docs_copy) == [] and link_problems(docs_copy)[0] == [] and name_problems(docs_copy)[0] == []


def test_an_argument_without_help_is_caught() -> None:
    commands = subcommands()
    commands["state"].add_argument("--colour")
    commands["note"].add_argument("extra", nargs="?", help=" ")
    assert sorted(help_problems(commands)) == ["kingdomlog note: extra has no help text",
                                               "kingdomlog state: --colour has no help text"]


def test_an_option_or_subcommand_that_does_not_exist_is_caught(docs_copy: Path) -> None:
    append(docs_copy, "docs/table.md", "\nRun `kingdomlog state DIR --no-such-option` or `kingdomlog stat DIR`.\n")
    problems, _ = option_problems(docs_copy)
    assert any("kingdomlog state has no --no-such-option" in p for p in problems), problems
    assert any("no subcommand 'stat'" in p for p in problems), problems


def test_an_example_the_parser_refuses_is_caught(docs_copy: Path) -> None:
    append(docs_copy, "README.md", "\n```bash\nkingdomlog report campaigns/felmonte --as fabian --format pdf\n"
                                   "kingdomlog retract campaigns/felmonte --turn three\n```\n")
    problems, _ = example_problems(docs_copy)
    assert any("--format pdf" in p and "invalid choice" in p for p in problems), problems
    assert any("--turn three" in p for p in problems), problems


def test_a_subcommand_or_option_missing_from_cli_md_is_caught(docs_copy: Path) -> None:
    cli = docs_copy / "docs" / "cli.md"
    text = cli.read_text(encoding="utf-8")
    text = text.replace(" [--player ID[:NAME[:CHARACTER]] ...]", "", 1)
    text = re.sub(r"^kingdomlog ready .*\n", "", text, count=1, flags=re.M)
    cli.write_text(text, encoding="utf-8")
    problems = cli_md_problems(docs_copy)
    assert "docs/cli.md: kingdomlog new does not list --player" in problems, problems
    assert "docs/cli.md does not list kingdomlog ready" in problems, problems


def test_a_missing_file_or_heading_behind_a_link_is_caught(docs_copy: Path) -> None:
    append(docs_copy, "docs/cli.md", "\nSee [the log](log-format.md#no-such-heading) and [gone](gone.md).\n")
    problems, _ = link_problems(docs_copy)
    assert "cli.md: link to a missing heading: log-format.md#no-such-heading" in problems, problems
    assert "cli.md: link to a missing file: gone.md" in problems, problems


def test_a_file_or_module_that_does_not_exist_is_caught(docs_copy: Path) -> None:
    append(docs_copy, "docs/architecture.md", "\nSee `kingdomlog/views/gone.py`, `kingdomlog.core.fold.unfold` and the"
                                              " files' `kingdomlog.last_hash` and `kingdomlog.first_hash`.\n")
    problems, _ = name_problems(docs_copy)
    assert "architecture.md: no file kingdomlog/views/gone.py" in problems, problems
    assert "architecture.md: no kingdomlog.core.fold.unfold" in problems, problems
    assert "architecture.md: no kingdomlog.first_hash" in problems, problems
    assert not [p for p in problems if "last_hash" in p], problems


def test_a_demo_row_that_miscounts_its_turns_is_caught(docs_copy: Path, demos: Path) -> None:
    readme = docs_copy / "README.md"
    readme.write_text(readme.read_text("utf-8").replace("founding + 18 months", "founding + 13 months", 1), "utf-8")
    assert demo_problems(docs_copy, demos) == [
        "README: campaigns/stolen-lands has played 18 turns after its founding, not 13"]


def test_an_environment_variable_nothing_reads_is_caught(docs_copy: Path) -> None:
    append(docs_copy, "docs/cli.md", "\nSet `KINGDOMLOG_NO_SUCH=1` to see nothing.\n")
    assert env_problems(docs_copy) == ["no code reads KINGDOMLOG_NO_SUCH"]


def test_a_transcript_that_no_longer_matches_is_caught(docs_copy: Path, tmp_path: Path) -> None:
    command, expected = next((c, e) for _, c, e in transcripts(docs_copy) if "--seed doc-example" in c)
    shutil.copytree(REPO / "campaigns" / "aikakirjat-demo", tmp_path / "campaigns" / "aikakirjat-demo",
                    ignore=shutil.ignore_patterns(".cache", "drafts"))
    got = run_transcript(command, tmp_path)
    assert got == expected
    assert run_transcript(command.replace("doc-example", "another-seed"), tmp_path) != expected
