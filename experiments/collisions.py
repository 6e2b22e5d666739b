"""Ball-ball hits on a ball at rest, measured alike in tracked and simulated shots: cut angle,
throw and the struck ball's speed, for comparing the ball-ball model with real play.

A hit is read from positions on either side of it, skipping ``GAP`` s next to it (sampled tracks
smear the contact) and averaging over ``SPAN`` s, by the same function for a track
(``Track.at``) and a simulated path (``physics.positions_at``):

- the line of centres: where the striking ball's incoming line first comes to 2 R from the
  struck ball's resting centre;
- the cut angle: between the striking ball's incoming direction and the line of centres (0: a
  full hit);
- the throw: the angle from the line of centres to the struck ball's direction, positive towards
  the striking ball's direction of travel (friction between the balls drags the struck ball
  that way, docs/physics.md section 2);
- the speed ratio: the struck ball's speed at the hit (its measured speed plus the sliding
  slowdown u_s g over the time to the middle of its window; it leaves without spin, so it
  slides) over the striking ball's normal speed, |v| cos(cut). Frictionless balls give (1 + e_b) / 2.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

import physics
from experiments.rebounds import binned_medians
from experiments.track_events import ball_contacts
from experiments.tracking import RADIUS, TrackedShot
from physics.events import EventKind, Motion

GAP = 0.02  # s
SPAN = 0.04  # s
MIN_SPEED = 0.3  # m/s: slower striking balls are left out (their angles are noise)
MIN_STRUCK = 0.1  # m/s: as slow a struck ball is left out
# m/s^2, the struck ball's sliding slowdown: the reference set's u_s g, fixed so that tracks and
# simulations are read alike (the tracked set's u_s of 0.225 would add 0.01 m/s to a struck ball)
SLIDE = 0.2 * 9.81
COLUMNS = ("cut", "throw", "speed_ratio")


def hit(striker: Callable[[np.ndarray], np.ndarray], rest: np.ndarray, struck: Callable[[np.ndarray], np.ndarray],
        t: float) -> np.ndarray | None:
    """(cut, throw, speed ratio) of a hit at time t on the ball lying at ``rest`` (2,), or None
    where either ball is too slow or the incoming line misses. striker/struck(times) -> (len, 2)."""
    p = striker(np.array([t - GAP - SPAN, t - GAP]))
    v_in = (p[1] - p[0]) / SPAN
    speed = np.linalg.norm(v_in)
    if speed < MIN_SPEED:
        return None
    u = v_in / speed
    d = p[1] - rest
    half_b, c = np.dot(d, u), np.dot(d, d) - (2 * RADIUS) ** 2
    if half_b * half_b - c < 0:
        return None
    centre = p[1] + (-half_b - np.sqrt(half_b * half_b - c)) * u
    n = (rest - centre) / (2 * RADIUS)
    cos_cut = float(np.clip(np.dot(u, n), -1.0, 1.0))
    q = struck(np.array([t + GAP, t + GAP + SPAN]))
    v_out = (q[1] - q[0]) / SPAN
    out = np.linalg.norm(v_out)
    if out < MIN_STRUCK or cos_cut <= 0:
        return None
    towards = np.sign(n[0] * u[1] - n[1] * u[0])  # the side of the line of centres the striker passes
    throw = towards * np.degrees(np.arctan2(n[0] * v_out[1] - n[1] * v_out[0], np.dot(n, v_out)))
    ratio = (out + SLIDE * (GAP + SPAN / 2)) / (speed * cos_cut)
    return np.array([np.degrees(np.arccos(cos_cut)), throw, ratio])


def tracked(shot: TrackedShot) -> np.ndarray:
    """(k, 3) the ``COLUMNS`` of every hit in a tracked shot on a ball that lay at rest (it starts
    moving at the contact, ``Track.moves_at`` within 50 ms) by a ball already rolling."""
    rows = []
    for c in ball_contacts(shot):
        for striker, struck in (c.balls, c.balls[::-1]):
            s, o = shot.tracks[striker], shot.tracks[struck]
            if abs(o.moves_at - c.t) < 0.05 and s.moves_at < c.t - GAP - SPAN:
                row = hit(s.at, o.xy[0], o.at, c.t)
                if row is not None:
                    rows.append(row)
    return np.array(rows).reshape(-1, 3)


def simulated(result: physics.ShotResult, params: physics.Params, t_end: float) -> np.ndarray:
    """(k, 3) the ``COLUMNS`` of every hit on a ball at rest in a simulated shot (before t_end s)."""
    events = physics.event_list(result)
    rows = []
    for before, e in zip(events, events[1:]):
        if e["kind"] != EventKind.BALL_BALL.name.lower() or e["t"] > t_end:
            continue
        still = [b for b in e["balls"] if before["motion"][b] == Motion.STATIONARY.name.lower()]
        if len(still) != 1:
            continue
        struck = still[0]
        striker = e["balls"][0] if e["balls"][1] == struck else e["balls"][1]

        def where(ts, ball):
            return np.asarray(physics.positions_at(result, np.maximum(ts, 0.0), params))[:, ball]

        row = hit(partial(where, ball=striker), np.asarray(before["positions"][struck]),
                  partial(where, ball=struck), e["t"])
        if row is not None:
            rows.append(row)
    return np.array(rows).reshape(-1, 3)


def by_cut(rows: np.ndarray, edges=(0, 20, 35, 50, 65, 90)) -> list[dict]:
    """Medians of throw and speed ratio per cut-angle bin (``rebounds.binned_medians``)."""
    return binned_medians(rows, COLUMNS, edges)


__all__ = ["COLUMNS", "by_cut", "hit", "simulated", "tracked"]
