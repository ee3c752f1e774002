"""The layout editor in a browser (``stonelab sun edit``): a viser page over :class:`LayoutEditor`.

The page shows the base, the ring and every stone at true size (standing, stacked, gates laid on
their supports), the ring's gaps coloured passable (green) or not (red, orange under a low gate),
and a control panel:

- **Stones**: pick a shape and an angle, *Add stone*; pick a stone (drop-down, or click it in the
  3-D view), *Stack on selected*, *Move selected to angle*, *Delete selected*; *Undo*.
- **Gates**: pick a gap between two neighbouring positions and a shape, *Lay gate*; *Delete gate*.
- **Physics**: *Settle* (PyBullet; fallen stones turn red where they came to rest), *Pass* at an aim
  with a skill and seed (animated), *Aim sweep* (a few noisy passes per aim; the chance of a clean
  pass drawn as a coloured band round the base at each release azimuth: the danger map).
- **File**: *Save* under a file name (a layout TOML that ``stonelab stability``, ``sun pass`` and
  scenarios read), *Load* one; the text a save writes is shown below. The page names files, never
  paths: they live in the one folder fixed on the command line (:mod:`sim.sun.viewer.editor_files`).

Every value the page sends is checked here (:mod:`sim.sun.viewer.guard`): a number that is NaN or out
of range, a drop-down value that is not one of the choices, a bad file name is refused with its
reason in the page, never raised in viser's handler thread.

Every edit goes through :class:`sim.sun.viewer.editor.LayoutEditor`, which validates it like
``load_layout``; a refused edit leaves the layout as it was and its reason is shown in the page.
The ``do_*`` methods are what the buttons call; tests call them directly too.
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

from sim.core.errors import InputError, ScenarioError
from sim.sun.table.layout import SHAPE_NAMES, load_layout
from sim.sun.players.thrower import DEFAULT_SKILL, SKILLS
from sim.sun.viewer.editor import LayoutEditor, PassOutcome, SettleOutcome
from sim.sun.viewer.editor_files import LayoutFolder, not_a_layout
from sim.sun.viewer.guard import md_code, md_text, page_choice, page_number, put_back, viser_server
from sim.sun.viewer.layout_plot import LOW_GATE_COLOUR, NARROW_COLOUR, PASSABLE_COLOUR, gap_marks, layout_boxes
from sim.core.quaternions import quat_xyzw_to_wxyz, quat_yaw
from sim.sun.viewer.replay import PENALTY_COLOUR, SHAPE_COLOURS, STONE_COLOUR, from_pose_recording, hex_rgb
from sim.sun.viewer.viser_app import (CAMERA_LOOK_AT, CAMERA_POSITION, LOCALHOST, SceneNodes, add_table_base,
                                      free_port)
from sim.web.guard import host_name, is_loopback

SELECTED_COLOUR = "#ffd43b"
NO_SELECTION = "(none)"
#: Danger-map band outside the base edge (m): where the thrower stands for that aim.
DANGER_INNER, DANGER_OUTER = 0.006, 0.026
#: What the page's number fields accept (the handles' own min and max can be changed by a client).
ANGLE_RANGE = (-360.0, 720.0)
SEED_RANGE = (0, 2**31 - 1)
TRIALS_RANGE = (1, 50)
STEP_RANGE = (1.0, 90.0)


def _wxyz(q_xyzw: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """``q_xyzw`` in viser's (w, x, y, z) order, as the plain tuple viser's handles take."""
    w, x, y, z = quat_xyzw_to_wxyz(q_xyzw).tolist()
    return (w, x, y, z)


def _yaw_wxyz(yaw: float) -> tuple[float, float, float, float]:
    return _wxyz(quat_yaw(yaw))


def clean_colour(p: float) -> tuple[int, int, int]:
    """Danger-map colour of a chance of a clean pass ``p``: red (0) through yellow to green (1)."""
    p = min(max(float(p), 0.0), 1.0)
    red, yellow, green = np.array([215, 48, 39]), np.array([254, 224, 139]), np.array([26, 152, 80])
    c = red + (yellow - red) * (p / 0.5) if p < 0.5 else yellow + (green - yellow) * ((p - 0.5) / 0.5)
    return (int(c[0]), int(c[1]), int(c[2]))


#: The danger map's legend, under *Aim sweep* while a map is drawn.
DANGER_LEGEND = ("**Danger map**: the band round the base, at each release azimuth, is the chance of a "
                 "clean pass (no stone lost) thrown from there: red 0, yellow 0.5, green 1.")


def danger_legend_strip(width: int = 240, height: int = 14) -> np.ndarray:
    """The danger map's colour scale as an RGB image (``height`` x ``width``, uint8): the chance of
    a clean pass from 0 (left) to 1 (right), drawn with :func:`clean_colour` itself."""
    row = np.array([clean_colour(p) for p in np.linspace(0.0, 1.0, width)], dtype=np.uint8)
    return np.repeat(row[None, :, :], height, axis=0)


class EditorApp:
    """A viser server editing one layout (see the module docstring). Close with :meth:`close`.

    Args:
        editor: the model (an opened file or an empty layout).
        host: address to listen on (127.0.0.1: this machine only).
        port: TCP port (0: any free port).
        save_path: the file Save writes unless the page names another (default the editor's
            file, else ``layout.toml`` in ``folder``).
        folder: the only folder the page saves into and loads from (default the folder of
            ``save_path``, else of the editor's file, else the current folder). The file the
            editor opened may be overwritten; no other existing file (docs/security.md).

    Raises:
        InputError: ``folder`` is not an existing folder.
    """

    def __init__(self, editor: LayoutEditor, host: str = LOCALHOST, port: int = 8080,
                 save_path: str | Path | None = None, folder: str | Path | None = None) -> None:
        start = Path(save_path) if save_path is not None else editor.path
        if folder is None:
            folder = start.parent if start is not None else Path(".")
        self.files = LayoutFolder(folder, own=(editor.path,) if editor.path is not None else ())
        self.editor = editor
        self.host = host
        self.server = viser_server(host, port or free_port(host))
        self.port = int(self.server.get_port())
        self.server.initial_camera.position = CAMERA_POSITION
        self.server.initial_camera.look_at = CAMERA_LOOK_AT
        self._lock = threading.RLock()
        self._busy = threading.Lock()
        self._layout_nodes: list[Any] = []
        self._stone_nodes: dict[str, Any] = {}
        self._danger_nodes: list[Any] = []
        self._pass_nodes: SceneNodes | None = None
        self._anim: threading.Thread | None = None
        self._stop_anim = threading.Event()
        self.selected: int | None = None
        #: the last message shown (``"refused: ..."`` for a refused edit)
        self.message = ""
        self.last_pass: PassOutcome | None = None
        self.last_settle: SettleOutcome | None = None
        self.last_sweep: dict[str, Any] | None = None
        t = editor.layout.table
        add_table_base(self.server.scene, t.base_radius, t.base_thickness)
        self._build_gui(start.name if start is not None else "layout.toml")
        self.refresh()

    @property
    def url(self) -> str:
        return f"http://{host_name(self.host)}:{self.port}/"

    # ---- GUI ------------------------------------------------------------------------------

    def _build_gui(self, save_name: str) -> None:
        gui = self.server.gui
        self.status_md = gui.add_markdown("")
        with gui.add_folder("Stones"):
            self.shape = gui.add_dropdown("shape", list(SHAPE_NAMES), initial_value="block")
            self.angle = gui.add_number("angle (deg)", 0.0, min=ANGLE_RANGE[0], max=ANGLE_RANGE[1], step=0.01)
            self.add_button = gui.add_button("Add stone")
            self.stone_select = gui.add_dropdown("selected", [NO_SELECTION], initial_value=NO_SELECTION)
            self.stack_button = gui.add_button("Stack on selected")
            self.move_button = gui.add_button("Move selected to angle")
            self.delete_button = gui.add_button("Delete selected")
            self.undo_button = gui.add_button("Undo")
        with gui.add_folder("Gates"):
            self.gap_select = gui.add_dropdown("gap", [NO_SELECTION], initial_value=NO_SELECTION)
            self.gate_shape = gui.add_dropdown("gate shape", list(SHAPE_NAMES), initial_value="slab")
            self.gate_button = gui.add_button("Lay gate")
            self.gate_select = gui.add_dropdown("gate", [NO_SELECTION], initial_value=NO_SELECTION)
            self.delete_gate_button = gui.add_button("Delete gate")
        with gui.add_folder("Physics"):
            self.skill = gui.add_dropdown("skill", list(SKILLS), initial_value=DEFAULT_SKILL)
            self.aim = gui.add_number("aim (deg)", 0.0, min=ANGLE_RANGE[0], max=ANGLE_RANGE[1], step=0.1)
            self.seed = gui.add_number("seed", 0, min=SEED_RANGE[0], max=SEED_RANGE[1], step=1)
            self.settle_button = gui.add_button("Settle")
            self.pass_button = gui.add_button("Pass")
            self.trials = gui.add_number("sweep trials per aim", 3, min=TRIALS_RANGE[0], max=TRIALS_RANGE[1], step=1)
            self.step = gui.add_number("sweep step (deg)", 15.0, min=STEP_RANGE[0], max=STEP_RANGE[1], step=1.0)
            self.sweep_button = gui.add_button("Aim sweep")
            self.danger_md = gui.add_markdown(DANGER_LEGEND, visible=False)
            self.danger_strip = gui.add_image(danger_legend_strip(), label="clean pass: 0 to 1", visible=False)
            self.reset_button = gui.add_button("Show layout")
            self.physics_md = gui.add_markdown("")
        with gui.add_folder("File"):
            gui.add_markdown(f"Files are saved in and loaded from {md_text(self.files.folder)} (set on the command line).")
            self.path = gui.add_text("file name", save_name)
            self.file_select = gui.add_dropdown("layout files there", [NO_SELECTION], initial_value=NO_SELECTION)
            self.save_button = gui.add_button("Save")
            self.load_button = gui.add_button("Load")
        with gui.add_folder("Gaps", expand_by_default=False):
            self.gaps_md = gui.add_markdown("")
        with gui.add_folder("Layout file (what Save writes)"):
            self.toml_md = gui.add_markdown("")

        def on(handle: Any, fn: Callable[[], Any]) -> None:
            handle.on_click(lambda _ev: fn())

        on(self.add_button, self.do_add)
        on(self.stack_button, self.do_stack)
        on(self.move_button, self.do_move)
        on(self.delete_button, self.do_delete)
        on(self.undo_button, self.do_undo)
        on(self.gate_button, self.do_gate)
        on(self.delete_gate_button, self.do_delete_gate)
        on(self.settle_button, self.do_settle)
        on(self.pass_button, self.do_pass)
        on(self.sweep_button, self.do_sweep)
        on(self.reset_button, self.do_show_layout)
        on(self.save_button, self.do_save)
        on(self.load_button, self.do_load)

        @self.stone_select.on_update
        def _(_: Any) -> None:
            self._select_from_dropdown()

        @self.file_select.on_update
        def _(_: Any) -> None:
            self._file_from_dropdown()

    # ---- helpers --------------------------------------------------------------------------

    def _say(self, text: str, refused: bool = False, markdown: bool = False) -> None:
        """Show ``text`` in the status panel: as text (it may quote what the page or a file gave:
        a refused value, a path) unless ``markdown`` (a message the code composed as markdown)."""
        self.message = f"refused: {text}" if refused else text
        head = f"**Layout editor** — {md_text(self.editor.path or 'new layout')}"
        left = ", ".join(f"{n} {k}" for n, k in self.editor.left_in_set().items())
        shown = text if markdown and not refused else md_text(text)
        body = f"**Refused:** {shown}" if refused else shown
        self.status_md.content = f"{head}  \nleft in the set: {left}\n\n{body}"

    def _edit(self, what: Callable[[], str]) -> bool:
        """Run one edit; show its message, or the refusal reason (the layout unchanged)."""
        with self._lock:
            if self._busy.locked():
                # the running simulation reads the layout it started with; its result is drawn on it
                self._say("busy: wait for the running simulation to finish", refused=True)
                return False
            try:
                msg = what()
            except InputError as e:
                self._say(str(e), refused=True)
                return False
            self.refresh()
            self._say(msg)
            return True

    @staticmethod
    def _number(handle: Any, key: str, bounds: tuple[float, float], whole: bool = False) -> float:
        # the code's bounds, not the handle's: a client can change a handle's min and max
        return page_number(handle.value, key, bounds[0], bounds[1], whole)

    def _shape(self, handle: Any) -> str:
        return page_choice(handle.value, list(self.editor.layout.shapes), "shape")

    def _skill(self) -> str:
        return page_choice(self.skill.value, list(SKILLS), "skill")

    def _sync_files(self) -> None:
        self.file_select.options = [NO_SELECTION, *self.files.names()]

    def _selected(self) -> int:
        if self.selected is None:
            raise InputError("select a stone first (the 'selected' drop-down, or click it)", key="selected")
        return self.selected

    def _select_from_dropdown(self) -> None:
        with self._lock:
            labels = [self.editor.stone_label(i) for i in range(len(self.editor.layout.stones))]
            v = self.stone_select.value
            if v == NO_SELECTION or v not in labels:
                # a value that is not a stone of this layout (stale, or sent by a client): no selection
                sel = None
                if v != NO_SELECTION:
                    put_back(self.stone_select, NO_SELECTION)
            else:
                sel = labels.index(v)
            if sel != self.selected:
                self.selected = sel
                self._colour_stones()

    def _file_from_dropdown(self) -> None:
        v = self.file_select.value
        if v != NO_SELECTION and isinstance(v, str) and v in self.files.names():
            self.path.value = v

    def select(self, index: int | None) -> None:
        """Select ``stones[index]`` (None: nothing), as clicking it in the 3-D view does."""
        with self._lock:
            self.selected = index
            self.stone_select.value = NO_SELECTION if index is None else self.editor.stone_label(index)
            self._colour_stones()

    # ---- button handlers --------------------------------------------------------------------

    def do_add(self) -> bool:
        """*Add stone*: the chosen shape at the chosen angle."""
        def go() -> str:
            i = self.editor.add_stone(self._shape(self.shape), self._number(self.angle, "angle", ANGLE_RANGE))
            self.selected = i
            return f"added {self.editor.stone_label(i)}"
        return self._edit(go)

    def do_stack(self) -> bool:
        """*Stack on selected*: the chosen shape on the selected level-1 stone."""
        def go() -> str:
            i = self.editor.stack_stone(self._shape(self.shape), self._selected())
            self.selected = i
            return f"stacked {self.editor.stone_label(i)}"
        return self._edit(go)

    def do_move(self) -> bool:
        """*Move selected to angle*."""
        def go() -> str:
            i = self._selected()
            self.editor.move_stone(i, self._number(self.angle, "angle", ANGLE_RANGE))
            return f"moved {self.editor.stone_label(i)}"
        return self._edit(go)

    def do_delete(self) -> bool:
        """*Delete selected* (with what rests on it)."""
        def go() -> str:
            gone = self.editor.delete_stone(self._selected())
            self.selected = None
            return "deleted " + ", ".join(gone) + " (later stones renumbered)"
        return self._edit(go)

    def do_undo(self) -> bool:
        """*Undo* the last change."""
        def go() -> str:
            if not self.editor.undo():
                raise InputError("nothing to undo", key="undo")
            if self.selected is not None and self.selected >= len(self.editor.layout.stones):
                self.selected = None
            return "undone"
        return self._edit(go)

    def do_gate(self) -> bool:
        """*Lay gate* across the chosen gap."""
        def go() -> str:
            v = self.gap_select.value
            gaps = {g.label(): g for g in self.editor.gaps()}
            if not isinstance(v, str) or v not in gaps:
                raise InputError("choose a gap between two neighbouring stones first", key="gap")
            g = gaps[v]
            k = self.editor.add_gate(self._shape(self.gate_shape), g.a, g.b)
            return f"laid {self.editor.gate_label(k)}"
        return self._edit(go)

    def do_delete_gate(self) -> bool:
        """*Delete gate*: the chosen gate."""
        def go() -> str:
            labels = [self.editor.gate_label(k) for k in range(len(self.editor.layout.gates))]
            v = self.gate_select.value
            if not isinstance(v, str) or v not in labels:
                raise InputError("choose a gate first", key="gate")
            k = labels.index(v)
            label = self.editor.gate_label(k)
            self.editor.delete_gate(k)
            return f"deleted {label}"
        return self._edit(go)

    def do_save(self) -> bool:
        """*Save* under the file name field, in the editor's folder (:class:`LayoutFolder`)."""
        with self._lock:
            try:
                p = self.files.write(self.path.value, self.editor.toml())
            except InputError as e:
                self._say(str(e), refused=True)
                return False
            self.editor.path = p
            self._sync_files()
            self._say(f"saved {p} ({len(self.editor.layout.stones)} stones, {len(self.editor.layout.gates)} gates)")
            return True

    def do_load(self) -> bool:
        """*Load* the layout named in the file name field from the editor's folder (validated like
        ``load_layout``; undo brings back the old one). Save may then overwrite it."""
        def go() -> str:
            p, text = self.files.read(self.path.value)
            try:
                opened = LayoutEditor.parse(text, p)
            except ScenarioError:
                raise not_a_layout(p.name, self.files.folder) from None
            self.editor.replace_layout(opened.layout, p, opened.name, opened.description)
            self.files.adopt(p)
            self.selected = None
            return f"loaded {p}"
        ok = self._edit(go)
        if ok:
            t = self.editor.layout.table
            add_table_base(self.server.scene, t.base_radius, t.base_thickness)
        return ok

    def _physics(self, label: str, fn: Callable[[], str]) -> bool:
        if not self._busy.acquire(blocking=False):
            self._say("busy: wait for the running simulation to finish", refused=True)
            return False
        try:
            self.physics_md.content = f"*{label}…*"
            try:
                msg = fn()
            except InputError as e:
                self.physics_md.content = f"**Refused:** {md_text(e)}"
                self._say(str(e), refused=True)
                return False
            self.physics_md.content = msg
            self._say(msg.splitlines()[0], markdown=True)
            return True
        finally:
            self._busy.release()

    def do_settle(self) -> bool:
        """*Settle*: PyBullet settles the layout untouched; fallen stones turn red where they lie."""
        def go() -> str:
            out = self.editor.settle()
            self.last_settle = out
            self._stop_animation()
            with self._lock:
                red = {p["stone"] for p in out.penalties}
                lay = self.editor.layout
                for sid, (pos, quat) in out.poses.items():
                    key = self._node_key(sid)
                    h = self._stone_nodes.get(key)
                    if h is None:
                        continue
                    if key.startswith("gate:"):
                        # the table's body frame of a lintel is the stone's own (x depth, y width,
                        # z height, laid along the chord), not the drawing's (x along the chord)
                        shp = lay.shapes[lay.gates[int(key.split(":")[1])].shape]
                        h.remove()
                        self._layout_nodes.remove(h)
                        h = self.server.scene.add_box(f"/layout/{key.replace(':', '_')}", color=h.color,
                                                      dimensions=(shp.depth, shp.width, shp.height))
                        self._stone_nodes[key] = h
                        self._layout_nodes.append(h)
                    h.position = pos
                    h.wxyz = _wxyz(quat)
                    if sid in red:
                        h.color = hex_rgb(PENALTY_COLOUR)
            worst = max(out.drift_mm.values(), default=0.0)
            if out.penalties:
                lost = ", ".join(f"{self._stone_name(p['stone'])} ({p['shape']}) {p['cause']}" for p in out.penalties)
                return f"settle: **{len(out.penalties)} fell**: {lost}"
            return (f"settle: nothing falls (largest drift {worst:.2f} mm"
                    f"{'' if out.settled else ', still moving at the time limit'})")
        return self._physics("settling", go)

    def do_pass(self, wait: bool = False) -> bool:
        """*Pass*: one pass at the aim, skill and seed; animated in the 3-D view (``wait`` blocks
        until the animation ends)."""
        def go() -> str:
            out = self.editor.run_pass(self._number(self.aim, "aim", ANGLE_RANGE), self._skill(),
                                       int(self._number(self.seed, "seed", SEED_RANGE, whole=True)))
            self.last_pass = out
            self._animate(out)
            r = out.result
            lost = ", ".join(f"{self._stone_name(p['stone'])} ({p['shape']}) {p['cause']}" for p in out.penalties)
            head = f"pass at {r['aim_deg']:.1f} deg, skill {r['skill']}, seed {r['seed']}: " + (
                f"**{len(out.penalties)} lost**: {lost}" if out.penalties else "**clean**, no stone lost")
            return (f"{head}  \nthrough the aimed gap: {r['through_aim_gap']}, reached the far side: "
                    f"{r['reached_far_side']}{', invalid' if r['invalid'] else ''}")
        ok = self._physics("simulating a pass", go)
        if ok and wait and self._anim is not None:
            self._anim.join()
        return ok

    def do_sweep(self) -> bool:
        """*Aim sweep*: the danger map (chance of a clean pass by release azimuth) round the base."""
        def go() -> str:
            trials = int(self._number(self.trials, "trials", TRIALS_RANGE, whole=True))
            step = self._number(self.step, "step", STEP_RANGE)
            skill, seed = self._skill(), int(self._number(self.seed, "seed", SEED_RANGE, whole=True))
            t0 = time.perf_counter()
            sw = self.editor.sweep(skill, trials, seed, step)
            self.last_sweep = sw
            self._draw_danger(sw)
            worst = min(sw["aims"], key=lambda r: r["p_clean"])
            best = max(sw["aims"], key=lambda r: r["p_clean"])
            return (f"aim sweep: {sw['passes']} passes ({trials} per aim, skill {skill}) in "
                    f"{time.perf_counter() - t0:.1f} s  \nband round the base: chance of a clean pass released "
                    f"there (green 1, yellow 0.5, red 0)  \nsafest aim {best['aim_deg']:.0f} deg "
                    f"({best['p_clean']:.2f}), most dangerous {worst['aim_deg']:.0f} deg ({worst['p_clean']:.2f})")
        return self._physics("aim sweep running", go)

    def do_show_layout(self) -> bool:
        """*Show layout*: back to the layout's nominal poses (ends an animation or a settle view)."""
        with self._lock:
            self._stop_animation()
            self.refresh(keep_danger=True)
        return True

    # ---- scene ------------------------------------------------------------------------------

    def _node_key(self, sid: int) -> str:
        n = len(self.editor.layout.stones)
        return f"stone:{sid}" if sid < n else f"gate:{sid - n}"

    def _stone_name(self, sid: int) -> str:
        n = len(self.editor.layout.stones)
        return f"stones[{sid}]" if sid < n else f"gates[{sid - n}]"

    def _clear(self, nodes: list[Any]) -> None:
        for h in nodes:
            h.remove()
        nodes.clear()

    def refresh(self, keep_danger: bool = False) -> None:
        """Redraw the layout (stones, gates, gaps, labels) and the drop-downs from the model; the
        danger map goes too unless ``keep_danger`` (it belongs to the layout it was swept on)."""
        with self._lock:
            self._stop_animation()
            self._clear(self._layout_nodes)
            if not keep_danger:
                self._clear(self._danger_nodes)
                self._show_danger_legend(False)
            self._stone_nodes = {}
            scene, lay = self.server.scene, self.editor.layout
            t = lay.table
            th = np.linspace(0.0, 2 * math.pi, 97)
            circle = np.column_stack([t.ring_radius * np.cos(th), t.ring_radius * np.sin(th), np.full_like(th, 0.0004)])
            self._layout_nodes.append(scene.add_line_segments(
                "/layout/ring", np.stack([circle[:-1], circle[1:]], axis=1).astype(np.float32), (120, 120, 120),
                thickness=1.0, thickness_units="screen"))
            for b in layout_boxes(lay):
                col = hex_rgb(SHAPE_COLOURS.get(b.shape, STONE_COLOUR))
                h = scene.add_box(f"/layout/{b.key.replace(':', '_')}", color=col, dimensions=b.size,
                                  position=b.centre, wxyz=_yaw_wxyz(b.yaw))
                self._stone_nodes[b.key] = h
                self._layout_nodes.append(h)
                if b.key.startswith("stone:"):
                    i = int(b.key.split(":")[1])
                    h.on_click(lambda _ev, i=i: self.select(i))
                    if b.level == 1:
                        a = lay.stones[i].angle_rad
                        r = t.ring_radius + 0.5 * lay.shapes[b.shape].depth + 0.006
                        self._layout_nodes.append(scene.add_label(
                            f"/layout/label_{i}", str(i), position=(r * math.cos(a), r * math.sin(a), 0.002),
                            font_screen_scale=0.7, anchor="center-center"))
            r_gap = t.ring_radius - 0.5 * max(s.depth for s in lay.shapes.values()) - 0.004
            for k, g in enumerate(gap_marks(lay)):
                colour = PASSABLE_COLOUR if g["passable"] else (NARROW_COLOUR if g["why"] == "narrow" else LOW_GATE_COLOUR)
                span = min((g["end"] - g["start"]), 2 * math.pi)
                if span <= 0:
                    continue
                arc = np.linspace(g["start"], g["start"] + span, max(3, int(span / 0.03)))
                pts = np.column_stack([r_gap * np.cos(arc), r_gap * np.sin(arc), np.full_like(arc, 0.0006)])
                self._layout_nodes.append(scene.add_line_segments(
                    f"/layout/gap_{k}", np.stack([pts[:-1], pts[1:]], axis=1).astype(np.float32), hex_rgb(colour),
                    thickness=4.0, thickness_units="screen"))
            self._colour_stones()
            self._sync_widgets()

    def _colour_stones(self) -> None:
        for key, h in self._stone_nodes.items():
            kind, idx = key.split(":")
            shape = (self.editor.layout.stones[int(idx)].shape if kind == "stone"
                     else self.editor.layout.gates[int(idx)].shape)
            sel = kind == "stone" and self.selected == int(idx)
            h.color = hex_rgb(SELECTED_COLOUR if sel else SHAPE_COLOURS.get(shape, STONE_COLOUR))

    def _sync_widgets(self) -> None:
        ed = self.editor
        stones = [ed.stone_label(i) for i in range(len(ed.layout.stones))]
        self.stone_select.options = [NO_SELECTION, *stones]
        self.stone_select.value = stones[self.selected] if self.selected is not None else NO_SELECTION
        gaps = ed.gaps()
        free = [g.label() for g in gaps if g.gate is None]
        self.gap_select.options = free or [NO_SELECTION]
        gates = [ed.gate_label(k) for k in range(len(ed.layout.gates))]
        self.gate_select.options = gates or [NO_SELECTION]
        rows = ["| gap | width | passable |", "|---|---:|:---:|"]
        for g in gaps:
            w = "open" if math.isinf(g.width_m) else f"{g.width_m * 1000:.1f} mm"
            rows.append(f"| {g.a} – {g.b}{' (gate)' if g.gate is not None else ''} | {w} | "
                        f"{'yes' if g.passable else '**no**'} |")
        self.gaps_md.content = "\n".join(rows) if gaps else "fewer than two stones: every angle is open"
        self.toml_md.content = md_code(ed.toml(), "toml")
        self._sync_files()

    def _show_danger_legend(self, shown: bool) -> None:
        for h in (getattr(self, "danger_md", None), getattr(self, "danger_strip", None)):
            if h is not None:
                h.visible = shown

    def _draw_danger(self, sweep: dict[str, Any]) -> None:
        with self._lock:
            self._show_danger_legend(True)
            self._clear(self._danger_nodes)
            t = self.editor.layout.table
            r0, r1 = t.base_radius + DANGER_INNER, t.base_radius + DANGER_OUTER
            half = math.radians(sweep["step_deg"]) * 0.48
            for k, row in enumerate(sweep["aims"]):
                a = math.radians(row["aim_deg"])
                arc = np.linspace(a - half, a + half, 6)
                verts = np.concatenate([np.column_stack([r0 * np.cos(arc), r0 * np.sin(arc), np.zeros_like(arc)]),
                                        np.column_stack([r1 * np.cos(arc), r1 * np.sin(arc), np.zeros_like(arc)])])
                m = len(arc)
                faces = []
                for j in range(m - 1):
                    faces += [(j, j + 1, m + j + 1), (j, m + j + 1, m + j)]
                self._danger_nodes.append(self.server.scene.add_mesh_simple(
                    f"/danger/aim_{k}", verts.astype(np.float32), np.array(faces, dtype=np.uint32),
                    color=clean_colour(row["p_clean"]), side="double", flat_shading=True))

    def _animate(self, out: PassOutcome) -> None:
        """Play the pass: the recorded bodies replace the layout's stones until *Show layout* or an edit."""
        with self._lock:
            self._stop_animation()
            for h in self._stone_nodes.values():
                h.visible = False
            rp = from_pose_recording(out.recording)
            self._pass_nodes = SceneNodes.build(self.server.scene, rp)
            self._pass_nodes.show(0)
            self._stop_anim.clear()
            nodes, stop = self._pass_nodes, self._stop_anim

        def play() -> None:
            t0 = time.perf_counter()
            times = rp.times - rp.times[0]
            for i in range(rp.n_frames):
                wait = float(times[i]) - (time.perf_counter() - t0)
                if wait > 0 and stop.wait(wait):
                    return
                with self._lock:
                    if stop.is_set():
                        return
                    nodes.show(i)

        self._anim = threading.Thread(target=play, name="editor-pass", daemon=True)
        self._anim.start()

    def _stop_animation(self) -> None:
        self._stop_anim.set()
        if self._anim is not None and self._anim is not threading.current_thread():
            self._anim.join(timeout=2)
        self._anim = None
        if self._pass_nodes is not None:
            for h in self._pass_nodes.handles:
                h.remove()
            if self._pass_nodes.string is not None:
                self._pass_nodes.string.remove()
            self._pass_nodes = None
            for h in self._stone_nodes.values():
                h.visible = True

    def close(self) -> None:
        """Stop the animation and the server."""
        with self._lock:
            self._stop_animation()
        self.server.stop()


def open_editor(layout: str | Path | None = None) -> LayoutEditor:
    """The model for ``stonelab sun edit [LAYOUT]``: the file's layout, or an empty one (which Save
    writes to LAYOUT when that file does not exist yet).

    Raises:
        ScenarioError: LAYOUT exists but is not a valid layout, or is a folder.
        InputError: a new LAYOUT whose name does not end in .toml or whose folder does not exist.
    """
    if layout is None:
        return LayoutEditor()
    p = Path(layout)
    if not p.exists():
        if p.suffix.lower() != ".toml":
            raise InputError("no such layout file (a new layout's file name must end in .toml)", source=p)
        if not p.parent.is_dir():
            raise InputError("no such folder for the new layout (the editor creates no folders)", source=p)
        return LayoutEditor(path=p, name=p.stem)
    load_layout(p)  # the error names the file
    return LayoutEditor.open(p)


def start_editor(editor: LayoutEditor, host: str = LOCALHOST, port: int = 8080,
                 folder: str | Path | None = None) -> EditorApp:
    """Start the editor's server (non-blocking); the page saves into and loads from ``folder``
    (default: the folder of the editor's file, else the current folder). Warns when ``host`` is
    not a loopback address.

    Raises:
        InputError: ``folder`` is not an existing folder.
    """
    if not is_loopback(host):
        warnings.warn(f"the editor listens on {host}: anyone on that network can connect to it", stacklevel=2)
    save = Path(folder) / editor.path.name if folder is not None and editor.path is not None else None
    return EditorApp(editor, host, port, save_path=save, folder=folder)
