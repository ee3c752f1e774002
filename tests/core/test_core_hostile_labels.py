"""Labels from a scenario are text, never commands (docs/security.md): a seat label that is a
spreadsheet formula is exported to CSV as text, and escape sequences, rich markup and emoji codes in
labels and names reach the terminal as visible characters from ``validate``, ``run`` and ``compare``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from sim.cli import main

FORMULA = "=cmd|' /C calc'!A0"
# an OSC title change, BEL, a hyperlink in rich markup, a colour change and an emoji code
NASTY = "\x1b]0;pwned\x07[link=http://evil.example]click[/link]\x1b[31m:smile:\u202e"
NAME = "x[link=https:evil.example]study[bold]"


def _scenario(tmp_path: Path) -> Path:
    def toml_str(s: str) -> str:
        return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in s) + '"'

    p = tmp_path / "s.toml"
    p.write_text(f'name = {toml_str(NAME)}\ngame = "druids"\ngames = 2\nseed = 1\nbackend = "serial"\n'
                 f'[[seats]]\nagent = "random"\nname = {toml_str(FORMULA)}\n'
                 f'[[seats]]\nagent = "random"\nname = {toml_str(NASTY)}\n', encoding="utf-8")
    return p


def _visible(out: str, whole: bool = True) -> None:
    """No control character acts, and the markup is printed, not rendered (``whole``: the label
    is on one line, else folded in a table cell)."""
    from sim.core.console import plain

    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "😄" not in out
    if whole:
        assert plain(NASTY) in out
    else:
        assert "\\x1b]0;pwned\\x07" in out and "[link=" in out and "[/li" in out


def test_hostile_labels_are_text_in_the_terminal_and_in_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = _scenario(tmp_path)
    assert main(["validate", str(s)]) == 0
    out = capsys.readouterr().out
    _visible(out)
    assert NAME in out
    run, run2 = tmp_path / "run", tmp_path / "run2"
    assert main(["run", str(s), "--out", str(run), "--no-report"]) == 0
    cap = capsys.readouterr()
    _visible(cap.out, whole=False)
    assert "\x1b" not in cap.err
    assert main(["run", str(s), "--out", str(run2), "--no-report", "--seed", "2"]) == 0
    capsys.readouterr()
    assert main(["compare", str(run), str(run2)]) == 0
    out = capsys.readouterr().out
    _visible(out)
    assert f"scenario {NAME}" in out.replace("\n", "")

    # CSV: a cell a spreadsheet would evaluate starts with a quote; Parquet keeps the data as is
    assert main(["export", str(run), "--table", "seats", "--out", str(tmp_path / "seats.csv")]) == 0
    with open(tmp_path / "seats.csv", newline="", encoding="utf-8") as fh:
        labels = {r["label"] for r in csv.DictReader(fh)}
    assert labels == {"'" + FORMULA, NASTY}
    assert main(["export", str(run), "--table", "seats", "--out", str(tmp_path / "seats.parquet")]) == 0
    assert set(pd.read_parquet(tmp_path / "seats.parquet")["label"]) == {FORMULA, NASTY}
    # numbers stay numbers (a negative score is not text)
    assert main(["export", str(run), "--out", str(tmp_path / "games.csv")]) == 0
    games = pd.read_csv(tmp_path / "games.csv")
    assert pd.api.types.is_numeric_dtype(games["score_0"])


@pytest.mark.parametrize("text, shown", [
    ("a\x1b[2Jb", "a\\x1b[2Jb"), ("tab\there", "tab\\x09here"), ("nl\nx", "nl\\x0ax"), ("\x9b31m", "\\x9b31m"),
    ("del\x7f", "del\\x7f"), ("bidi\u202e\u2066", "bidi\\u202e\\u2066"), ("ok é ß 石", "ok é ß 石"),
])
def test_plain_shows_control_characters(text: str, shown: str) -> None:
    from sim.core.console import plain

    assert plain(text) == shown
    assert plain("a\nb\tc", keep_lines=True) == "a\nb\tc"


def test_escape_leaves_no_markup() -> None:
    from rich.console import Console

    from sim.core.console import console, escape

    for text in ("[link=http://e]x[/link]", "[bold]b", "\\[red]r", ":smile:", "[/]", "a]b[c"):
        con = console()
        with con.capture() as cap:
            con.print(escape(text))
        assert cap.get().rstrip("\n") == text
    # a trailing backslash cannot escape the markup that follows it
    con = console()
    with con.capture() as cap:
        con.print(f"[bold]{escape('end' + chr(92))}[/]")
    assert "[/]" not in cap.get()
    assert isinstance(console(), Console)


@pytest.mark.parametrize("cell, out", [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"),
    ("\rx", "'\rx"), ("a=b", "a=b"), ("", ""), (-3.5, -3.5), (7, 7), (None, None),
])
def test_spreadsheet_safe_follows_owasp(cell: object, out: object) -> None:
    from analysis.load import spreadsheet_safe

    assert spreadsheet_safe(cell) == out


def test_error_lines_show_control_characters_of_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "a\x1b]0;pwned\x07b.toml"
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;pwned\\x07b.toml" in err and err.count("\n") == 1
    assert main(["sun", "show", str(bad), "--png", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b" in err
