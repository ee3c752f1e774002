"use strict";
let shown = -1;          // the version of the snapshot on the page
let decision = 0;        // the decision the listed moves belong to
let busy = false;        // a move is on its way
let finished = false;
let lastDrawing = null;  // the game's own drawing of the table last shown (view.drawing)
let tableKey = "";       // what that drawing was drawn from (decision, turn, shape chosen, drawing)
let risks = {};          // each listed move's risk, by its text (the Sun's passes and stands: snapshot.risks)
let standingRisk = null; // the risk of the move typed or set in the pass form (GET /read), shown when no move is pointed at

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

// The board area: the game's replay drawing of the position (StonelabBoard, from /board.js) fed the
// frame the server built for this seat alone (nothing hidden from it is in it); the seat view's
// text below it, and in its place for a game without a drawing.
function drawBoard(s) {
  const board = document.getElementById("board");
  const text = s.view && s.view.text ? s.view.text : "";
  document.getElementById("boardtext").textContent = text;
  const last = document.getElementById("lastmove");
  last.replaceChildren();
  if (!s.board && s.log.length > 0) {
    // a game without a replay drawing (the Sun): the last step as the log says it
    const e = s.log[s.log.length - 1];
    last.append(el("span", "Last step: " + e.who + ": " + e.text));
  }
  const details = document.getElementById("astext");
  if (s.board && window.StonelabBoard) {
    try {
      const doc = {setup: s.board.setup, seats: s.labels};
      board.replaceChildren(window.StonelabBoard.draw(doc, s.board.frame, [s.seat]));
      details.hidden = false;
      if (s.board.step > 0) {
        last.append(el("span", "Last step: " + s.board.frame.text));
        const mine = s.board.frame.hidden[String(s.seat)];
        if (mine && mine.note) last.append(el("span", " (only you know: " + mine.note + ")", "note"));
      }
      return;
    } catch (err) {
      board.replaceChildren(el("p", "the board cannot be drawn: " + err + "; the position as text:", "error"),
                            el("pre", text));
      details.hidden = true;
      return;
    }
  }
  if (s.view && s.view.drawing) {
    // the same table for the same decision is left as it is: a snapshot that changed elsewhere
    // (a pass's 3-D page now ready) must not rebuild it under a press, a drag or a hover
    const key = JSON.stringify([s.decision, s.your_turn, chosenShape, s.view.drawing]);
    if (key !== tableKey || !document.getElementById("table")) {
      tableKey = key;
      lastDrawing = s.view.drawing;
      board.replaceChildren(drawTable(s, s.view.drawing));
    }
    details.hidden = false;
    return;
  }
  const head = s.board_error ? [el("p", s.board_error, "error")] : [];
  board.replaceChildren(...head, el("pre", text));
  details.hidden = true;
}

// A game's own drawing of the table (view.drawing: the Sun's, sim/sun/seat_drawing.py): SVG
// primitives of a whitelist, attributes set as values; an item with a "move" is a candidate move
// (clicked: the listed move of that text is played); "pick" says what a click elsewhere means:
// "stand" types a stand at the angle clicked for the person to confirm, "aim" fills the pass
// form's aim field from a click or a drag on the table and its release field from the slider
// under it, and draws the line of that pass from its release point. The click is turned back into
// a point of the base by the drawing's own projection (its docstring gives the formula).
const SVG_NS = "http://www.w3.org/2000/svg";
const DRAG_PX = 8;  // a press that moves less than this (CSS px) is a click, not a drag
const DRAW_TAGS = new Set(["polygon", "polyline", "ellipse", "circle", "line", "rect"]);
const DRAW_ATTRS = new Set(["points", "cx", "cy", "r", "rx", "ry", "x", "y", "width", "height", "x1", "y1", "x2", "y2",
  "fill", "stroke", "stroke-width", "stroke-dasharray", "stroke-linecap", "opacity", "cursor", "class"]);
function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (DRAW_ATTRS.has(k)) e.setAttribute(k, String(v));
  return e;
}
function tableXY(d, svgRoot, ev) {
  // the click in the drawing's units, then the point (x, y) in metres of the base's plane (z = 0) it shows
  const pt = svgRoot.createSVGPoint();
  pt.x = ev.clientX; pt.y = ev.clientY;
  const p = pt.matrixTransform(svgRoot.getScreenCTM().inverse());
  const e = d.projection.elevation_deg * Math.PI / 180, k = d.projection.scale;
  return [p.x / k, -p.y / k / Math.sin(e)];
}
function azimuth(x, y) { return ((Math.atan2(y, x) * 180 / Math.PI) % 360 + 360) % 360; }
function tableAngle(d, svgRoot, ev) {
  const [x, y] = tableXY(d, svgRoot, ev);
  return azimuth(x, y);
}
function tablePoint(d, r, angleDeg, z) {
  const e = d.projection.elevation_deg * Math.PI / 180, k = d.projection.scale, a = angleDeg * Math.PI / 180;
  return [k * r * Math.cos(a), -k * (r * Math.sin(a) * Math.sin(e) + z * Math.cos(e))];
}
function formField(name) {
  return name ? document.querySelector("#fields-form input[data-field='" + name + "']") : null;
}
// how far outside the base edge (m) a release point is drawn: release_band_radius's rule
// (sim/sun/seat_drawing.py), its constants sent with the drawing (pick.release_band)
function releaseBand(b, release) {
  return b.near + (b.far - b.near) * Math.min(1, Math.max(0, (release - b.least) / b.spread));
}
function drawAimLine(d, root) {
  const old = root.querySelector(".aimline");
  if (old) old.remove();
  const input = formField(d.pick && d.pick.field);
  if (!d.pick || d.pick.kind !== "aim" || !input || input.value.trim() === "") return;
  const aim = parseFloat(input.value);
  if (!Number.isFinite(aim)) return;
  const rel = formField(d.pick.release_field);
  const release = rel && Number.isFinite(parseFloat(rel.value)) ? parseFloat(rel.value) : d.pick.release_band.least;
  const [x1, y1] = tablePoint(d, d.pick.base_radius + releaseBand(d.pick.release_band, release), aim, d.pick.ball_z);
  const [x2, y2] = tablePoint(d, d.pick.base_radius, aim + 180, d.pick.ball_z);
  const g = svgEl("g", {class: "aimline"});
  const c = d.pick.aim_colour;
  g.append(svgEl("line", {x1: x1, y1: y1, x2: x2, y2: y2, stroke: c, "stroke-width": 2, "stroke-dasharray": "6,3"}),
           svgEl("circle", {cx: x1, cy: y1, r: 6, fill: d.pick.colour, stroke: c, "stroke-width": 1.5, class: "releasepoint"}));
  root.append(g);
}
// the release as a slider under the table, kept equal to the pass form's release field
function releaseSlider(s, d, root) {
  const f = (s.view.form && s.view.form.fields || []).find(x => x.name === d.pick.release_field);
  const field = formField(d.pick.release_field);
  if (!f) return null;
  const label = el("label", "release: nearer the rim", "release");
  const slider = el("input");
  slider.type = "range";
  slider.id = "release-slider";
  for (const k of ["min", "max", "step"]) if (f[k] !== undefined) slider.setAttribute(k, String(f[k]));
  slider.value = field && field.value.trim() !== "" ? field.value : String(f.value);
  slider.setAttribute("aria-label", f.label);
  slider.addEventListener("input", () => {
    const input = formField(d.pick.release_field);
    if (input) input.value = slider.value;
    drawAimLine(d, root);
    readRisk(formMove());
  });
  label.append(slider, document.createTextNode("farther out"));
  return label;
}
function drawLegend(d) {
  const list = el("ul", "", "legend");
  for (const item of d.legend || []) {
    const li = el("li");
    const sw = svgEl("svg", {});
    sw.setAttribute("viewBox", "0 0 14 10");
    sw.append(svgEl("rect", {x: 0, y: 0, width: 14, height: 10, fill: item.colour}));
    li.append(sw, document.createTextNode(item.words));
    list.append(li);
  }
  return list;
}
// a move's ghost on the table and its button in the list, lit together (class "hot")
function markMove(text, on) {
  for (const e of document.querySelectorAll("#table [data-move], #moves button[data-text]")) {
    if ((e.dataset.move !== undefined ? e.dataset.move : e.dataset.text) === text) e.classList.toggle("hot", on);
  }
  // what the move risks, said before it is played (the Sun's passes and stands)
  showRisk(on && risks[text] ? risks[text] : standingRisk, on && risks[text] ? text : "");
}
// a pass or stand that may cost a stone says so: the stones its line (or the stone set down) may
// touch and the chance of it with the person's skill, as the server measured it (the agents' measure)
function showRisk(r, text) {
  const box = document.getElementById("risk");
  if (!r) { box.hidden = true; box.textContent = ""; delete box.dataset.move; return; }
  box.textContent = r.words;
  box.className = r.flagged ? "risk flagged" : "risk";
  box.dataset.move = text || (r.move || "");
  box.hidden = false;
}
// the risk of a typed move or of the pass form's fields (GET /read: the game's parser, the server's measure)
let riskAsked = 0;
function readRisk(text) {
  const asked = ++riskAsked;
  if (!text || text.includes("?")) { standingRisk = null; showRisk(null); return; }
  fetch("/read?text=" + encodeURIComponent(text), {cache: "no-store"})
    .then(r => r.json())
    .then(a => {
      if (asked !== riskAsked) return;  // asked again since
      standingRisk = a.risk ? Object.assign({move: a.read}, a.risk) : null;
      showRisk(standingRisk, a.read);
      document.body.dataset.riskRead = String(asked);
    })
    .catch(() => {});
}
let chosenShape = "";  // the shape whose ghosts are shown (the drawing's choices)
function drawTable(s, d) {
  const wrap = document.createElement("div");
  const choices = d.choices || [];
  if (!choices.includes(chosenShape)) chosenShape = choices.length ? choices[0] : "";
  if (s.your_turn && choices.length > 1) {
    const bar = el("div", "", "choices");
    bar.append(el("span", "stone to place: "));
    for (const c of choices) {
      const b = el("button", c);
      b.type = "button";
      b.dataset.choice = c;
      if (c === chosenShape) b.className = "chosen";
      b.addEventListener("click", () => { chosenShape = c; drawBoard(s); });
      bar.append(b);
    }
    wrap.append(bar);
  }
  const root = svgEl("svg", {});
  root.setAttribute("viewBox", d.view_box.join(" "));
  root.setAttribute("role", "img");
  root.setAttribute("aria-label", "the table, seen from below its 270 deg side: stones, gaps, mark areas, markers; the moves you may make as ghosts to click");
  root.id = "table";
  for (const it of d.items) {
    if (!DRAW_TAGS.has(it.tag) || (it.choice !== undefined && it.choice !== chosenShape)) continue;
    const e = svgEl(it.tag, it);
    if (it.title) { const t = document.createElementNS(SVG_NS, "title"); t.textContent = it.title; e.append(t); }
    if (it.move !== undefined && String(it.class || "").startsWith("preview")) {
      // a placement's preview: shown while its move is pointed at or focused (play.css), never in the way
      e.dataset.move = it.move;
      e.setAttribute("pointer-events", "none");
    } else if (it.move !== undefined) {
      e.dataset.move = it.move;
      e.addEventListener("mouseenter", () => markMove(it.move, true));
      e.addEventListener("mouseleave", () => markMove(it.move, false));
      if (s.your_turn) {
        e.addEventListener("click", (ev) => {
          ev.stopPropagation();
          const i = s.legal.indexOf(it.move);
          send(i >= 0 ? i + 1 : it.move);
        });
      } else {
        e.setAttribute("pointer-events", "none");
      }
    }
    root.append(e);
  }
  if (s.your_turn && d.pick) {
    root.addEventListener("click", (ev) => {
      const angle = tableAngle(d, root, ev);
      if (d.pick.kind === "stand") {
        const typed = document.getElementById("typed");
        typed.value = d.pick.template.split("{choice}").join(chosenShape).split("{angle}").join(angle.toFixed(1));
        filterMoves();
        showRefusal("");
        typed.focus();
      }
    });
    if (d.pick.kind === "aim") {
      // a press aims at the point pressed (the release point's side); a drag aims along the drag:
      // the ball rolls the way the pointer moves, so the release point is behind the drag's
      // direction and the line through the centre is parallel to it (a press on a ghost is its own)
      let start = null;  // [x, y] m of the press on the base's plane, while a press lasts
      const setAim = (deg) => {
        const input = formField(d.pick.field);
        if (input) { input.value = deg.toFixed(1); drawAimLine(d, root); }
      };
      root.addEventListener("pointerdown", (ev) => {
        if (ev.target.dataset && ev.target.dataset.move !== undefined) return;
        start = [ev.clientX, ev.clientY, ...tableXY(d, root, ev)];
        root.setPointerCapture(ev.pointerId);
        setAim(azimuth(start[2], start[3]));
      });
      root.addEventListener("pointermove", (ev) => {
        if (!start || Math.hypot(ev.clientX - start[0], ev.clientY - start[1]) < DRAG_PX) return;
        const [x, y] = tableXY(d, root, ev);
        setAim(azimuth(start[2] - x, start[3] - y));
      });
      const end = () => { if (start) { start = null; readRisk(formMove()); } };
      root.addEventListener("pointerup", end);
      root.addEventListener("pointercancel", end);
    }
    root.style.cursor = "crosshair";
  }
  wrap.append(root);
  if (s.your_turn && d.pick && d.pick.kind === "aim") {
    setTimeout(() => {
      drawAimLine(d, root);
      const slider = releaseSlider(s, d, root);  // after drawForm: the form's fields exist
      if (slider) root.after(slider);
    }, 0);
  }
  if (d.caption) wrap.append(el("p", d.caption, "caption"));
  wrap.append(drawLegend(d));
  return wrap;
}

// A move made of numbers (the Sun's pass: aim and release) as fields, when the game's view offers
// one: view.form = {title, move: "pass {aim} {release}", fields: [{name, label, min, max, step, value}]};
// the move sent is the typed text the template makes, judged by the rules like any typed move.
let formKey = "";
function drawForm(s) {
  const form = document.getElementById("fields-form");
  const f = s.your_turn && s.view ? s.view.form : null;
  form.hidden = !f;
  if (!f) { formKey = ""; return; }
  const key = s.decision + ":" + JSON.stringify(f);
  if (key === formKey) return;  // keep what the person is typing
  formKey = key;
  document.getElementById("fields-title").textContent = f.title || "Your move";
  const box = document.getElementById("fields");
  box.replaceChildren();
  for (const field of f.fields) {
    const label = el("label", field.label);
    const input = el("input");
    input.type = "number";
    input.name = field.name;
    input.dataset.field = field.name;
    for (const k of ["min", "max", "step", "value"]) if (field[k] !== undefined) input.setAttribute(k, String(field[k]));
    label.append(input);
    box.append(label);
  }
  form.dataset.move = f.move;
  readRisk(formMove());  // what the first aim risks, before anything is touched
}

function formMove() {
  const form = document.getElementById("fields-form");
  let text = form.dataset.move || "";
  for (const input of form.querySelectorAll("input[data-field]")) {
    text = text.split("{" + input.dataset.field + "}").join(input.value.trim() || "?");
  }
  return text;
}

// the 3-D page of each pass (the Sun), opened beside the game
function drawTurns(s) {
  const turns = s.turns_3d || [];
  const box = document.getElementById("turns3d");
  box.hidden = turns.length === 0;
  const list = document.getElementById("turns3d-list");
  list.replaceChildren(...turns.slice().reverse().map(t => {
    const li = el("li");
    const what = "turn " + (t.turn + 1) + ", " + t.who + " passed";
    if (t.ready) {
      const a = el("a", what + ": watch it in 3-D");
      a.href = "/turn/" + t.turn;
      a.target = "_blank";
      a.rel = "noopener";
      li.append(a);
    } else {
      li.append(el("span", what + (t.failed ? ": no 3-D view (" + t.failed + ")" : ": recording the 3-D view..."),
                   "pending"));
    }
    return li;
  }));
}

function norm(s) { return s.toLowerCase().replace(/\s+/g, ""); }

// the listed moves that contain what is typed; all of them when nothing matches (a typed move
// that is not listed must not hide the list). A typed short form (druids' "c3") contains no
// listed text: the game's parser reads it (GET /read) and its listed move is shown.
let reading = 0;
let moved = false;
let rendered = false;  // the page has drawn a snapshot already
function filterMoves() {
  const typed = document.getElementById("typed").value;
  const want = norm(typed);
  if (want !== "") {
    readRisk(typed.trim());
  } else if (document.getElementById("fields-form").hidden) {
    readRisk("");  // nothing typed and no pass form: no move's risk stands
  } else {
    readRisk(formMove());  // the pass form's move is the one that stands
  }
  const buttons = [...document.querySelectorAll("#moves button")];
  const match = buttons.filter(b => want === "" || norm(b.dataset.text).includes(want));
  showMatch(buttons, match, want === "" ? "" : (match.length === 0
    ? "No listed move contains \u201c" + typed.trim() + "\u201d; all moves are listed."
    : "Moves containing \u201c" + typed.trim() + "\u201d:"));
  if (want === "" || match.length > 0) return;
  const asked = ++reading;
  fetch("/read?text=" + encodeURIComponent(typed.trim()), {cache: "no-store"})
    .then(r => r.json())
    .then(a => {
      if (asked !== reading || document.getElementById("typed").value !== typed) return;  // typed on since
      const listed = buttons.filter(b => a.move !== null && b.dataset.text === a.move);
      if (listed.length > 0) {
        showMatch(buttons, listed, "\u201c" + typed.trim() + "\u201d is " + a.move + ":");
      } else if (a.read !== null && norm(a.read) !== want) {
        showMatch(buttons, [], "\u201c" + typed.trim() + "\u201d is " + a.read +
          ", which is not listed: play it and the rules judge it.");
      }
    })
    .catch(() => {});
}

function showMatch(buttons, match, text) {
  for (const b of buttons) b.hidden = match.length > 0 && !match.includes(b);
  const note = document.getElementById("nomatch");
  note.textContent = text;
  note.hidden = text === "";
}

// "What happened": the steps in the replay's words (as the replay page says them: "seat 0 places a
// 5 on f; seat 0 claims line C (early)"), the person's own words added ("only you know: ..."),
// the last 200; the moves as listed for a game without a replay drawing
function drawLog(s) {
  const log = document.getElementById("log");
  const words = s.board && Array.isArray(s.board.words) ? s.board.words.slice(-200) : null;
  if (words) {
    log.replaceChildren(...words.map(w => {
      const li = el("li", w.text, w.seat === s.seat ? "you" : (w.seat < 0 ? "chance" : ""));
      if (w.note) li.append(el("span", " (only you know: " + w.note + ")", "note"));
      return li;
    }));
  } else {
    log.replaceChildren(...s.log.map(e => el("li", e.who + ": " + e.text + (e.count > 1 ? " (x" + e.count + ")" : ""),
                                             e.seat === s.seat ? "you" : (e.seat === "chance" ? "chance" : ""))));
  }
  log.scrollTop = log.scrollHeight;
}

function showRefusal(message) {
  const r = document.getElementById("refusal");
  r.textContent = message || "";
  r.hidden = !message;
}

async function send(choice) {
  if (busy || finished) return;
  const sent = decision;
  busy = true;
  document.body.dataset.busy = "1";
  try {
    const resp = await fetch("/move", {method: "POST", headers: {"Content-Type": "application/json"},
                                       body: JSON.stringify({decision: decision, choice: choice})});
    const v = await resp.json();
    if (v.ok) {
      showRefusal("");
      document.getElementById("typed").value = "";
      moved = true;
      if (decision !== sent && decision !== 0) {
        // the next decision was drawn before this answer came (the long poll was quicker)
        moved = false;
        focusMoves();
      }
    } else {
      showRefusal(v.message);
    }
  } catch (err) {
    showRefusal("the game server did not answer: " + err);
  } finally {
    busy = false;
    document.body.dataset.busy = "0";
    poll(false);
  }
}

function render(s) {
  document.title = "stonelab play: " + s.title;
  document.getElementById("title").textContent = s.title;
  document.getElementById("seat").textContent =
    "you are seat " + s.seat + " (" + s.labels.map((l, i) => "seat " + i + ": " + l).join(", ") + ")";
  drawBoard(s);
  drawForm(s);
  drawTurns(s);
  const status = document.getElementById("status");
  const turn = document.getElementById("turn");
  finished = !!s.finished;
  if (s.finished) {
    status.textContent = "Game over: " + s.finished.summary;
    status.className = "status over";
    const res = document.getElementById("result");
    res.hidden = false;
    res.textContent = s.finished.stored ? ("Stored in " + s.finished.stored + ". You may close this page.")
                                        : "Nothing was stored.";
    turn.hidden = true;
  } else if (s.your_turn) {
    status.textContent = "Your turn: choose one of the " + s.legal.length + " moves, or type one";
    status.className = "status yours";
    turn.hidden = false;
  } else {
    // the last move is played and the result is being stored: no one is to move
    status.textContent = s.to_move === "game over" ? "Game over: storing the result..."
      : "Waiting: " + s.to_move + (s.to_move === "chance" ? "" : " to move") + "...";
    status.className = "status";
    turn.hidden = true;
  }
  risks = s.risks || {};
  if (s.decision !== decision || s.legal.length !== document.querySelectorAll("#moves button").length) {
    decision = s.decision;
    if (!s.view || !s.view.form || !s.your_turn) { standingRisk = null; showRisk(null); }
    document.body.dataset.decision = String(decision);
    showRefusal("");
    const moves = document.getElementById("moves");
    moves.replaceChildren();
    s.legal.forEach((text, i) => {
      const b = el("button");
      b.type = "button";
      b.dataset.i = String(i + 1);
      b.dataset.text = text;
      b.append(el("span", String(i + 1) + ".", "num"), document.createTextNode(text));
      b.addEventListener("click", () => send(i + 1));
      // pointing at (or tabbing to) a move lights its ghost on the table, when it is drawn
      for (const [kind, on] of [["mouseenter", true], ["focus", true], ["mouseleave", false], ["blur", false]]) {
        b.addEventListener(kind, () => markMove(text, on));
      }
      moves.append(b);
    });
    filterMoves();
    // after a move (clicked, typed or by keyboard) and on a page just opened, the focus goes to the
    // new list of moves; otherwise it stays where the person put it
    const lost = document.activeElement === null || document.activeElement === document.body;
    if ((lost || moved) && s.your_turn) {
      moved = false;
      focusMoves();
    }
  }
  // a refusal said before this page was opened (a reload while the same decision is pending) is
  // not this page's: only one said since is shown
  if (s.refusal && rendered) showRefusal(s.refusal);
  rendered = true;
  drawLog(s);
}

// wait (long poll) for a position newer than the one shown, or answer at once (wait false)
async function poll(wait) {
  try {
    const resp = await fetch(wait && shown >= 0 ? "/state?after=" + shown : "/state", {cache: "no-store"});
    const s = await resp.json();
    // only a newer snapshot: the answer of a poll sent earlier can arrive after a newer one (a move's
    // poll and the long poll cross), and drawing it would show an old position until the next change
    if (s.version > shown) { shown = s.version; render(s); }
    return true;
  } catch (err) {
    if (!finished) {
      const status = document.getElementById("status");
      status.textContent = "The game server has stopped (" + err + ").";
      status.className = "status over";
    }
    return false;
  }
}

async function follow() {
  while (!finished) {
    if (!await poll(true)) await new Promise(r => setTimeout(r, 1000));
  }
}

// keyboard: the first move of the list, where a move is chosen (the skip link, and after a move:
// the clicked button is gone with its position, and the focus would drop to the page's start)
function focusMoves() {
  const first = [...document.querySelectorAll("#moves button")].find(b => !b.hidden);
  (first || document.getElementById("typed")).focus();
}

document.getElementById("skip").addEventListener("click", (ev) => {
  ev.preventDefault();
  focusMoves();
});
document.getElementById("typed").addEventListener("input", filterMoves);
document.getElementById("typed-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = document.getElementById("typed").value.trim();
  if (text) send(text);
});
document.getElementById("fields-form").addEventListener("input", () => {
  const slider = document.getElementById("release-slider");
  const rel = lastDrawing && lastDrawing.pick ? formField(lastDrawing.pick.release_field) : null;
  if (slider && rel && rel.value.trim() !== "") slider.value = rel.value;
  const root = document.getElementById("table");
  if (root && lastDrawing) drawAimLine(lastDrawing, root);
  readRisk(formMove());
});
document.getElementById("fields-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  send(formMove());
});
follow();
