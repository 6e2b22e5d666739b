"""The cue ball's start, read alike from a track and a simulated path: how fast it slows on its
first straight stretch after the strike.

A ball struck without the spin of natural roll slides at first and slows by u_s g (about 2 m/s^2);
a ball struck with natural roll (tip offset b near 2/5 R) rolls from the start and slows by only
u_r g (about 0.05 m/s^2); a start slowing less than ``rolling`` counts as rolling. The first
straight stretch of a track shows which (docs/physics.md section 10): its speeds, sample to
sample, until the direction turns by more than ``stretch_turn`` or the speed jumps (a contact),
with a straight line fitted to speed against time.

Reading a simulated path at the track's own sample times (``simulated``) makes the two readings
alike, so that a reconstruction can be checked on its start as well as on its whole path.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from physics.events import ShotResult
from physics.params import Params
from physics.replay import positions_at
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.tracks import TrackedShot

COLUMNS = ("deceleration", "speed", "duration")


def first_stretch(t: np.ndarray, xy: np.ndarray, config: TrackingConfig = DEFAULT) -> Optional[np.ndarray]:
    """(deceleration m/s^2, first speed m/s, duration s) of the first straight stretch of a path
    sampled at times t (k,) at positions xy (k, 2), or None where it is shorter than
    ``stretch_steps`` steps."""
    step = np.diff(xy, axis=0) / np.diff(t)[:, None]
    speed = np.linalg.norm(step, axis=1)
    heading = np.degrees(np.arctan2(step[:, 1], step[:, 0]))
    k = 1
    while (k < len(speed) and abs((heading[k] - heading[0] + 180.0) % 360.0 - 180.0) < config.stretch_turn
           and speed[k] < config.stretch_jump * speed[k - 1] + config.stretch_slack):
        k += 1
    if k < config.stretch_steps:
        return None
    mid = 0.5 * (t[:k] + t[1:k + 1])
    slope = np.polyfit(mid, speed[:k], 1)[0]
    return np.array([-slope, speed[0], t[k] - t[0]])


def tracked(shot: TrackedShot, strike_time: float = 0.0, config: TrackingConfig = DEFAULT) -> Optional[np.ndarray]:
    """The ``COLUMNS`` of a tracked shot's cue ball after its strike (``shot.strike_time`` plus
    ``strike_time``, a reconstruction's correction), or None."""
    t, xy = _after_strike(shot, strike_time)
    return first_stretch(t, xy, config)


def simulated(shot: TrackedShot, result: ShotResult, params: Params, strike_time: float = 0.0,
              config: TrackingConfig = DEFAULT) -> Optional[np.ndarray]:
    """The ``COLUMNS`` of a simulated shot's cue ball (``result``, struck at the tracked strike
    time plus ``strike_time``), read at the track's own sample times, or None."""
    t, _ = _after_strike(shot, strike_time)
    xy = np.asarray(positions_at(result, t, params))[:, shot.cue]
    return first_stretch(t, xy, config)


def _after_strike(shot: TrackedShot, strike_time: float) -> tuple[np.ndarray, np.ndarray]:
    track = shot.tracks[shot.cue]
    t = track.t - shot.strike_time - strike_time
    after = t > 0.0
    return t[after], track.xy[after]


__all__ = ["COLUMNS", "first_stretch", "simulated", "tracked"]
