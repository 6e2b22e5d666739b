"""An interactive shot viewer: one self-contained HTML page (inline script and style, no network,
opens from a file) that replays simulated shots on the table seen from above.

The page draws the table with its markings (cushions, diamonds, the balkline lines and anchor
squares or the straight-rail corner fields of ``rules.geometry.zones``, the Hungarian spots and
the pin), and the balls moving as simulated: their positions are sampled with
``physics.positions_at`` every ``SAMPLE_STEP`` seconds and at every event of the log (so the
motion passes through every contact) and the page interpolates linearly between samples. A ball
that left the table disappears at its ``off_table`` event; the pin lies down at its fall time.
Controls: play, pause, a time slider, the playback speed, trails, and for several shots side by
side or overlaid, each with its label, the referee's call and its event list highlighted in step
with the time. The fragment ``#t=1.25`` opens the page paused 1.25 s into the shots.

    python -m experiments.view --discipline three_cushion --shot 3,80,5,0,0.1 --out results/view/view.html
    python -m experiments.view --discipline hungarian_1000 --shot 2.5,85,0,0,0 --shot 3,95,0,0.2,0 --open
    python -m experiments.view --discipline balkline_47_2 --layout 0.7,0.5,1.2,0.9,2.0,0.4 --shot 2,30,0,0,0
"""
from __future__ import annotations

import argparse
import dataclasses
import html
import json
import os
import webbrowser
from typing import Any, Optional, Sequence

import numpy as np

import physics
import rules
from agents import execute
from agents.base import index_tree, repeat_state
from agents.states import starting_state, state_from_layout
from billiards_env import render
from billiards_env.params import check_layout, setup
from experiments.common import ball_names, begin
from physics.strike import FIELDS, check_fields, check_limits

SAMPLE_STEP = 0.01  # s between samples of the balls' positions (plus every event time)
TIME_BUCKET = 512  # sample counts are padded to a multiple of this: one compiled replay per bucket
PAD = 8  # shots simulated per batch (padded): one compiled simulation for any number of shots
WIDTH = 720  # canvas width in pixels, rails included
ZONE_LINE = (236, 230, 210)  # the colour of balkline lines, anchor squares and corner fields
SPOT = (236, 230, 210)


@dataclasses.dataclass(frozen=True)
class ViewShot:
    """One shot for the page: its label, discipline id, physics parameters, the ``ShotResult`` of
    the one shot (unbatched), the referee's call in words, and where the pin stood (None: no pin)."""

    label: str
    discipline: str
    params: Any
    result: Any
    call: str = ""
    pin: Optional[np.ndarray] = None


# --- from a strike to a shot on the page -------------------------------------------------------

def standing_pin(ruleset, state) -> Optional[np.ndarray]:
    """(2,) where the pin stands before the shot, or None (carom, or the pin lies: H-2.1)."""
    if ruleset.is_hungarian and int(state.pin_state) == int(rules.PinState.STANDING):
        return np.asarray(state.pin_position, np.float64)
    return None


def _player_of(ruleset, cue_ball) -> int:
    """The player whose cue ball ``cue_ball`` is (C-3.4: white 0, yellow 1; H-3.1: the red 0 for both)."""
    if cue_ball is None:
        return 0
    allowed = (0,) if ruleset.is_hungarian else (0, 1)
    if isinstance(cue_ball, bool) or not isinstance(cue_ball, (int, np.integer)) or int(cue_ball) not in allowed:
        raise ValueError(f"cue_ball must be one of {allowed} for this discipline (the red, 0, in the Hungarian "
                         f"game; white 0 or yellow 1 in the carom games), got {cue_ball!r}")
    return int(cue_ball)


def describe(shot) -> str:
    """A strike in words, the default label."""
    v = {name: float(np.asarray(getattr(shot, name))) for name in FIELDS}
    return (f"V0 {v['V0']:g} m/s, aim {v['phi']:g} deg, elevation {v['theta']:g} deg, "
            f"tip a {v['a']:+g} b {v['b']:+g}")


def shot_entries(discipline: str, shots: Sequence, layout=None, cue_ball=None, labels=None) -> list:
    """``ViewShot`` s of strikes (``physics.Shot`` with scalar fields) played from one layout: each
    simulated and refereed once (``agents.execute``, no execution noise).

    layout: (3, 2) ball centres (m), or None for the discipline's starting position
    (``rules.init_game``). cue_ball: the shooter's ball (None: player 0's, as the rules say).
    """
    ruleset, params = setup(discipline)
    if not isinstance(shots, (list, tuple)) or not shots:
        raise ValueError(f"shots must be a non-empty list of physics.Shot, got {shots!r}")
    labels = [describe(s) for s in shots] if labels is None else list(labels)
    if len(labels) != len(shots) or not all(isinstance(x, str) for x in labels):
        raise ValueError(f"labels must be one string per shot ({len(shots)}), got {labels!r}")
    for s in shots:
        if not isinstance(s, physics.Shot):
            raise TypeError(f"shots must hold physics.Shot, got {type(s).__name__}")
        check_fields(s)
        check_limits(s, params)
    player = _player_of(ruleset, cue_ball)
    if layout is None:
        state = starting_state(ruleset, params, breaker=player)
    else:
        state = state_from_layout(ruleset, check_layout(layout, params, ruleset), params, player)
    n = len(shots)
    states = repeat_state(state, n)
    batch = physics.Shot(*(np.asarray([float(np.asarray(getattr(s, f))) for s in shots]) for f in FIELDS))
    results, _, outcomes, _ = execute(ruleset, states, batch, params, pad_to=PAD)
    pin = standing_pin(ruleset, state)
    return [ViewShot(labels[i], discipline, params, index_tree(results, i),
                     rules.call_words(index_tree(outcomes, i), discipline), pin) for i in range(n)]


def shot_entry(discipline: str, shot, layout=None, cue_ball=None, label: Optional[str] = None) -> ViewShot:
    """One ``ViewShot`` (see ``shot_entries``)."""
    return shot_entries(discipline, [shot], layout, cue_ball, None if label is None else [label])[0]


# --- what the page is given --------------------------------------------------------------------

def sample_times(result, step: float = SAMPLE_STEP) -> np.ndarray:
    """Sorted distinct times (s): every ``step`` from 0, the end of the shot and every event."""
    t_end = float(np.asarray(result.final_time))
    used = int(np.asarray(result.num_events))
    events = np.clip(np.asarray(result.events.time, np.float64)[:used], 0.0, t_end)
    return np.unique(np.concatenate([np.arange(0.0, t_end, step), [0.0, t_end], events]))


def sample_positions(result, params, times) -> np.ndarray:
    """(len(times), n_balls, 2) positions, replayed in buckets of ``TIME_BUCKET`` times (the
    padding repeats the last time) so that shots of any length share a few compiled replays."""
    times = np.asarray(times, np.float64)
    size = -(-len(times) // TIME_BUCKET) * TIME_BUCKET
    padded = np.concatenate([times, np.full(size - len(times), times[-1])])
    return np.asarray(physics.positions_at(result, padded, params), np.float64)[: len(times)]


def off_table_times(result) -> list:
    """Per ball, when it left the table (s), or None."""
    n = np.asarray(result.on_table).shape[-1]
    out: list = [None] * n
    for e in physics.event_list(result):
        if e["kind"] == "off_table":
            for b in e["balls"]:
                out[b] = e["t"] if out[b] is None else out[b]
    for b, on in enumerate(np.asarray(result.on_table)):
        if not on and out[b] is None:
            out[b] = float(np.asarray(result.final_time))
    return out


def fall_direction(result) -> float:
    """The direction (radians from the x axis) the pin falls in, drawn lying: the way the ball that
    knocked it down was going just after (0 when it did not fall)."""
    for e in physics.event_list(result):
        if e["kind"] == "pin_down" and e["balls"]:
            vx, vy = e["velocities"][e["balls"][0]][:2]
            return float(np.arctan2(vy, vx)) if vx or vy else 0.0
    return 0.0


def event_lines(result, names) -> list:
    """The log as [time, text]: the event's name, the balls it names and its cushion."""
    lines = []
    for e in physics.event_list(result):
        words = [e["kind"]] + [names[b] for b in e["balls"]] + ([e["cushion"]] if "cushion" in e else [])
        lines.append([e["t"], " ".join(words)])
    return lines


def clip_polygon(lines, length: float, width: float) -> list:
    """The table rectangle cut by half-planes ``nx x + ny y <= c`` (rows of ``lines``): the corners
    of one zone of ``rules.geometry.zones`` (empty for a padding zone)."""
    poly = [(0.0, 0.0), (length, 0.0), (length, width), (0.0, width)]
    for nx, ny, c in np.asarray(lines, np.float64):
        side = [nx * x + ny * y - c for x, y in poly]
        cut = []
        for i, (p, s) in enumerate(zip(poly, side)):
            q, t = poly[i - 1], side[i - 1]
            if (s <= 0) != (t <= 0):
                f = t / (t - s)
                cut.append((q[0] + f * (p[0] - q[0]), q[1] + f * (p[1] - q[1])))
            if s <= 0:
                cut.append(p)
        poly = cut
        if not poly:
            break
    return [[round(x, 5), round(y, 5)] for x, y in poly]


def markings(discipline: str, params) -> dict:
    """The discipline's lines and spots in metres: zone outlines (docs/rules.md C-11.1 corner fields,
    C-12.2 balkline fields and anchors) and spots (H-1.4 for the Hungarian game, C-2.1 otherwise)."""
    ruleset = rules.make_rules(discipline)
    table = params.table
    L, W = float(table.length), float(table.width)
    fields, anchors = rules.geometry.zones(ruleset, table)
    polygons = [clip_polygon(z, L, W) for z in np.concatenate([np.asarray(fields), np.asarray(anchors)])]
    polygons = [p for p in polygons if len(p) >= 3]
    spots = table.spots if ruleset.is_hungarian else np.concatenate([table.head_string_spots, table.top_spot[None],
                                                                   table.centre[None]])
    return dict(zones=polygons, spots=np.round(np.asarray(spots, np.float64), 5).tolist())


def _rgb(colour) -> str:
    return "rgb({},{},{})".format(*colour)


def shot_data(entry: ViewShot, width: int = WIDTH) -> dict:
    """Everything the page needs of one shot, as JSON-ready values."""
    if not isinstance(entry, ViewShot):
        raise TypeError(f"shots must hold ViewShot entries, got {type(entry).__name__}")
    result, params = entry.result, entry.params
    if np.ndim(np.asarray(result.events.kind)) != 1:
        raise ValueError("ViewShot.result must be one shot's ShotResult; index the batch first")
    ruleset = rules.make_rules(entry.discipline)
    hungarian = ruleset.is_hungarian
    canvas = render.Canvas(float(params.table.length), float(params.table.width), width)
    times = sample_times(result)
    positions = sample_positions(result, params, times)
    pin = None
    if entry.pin is not None:
        fall = render.pin_fall_time(result)
        pin = dict(x=float(entry.pin[0]), y=float(entry.pin[1]), fall=None if np.isinf(fall) else fall,
                   radius=float(params.pin.contact_radius), height=float(params.pin.total_height),
                   angle=fall_direction(result))
    cloth = render.HUNGARIAN_CLOTH if hungarian else render.CLOTH
    return dict(
        label=entry.label, discipline=entry.discipline, call=entry.call, end=float(np.asarray(result.final_time)),
        canvas=dict(width=canvas.shape[1], height=canvas.shape[0], rail=canvas.rail, scale=canvas.scale),
        length=canvas.length, table_width=canvas.table_width, radius=float(params.ball.radius),
        colours=[_rgb(c) for c in render.ball_colours(hungarian)],
        trail_colours=[_rgb(np.round(0.35 * np.asarray(cloth) + 0.65 * np.asarray(c)).astype(int))
                       for c in render.ball_colours(hungarian)],
        cloth=_rgb(cloth), rail_colour=_rgb(render.RAIL), diamond=_rgb(render.DIAMOND), line=_rgb(ZONE_LINE),
        spot=_rgb(SPOT), pin_colour=_rgb(render.PIN),
        diamonds=[list(m) for m in render.diamonds(canvas)], diamond_radius=render.diamond_radius(canvas),
        times=times.tolist(), positions=np.round(positions, 5).tolist(), off=off_table_times(result),
        events=event_lines(result, ball_names(ruleset)), pin=pin, **markings(entry.discipline, params),
    )


# --- the page ----------------------------------------------------------------------------------

STYLE = """
body { font: 14px sans-serif; margin: 12px; background: #f4f2ee; color: #222; }
#controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 10px; }
#slider { width: 420px; }
#shots { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.panel { background: #fff; padding: 8px; border: 1px solid #ccc; }
.panel canvas { display: block; }
.label { font-weight: bold; margin-bottom: 6px; }
.call { margin: 6px 0; max-width: 720px; }
.events { height: 150px; overflow-y: auto; margin: 0; padding-left: 2.5em; font: 12px monospace; }
.events li.past { color: #777; }
.events li.now { background: #ffe27a; color: #000; }
.hidden { display: none; }
"""

SCRIPT = r"""
"use strict";
const shots = JSON.parse(document.getElementById("data").textContent);
const tMax = Math.max(...shots.map(s => s.end));
const $ = id => document.getElementById(id);
let now = 0, playing = false, last = null;
const dashes = [[], [8, 4], [2, 3], [10, 3, 2, 3]];

function toPx(s, x, y) {  // table metres to canvas pixels: render.Canvas.to_pixels
  return [s.canvas.rail + x * s.canvas.scale, s.canvas.height - s.canvas.rail - y * s.canvas.scale];
}
function sampleIndex(s, t) {  // last sample at or before t
  let lo = 0, hi = s.times.length - 1;
  if (t >= s.times[hi]) return hi;
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (s.times[mid] <= t) lo = mid; else hi = mid; }
  return lo;
}
function positionsAt(s, t) {
  const i = sampleIndex(s, t), j = Math.min(i + 1, s.times.length - 1);
  const span = s.times[j] - s.times[i], f = span > 0 ? Math.min(Math.max((t - s.times[i]) / span, 0), 1) : 0;
  return s.positions[i].map((p, b) => [p[0] + f * (s.positions[j][b][0] - p[0]),
                                       p[1] + f * (s.positions[j][b][1] - p[1])]);
}
function onTable(s, b, t) { return s.off[b] === null || t < s.off[b]; }
function disc(ctx, x, y, r, colour) {
  ctx.fillStyle = colour; ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fill();
}
function pathTo(ctx, s, q, first) {
  const p = toPx(s, q[0], q[1]);
  if (first) ctx.moveTo(p[0], p[1]); else ctx.lineTo(p[0], p[1]);
}

function drawTable(ctx, s) {
  const c = s.canvas;
  ctx.fillStyle = s.rail_colour; ctx.fillRect(0, 0, c.width, c.height);
  ctx.fillStyle = s.cloth; ctx.fillRect(c.rail, c.rail, c.width - 2 * c.rail, c.height - 2 * c.rail);
  for (const d of s.diamonds) { const p = toPx(s, d[0], d[1]); disc(ctx, p[0], p[1], s.diamond_radius, s.diamond); }
  ctx.strokeStyle = s.line; ctx.lineWidth = 1;
  for (const poly of s.zones) {
    ctx.beginPath();
    poly.forEach((q, k) => pathTo(ctx, s, q, k === 0));
    ctx.closePath(); ctx.stroke();
  }
  for (const q of s.spots) { const p = toPx(s, q[0], q[1]); disc(ctx, p[0], p[1], 1.5, s.spot); }
}
function drawPin(ctx, s, t) {
  if (!s.pin) return;
  const p = toPx(s, s.pin.x, s.pin.y), r = Math.max(s.pin.radius * s.canvas.scale, 2);
  ctx.fillStyle = s.pin_colour;
  if (s.pin.fall === null || t < s.pin.fall) { disc(ctx, p[0], p[1], r, s.pin_colour); return; }
  const h = s.pin.height * s.canvas.scale;  // fallen: lying on the table, base at its spot
  ctx.save(); ctx.translate(p[0], p[1]); ctx.rotate(-s.pin.angle);  // y runs up the table, rows down
  ctx.fillRect(0, -r / 2, h, r); ctx.restore();
}
function drawShot(ctx, s, t, trails, dash) {
  const k = sampleIndex(s, t), here = positionsAt(s, t), R = s.radius * s.canvas.scale;
  if (trails) {
    ctx.lineWidth = 1.5; ctx.setLineDash(dash);
    here.forEach((q, b) => {
      ctx.strokeStyle = s.trail_colours[b]; ctx.beginPath();
      for (let i = 0; i <= k; i++) {
        if (!onTable(s, b, s.times[i])) break;
        pathTo(ctx, s, s.positions[i][b], i === 0);
      }
      if (onTable(s, b, t)) pathTo(ctx, s, q, false);
      ctx.stroke();
    });
    ctx.setLineDash([]);
  }
  drawPin(ctx, s, t);
  here.forEach((q, b) => {
    if (onTable(s, b, t)) { const p = toPx(s, q[0], q[1]); disc(ctx, p[0], p[1], R, s.colours[b]); }
  });
}
function highlight(k, t) {
  const s = shots[k], items = $("events" + k).children;
  let current = -1;
  for (let i = 0; i < items.length; i++) { if (s.events[i][0] <= t) current = i; }
  for (let i = 0; i < items.length; i++) {
    items[i].className = i === current ? "now" : (i < current ? "past" : "");
  }
  const list = $("events" + k);
  if (current >= 0) list.scrollTop = Math.max(0, items[current].offsetTop - list.offsetTop - list.clientHeight / 2);
}
function selected() { return shots.map((s, k) => $("show" + k).checked); }
function draw() {
  const trails = $("trails").checked, overlay = $("mode").value === "overlay", show = selected();
  $("slider").value = now; $("clock").textContent = now.toFixed(3) + " s";
  shots.forEach((s, k) => {
    $("panel" + k).classList.toggle("hidden", overlay || !show[k]);
    highlight(k, now);
    if (overlay || !show[k]) return;
    const ctx = $("table" + k).getContext("2d");
    drawTable(ctx, s); drawShot(ctx, s, now, trails, []);
  });
  $("overlay").classList.toggle("hidden", !overlay);
  if (!overlay) return;
  const first = show.indexOf(true), canvas = $("overlayTable"), legend = [];
  if (first < 0) { canvas.classList.add("hidden"); $("legend").textContent = "no shot selected"; return; }
  const base = shots[first];
  canvas.classList.remove("hidden"); canvas.width = base.canvas.width; canvas.height = base.canvas.height;
  const ctx = canvas.getContext("2d");
  drawTable(ctx, base);
  shots.forEach((s, k) => {
    if (!show[k]) return;
    if (s.length !== base.length || s.table_width !== base.table_width) {
      legend.push(s.label + ": another table, not drawn"); return;
    }
    const dash = dashes[legend.length % dashes.length];
    drawShot(ctx, s, now, trails, dash);
    legend.push(s.label + " (trail " + (dash.length ? "dashed " + dash.join("-") : "solid") + "): " + s.call);
  });
  $("legend").textContent = legend.join("\n");
}
function setPlaying(on) {
  playing = on; last = null; $("play").textContent = on ? "Pause" : "Play";
  if (on) requestAnimationFrame(tick);
}
function tick(stamp) {
  if (!playing) return;
  if (last !== null) now = Math.min(tMax, now + (stamp - last) / 1000 * parseFloat($("speed").value));
  last = stamp; draw();
  if (now >= tMax) setPlaying(false); else requestAnimationFrame(tick);
}
function fromFragment() {
  const m = /(?:^#|&)t=([0-9.eE+-]+)/.exec(location.hash);
  if (m && isFinite(parseFloat(m[1]))) { now = Math.min(Math.max(parseFloat(m[1]), 0), tMax); setPlaying(false); }
  const mode = /(?:^#|&)mode=(side|overlay)/.exec(location.hash);
  if (mode) $("mode").value = mode[1];
  draw();
}
$("slider").max = tMax;
$("play").addEventListener("click", () => { if (now >= tMax) now = 0; setPlaying(!playing); });
$("slider").addEventListener("input", e => { setPlaying(false); now = parseFloat(e.target.value); draw(); });
for (const id of ["trails", "mode"]) $(id).addEventListener("change", draw);
shots.forEach((s, k) => $("show" + k).addEventListener("change", draw));
window.addEventListener("hashchange", fromFragment);
fromFragment();
"""


def _panel(k: int, data: dict) -> str:
    items = "".join(f"<li>{t:.3f} s &nbsp;{html.escape(text)}</li>" for t, text in data["events"])
    c = data["canvas"]
    return (f'<div class="panel" id="panel{k}"><div class="label">{html.escape(data["label"])}</div>'
            f'<canvas id="table{k}" width="{c["width"]}" height="{c["height"]}"></canvas>'
            f'<div class="call">Referee: {html.escape(data["call"])}</div>'
            f'<ol class="events" id="events{k}">{items}</ol></div>')


def page(shots: Sequence[ViewShot], title: str = "Shots", width: int = WIDTH) -> str:
    """The HTML text of the viewer for ``shots`` (a non-empty list of ``ViewShot``)."""
    if not isinstance(shots, (list, tuple)) or not shots:
        raise ValueError(f"shots must be a non-empty list of ViewShot, got {shots!r}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}")
    if isinstance(width, bool) or not isinstance(width, int) or width < 100:
        raise ValueError(f"width must be an integer number of pixels >= 100, got {width!r}")
    data = [shot_data(s, width) for s in shots]
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    boxes = "".join(f'<label><input type="checkbox" id="show{k}" checked> {html.escape(d["label"])}</label>'
                    for k, d in enumerate(data))
    t_max = max(d["end"] for d in data)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1 style="font-size:18px;margin:0 0 8px">{html.escape(title)}</h1>
<div id="controls">
<button id="play" type="button">Play</button>
<input id="slider" type="range" min="0" max="{t_max}" step="0.001" value="0">
<span id="clock">0.000 s</span>
<label>speed <select id="speed"><option>0.1</option><option>0.25</option><option>0.5</option>
<option selected>1</option><option>2</option><option>4</option></select></label>
<label><input type="checkbox" id="trails" checked> trails</label>
<label>shots <select id="mode"><option value="side">side by side</option><option value="overlay">overlaid</option>
</select></label>
{boxes}
</div>
<div id="shots">{"".join(_panel(k, d) for k, d in enumerate(data))}</div>
<div id="overlay" class="panel hidden"><canvas id="overlayTable"></canvas><pre id="legend"></pre></div>
<script type="application/json" id="data">{payload}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def write_view(path, shots: Sequence[ViewShot], title: str = "Shots", width: int = WIDTH) -> str:
    """Write the viewer page for ``shots`` to ``path`` (folders made as needed). Returns the path."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise TypeError(f"path must be a file path, got {path!r}")
    text = page(shots, title, width)
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return os.fspath(path)


# --- the command -------------------------------------------------------------------------------

def _numbers(text: str, count: int, what: str) -> list:
    parts = text.split(",")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != count or not all(np.isfinite(values)):
        raise argparse.ArgumentTypeError(f"expected {count} finite numbers separated by commas ({what}), got {text!r}")
    return values


def parse_shot(text: str) -> physics.Shot:
    """'V0,phi,theta,a,b' -> physics.Shot (scalar fields)."""
    return physics.Shot(*_numbers(text, 5, "V0 m/s, phi deg, theta deg, a, b"))


def parse_layout(text: str) -> np.ndarray:
    """'x1,y1,x2,y2,x3,y3' -> (3, 2) ball centres (m)."""
    return np.asarray(_numbers(text, 6, "x1,y1,x2,y2,x3,y3 in metres"), np.float64).reshape(3, 2)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m experiments.view", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--discipline", default="three_cushion", choices=rules.DISCIPLINES)
    parser.add_argument("--shot", action="append", type=parse_shot, required=True, metavar="V0,phi,theta,a,b",
                        help="a strike: cue speed (m/s), aim and elevation (degrees), tip offsets (fractions "
                             "of R); repeat for several shots from the same layout")
    parser.add_argument("--layout", type=parse_layout, metavar="x1,y1,x2,y2,x3,y3",
                        help="ball centres in metres, in the discipline's ball order (default: its starting "
                             "position, rules.init_game)")
    parser.add_argument("--cue-ball", type=int, help="the shooter's ball (carom: 0 white or 1 yellow; "
                                                     "Hungarian: 0, the red); default player 0's")
    parser.add_argument("--title", help="the page's title")
    parser.add_argument("--width", type=int, default=WIDTH, help="table width in pixels (default %(default)s)")
    parser.add_argument("--out", default="results/view/view.html", help="the page to write")
    parser.add_argument("--open", action="store_true", help="open the page in the web browser")
    return parser


def main(argv=None) -> str:
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.width < 100:
        parser.error(f"argument --width: must be at least 100 pixels, got {args.width}")
    try:
        entries = shot_entries(args.discipline, args.shot, args.layout, args.cue_ball)
    except ValueError as e:
        text = str(e)
        name = "--layout" if text.startswith("layout") else "--cue-ball" if text.startswith("cue_ball") else "--shot"
        parser.error(f"argument {name}: {text}")
    path = write_view(args.out, entries, args.title or f"{args.discipline}: {len(entries)} shot(s)", args.width)
    print(path)
    if args.open:
        webbrowser.open("file://" + os.path.abspath(path))
    return path


if __name__ == "__main__":
    main()
