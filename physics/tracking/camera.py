"""Simulated shots recorded as the camera records real ones.

``sampled`` makes a tracked shot from a known strike (every ball sampled every ``step`` s, a ball
at rest once and then from when it moves, like the recording), for checking that the strike
search finds the strike again. ``sampled_like`` reads a simulated shot at its track's own sample
times, so that tracked and simulated shots are measured alike: the tracks are sampled every 20 to
180 ms, and between samples the read path cuts the corner of a rebound (docs/physics.md section
10).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from physics.events import ShotResult
from physics.params import Params
from physics.replay import positions_at
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.objective import final_result
from physics.tracking.target import Target
from physics.tracking.tracks import Track, TrackedShot


def sampled(start, strike: np.ndarray, params: Params, config: TrackingConfig = DEFAULT, *, shot_id: int = 0,
            cue: int = 0, step: float = 0.02, lead: float = 0.01, theta: float = 0.0) -> TrackedShot:
    """A tracked shot made by the physics: the strike (V0, phi, a, b; elevation theta) from ``start`` (3, 2),
    every ball sampled every ``step`` s like the camera (a ball at rest once, then from when it
    moves), the strike ``lead`` s after the recording starts."""
    target = Target.of(TrackedShot(shot_id, tuple(
        Track(np.array([0.0, 1.0]), np.repeat(np.asarray(p, float)[None], 2, 0), config=config) for p in start)),
        config)
    target = dataclasses.replace(target, cue=cue, strike_time=0.0)
    result = final_result(target, np.concatenate([np.asarray(strike, float)[:4], [0.0, theta]]), params, config)
    t = np.arange(0.0, float(result.final_time) + step, step)
    paths = np.asarray(positions_at(result, t, params))
    tracks = []
    for k in range(len(start)):
        moving = np.linalg.norm(paths[:, k] - paths[0, k], axis=1) > 1e-4
        keep = moving | (np.arange(len(t)) == 0) | (np.arange(len(t)) == len(t) - 1)
        tracks.append(Track(t[keep] + lead, paths[keep, k], config=config))
    return TrackedShot(shot_id, tuple(tracks))


def sampled_like(shot: TrackedShot, result: ShotResult, params: Params, delay: float) -> TrackedShot:
    """The simulated shot as its track would record it: each ball's simulated centre at that
    ball's own sample times (read under the track's own config). ``delay``: when the simulated
    strike happens on the recording's clock."""
    tracks = []
    for k, track in enumerate(shot.tracks):
        xy = np.asarray(positions_at(result, np.maximum(track.t - delay, 0.0), params))[:, k]
        tracks.append(Track(track.t, xy, config=track.config))
    return TrackedShot(shot.shot_id, tuple(tracks))


__all__ = ["sampled", "sampled_like"]
