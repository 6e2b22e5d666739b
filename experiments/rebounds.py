"""Cushion rebounds measured alike in tracked and simulated shots: incidence, rebound angle and
speed ratios, for comparing the cushion model with real play.

Velocities are read from positions on either side of a contact, skipping ``GAP`` s next to it
(sampled tracks smear the contact) and averaging over ``SPAN`` s, by the same function for a
track (``Track.at``) and a simulated path. Angles are measured from the cushion's normal, in
degrees; a rebound wider than the incidence has a larger angle.

A simulated shot compared with its track is read at the track's own sample times
(``sampled_like``) and its contacts found by the same rules: the tracks are sampled every 20 to
180 ms, and between samples the read path cuts the corner of a rebound. Read from the exact
simulated path instead, the reconstructed match shots' rebounds would seem to leave about 2°
nearer the normal than their tracks (median over some 350 rebounds) and to bend half as much
again after the cushion.

``paired`` matches each tracked rebound with its simulated one, so that differences are taken
rebound by rebound (``paired_differences``).

After the rebound, a ball that the cloth has not yet brought to rolling keeps changing speed and
direction: ``settled_ratio`` is its speed ``LATE`` s after the contact over its speed just after,
and ``bend`` the turn of its direction in between (degrees, positive away from the normal).
Both are NaN where the ball meets anything else before then.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import physics
from experiments.track_events import contacts
from experiments.tracking import Track, TrackedShot
from physics.detect import CUSHION_NORMALS

GAP = 0.02  # s
SPAN = 0.04  # s
MIN_SPEED = 0.1  # m/s: slower contacts are left out (their angles are noise)
LATE = (0.25, 0.35)  # s after the contact: the window of the settled speed and direction
MATCH = 0.15  # s: the most a simulated rebound may lie from the tracked one it is paired with
COLUMNS = ("incidence", "rebound", "normal_ratio", "speed_ratio", "settled_ratio", "bend")


def rebound(position: Callable[[np.ndarray], np.ndarray], t: float, cushion: int, free: bool = True
            ) -> np.ndarray | None:
    """The ``COLUMNS`` of one contact at time t, or None when the ball is too slow on either side.
    position(times) -> (len(times), 2). ``free``: the ball meets nothing else for ``LATE`` s after
    the contact (else settled_ratio and bend are NaN)."""
    p = position(np.array([t - GAP - SPAN, t - GAP, t + GAP, t + GAP + SPAN, t + LATE[0], t + LATE[1]]))
    v_in, v_out, v_late = (p[1] - p[0]) / SPAN, (p[3] - p[2]) / SPAN, (p[5] - p[4]) / (LATE[1] - LATE[0])
    s_in, s_out = np.linalg.norm(v_in), np.linalg.norm(v_out)
    if min(s_in, s_out) < MIN_SPEED:
        return None
    n = CUSHION_NORMALS[cushion]
    n_in, n_out = np.dot(v_in, n), -np.dot(v_out, n)
    if n_in <= 0 or n_out <= 0:
        return None
    angle = lambda v, vn: np.degrees(np.arccos(np.clip(vn / np.linalg.norm(v), -1.0, 1.0)))  # noqa: E731
    settled = bend = np.nan
    s_late = np.linalg.norm(v_late)
    if free and s_late >= MIN_SPEED:
        settled = s_late / s_out
        bend = angle(v_late, -np.dot(v_late, n)) - angle(v_out, n_out)
    return np.array([angle(v_in, n_in), angle(v_out, n_out), n_out / n_in, s_out / s_in, settled, bend])


def _contacts(shot: TrackedShot) -> list[tuple[int, int, float, np.ndarray]]:
    """(ball, cushion, time, ``COLUMNS`` row) of every cushion contact seen in a shot's tracks."""
    found = contacts(shot)
    out = []
    for c in found:
        if c.kind != "cushion":
            continue
        ball = c.balls[0]
        free = not any(o is not c and ball in o.balls and c.t < o.t <= c.t + LATE[1] + GAP for o in found)
        row = rebound(shot.tracks[ball].at, c.t, c.cushion, free)
        if row is not None:
            out.append((ball, c.cushion, c.t, row))
    return out


def tracked(shot: TrackedShot) -> np.ndarray:
    """(k, len(COLUMNS)) every cushion contact seen in a tracked shot (``track_events.contacts``)."""
    return np.array([row for *_, row in _contacts(shot)]).reshape(-1, len(COLUMNS))


def sampled_like(shot: TrackedShot, result: physics.ShotResult, params: physics.Params, delay: float
                 ) -> TrackedShot:
    """The simulated shot as its track would record it: each ball's simulated centre at that
    ball's own sample times. ``delay``: when the simulated strike happens on the recording's clock."""
    tracks = []
    for k, track in enumerate(shot.tracks):
        xy = np.asarray(physics.positions_at(result, np.maximum(track.t - delay, 0.0), params))[:, k]
        tracks.append(Track(track.t, xy))
    return TrackedShot(shot.shot_id, tuple(tracks))


def simulated(shot: TrackedShot, result: physics.ShotResult, params: physics.Params, delay: float) -> np.ndarray:
    """(k, len(COLUMNS)) the cushion contacts of a simulated shot, read like those of its track
    (``sampled_like``, then ``tracked``)."""
    return tracked(sampled_like(shot, result, params, delay))


def paired(shot: TrackedShot, simulation: TrackedShot) -> np.ndarray:
    """(k, 2, len(COLUMNS)): [track, simulation] rows of the rebounds seen in both, the simulated
    shot read like its track (``sampled_like``): the same ball off the same cushion, the nearest
    within ``MATCH`` s. Unpaired medians compare different sets of rebounds (a rebound the
    simulation adds or misses shifts them); paired differences do not."""
    sim = _contacts(simulation)
    rows = []
    for ball, cushion, t, row in _contacts(shot):
        near = [(abs(u - t), other) for b, c, u, other in sim if b == ball and c == cushion and abs(u - t) <= MATCH]
        if near:
            rows.append([row, min(near, key=lambda x: x[0])[1]])
    return np.array(rows).reshape(-1, 2, len(COLUMNS))


def paired_differences(pairs: np.ndarray, edges=(0, 15, 30, 45, 60, 90)) -> list[dict]:
    """Median differences simulation - track of every column per bin of the track's incidence
    (``binned_medians``; the "incidence" entry is the track's own median)."""
    rows = pairs[:, 1] - pairs[:, 0]
    rows[:, 0] = pairs[:, 0, 0]
    return binned_medians(rows.reshape(-1, len(COLUMNS)), COLUMNS, edges)


def _median(values) -> float:
    """Median of the finite values (NaN if none)."""
    values = values[np.isfinite(values)]
    return float(np.median(values)) if len(values) else float("nan")


def binned_medians(rows: np.ndarray, columns, edges) -> list[dict]:
    """Medians of each named column per bin of the first one (NaN in an empty bin):
    [{"bin": "0-15", "n", medians...}]."""
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        part = rows[(rows[:, 0] >= lo) & (rows[:, 0] < hi)]
        medians = {c: _median(part[:, i]) for i, c in enumerate(columns)}
        out.append({"bin": f"{lo}-{hi}", "n": int(len(part)), **medians})
    return out


def by_incidence(rows: np.ndarray, edges=(0, 15, 30, 45, 60, 90)) -> list[dict]:
    """Medians of each column per incidence bin (``binned_medians``)."""
    return binned_medians(rows, COLUMNS, edges)


__all__ = ["COLUMNS", "LATE", "MATCH", "binned_medians", "by_incidence", "paired", "paired_differences", "rebound",
           "sampled_like", "simulated", "tracked"]
