"""Contacts seen in a tracked shot, and the shot as a physics event log.

Detection rules (positions linear between samples, ``Track.at``; settings of ``TrackingConfig``):
  Cushion contact: a ball's centre comes to within ``cushion_near`` of the cushion line (one
    ball radius from the nose) and the velocity component across that cushion reverses there:
    towards it by more than ``min_normal_speed`` on the segment into the sample, away from it by
    as much on the segment out of it, or on the first segment after a pause of at most ``held``
    s at the cushion (segments across the line slower than that, every sample near it). The
    camera may see a ball at the nose twice, or lose the sample of the contact, and a corner's
    second cushion then shows as such a pause (docs/physics.md section 6). Its time is where the
    segments in and out, run on, meet the line.
  Ball-ball contact: two centres come to within 2 R + ``ball_near`` of each other (a closest
    approach on a ``grid`` s time grid) while one of the two changes direction by more than
    ``turn_deg`` or starts moving from rest (sample spacing cuts the corner of a rebound, hence
    the tolerances). Also, a ball that starts moving (``Track.moves_at``) was hit by the ball
    nearest to it then, if that one is within 2 R + ``ball_near`` (slow hits leave too few
    samples to see a turn).

``event_log`` writes the contacts as a ``physics.ShotResult``, so that the referee reads a
tracked shot as it reads a simulated one (``rules.point.scores_point``, docs/rules.md C-13.2).
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from physics.events import Cushion, EventKind, EventLog, ShotResult
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.tracks import Track, TrackedShot


def cushion_lines(config: TrackingConfig = DEFAULT) -> dict[Cushion, tuple[int, float, float]]:
    """The cushion line of each cushion (``Cushion`` order): axis, line coordinate, outward sign."""
    r = config.radius
    return {
        Cushion.BOTTOM: (0, r, -1.0), Cushion.TOP: (0, config.length - r, 1.0),
        Cushion.RIGHT: (1, r, -1.0), Cushion.LEFT: (1, config.width - r, 1.0),
    }


@dataclasses.dataclass(frozen=True)
class Contact:
    """A contact seen in the tracks. kind: "cushion" or "ball"; balls: (ball, other) indices,
    other -1 for a cushion and ball < other for a ball-ball contact; cushion: a ``Cushion`` or -1."""

    t: float
    kind: str
    balls: tuple[int, int]
    cushion: int = -1


def cushion_contacts(track: Track, ball: int, config: TrackingConfig = DEFAULT) -> list[Contact]:
    """The cushion contacts of one ball (rule in the module docstring)."""
    t, xy = track.t, track.xy
    out = []
    for cushion, (axis, line, sign) in cushion_lines(config).items():
        gap = sign * (line - xy[:, axis])  # >= 0 inside the line
        speed = -np.diff(gap) / np.diff(t)  # > 0 towards the cushion
        for i in range(1, len(t) - 1):
            if gap[i] > config.cushion_near or speed[i - 1] <= config.min_normal_speed:
                continue
            j = i  # the segment out of the cushion, after any held at it for at most ``held`` s
            while (j < len(t) - 2 and t[j + 1] - t[i] <= config.held and abs(speed[j]) <= config.min_normal_speed
                   and gap[j + 1] <= config.cushion_near):
                j += 1
            if speed[j] < -config.min_normal_speed:
                t_in = np.clip(t[i - 1] + gap[i - 1] / speed[i - 1], t[i - 1], t[j + 1])
                t_out = np.clip(t[j + 1] + gap[j + 1] / speed[j], t[i - 1], t[j + 1])
                out.append(Contact(float(0.5 * (t_in + t_out)), "cushion", (ball, -1), int(cushion)))
    return out


def _velocity(track: Track, t0, t1) -> np.ndarray:
    p = track.at([t0, t1])
    return (p[1] - p[0]) / (t1 - t0)


def _turns(track: Track, t, config: TrackingConfig) -> bool:
    """The ball changes direction (or starts moving) at time t."""
    before, after = _velocity(track, t - config.look, t), _velocity(track, t, t + config.look)
    s0, s1 = np.linalg.norm(before), np.linalg.norm(after)
    if s0 < config.rest_speed:
        return bool(s1 >= 2 * config.rest_speed)
    if s1 < config.rest_speed:
        return True
    cos = np.dot(before, after) / (s0 * s1)
    return bool(cos < np.cos(np.radians(config.turn_deg)))


def _starts(shot: TrackedShot, grid, pos, config: TrackingConfig) -> list[Contact]:
    """A ball at rest moves only when hit: the nearest other ball around ``moves_at`` is the one
    that hit it, when within 2 R + ``ball_near`` (the cue ball starts from the strike)."""
    out = []
    for b, track in enumerate(shot.tracks):
        if b == shot.cue or not np.isfinite(track.moves_at):
            continue
        window = np.abs(grid - track.moves_at) <= config.max_lag
        if not window.any():
            continue
        d = np.linalg.norm(pos[window] - pos[window, b][:, None], axis=2)
        d[:, b] = np.inf
        i, a = (int(k) for k in np.unravel_index(np.argmin(d), d.shape))
        if d[i, a] <= 2 * config.radius + config.ball_near:
            out.append(Contact(float(grid[window][i]), "ball", (min(a, b), max(a, b))))
    return out


def ball_contacts(shot: TrackedShot, config: TrackingConfig = DEFAULT) -> list[Contact]:
    """The ball-ball contacts of a shot (rules in the module docstring)."""
    grid = np.arange(shot.strike_time, shot.end_time, config.grid)
    pos = shot.at(grid)
    out = _starts(shot, grid, pos, config)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        d = np.linalg.norm(pos[:, a] - pos[:, b], axis=1)
        near = d <= 2 * config.radius + config.ball_near
        for i in np.flatnonzero(near[1:-1]) + 1:
            seen = any(c.balls == (a, b) and abs(c.t - grid[i]) <= 2 * config.look for c in out)
            closest = d[i] <= d[i - 1] and d[i] < d[i + 1]
            if closest and not seen and (_turns(shot.tracks[a], grid[i], config)
                                         or _turns(shot.tracks[b], grid[i], config)):
                out.append(Contact(float(grid[i]), "ball", (a, b)))
    return sorted(out, key=lambda c: c.t)


def contacts(shot: TrackedShot, config: TrackingConfig = DEFAULT) -> list[Contact]:
    """Every contact seen in the shot, in time order."""
    found = ball_contacts(shot, config)
    for ball, track in enumerate(shot.tracks):
        found += cushion_contacts(track, ball, config)
    return sorted(found, key=lambda c: c.t)


def event_log(shot: TrackedShot, found: list[Contact] | None = None, config: TrackingConfig = DEFAULT
              ) -> ShotResult:
    """The shot as a physics event log (times from the strike): the cue strike, then the contacts
    (``found``, by default ``contacts``)."""
    found = contacts(shot, config) if found is None else found
    capacity = config.capacity
    kinds = [EventKind.CUE_STRIKE]
    kinds += [EventKind.BALL_BALL if c.kind == "ball" else EventKind.BALL_CUSHION for c in found]
    if len(kinds) > capacity:
        raise ValueError(f"shot {shot.shot_id}: {len(kinds)} events do not fit the log ({capacity})")
    k = len(kinds)
    pad = capacity - k
    times = np.array([0.0] + [c.t - shot.strike_time for c in found] + [np.inf] * pad)
    balls = np.array([(shot.cue, -1)] + [c.balls for c in found] + [(-1, -1)] * pad, np.int8)
    end = shot.at([shot.end_time])[0]
    # NumPy leaves: a pytree of host arrays, which the referee reads as it reads a simulated log.
    log: dict[str, Any] = dict(
        kind=np.array(kinds + [EventKind.NONE] * pad, np.int8), time=times, balls=balls,
        cushion=np.array([-1] + [c.cushion for c in found] + [-1] * pad, np.int8),
        positions=np.broadcast_to(end, (capacity, 3, 2)).copy(), velocities=np.zeros((capacity, 3, 2)),
        spins=np.zeros((capacity, 3, 3)), motion=np.zeros((capacity, 3), np.int8),
    )
    summary: dict[str, Any] = dict(
        num_events=np.asarray(k, np.int32), overflow=np.asarray(False), status=np.asarray(0, np.int32),
        final_positions=end, final_time=np.asarray(shot.end_time - shot.strike_time), on_table=np.ones(3, bool),
        pin_present=np.asarray(False), pin_down=np.asarray(False), pin_position=np.zeros(2),
        pin_knocked_by=np.asarray(-1, np.int8), dropped=np.asarray(0, np.int32),
        dropped_span=np.stack([np.full((3, 2), np.inf), np.full((3, 2), -np.inf)], axis=1),
    )
    return ShotResult(events=EventLog(**log), **summary)


__all__ = ["Contact", "ball_contacts", "contacts", "cushion_contacts", "cushion_lines", "event_log"]
