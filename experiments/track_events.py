"""Contacts seen in a tracked shot, and the shot's outcome read by the referee.

Detection rules (positions linear between samples, ``tracking.Track.at``):
  Cushion contact: a ball's centre comes to within ``CUSHION_NEAR`` of the cushion line (one
    ball radius from the nose) and the velocity component across that cushion reverses there:
    towards it by more than ``MIN_NORMAL_SPEED`` on the segment into the sample, away from it by
    as much on the segment out of it, or on the first segment after a pause of at most ``HELD``
    s at the cushion (segments across the line slower than that, every sample near it). The
    camera may see a ball at the nose twice, or lose the sample of the contact, and a corner's
    second cushion then shows as such a pause (of the 90 match shots, 26 contacts more, 73 % of
    them met by their reconstructions, as are 82 % of the others; two shots, 545743 and 545787,
    become points). Its time is where the segments in and out, run on, meet the line.
  Ball-ball contact: two centres come to within 2 R + ``BALL_NEAR`` of each other (a closest
    approach on a ``GRID`` s time grid) while one of the two changes direction by more than
    ``TURN_DEG`` or starts moving from rest (sample spacing cuts the corner of a rebound, hence
    the tolerances). Also, a ball that starts moving (``Track.moves_at``) was hit by the ball
    nearest to it then, if that one is within 2 R + ``BALL_NEAR`` (slow hits leave too few
    samples to see a turn).

The outcome (``scores_point``) is the referee's reading of an event log (``rules.judge``): a
three-cushion point is the cue ball meeting both object balls with at least three cushion
contacts before it reaches the second one (docs/rules.md C-13.2). The same function reads a
simulated shot, so tracked and simulated outcomes are judged alike.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np

import physics
import rules
from experiments.tracking import LENGTH, MAX_LAG, RADIUS, WIDTH, Track, TrackedShot
from physics.events import Cushion, EventKind, EventLog, ShotResult
from rules import judge

CUSHION_NEAR = 0.03  # m
MIN_NORMAL_SPEED = 0.05  # m/s, above the tracking noise (1 mm per 20 ms)
HELD = 0.05  # s a ball may seem to stay at a cushion between coming in and going out
BALL_NEAR = 0.03  # m
TURN_DEG = 10.0
GRID = 0.005  # s
LOOK = 0.04  # s before and after a ball-ball contact over which a direction is measured
MIN_SPEED = 0.05  # m/s, a ball below it is at rest for ``TURN_DEG``
CAPACITY = 64  # events in a tracked shot's log

# Cushion line of each cushion (physics.Cushion order): axis, line coordinate, outward sign.
LINES = {
    Cushion.BOTTOM: (0, RADIUS, -1.0), Cushion.TOP: (0, LENGTH - RADIUS, 1.0),
    Cushion.RIGHT: (1, RADIUS, -1.0), Cushion.LEFT: (1, WIDTH - RADIUS, 1.0),
}


@dataclasses.dataclass(frozen=True)
class Contact:
    """A contact seen in the tracks. kind: "cushion" or "ball"; balls: (ball, other) indices,
    other -1 for a cushion and ball < other for a ball-ball contact; cushion: a ``Cushion`` or -1."""

    t: float
    kind: str
    balls: tuple[int, int]
    cushion: int = -1


def cushion_contacts(track: Track, ball: int) -> list[Contact]:
    """The cushion contacts of one ball (rule in the module docstring)."""
    t, xy = track.t, track.xy
    out = []
    for cushion, (axis, line, sign) in LINES.items():
        gap = sign * (line - xy[:, axis])  # >= 0 inside the line
        speed = -np.diff(gap) / np.diff(t)  # > 0 towards the cushion
        for i in range(1, len(t) - 1):
            if gap[i] > CUSHION_NEAR or speed[i - 1] <= MIN_NORMAL_SPEED:
                continue
            j = i  # the segment out of the cushion, after any held at it for at most HELD s
            while (j < len(t) - 2 and t[j + 1] - t[i] <= HELD and abs(speed[j]) <= MIN_NORMAL_SPEED
                   and gap[j + 1] <= CUSHION_NEAR):
                j += 1
            if speed[j] < -MIN_NORMAL_SPEED:
                t_in = np.clip(t[i - 1] + gap[i - 1] / speed[i - 1], t[i - 1], t[j + 1])
                t_out = np.clip(t[j + 1] + gap[j + 1] / speed[j], t[i - 1], t[j + 1])
                out.append(Contact(float(0.5 * (t_in + t_out)), "cushion", (ball, -1), int(cushion)))
    return out


def _velocity(track: Track, t0, t1) -> np.ndarray:
    p = track.at([t0, t1])
    return (p[1] - p[0]) / (t1 - t0)


def _turns(track: Track, t) -> bool:
    """The ball changes direction (or starts moving) at time t."""
    before, after = _velocity(track, t - LOOK, t), _velocity(track, t, t + LOOK)
    s0, s1 = np.linalg.norm(before), np.linalg.norm(after)
    if s0 < MIN_SPEED:
        return bool(s1 >= 2 * MIN_SPEED)
    if s1 < MIN_SPEED:
        return True
    cos = np.dot(before, after) / (s0 * s1)
    return bool(cos < np.cos(np.radians(TURN_DEG)))


def _starts(shot: TrackedShot, grid, pos) -> list[Contact]:
    """A ball at rest moves only when hit: the nearest other ball around ``moves_at`` is the one
    that hit it, when within 2 R + ``BALL_NEAR`` (the cue ball starts from the strike)."""
    out = []
    for b, track in enumerate(shot.tracks):
        if b == shot.cue or not np.isfinite(track.moves_at):
            continue
        window = np.abs(grid - track.moves_at) <= MAX_LAG
        if not window.any():
            continue
        d = np.linalg.norm(pos[window] - pos[window, b][:, None], axis=2)
        d[:, b] = np.inf
        i, a = np.unravel_index(np.argmin(d), d.shape)
        if d[i, a] <= 2 * RADIUS + BALL_NEAR:
            out.append(Contact(float(grid[window][i]), "ball", (int(min(a, b)), int(max(a, b)))))
    return out


def ball_contacts(shot: TrackedShot) -> list[Contact]:
    """The ball-ball contacts of a shot (rules in the module docstring)."""
    grid = np.arange(shot.strike_time, shot.end_time, GRID)
    pos = shot.at(grid)
    out = _starts(shot, grid, pos)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        d = np.linalg.norm(pos[:, a] - pos[:, b], axis=1)
        near = d <= 2 * RADIUS + BALL_NEAR
        for i in np.flatnonzero(near[1:-1]) + 1:
            seen = any(c.balls == (a, b) and abs(c.t - grid[i]) <= 2 * LOOK for c in out)
            closest = d[i] <= d[i - 1] and d[i] < d[i + 1]
            if closest and not seen and (_turns(shot.tracks[a], grid[i]) or _turns(shot.tracks[b], grid[i])):
                out.append(Contact(float(grid[i]), "ball", (a, b)))
    return sorted(out, key=lambda c: c.t)


def contacts(shot: TrackedShot) -> list[Contact]:
    """Every contact seen in the shot, in time order."""
    found = ball_contacts(shot)
    for ball, track in enumerate(shot.tracks):
        found += cushion_contacts(track, ball)
    return sorted(found, key=lambda c: c.t)


def event_log(shot: TrackedShot, found: list[Contact] | None = None) -> ShotResult:
    """The shot as a physics event log (times from the strike): the cue strike, then the contacts."""
    found = contacts(shot) if found is None else found
    kinds = [EventKind.CUE_STRIKE]
    kinds += [EventKind.BALL_BALL if c.kind == "ball" else EventKind.BALL_CUSHION for c in found]
    if len(kinds) > CAPACITY:
        raise ValueError(f"shot {shot.shot_id}: {len(kinds)} events do not fit the log ({CAPACITY})")
    k = len(kinds)
    pad = CAPACITY - k
    times = np.array([0.0] + [c.t - shot.strike_time for c in found] + [np.inf] * pad)
    balls = np.array([(shot.cue, -1)] + [c.balls for c in found] + [(-1, -1)] * pad, np.int8)
    end = shot.at([shot.end_time])[0]
    log = EventLog(
        kind=np.array(kinds + [EventKind.NONE] * pad, np.int8), time=times, balls=balls,
        cushion=np.array([-1] + [c.cushion for c in found] + [-1] * pad, np.int8),
        positions=np.broadcast_to(end, (CAPACITY, 3, 2)).copy(), velocities=np.zeros((CAPACITY, 3, 2)),
        spins=np.zeros((CAPACITY, 3, 3)), motion=np.zeros((CAPACITY, 3), np.int8),
    )
    return ShotResult(
        events=log, num_events=np.asarray(k, np.int32), overflow=np.asarray(False), status=np.asarray(0, np.int32),
        final_positions=end, final_time=np.asarray(shot.end_time - shot.strike_time), on_table=np.ones(3, bool),
        pin_present=np.asarray(False), pin_down=np.asarray(False), pin_position=np.zeros(2),
        pin_knocked_by=np.asarray(-1, np.int8), dropped=np.asarray(0, np.int32),
        dropped_span=np.stack([np.full((3, 2), np.inf), np.full((3, 2), -np.inf)], axis=1),
    )


@lru_cache(maxsize=1)
def _three_cushion():
    return rules.make_rules("three_cushion"), physics.default_params()


@jax.jit
def _point(game, params, result: ShotResult, start, cue):
    facts = judge.read(game, params, start, cue, result)
    # docs/rules.md C-13.2: both object balls, three cushions before the second.
    return facts.carom & (facts.cushions_before_carom >= game.cushions_required), facts.cushions_before_carom


def scores_point(result: ShotResult, start, cue) -> bool:
    """Whether a shot (tracked: ``event_log``; or simulated) makes a three-cushion point, C-13.2."""
    result = jax.tree_util.tree_map(jnp.asarray, result)
    point, _ = _point(*_three_cushion(), result, jnp.asarray(start, jnp.float64), jnp.asarray(cue, jnp.int32))
    return bool(point)


__all__ = ["LINES", "Contact", "ball_contacts", "contacts", "cushion_contacts", "event_log", "scores_point"]
