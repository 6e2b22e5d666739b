"""Which event comes next: candidate times for every pair of bodies, and the earliest of them.

Candidates, in the order that also breaks ties between simultaneous events (argmin keeps the
first):

======================  =====  ===================================================
group                   count  contact when
======================  =====  ===================================================
ball-ball               P      |centre distance| (3-D) falls to 2R
ball-pin (with a pin)   n      distance to the pin's axis falls to R + pin radius
ball-cushion            4n     distance to the nose line falls to R cos(theta)
pin falls (with a pin)  1      now, once a hit has toppled it
end of motion state     n      the state's horizon (``physics.motion``)
======================  =====  ===================================================

So at one instant collisions are resolved before state changes, and lower indices first.
Distances between parabolic paths give quartics in t (``physics.roots``), distances to straight
cushions quadratics. Searches are limited to each ball's horizon, where its closed-form path
stops being valid, and the quartic searches to the earliest of the cheaper candidates. A touching
pair collides at t = 0 only if it approaches faster than the speed tolerance, so frozen balls
neither hang the loop nor overlap.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from physics import roots
from physics.events import Cushion, Motion
from physics.motion import Balls, acceleration, horizon, speed_tolerance, translating, vertical_acceleration

# Unit vectors from a ball's centre towards each cushion, in ``Cushion`` order.
CUSHION_NORMALS = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]])
assert [Cushion.BOTTOM, Cushion.TOP, Cushion.RIGHT, Cushion.LEFT] == [0, 1, 2, 3]

# Pin states between and during shots.
PIN_STANDING, PIN_FALLING, PIN_DOWN = 1, 2, 3


def pairs(n_balls: int):
    """Static (P,) index arrays of the ball pairs i < j."""
    i, j = np.triu_indices(n_balls, 1)
    return i.astype(np.int32), j.astype(np.int32)


class Layout:
    """Static offsets of the candidate groups for n balls, with or without a pin."""

    def __init__(self, n_balls: int, has_pin: bool):
        self.n = n_balls
        self.pair_i, self.pair_j = pairs(n_balls)
        self.pairs = len(self.pair_i)
        self.pin = self.pairs
        self.cushion = self.pin + (n_balls if has_pin else 0)
        self.fall = self.cushion + 4 * n_balls
        self.transition = self.fall + (1 if has_pin else 0)
        self.size = self.transition + n_balls


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


def _distance_quartic(dr, dv, da, reach):
    """Coefficients (..., 5) of |dr + dv t + da t^2 / 2|^2 - reach^2 (vectors on the last axis)."""
    dot = lambda p, q: jnp.sum(p * q, axis=-1)  # noqa: E731
    return jnp.stack(
        [0.25 * dot(da, da), dot(dv, da), dot(dv, dv) + dot(dr, da), 2.0 * dot(dr, dv), dot(dr, dr) - reach**2],
        axis=-1,
    )


def candidate_times(b: Balls, params, layout: Layout, pin=None):
    """Times from now of every candidate event, (layout.size,), in the order above.

    pin: None, or (position (2,), state) of the pin.
    """
    R = params.ball.radius
    tol = speed_tolerance(b.r.dtype)
    a = acceleration(b, params)
    hz = horizon(b, params)
    moving = translating(b.motion)
    in_play = b.motion != Motion.OFF_TABLE

    # Ball-cushion: f(t) = (distance to the nose line) - R cos(theta), across the table only.
    L, W, reach = params.table.length, params.table.width, params.cushion_reach
    x, y = b.r[:, 0], b.r[:, 1]
    c0 = jnp.stack([x - reach, L - x - reach, y - reach, W - y - reach], axis=-1)
    c1 = jnp.stack([b.v[:, 0], -b.v[:, 0], b.v[:, 1], -b.v[:, 1]], axis=-1)
    c2 = 0.5 * jnp.stack([a[:, 0], -a[:, 0], a[:, 1], -a[:, 1]], axis=-1)
    hi = jnp.where(moving, hz, 0.0)[:, None]
    t_cushion = jnp.where(moving[:, None], first_descending_root_quadratic(c2, c1, c0, hi, tol), jnp.inf)
    t_cap = jnp.minimum(jnp.min(t_cushion), jnp.min(hz))

    # Ball-ball, in three dimensions (a ball in the air passes over one it clears).
    i, j = layout.pair_i, layout.pair_j
    r3 = jnp.concatenate([b.r, b.z[:, None]], axis=-1)
    v3 = jnp.concatenate([b.v, b.vz[:, None]], axis=-1)
    a3 = jnp.concatenate([a, vertical_acceleration(b, params)[:, None]], axis=-1)
    live = (moving[i] | moving[j]) & in_play[i] & in_play[j]
    hi_pair = jnp.where(live, jnp.minimum(jnp.minimum(hz[i], hz[j]), t_cap), 0.0)
    coeffs = _distance_quartic(r3[j] - r3[i], v3[j] - v3[i], a3[j] - a3[i], 2.0 * R)
    tols = jnp.full(hi_pair.shape, 4.0 * R * tol)
    if pin is not None:
        # Ball-pin quartics join the ball-ball ones in a single root search (one loop, not two).
        position, state = pin
        reach_pin = R + params.pin.contact_radius
        pin_live = moving & (state == PIN_STANDING)
        hi_pin = jnp.where(pin_live, jnp.minimum(hz, t_cap), 0.0)
        coeffs = jnp.concatenate([coeffs, _distance_quartic(b.r - position, b.v, a, reach_pin)])
        hi_pair = jnp.concatenate([hi_pair, hi_pin])
        tols = jnp.concatenate([tols, jnp.full(hi_pin.shape, 2.0 * reach_pin * tol)])
        live = jnp.concatenate([live, pin_live])
    t_quartic = jnp.where(live, roots.first_descending_root(coeffs, hi_pair, tols), jnp.inf)
    groups = [t_quartic]
    groups.append(t_cushion.reshape(-1))
    if pin is not None:
        groups.append(jnp.where(pin[1] == PIN_FALLING, 0.0, jnp.inf)[None])
    groups.append(hz)
    return jnp.concatenate(groups)
