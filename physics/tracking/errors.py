"""How a reconstructed shot misses its track, beyond the RMS: the path's shape, and the error split
along and across the simulated path.

``path_distance`` is time-free: each tracked sample to the nearest point of its ball's simulated
path and each simulated point to the nearest tracked sample, RMS of both, so a shot that follows
its track late still scores well. ``along_across`` splits each sample's error along the
simulated ball's travel (a timing or speed error) and across it (a direction error), which tells
where the reconstructions of the match shots miss (docs/physics.md section 10).
"""
from __future__ import annotations

import numpy as np

from physics.events import ShotResult
from physics.params import Params
from physics.replay import positions_at
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.tracks import TrackedShot


def to_polyline(points: np.ndarray, line: np.ndarray) -> np.ndarray:
    """(m,) distance of each point to the nearest point of a polyline (k, 2)."""
    if len(line) == 1:
        return np.linalg.norm(points - line[0], axis=1)
    a, b = line[:-1], line[1:]
    ab = b - a
    u = np.einsum("mkd,kd->mk", points[:, None] - a[None], ab) / np.maximum(np.sum(ab**2, axis=1), 1e-18)
    near = a[None] + np.clip(u, 0.0, 1.0)[..., None] * ab[None]
    return np.min(np.linalg.norm(points[:, None] - near, axis=-1), axis=1)


def path_distance(shot: TrackedShot, result: ShotResult, dt: float, params: Params, step: float = 0.01,
                  config: TrackingConfig = DEFAULT) -> float:
    """Time-free path-shape distance (m): the RMS, over both directions, of the distance from a
    point of one path (tracked samples; the simulated path every ``step`` s) to the other path
    (a polyline through its points), per ball, over the balls that move (by ``moved``) in either."""
    t_end = shot.end_time - shot.strike_time - dt
    sim = np.asarray(positions_at(result, np.arange(0.0, t_end, step), params))
    parts = []
    for k, tr in enumerate(shot.tracks):
        a, b = tr.xy, sim[:, k]
        if np.ptp(a, axis=0).max() < config.moved and np.ptp(b, axis=0).max() < config.moved:
            continue
        parts += [to_polyline(a, b) ** 2, to_polyline(b, a) ** 2]
    return float(np.sqrt(np.mean(np.concatenate(parts)))) if parts else 0.0


def along_across(before: np.ndarray, after: np.ndarray, sim: np.ndarray, xy: np.ndarray,
                 config: TrackingConfig = DEFAULT):
    """Each tracked sample's error (``xy`` - ``sim``, (N, 2)) split along and across the simulated
    ball's travel there, the chord from ``before`` to ``after`` (its positions ``split_step`` s
    either side): (along, across, moving), metres; along > 0: the track is ahead of the simulation
    (a timing or speed error), across > 0: left of its path (a direction error); moving: the
    simulated ball is faster than ``moving`` (elsewhere both parts are 0)."""
    step = config.split_step
    chord = np.asarray(after) - np.asarray(before)
    length = np.linalg.norm(chord, axis=-1)
    moving = length > config.moving * 2 * step
    u = chord / np.where(moving, length, 1.0)[..., None]
    e = np.asarray(xy) - np.asarray(sim)
    along = np.where(moving, np.sum(e * u, axis=-1), 0.0)
    across = np.where(moving, u[..., 0] * e[..., 1] - u[..., 1] * e[..., 0], 0.0)
    return along, across, moving


__all__ = ["along_across", "path_distance", "to_polyline"]
