"""A tracked shot as the fixed-size arrays a strike search scores candidates against.

``Target`` holds every sample of every ball (padded to ``TrackingConfig.samples``, so that one
compiled simulation serves every shot) and ``Near``, the cue ball's contacts with the two object
balls as the tracks show them: its first contact with each, or its closest pass of one it misses
by less than ``near_range`` (10 cm), asked of the simulation as a gap around that time (a hit is
a gap of 0). Those gaps decide a point (docs/rules.md C-13.2) where the camera's samples, 40 ms
apart, put a centimetre's miss at almost no cost in RMS (docs/physics.md section 6).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.events import ball_contacts
from physics.tracking.tracks import TrackedShot


@dataclasses.dataclass(frozen=True)
class Near:
    """The cue ball's contacts with the two object balls as the tracks show them (``contact_weight``).
    other: (2,) the object balls; times: (2, near_samples) the window around the first contact
    (or the closest approach) on the recording's clock; gap: (2,) the tracked gap there (m, 0 for a
    contact); used: (2,) bool, False for a ball the cue ball passes farther than ``near_range``."""

    other: np.ndarray
    times: np.ndarray
    gap: np.ndarray
    used: np.ndarray

    @classmethod
    def of(cls, shot: TrackedShot, config: TrackingConfig = DEFAULT) -> "Near":
        if not np.isfinite(shot.strike_time) or not shot.end_time > shot.strike_time:
            return cls.none(shot.cue, len(shot.tracks), config)  # nothing moves: no contact to ask for
        grid = np.arange(shot.strike_time, shot.end_time, config.grid)
        pos = shot.at(grid)
        first = {c.balls: c.t for c in reversed(ball_contacts(shot, config))}
        other = _object_balls(shot.cue, len(shot.tracks))
        at, gap = np.empty(2), np.empty(2)
        for k, b in enumerate(other):
            pair = (min(b, shot.cue), max(b, shot.cue))
            if pair in first:
                at[k], gap[k] = first[pair], 0.0
            else:
                d = np.linalg.norm(pos[:, b] - pos[:, shot.cue], axis=1) - 2 * config.radius
                i = int(np.argmin(d))
                at[k], gap[k] = grid[i], max(float(d[i]), 0.0)
        samples = config.near_samples
        offsets = config.near_step * (np.arange(samples) - samples // 2)
        return cls(other, at[:, None] + offsets, gap, gap <= config.near_range)

    @classmethod
    def none(cls, cue: int, balls: int = 3, config: TrackingConfig = DEFAULT) -> "Near":
        """No constraint."""
        return cls(_object_balls(cue, balls), np.zeros((2, config.near_samples)), np.zeros(2), np.zeros(2, bool))


@dataclasses.dataclass(frozen=True)
class Target:
    """A tracked shot as fixed-size arrays. times: (samples,) s from the recording's start;
    ball: (samples,) which ball; xy: (samples, 2); used: (samples,) bool, False on padding."""

    shot_id: int
    start: np.ndarray
    cue: int
    strike_time: float
    times: np.ndarray
    ball: np.ndarray
    xy: np.ndarray
    used: np.ndarray
    near: Optional[Near] = None

    @classmethod
    def of(cls, shot: TrackedShot, config: TrackingConfig = DEFAULT) -> "Target":
        samples = config.samples
        t = np.concatenate([tr.t for tr in shot.tracks])
        ball = np.concatenate([np.full(len(tr.t), k) for k, tr in enumerate(shot.tracks)])
        xy = np.concatenate([tr.xy for tr in shot.tracks])
        if len(t) > samples:
            keep = np.linspace(0, len(t) - 1, samples).round().astype(int)
            t, ball, xy = t[keep], ball[keep], xy[keep]
        pad = samples - len(t)
        return cls(
            shot.shot_id, separated(shot.start, config=config), shot.cue, shot.strike_time,
            np.concatenate([t, np.full(pad, t[-1])]), np.concatenate([ball, np.zeros(pad, int)]),
            np.concatenate([xy, np.zeros((pad, 2))]), np.arange(samples) < len(t), Near.of(shot, config),
        )


def _object_balls(cue: int, balls: int) -> np.ndarray:
    """(2,) the two balls other than the cue ball, in index order."""
    return np.array([b for b in range(balls) if b != cue][:2])


def separated(start, gap: float = 1e-6, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(3, 2) start layout with balls that the tracking puts closer than 2 R pushed apart along
    their line of centres (the simulation refuses overlapping balls)."""
    r = np.array(start, float)
    radius = config.radius
    for i, j in ((0, 1), (0, 2), (1, 2)):
        d = r[j] - r[i]
        dist = np.linalg.norm(d)
        if dist < 2 * radius + gap:
            push = 0.5 * (2 * radius + gap - dist) * d / max(dist, 1e-9)
            r[i] -= push
            r[j] += push
    return r


__all__ = ["Near", "Target", "separated"]
