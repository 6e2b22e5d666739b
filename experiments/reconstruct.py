"""Shot reconstruction: the cue strike that makes the physics reproduce a tracked shot.

The unknowns are the strike (V0, phi, a, b and the cue elevation theta, near 0 for most carom
strokes) and ``dt``, the strike time relative to the start of motion read from the tracks
(``TrackedShot.strike_time``). A candidate is scored by the RMS distance between the tracked
centres and the simulated ones at the same times (every sample of every ball;
``physics.positions_at`` reads the simulated paths from the event log), with the contacts of
the tracks as constraints (``Near``): the cue ball's first contact with each object ball, or its
closest pass of one it misses by less than 10 cm, asks the same gap of the simulation around
that time (a hit is a gap of 0; where the tracks show a miss, a simulated hit at any time is a
miss of the whole gap), and the squared differences, weighted, add to the mean squared error.
Those gaps decide a point (docs/rules.md C-13.2) where the camera's samples, 40 ms apart, put a
centimetre's miss at almost no cost in RMS (the 90 shots under the match table's set: median
RMS 5.9 cm, first 2 s 4.1 cm, 88 % called point or no point as the tracks are, against 6.1 cm,
4.3 cm and 88 % without them; held out of a calibration, 89 % against 86 %, docs/physics.md
section 6). The search starts from a first guess read off the cue ball's first samples, or
from the ghost ball of a ball it meets at once (``first_guess``): with it, and the track reader
counting a short pause at a cushion as a contact (``track_events``), the 90 shots fit to a
median 5.9 cm (p90 14.8 cm, against 19.1), 4.0 cm over the first 2 s, and 94 % are called as
the tracks are. The search is a cross-entropy method (CEM) over a batch of candidates per
shot, simulated in one call (``physics.simulate_batch``): sample, keep the best eighth, refit
a normal distribution to them, repeat. Early rounds score only the first seconds of the shot
(a smooth start) and the horizon grows to the whole shot, which keeps the search out of the
many local minima that later contacts make. From a first guess, several searches start with
different side spins (its sign sets every cushion angle, and one search can settle on the wrong
one) and the best goes on alone; the last rounds search around the best strike found, scored on the whole shot.
Two such searches run for every shot (``SEARCHES``; in the same simulation calls, each drawing
its own candidates), and the one whose strike fits best is kept: a shot's objective has several
minima, and a search from the same guess with other draws ends more than 1 cm away on one shot
in ten. On the 90 shots under the match table's set, one search gives a median 5.8 cm (5.7 with
another seed), two 5.4 cm; eight side-spin restarts within one search gave 6.0 cm and two searches
of half the candidates each 5.8 cm, so the second search is worth its cost. One shot takes about
21 s on 2 cores (one search 16 s, three 25 s; ``--searches``).

Reported errors: RMS over the whole shot, over the first 2 s after the strike, and a time-free
path-shape distance (each tracked sample to the nearest point of its ball's simulated path and
each simulated point to the nearest tracked sample, RMS of both).

``--horizon S`` fits only the first S s after the strike (the errors reported stay those of the
whole shot). How close the physics can come at a shot's start: on the 90 shots under the match
table's default set, fitting the first 2 s alone brings them to a median 2.1 cm (46 % of the
shots under 2 cm; the whole shot then misses by 17 cm), against 4.3 cm when the whole shot is
fitted (6.1 cm over it). One strike cannot make both the start and the rest of a shot as close
as either alone. Where those 2 s miss, on every third of the 90 shots (30, fitted on their first
2 s alone, the match table's default set): the cue ball before its first contact (0.25 s, median)
1.0 cm RMS, after it 1.6 cm, the object balls 2.0 cm (p75 3.5 cm); the first contact was a ball
in 27 of the 30. So the collision of the two balls, and what it gives the object ball, is the
larger part (the tracking itself is good to about 0.5 mm: a quadratic over any 7 samples of a
moving ball leaves that RMS, median of 8,103 windows).

    python -m experiments.reconstruct --shot 545712 --out results/reconstruct

writes a picture per shot (tracked dots, simulated lines) and ``reconstruct.csv``. Data:
erdo100/3cushiontool, 20221225_2_Match_Ersin_Cemal.pkl, Apache-2.0.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import time
from functools import partial
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

import physics
from experiments import track_events, tracking
from experiments.tracking import TrackedShot
from physics.events import EventKind
from physics.replay import positions_at_batch

N_SAMPLES = 640  # samples per shot, padded (the longest of the 90 has 556)
CHUNK = 256  # shots simulated per call
POP, ROUNDS = 1024, 30  # CEM candidates per round and rounds
RESTARTS = 4  # independent searches per shot in the first rounds (``fit``) ...
EXPLORE = 0.25  # ... this fraction of them
POLISH = 3  # last rounds: a local search around the best strike, scored on the whole shot
SEARCHES = 2  # whole searches per shot, the best kept (``fit``); one shot alone takes 1.3 times one search's time
EARLY = 2.0  # s after the strike: the "first 2 s" error
SPLIT_STEP = 0.005  # s either side of a sample: the chord that gives the simulated ball's direction there
MOVING = 0.05  # m/s: a simulated ball slower than this has no direction to split an error along
FIRST_HORIZON = 0.5  # s of the shot scored in the first CEM round; the horizon then grows ...
GROWTH = 1.25  # ... by this factor a round (the whole shot after about 15 rounds)
FIELDS = ("V0", "phi", "a", "b", "dt", "theta")
# Search box and the floor of the search spread of each field; the starting spread from a first
# guess (V0's relative to the guessed speed). theta: cue elevation (deg), 0 for most carom strokes.
LOW = np.array([0.05, -np.inf, -0.6, -0.6, -0.04, 0.0])
HIGH = np.array([8.0, np.inf, 0.6, 0.6, 0.04, 30.0])
MIN_SPREAD = np.array([0.002, 0.01, 0.002, 0.002, 0.0005, 0.05])
WIDE_SPREAD = np.array([0.35, 4.0, 0.3, 0.3, 0.008, 3.0])
MAX_TIP = 0.58  # tip offsets are kept inside this radius (the miscue limit is 0.6 R)
FIRST_TRAVEL = 0.06  # s of the cue ball's travel that give the first guess its aim and speed
BALL_SPEED_PER_CUE_SPEED = 1.4  # a centre hit gives the ball 2 M / (M + m) = 1.46 of the cue speed
# Contacts as constraints (``Near``, module docstring): a miss of the cue ball's pass of an object
# ball counts when closer than NEAR_RANGE; the simulated gap is read over +-NEAR_WINDOW s around
# the tracked contact, NEAR_STEP apart; CONTACT_WEIGHT: squared gap misses per squared error.
NEAR_RANGE = 0.1  # m
NEAR_WINDOW, NEAR_STEP = 0.2, 0.01  # s
NEAR_SAMPLES = 2 * round(NEAR_WINDOW / NEAR_STEP) + 1
CONTACT_WEIGHT = 4.0


@dataclasses.dataclass(frozen=True)
class Target:
    """A tracked shot as fixed-size arrays. times: (N_SAMPLES,) s from the recording's start;
    ball: (N_SAMPLES,) which ball; xy: (N_SAMPLES, 2); used: (N_SAMPLES,) bool, False on padding."""

    shot_id: int
    start: np.ndarray
    cue: int
    strike_time: float
    times: np.ndarray
    ball: np.ndarray
    xy: np.ndarray
    used: np.ndarray
    near: "Near | None" = None

    @classmethod
    def of(cls, shot: TrackedShot) -> "Target":
        t = np.concatenate([tr.t for tr in shot.tracks])
        ball = np.concatenate([np.full(len(tr.t), k) for k, tr in enumerate(shot.tracks)])
        xy = np.concatenate([tr.xy for tr in shot.tracks])
        if len(t) > N_SAMPLES:
            keep = np.linspace(0, len(t) - 1, N_SAMPLES).round().astype(int)
            t, ball, xy = t[keep], ball[keep], xy[keep]
        pad = N_SAMPLES - len(t)
        return cls(
            shot.shot_id, separated(shot.start), shot.cue, shot.strike_time,
            np.concatenate([t, np.full(pad, t[-1])]), np.concatenate([ball, np.zeros(pad, int)]),
            np.concatenate([xy, np.zeros((pad, 2))]), np.arange(N_SAMPLES) < len(t), Near.of(shot),
        )


@dataclasses.dataclass(frozen=True)
class Near:
    """The cue ball's contacts with the two object balls as the tracks show them (``CONTACT_WEIGHT``).
    other: (2,) the object balls; times: (2, NEAR_SAMPLES) the window around the first contact
    (or the closest approach) on the recording's clock; gap: (2,) the tracked gap there (m, 0 for a
    contact); used: (2,) bool, False for a ball the cue ball passes farther than ``NEAR_RANGE``."""

    other: np.ndarray
    times: np.ndarray
    gap: np.ndarray
    used: np.ndarray

    @classmethod
    def of(cls, shot: TrackedShot) -> "Near":
        if not np.isfinite(shot.strike_time) or not shot.end_time > shot.strike_time:
            return cls.none(shot.cue, len(shot.tracks))  # nothing moves: no contact to ask for
        grid = np.arange(shot.strike_time, shot.end_time, track_events.GRID)
        pos = shot.at(grid)
        first = {c.balls: c.t for c in reversed(track_events.ball_contacts(shot))}
        other = _object_balls(shot.cue, len(shot.tracks))
        at, gap = np.empty(2), np.empty(2)
        for k, b in enumerate(other):
            pair = (min(b, shot.cue), max(b, shot.cue))
            if pair in first:
                at[k], gap[k] = first[pair], 0.0
            else:
                d = np.linalg.norm(pos[:, b] - pos[:, shot.cue], axis=1) - 2 * tracking.RADIUS
                i = int(np.argmin(d))
                at[k], gap[k] = grid[i], max(float(d[i]), 0.0)
        offsets = NEAR_STEP * (np.arange(NEAR_SAMPLES) - NEAR_SAMPLES // 2)
        return cls(other, at[:, None] + offsets, gap, gap <= NEAR_RANGE)

    @classmethod
    def none(cls, cue: int, balls: int = 3) -> "Near":
        """No constraint."""
        return cls(_object_balls(cue, balls), np.zeros((2, NEAR_SAMPLES)), np.zeros(2), np.zeros(2, bool))


def _object_balls(cue: int, balls: int) -> np.ndarray:
    """(2,) the two balls other than the cue ball, in index order."""
    return np.array([b for b in range(balls) if b != cue][:2])


def separated(start, gap=1e-6) -> np.ndarray:
    """(3, 2) start layout with balls that the tracking puts closer than 2 R pushed apart along
    their line of centres (the simulation refuses overlapping balls)."""
    r = np.array(start, float)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        d = r[j] - r[i]
        dist = np.linalg.norm(d)
        if dist < 2 * tracking.RADIUS + gap:
            push = 0.5 * (2 * tracking.RADIUS + gap - dist) * d / max(dist, 1e-9)
            r[i] -= push
            r[j] += push
    return r


def first_guess(shot: TrackedShot) -> np.ndarray:
    """(6,) a strike (``FIELDS``) from the cue ball's first samples: aim along its first
    ``FIRST_TRAVEL`` s of travel, cue speed from the ball's speed there, a level centre hit,
    dt = 0. Where the tracks show the cue ball meeting a ball sooner, it aims at the ghost ball
    instead (``ghost_aim``): the hit has already turned those samples (match shot 545762, a thin
    hit on a ball 5 cm away: its first 60 ms point 14 degrees off the aim)."""
    tr = shot.tracks[shot.cue]
    t0 = shot.strike_time
    k = int(np.searchsorted(tr.t, t0 + FIRST_TRAVEL))
    k = min(max(k, 1), len(tr.t) - 1)
    d = tr.xy[k] - tr.xy[0]
    speed = np.linalg.norm(d) / max(tr.t[k] - t0, 1e-3)
    aim = np.degrees(np.arctan2(d[1], d[0]))
    first = next((c for c in track_events.ball_contacts(shot) if shot.cue in c.balls), None)
    if first is not None and first.t < t0 + FIRST_TRAVEL:
        aim = ghost_aim(shot, first.balls[0] + first.balls[1] - shot.cue)
    return np.array([speed / BALL_SPEED_PER_CUE_SPEED, aim, 0.0, 0.0, 0.0, 0.0])


def ghost_aim(shot: TrackedShot, ball: int) -> float:
    """The aim (degrees) that sends the cue ball's centre to where it touches ``ball`` at rest: 2 R
    back from that ball's place along the line it leaves on (read over its first ``FIRST_TRAVEL``
    s of motion; the throw of a cut, a degree or two, is left to the search)."""
    tr = shot.tracks[ball]
    k = min(int(np.searchsorted(tr.t, tr.moves_at + FIRST_TRAVEL)), len(tr.t) - 1)
    leaves = tr.xy[k] - tr.xy[0]
    d = tr.xy[0] - 2 * tracking.RADIUS * leaves / max(np.linalg.norm(leaves), 1e-9) - shot.tracks[shot.cue].xy[0]
    return float(np.degrees(np.arctan2(d[1], d[0])))


def legal(x: np.ndarray) -> np.ndarray:
    """Strikes (..., 6) moved into the search box, tip offsets inside ``MAX_TIP``."""
    x = np.clip(x, LOW, HIGH)
    r = np.hypot(x[..., 2], x[..., 3])
    scale = np.minimum(1.0, MAX_TIP / np.maximum(r, 1e-12))
    x[..., 2] *= scale
    x[..., 3] *= scale
    return x


@partial(jax.jit, static_argnames="per_lane")
def _squared_errors(results, times, ball, xy, near_times, cue, other, tracked, params, per_lane=False):
    """(B, N) squared distance of each tracked sample from its simulated ball at that time, and
    (B, 2) the simulated gap between the cue ball and each object ball ``other`` (B, 2): the
    smallest over its window ``near_times`` (B, 2, W), 0 where they meet in it, and 0 where they
    meet at any time but the tracked gap ``tracked`` (B, 2) is a miss (any hit of the second ball
    decides) (``per_lane``: params with a batch axis)."""
    paths = positions_at_batch(results, times, params, per_lane)  # (B, N, 3, 2)
    sim = jnp.take_along_axis(paths, ball[:, :, None, None], axis=2)[:, :, 0]
    B, P, W = near_times.shape
    around = positions_at_batch(results, near_times.reshape(B, P * W), params, per_lane)
    around = around.reshape(B, P, W, -1, 2)
    lane = jnp.arange(B)[:, None]
    cue_xy = around[lane, jnp.arange(P)[None], :, cue[:, None]]  # (B, P, W, 2)
    other_xy = around[lane, jnp.arange(P)[None], :, other]
    radius = params.ball.radius if not per_lane else params.ball.radius[:, None]
    gap = jnp.min(jnp.linalg.norm(cue_xy - other_xy, axis=-1), axis=-1) - 2 * radius
    # a contact in the window is a gap of 0 exactly (the samples, 10 ms apart, may straddle it)
    log = results.events
    pair = (log.kind == EventKind.BALL_BALL)[:, None] & (  # (B, P, capacity)
        ((log.balls[:, None, :, 0] == cue[:, None, None]) & (log.balls[:, None, :, 1] == other[:, :, None]))
        | ((log.balls[:, None, :, 1] == cue[:, None, None]) & (log.balls[:, None, :, 0] == other[:, :, None])))
    inside = (log.time[:, None] >= near_times[:, :, :1]) & (log.time[:, None] <= near_times[:, :, -1:])
    met = jnp.any(pair & inside, -1) | ((tracked > 0) & jnp.any(pair, -1))
    return jnp.sum((sim - xy) ** 2, axis=-1), jnp.where(met, 0.0, jnp.maximum(gap, 0.0))


class Misses(NamedTuple):
    """How far each simulated candidate is from the tracked contacts (``Near``): sq (B, 2), the
    squared difference between its gap and the tracked one (m^2, 0 where unused; where the tracks
    show a miss, a simulated hit at any time counts as a gap of 0); start (B, 2), when
    each window opens (s from the strike; inf where unused), so that a search scoring only the
    first seconds of a shot leaves later contacts out."""

    sq: np.ndarray
    start: np.ndarray

    def within(self, horizon: float = np.inf) -> np.ndarray:
        """(B,) the squared misses of the contacts whose window opens within ``horizon`` s."""
        return np.sum(self.sq * (self.start <= horizon), axis=-1)


def simulate(targets: list[Target], strikes: np.ndarray, params: physics.Params, batched_params: bool = False,
             chunk: int = CHUNK):
    """Simulate strike k of ``strikes`` (B, 6; ``FIELDS``) from target k's layout, ``chunk`` lanes a call (one
    compiled shape whatever B; the last call is padded). Returns (results, d2, rel, misses): the batch of
    ``ShotResult`` (of the last call only when there are several), (B, N) squared errors, (B, N)
    sample times from the strike, and the candidates' ``Misses`` of the tracked contacts."""
    b = len(strikes)
    pad = -b % chunk
    index = np.concatenate([np.arange(b), np.full(pad, b - 1)])
    start = np.stack([targets[i].start for i in index])
    cue = np.array([targets[i].cue for i in index], np.int32)
    zero = np.array([targets[i].strike_time for i in index]) + strikes[index, 4]  # the strike, on the clock
    rel = np.stack([targets[i].times for i in index]) - zero[:, None]
    ball = np.stack([targets[i].ball for i in index])
    xy = np.stack([targets[i].xy for i in index])
    near = [targets[i].near or Near.none(targets[i].cue, len(targets[i].start)) for i in index]
    near_rel = np.stack([n.times for n in near]) - zero[:, None, None]
    other = np.stack([n.other for n in near]).astype(np.int32)
    tracked = np.stack([n.gap for n in near])
    d2 = np.empty((len(index), N_SAMPLES))
    gaps = np.empty((len(index), 2))
    for lo in range(0, len(index), chunk):
        part = slice(lo, lo + chunk)
        rows = index[part]
        x = strikes[rows]
        lane_params = jax.tree_util.tree_map(lambda v, rows=rows: v[rows], params) if batched_params else params
        shot = physics.Shot(V0=x[:, 0], phi=x[:, 1], theta=x[:, 5], a=x[:, 2], b=x[:, 3])
        results = physics.simulate_batch(start[part], shot, cue[part], lane_params, batched_params=batched_params)
        arrays = (rel[part], ball[part], xy[part], near_rel[part], cue[part], other[part], tracked[part])
        errors, gap = _squared_errors(results, *map(jnp.asarray, arrays), lane_params, per_lane=batched_params)
        d2[part], gaps[part] = np.asarray(errors), np.asarray(gap)
    used = np.stack([n.used for n in near])[:b]
    misses = Misses(np.where(used, (gaps[:b] - tracked[:b]) ** 2, 0.0), np.where(used, near_rel[:b, :, 0], np.inf))
    return results, d2[:b], rel[:b], misses


def rms(d2, mask, contacts=0.0) -> np.ndarray:
    """RMS over the masked samples of each row (m); with ``contacts`` (B,) the squared misses of the
    tracked contacts (``Misses.within``), the search's objective: the mean squared error plus
    ``CONTACT_WEIGHT`` times them, square-rooted."""
    n = np.maximum(mask.sum(-1), 1)
    return np.sqrt((d2 * mask).sum(-1) / n + CONTACT_WEIGHT * contacts)


@dataclasses.dataclass
class Fit:
    """The best strike found for a target and its errors (m); objective: what the search
    minimised, the RMS over the whole shot with the tracked contacts' misses (``rms``)."""

    strike: np.ndarray
    rms: float
    rms_early: float
    result: Optional[physics.ShotResult] = None
    objective: float = np.inf

    def row(self) -> dict:
        return dict(zip(FIELDS, (float(v) for v in self.strike)), rms=self.rms, rms_early=self.rms_early)


def _side_spins(init: np.ndarray, restarts: int) -> np.ndarray:
    """(n, restarts, 6): the starting strikes of the independent searches, alike but for their
    side spin, spread evenly over -0.3..0.3 (one search keeps ``init``)."""
    start = np.repeat(np.array(init, float)[:, None], restarts, axis=1)
    if restarts > 1:
        start[:, :, 2] = np.linspace(-0.3, 0.3, restarts)
    return start


def check_search(pop: int, rounds: int, restarts: int, polish: int, searches: int = 1) -> None:
    """ValueError unless ``fit`` can run these settings."""
    if searches < 1:
        raise ValueError(f"searches must be at least 1, got {searches}")
    if restarts < 1 or pop % restarts or pop // restarts < 8:
        raise ValueError(f"pop must be a multiple of restarts with at least 8 candidates per search, "
                         f"got pop={pop}, restarts={restarts}")
    if rounds < 1 or not 0 <= polish < rounds:
        raise ValueError(f"rounds must be at least 1 and polish in [0, rounds), got rounds={rounds}, polish={polish}")


def fit(targets: list[Target], params: physics.Params, *, pop: int = POP, rounds: int = ROUNDS, seed: int = 0,
        init: Optional[np.ndarray] = None, spread: Optional[np.ndarray] = None,
        batched_params: bool = False, chunk: int = CHUNK, first_horizon: float = FIRST_HORIZON,
        restarts: int = 1, polish: int = 0, searches: int = 1, progress=None) -> list[Fit]:
    """CEM over the strikes of several targets at once: ``pop`` candidates each, ``rounds`` rounds.

    init: (len(targets), 6) starting strikes (``first_guess`` of each shot, or earlier fits);
    spread: (6,) the starting standard deviations (default ``WIDE_SPREAD``, for a first guess);
    first_horizon: seconds of the shot scored in the first round (a warm start can score more);
    restarts: independent searches per target (``pop // restarts`` candidates each, side spins
    from ``_side_spins``) for the first ``EXPLORE`` of the rounds; the one whose best strike fits
    the whole shot best then goes on with the whole population;
    polish: the last rounds sample around the best strike so far, scored on the whole shot.
    With ``batched_params`` every leaf of ``params`` has a leading axis of len(targets): each
    target is fitted under its own parameters (calibration).
    searches: whole searches per target, independent (their own draws, in the same simulation
    calls), the one whose best strike has the lowest objective kept: a shot's objective has
    several minima, and one search settles in one of them (``searches`` times the simulated shots).
    """
    check_search(pop, rounds, restarts, polish, searches)
    n, dim = len(targets), len(FIELDS)
    if init is None or np.shape(init) != (n, dim):
        raise ValueError(f"init must hold a starting strike per target, shape ({n}, {dim}) (reconstruct.first_guess), "
                         f"got {None if init is None else np.shape(init)}")
    if searches > 1:  # the targets repeated: each copy's lanes draw their own candidates
        if batched_params:
            params = jax.tree_util.tree_map(lambda x: jnp.concatenate([x] * searches), params)
        fits = fit(targets * searches, params, pop=pop, rounds=rounds, seed=seed, init=np.tile(init, (searches, 1)),
                   spread=spread, batched_params=batched_params, chunk=chunk, first_horizon=first_horizon,
                   restarts=restarts, polish=polish, progress=progress)
        return [min(fits[i::n], key=lambda f: f.objective) for i in range(n)]
    rng = np.random.default_rng(seed)
    mean = _side_spins(init, restarts)  # (n, groups, dim)
    std = np.array(WIDE_SPREAD if spread is None else spread, float)[None, None] * np.ones_like(mean)
    if spread is None:
        std[..., 0] *= mean[..., 0]
    cov = np.einsum("ngi,ij->ngij", std**2, np.eye(dim))  # full covariances: V0, aim, spin and dt trade off
    lanes = [t for t in targets for _ in range(pop)]
    lane_params = params
    if batched_params:
        lane_params = jax.tree_util.tree_map(lambda x: jnp.repeat(x, pop, axis=0), params)
    used = np.stack([t.used for t in lanes])
    best = [[Fit(m.copy(), np.inf, np.inf) for m in row] for row in mean]  # per target and search
    merge = max(int(rounds * EXPLORE), 1) if restarts > 1 else -1
    for k in range(rounds):
        if k == merge:  # the best search of each target goes on alone
            keep = [int(np.argmin([f.objective for f in row])) for row in best]
            mean, cov = mean[np.arange(n), keep][:, None], cov[np.arange(n), keep][:, None]
            best = [[row[j]] for row, j in zip(best, keep)]
        groups = mean.shape[1]
        size = pop // groups
        polishing = k >= rounds - polish
        if polishing:
            mean = np.array([[f.strike for f in row] for row in best])
        chol = np.linalg.cholesky(cov + np.diag(MIN_SPREAD**2))
        x = mean[:, :, None, :] + np.einsum("ngij,ngpj->ngpi", chol, rng.standard_normal((n, groups, size, dim)))
        x[:, :, 0] = mean  # the current mean is always a candidate, and so is the best strike
        x[:, :, 1] = [[f.strike if np.isfinite(f.objective) else m for f, m in zip(row, mrow)]
                      for row, mrow in zip(best, mean)]
        x = legal(x).reshape(n * pop, dim)
        _, d2, rel, misses = simulate(lanes, x, lane_params, batched_params, chunk)
        horizon = np.inf if polishing else first_horizon * GROWTH ** k
        shape = (n, groups, size)
        score = rms(d2, used & (rel <= horizon), misses.within(horizon)).reshape(shape)
        objective = rms(d2, used, misses.within()).reshape(shape)
        whole = rms(d2, used).reshape(shape)
        early = rms(d2, used & (rel <= EARLY)).reshape(shape)
        x = x.reshape(n, groups, size, dim)
        elite = max(size // 8, 2)
        for i in range(n):
            for g in range(groups):
                order = np.argsort(score[i, g])[:elite]
                mean[i, g] = x[i, g, order].mean(0)
                cov[i, g] = np.cov(x[i, g, order], rowvar=False)
                j = int(np.argmin(objective[i, g]))
                if objective[i, g, j] < best[i][g].objective:
                    best[i][g] = Fit(x[i, g, j].copy(), float(whole[i, g, j]), float(early[i, g, j]),
                                     objective=float(objective[i, g, j]))
        if progress is not None:
            progress.update(1)
    return [min(row, key=lambda f: f.objective) for row in best]


def final_result(target: Target, strike: np.ndarray, params: physics.Params, chunk: int = CHUNK
                 ) -> physics.ShotResult:
    """The simulated shot of one strike."""
    results = simulate([target], strike[None], params, chunk=chunk)[0]
    return jax.tree_util.tree_map(lambda v: v[0], results)


def to_polyline(points: np.ndarray, line: np.ndarray) -> np.ndarray:
    """(m,) distance of each point to the nearest point of a polyline (k, 2)."""
    if len(line) == 1:
        return np.linalg.norm(points - line[0], axis=1)
    a, b = line[:-1], line[1:]
    ab = b - a
    u = np.einsum("mkd,kd->mk", points[:, None] - a[None], ab) / np.maximum(np.sum(ab**2, axis=1), 1e-18)
    near = a[None] + np.clip(u, 0.0, 1.0)[..., None] * ab[None]
    return np.min(np.linalg.norm(points[:, None] - near, axis=-1), axis=1)


def path_distance(shot: TrackedShot, result: physics.ShotResult, dt: float, params: physics.Params,
                  step: float = 0.01) -> float:
    """Time-free path-shape distance (m): the RMS, over both directions, of the distance from a
    point of one path (tracked samples; the simulated path every ``step`` s) to the other path
    (a polyline through its points), per ball, over the balls that move in either."""
    t_end = shot.end_time - shot.strike_time - dt
    sim = np.asarray(physics.positions_at(result, np.arange(0.0, t_end, step), params))
    parts = []
    for k, tr in enumerate(shot.tracks):
        a, b = tr.xy, sim[:, k]
        if np.ptp(a, axis=0).max() < tracking.MOVED and np.ptp(b, axis=0).max() < tracking.MOVED:
            continue
        parts += [to_polyline(a, b) ** 2, to_polyline(b, a) ** 2]
    return float(np.sqrt(np.mean(np.concatenate(parts)))) if parts else 0.0


def along_across(before: np.ndarray, after: np.ndarray, sim: np.ndarray, xy: np.ndarray, step: float = SPLIT_STEP):
    """Each tracked sample's error (``xy`` - ``sim``, (N, 2)) split along and across the simulated
    ball's travel there, the chord from ``before`` to ``after`` (its positions ``step`` s either
    side): (along, across, moving), metres; along > 0: the track is ahead of the simulation (a
    timing or speed error), across > 0: left of its path (a direction error); moving: the
    simulated ball is faster than ``MOVING`` (elsewhere both parts are 0)."""
    chord = np.asarray(after) - np.asarray(before)
    length = np.linalg.norm(chord, axis=-1)
    moving = length > MOVING * 2 * step
    u = chord / np.where(moving, length, 1.0)[..., None]
    e = np.asarray(xy) - np.asarray(sim)
    along = np.where(moving, np.sum(e * u, axis=-1), 0.0)
    across = np.where(moving, u[..., 0] * e[..., 1] - u[..., 1] * e[..., 0], 0.0)
    return along, across, moving


def check_horizon(horizon) -> None:
    """ValueError unless ``horizon`` (s) is a positive number."""
    if not horizon > 0:
        raise ValueError(f"horizon must be a positive number of seconds, got {horizon!r}")


def reconstruct(shot: TrackedShot, params: Optional[physics.Params] = None, *, pop: int = POP, rounds: int = ROUNDS,
                seed: int = 0, chunk: int = CHUNK, restarts: int = RESTARTS, polish: int = POLISH,
                searches: int = SEARCHES, horizon: Optional[float] = None) -> tuple[Fit, float]:
    """The best strike for one tracked shot and its path-shape distance. ``horizon``: fit only the
    samples of the first ``horizon`` s after the strike (the strike that explains the start of a
    shot; default: the whole shot); the errors reported are still those of the whole shot and its
    first ``EARLY`` s. ``searches``: independent whole searches, the best kept (``fit``)."""
    params = physics.default_params() if params is None else params
    target = Target.of(shot)
    scored = target
    if horizon is not None:
        check_horizon(horizon)
        near = target.near
        scored = dataclasses.replace(target, used=target.used & (target.times - target.strike_time <= horizon),
                                     near=dataclasses.replace(near, used=near.used & (
                                         near.times[:, 0] - target.strike_time <= horizon)))
    best = fit([scored], params, pop=pop, rounds=rounds, seed=seed, init=first_guess(shot)[None], chunk=chunk,
               restarts=restarts, polish=polish, searches=searches)[0]
    if horizon is None:
        best.result = final_result(target, best.strike, params, chunk)
    else:  # the errors of the whole shot, from its one simulation
        results, d2, rel, _ = simulate([target], best.strike[None], params, chunk=chunk)
        best = Fit(best.strike, float(rms(d2, target.used[None])[0]),
                   float(rms(d2, target.used[None] & (rel <= EARLY))[0]),
                   jax.tree_util.tree_map(lambda v: v[0], results))
    return best, path_distance(shot, best.result, float(best.strike[4]), params)


def sampled(start, strike: np.ndarray, params: physics.Params, *, shot_id: int = 0, cue: int = 0,
            step: float = 0.02, lead: float = 0.01, theta: float = 0.0, chunk: int = CHUNK) -> TrackedShot:
    """A tracked shot made by the physics: the strike (V0, phi, a, b; elevation theta) from ``start`` (3, 2),
    every ball sampled every ``step`` s like the camera (a ball at rest once, then from when it
    moves), the strike ``lead`` s after the recording starts. For checking the reconstruction."""
    target = Target.of(tracking.TrackedShot(shot_id, tuple(
        tracking.Track(np.array([0.0, 1.0]), np.repeat(np.asarray(p, float)[None], 2, 0)) for p in start)))
    target = dataclasses.replace(target, cue=cue, strike_time=0.0)
    result = final_result(target, np.concatenate([np.asarray(strike, float)[:4], [0.0, theta]]), params, chunk)
    t = np.arange(0.0, float(result.final_time) + step, step)
    paths = np.asarray(physics.positions_at(result, t, params))
    tracks = []
    for k in range(len(start)):
        moving = np.linalg.norm(paths[:, k] - paths[0, k], axis=1) > 1e-4
        keep = moving | (np.arange(len(t)) == 0) | (np.arange(len(t)) == len(t) - 1)
        tracks.append(tracking.Track(t[keep] + lead, paths[keep, k]))
    return tracking.TrackedShot(shot_id, tuple(tracks))


def draw(shot: TrackedShot, fit_: Fit, params: physics.Params, path: str, note: str = "") -> None:
    """Tracked dots and simulated lines of one shot, saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dt = float(fit_.strike[4])
    t = np.arange(0.0, shot.end_time - shot.strike_time - dt, 0.01)
    sim = np.asarray(physics.positions_at(fit_.result, t, params))
    fig, ax = plt.subplots(figsize=(9, 5))
    for k, (tr, colour) in enumerate(zip(shot.tracks, ("tab:blue", "tab:orange", "tab:green"))):
        label = "cue ball" if k == shot.cue else f"ball {k + 1}"
        ax.plot(tr.xy[:, 0], tr.xy[:, 1], ".", ms=3, color=colour, label=f"{label}, tracked")
        ax.plot(sim[:, k, 0], sim[:, k, 1], "-", lw=1, color=colour, alpha=0.8)
    ax.set_xlim(0, tracking.LENGTH)
    ax.set_ylim(0, tracking.WIDTH)
    ax.set_aspect("equal")
    ax.set_title(f"shot {shot.shot_id}: RMS {100 * fit_.rms:.1f} cm, first 2 s {100 * fit_.rms_early:.1f} cm {note}",
                 fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    fig.text(0.01, 0.01, f"lines: simulated. Data: {tracking.SOURCE}", fontsize=6)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shot", type=int, action="append", help="shot id (repeatable); default: every shot")
    parser.add_argument("--data", default=str(tracking.DATA), help="tracked shots JSON")
    parser.add_argument("--out", default="results/reconstruct", help="output folder")
    parser.add_argument("--pop", type=int, default=POP, help="candidates per CEM round")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="CEM rounds")
    parser.add_argument("--restarts", type=int, default=RESTARTS, help="independent searches in the first rounds")
    parser.add_argument("--polish", type=int, default=POLISH, help="last rounds searching around the best strike")
    parser.add_argument("--searches", type=int, default=SEARCHES,
                        help="independent whole searches per shot, the best kept (each one more costs as much again)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=CHUNK, help="shots simulated per call")
    parser.add_argument("--calibration", default=None, choices=sorted(physics.CALIBRATIONS),
                        help="the physics' parameter set (default: the match table's own)")
    parser.add_argument("--horizon", type=float, default=None, metavar="S",
                        help="fit only the first S seconds after the strike (default: the whole shot); the errors "
                        "reported are still over the whole shot and its first 2 s")
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    try:
        check_search(args.pop, args.rounds, args.restarts, args.polish, args.searches)
    except ValueError as err:
        parser.error(f"--pop, --rounds, --restarts, --polish, --searches: {err}")
    if args.horizon is not None:
        try:
            check_horizon(args.horizon)
        except ValueError as err:
            parser.error(f"--{err}")
    shots = {s.shot_id: s for s in tracking.load(args.data)}
    unknown = sorted(set(args.shot or []) - set(shots))
    if unknown:
        parser.error(f"--shot: no shot with id {', '.join(map(str, unknown))} in {args.data}")
    chosen = [shots[i] for i in args.shot] if args.shot else list(shots.values())
    params = physics.default_params(calibration=args.calibration)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for shot in chosen:
        clock = time.perf_counter()
        best, shape = reconstruct(shot, params, pop=args.pop, rounds=args.rounds, seed=args.seed, chunk=args.chunk,
                                  restarts=args.restarts, polish=args.polish, searches=args.searches,
                                  horizon=args.horizon)
        row = dict(shot_id=shot.shot_id, cue=shot.cue, **best.row(), shape=shape,
                   seconds=time.perf_counter() - clock)
        rows.append(row)
        print(f"shot {shot.shot_id}: RMS {100 * best.rms:.1f} cm, first 2 s {100 * best.rms_early:.1f} cm, "
              f"path shape {100 * shape:.1f} cm, {row['seconds']:.1f} s")
        if not args.no_plots:
            draw(shot, best, params, os.path.join(args.out, f"shot_{shot.shot_id}.png"))
    with open(os.path.join(args.out, "reconstruct.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


if __name__ == "__main__":
    main()
