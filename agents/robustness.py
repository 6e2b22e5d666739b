"""How good is a shot for a player who cannot repeat a stroke exactly: success under execution
noise, over grids of shots (success maps), for one shot (robustness, sensitivity), and for a
layout (difficulty).

Every shot is played through the environments' own stages (``agents.execute``: the noise, the
pin, the simulation, the referee), in batches of a fixed size so one compilation serves a
whole map. Noise draws are common to all shots of a call: trial t of every shot uses the same
draw (common random numbers), so neighbouring cells of a map differ by their shot, not by luck.

A shot *scores* when the referee gives it points (``Outcome.shot_value > 0``: a carom, or any
Hungarian points); ``points`` are the shooter's points on the board, ``given`` what the shot
hands the opponent (a Hungarian foul, H-9).

Choosing and valuing on separate draws: the best of many shots, each judged on the same noisy
plays, looks better on those plays than it is (the winner's curse). Wherever a best shot is
reported, it is chosen on the draws of one key and its success measured on fresh draws of
another (``held_out_key``, ``value_chosen``, ``held_out``); ``margins`` measures how far each
input may move before that success falls by half, on the same fresh draws.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np

import physics
from agents.base import ExecutionNoise, repeat_state
from agents.play import execute, net_points, shooter_points
from physics.params import Params
from rules import GameState, Rules

BATCH = 8192  # shots per execute call: one compiled simulation and referee
FIELDS = ("V0", "phi", "theta", "a", "b")


@dataclasses.dataclass(frozen=True)
class Trials:
    """Per shot (N,): how many of ``trials`` noisy plays scored, and the per-play points.

    scored: (N,) int.  points, given: (N, trials) the shooter's points and the points handed
    to the opponent in each play."""

    scored: np.ndarray
    points: np.ndarray
    given: np.ndarray

    @property
    def trials(self) -> int:
        return int(self.points.shape[1])

    @property
    def success(self) -> np.ndarray:
        """(N,) the share of plays that scored."""
        return self.scored / self.trials


def _check(trials: int, batch: int):
    if int(trials) < 1:
        raise ValueError(f"trials must be a positive number of noisy plays, got {trials}")
    if int(batch) < 1:
        raise ValueError(f"batch must be a positive number of shots per call, got {batch}")


STANDARD = ExecutionNoise(1.0)


def play_trials(ruleset: Rules, state: GameState, shots: physics.Shot, params: Params, key: jax.Array, *,
                noise: ExecutionNoise = STANDARD, trials: int = 32, batch: int = BATCH,
                progress: Optional[Callable[[int], None]] = None) -> Trials:
    """Play each of ``shots`` (fields (N,)) ``trials`` times from one game ``state`` under
    ``noise``; trial t of every shot uses the same noise draw. ``progress(k)`` is called with
    the number of plays done after each call."""
    _check(trials, batch)
    x = np.stack([np.asarray(getattr(shots, f), float).reshape(-1) for f in FIELDS], -1)  # (N, 5)
    n = len(x)
    plays = np.repeat(x, trials, axis=0)  # shot-major: rows i * trials + t
    draws = jax.random.split(key, trials)
    states = repeat_state(state, batch)
    scored = np.zeros(n * trials, bool)
    points = np.zeros(n * trials)
    given = np.zeros(n * trials)
    for lo in range(0, n * trials, batch):
        rows = np.arange(lo, min(lo + batch, n * trials))
        pad = np.concatenate([rows, np.full(batch - len(rows), rows[-1])])
        shot = physics.Shot(*(jnp.asarray(plays[pad, k]) for k in range(5)))
        keys = draws[pad % trials]
        _, _, outcome, _ = execute(ruleset, states, shot, params, key=keys, noise=noise)
        mine = shooter_points(outcome, states.current_player)
        m = len(rows)
        scored[rows] = np.asarray(outcome.shot_value)[:m] > 0
        points[rows] = np.asarray(mine)[:m]
        given[rows] = np.asarray(mine - net_points(outcome, states.current_player))[:m]
        if progress is not None:
            progress(m)
    shape = (n, trials)
    return Trials(scored.reshape(shape).sum(1), points.reshape(shape), given.reshape(shape))


@dataclasses.dataclass(frozen=True)
class SuccessMap:
    """A grid of shots and how they fare under noise. ``rows`` and ``cols`` name the two inputs
    varied (e.g. "phi" and "V0"), ``row_values`` (R,) and ``col_values`` (C,) their values;
    ``fixed`` the other inputs. success, points, given: (R, C) the share of plays that scored,
    the mean points, the mean points handed over; trials: plays per cell."""

    rows: str
    cols: str
    row_values: np.ndarray
    col_values: np.ndarray
    fixed: dict
    success: np.ndarray
    points: np.ndarray
    given: np.ndarray
    trials: int

    def shot(self, i: int, j: int) -> physics.Shot:
        """The shot of cell (i, j)."""
        values = {**self.fixed, self.rows: float(self.row_values[i]), self.cols: float(self.col_values[j])}
        return physics.Shot(**{f: values[f] for f in FIELDS})

    def most_robust(self, k: int = 5) -> list[tuple[int, int]]:
        """The k cells to recommend: the highest success, ties broken by the success of the
        neighbourhood (the mean over the 3 x 3 cells around it, nothing beyond the map's edge), so a
        cell inside a wide region that scores comes before an isolated one."""
        p = np.nan_to_num(self.success)
        padded = np.pad(p, 1)
        around = np.zeros_like(p)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                around += padded[1 + di:1 + di + p.shape[0], 1 + dj:1 + dj + p.shape[1]] / 9.0
        order = np.lexsort((-around.ravel(), -p.ravel()))[:k]
        rows, cols = np.unravel_index(order, p.shape)
        return [(int(i), int(j)) for i, j in zip(rows, cols)]


def _grid_map(ruleset, state, params, key, rows, row_values, cols, col_values, fixed, playable=None,
              **options) -> SuccessMap:
    for name in (rows, cols):
        if name not in FIELDS:
            raise ValueError(f"unknown shot input {name!r}; valid: {', '.join(FIELDS)}")
    row_values, col_values = np.asarray(row_values, float), np.asarray(col_values, float)
    if row_values.ndim != 1 or col_values.ndim != 1 or not (row_values.size and col_values.size):
        raise ValueError(f"{rows} and {cols} must be non-empty 1-D grids, got shapes "
                         f"{row_values.shape} and {col_values.shape}")
    r, c = np.meshgrid(row_values, col_values, indexing="ij")
    values = {**{f: np.full(r.size, float(fixed[f])) for f in FIELDS if f not in (rows, cols)},
              rows: r.ravel(), cols: c.ravel()}
    if playable is not None:  # cells that cannot be struck are played as the first cell, and blanked
        keep = playable(values)
        values = {f: np.where(keep, v, v[np.argmax(keep)]) for f, v in values.items()}
    out = play_trials(ruleset, state, physics.Shot(**values), params, key, **options)
    shape = r.shape
    return SuccessMap(rows, cols, row_values, col_values, {f: float(fixed[f]) for f in FIELDS if f not in (rows, cols)},
                      out.success.reshape(shape), out.points.mean(1).reshape(shape),
                      out.given.mean(1).reshape(shape), out.trials)


def success_map(ruleset: Rules, state: GameState, params: Params, key: jax.Array, aims, speeds, *,
                theta: float = 0.0, a: float = 0.0, b: float = 0.0, **options) -> SuccessMap:
    """Success over a grid of aims ``aims`` (deg) x cue speeds ``speeds`` (m/s), with the
    elevation and tip offsets fixed; ``options``: noise, trials, batch, progress (``play_trials``)."""
    return _grid_map(ruleset, state, params, key, "phi", aims, "V0", speeds, dict(theta=theta, a=a, b=b), **options)


def offset_map(ruleset: Rules, state: GameState, params: Params, key: jax.Array, phi: float, V0: float,
               offsets, *, theta: float = 0.0, **options) -> SuccessMap:
    """Success over a grid of tip offsets (side ``a`` x height ``b``, fractions of R, both from
    ``offsets``) at one aim and speed; cells outside the miscue disc (``params.cue.max_offset``)
    are left out (NaN)."""
    offsets = np.asarray(offsets, float)
    m = _grid_map(ruleset, state, params, key, "a", offsets, "b", offsets, dict(phi=phi, V0=V0, theta=theta),
                  playable=lambda v: np.hypot(v["a"], v["b"]) <= float(params.cue.max_offset), **options)
    a, b = np.meshgrid(m.row_values, m.col_values, indexing="ij")
    outside = np.hypot(a, b) > float(params.cue.max_offset)
    blank = lambda x: np.where(outside, np.nan, x)  # noqa: E731
    return dataclasses.replace(m, success=blank(m.success), points=blank(m.points), given=blank(m.given))


# How far each input is moved, in both directions, when looking for the edge of a shot.
SPANS = {"phi": 3.0, "V0": 2.0, "theta": 20.0, "a": 0.4, "b": 0.4}


def _moves(shot: physics.Shot, params: Params, fields, spans: dict, steps: int):
    """(shots, strikable, fractions): ``shot`` itself, then each input of ``fields`` moved down and
    up by ``fractions`` (``steps`` of them, up to 1) of its span, as rows of one batch; moves the
    cue cannot play (a speed <= 0 or above the cue's, an elevation outside [0, 90), a tip beyond
    the miscue limit) are played as the shot itself and marked not strikable."""
    base = {f: float(np.asarray(getattr(shot, f))) for f in FIELDS}
    fractions = np.arange(1, int(steps) + 1) / int(steps)
    rows = [dict(base)]
    for f in fields:
        for sign in (-1.0, 1.0):
            for u in fractions:
                rows.append({**base, f: base[f] + sign * u * spans[f]})
    moved = {f: np.array([r[f] for r in rows]) for f in FIELDS}
    strikable = ((moved["V0"] > 0) & (moved["V0"] <= float(params.cue.max_speed)) & (moved["theta"] >= 0)
                 & (moved["theta"] < 90) & (np.hypot(moved["a"], moved["b"]) <= float(params.cue.max_offset)))
    return physics.Shot(**{f: np.where(strikable, v, base[f]) for f, v in moved.items()}), strikable, fractions


def _edges(ok: np.ndarray, fields, spans: dict, fractions: np.ndarray) -> dict:
    """{input: (below, above)} from ``ok`` over the rows of ``_moves``: per direction the largest
    move such that every move up to it is ok (the span: at least this far); (0, 0) when the shot
    itself (row 0) is not ok."""
    steps = len(fractions)
    out = {}
    k = 1
    for f in fields:
        edge = []
        for _ in (-1.0, 1.0):
            run = ok[k:k + steps]
            k += steps
            good = int(np.argmin(run)) if not run.all() else steps  # moves that pass before the first that fails
            edge.append(0.0 if not ok[0] else float(fractions[good - 1] * spans[f]) if good else 0.0)
        out[f] = tuple(edge)
    return out


def sensitivity(ruleset: Rules, state: GameState, shot: physics.Shot, params: Params, *, steps: int = 200,
                spans: Optional[dict] = None, batch: int = BATCH) -> dict:
    """How far each input of ``shot`` may move, alone and with exact execution, before the shot
    stops scoring: {input: (below, above)}, the largest moves down and up (in the input's units)
    such that every move up to it still scores, on a grid of ``steps`` moves per direction up to
    ``spans[input]`` (``SPANS``); the span itself means "at least this far". Moves that leave
    the input's range (a negative elevation or speed) count as failures. A shot that does not
    score exactly as given has (0, 0) everywhere."""
    _check(1, batch)
    spans = {**SPANS, **(spans or {})}
    shots, strikable, fractions = _moves(shot, params, FIELDS, spans, steps)
    exact = play_trials(ruleset, state, shots, params, jax.random.PRNGKey(0), noise=ExecutionNoise(0.0), trials=1,
                        batch=batch)
    return _edges((exact.scored > 0) & strikable, FIELDS, spans, fractions)


# --- choosing on some draws, valuing on others ---------------------------------------------------

HELD_OUT = 1_000_003  # folded into a choosing key for the valuing draws (above any count of plays)


def held_out_key(key: jax.Array) -> jax.Array:
    """The key of the noise draws that value what was chosen on the draws of ``key``: ``key``
    folded with ``HELD_OUT``, so one seed gives both and no valuing draw is a choosing one."""
    return jax.random.fold_in(key, HELD_OUT)


def stack_shots(shots) -> physics.Shot:
    """One batch (fields (N,), NumPy) of shots with scalar fields."""
    shots = list(shots)
    return physics.Shot(*(np.array([float(np.asarray(getattr(s, f))) for s in shots]) for f in FIELDS))


def take(shots: physics.Shot, rows) -> physics.Shot:
    """Rows ``rows`` of a batch of shots (fields (N,)), as NumPy."""
    return physics.Shot(*(np.asarray(getattr(shots, f), float).reshape(-1)[np.asarray(rows, int)] for f in FIELDS))


def value_chosen(ruleset: Rules, state: GameState, shots: physics.Shot, params: Params, key: jax.Array,
                 **options) -> Trials:
    """``play_trials`` of ``shots`` chosen on the draws of ``key``, on fresh draws
    (``held_out_key(key)``): their success without the luck that chose them. ``options``: noise,
    trials, batch, progress."""
    return play_trials(ruleset, state, shots, params, held_out_key(key), **options)


@dataclasses.dataclass(frozen=True)
class HeldOut:
    """A choice among shots and its valuation. chosen: (k,) the indices of the shots chosen, in
    the order chosen; selection: every shot's plays on the choosing draws; value: the chosen
    shots' plays on the held-out draws (row i: shot ``chosen[i]``)."""

    chosen: np.ndarray
    selection: Trials
    value: Trials


def best_by_success(k: int) -> Callable[[Trials], np.ndarray]:
    """A ``choose`` for ``held_out``: the k shots that scored most often (ties: the higher mean
    points, then the earlier shot)."""
    def choose(trials: Trials) -> np.ndarray:
        return np.lexsort((np.arange(len(trials.scored)), -trials.points.mean(1), -trials.scored))[:k]

    return choose


def held_out(ruleset: Rules, state: GameState, shots: physics.Shot, params: Params, key: jax.Array, *,
             choose: Optional[Callable[[Trials], np.ndarray]] = None, trials: int = 32, plays: Optional[int] = None,
             **options) -> HeldOut:
    """Choose among ``shots`` (fields (N,)) on ``trials`` noisy plays each (the draws of ``key``),
    then value the chosen on ``plays`` (default ``trials``) fresh plays each (``value_chosen``).
    ``choose(selection)`` returns the indices chosen (default ``best_by_success(1)``); ``options``:
    noise, batch, progress."""
    selection = play_trials(ruleset, state, shots, params, key, trials=trials, **options)
    chosen = np.asarray((choose or best_by_success(1))(selection), int).reshape(-1)
    if not len(chosen):
        raise ValueError("choose picked no shot; it must return the indices of one or more shots")
    value = value_chosen(ruleset, state, take(shots, chosen), params, key, trials=trials if plays is None else plays,
                         **options)
    return HeldOut(chosen, selection, value)


# How far each input is moved, in both directions, when looking for a shot's margins under noise.
MARGIN_SPANS = {"phi": 4.0, "V0": 2.5, "theta": 20.0, "a": 0.5, "b": 0.5}
MARGIN_FIELDS = ("phi", "V0", "a", "b")


@dataclasses.dataclass(frozen=True)
class Margins:
    """How far a shot's inputs may move under noise. success: the shot's own share of ``trials``
    plays that scored; edges: {input: (below, above)} (``margins``); moves: {input: (steps,)} the
    moves tried in each direction; curves: {input: (2, steps)} the success after each move down
    and up (0 where the cue cannot play it)."""

    success: float
    edges: dict
    moves: dict
    curves: dict
    trials: int


def margins(ruleset: Rules, state: GameState, shot: physics.Shot, params: Params, key: jax.Array, *,
            noise: ExecutionNoise = STANDARD, trials: int = 200, steps: int = 12, spans: Optional[dict] = None,
            fields=MARGIN_FIELDS, batch: int = BATCH, progress: Optional[Callable[[int], None]] = None) -> Margins:
    """How far each input of ``shot`` (``fields``) may move, alone, before its success under
    ``noise`` falls by half: per input the largest moves down and up such that every move up to
    it keeps at least half the shot's own success, on a grid of ``steps`` moves per direction up
    to ``spans[input]`` (``MARGIN_SPANS``; the span means "at least this far"). Every move is
    played on the same ``trials`` draws of ``key``, the shot's own row too: pass
    ``held_out_key(choosing key)`` and its success is the shot's held-out valuation. Moves the cue
    cannot play count as 0; a shot that never scores has (0, 0) everywhere."""
    _check(trials, batch)
    if int(steps) < 1:
        raise ValueError(f"steps must be a positive number of moves per direction, got {steps}")
    unknown = [f for f in fields if f not in FIELDS]
    if unknown or not len(fields):
        raise ValueError(f"fields must name shot inputs among {', '.join(FIELDS)}, got {list(fields)!r}")
    spans = {**MARGIN_SPANS, **(spans or {})}
    shots, strikable, fractions = _moves(shot, params, fields, spans, steps)
    played = play_trials(ruleset, state, shots, params, key, noise=noise, trials=trials, batch=batch, progress=progress)
    success = np.where(strikable, played.success, 0.0)
    ok = (success >= 0.5 * success[0]) & (success[0] > 0)
    curves = {f: success[1 + 2 * i * steps:1 + 2 * (i + 1) * steps].reshape(2, steps) for i, f in enumerate(fields)}
    return Margins(float(success[0]), _edges(ok, fields, spans, fractions),
                   {f: fractions * spans[f] for f in fields}, curves, int(trials))


def difficulty(ruleset: Rules, state: GameState, params: Params, key: jax.Array, *,
               noise: ExecutionNoise = STANDARD, planner=None, trials: int = 256,
               batch: int = BATCH) -> tuple[physics.Shot, Trials]:
    """How hard a layout is for a player with ``noise``: the shot the search chooses for it
    (``planner``, default ``SearchAgent.for_noise(noise.scale)``, or ``SearchAgent()`` for exact
    play) and that shot's ``trials`` noisy plays; its success is the layout's best chance found."""
    from agents.search import SearchAgent

    if planner is None:
        planner = SearchAgent.for_noise(noise.scale) if noise.scale > 0 else SearchAgent()
    k_plan, k_play = jax.random.split(key)
    shot = planner.plan(ruleset, state, params, k_plan)
    one = jax.tree_util.tree_map(lambda x: jnp.reshape(x, (1,)), shot)
    return shot, play_trials(ruleset, state, one, params, k_play, noise=noise, trials=trials, batch=batch)
