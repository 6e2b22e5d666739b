"""Ball-ball hits on a ball at rest, measured alike in tracked and simulated shots: cut angle,
throw and the struck ball's speed, for comparing the ball-ball model with real play.

A hit is read from positions on either side of it, skipping ``read_gap`` s next to it (sampled
tracks smear the contact) and averaging over ``read_span`` s, by the same function for a track
(``Track.at``) and a simulated path (``physics.positions_at``):

- the line of centres: where the striking ball's incoming line first comes to 2 R from the
  struck ball's resting centre;
- the cut angle: between the striking ball's incoming direction and the line of centres (0: a
  full hit);
- the throw: the angle from the line of centres to the struck ball's direction, positive towards
  the striking ball's direction of travel (friction between the balls drags the struck ball
  that way, docs/physics.md section 2);
- the speed ratio: the struck ball's speed at the hit (its measured speed plus the sliding
  slowdown ``slide`` over the time to the middle of its window; it leaves without spin, so it
  slides) over the striking ball's normal speed, |v| cos(cut). Frictionless balls give (1 + e_b) / 2.

``slowdown`` follows a struck ball further: its measured speed over the striker's normal speed in
successive windows (``windows``) while it runs straight, which tells a ball that leaves slower
from one that slows down faster (docs/physics.md section 10).
"""
from __future__ import annotations

from functools import partial
from typing import Callable, Iterator

import numpy as np

from physics.events import EventKind, Motion, ShotResult
from physics.params import Params
from physics.replay import event_list, positions_at
from physics.tracking.bins import binned_medians
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.events import ball_contacts
from physics.tracking.tracks import TrackedShot

COLUMNS = ("cut", "throw", "speed_ratio")
Positions = Callable[[np.ndarray], np.ndarray]  # times (k,) -> centres (k, 2)


def hit(striker: Positions, rest: np.ndarray, struck: Positions, t: float, config: TrackingConfig = DEFAULT
        ) -> np.ndarray | None:
    """(cut, throw, speed ratio) of a hit at time t on the ball lying at ``rest`` (2,), or None
    where either ball is too slow or the incoming line misses. striker/struck(times) -> (len, 2)."""
    incoming = _incoming(striker, rest, t, config)
    if incoming is None:
        return None
    u, speed, n = incoming
    gap, span = config.read_gap, config.read_span
    cos_cut = float(np.clip(np.dot(u, n), -1.0, 1.0))
    q = struck(np.array([t + gap, t + gap + span]))
    v_out = (q[1] - q[0]) / span
    out = np.linalg.norm(v_out)
    if out < config.min_struck or cos_cut <= 0:
        return None
    towards = np.sign(n[0] * u[1] - n[1] * u[0])  # the side of the line of centres the striker passes
    throw = towards * np.degrees(np.arctan2(n[0] * v_out[1] - n[1] * v_out[0], np.dot(n, v_out)))
    ratio = (out + config.slide * (gap + span / 2)) / (speed * cos_cut)
    return np.array([np.degrees(np.arccos(cos_cut)), throw, ratio])


def _incoming(striker: Positions, rest: np.ndarray, t: float, config: TrackingConfig):
    """(u, speed, n) of the striker before a hit at time t on the ball lying at ``rest``: its unit
    direction and speed read ``read_gap`` s before the hit over ``read_span`` s, and the unit line
    of centres where that line first comes to 2 R from ``rest``; None if it is too slow or passes wider."""
    gap, span, radius = config.read_gap, config.read_span, config.radius
    p = striker(np.array([t - gap - span, t - gap]))
    v_in = (p[1] - p[0]) / span
    speed = np.linalg.norm(v_in)
    if speed < config.hit_min_speed:
        return None
    u = v_in / speed
    d = p[1] - rest
    half_b, c = np.dot(d, u), np.dot(d, d) - (2 * radius) ** 2
    if half_b * half_b - c < 0:
        return None
    return u, speed, (rest - (p[1] + (-half_b - np.sqrt(half_b * half_b - c)) * u)) / (2 * radius)


def slowdown(striker: Positions, rest: np.ndarray, struck: Positions, t: float, config: TrackingConfig = DEFAULT
             ) -> np.ndarray | None:
    """(len(windows),) the struck ball's mean speed in each of the config's ``windows`` after a hit
    at time t, over the striker's normal speed (read as in ``hit``); None where ``hit`` reads
    nothing or the struck ball turns by more than ``straight`` degrees over the windows (it met
    something)."""
    incoming = _incoming(striker, rest, t, config)
    if incoming is None:
        return None
    u, speed, n = incoming
    normal = speed * np.dot(u, n)
    v = np.array([np.subtract(*struck(np.array([b, a]) + t)) / (b - a) for a, b in config.windows])
    out = np.linalg.norm(v, axis=1)
    if normal <= 0 or out.min() < config.min_struck:
        return None
    if np.min(v @ v[0] / (out * out[0])) < np.cos(np.radians(config.straight)):
        return None
    return out / normal


def _hits_on_resting_balls(shot: TrackedShot, config: TrackingConfig
                           ) -> Iterator[tuple[Positions, np.ndarray, Positions, float]]:
    """(striker track, resting position, struck track, t) of every hit in a tracked shot on a ball
    that lay at rest (it starts moving at the contact, ``Track.moves_at`` within 50 ms) by a ball
    already moving."""
    for c in ball_contacts(shot, config):
        for striker, struck in (c.balls, c.balls[::-1]):
            s, o = shot.tracks[striker], shot.tracks[struck]
            if abs(o.moves_at - c.t) < 0.05 and s.moves_at < c.t - config.read_gap - config.read_span:
                yield s.at, o.xy[0], o.at, c.t


def tracked_slowdowns(shot: TrackedShot, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(k, len(windows)) ``slowdown`` of every hit on a resting ball in a tracked shot that reads."""
    rows = [slowdown(*h, config) for h in _hits_on_resting_balls(shot, config)]
    return np.array([r for r in rows if r is not None]).reshape(-1, len(config.windows))


def tracked(shot: TrackedShot, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(k, 3) the ``COLUMNS`` of every hit in a tracked shot on a ball that lay at rest (it starts
    moving at the contact, ``Track.moves_at`` within 50 ms) by a ball already rolling."""
    rows = [hit(*h, config) for h in _hits_on_resting_balls(shot, config)]
    return np.array([r for r in rows if r is not None]).reshape(-1, 3)


def simulated(result: ShotResult, params: Params, t_end: float, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(k, 3) the ``COLUMNS`` of every hit on a ball at rest in a simulated shot (before t_end s)."""
    events = event_list(result)
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
            return np.asarray(positions_at(result, np.maximum(ts, 0.0), params))[:, ball]

        row = hit(partial(where, ball=striker), np.asarray(before["positions"][struck]),
                  partial(where, ball=struck), e["t"], config)
        if row is not None:
            rows.append(row)
    return np.array(rows).reshape(-1, 3)


def by_cut(rows: np.ndarray, edges=(0, 20, 35, 50, 65, 90)) -> list[dict]:
    """Medians of throw and speed ratio per cut-angle bin (``bins.binned_medians``)."""
    return binned_medians(rows, COLUMNS, edges)


__all__ = ["COLUMNS", "by_cut", "hit", "simulated", "slowdown", "tracked", "tracked_slowdowns"]
