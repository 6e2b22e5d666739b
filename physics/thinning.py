"""Thinning a full event log: the shot runs to rest, the log keeps what the referee reads.

The log has a fixed capacity (it lives inside ``jit``); a shot may resolve more events than
that (a ball that spin keeps pressing into a cushion bounces off it many times). When the log
is full, events are dropped in this order until there is room:

1. motion-state changes on the cloth (the referee never reads them, and a replay goes through
   them by itself, ``physics.replay.evolve_through``);
2. take-offs and landings (a replay cannot go through them: the log holds no heights), and
   contacts the referee cannot need: a ball pair's contacts after its first, a ball's contacts
   with a cushion after its first with that cushion, except the struck ball's first
   ``CUE_CUSHIONS_KEPT`` cushion contacts before it has touched every other ball (three-cushion
   counts those, and no rule counts more: a cue ball pressed into a corner by its spin may
   rattle between the two cushions a hundred times);
3. nothing else: the strike, off-table events, ball-pin contacts, PIN_DOWN and the contacts
   above are kept. Should they alone fill the log, later events find no room: transitions are
   just counted, and any other event is counted as lost (``physics.simulate`` flags the shot
   ``Status.OVERFLOW``, which voids it), as it may be one the referee needs.

Each thinning drops every event of the lowest class present at once. What was dropped is
counted, and the box each ball's centre spans at the dropped events is kept, so that a test
of "did a ball leave an axis-aligned field" gives the same answer as on the full log.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from physics.events import EventKind, EventLog

# Motion-state changes on the cloth: dropped first.
CLOTH_CHANGES = (
    EventKind.SLIDING_TO_ROLLING, EventKind.ROLLING_TO_SPINNING, EventKind.ROLLING_TO_STATIONARY,
    EventKind.SPINNING_TO_STATIONARY, EventKind.ROLLING_TO_SLOW_ROLLING,
)
# Every motion-state change: none is an event the referee reads.
TRANSITIONS = CLOTH_CHANGES + (EventKind.BALL_AIRBORNE, EventKind.BALL_LANDING)
ALWAYS_KEPT = (EventKind.CUE_STRIKE, EventKind.OFF_TABLE, EventKind.BALL_PIN, EventKind.PIN_DOWN)
# Priority classes: the lowest present is dropped first.
TRANSITION, CONTACT, NEEDED = 0, 1, 2
# The struck ball's cushion contacts before its carom that are always kept: the referee compares
# their count with a discipline's requirement (three-cushion: 3, docs/rules.md C-13.2), so a
# discipline may require at most this many (``rules.disciplines`` checks it).
CUE_CUSHIONS_KEPT = 8


def _first(mask):
    """(C,) bool: only the first True of mask."""
    slot = jnp.arange(mask.shape[0])
    return mask & (slot == jnp.argmax(mask))


def priorities(log: EventLog, k, n_balls: int):
    """(C,) int: each used slot's class (TRANSITION, CONTACT or NEEDED); -1 for unused slots."""
    used = jnp.arange(log.capacity) < k
    kind = log.kind.astype(jnp.int32)
    b0, b1 = log.balls[:, 0].astype(jnp.int32), log.balls[:, 1].astype(jnp.int32)
    cushion = log.cushion.astype(jnp.int32)
    needed = used & jnp.isin(kind, np.array(ALWAYS_KEPT, np.int32))
    ball_ball = used & (kind == EventKind.BALL_BALL)
    hits = used & (kind == EventKind.BALL_CUSHION)
    cue = b0[0]  # slot 0 holds the strike, which is never dropped
    carom_time = jnp.zeros((), log.time.dtype)
    for i, j in zip(*np.triu_indices(n_balls, 1)):
        pair = ball_ball & (b0 == i) & (b1 == j)
        needed = needed | _first(pair)
        with_cue = (cue == i) | (cue == j)
        t = jnp.min(jnp.where(pair, log.time, jnp.inf))
        carom_time = jnp.where(with_cue, jnp.maximum(carom_time, t), carom_time)
    for ball in range(n_balls):
        for side in range(4):
            needed = needed | _first(hits & (b0 == ball) & (cushion == side))
    before_carom = hits & (b0 == cue) & (log.time <= carom_time)
    needed = needed | (before_carom & (jnp.cumsum(before_carom) <= CUE_CUSHIONS_KEPT))
    transition = used & jnp.isin(kind, np.array(CLOTH_CHANGES, np.int32))
    return jnp.where(~used, -1, jnp.where(needed, NEEDED, jnp.where(transition, TRANSITION, CONTACT)))


def thin(log: EventLog, k, n_balls: int):
    """Drop the lowest droppable class of a full log (nothing if every event is needed).

    Returns (log, k, dropped, lo, hi): the compacted log and its count; how many events were
    dropped; (n, 2) the smallest and largest centre coordinates at the dropped events (+inf /
    -inf if none).
    """
    C = log.capacity
    pr = priorities(log, k, n_balls)
    present = [jnp.any(pr == c) for c in (TRANSITION, CONTACT)]
    level = jnp.where(present[0], TRANSITION, jnp.where(present[1], CONTACT, -2))
    drop = pr == level
    keep = (pr >= 0) & ~drop
    to = jnp.where(keep, jnp.cumsum(keep) - 1, C)  # row C is out of range: dropped
    empty = EventLog.empty(C, n_balls, log.time.dtype)
    moved = EventLog(*(e.at[to].set(x, mode="drop") for e, x in zip(_leaves(empty), _leaves(log))))
    rows = jnp.where(drop[:, None, None], log.positions, jnp.inf)
    lo = jnp.min(rows, axis=0)
    hi = jnp.max(jnp.where(drop[:, None, None], log.positions, -jnp.inf), axis=0)
    return moved, jnp.sum(keep).astype(k.dtype), jnp.sum(drop).astype(jnp.int32), lo, hi


def _leaves(log: EventLog):
    return (log.kind, log.time, log.balls, log.cushion, log.positions, log.velocities, log.spins, log.motion)
