"""The settings of the tracked-shot library, in one frozen dataclass.

Every function of ``physics.tracking`` that reads a track, looks for contacts, searches for a
strike or measures a rebound, a hit or a slide takes a ``TrackingConfig`` (``DEFAULT`` unless
given), so that a setting is changed in one place and passed along rather than read from a
module. The defaults are the values behind the figures of docs/physics.md sections 6 and 10.
The strike search's budget is part of it (``pop``, ``rounds``, ...): a command that searches
with other budgets builds its own copies (``dataclasses.replace``), checked when built.
"""
from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class TrackingConfig:
    """Settings of reading, fitting and measuring tracked shots (units: m, s, m/s, degrees).

    Fields by job: the table; cleaning a track (``tracks``); contacts seen in the tracks
    (``events``); the strike search and its errors (``target``, ``objective``, ``fit``,
    ``errors``); velocities read either side of a contact, rebounds, ball-ball hits and the cue
    ball's first stretch (``rebounds``, ``collisions``, ``slides``).
    """

    # The match table of the tracked shots (physics.default_params()): ball radius, playing area.
    radius: float = 0.03075
    length: float = 2.84
    width: float = 1.42
    # Cleaning: a centre beyond the cushion line by less than cushion_slack is clipped onto it, by
    # more dropped; a sample reached faster than max_speed (faster than any carom ball) is a jump.
    cushion_slack: float = 0.005
    max_speed: float = 10.0
    # Start of motion (``Track.moves_at``): a ball has moved once moved from its first sample; the
    # start is put at most max_lag before the first sample that shows it.
    moved: float = 0.005
    max_lag: float = 0.1
    # Cushion contacts: within cushion_near of the line, the speed across it reversing by more
    # than min_normal_speed (above the tracking noise, 1 mm per 20 ms), after a pause at the
    # cushion of at most held.
    cushion_near: float = 0.03
    min_normal_speed: float = 0.05
    held: float = 0.05
    # Ball-ball contacts: centres within 2 R + ball_near at a closest approach on a time grid of
    # grid s, one ball turning by more than turn_deg (directions read over look s either side)
    # or starting from rest (slower than rest_speed).
    ball_near: float = 0.03
    turn_deg: float = 10.0
    grid: float = 0.005
    look: float = 0.04
    rest_speed: float = 0.05
    # Events in a tracked shot's log (``events.event_log``).
    capacity: int = 64
    # A target: samples per shot, padded (the longest of the 90 match shots has 556); shots
    # simulated per call (one compiled shape).
    samples: int = 640
    chunk: int = 256
    # The strike search (``fit.fit``): pop candidates a round over rounds rounds; restarts
    # searches with other side spins over the first explore of the rounds; polish last rounds
    # around the best strike; searches whole searches, the best kept. The horizon scored starts
    # at first_horizon s and grows by growth a round.
    pop: int = 1024
    rounds: int = 30
    restarts: int = 4
    explore: float = 0.25
    polish: int = 3
    searches: int = 2
    first_horizon: float = 0.5
    growth: float = 1.25
    # The strike (``fit.FIELDS``: V0, phi, a, b, dt, theta): its search box, the floor of the
    # search spread, the starting spread from a first guess (V0's relative to the guessed speed),
    # the tip offsets' radius (the miscue limit is 0.6 R).
    low: tuple[float, ...] = (0.05, -np.inf, -0.6, -0.6, -0.04, 0.0)
    high: tuple[float, ...] = (8.0, np.inf, 0.6, 0.6, 0.04, 30.0)
    min_spread: tuple[float, ...] = (0.002, 0.01, 0.002, 0.002, 0.0005, 0.05)
    wide_spread: tuple[float, ...] = (0.35, 4.0, 0.3, 0.3, 0.008, 3.0)
    max_tip: float = 0.58
    # The first guess: the cue ball's first first_travel s of travel give its aim and speed; a
    # centre hit gives the ball 2 M / (M + m) = 1.46 of the cue speed.
    first_travel: float = 0.06
    ball_speed_per_cue_speed: float = 1.4
    # Contacts as constraints (``target.Near``): a pass closer than near_range counts; the
    # simulated gap is read over +-near_window s around it, near_step apart; contact_weight:
    # squared gap misses per squared error.
    near_range: float = 0.1
    near_window: float = 0.2
    near_step: float = 0.01
    contact_weight: float = 4.0
    # Reported errors: the "first 2 s"; the chord either side of a sample that gives the simulated
    # ball's direction; a simulated ball slower than moving has none.
    early: float = 2.0
    split_step: float = 0.005
    moving: float = 0.05
    # Velocities either side of a contact (rebounds and hits): read_gap s next to it skipped
    # (sampled tracks smear the contact), averaged over read_span s.
    read_gap: float = 0.02
    read_span: float = 0.04
    # Rebounds: slower contacts left out; the window after the contact of the settled speed and
    # direction; the most a simulated rebound may lie from the tracked one it is paired with.
    rebound_min_speed: float = 0.1
    late: tuple[float, float] = (0.25, 0.35)
    match: float = 0.15
    # Turns past the contact line: samples either side; the nearest lies at most turn_near inside
    # the line; one side spans at most turn_span s; the speed across the cushion, in and out.
    turn_samples: int = 3
    turn_near: float = 0.03
    turn_span: float = 0.15
    turn_min_speed: float = 0.2
    # Ball-ball hits on a ball at rest: slower strikers, and as slow struck balls, left out; the
    # struck ball's sliding slowdown (the reference set's u_s g, fixed so that tracks and
    # simulations are read alike); the windows after the hit of ``collisions.slowdown``, over
    # which the struck ball may turn at most straight degrees.
    hit_min_speed: float = 0.3
    min_struck: float = 0.1
    slide: float = 0.2 * 9.81
    windows: tuple[tuple[float, float], ...] = (
        (0.02, 0.06), (0.06, 0.10), (0.10, 0.14), (0.14, 0.18), (0.20, 0.24), (0.30, 0.34))
    straight: float = 4.0
    # The cue ball's first straight stretch (``slides``): it ends at a turn of more than
    # stretch_turn degrees a step or a step faster than stretch_jump times the one before plus
    # stretch_slack; shorter than stretch_steps steps it is not read; a start slowing less than
    # rolling (m/s^2) rolls from the strike.
    stretch_turn: float = 1.5
    stretch_jump: float = 1.05
    stretch_slack: float = 0.05
    stretch_steps: int = 4
    rolling: float = 0.8

    def __post_init__(self):
        if self.searches < 1:
            raise ValueError(f"searches must be at least 1, got {self.searches}")
        if self.restarts < 1 or self.pop % self.restarts or self.pop // self.restarts < 8:
            raise ValueError(f"pop must be a multiple of restarts with at least 8 candidates per search, "
                             f"got pop={self.pop}, restarts={self.restarts}")
        if self.rounds < 1 or not 0 <= self.polish < self.rounds:
            raise ValueError(f"rounds must be at least 1 and polish in [0, rounds), got rounds={self.rounds}, "
                             f"polish={self.polish}")

    @property
    def near_samples(self) -> int:
        """Samples of the window around a tracked contact (``target.Near``)."""
        return 2 * round(self.near_window / self.near_step) + 1


DEFAULT = TrackingConfig()

__all__ = ["DEFAULT", "TrackingConfig"]
