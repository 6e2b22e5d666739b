"""The shot's event log and result: the contract between physics and rules (docs/design.md contract 1).

A shot is simulated from the cue strike until every body is at rest. Each event the simulator
resolves is written, in time order, into a fixed-capacity log so that the log can live inside
``jit`` and ``vmap``; when a shot has more events than that, the log is thinned to the events
the referee reads (``physics.thinning``). Rules read the log and the result's summary fields, nothing else of physics.

Event kinds (``EventKind``) and the meaning of ``balls`` / ``cushion`` for each:

=======================  ======================================  ===========
kind                     balls                                   cushion
=======================  ======================================  ===========
CUE_STRIKE               (cue ball, -1)                          -1
BALL_BALL                (first ball, second ball), first < sec. -1
BALL_CUSHION             (ball, -1)                              0..3
SLIDING_TO_ROLLING       (ball, -1)                              -1
ROLLING_TO_SPINNING      (ball, -1)                              -1
ROLLING_TO_STATIONARY    (ball, -1)                              -1
SPINNING_TO_STATIONARY   (ball, -1)                              -1
BALL_PIN                 (ball, -1)                              -1
PIN_DOWN                 (ball that knocked it, -1)              -1
BALL_AIRBORNE            (ball, -1)                              -1
BALL_LANDING             (ball, -1)                              -1
OFF_TABLE                (ball, -1)                              -1 or the cushion it cleared
ROLLING_TO_SLOW_ROLLING  (ball, -1)                              -1
=======================  ======================================  ===========

Unused slots after ``num_events`` have kind ``NONE``. The state arrays of an event hold every
ball's state just after the event was resolved (positions do not jump at an event, velocities do).
"""
from __future__ import annotations

import enum
from typing import Optional

import jax
import jax.numpy as jnp
from jax.typing import DTypeLike

from physics._pytree import pytree_dataclass


class EventKind(enum.IntEnum):
    """What happened at an event; stored as ``int8`` in ``EventLog.kind``."""

    NONE = 0
    CUE_STRIKE = 1
    BALL_BALL = 2
    BALL_CUSHION = 3
    SLIDING_TO_ROLLING = 4
    ROLLING_TO_SPINNING = 5
    ROLLING_TO_STATIONARY = 6
    SPINNING_TO_STATIONARY = 7
    BALL_PIN = 8
    PIN_DOWN = 9
    BALL_AIRBORNE = 10
    BALL_LANDING = 11
    OFF_TABLE = 12
    ROLLING_TO_SLOW_ROLLING = 13  # a fast rolling ball slows to the resistance's split speed


class Motion(enum.IntEnum):
    """A ball's motion state between events; stored as ``int8``."""

    STATIONARY = 0
    SPINNING = 1  # only vertical-axis spin left
    SLIDING = 2
    ROLLING = 3
    AIRBORNE = 4
    OFF_TABLE = 5


class Cushion(enum.IntEnum):
    """The four cushions of a carom table, x along the long side, origin at a playing-area corner.

    BOTTOM is the short cushion at x = 0 (the head end, behind the head string); TOP the short
    cushion at x = length (behind the top spot); RIGHT the long cushion at y = 0 and LEFT the long
    cushion at y = width, as seen from the bottom end looking up the table.
    """

    BOTTOM = 0
    TOP = 1
    RIGHT = 2
    LEFT = 3


class Status(enum.IntFlag):
    """What went wrong in a shot, as bit flags in ``ShotResult.status`` (0 means all well).

    Inside ``jit`` nothing can raise, so the result says it instead.
    """

    OK = 0
    OVERFLOW = 1  # the log lost an event the referee needs (``physics.thinning``)
    INVALID_SHOT = 2  # NaN/inf or out-of-range strike parameters: nothing was simulated
    INVALID_LAYOUT = 4  # balls overlapping or outside the cushions at the start
    INVALID_PARAMS = 8  # a physical parameter NaN/inf or out of its range: nothing was simulated
    CUT_OFF = 16  # the safety net on events per shot stopped it: balls may still move


@pytree_dataclass
class EventLog:
    """Fixed-capacity record of a shot's events in time order.

    Attributes:
      kind: (capacity,) int8, an ``EventKind``.
      time: (capacity,) float, seconds since the cue strike.
      balls: (capacity, 2) int8, the balls involved (-1 where not applicable).
      cushion: (capacity,) int8, a ``Cushion`` for cushion events, else -1.
      positions: (capacity, n_balls, 2) float, every ball's centre just after the event.
      velocities: (capacity, n_balls, 2) float, every ball's velocity just after the event.
      spins: (capacity, n_balls, 3) float, every ball's angular velocity just after the event.
      motion: (capacity, n_balls) int8, every ball's ``Motion`` just after the event.
    """

    kind: jax.Array
    time: jax.Array
    balls: jax.Array
    cushion: jax.Array
    positions: jax.Array
    velocities: jax.Array
    spins: jax.Array
    motion: jax.Array

    @property
    def capacity(self) -> int:
        return self.kind.shape[-1]

    @classmethod
    def empty(cls, capacity: int, n_balls: int, dtype: DTypeLike) -> "EventLog":
        return cls(
            kind=jnp.zeros((capacity,), jnp.int8),
            time=jnp.full((capacity,), jnp.inf, dtype),
            balls=jnp.full((capacity, 2), -1, jnp.int8),
            cushion=jnp.full((capacity,), -1, jnp.int8),
            positions=jnp.zeros((capacity, n_balls, 2), dtype),
            velocities=jnp.zeros((capacity, n_balls, 2), dtype),
            spins=jnp.zeros((capacity, n_balls, 3), dtype),
            motion=jnp.zeros((capacity, n_balls), jnp.int8),
        )


@pytree_dataclass
class ShotResult:
    """Everything rules may know about a shot.

    Attributes:
      events: the ``EventLog``.
      num_events: () int32, how many slots of the log are used.
      overflow: () bool, the log lost an event the referee needs, or the shot was cut off
        (``Status.OVERFLOW``, ``Status.CUT_OFF``): the result is then incomplete.
      status: () int32, ``Status`` flags.
      final_positions: (n_balls, 2) float, where the balls came to rest; a ball that left the
        table lies just beyond the cushion it crossed, outside the playing area.
      final_time: () float, when the last body stopped (seconds since the strike).
      on_table: (n_balls,) bool, False for a ball that left the table.
      pin_present: () bool, the shot was played with a pin (Hungarian game).
      pin_down: () bool, the pin fell during the shot.
      pin_position: (2,) float, where the pin stands or lies at the end.
      pin_knocked_by: () int8, the ball that knocked the pin down, -1 if it did not fall.
      dropped: () int32, events resolved but not kept: a shot with more events than the log
        holds runs to rest all the same, and its log is thinned (``physics.thinning``) to what
        the referee reads. A replay (``physics.positions_at``) goes through the motion changes
        dropped on the cloth; paths drawn from the kept events alone are coarser.
      dropped_span: (n_balls, 2, 2) float, the smallest and largest centre coordinates of each
        ball at the dropped events (+inf / -inf when none), for field tests. None in results
        made by hand means nothing was dropped.
    """

    events: EventLog
    num_events: jax.Array
    overflow: jax.Array
    status: jax.Array
    final_positions: jax.Array
    final_time: jax.Array
    on_table: jax.Array
    pin_present: jax.Array
    pin_down: jax.Array
    pin_position: jax.Array
    pin_knocked_by: jax.Array
    dropped: Optional[jax.Array] = None
    dropped_span: Optional[jax.Array] = None

    @property
    def n_balls(self) -> int:
        return self.final_positions.shape[-2]
