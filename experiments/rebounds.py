"""Cushion rebounds measured alike in tracked and simulated shots: incidence, rebound angle and
speed ratios, for comparing the cushion model with real play.

Velocities are read from positions on either side of a contact, skipping ``GAP`` s next to it
(sampled tracks smear the contact) and averaging over ``SPAN`` s, by the same function for a
track (``Track.at``) and a simulated path (``physics.positions_at``). Angles are measured from
the cushion's normal, in degrees; a rebound wider than the incidence has a larger angle.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import physics
from experiments.track_events import cushion_contacts
from experiments.tracking import TrackedShot
from physics.detect import CUSHION_NORMALS
from physics.events import EventKind

GAP = 0.02  # s
SPAN = 0.04  # s
MIN_SPEED = 0.1  # m/s: slower contacts are left out (their angles are noise)
COLUMNS = ("incidence", "rebound", "normal_ratio", "speed_ratio")


def rebound(position: Callable[[np.ndarray], np.ndarray], t: float, cushion: int) -> np.ndarray | None:
    """(incidence, rebound angle, normal-speed ratio, speed ratio) of one contact at time t, or
    None when the ball is too slow on either side. position(times) -> (len(times), 2)."""
    p = position(np.array([t - GAP - SPAN, t - GAP, t + GAP, t + GAP + SPAN]))
    v_in, v_out = (p[1] - p[0]) / SPAN, (p[3] - p[2]) / SPAN
    s_in, s_out = np.linalg.norm(v_in), np.linalg.norm(v_out)
    if min(s_in, s_out) < MIN_SPEED:
        return None
    n = CUSHION_NORMALS[cushion]
    n_in, n_out = np.dot(v_in, n), -np.dot(v_out, n)
    if n_in <= 0 or n_out <= 0:
        return None
    angle = lambda v, vn: np.degrees(np.arccos(np.clip(vn / np.linalg.norm(v), -1.0, 1.0)))  # noqa: E731
    return np.array([angle(v_in, n_in), angle(v_out, n_out), n_out / n_in, s_out / s_in])


def tracked(shot: TrackedShot) -> np.ndarray:
    """(k, 4) the ``COLUMNS`` of every cushion contact seen in a tracked shot."""
    rows = []
    for ball, track in enumerate(shot.tracks):
        for c in cushion_contacts(track, ball):
            row = rebound(track.at, c.t, c.cushion)
            if row is not None:
                rows.append(row)
    return np.array(rows).reshape(-1, 4)


def simulated(result: physics.ShotResult, params: physics.Params, t_end: float) -> np.ndarray:
    """(k, 4) the ``COLUMNS`` of every cushion contact of a simulated shot (before t_end s)."""
    rows = []
    for e in physics.event_list(result):
        if e["kind"] != EventKind.BALL_CUSHION.name.lower() or e["t"] > t_end:
            continue
        ball = e["balls"][0]

        def where(ts, ball=ball):
            return np.asarray(physics.positions_at(result, np.maximum(ts, 0.0), params))[:, ball]

        row = rebound(where, e["t"], int(physics.Cushion[e["cushion"].upper()]))
        if row is not None:
            rows.append(row)
    return np.array(rows).reshape(-1, 4)


def binned_medians(rows: np.ndarray, columns, edges) -> list[dict]:
    """Medians of each named column per bin of the first one (NaN in an empty bin):
    [{"bin": "0-15", "n", medians...}]."""
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        part = rows[(rows[:, 0] >= lo) & (rows[:, 0] < hi)]
        medians = {c: float(np.median(part[:, i])) if len(part) else float("nan") for i, c in enumerate(columns)}
        out.append({"bin": f"{lo}-{hi}", "n": int(len(part)), **medians})
    return out


def by_incidence(rows: np.ndarray, edges=(0, 15, 30, 45, 60, 90)) -> list[dict]:
    """Medians of each column per incidence bin (``binned_medians``)."""
    return binned_medians(rows, COLUMNS, edges)


__all__ = ["COLUMNS", "binned_medians", "by_incidence", "rebound", "simulated", "tracked"]
