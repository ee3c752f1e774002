"""The import graph of sim/ and analysis/ has no cycle, the layers keep to their places, and no
module uses another's private (``_underscore``) name.

The graph is read from the source with ``ast``, counting every import statement wherever it
stands: at module level, inside a function (an import moved there hides a cycle from Python's
loader but not from a reader) and under ``if TYPE_CHECKING:`` (it never runs, but a type the
checker needs is an arrow of the design all the same). Imports by name at run time
(``importlib.import_module`` of a plug-in's declared module) are not edges: that is how the tool
reaches a game without knowing it.

An import inside a function stays there only to keep a measured cost out of a command's start-up
(pandas, scipy, matplotlib, PyBullet, viser, optuna, dask, jinja2, the runner...), and says so on the
comment line above it: ``# start-up: <what it keeps out> <the figure>``.
"""

from __future__ import annotations

import ast
import graphlib
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "analysis")


def _modules() -> dict[str, Path]:
    """Every module of the packages by dotted name (a package by its ``__init__``)."""
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = f
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports: for ``from a.b import c`` the module ``a.b.c`` when it
    is one, else ``a.b``; relative imports resolved against the module's package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    # every import counts, those under ``if TYPE_CHECKING:`` too: a circle the type checker needs is
    # a circle of the design, hidden from Python's loader only
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for t in targets:
            # "import a.b.c" names a.b.c; the nearest enclosing project module otherwise
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import cycles, one per strongly connected tangle: found with graphlib, whose CycleError
    names one cycle, then broken by dropping that cycle's first edge until none is left."""
    g = {k: set(v) for k, v in graph.items()}
    found: list[list[str]] = []
    while True:
        try:
            graphlib.TopologicalSorter(g).prepare()
            return found
        except graphlib.CycleError as e:
            cycle = list(e.args[1])  # [a, b, ..., a]: each imported by the next
            found.append(cycle[::-1])  # printed as "a imports b imports ... a"
            g[cycle[1]].discard(cycle[0])


#: Cycles waiting to be cut, each written as "a imports b imports ... a" from an arbitrary start;
#: the test fails on any other cycle, and on a listed one that is gone (then delete its line: the
#: list only shrinks). Empty since the scenario loader sits above [sensitivity] and [tournament].
#: The graph counts imports under ``if TYPE_CHECKING:`` too; analysis/'s circles through
#: them were cut by keeping the run record (analysis/run_data.py) and the metric record
#: (analysis/metric_spec.py) apart from the loader and the catalogue that read them.
KNOWN_CYCLES: list[list[str]] = []


def _canonical(cycle: list[str]) -> tuple[str, ...]:
    """The cycle rotated to start at its smallest module name (without the repeated end)."""
    ring = cycle[:-1]
    i = ring.index(min(ring))
    return tuple(ring[i:] + ring[:i])


def test_the_import_graph_has_no_cycle() -> None:
    found = {_canonical(c) for c in _cycles(import_graph())}
    known = {_canonical(c) for c in KNOWN_CYCLES}
    new, gone = found - known, known - found
    assert not new, "import cycles (counting imports inside functions and under TYPE_CHECKING):\n" + "\n".join(
        "  " + " -> ".join([*c, c[0]]) for c in sorted(new))
    assert not gone, "cut, well done; delete from KNOWN_CYCLES:\n" + "\n".join(
        "  " + " -> ".join([*c, c[0]]) for c in sorted(gone))


def test_the_three_cycles_issue_14_names_are_cut() -> None:
    graph = import_graph()
    assert "sim.core.mcts" in graph["sim.core.agents"]  # the catalogue lists the search...
    assert "sim.core.agents" not in graph["sim.core.mcts"]  # ...which builds rollout agents by AgentSpec.build
    # the games' report rooms and their loader never import the report, which finds them by the registry
    rooms = _report_rooms(_modules())
    assert rooms and not any(t.startswith("analysis.report") for m, ts in graph.items()
                             if m.startswith("analysis.games") or _in_report_room(m, rooms) for t in ts)
    assert not any(t.startswith("sim.sun.viewer") for t in graph["sim.sun.bench"])


def test_the_graph_sees_imports_inside_functions_and_for_the_type_checker(tmp_path: Path) -> None:
    # the reader must find what Python's loader only meets at call time: sim.cli imports the
    # runner inside its `run` command, never at module level
    assert "sim.core.runner" in import_graph()["sim.cli"]
    # and what it never meets: an import under `if TYPE_CHECKING:` is an arrow of the design too
    pkg = tmp_path / "sim"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from sim.b import B\n",
                              encoding="utf-8")
    (pkg / "b.py").write_text("from sim.a import x\n", encoding="utf-8")
    modules = {"sim": pkg / "__init__.py", "sim.a": pkg / "a.py", "sim.b": pkg / "b.py"}
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert graph["sim.a"] == {"sim.b"} and graph["sim.b"] == {"sim.a"}
    assert len(_cycles(graph)) == 1


def test_cycle_finder_names_each_cycle_in_import_order() -> None:
    cycles = _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()})
    assert len(cycles) == 1
    c = cycles[0]
    assert c[0] == c[-1] and len(c) == 4
    # each module imports the next: a rotation of a -> b -> c -> a
    assert all(c[i + 1] in {"a": "b", "b": "c", "c": "a"}[c[i]] for i in range(3))
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _game_packages(modules: dict[str, Path]) -> set[str]:
    """The sim packages that hold a game (a folder with a ``game.py``)."""
    return {m.rpartition(".")[0] for m in modules if m.startswith("sim.") and m.endswith(".game")
            and m != "sim.core.game"}


#: The Sun's 3-D tools (``sim.sun.viewer``: replay file, viewers, video, editor) sit with the game they
#: draw. A game's command-line front end may open the viewer (``stonelab sun show|edit`` draw and edit a
#: layout in it); its engine may not. These edges are the known ones, listed so no other appears.
FRONT_END_VIEWER_IMPORTS = {
    ("sim.sun.cli", "sim.sun.viewer.layout_plot"),
    ("sim.sun.cli", "sim.sun.viewer.viser_app"),
    ("sim.sun.cli", "sim.sun.viewer.editor_app"),
    # what the generic `stonelab run` and `stonelab replay` reach through the plug-in's replays_3d
    ("sim.sun.replays", "sim.sun.viewer.cli"),
    ("sim.sun.replays", "sim.sun.viewer.runs"),
    # the report's replays section names the replay files and the viewer folder a run keeps
    ("sim.sun.report.section", "sim.sun.viewer.runs"),
}


def test_core_imports_no_game_and_no_game_imports_the_viewer() -> None:
    graph = import_graph()
    games = _game_packages(_modules())
    assert {"sim.sun", "sim.druids", "sim.rocks", "sim.sozoikum"} <= games
    bad = []
    for mod, targets in graph.items():
        for t in targets:
            in_game = any(t == g or t.startswith(g + ".") for g in games)
            if mod.startswith("sim.core") and (in_game or t == "sim.games"):
                bad.append(f"{mod} imports {t} (sim/core knows no game)")
            if any(mod == g or mod.startswith(g + ".") for g in games) and t.startswith("sim.sun.viewer") \
                    and not mod.startswith("sim.sun.viewer") and (mod, t) not in FRONT_END_VIEWER_IMPORTS:
                bad.append(f"{mod} imports {t} (an engine knows no viewer)")
    assert not bad, "\n".join(bad)


def _report_rooms(modules: dict[str, Path]) -> set[str]:
    """Each game's report room, ``sim.<game>.report`` (a module, or a package as the Sun's)."""
    return {f"{g}.report" for g in _game_packages(modules) if f"{g}.report" in modules}


def _in_report_room(module: str, rooms: set[str]) -> bool:
    return any(module == r or module.startswith(r + ".") for r in rooms)


#: The command line: the modules of sim/ that run an analysis for a command (``stonelab report``,
#: ``compare``, ``tune``...).
COMMAND_LINE = ("sim.cli", "sim.cli_study", "sim.cli_tables", "sim.cli_tune")


def test_in_sim_only_the_command_line_and_the_report_rooms_import_analysis() -> None:
    """analysis/ sits over sim/ (it reads the stores the games write), with two named exceptions:
    the command line, which runs the analyses, and each game's report room (``sim/<game>/report``),
    the one place in a game folder that implements an analysis hook (the game's ``GameReport``, which
    reads the game's own tables where the game's names live). No other module of a game imports
    analysis, and none imports the report room: the plug-in names it by string, so a game's rules,
    agents and tools load without pandas or matplotlib."""
    modules = _modules()
    rooms = _report_rooms(modules)
    assert {"sim.sun.report", "sim.druids.report", "sim.rocks.report", "sim.sozoikum.report"} <= rooms
    bad = []
    for mod, targets in import_graph().items():
        if not mod.startswith("sim."):
            continue
        here = _in_report_room(mod, rooms)
        for t in targets:
            if t.startswith("analysis") and not here and mod not in COMMAND_LINE:
                bad.append(f"{mod} imports {t} (in sim/ only the command line and a report room import analysis)")
            if _in_report_room(t, rooms) and not (here and t.split(".")[:3] == mod.split(".")[:3]):
                bad.append(f"{mod} imports {t} (a report room is named by its plug-in, imported by no module)")
    assert not bad, "\n".join(bad)


# --- an import inside a function says what start-up it spares -------------------------------------
#: The folders whose in-function imports must say why they are there. analysis/ joins
#: when its imports carry the marker too: ("sim", "analysis").
LAZY_IMPORT_SCOPE: tuple[str, ...] = ("sim", "analysis")
#: The marker and its figure: ``# start-up: analysis.report (pandas, scipy, matplotlib) adds 1.3 s ...``
START_UP = re.compile(r"#\s*start-up:.*\d(?:\.\d+)?\s*(?:ms|s)\b")
#: Files whose in-function imports do not say why yet, each with whose they are; the list only shrinks.
KNOWN_UNEXPLAINED_IMPORTS: dict[str, str] = {}


def _function_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that stand inside a function (at any depth)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    return found


def unexplained_imports(path: Path) -> list[str]:
    """``line N: the import`` for each in-function import in ``path`` (of the project or a library)
    that has no ``# start-up: ... <figure>`` comment: on its own lines, or above it in its paragraph
    (the lines up to the blank line above, so that a run of imports, or ``matplotlib.use("Agg")``
    between two, shares the comment that opens it)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, str(path))
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string
    imports = _function_imports(tree)
    lines = text.splitlines()
    bad = []
    for node in imports:
        said = [comments.get(n, "") for n in range(node.lineno, (node.end_lineno or node.lineno) + 1)]
        n = node.lineno - 1
        while n >= 1 and lines[n - 1].strip():
            said.append(comments.get(n, ""))
            n -= 1
        if not any(START_UP.search(c) for c in said):
            bad.append(f"line {node.lineno}: {lines[node.lineno - 1].strip()}")
    return bad


def test_every_import_inside_a_function_says_what_start_up_it_spares() -> None:
    bad, quiet = [], set()
    for pkg in LAZY_IMPORT_SCOPE:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            found = unexplained_imports(path)
            if rel not in KNOWN_UNEXPLAINED_IMPORTS:
                bad += [f"{rel} {b}" for b in found]
            elif not found:
                quiet.add(rel)
    assert not bad, "an import inside a function: move it to the top, or say on the line above " \
        "what it keeps out of the start-up and what that costs (# start-up: <what> <figure>):\n" + \
        "\n".join("  " + b for b in bad)
    assert not quiet, f"they say why now, well done; delete from KNOWN_UNEXPLAINED_IMPORTS: {sorted(quiet)}"


def test_the_start_up_check_reads_the_comment_above_a_run_of_imports(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("import json\n\n\ndef f():\n    # start-up: the runner adds 49 ms (CPU)\n    from sim.core import runner\n"
                 "    from analysis.load import (\n        load_run,\n    )\n    import os\n\n\n"
                 "def g():\n    from sim.core.store import Store\n    import json\n\n\n"
                 "def h():\n    # start-up: light\n    from . import x\n    # start-up: matplotlib 480 ms\n"
                 "    import matplotlib\n    matplotlib.use(\"Agg\")\n    import matplotlib.pyplot as plt\n\n\n"
                 "def k():\n    x = 1  # start-up: 5 ms\n    from sim.games import REGISTRY  # start-up: the games 3 ms\n",
                 encoding="utf-8")
    assert [b.split(":")[0] for b in unexplained_imports(f)] == ["line 14", "line 15", "line 20"]


# --- private names stay in their module ------------------------------------------------------------
def _private(name: str) -> bool:
    """``_x`` and ``__x``, not ``__x__`` (Python's own names, e.g. ``__version__``)."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name a module binds anywhere: its functions, classes, methods, variables, attributes
    it assigns (``self._memo = ...``), parameters and keyword arguments."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            out.add(node.arg)
    return out


def private_uses() -> set[tuple[str, str, str]]:
    """``(module, private name, where it is from)`` for every use in sim/ and analysis/ of another
    project module's private name, found three ways:

    - ``from a.b import _x``, or ``b._x`` on a module ``b`` imported from the project;
    - ``C._x`` on a name ``C`` imported from another project module (a class's private method);
    - ``obj._x`` on any other object (not ``self`` or ``cls``) when this module binds no ``_x``
      and another project module does: a private attribute of another module's class, reached
      through an instance.
    """
    modules = _modules()
    trees = {name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, path in modules.items()}
    bound = {name: _bound_names(tree) for name, tree in trees.items()}
    owners: dict[str, set[str]] = {}
    for name, names in bound.items():
        for n in names:
            if _private(n):
                owners.setdefault(n, set()).add(name)
    found: set[tuple[str, str, str]] = set()
    for name, tree in trees.items():
        path = modules[name]
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        module_alias: dict[str, str] = {}  # local name -> project module
        imported: dict[str, str] = {}  # local name -> the project module it was imported from
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                if base.partition(".")[0] not in PACKAGES:
                    continue
                for a in node.names:
                    if f"{base}.{a.name}" in modules:
                        module_alias[a.asname or a.name] = f"{base}.{a.name}"
                    elif _private(a.name) and base != name:
                        found.add((name, a.name, base))
                    else:
                        imported[a.asname or a.name] = base
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in modules and a.asname:
                        module_alias[a.asname] = a.name
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)):
                continue
            chain, base_node = [], node.value
            while isinstance(base_node, ast.Attribute):
                chain.append(base_node.attr)
                base_node = base_node.value
            if isinstance(base_node, ast.Name) and base_node.id in module_alias:
                target = ".".join([module_alias[base_node.id], *reversed(chain)])
                if target in modules and target != name:
                    found.add((name, node.attr, target))
                    continue
            if isinstance(node.value, ast.Name) and node.value.id in imported and imported[node.value.id] != name:
                found.add((name, node.attr, f"{imported[node.value.id]}.{node.value.id}"))
            elif not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")) \
                    and node.attr not in bound[name] and owners.get(node.attr):
                found.add((name, node.attr, ", ".join(sorted(owners[node.attr]))))
    return found


#: Private names that a module may still reach in another: none (the Sun's agents and scoring use
#: the state's public queries). Kept as a list, like KNOWN_CYCLES, so an exception is written down.
KNOWN_PRIVATE_USES: set[tuple[str, str]] = set()


def test_no_module_uses_another_modules_private_name() -> None:
    uses = private_uses()
    new = sorted(u for u in uses if (u[0], u[1]) not in KNOWN_PRIVATE_USES)
    gone = sorted(KNOWN_PRIVATE_USES - {(u[0], u[1]) for u in uses})
    assert not new, "private names used outside their module (make them public there, or move them):\n" + \
        "\n".join(f"  {m} uses {n} of {src}" for m, n, src in new)
    assert not gone, "made public, well done; delete from KNOWN_PRIVATE_USES:\n" + \
        "\n".join(f"  {m}: {n}" for m, n in gone)


def test_the_private_name_finder_sees_each_kind_of_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "sim"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("_CSS = 1\nclass C:\n    def _m(self): self._memo = 1\n    def pub(self): "
                              "return self._m()\n", encoding="utf-8")
    (pkg / "b.py").write_text("from sim.a import _CSS, C\nfrom sim import a\nx = a._CSS\ny = C._m\n"
                              "def f(c): return c._memo\ndef g(d): return d._unknown_elsewhere\n", encoding="utf-8")
    (tmp_path / "analysis").mkdir()
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert private_uses() == {("sim.b", "_CSS", "sim.a"), ("sim.b", "_m", "sim.a.C"), ("sim.b", "_memo", "sim.a")}


# --- nothing outside a game's folder names the game ----------------------------------------------
#: Files outside the game folders that may still name a game, each with why; the list only shrinks.
#: sim/games.py is the registry line itself.
NAMES_A_GAME_ALLOWED = {
    "sim/games.py": "the registry: one line per game",
}


def _docstring_ids(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions (prose may give a
    game as an example; code may not name one)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def game_mentions(path: Path, games: set[str]) -> list[str]:
    """Where the code of ``path`` names one of ``games`` (package names under sim/): an import of
    ``sim.<game>``, or a string (not a docstring) that holds a game's name as a word, in any case
    (``"sun_difficulty"``, ``"Sun: ..."``, ``"sim/sun/"``; not ``"sunny"``). Comments and
    docstrings are prose and are not read."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    prose = _docstring_ids(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            mods = [node.module or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            text = node.value
            hit = [g for g in sorted(games) if re.search(rf"(?i)(?<![a-z0-9]){g}(?![a-z0-9])", text)]
            found += [f"line {node.lineno}: the string {text[:60]!r} names {g}" for g in hit]
            continue
        else:
            continue
        found += [f"line {node.lineno}: imports {m}" for m in mods
                  if any(m == f"sim.{g}" or m.startswith(f"sim.{g}.") for g in games)]
    return found


def test_no_file_outside_a_game_folder_names_a_game() -> None:
    modules = _modules()
    games = {p.rpartition(".")[2] for p in _game_packages(modules)}
    assert {"sun", "druids", "rocks", "sozoikum"} <= games
    bad, quiet = [], []
    for path in modules.values():
        rel = path.relative_to(ROOT).as_posix()
        if any(rel.startswith(f"sim/{g}/") for g in games):
            continue
        found = game_mentions(path, games)
        if rel not in NAMES_A_GAME_ALLOWED:
            bad += [f"{rel} {m}" for m in found]
        elif not found:
            quiet.append(rel)
    assert not quiet, f"they name no game now, well done; delete from NAMES_A_GAME_ALLOWED: {quiet}"
    assert not bad, "outside sim/<game>/ the code names no game (a game declares what it brings in its " \
        "plug-in, docs/game-interface.md):\n" + "\n".join("  " + b for b in bad)


def test_the_game_name_finder_sees_imports_and_strings_not_prose(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text('"""The Sun (sim.sun) is an example here."""\n# sim.sun in a comment\nimport sim.sun.game\n'
                 'from sim.rocks import rules\nfrom sim.core import game\nx = "druids"\ny = "sim/sozoikum/a.py"\n'
                 'z = "sunny"\nw = {"sun_difficulty": 1}\nv = "[bold]Sun: chance of a clean pass[/]"\nu = "Rocks!"\n'
                 't = "resundial, the sozoikums"\n', encoding="utf-8")
    got = game_mentions(f, {"sun", "rocks", "druids", "sozoikum"})
    assert sorted(int(g.split(":")[0].split()[1]) for g in got) == [3, 4, 6, 7, 9, 10, 11], got


# --- the Sun's packages, one way -----------------------------------------------------------------
#: What each part of sim/sun may import of the Sun (docs/game-interface.md): geometry at the bottom,
#: the table and the rules beside each other over it, the agents over the rules; the game layer
#: (every other module of sim/sun but the viewer and the report) over all, and imported by none of
#: them; the viewer and the report room outside, imported by no layer. The thrower
#: (the player model) imports nothing: its noise records are the one noise type of the boundary, which
#: the table applies and the rules' actions and protocol carry.
SUN_LAYERS: dict[str, set[str]] = {
    "geometry": set(),
    "thrower": set(),
    "data": {"geometry", "thrower"},  # the rooms of plain data: options, actions, position, endings, physics
    "table": {"geometry", "thrower"},
    "calibration": {"geometry", "thrower", "table"},
    "rules": {"geometry", "thrower", "data"},
    "agents": {"geometry", "thrower", "data", "rules"},
}
SUN_DATA_ROOMS = ("options", "actions", "position", "endings", "physics")


def sun_part(module: str) -> str | None:
    """The part of sim/sun a module belongs to (a key of :data:`SUN_LAYERS`, ``game``, or one of the
    two parts outside the layers, which may import any part and which no part imports: ``viewer`` and
    ``report``), None outside sim/sun."""
    parts = module.split(".")
    if parts[:2] != ["sim", "sun"] or len(parts) < 3:
        return None
    if parts[2] == "players":
        return "thrower" if parts[3:] == ["thrower"] else "calibration"
    if parts[2] in SUN_DATA_ROOMS:
        return "data"
    if parts[2] in ("geometry", "table", "rules", "agents", "viewer", "report"):
        return parts[2]
    return "game"


def test_the_suns_packages_import_one_way() -> None:
    bad = []
    for mod, targets in import_graph().items():
        part = sun_part(mod)
        if part not in SUN_LAYERS:
            continue
        for t in targets:
            other = sun_part(t)
            if other is not None and other != part and other not in SUN_LAYERS[part]:
                bad.append(f"{mod} ({part}) imports {t} ({other})")
    assert not bad, "sim/sun imports against its layers:\n" + "\n".join("  " + b for b in sorted(bad))
