"""Tracked shots: ball centres recorded by a camera system during real play, loaded and cleaned.

Format (JSON, the one of ``DATA``, README beside it)::

    {"source": str, "units": str,
     "shots": [{"shot_id": int, "balls": {"1": {"t": [...], "x": [...], "y": [...]}, "2": ..., "3": ...}}]}

Ball centres in metres on the match table (x along the 2.84 m side, origin at a corner of the
playing area, as in docs/physics.md section 7), t in seconds from the start of the recording.
Ball ids "1".."3" become indices 0..2. A ball at rest has few samples: an object ball has its
t = 0 sample and then samples from when it starts moving.

Cleaning rules (``clean_track``; settings of ``TrackingConfig``), applied to each ball in order:
  1. Samples whose time does not increase are dropped.
  2. The cushion line: a centre beyond the line one ball radius from a cushion nose by more than
     ``cushion_slack`` (5 mm) cannot be right and is dropped; one beyond it by less is clipped onto it.
  3. A jump: a sample that lies within one ball radius of another ball's tracked centre (two
     centres are never closer than 2 R, so the track has jumped onto the other ball), or that
     is reached from the last kept sample faster than ``max_speed`` (10 m/s, faster than any
     ball of a carom shot), is dropped; the track resumes at the next sample that passes.
A track keeps the config it was cleaned under: its start of motion (``Track.moves_at``) reads it.
Data of the match in ``DATA``: ``SOURCE``.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Sequence

import numpy as np

from physics.tracking.config import DEFAULT, TrackingConfig

DATA = Path(__file__).parent / "data" / "tracked_3c_shots.json"
SOURCE = "erdo100/3cushiontool, 20221225_2_Match_Ersin_Cemal.pkl, Apache-2.0"
BALL_IDS = ("1", "2", "3")


@dataclasses.dataclass(frozen=True)
class Track:
    """One ball's cleaned samples. t: (k,) s; xy: (k, 2) m; dropped: samples removed by cleaning;
    clipped: samples moved onto the cushion line; config: the settings it is read with.

    moves_at: when the ball starts moving (+inf if it never does): its first sample more than
    ``moved`` from where it lay, run back towards that place at the speed it has after that
    sample, by at most ``max_lag`` (the recording keeps a ball at rest as one sample and
    samples it again from when it moves, so between the two it lay still).
    """

    t: np.ndarray
    xy: np.ndarray
    dropped: int = 0
    clipped: int = 0
    config: TrackingConfig = dataclasses.field(default=DEFAULT, repr=False, compare=False)

    @property
    def moves_at(self) -> float:
        away = np.linalg.norm(self.xy - self.xy[0], axis=1) > self.config.moved
        if not away.any():
            return np.inf
        i = int(np.argmax(away))
        if i + 1 >= len(self.t):
            return float(self.t[i])
        step = np.linalg.norm(self.xy[i + 1] - self.xy[i]) / (self.t[i + 1] - self.t[i])
        back = min(np.linalg.norm(self.xy[i] - self.xy[i - 1]) / max(step, 1e-6), self.config.max_lag)
        return float(np.clip(self.t[i] - back, self.t[i - 1], self.t[i]))

    def at(self, times) -> np.ndarray:
        """(len(times), 2) centres at the given times: linear between samples, at rest before
        ``moves_at`` and after the last sample."""
        times = np.asarray(times, float)
        t, xy = self.t, self.xy
        start = self.moves_at
        if np.isfinite(start) and t[0] < start:
            i = int(np.searchsorted(t, start))
            t = np.concatenate([t[:i], [start], t[i:]])
            xy = np.concatenate([xy[:i], xy[:1], xy[i:]])
        return np.stack([np.interp(times, t, xy[:, 0]), np.interp(times, t, xy[:, 1])], axis=1)


@dataclasses.dataclass(frozen=True)
class TrackedShot:
    """A tracked shot. tracks: one ``Track`` per ball (index 0..2 = ids "1".."3")."""

    shot_id: int
    tracks: tuple[Track, ...]

    @property
    def start(self) -> np.ndarray:
        """(3, 2): where the balls lay before the shot."""
        return np.stack([tr.xy[0] for tr in self.tracks])

    @property
    def cue(self) -> int:
        """The cue ball: the ball that moves first."""
        return int(np.argmin([tr.moves_at for tr in self.tracks]))

    @property
    def strike_time(self) -> float:
        """When the cue ball starts moving (s from the start of the recording)."""
        return self.tracks[self.cue].moves_at

    @property
    def end_time(self) -> float:
        return float(max(tr.t[-1] for tr in self.tracks))

    def at(self, times) -> np.ndarray:
        """(len(times), 3, 2): every ball's centre at the given times (``Track.at``)."""
        return np.stack([tr.at(times) for tr in self.tracks], axis=1)


def _array(shot_id, ball, name, values) -> np.ndarray:
    try:
        out = np.asarray(values, float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"shot {shot_id} ball {ball}: {name} must be a list of numbers") from err
    if out.ndim != 1 or out.size < 1 or not np.all(np.isfinite(out)):
        raise ValueError(f"shot {shot_id} ball {ball}: {name} must be a non-empty list of finite numbers")
    return out


def _raw_tracks(shot: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(t, xy)] per ball of one shot dict, checked."""
    if not isinstance(shot, dict) or "balls" not in shot or "shot_id" not in shot:
        raise ValueError("each shot must be a dict with keys 'shot_id' and 'balls'")
    sid, balls = shot["shot_id"], shot["balls"]
    if not isinstance(balls, dict) or sorted(balls) != list(BALL_IDS):
        raise ValueError(f"shot {sid}: balls must have the ids {', '.join(BALL_IDS)}, got {sorted(balls)}")
    out = []
    for ball in BALL_IDS:
        t, x, y = (_array(sid, ball, k, balls[ball].get(k)) for k in ("t", "x", "y"))
        if not len(t) == len(x) == len(y):
            raise ValueError(f"shot {sid} ball {ball}: t, x and y must have the same length")
        out.append((t, np.stack([x, y], axis=1)))
    return out


def _line_bounds(config: TrackingConfig) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest centre inside the cushion lines (one ball radius from the noses)."""
    r = config.radius
    return np.array([r, r]), np.array([config.length - r, config.width - r])


def _line_excess(xy, config: TrackingConfig) -> np.ndarray:
    """(k,) how far each centre lies beyond the cushion line (<= 0 inside)."""
    lo, hi = _line_bounds(config)
    return np.max(np.concatenate([lo - xy, xy - hi], axis=1), axis=1)


def clean_track(t, xy, others: Sequence[tuple[np.ndarray, np.ndarray]] = (),
                config: TrackingConfig = DEFAULT) -> Track:
    """One ball's samples cleaned by the rules of the module docstring. others: the raw (t, xy)
    of the other balls, for the jump rule."""
    keep = np.concatenate([[True], np.diff(t) > 0])  # rule 1 (a repeated time keeps the first)
    keep &= _line_excess(xy, config) <= config.cushion_slack  # rule 2
    for t2, xy2 in others:  # rule 3, onto another ball
        near = np.linalg.norm(xy - Track(t2, xy2, config=config).at(t), axis=1) < config.radius
        keep &= ~near | (np.arange(len(t)) == 0)
    last = None
    for i in np.flatnonzero(keep):  # rule 3, too fast
        if last is not None and np.linalg.norm(xy[i] - xy[last]) > config.max_speed * (t[i] - t[last]):
            keep[i] = False
        else:
            last = i
    lo, hi = _line_bounds(config)
    kept = xy[keep]
    clipped = np.clip(kept, lo, hi)
    moved = int(np.sum(np.any(np.abs(clipped - kept) > 1e-9, axis=1)))
    return Track(t[keep], clipped, dropped=int(np.sum(~keep)), clipped=moved, config=config)


def parse_shot(shot: dict, config: TrackingConfig = DEFAULT) -> TrackedShot:
    """One shot dict of the format above, cleaned."""
    raw = _raw_tracks(shot)
    tracks = tuple(clean_track(t, xy, [r for j, r in enumerate(raw) if j != i], config)
                   for i, (t, xy) in enumerate(raw))
    return TrackedShot(int(shot["shot_id"]), tracks)


def load(path=DATA, config: TrackingConfig = DEFAULT) -> list[TrackedShot]:
    """Every shot of a tracked-shots JSON file, cleaned; shots in which no ball moves are left out."""
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("shots"), list):
        raise ValueError(f"{path}: expected a JSON object with a list 'shots'")
    shots = [parse_shot(s, config) for s in doc["shots"]]
    return [s for s in shots if np.isfinite(s.strike_time)]


__all__ = ["BALL_IDS", "DATA", "SOURCE", "Track", "TrackedShot", "clean_track", "load", "parse_shot"]
