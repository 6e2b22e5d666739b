"""Which event comes next: candidate times for every pair of bodies, and the earliest of them.

Candidates, in the order that also breaks ties between simultaneous events (argmin keeps the
first): ball-ball pairs (i < j, lexicographic), then ball-cushion (ball-major, cushions in
``Cushion`` order), then the end of each ball's motion state. So at the same instant collisions
are resolved before state changes, and lower ball indices first.

- ball-cushion: the distance from a ball's centre to a cushion's nose line is quadratic in t;
  contact is where it falls to R cos(theta) (the nose touches the ball above its equator), while
  the ball is moving towards that cushion.
- ball-ball: |r_j(t) - r_i(t)|^2 - (2R)^2 is a quartic; contact is its first downward crossing.
Searches are limited to each ball's horizon, where its closed-form trajectory stops being valid,
and ball-ball searches to the earliest of the cheaper candidates.
A touching pair or a ball touching a cushion collides at t = 0 only if it approaches faster than
the speed tolerance, so frozen balls neither hang the loop nor overlap.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from physics import roots
from physics.events import Cushion, Motion
from physics.motion import acceleration, horizon, speed_tolerance

# Unit vectors from a ball's centre towards each cushion, in ``Cushion`` order.
CUSHION_NORMALS = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]])
assert [Cushion.BOTTOM, Cushion.TOP, Cushion.RIGHT, Cushion.LEFT] == [0, 1, 2, 3]


def pairs(n_balls: int):
    """Static (P,) index arrays of the ball pairs i < j."""
    i, j = np.triu_indices(n_balls, 1)
    return i.astype(np.int32), j.astype(np.int32)


def first_descending_root_quadratic(c2, c1, c0, hi, approach_tol):
    """First t in [0, hi] where c2 t^2 + c1 t + c0 falls through zero; inf if none.

    The falling root of a quadratic is (-c1 - sqrt(d)) / (2 c2) whatever the sign of c2 (the
    slope there is -sqrt(d)); for c1 < 0 it is evaluated as 2 c0 / (-c1 + sqrt(d)) to avoid
    cancellation, which also covers the linear case c2 = 0. At t = 0 a non-positive value counts
    only while falling faster than approach_tol.
    """
    d = c1 * c1 - 4.0 * c2 * c0
    sd = jnp.sqrt(jnp.maximum(d, 0.0))
    den_neg = jnp.where(c1 < 0, -c1 + sd, 1.0)
    den_pos = jnp.where(c2 != 0, 2.0 * c2, 1.0)
    t = jnp.where(c1 < 0, 2.0 * c0 / den_neg, (-c1 - sd) / den_pos)
    has_root = (d >= 0) & ((c1 < 0) | (c2 != 0))
    later = has_root & (t > 0) & (t <= hi)
    now = (c0 <= 0) & (c1 < -approach_tol)
    return jnp.where(now, 0.0, jnp.where(later, t, jnp.inf))


def candidate_times(r, v, w, motion, params, pair_i, pair_j):
    """Times from now of every candidate event: (P + 4n + n,) in the tie-breaking order above."""
    R = params.ball.radius
    tol = speed_tolerance(r.dtype)
    a = acceleration(v, w, motion, params)
    hz = horizon(v, w, motion, params)
    moving = (motion == Motion.SLIDING) | (motion == Motion.ROLLING)

    # Ball-cushion: f(t) = (distance to the nose line) - R cos(theta).
    L, W, reach = params.table.length, params.table.width, params.cushion_reach
    x, y = r[:, 0], r[:, 1]
    c0 = jnp.stack([x - reach, L - x - reach, y - reach, W - y - reach], axis=-1)
    c1 = jnp.stack([v[:, 0], -v[:, 0], v[:, 1], -v[:, 1]], axis=-1)
    c2 = 0.5 * jnp.stack([a[:, 0], -a[:, 0], a[:, 1], -a[:, 1]], axis=-1)
    hi = jnp.where(moving, hz, 0.0)[:, None]
    t_cushion = first_descending_root_quadratic(c2, c1, c0, hi, tol)
    t_cushion = jnp.where(moving[:, None], t_cushion, jnp.inf)

    # Ball-ball: f(t) = |dr + dv t + da t^2 / 2|^2 - (2R)^2, a quartic.
    dr, dv, da = r[pair_j] - r[pair_i], v[pair_j] - v[pair_i], a[pair_j] - a[pair_i]
    dot = lambda p, q: jnp.sum(p * q, axis=-1)  # noqa: E731
    coeffs = jnp.stack(
        [
            0.25 * dot(da, da),
            dot(dv, da),
            dot(dv, dv) + dot(dr, da),
            2.0 * dot(dr, dv),
            dot(dr, dr) - 4.0 * R * R,
        ],
        axis=-1,
    )
    either_moving = moving[pair_i] | moving[pair_j]
    # No pair needs searching past the earliest cushion contact or change of state: whatever the
    # pairs do after it, that event comes first. Short intervals also make the search cheaper.
    t_cap = jnp.minimum(jnp.min(t_cushion), jnp.min(hz))
    hi_pair = jnp.where(either_moving, jnp.minimum(jnp.minimum(hz[pair_i], hz[pair_j]), t_cap), 0.0)
    t_pair = roots.first_descending_root(coeffs, hi_pair, 4.0 * R * tol)
    t_pair = jnp.where(either_moving, t_pair, jnp.inf)

    return jnp.concatenate([t_pair, t_cushion.reshape(-1), hz])
