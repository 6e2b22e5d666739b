"""How far simulated strikes land from tracked shots: the strike search's objective.

A candidate strike (``fit.FIELDS``) is simulated from its target's layout
(``physics.simulate_batch``, ``chunk`` lanes a call, one compiled shape) and scored by the RMS
distance between the tracked centres and the simulated ones at the same times (every sample of
every ball; ``physics.positions_at_batch`` reads the simulated paths from the event log), plus
the tracked contacts (``target.Near``): the squared differences between each tracked gap and the
simulated one around its time (a hit is a gap of 0; where the tracks show a miss, a simulated hit
at any time is a miss of the whole gap), weighted by ``contact_weight``, add to the mean squared
error (``rms``). ``Misses.within`` leaves out the contacts after a horizon, for a search that
scores only the first seconds of a shot.
"""
from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from physics.events import EventKind, ShotResult
from physics.params import Params
from physics.replay import positions_at_batch
from physics.simulate import simulate_batch
from physics.strike import Shot
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.target import Near, Target


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


def simulate(targets: list[Target], strikes: np.ndarray, params: Params, config: TrackingConfig = DEFAULT,
             batched_params: bool = False):
    """Simulate strike k of ``strikes`` (B, 6; ``fit.FIELDS``) from target k's layout, ``chunk`` lanes a call
    (one compiled shape whatever B; the last call is padded). Returns (results, d2, rel, misses): the batch
    of ``ShotResult`` (of the last call only when there are several), (B, N) squared errors, (B, N)
    sample times from the strike, and the candidates' ``Misses`` of the tracked contacts."""
    chunk = config.chunk
    b = len(strikes)
    pad = -b % chunk
    index = np.concatenate([np.arange(b), np.full(pad, b - 1)])
    start = np.stack([targets[i].start for i in index])
    cue = np.array([targets[i].cue for i in index], np.int32)
    zero = np.array([targets[i].strike_time for i in index]) + strikes[index, 4]  # the strike, on the clock
    rel = np.stack([targets[i].times for i in index]) - zero[:, None]
    ball = np.stack([targets[i].ball for i in index])
    xy = np.stack([targets[i].xy for i in index])
    near = [targets[i].near or Near.none(targets[i].cue, len(targets[i].start), config) for i in index]
    near_rel = np.stack([n.times for n in near]) - zero[:, None, None]
    other = np.stack([n.other for n in near]).astype(np.int32)
    tracked = np.stack([n.gap for n in near])
    d2 = np.empty(rel.shape)
    gaps = np.empty((len(index), 2))
    for lo in range(0, len(index), chunk):
        part = slice(lo, lo + chunk)
        rows = index[part]
        x = strikes[rows]
        lane_params = jax.tree_util.tree_map(lambda v, rows=rows: v[rows], params) if batched_params else params
        shot = Shot(V0=x[:, 0], phi=x[:, 1], theta=x[:, 5], a=x[:, 2], b=x[:, 3])
        results = simulate_batch(start[part], shot, cue[part], lane_params, batched_params=batched_params)
        arrays = (rel[part], ball[part], xy[part], near_rel[part], cue[part], other[part], tracked[part])
        errors, gap = _squared_errors(results, *map(jnp.asarray, arrays), lane_params, per_lane=batched_params)
        d2[part], gaps[part] = np.asarray(errors), np.asarray(gap)
    used = np.stack([n.used for n in near])[:b]
    misses = Misses(np.where(used, (gaps[:b] - tracked[:b]) ** 2, 0.0), np.where(used, near_rel[:b, :, 0], np.inf))
    return results, d2[:b], rel[:b], misses


def rms(d2, mask, contacts=0.0, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """RMS over the masked samples of each row (m); with ``contacts`` (B,) the squared misses of the
    tracked contacts (``Misses.within``), the search's objective: the mean squared error plus
    ``contact_weight`` times them, square-rooted."""
    n = np.maximum(mask.sum(-1), 1)
    return np.sqrt((d2 * mask).sum(-1) / n + config.contact_weight * contacts)


def final_result(target: Target, strike: np.ndarray, params: Params, config: TrackingConfig = DEFAULT
                 ) -> ShotResult:
    """The simulated shot of one strike."""
    results = simulate([target], strike[None], params, config)[0]
    return jax.tree_util.tree_map(lambda v: v[0], results)


__all__ = ["Misses", "final_result", "rms", "simulate"]
