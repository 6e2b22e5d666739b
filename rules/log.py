"""Small filters over a shot's event log: by kind, by ball, by time.

Every filter returns a (capacity,) bool mask that is already limited to the used slots
(``num_events``), so slots past the end never count. Times of masked-out events read as +inf,
so "the first time" of an empty filter is +inf and compares later than anything.
"""
from __future__ import annotations

import jax.numpy as jnp

from physics.events import EventKind, ShotResult

INF = jnp.inf


def used(shot: ShotResult):
    """(capacity,) bool: the slots the shot filled."""
    return jnp.arange(shot.events.kind.shape[-1]) < shot.num_events


def of_kind(shot: ShotResult, kind: EventKind):
    """(capacity,) bool: used events of one kind."""
    return used(shot) & (shot.events.kind == kind)


def with_ball(shot: ShotResult, ball):
    """(capacity,) bool: used events that involve a ball (in either slot)."""
    balls = shot.events.balls.astype(jnp.int32)
    return used(shot) & ((balls[:, 0] == ball) | (balls[:, 1] == ball))


def ball_ball(shot: ShotResult, a, b):
    """(capacity,) bool: contacts between balls a and b (a != b)."""
    return of_kind(shot, EventKind.BALL_BALL) & with_ball(shot, a) & with_ball(shot, b)


def cushion_hits(shot: ShotResult, ball):
    """(capacity,) bool: the ball's cushion contacts."""
    return of_kind(shot, EventKind.BALL_CUSHION) & with_ball(shot, ball)


def cushion_hits_on(shot: ShotResult, ball, cushion):
    """(capacity,) bool: the ball's contacts with one cushion."""
    return cushion_hits(shot, ball) & (shot.events.cushion.astype(jnp.int32) == cushion)


def pin_hits(shot: ShotResult, ball):
    """(capacity,) bool: the ball's contacts with the pin."""
    return of_kind(shot, EventKind.BALL_PIN) & with_ball(shot, ball)


def times(shot: ShotResult, mask):
    """(capacity,) float: event times where mask, +inf elsewhere."""
    return jnp.where(mask, shot.events.time, INF)


def first_time(shot: ShotResult, mask):
    """() float: the time of the first event in mask, +inf if none."""
    return jnp.min(times(shot, mask))


def first_index(mask):
    """() int32: the slot of the first event in mask, -1 if none."""
    return jnp.where(jnp.any(mask), jnp.argmax(mask), -1).astype(jnp.int32)


def count_before(shot: ShotResult, mask, t):
    """() int32: events in mask strictly before time t."""
    return jnp.sum(mask & (shot.events.time < t)).astype(jnp.int32)


def first_contacts(shot: ShotResult, cue, n_balls: int):
    """(n_balls,) float: when the cue ball first touched each ball (+inf never; +inf for itself)."""
    return jnp.stack(
        [jnp.where(cue == b, INF, first_time(shot, ball_ball(shot, cue, b))) for b in range(n_balls)]
    )


def jumped(shot: ShotResult):
    """(n_balls,) bool: balls that left the table: an OFF_TABLE event or not on the table at the end."""
    off = of_kind(shot, EventKind.OFF_TABLE)
    balls = shot.events.balls[:, 0].astype(jnp.int32)
    n = shot.final_positions.shape[-2]
    logged = jnp.stack([jnp.any(off & (balls == b)) for b in range(n)])
    return logged | ~shot.on_table


def strike_ball(shot: ShotResult):
    """() int32: the ball the cue struck (the first CUE_STRIKE event), -1 if none was logged."""
    i = first_index(of_kind(shot, EventKind.CUE_STRIKE))
    return jnp.where(i >= 0, shot.events.balls[jnp.maximum(i, 0), 0].astype(jnp.int32), -1)


def pin_fall(shot: ShotResult):
    """The first PIN_DOWN event: (() bool fell, () float time, () int32 the ball that knocked it)."""
    mask = of_kind(shot, EventKind.PIN_DOWN)
    i = first_index(mask)
    ball = jnp.where(i >= 0, shot.events.balls[jnp.maximum(i, 0), 0].astype(jnp.int32), -1)
    return i >= 0, first_time(shot, mask), ball


def positions_during(shot: ShotResult):
    """((capacity + 5, n, 2) float, (capacity + 5,) bool): every ball's centre at each used event
    and at rest, then the four corners of the box its centres spanned at events the physics
    dropped from a full log (``ShotResult.dropped_span``: for an axis-aligned zone, a ball was
    outside it at some dropped event exactly when a corner is); the mask says which rows are
    real."""
    rows = [shot.events.positions, shot.final_positions[None]]
    mask = [used(shot), jnp.ones((1,), bool)]
    if shot.dropped_span is not None and shot.dropped is not None:  # None (made by hand): nothing dropped
        lo, hi = shot.dropped_span[..., 0, :], shot.dropped_span[..., 1, :]
        corners = [jnp.stack([c[0][:, 0], c[1][:, 1]], axis=-1) for c in ((lo, lo), (lo, hi), (hi, lo), (hi, hi))]
        rows.append(jnp.stack(corners))
        mask.append(jnp.broadcast_to(shot.dropped > 0, (4,)))
    return jnp.concatenate(rows, axis=0), jnp.concatenate(mask)


def status_ok(shot: ShotResult):
    """() bool: the simulation reports nothing wrong (no overflow, valid shot and layout)."""
    return (shot.status == 0) & ~shot.overflow
