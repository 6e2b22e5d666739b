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

Where the balls lie: ``--from FILE`` (a shot file, docs/shotfile.md: the layout, cue ball and
strikes that experiments.shot_map, experiments.reconstruct or ``--save`` wrote, or a report that
names its shot file, experiments.shot_report's ``report.json``), ``--layout``,
``--seed N`` (a random legal layout, the one experiments.shot_map draws from that seed), or the
discipline's starting position. A strike is ``V0,PHI,THETA,A,B`` or named (``v0=3,phi=80,b=0.1``).
``--fan N`` also plays each strike N times under execution noise (``--noise``, seeded by
``--seed``) and draws every play's cue-ball path on one table below the replays: the plays that
score green, the misses grey, the counts of each beside it.

    python -m experiments.view --discipline three_cushion --shot 3,80,5,0,0.1 --out results/view/view.html
    python -m experiments.view --discipline hungarian_1000 --shot 2.5,85,0,0,0 --shot 3,95,0,0.2,0 --open
    python -m experiments.view --discipline balkline_47_2 --layout 0.7,0.5,1.2,0.9,2.0,0.4 --shot 2,30,0,0,0
    python -m experiments.view --from results/shot_map/shot.json --fan 64 --noise club
    python -m experiments.view --from results/shot_report/report.json
    python -m experiments.view --seed 3 --shot v0=3,phi=80 --fan 32 --save results/view/shot.json
"""
from __future__ import annotations

import argparse
import dataclasses
import html
import json
import os
import webbrowser
from typing import Any, Optional, Sequence

import jax
import numpy as np

import physics
import rules
from agents import execute, shotfile
from agents.base import ExecutionNoise, index_tree, noise_scale, repeat_state
from agents.states import random_state, starting_state, state_from_layout
from billiards_env import render
from billiards_env.params import DEFAULT_NOISE, check_layout, setup
from experiments.common import NOISE_HELP, add_discipline_argument, ball_names, begin, noise_arg
from physics.strike import FIELDS, check_fields, check_limits

SAMPLE_STEP = 0.01  # s between samples of the balls' positions (plus every event time)
TIME_BUCKET = 512  # sample counts are padded to a multiple of this: one compiled replay per bucket
PAD = 8  # shots simulated per batch (padded): one compiled simulation for any number of shots
FAN_BATCH = 64  # noisy plays simulated and replayed per call (padded): the agents' batch
FAN_SAMPLES = 128  # evenly spaced times of a fan's path, besides every event (render.path_times)
PATH_TOL = 5e-4  # m: a fan's drawn path stays this close to the replayed one (thin_path)
SCORES = (120, 230, 90)  # a fan's scoring plays (green)
MISSES = (175, 175, 175)  # its plays that miss (grey)
WIDTH = 720  # canvas width in pixels, rails included
ZONE_LINE = (236, 230, 210)  # the colour of balkline lines, anchor squares and corner fields
SPOT = (236, 230, 210)

_replay_batch = jax.jit(physics.positions_at_batch, static_argnames=("per_shot_params",))


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


def start_state(ruleset, params, layout=None, cue_ball=None):
    """The game state the strikes are played from: ``layout`` (3, 2) ball centres (m), checked, or
    the discipline's starting position (``rules.init_game``) when None; ``cue_ball`` the shooter's
    ball (None: player 0's, as the rules say)."""
    player = _player_of(ruleset, cue_ball)
    if layout is None:
        return starting_state(ruleset, params, breaker=player)
    return state_from_layout(ruleset, check_layout(layout, params, ruleset), params, player)


def _strike_batch(shots, labels, params):
    """(physics.Shot with fields (n,), n labels) of a list of scalar strikes, each checked."""
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
    return physics.Shot(*(np.asarray([float(np.asarray(getattr(s, f))) for s in shots]) for f in FIELDS)), labels


def shot_entries(discipline: str, shots: Sequence, layout=None, cue_ball=None, labels=None, state=None) -> list:
    """``ViewShot`` s of strikes (``physics.Shot`` with scalar fields) played from one layout: each
    simulated and refereed once (``agents.execute``, no execution noise).

    layout, cue_ball: where the balls lie and who shoots (``start_state``); state: a
    ``rules.GameState`` of the discipline to play from instead (a shot file's, a random layout's).
    """
    ruleset, params = setup(discipline)
    batch, labels = _strike_batch(shots, labels, params)
    state = start_state(ruleset, params, layout, cue_ball) if state is None else state
    n = len(labels)
    results, _, outcomes, _ = execute(ruleset, repeat_state(state, n), batch, params, pad_to=PAD)
    pin = standing_pin(ruleset, state)
    return [ViewShot(labels[i], discipline, params, index_tree(results, i),
                     rules.call_words(index_tree(outcomes, i), discipline), pin) for i in range(n)]


def shot_entry(discipline: str, shot, layout=None, cue_ball=None, label: Optional[str] = None) -> ViewShot:
    """One ``ViewShot`` (see ``shot_entries``)."""
    return shot_entries(discipline, [shot], layout, cue_ball, None if label is None else [label])[0]


# --- fans: many noisy plays of a strike --------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Fan:
    """``plays`` noisy plays of one strike from one layout, for one picture of their cue-ball paths:
    the label, discipline id, physics parameters, the plays' ``ShotResult`` (batched, (plays,)),
    which of them scored (``Outcome.shot_value > 0``, as ``agents.robustness`` counts), the cue ball,
    the noise scale, the layout (3, 2) and where the pin stood (None: no pin)."""

    label: str
    discipline: str
    params: Any
    results: Any
    scored: np.ndarray
    cue_ball: int
    noise: float
    layout: np.ndarray
    pin: Optional[np.ndarray] = None


def fan_entries(discipline: str, shots: Sequence, plays: int, noise: float, key, layout=None, cue_ball=None,
                labels=None, state=None) -> list:
    """A ``Fan`` per strike: each played ``plays`` times under the execution noise of scale
    ``noise``, all in batched calls (``agents.execute``, ``FAN_BATCH`` rows). Play t of every strike
    draws the t-th key of ``jax.random.split(key, plays)``, the draws of
    ``agents.robustness.play_trials``, so its counts of scoring plays are the fans'. layout,
    cue_ball, labels, state: as ``shot_entries``."""
    if isinstance(plays, bool) or not isinstance(plays, (int, np.integer)) or plays < 1:
        raise ValueError(f"plays must be a positive number of noisy plays per strike, got {plays!r}")
    scale = noise_scale(noise)
    ruleset, params = setup(discipline)
    batch, labels = _strike_batch(shots, labels, params)
    state = start_state(ruleset, params, layout, cue_ball) if state is None else state
    n = len(labels)
    rows = physics.Shot(*(np.repeat(np.asarray(getattr(batch, f)), plays) for f in FIELDS))  # strike-major
    keys = jax.random.split(key, plays)[np.tile(np.arange(plays), n)]
    results, _, outcomes, _ = execute(ruleset, repeat_state(state, n * plays), rows, params, key=keys,
                                      noise=ExecutionNoise(scale), pad_to=FAN_BATCH)
    results = jax.tree_util.tree_map(np.asarray, results)
    scored = np.asarray(outcomes.shot_value) > 0
    cue, layout = int(np.asarray(state.cue_ball)), np.asarray(state.positions, np.float64)
    pin = standing_pin(ruleset, state)
    return [Fan(labels[i], discipline, params, index_tree(results, slice(i * plays, (i + 1) * plays)),
                scored[i * plays:(i + 1) * plays], cue, scale, layout, pin) for i in range(n)]


def thin_path(points, tol: float = PATH_TOL) -> np.ndarray:
    """The points of a polyline (k, 2) that keep it within ``tol`` (m) of every point left out
    (Ramer-Douglas-Peucker): a fan's paths embed in a few kilobytes each."""
    p = np.asarray(points, np.float64)
    if len(p) <= 2:
        return p
    keep = np.zeros(len(p), bool)
    keep[[0, -1]] = True
    spans = [(0, len(p) - 1)]
    while spans:
        i, j = spans.pop()
        if j <= i + 1:
            continue
        a, ab, inner = p[i], p[j] - p[i], p[i + 1:j]
        length2 = float(ab @ ab)
        t = np.clip((inner - a) @ ab / length2, 0.0, 1.0) if length2 > 0 else np.zeros(len(inner))
        d = np.linalg.norm(inner - (a + t[:, None] * ab), axis=1)
        k = int(np.argmax(d))
        if d[k] > tol:
            keep[i + 1 + k] = True
            spans += [(i, i + 1 + k), (i + 1 + k, j)]
    return p[keep]


def fan_paths(fan: Fan) -> list:
    """Per play, the cue ball's path (k, 2) in metres: replayed in batches of ``FAN_BATCH`` plays at
    ``render.path_times`` (every event and where the paths curve), cut where the ball left the
    table, and thinned (``thin_path``)."""
    plays = len(fan.scored)
    one = [index_tree(fan.results, i) for i in range(plays)]
    times = np.stack([render.path_times(r, FAN_SAMPLES) for r in one])
    paths = []
    for lo in range(0, plays, FAN_BATCH):
        rows = np.minimum(np.arange(lo, lo + FAN_BATCH), plays - 1)  # the last play repeated as padding
        chunk = index_tree(fan.results, rows)
        at = np.asarray(_replay_batch(chunk, times[rows], fan.params))[:, :, fan.cue_ball]
        for k, i in enumerate(range(lo, min(lo + FAN_BATCH, plays))):
            off = off_table_times(one[i])[fan.cue_ball]
            keep = times[i] <= (np.inf if off is None else off)
            paths.append(thin_path(at[k][keep]))
    return paths


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


def table_data(discipline: str, params, width: int = WIDTH) -> dict:
    """The table's drawing of a discipline as JSON-ready values: canvas, colours, markings."""
    hungarian = rules.make_rules(discipline).is_hungarian
    canvas = render.Canvas(float(params.table.length), float(params.table.width), width)
    cloth = render.HUNGARIAN_CLOTH if hungarian else render.CLOTH
    return dict(
        canvas=dict(width=canvas.shape[1], height=canvas.shape[0], rail=canvas.rail, scale=canvas.scale),
        length=canvas.length, table_width=canvas.table_width, radius=float(params.ball.radius),
        colours=[_rgb(c) for c in render.ball_colours(hungarian)],
        trail_colours=[_rgb(np.round(0.35 * np.asarray(cloth) + 0.65 * np.asarray(c)).astype(int))
                       for c in render.ball_colours(hungarian)],
        cloth=_rgb(cloth), rail_colour=_rgb(render.RAIL), diamond=_rgb(render.DIAMOND), line=_rgb(ZONE_LINE),
        spot=_rgb(SPOT), pin_colour=_rgb(render.PIN),
        diamonds=[list(m) for m in render.diamonds(canvas)], diamond_radius=render.diamond_radius(canvas),
        **markings(discipline, params),
    )


def shot_data(entry: ViewShot, width: int = WIDTH) -> dict:
    """Everything the page needs of one shot, as JSON-ready values."""
    if not isinstance(entry, ViewShot):
        raise TypeError(f"shots must hold ViewShot entries, got {type(entry).__name__}")
    result, params = entry.result, entry.params
    if np.ndim(np.asarray(result.events.kind)) != 1:
        raise ValueError("ViewShot.result must be one shot's ShotResult; index the batch first")
    ruleset = rules.make_rules(entry.discipline)
    times = sample_times(result)
    positions = sample_positions(result, params, times)
    pin = None
    if entry.pin is not None:
        fall = render.pin_fall_time(result)
        pin = dict(x=float(entry.pin[0]), y=float(entry.pin[1]), fall=None if np.isinf(fall) else fall,
                   radius=float(params.pin.contact_radius), height=float(params.pin.total_height),
                   angle=fall_direction(result))
    return dict(
        label=entry.label, discipline=entry.discipline, call=entry.call, end=float(np.asarray(result.final_time)),
        times=times.tolist(), positions=np.round(positions, 5).tolist(), off=off_table_times(result),
        events=event_lines(result, ball_names(ruleset)), pin=pin, **table_data(entry.discipline, params, width),
    )


def fan_legend(fan: Fan) -> str:
    """The fan's counts in words: plays, noise, how many score (green) and miss (grey)."""
    plays, hits = len(fan.scored), int(np.sum(fan.scored))
    return (f"{plays} noisy plays (noise x{fan.noise:g}): {hits} score (green), {plays - hits} miss (grey); "
            "the cue ball's paths")


def fan_data(fan: Fan, width: int = WIDTH) -> dict:
    """Everything the page needs of one fan, as JSON-ready values: the cue ball's path of every
    play (``fan_paths``) and whether it scored, the layout, the table."""
    if not isinstance(fan, Fan):
        raise TypeError(f"fans must hold Fan entries, got {type(fan).__name__}")
    pin = None if fan.pin is None else dict(x=float(fan.pin[0]), y=float(fan.pin[1]),
                                            radius=float(fan.params.pin.contact_radius))
    return dict(
        label=fan.label, discipline=fan.discipline, legend=fan_legend(fan), plays=len(fan.scored),
        scored=int(np.sum(fan.scored)), hits=[bool(h) for h in fan.scored],
        paths=[np.round(p, 4).tolist() for p in fan_paths(fan)], layout=np.round(fan.layout, 5).tolist(),
        cue_ball=fan.cue_ball, pin=pin, score_colour=_rgb(SCORES), miss_colour=_rgb(MISSES),
        **table_data(fan.discipline, fan.params, width),
    )


# --- the page ----------------------------------------------------------------------------------

STYLE = """
body { font: 14px sans-serif; margin: 12px; background: #f4f2ee; color: #222; }
#controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 10px; }
#slider { width: 420px; }
#shots, #fans { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
h2 { font-size: 16px; margin: 16px 0 8px; }
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
const fans = JSON.parse(document.getElementById("fandata").textContent);
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
function drawFan(f, k) {  // every play's cue-ball path, the misses first, the scoring plays on top
  const ctx = $("fan" + k).getContext("2d"), R = f.radius * f.canvas.scale;
  drawTable(ctx, f);
  ctx.lineWidth = 1.5; ctx.lineJoin = "round";
  for (const scoring of [false, true]) {
    ctx.strokeStyle = scoring ? f.score_colour : f.miss_colour;
    f.paths.forEach((path, i) => {
      if (f.hits[i] !== scoring || path.length < 2) return;
      ctx.beginPath(); path.forEach((q, j) => pathTo(ctx, f, q, j === 0)); ctx.stroke();
    });
  }
  if (f.pin) {
    const p = toPx(f, f.pin.x, f.pin.y);
    disc(ctx, p[0], p[1], Math.max(f.pin.radius * f.canvas.scale, 2), f.pin_colour);
  }
  f.layout.forEach((q, b) => { const p = toPx(f, q[0], q[1]); disc(ctx, p[0], p[1], R, f.colours[b]); });
}
$("slider").max = tMax;
$("play").addEventListener("click", () => { if (now >= tMax) now = 0; setPlaying(!playing); });
$("slider").addEventListener("input", e => { setPlaying(false); now = parseFloat(e.target.value); draw(); });
for (const id of ["trails", "mode"]) $(id).addEventListener("change", draw);
shots.forEach((s, k) => $("show" + k).addEventListener("change", draw));
window.addEventListener("hashchange", fromFragment);
fans.forEach(drawFan);
fromFragment();
"""


def _panel(k: int, data: dict) -> str:
    items = "".join(f"<li>{t:.3f} s &nbsp;{html.escape(text)}</li>" for t, text in data["events"])
    c = data["canvas"]
    return (f'<div class="panel" id="panel{k}"><div class="label">{html.escape(data["label"])}</div>'
            f'<canvas id="table{k}" width="{c["width"]}" height="{c["height"]}"></canvas>'
            f'<div class="call">Referee: {html.escape(data["call"])}</div>'
            f'<ol class="events" id="events{k}">{items}</ol></div>')


def _fan_panel(k: int, data: dict) -> str:
    c = data["canvas"]
    return (f'<div class="panel" id="fanpanel{k}"><div class="label">{html.escape(data["label"])}</div>'
            f'<canvas id="fan{k}" width="{c["width"]}" height="{c["height"]}"></canvas>'
            f'<div class="call">{html.escape(data["legend"])}</div></div>')


def read_source(path) -> shotfile.ShotFile:
    """The shot file at ``path``, or the one that a report there names: a JSON object with a
    ``shot_file`` (a path relative to the report's folder), as experiments.shot_report's
    ``report.json``. ShotFileError saying what is wrong with either."""
    where = os.fspath(path)
    try:
        with open(where, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):  # not there, not text, not JSON: the shot file reader says which
        data = None
    if not isinstance(data, dict) or data.get("format") == shotfile.FORMAT or "shot_file" not in data:
        return shotfile.read(where)
    named = data["shot_file"]
    if not isinstance(named, str) or not named:
        raise shotfile.ShotFileError(f"{where}: a report's shot_file must name a shot file, got {named!r}")
    try:
        return shotfile.read(os.path.join(os.path.dirname(where), named))
    except shotfile.ShotFileError as err:
        raise shotfile.ShotFileError(f"{where} names the shot file {named!r}: {err}") from None


def _embed(data) -> str:
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def page(shots: Sequence[ViewShot], title: str = "Shots", width: int = WIDTH, fans: Sequence[Fan] = (),
         preamble: str = "") -> str:
    """The HTML text of the viewer for ``shots`` (a non-empty list of ``ViewShot``), and below
    them a picture of each of ``fans`` (``Fan``: every noisy play's cue-ball path); ``preamble``:
    HTML of the caller's own (a report) placed between the title and the replays."""
    if not isinstance(shots, (list, tuple)) or not shots:
        raise ValueError(f"shots must be a non-empty list of ViewShot, got {shots!r}")
    if not isinstance(fans, (list, tuple)):
        raise TypeError(f"fans must be a list of Fan, got {type(fans).__name__}")
    if not isinstance(title, str) or not isinstance(preamble, str):
        raise TypeError(f"title and preamble must be strings, got {type(title).__name__} and "
                        f"{type(preamble).__name__}")
    if isinstance(width, bool) or not isinstance(width, int) or width < 100:
        raise ValueError(f"width must be an integer number of pixels >= 100, got {width!r}")
    data = [shot_data(s, width) for s in shots]
    fan_list = [fan_data(f, width) for f in fans]
    boxes = "".join(f'<label><input type="checkbox" id="show{k}" checked> {html.escape(d["label"])}</label>'
                    for k, d in enumerate(data))
    t_max = max(d["end"] for d in data)
    fan_html = ('<h2>Under execution noise: every play\'s cue-ball path</h2><div id="fans">'
                + "".join(_fan_panel(k, d) for k, d in enumerate(fan_list)) + "</div>") if fan_list else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1 style="font-size:18px;margin:0 0 8px">{html.escape(title)}</h1>
{preamble}
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
{fan_html}
<script type="application/json" id="data">{_embed(data)}</script>
<script type="application/json" id="fandata">{_embed(fan_list)}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def write_view(path, shots: Sequence[ViewShot], title: str = "Shots", width: int = WIDTH,
               fans: Sequence[Fan] = (), preamble: str = "") -> str:
    """Write the viewer page for ``shots`` (and ``fans``, and the caller's ``preamble``, see
    ``page``) to ``path`` (folders made as needed). Returns the path."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise TypeError(f"path must be a file path, got {path!r}")
    text = page(shots, title, width, fans, preamble)
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


def strike_arg(text: str) -> physics.Shot:
    """argparse type of a strike: ``agents.shotfile.parse_strike`` (``V0,PHI,THETA,A,B`` or named
    ``v0=...,phi=...``), its error as the argument's."""
    try:
        return shotfile.parse_strike(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parse_layout(text: str) -> np.ndarray:
    """'x1,y1,x2,y2,x3,y3' -> (3, 2) ball centres (m)."""
    return np.asarray(_numbers(text, 6, "x1,y1,x2,y2,x3,y3 in metres"), np.float64).reshape(3, 2)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m experiments.view", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    add_discipline_argument(parser)
    parser.set_defaults(discipline=None)  # three_cushion, or the discipline of the --from file
    parser.add_argument("--shot", action="append", type=strike_arg, metavar="V0,phi,theta,a,b",
                        help="a strike: cue speed (m/s), aim and elevation (degrees), tip offsets (fractions "
                             "of R), or named (v0=3,phi=80,b=0.1; theta, a, b default to 0); repeat for several "
                             "shots from the same layout")
    parser.add_argument("--from", dest="source", metavar="FILE",
                        help="a shot file (docs/shotfile.md): its discipline, layout, cue ball and strikes "
                             "(--shot adds strikes to them), and its noise for --fan; or a report that names "
                             "its shot file (experiments.shot_report's report.json)")
    parser.add_argument("--layout", type=parse_layout, metavar="x1,y1,x2,y2,x3,y3",
                        help="ball centres in metres, in the discipline's ball order (default: --seed's random "
                             "layout, or the starting position, rules.init_game)")
    parser.add_argument("--seed", type=int, help="a random legal layout from this seed (as experiments.shot_map "
                                                 "draws it) when no --layout or --from gives one; also the seed of "
                                                 "the fans' noise (default 0)")
    parser.add_argument("--cue-ball", type=int, help="the shooter's ball (carom: 0 white or 1 yellow; "
                                                     "Hungarian: 0, the red); default player 0's")
    parser.add_argument("--fan", type=int, default=0, metavar="N",
                        help="also play each strike N times under execution noise and draw every play's "
                             "cue-ball path on one table, the scoring plays green, the misses grey")
    parser.add_argument("--noise", type=noise_arg, help=NOISE_HELP + " of the fans (default: the file's, "
                                                        f"else {DEFAULT_NOISE:g})")
    parser.add_argument("--save", metavar="FILE", help="also write the layout and strikes shown as a shot file")
    parser.add_argument("--title", help="the page's title")
    parser.add_argument("--width", type=int, default=WIDTH, help="table width in pixels (default %(default)s)")
    parser.add_argument("--out", default="results/view/view.html", help="the page to write")
    parser.add_argument("--open", action="store_true", help="open the page in the web browser")
    return parser


def _source(parser, args) -> Optional[shotfile.ShotFile]:
    """The shot file of --from (None without it), refused where the command line contradicts it."""
    if args.source is None:
        return None
    for name, given in (("--layout", args.layout), ("--cue-ball", args.cue_ball)):
        if given is not None:
            parser.error(f"argument {name}: not with --from, whose shot file gives the layout and the cue ball")
    try:
        source = read_source(args.source)
    except shotfile.ShotFileError as err:
        parser.error(f"argument --from: {err}")
    if args.discipline not in (None, source.discipline):
        parser.error(f"argument --discipline: {args.discipline} is not the shot file's {source.discipline}")
    return source


def main(argv=None) -> str:
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.width < 100:
        parser.error(f"argument --width: must be at least 100 pixels, got {args.width}")
    if args.fan < 0:
        parser.error(f"argument --fan: must be a number of noisy plays >= 0, got {args.fan}")
    source = _source(parser, args)
    discipline = source.discipline if source else args.discipline or "three_cushion"
    strikes = list(source.strikes if source else ()) + [shotfile.Strike.of(s, source="given") for s in args.shot or ()]
    if not strikes:
        parser.error("argument --shot: give a strike (--shot) or a shot file of strikes (--from)")
    shots, labels = [s.shot for s in strikes], [s.label or describe(s.shot) for s in strikes]
    file_noise = source.noise_scale if source else None
    noise = args.noise if args.noise is not None else file_noise if file_noise is not None else DEFAULT_NOISE
    seed = 0 if args.seed is None else args.seed
    try:
        ruleset, params = setup(discipline)
        if source is not None:
            state = source.game()[2]
        elif args.layout is None and args.seed is not None:
            state = random_state(ruleset, jax.random.PRNGKey(args.seed), params, _player_of(ruleset, args.cue_ball))
        else:
            state = start_state(ruleset, params, args.layout, args.cue_ball)
        entries = shot_entries(discipline, shots, labels=labels, state=state)
        fans = fan_entries(discipline, shots, args.fan, noise, jax.random.fold_in(jax.random.PRNGKey(seed), 1),
                           labels=labels, state=state) if args.fan else []
    except ValueError as e:
        text = str(e)
        name = "--layout" if text.startswith("layout") else "--cue-ball" if text.startswith("cue_ball") else "--shot"
        parser.error(f"argument {name}: {text}")
    if args.save:
        kept = args.noise if args.noise is not None else source.noise if source else None
        shotfile.write(args.save, discipline, np.asarray(state.positions), strikes, cue_ball=int(state.cue_ball),
                       player=int(state.current_player), noise=kept, notes=source.notes if source else None,
                       provenance=shotfile.provenance("experiments.view", argv, seed=seed))
    title = args.title or f"{discipline}: {len(entries)} shot(s)" + (f", fans of {args.fan} plays" if fans else "")
    path = write_view(args.out, entries, title, args.width, fans)
    print(path)
    if args.open:
        webbrowser.open("file://" + os.path.abspath(path))
    return path


if __name__ == "__main__":
    main()
