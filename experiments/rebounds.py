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

``turns`` reads how far past the contact line (one radius from the nose) a ball turns: the
straight lines through the ``TURN_SAMPLES`` samples on either side of its sample nearest the
cushion cross there (positive past the line). A cushion that turns a ball at once on the line
gives about 0 whatever the speed; a rubber that yields lets the ball in by its speed into the
cushion times the contact's give (``CushionParams.give``, docs/physics.md section 2).
``paired_turns`` pairs them track with simulation, like ``paired``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import physics
from experiments.track_events import LINES, contacts
from experiments.tracking import Track, TrackedShot
from physics.detect import CUSHION_NORMALS

GAP = 0.02  # s
SPAN = 0.04  # s
MIN_SPEED = 0.1  # m/s: slower contacts are left out (their angles are noise)
LATE = (0.25, 0.35)  # s after the contact: the window of the settled speed and direction
MATCH = 0.15  # s: the most a simulated rebound may lie from the tracked one it is paired with
COLUMNS = ("incidence", "rebound", "normal_ratio", "speed_ratio", "settled_ratio", "bend")
TURN_SAMPLES = 3  # samples on either side of a turn
TURN_NEAR = 0.03  # m: the sample nearest the cushion lies at most this far inside the line
TURN_SPAN = 0.15  # s: the most the samples on one side may span
TURN_MIN_SPEED = 0.2  # m/s across the cushion, in and out
# Each cushion's contact line along its normal (``CUSHION_NORMALS``, pointing at the cushion).
_LINE = np.array([sign * line for _, line, sign in (LINES[c] for c in sorted(LINES))])


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


def turns(shot: TrackedShot) -> np.ndarray:
    """(k, 5) rows (ball, cushion, time, speed into the cushion, turn past the line) of every
    rebound seen in a shot's samples (module docstring): a sample nearest the cushion with
    ``TURN_SAMPLES`` on either side, each side spanning at most ``TURN_SPAN`` s and crossing the
    normal at ``TURN_MIN_SPEED`` or more, the crossing of their fitted lines between them."""
    rows, k = [], TURN_SAMPLES
    for ball, track in enumerate(shot.tracks):
        t = track.t
        for cushion, n in enumerate(CUSHION_NORMALS):
            past = track.xy @ n - _LINE[cushion]  # > 0 past the line
            for i in range(k, len(t) - k):
                if past[i] < -TURN_NEAR or past[i] < past[i - 1] or past[i] < past[i + 1]:
                    continue
                t_in, t_out = t[i - k:i], t[i + 1:i + 1 + k]
                if np.ptp(t_in) > TURN_SPAN or np.ptp(t_out) > TURN_SPAN:
                    continue
                s_in, c_in = np.polyfit(t_in, past[i - k:i], 1)
                s_out, c_out = np.polyfit(t_out, past[i + 1:i + 1 + k], 1)
                if s_in < TURN_MIN_SPEED or -s_out < TURN_MIN_SPEED:
                    continue
                when = (c_out - c_in) / (s_in - s_out)
                if t_in[-1] - 0.01 <= when <= t_out[0] + 0.01:
                    rows.append((ball, cushion, when, s_in, s_in * when + c_in))
    return np.array(rows, float).reshape(-1, 5)


def paired_turns(shot: TrackedShot, simulation: TrackedShot) -> np.ndarray:
    """(k, 2, 5): [track, simulation] ``turns`` rows, the same ball off the same cushion, the
    nearest within ``MATCH`` s; the simulated shot read like its track (``sampled_like``)."""
    keyed = lambda rows: [(int(r[0]), int(r[1]), r[2], r) for r in rows]  # noqa: E731
    return np.array(_matched(keyed(turns(shot)), keyed(turns(simulation))), float).reshape(-1, 2, 5)


def _matched(track, sim) -> list:
    """[track row, simulation row] of the (ball, cushion, time, row) items of both, each tracked
    one with the simulated one of the same ball and cushion nearest in time, within ``MATCH`` s."""
    rows = []
    for ball, cushion, t, row in track:
        near = [(abs(u - t), other) for b, c, u, other in sim if b == ball and c == cushion and abs(u - t) <= MATCH]
        if near:
            rows.append([row, min(near, key=lambda x: x[0])[1]])
    return rows


def turns_by_speed(pairs: np.ndarray, edges=(0.0, 0.5, 1.0, 1.5, 2.0, 9.0)) -> list[dict]:
    """Medians of ``paired_turns`` rows (k, 2, 5) per bin of the track's speed into the cushion:
    [{"bin", "n", "track", "simulation", "difference"}], the turns past the line in m, the
    difference simulation - track taken rebound by rebound."""
    rows = np.stack([pairs[:, 0, 3], pairs[:, 0, 4], pairs[:, 1, 4], pairs[:, 1, 4] - pairs[:, 0, 4]], axis=-1)
    return binned_medians(rows.reshape(-1, 4), ("speed", "track", "simulation", "difference"), edges)


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
    return np.array(_matched(_contacts(shot), _contacts(simulation))).reshape(-1, 2, len(COLUMNS))


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


__all__ = ["COLUMNS", "LATE", "MATCH", "binned_medians", "by_incidence", "paired", "paired_differences",
           "paired_turns", "rebound", "sampled_like", "simulated", "tracked", "turns", "turns_by_speed"]
