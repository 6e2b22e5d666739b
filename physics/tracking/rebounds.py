"""Cushion rebounds measured alike in tracked and simulated shots: incidence, rebound angle and
speed ratios, for comparing the cushion model with real play.

Velocities are read from positions on either side of a contact, skipping ``read_gap`` s next to
it (sampled tracks smear the contact) and averaging over ``read_span`` s, by the same function
for a track (``Track.at``) and a simulated path. Angles are measured from the cushion's normal,
in degrees; a rebound wider than the incidence has a larger angle. A simulated shot compared
with its track is read at the track's own sample times (``camera.sampled_like``) and its
contacts found by the same rules (``events.contacts``).

``paired`` matches each tracked rebound with its simulated one (the same ball off the same
cushion, the nearest within ``match`` s), so that differences are taken rebound by rebound
(``paired_differences``). After the rebound, a ball that the cloth has not yet brought to
rolling keeps changing speed and direction: ``settled_ratio`` is its speed ``late`` s after the
contact over its speed just after, and ``bend`` the turn of its direction in between (degrees,
positive away from the normal); both are NaN where the ball meets anything else before then.

``turns`` reads how far past the contact line (one radius from the nose) a ball turns: the
straight lines through the ``turn_samples`` samples on either side of its sample nearest the
cushion cross there (positive past the line). A cushion that turns a ball at once on the line
gives about 0 whatever the speed; a rubber that yields lets the ball in by its speed into the
cushion times the contact's give (docs/physics.md section 2). ``paired_turns`` pairs them.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from physics.detect import CUSHION_NORMALS
from physics.events import ShotResult
from physics.params import Params
from physics.tracking.bins import binned_medians
from physics.tracking.camera import sampled_like
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.events import contacts, cushion_lines
from physics.tracking.tracks import TrackedShot

COLUMNS = ("incidence", "rebound", "normal_ratio", "speed_ratio", "settled_ratio", "bend")


def _contact_lines(config: TrackingConfig) -> np.ndarray:
    """Each cushion's contact line along its normal (``CUSHION_NORMALS``, pointing at the cushion)."""
    lines = cushion_lines(config)
    return np.array([sign * line for _, line, sign in (lines[c] for c in sorted(lines))])


def rebound(position: Callable[[np.ndarray], np.ndarray], t: float, cushion: int, free: bool = True,
            config: TrackingConfig = DEFAULT) -> np.ndarray | None:
    """The ``COLUMNS`` of one contact at time t, or None when the ball is too slow on either side.
    position(times) -> (len(times), 2). ``free``: the ball meets nothing else for ``late`` s after
    the contact (else settled_ratio and bend are NaN)."""
    gap, span, late = config.read_gap, config.read_span, config.late
    p = position(np.array([t - gap - span, t - gap, t + gap, t + gap + span, t + late[0], t + late[1]]))
    v_in, v_out, v_late = (p[1] - p[0]) / span, (p[3] - p[2]) / span, (p[5] - p[4]) / (late[1] - late[0])
    s_in, s_out = np.linalg.norm(v_in), np.linalg.norm(v_out)
    if min(s_in, s_out) < config.rebound_min_speed:
        return None
    n = CUSHION_NORMALS[cushion]
    n_in, n_out = np.dot(v_in, n), -np.dot(v_out, n)
    if n_in <= 0 or n_out <= 0:
        return None
    angle = lambda v, vn: np.degrees(np.arccos(np.clip(vn / np.linalg.norm(v), -1.0, 1.0)))  # noqa: E731
    settled = bend = np.nan
    s_late = np.linalg.norm(v_late)
    if free and s_late >= config.rebound_min_speed:
        settled = float(s_late / s_out)
        bend = float(angle(v_late, -np.dot(v_late, n)) - angle(v_out, n_out))
    return np.array([angle(v_in, n_in), angle(v_out, n_out), n_out / n_in, s_out / s_in, settled, bend])


def turns(shot: TrackedShot, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(k, 5) rows (ball, cushion, time, speed into the cushion, turn past the line) of every
    rebound seen in a shot's samples (module docstring): a sample nearest the cushion with
    ``turn_samples`` on either side, each side spanning at most ``turn_span`` s and crossing the
    normal at ``turn_min_speed`` or more, the crossing of their fitted lines between them."""
    rows, k = [], config.turn_samples
    contact_lines = _contact_lines(config)
    for ball, track in enumerate(shot.tracks):
        t = track.t
        for cushion, n in enumerate(CUSHION_NORMALS):
            past = track.xy @ n - contact_lines[cushion]  # > 0 past the line
            for i in range(k, len(t) - k):
                if past[i] < -config.turn_near or past[i] < past[i - 1] or past[i] < past[i + 1]:
                    continue
                t_in, t_out = t[i - k:i], t[i + 1:i + 1 + k]
                if np.ptp(t_in) > config.turn_span or np.ptp(t_out) > config.turn_span:
                    continue
                s_in, c_in = np.polyfit(t_in, past[i - k:i], 1)
                s_out, c_out = np.polyfit(t_out, past[i + 1:i + 1 + k], 1)
                if s_in < config.turn_min_speed or -s_out < config.turn_min_speed:
                    continue
                when = (c_out - c_in) / (s_in - s_out)
                if t_in[-1] - 0.01 <= when <= t_out[0] + 0.01:
                    rows.append((ball, cushion, when, s_in, s_in * when + c_in))
    return np.array(rows, float).reshape(-1, 5)


def paired_turns(shot: TrackedShot, simulation: TrackedShot, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(k, 2, 5): [track, simulation] ``turns`` rows, the same ball off the same cushion, the
    nearest within ``match`` s; the simulated shot read like its track (``camera.sampled_like``)."""
    keyed = lambda rows: [(int(r[0]), int(r[1]), r[2], r) for r in rows]  # noqa: E731
    return np.array(_matched(keyed(turns(shot, config)), keyed(turns(simulation, config)), config),
                    float).reshape(-1, 2, 5)


def _matched(track, sim, config: TrackingConfig) -> list:
    """[track row, simulation row] of the (ball, cushion, time, row) items of both, each tracked
    one with the simulated one of the same ball and cushion nearest in time, within ``match`` s."""
    rows = []
    for ball, cushion, t, row in track:
        near = [(abs(u - t), other) for b, c, u, other in sim
                if b == ball and c == cushion and abs(u - t) <= config.match]
        if near:
            rows.append([row, min(near, key=lambda x: x[0])[1]])
    return rows


def turns_by_speed(pairs: np.ndarray, edges=(0.0, 0.5, 1.0, 1.5, 2.0, 9.0)) -> list[dict]:
    """Medians of ``paired_turns`` rows (k, 2, 5) per bin of the track's speed into the cushion:
    [{"bin", "n", "track", "simulation", "difference"}], the turns past the line in m, the
    difference simulation - track taken rebound by rebound."""
    rows = np.stack([pairs[:, 0, 3], pairs[:, 0, 4], pairs[:, 1, 4], pairs[:, 1, 4] - pairs[:, 0, 4]], axis=-1)
    return binned_medians(rows.reshape(-1, 4), ("speed", "track", "simulation", "difference"), edges)


def _contacts(shot: TrackedShot, config: TrackingConfig) -> list[tuple[int, int, float, np.ndarray]]:
    """(ball, cushion, time, ``COLUMNS`` row) of every cushion contact seen in a shot's tracks."""
    found = contacts(shot, config)
    out = []
    for c in found:
        if c.kind != "cushion":
            continue
        ball = c.balls[0]
        free = not any(o is not c and ball in o.balls and c.t < o.t <= c.t + config.late[1] + config.read_gap
                       for o in found)
        row = rebound(shot.tracks[ball].at, c.t, c.cushion, free, config)
        if row is not None:
            out.append((ball, c.cushion, c.t, row))
    return out


def tracked(shot: TrackedShot, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(k, len(COLUMNS)) every cushion contact seen in a tracked shot (``events.contacts``)."""
    return np.array([row for *_, row in _contacts(shot, config)]).reshape(-1, len(COLUMNS))


def simulated(shot: TrackedShot, result: ShotResult, params: Params, delay: float,
              config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(k, len(COLUMNS)) the cushion contacts of a simulated shot, read like those of its track
    (``camera.sampled_like``, then ``tracked``)."""
    return tracked(sampled_like(shot, result, params, delay), config)


def paired(shot: TrackedShot, simulation: TrackedShot, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(k, 2, len(COLUMNS)): [track, simulation] rows of the rebounds seen in both, the simulated
    shot read like its track (``camera.sampled_like``): the same ball off the same cushion, the
    nearest within ``match`` s. Unpaired medians compare different sets of rebounds (a rebound the
    simulation adds or misses shifts them); paired differences do not."""
    return np.array(_matched(_contacts(shot, config), _contacts(simulation, config), config)
                    ).reshape(-1, 2, len(COLUMNS))


def paired_differences(pairs: np.ndarray, edges=(0, 15, 30, 45, 60, 90)) -> list[dict]:
    """Median differences simulation - track of every column per bin of the track's incidence
    (``bins.binned_medians``; the "incidence" entry is the track's own median)."""
    rows = pairs[:, 1] - pairs[:, 0]
    rows[:, 0] = pairs[:, 0, 0]
    return binned_medians(rows.reshape(-1, len(COLUMNS)), COLUMNS, edges)


def by_incidence(rows: np.ndarray, edges=(0, 15, 30, 45, 60, 90)) -> list[dict]:
    """Medians of each column per incidence bin (``bins.binned_medians``)."""
    return binned_medians(rows, COLUMNS, edges)


__all__ = ["COLUMNS", "by_incidence", "paired", "paired_differences", "paired_turns", "rebound", "simulated",
           "tracked", "turns", "turns_by_speed"]
