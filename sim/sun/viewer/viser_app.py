"""The replay in a browser with viser: a live viewer and a static export.

- :func:`start_viewer` runs a viser server showing a replay: the base disc, the stones as boxes of
  their real sizes, the ball and its string (a line from the pivot to the ball), and a control
  panel with play/pause, a time slider to scrub, the playback speed, a jump-to-turn dropdown, the
  current turn's event as markdown and the legend; the turn's penalty stones take their cause's
  colour, and what the rules saw (markers, mark areas, passable and blocked gaps, the pass's aim
  and release point, penalty causes: ``sim.sun.viewer.rules_scene``) is drawn on the table.
- :func:`export_static` records the same scene, frame by frame, with viser's scene serializer into a
  ``.viser`` file and writes it next to viser's prebuilt client (``index.html``), so the folder plays
  in any browser from a plain HTTP server (``stonelab replay serve DIR``). The static player has its
  own timeline (play, pause, speed, scrub); the turn's title is a label in front of the table, the
  rules' view is drawn as in the live viewer and the legend is pinned to the page's corner.
"""

from __future__ import annotations

import base64
import contextlib
import importlib.resources
import io
import json
import math
import socket
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
import sys
from typing import Any, Callable, Protocol, TypeVar

import numpy as np
import typer

from sim.core.errors import InputError
from sim.core.interrupts import exit_code_of, sigterm_as_interrupt
from sim.core.quaternions import quat_xyzw_to_wxyz
from sim.web.guard import host_name, is_loopback
from sim.sun.viewer.guard import page_choice, page_number, put_back, viser_server
from sim.sun.viewer.replay import BASE_COLOUR, STRING_COLOUR, Replay, hex_rgb
from sim.sun.viewer.replay.overlay import cause_colour
from sim.sun.viewer.rules_scene import RulesNodes, has_rules, legend_html

#: Where the camera starts (m) and what it looks at: the table seen from above and aside.
CAMERA_POSITION = (0.26, -0.26, 0.22)
CAMERA_LOOK_AT = (0.0, 0.0, 0.02)
#: A replay's camera: higher and further back, so the ring's gaps, the mark areas along the rim and
#: the release point a hand span or more beyond the rim are all in view.
REPLAY_CAMERA_POSITION = (0.03, -0.22, 0.40)
REPLAY_CAMERA_LOOK_AT = (0.0, 0.0, 0.0)
#: File names inside an export folder.
EXPORT_RECORDING = "replay.viser"
EXPORT_INDEX = "index.html"
EXPORT_STANDALONE = "standalone.html"
EXPORT_CLIENT = "viser-client.html"
#: Frames per second of an export's timeline unless told otherwise.
EXPORT_FPS = 30.0
LOCALHOST = "127.0.0.1"

_POS_EPS = 2e-5  # m: smaller moves are not re-sent (keeps the export small)
_QUAT_EPS = 2e-4


def _viser():  # noqa: ANN202
    # start-up: viser adds 180 ms, paid only by the viewer (CPU, python -X importtime)
    import viser

    return viser


def free_port(host: str = LOCALHOST) -> int:
    """A TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def add_table_base(scene: Any, radius: float, thickness: float) -> Any:
    """Set +z up and add the wooden base disc (radius and thickness in m, top face at z = 0) as
    ``/table/base``; shared by the replay viewer and the layout editor."""
    scene.set_up_direction("+z")
    return scene.add_cylinder("/table/base", radius=radius, height=thickness, color=hex_rgb(BASE_COLOUR),
                              radial_segments=64, position=(0.0, 0.0, -thickness / 2), receive_shadow=True)


@dataclass
class _BodyState:
    pos: np.ndarray | None = None
    quat: np.ndarray | None = None
    visible: bool | None = None
    colour: tuple[int, int, int] | None = None


@dataclass
class SceneNodes:
    """The scene nodes of one replay on one viser server, updated frame by frame.

    Only what changed since the last frame is sent, so a recording of many frames stays small.
    """

    replay: Replay
    scene: Any
    handles: list[Any] = field(default_factory=list)
    string: Any = None
    label: Any = None
    #: the rules' view (markers, mark areas, gaps, the pass, penalty causes), when the replay has it
    rules: RulesNodes | None = None
    _state: list[_BodyState] = field(default_factory=list)
    _string_pts: np.ndarray | None = None
    _label_text: str | None = None
    _ball: int | None = None

    @classmethod
    def build(cls, scene: Any, replay: Replay, with_label: bool = False) -> "SceneNodes":
        """Add the base, the bodies, the string (and optionally the event label) to ``scene``."""
        nodes = cls(replay, scene)
        tb = replay.table
        r = float(tb.get("base_radius", 0.15))
        th = float(tb.get("base_thickness", 0.02))
        add_table_base(scene, r, th)
        body_nodes: dict[int, str] = {}
        for i, b in enumerate(replay.bodies):
            if b.kind == "ball":
                nodes._ball = i
                h = scene.add_icosphere("/bodies/ball", radius=b.size[0] / 2, color=hex_rgb(b.colour),
                                        subdivisions=3, visible=False)
            else:
                name = f"/bodies/{b.key.replace(':', '_')}"
                h = scene.add_box(name, color=hex_rgb(b.colour), dimensions=tuple(b.size), visible=False)
                if b.stone is not None:
                    body_nodes[b.stone] = name
            nodes.handles.append(h)
            nodes._state.append(_BodyState())
        if nodes._ball is not None and tb.get("pivot") is not None:
            nodes.string = scene.add_line_segments("/bodies/string", points=np.zeros((1, 2, 3), np.float32),
                                                   colors=hex_rgb(STRING_COLOUR), thickness=1.5,
                                                   thickness_units="screen", visible=False)
        if with_label:  # in front of the table (seen from the replay camera: below it), clear of the stones
            nodes.label = scene.add_label("/event", "", position=(0.0, -(r + 0.05), 0.0), anchor="top-center",
                                          font_screen_scale=0.9)
        if has_rules(replay):
            nodes.rules = RulesNodes.build(scene, replay, body_nodes)
        return nodes

    def show(self, frame: int) -> None:
        """Move every body to its pose in ``frame``; colour the turn's penalty stones by their
        cause; draw the turn's rules' view."""
        rp = self.replay
        frame = min(max(int(frame), 0), rp.n_frames - 1)
        turn = rp.turn_at(frame)
        lost = {int(p["stone"]): str(p.get("cause", "")) for p in turn.penalties if p.get("stone") is not None} \
            if turn is not None else {}
        pos = rp.pos[frame]
        wxyz = quat_xyzw_to_wxyz(rp.quat[frame])
        for i, (b, h, st) in enumerate(zip(rp.bodies, self.handles, self._state)):
            vis = bool(np.isfinite(pos[i]).all())
            if vis:
                if st.pos is None or np.abs(st.pos - pos[i]).max() > _POS_EPS:
                    h.position = tuple(float(x) for x in pos[i])
                    st.pos = pos[i].copy()
                if st.quat is None or np.abs(st.quat - wxyz[i]).max() > _QUAT_EPS:
                    h.wxyz = tuple(float(x) for x in wxyz[i])
                    st.quat = wxyz[i].copy()
                if b.kind == "stone":
                    col = hex_rgb(cause_colour(lost[b.stone])) if b.stone in lost else hex_rgb(b.colour)
                    if st.colour != col:
                        h.color = col
                        st.colour = col
            if st.visible != vis:
                h.visible = vis
                st.visible = vis
        if self.string is not None and self._ball is not None:
            bp = pos[self._ball]
            if np.isfinite(bp).all():
                pts = np.array([[rp.table["pivot"], bp]], dtype=np.float32)
                if self._string_pts is None or np.abs(self._string_pts - pts).max() > _POS_EPS:
                    self.string.points = pts
                    self._string_pts = pts
                    self.string.visible = True
            elif self._string_pts is not None:
                self.string.visible = False
                self._string_pts = None
        if self.rules is not None:
            self.rules.show_turn(turn, frame)
        if self.label is not None:
            text = turn.title() if turn is not None else ""
            if text != self._label_text:
                self.label.text = text
                self._label_text = text


class ReplayViewer:
    """A live viser viewer of one replay (see the module docstring). Close with :meth:`close`.

    Args:
        replay: the replay to show.
        host: the address to listen on (127.0.0.1: this machine only).
        port: the TCP port (0: any free port).
    """

    SPEEDS = ("0.1x", "0.25x", "0.5x", "1x", "2x", "4x")
    #: the multiplier of each speed choice
    SPEED_FACTORS = {s: float(s.rstrip("x")) for s in SPEEDS}

    def __init__(self, replay: Replay, host: str = LOCALHOST, port: int = 8080) -> None:
        self.replay = replay
        self.host = host
        self.port = port or free_port(host)
        self.server = viser_server(host, self.port)
        self.port = int(self.server.get_port())  # viser moves on to the next port when one is taken
        self.server.initial_camera.position = REPLAY_CAMERA_POSITION
        self.server.initial_camera.look_at = REPLAY_CAMERA_LOOK_AT
        self.nodes = SceneNodes.build(self.server.scene, replay)
        self._lock = threading.RLock()
        self._time = float(replay.times[0])
        self._playing = False
        self._stop = threading.Event()
        self._syncing = False
        self._speed = 1.0  # the last valid speed choice: the player thread reads only this
        self._build_gui()
        self.seek(self._time)
        self._thread = threading.Thread(target=self._loop, name="replay-player", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{host_name(self.host)}:{self.port}/"

    def _build_gui(self) -> None:
        gui = self.server.gui
        rp = self.replay
        t0, t1 = float(rp.times[0]), float(rp.times[-1])
        self.play_button = gui.add_button("Play / pause")
        self.time_slider = gui.add_slider("time (s)", min=t0, max=round(max(t1, t0 + 0.01), 2), step=0.01, initial_value=t0)
        self.speed = gui.add_dropdown("speed", self.SPEEDS, initial_value="1x")
        labels = [tr.title() for tr in rp.turns] or ["(no turns)"]
        self._turn_labels = labels
        self.turn_select = gui.add_dropdown("jump to turn", labels, initial_value=labels[0])
        self.event_md = gui.add_markdown("")
        self.legend = gui.add_html(legend_html(rp, fixed=False))

        @self.play_button.on_click
        def _(_: Any) -> None:
            with self._lock:
                if not self._playing and self._time >= float(self.replay.times[-1]) - 1e-6:
                    self._time = float(self.replay.times[0])  # replay from the start
                self._playing = not self._playing

        # every value below comes from a page, i.e. from any websocket client (sim/sun/viewer/guard.py):
        # checked against the code's own bounds and choices; a bad one puts the widget back
        @self.time_slider.on_update
        def _(_: Any) -> None:
            self.on_time(self.time_slider.value)

        @self.speed.on_update
        def _(_: Any) -> None:
            self.on_speed(self.speed.value)

        @self.turn_select.on_update
        def _(_: Any) -> None:
            self.on_turn(self.turn_select.value)

    def on_time(self, value: Any) -> bool:
        """The time slider moved to ``value`` (s): pause and show it. A value that is not a
        finite number is refused (False, the slider put back); one out of range is clamped."""
        if self._syncing:
            return True
        with self._lock:
            t0, t1 = float(self.replay.times[0]), float(self.replay.times[-1])
            try:
                t = page_number(value, "time", -math.inf, math.inf)
            except InputError:
                self._put_back(self.time_slider, round(self._time, 2))
                return False
            self._playing = False
            self.seek(min(max(t, t0), t1))
            return True

    def on_speed(self, value: Any) -> bool:
        """The speed drop-down changed to ``value``: one of :attr:`SPEEDS`, else refused (False,
        the drop-down put back to the speed in use)."""
        with self._lock:
            try:
                self._speed = self.SPEED_FACTORS[page_choice(value, self.SPEEDS, "speed")]
                return True
            except InputError:
                current = next(k for k, v in self.SPEED_FACTORS.items() if v == self._speed)
                self._put_back(self.speed, current)
                return False

    def on_turn(self, value: Any) -> bool:
        """The turn drop-down changed to ``value``: jump to that turn's first frame; a value that
        is not one of the turns is refused (False)."""
        if self._syncing:
            return True
        with self._lock:
            try:
                k = self._turn_labels.index(page_choice(value, self._turn_labels, "turn"))
            except InputError:
                return False
            if k < len(self.replay.turns):
                self._playing = False
                self.seek(float(self.replay.times[self.replay.turns[k].frames[0]]))
            return True

    def _put_back(self, handle: Any, value: Any) -> None:
        self._syncing = True
        try:
            put_back(handle, value)
        finally:
            self._syncing = False

    def seek(self, t: float) -> int:
        """Show the frame at time ``t`` (s); returns its index."""
        with self._lock:
            if not math.isfinite(t):
                t = self._time
            self._time = t
            i = self.replay.frame_at(t)
            self.nodes.show(i)
            turn = self.replay.turn_at(i)
            self._syncing = True
            try:
                shown = self.time_slider.value
                if not isinstance(shown, (int, float)) or not abs(float(shown) - t) <= 0.005:
                    self.time_slider.value = round(t, 2)
                if turn is not None:
                    md = turn.markdown()
                    if self.event_md.content != md:
                        self.event_md.content = md
                    label = self._turn_labels[turn.index] if turn.index < len(self._turn_labels) else None
                    if label is not None and self.turn_select.value != label:
                        self.turn_select.value = label
            finally:
                self._syncing = False
            return i

    def _loop(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(1 / 60)
            now = time.perf_counter()
            dt, last = now - last, now
            with self._lock:
                if not self._playing:
                    continue
                t = self._time + dt * self._speed
                end = float(self.replay.times[-1])
                if t >= end:
                    t = end
                    self._playing = False
                self.seek(t)

    def play(self) -> None:
        with self._lock:
            self._playing = True

    def pause(self) -> None:
        with self._lock:
            self._playing = False

    def close(self) -> None:
        """Stop the player thread and the server."""
        self._stop.set()
        self._thread.join(timeout=2)
        self.server.stop()


def start_viewer(replay: Replay, host: str = LOCALHOST, port: int = 8080) -> ReplayViewer:
    """Start a live viewer (non-blocking). Warns when ``host`` is not a loopback address."""
    if not is_loopback(host):
        warnings.warn(f"the viewer listens on {host}: anyone on that network can connect to it", stacklevel=2)
    return ReplayViewer(replay, host, port)


# --------------------------------------------------------------------------------------------
# Serving from the command line: the replay viewer and the layout editor start, print their
# address and serve until Ctrl-C the same way
# --------------------------------------------------------------------------------------------


class Server(Protocol):
    """A started viser app: the port it listens on, and how to stop it."""

    port: int

    def close(self) -> None: ...


_S = TypeVar("_S", bound=Server)


def check_host(host: str, port: int) -> None:
    """Refuse a host name this machine cannot listen on before starting viser, which would retry
    an unknown host forever, silently.

    Raises:
        InputError: the host does not resolve (key ``--host``).
    """
    try:
        socket.getaddrinfo(host, port)
    except (socket.gaierror, UnicodeError) as e:
        raise InputError(f"cannot listen on {host!r}: {e}; give an address of this machine, e.g. 127.0.0.1",
                         key="--host") from None


def start_server(start: Callable[[], _S], host: str, port: int, what: str) -> _S:
    """``start()`` with viser's own warnings silenced, after a warning on stderr when ``host``
    opens the ``what`` (e.g. ``"viewer"``) to a network.

    Raises:
        InputError: the port cannot be listened on (key ``--port``).
    """
    if not is_loopback(host):
        print(f"warning: listening on {host}: anyone on that network can connect to this {what}", file=sys.stderr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return start()
        except OSError as e:
            raise InputError(f"cannot listen on {host}:{port}: {e}", key="--port") from None


def serve_until_interrupted(server: Server, line: str) -> None:
    """Print ``line`` (the address and what is served), then keep ``server`` running until Ctrl-C,
    SIGTERM or SIGHUP; close it either way.

    Raises:
        typer.Exit: with the stop's exit code (:func:`sim.core.interrupts.exit_code_of`: 130 after
            Ctrl-C, 128 + the signal otherwise), as every server command gives.
    """
    print(line, flush=True)
    try:
        with sigterm_as_interrupt():
            while True:
                time.sleep(1.0)
    except KeyboardInterrupt as stop:
        raise typer.Exit(exit_code_of(stop)) from None
    finally:
        server.close()


# --------------------------------------------------------------------------------------------
# Static export
# --------------------------------------------------------------------------------------------


def _client_html() -> Path:
    viser = _viser()
    p = Path(viser.__file__).parent / "client" / "build" / "index.html"
    if not p.is_file():
        raise InputError(f"viser's prebuilt client is missing ({p}); reinstall viser")
    return p


def record_scene(replay: Replay, fps: float = EXPORT_FPS) -> bytes:
    """The replay recorded with viser's scene serializer: the bytes of a ``.viser`` file.

    The replay is downsampled to ``fps``; each frame sends only what moved, then sleeps until the
    next frame's time, so the static player's timeline is the replay's.
    """
    rp = replay.downsample(fps)
    server = viser_server(LOCALHOST, free_port())  # no one connects to this one, but no one may
    try:
        server.initial_camera.position = REPLAY_CAMERA_POSITION
        server.initial_camera.look_at = REPLAY_CAMERA_LOOK_AT
        nodes = SceneNodes.build(server.scene, rp, with_label=True)
        nodes.show(0)
        ser = server.get_scene_serializer()
        for i in range(rp.n_frames):
            nodes.show(i)
            if i + 1 < rp.n_frames:
                ser.insert_sleep(max(0.0, float(rp.times[i + 1] - rp.times[i])))
        ser.insert_sleep(0.5)  # hold the last frame a moment before the player loops
        return ser.serialize()
    finally:
        with contextlib.redirect_stdout(io.StringIO()):
            server.stop()


#: Play the exported replay when the page is opened without a playbackPath: the query viser's client
#: reads is set in place (history.replaceState, before the client's script runs), not by loading the
#: page again (a reload that raced the client's start threw React's error #299 once in 13 runs)
_REDIRECT = """<script>
(function () {{
  var q = new URLSearchParams(window.location.search);
  if (!q.has("playbackPath")) {{
    q.set("playbackPath", "{rec}");
    if (!q.has("initialCameraPosition")) q.set("initialCameraPosition", "{cam}");
    if (!q.has("initialCameraLookAt")) q.set("initialCameraLookAt", "{look}");
    window.history.replaceState(null, "", window.location.pathname + "?" + q.toString() + window.location.hash);
  }}
}})();
</script>"""


def loading_notice() -> str:
    """What goes right after the ``<meta charset>`` of viser's client page (package data,
    ``sim/sun/viewer/pages``): a notice shown from the page's first paint until viser's client has
    mounted (the client is a megabyte of script in the page's head that unpacks in the browser,
    seconds on a busy machine, and the page stayed blank until its controls appeared), and the
    script that removes it and raises the page's ready signal once the scene is drawn
    (``<html data-stonelab-ready="drawn">`` and a ``stonelab-ready`` event)."""
    pages = importlib.resources.files("sim.sun.viewer") / "pages"
    html = (pages / "loading.html").read_text(encoding="utf-8").strip()
    script = (pages / "ready.js").read_text(encoding="utf-8")
    return f"{html}<script>{script}</script>"


def with_loading_notice(client: str) -> str:
    """viser's client page with :func:`loading_notice` right after its ``<meta charset>`` (before
    the client's script, which blocks the page until it has run).

    Raises:
        InputError: the page has no ``<meta charset>`` tag (not viser's client).
    """
    return after_meta_charset(client, loading_notice())


def after_meta_charset(client: str, html: str) -> str:
    """viser's client page with ``html`` right after its ``<meta charset>`` tag: a script there runs
    before the client's own.

    Raises:
        InputError: the page has no ``<meta charset>`` tag (not viser's client).
    """
    i = client.lower().find("<meta charset")
    j = client.find(">", i)
    if i < 0 or j < 0:
        raise InputError("viser's prebuilt client has no <meta charset> tag; reinstall viser")
    return client[:j + 1] + html + client[j + 1:]


def with_legend(client: str, legend: str) -> str:
    """viser's client page with the rules' legend (:func:`sim.sun.viewer.rules_scene.legend_html`,
    escaped there) at the start of its body, pinned over the 3-D view's top-right corner.

    Raises:
        InputError: the page has no ``<body>`` tag (not viser's client).
    """
    i = client.lower().find("<body")
    j = client.find(">", i)
    if i < 0 or j < 0:
        raise InputError("viser's prebuilt client has no <body> tag; reinstall viser")
    return client[:j + 1] + legend + client[j + 1:]


def export_static(replay: Replay, out_dir: str | Path, fps: float = EXPORT_FPS) -> Path:
    """Write a static viewer of ``replay`` into ``out_dir`` and return the folder.

    The folder holds ``replay.viser`` (the recorded scene), ``index.html`` (viser's client, which
    plays ``replay.viser`` when served over HTTP), ``standalone.html`` (one file with the scene
    embedded, opens without a server) and ``replay.json`` (the turns, for people and tools): the
    files of :func:`static_files`.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError("the export target exists and is not a folder", source=str(out), key="--out")
    # everything is computed before the first write, and each file is written whole and renamed:
    # a failure leaves no half-written file behind
    files = static_files(replay, fps)
    out.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        tmp = out / f".{name}.part"
        tmp.write_bytes(content)
        tmp.replace(out / name)
    return out


def static_files(replay: Replay, fps: float = EXPORT_FPS) -> dict[str, bytes]:
    """The files of a static viewer of ``replay`` (see :func:`export_static`), by name, in memory
    (``stonelab play`` serves a pass's ``standalone.html`` from memory).

    Raises:
        InputError: viser's prebuilt client is missing or not viser's.
    """
    data = record_scene(replay, fps)
    client = with_loading_notice(_client_html().read_text(encoding="utf-8"))
    cam = ",".join(f"{x:g}" for x in REPLAY_CAMERA_POSITION)
    look = ",".join(f"{x:g}" for x in REPLAY_CAMERA_LOOK_AT)
    redirect = _REDIRECT.format(rec=EXPORT_RECORDING, cam=cam, look=look)
    b64 = base64.b64encode(data).decode("ascii")
    embed = (f'<script>window.__VISER_EMBED_DATA__="{b64}";'
             f"window.__VISER_EMBED_CONFIG__={{darkMode:false}};</script>")
    summary = {"format": "stonelab.replay.export", "version": 1, "recording": EXPORT_RECORDING,
               "duration_s": replay.duration, "frames": replay.n_frames, "meta": replay.meta,
               "turns": [{"title": t.title(), "start_s": float(replay.times[t.frames[0]]) - float(replay.times[0]),
                          "markdown": t.markdown()} for t in replay.turns]}
    client = with_legend(client, legend_html(replay))
    head = client.index("</head>")
    return {
        EXPORT_RECORDING: data,
        # the query is set before viser's client script (in the head, after the loading notice) reads it
        EXPORT_INDEX: after_meta_charset(client, redirect).encode("utf-8"),
        EXPORT_STANDALONE: (client[:head] + embed + client[head:]).encode("utf-8"),
        "replay.json": json.dumps(summary, indent=1, default=str).encode("utf-8"),
    }


def check_export_dir(path: str | Path) -> Path:
    """Raise :class:`InputError` unless ``path`` is an export folder (index.html + replay.viser)."""
    d = Path(path)
    if d.is_file():
        raise InputError("is a file; give the folder written by `stonelab replay export`", source=str(d))
    if not d.is_dir():
        raise InputError("no such folder", source=str(d))
    for name in (EXPORT_INDEX, EXPORT_RECORDING):
        if not (d / name).is_file():
            raise InputError(f"not a replay export: {name} is missing (make one with `stonelab replay export`)",
                             source=str(d))
    return d


def serve_dir(path: str | Path, host: str = LOCALHOST, port: int = 8000):  # noqa: ANN201
    """An HTTP server for an export folder (not started: call ``serve_forever``).

    It serves the export's own files and nothing else (:meth:`sim.web.server.WebHandler.send_file`):
    a GET or HEAD of a regular file whose resolved path is inside the folder (``/`` is its
    ``index.html``); a folder, a symlink that leads out, a FIFO or a device is "404 not found", and
    no folder is ever listed. A request whose ``Host`` is not this server (DNS rebinding) or that
    comes from another site's page (its ``Origin``) is refused with 403 (:mod:`sim.web`).

    Raises:
        InputError: ``path`` is not an export folder.
        OSError: the address cannot be listened on.
    """
    # start-up: the web server (http.server) adds 11 ms to the viewer's start-up (CPU, python -X importtime)
    from sim.web.server import VISER_CLIENT_POLICY, WebHandler, make_server

    root = check_export_dir(path).resolve()

    class _ExportFiles(WebHandler):
        policy = VISER_CLIENT_POLICY  # viser's prebuilt client runs inline scripts and blob: workers

        def get(self, url_path: str) -> None:
            self.send_file(root, url_path, EXPORT_INDEX)

    return make_server(_ExportFiles, host, port)
