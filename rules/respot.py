"""Where the referee puts balls: starting positions, re-spots of jumped and frozen balls, and the
red in hand on the cross axis. Pure functions of arrays; shapes: positions (3, 2) float.
"""
from __future__ import annotations

import jax.numpy as jnp

from rules import geometry
from rules.state import RED_CAROM


def starting_position(table, shooter, side=0):
    """(3, 2): rule C-2.1 with ``shooter`` in the breaker's place.

    Red on the top spot; the other player's ball on the middle head-string spot; the shooter's
    ball on a side spot of the head string (side 0: right, 1: left; his choice, C-2.1 c).
    Also used for every "starting position" re-spot (C-8.3, C-11.3, C-11.4, C-12.7 a, C-12.8,
    C-13.3, C-13.4 a): open point, the documents do not say whose ball goes where then, so the
    next shooter takes the breaker's place.
    """
    spots = table.head_string_spots
    own = jnp.where(side == 1, spots[2], spots[0])
    shooter = jnp.asarray(shooter, jnp.int32)
    positions = jnp.stack([
        jnp.where(shooter == 0, own, spots[1]),
        jnp.where(shooter == 1, own, spots[1]),
        table.top_spot,
    ])
    return positions


def lag_position(table):
    """(3, 2): rule C-1.1: white right and yellow left of the head spot, red on the top spot."""
    spots = table.head_string_spots
    return jnp.stack([spots[0], spots[2], table.top_spot])


def three_cushion_spots(table, next_shooter):
    """(3, 2): each ball's re-spot point (rule C-13.4 b): red to the top spot, the next shooter's
    ball to the middle head-string spot, the other player's ball to the centre spot."""
    mid = table.head_string_spots[1]
    ns = jnp.asarray(next_shooter, jnp.int32)
    return jnp.stack([
        jnp.where(ns == 0, mid, table.centre),
        jnp.where(ns == 1, mid, table.centre),
        table.top_spot,
    ])


def respot_to_spots(positions, off, spots, clearance):
    """(3, 2): put the balls that are off the table on their spots (rule C-13.4 b, c, d).

    off: (3,) bool. Balls are placed one by one in index order. A spot is taken if a ball on the
    table is closer than ``clearance`` (2R + the frozen tolerance) to it; then the ball goes to the
    spot of the ball that takes it (C-13.4 c), following the chain at most three steps. When all
    three are off they simply go to their own spots (C-13.4 d).
    """
    n = positions.shape[0]
    present = ~off
    for b in range(n):
        target = jnp.asarray(b, jnp.int32)
        for _ in range(n):
            d = jnp.linalg.norm(positions - spots[target], axis=-1)
            taker = present & (d < clearance) & (jnp.arange(n) != b)
            target = jnp.where(jnp.any(taker), jnp.argmax(taker).astype(jnp.int32), target)
        placed = jnp.where(off[b], spots[target], positions[b])
        positions = positions.at[b].set(placed)
        present = present.at[b].set(True)
    return positions


def hungarian_jumped(positions, jumped, base_spots, clearance):
    """Rule H-7 for target balls 1 and 2: ((3, 2) positions, () int32 base_spot_ball).

    One jumped target ball goes on a free base spot; if both are free the next shooter chooses
    (bottom one by default, and ``base_spot_ball`` names the ball he may move). Two jumped target
    balls go white to the bottom and yellow to the top base spot (open point: H-7.3 / H-7.4 do not
    say which goes where). The cue ball, taken off whenever a ball jumped, is placed separately.
    """
    j1, j2 = jumped[1], jumped[2]
    both = j1 & j2
    one = j1 ^ j2
    ball = jnp.where(j1, 1, 2)
    other = 3 - ball
    other_pos = positions[other]
    free = jnp.linalg.norm(base_spots - other_pos, axis=-1) >= clearance  # (2,)
    choice_spot = jnp.where(free[0], 0, 1)
    one_pos = base_spots[choice_spot]
    positions = jnp.where(both, positions.at[1].set(base_spots[0]).at[2].set(base_spots[1]), positions)
    positions = jnp.where(one, positions.at[ball].set(one_pos), positions)
    base_spot_ball = jnp.where(one & free[0] & free[1], ball, -1).astype(jnp.int32)
    return positions, base_spot_ball


def place_on_cross_axis(ruleset, params, positions, cue, wanted_y, pin_standing, pin_position):
    """(3, 2): the red placed on the cross axis (rule H-6.4) as near ``wanted_y`` as it may go:
    inside the cushions and not touching a ball or the standing pin."""
    table = params.table
    R = params.ball.radius
    tol = ruleset.frozen_tolerance
    n = positions.shape[0]
    others = jnp.arange(n) != cue
    centres = jnp.concatenate([positions, pin_position[None]], axis=0)
    clearances = jnp.concatenate([
        jnp.full((n,), 2 * R + tol),
        (R + ruleset.pin_radius + tol)[None],
    ]).astype(positions.dtype)
    active = jnp.concatenate([others, jnp.asarray(pin_standing)[None]])
    reach = params.cushion_reach
    y = geometry.nearest_free_on_line(
        jnp.asarray(wanted_y, positions.dtype), 0.5 * table.length, reach, table.width - reach,
        centres, clearances, active,
    )
    return positions.at[cue].set(jnp.stack([0.5 * table.length, y]).astype(positions.dtype))


__all__ = [
    "starting_position", "lag_position", "three_cushion_spots", "respot_to_spots",
    "hungarian_jumped", "place_on_cross_axis", "RED_CAROM",
]
