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
pair collides at t = 0 only if it approaches faster than the speed tolerance or is pushed
together (``roots.start_contact``), so frozen balls at rest do not hang the loop, and balls that
spin or friction drives into a cushion or a ball they touch do not pass into it.

Ball-pin quartics are solved only for the balls that may reach the pin in their search window
(``may_reach_pin``): a closed-form test that never rules out a contact the quartic search would
find, and on random Hungarian shots keeps about one moving ball in twenty, nearly only those that
do touch the pin. A single shot solves every quartic and masks the pin ones the test ruled out; a
batch of shots (``candidate_times_batch``) packs only the pin quartics that are needed into a
short buffer next to the ball-ball ones, so the pin adds little root-finding work. Both give the
same times: each quartic that is solved gets the same coefficients and the same arithmetic.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from physics import roots
from physics.events import Cushion, Motion
from physics.motion import (
    Balls, acceleration, horizon, layout_tolerance, speed_tolerance, translating, vertical_acceleration,
)

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


def touching(c0, slack):
    """c0 with a start inside contact by no more than ``slack`` read as touching (0): the
    rounding of the event that brought the bodies together, which would otherwise hide a slow
    separation that is pulled back (the value never becomes positive, so never falls through
    zero, and the bodies pass into each other)."""
    return jnp.where((c0 <= 0) & (c0 >= -slack), 0.0, c0)


def first_descending_root_quadratic(c2, c1, c0, hi, approach_tol):
    """First t in [0, hi] where c2 t^2 + c1 t + c0 falls through zero; inf if none.

    The falling root of a quadratic is (-c1 - sqrt(d)) / (2 c2) whatever the sign of c2 (the
    slope there is -sqrt(d)); for c1 < 0 it is evaluated as 2 c0 / (-c1 + sqrt(d)) to avoid
    cancellation, which also covers the linear case c2 = 0. A start on or inside contact
    (c0 <= 0) is a contact now by ``roots.start_contact`` (approaching, or pushed inwards);
    pass c0 through ``touching`` so that a ball moving slowly away from a cushion it touches
    but pulled back, as one that spin drives along it, is caught when it returns (at -c1 / c2).
    """
    now = roots.start_contact(c2, c1, c0, approach_tol)
    d = c1 * c1 - 4.0 * c2 * c0
    sd = jnp.sqrt(jnp.maximum(d, 0.0))
    den_neg = jnp.where(c1 < 0, -c1 + sd, 1.0)
    den_pos = jnp.where(c2 != 0, 2.0 * c2, 1.0)
    t = jnp.where(c1 < 0, 2.0 * c0 / den_neg, (-c1 - sd) / den_pos)
    has_root = (d >= 0) & ((c1 < 0) | (c2 != 0))
    later = has_root & (t > 0) & (t <= hi)
    return jnp.where(now, 0.0, jnp.where(later, t, jnp.inf))


def _distance_quartic(dr, dv, da, reach):
    """Coefficients (..., 5) of |dr + dv t + da t^2 / 2|^2 - reach^2 (vectors on the last axis)."""
    dot = lambda p, q: jnp.sum(p * q, axis=-1)  # noqa: E731
    return jnp.stack(
        [0.25 * dot(da, da), dot(dv, da), dot(dv, dv) + dot(dr, da), 2.0 * dot(dr, dv), dot(dr, dr) - reach**2],
        axis=-1,
    )


def _min_quadratic(c2, c1, c0, hi):
    """The smallest value of c2 t^2 + c1 t + c0 on [0, hi] (-inf or NaN, never a false large
    value, where hi is not finite)."""
    at_ends = jnp.minimum(c0, (c2 * hi + c1) * hi + c0)
    vertex = -c1 / jnp.where(c2 > 0, 2.0 * c2, 1.0)
    inside = (c2 > 0) & (vertex > 0) & (vertex < hi)
    return jnp.where(inside, jnp.minimum(at_ends, c0 + 0.5 * c1 * vertex), at_ends)


def may_reach_pin(q0, v, a, hi, reach):
    """(..., ) bool: False only where a ball provably stays farther than ``reach`` from the pin.

    q0: (..., 2) the ball's centre relative to the pin's axis; v, a: (..., 2) its velocity and
    acceleration, so that it is at q0 + v t + a t^2 / 2; hi: (...) the end of the window [0, hi].

    For any unit vector n, the distance |q(t)| is at least n . q(t), a quadratic in t; if that
    stays above ``reach`` on [0, hi] so does the distance, and the ball cannot touch the pin. Two
    directions are tried: towards the ball from the pin (tight for a ball heading at the pin or
    away from it) and across the ball's path (the miss distance of a straight path, tight for a
    ball that passes by). A margin of many rounding units of the path's scale keeps every contact,
    grazing or tangential, that the quartic search could report.
    """
    dot = lambda p, q: jnp.sum(p * q, axis=-1)  # noqa: E731
    norm = lambda p: jnp.sqrt(dot(p, p))  # noqa: E731
    eps = jnp.finfo(q0.dtype).eps
    d0 = norm(q0)
    n1 = q0 / jnp.where(d0 > 0, d0, 1.0)[..., None]
    # Across the path: perpendicular to v, or to a for a ball that starts from rest. Any unit
    # vector gives a valid bound (a zero vector just gives none), so the choice only tunes it.
    speed = norm(v)
    along = jnp.where((speed > 0)[..., None], v, a)
    size = norm(along)
    n2 = jnp.stack([-along[..., 1], along[..., 0]], axis=-1) / jnp.where(size > 0, size, 1.0)[..., None]
    n2 = n2 * jnp.sign(dot(n2, q0))[..., None]
    scale = d0 + (speed + 0.5 * norm(a) * hi) * hi + reach
    margin = 64.0 * eps * (scale + scale * scale / reach)
    apart = [
        _min_quadratic(0.5 * dot(n, a), dot(n, v), dot(n, q0) - reach - margin, hi) > 0 for n in (n1, n2)
    ]
    return ~(apart[0] | apart[1])


class _Parts(NamedTuple):
    """Everything about the candidates of one shot except the quartic roots."""

    t_cushion: jnp.ndarray  # (n, 4)
    hz: jnp.ndarray  # (n,)
    falling: Optional[jnp.ndarray]  # () bool: the pin is falling; None without a pin
    pair: tuple  # (coeffs (P, 5), hi (P,), tol (P,), live (P,))
    pin: Optional[tuple]  # (coeffs (n, 5), hi (n,), tol (n,), need (n,)), or None without a pin


def _parts(b: Balls, params, layout: Layout, pin=None) -> _Parts:
    R = params.ball.radius
    tol = speed_tolerance(b.r.dtype)
    a = acceleration(b, params)
    hz = horizon(b, params)
    moving = translating(b.motion)
    in_play = b.motion != Motion.OFF_TABLE

    # Ball-cushion: f(t) = (distance to the nose line) - R cos(theta), across the table only.
    L, W, reach = params.table.length, params.table.width, params.cushion_reach
    x, y = b.r[:, 0], b.r[:, 1]
    slack = layout_tolerance(b.r.dtype)  # distance inside contact that is rounding
    c0 = touching(jnp.stack([x - reach, L - x - reach, y - reach, W - y - reach], axis=-1), slack)
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
    coeffs = coeffs.at[:, 4].set(touching(coeffs[:, 4], 4.0 * R * slack))  # |d|^2 - (2R)^2 ~ -4R overlap
    pair = (coeffs, hi_pair, jnp.full(hi_pair.shape, 4.0 * R * tol), live)
    if pin is None:
        return _Parts(t_cushion, hz, None, pair, None)

    # Ball-pin, across the table (the pin is taller than a ball in the air is high).
    position, state = pin
    reach_pin = R + params.pin.contact_radius
    pin_live = moving & (state == PIN_STANDING)
    hi_pin = jnp.where(pin_live, jnp.minimum(hz, t_cap), 0.0)
    q0 = b.r - position
    need = pin_live & may_reach_pin(q0, b.v, a, hi_pin, reach_pin)
    coeffs_pin = _distance_quartic(q0, b.v, a, reach_pin)
    coeffs_pin = coeffs_pin.at[:, 4].set(touching(coeffs_pin[:, 4], 2.0 * reach_pin * slack))
    pin_quartic = (coeffs_pin, hi_pin, jnp.full(hi_pin.shape, 2.0 * reach_pin * tol), need)
    return _Parts(t_cushion, hz, state == PIN_FALLING, pair, pin_quartic)


def _assemble(parts: _Parts, t_pair, t_pin):
    groups = [t_pair]
    if parts.pin is not None:
        groups.append(t_pin)
    groups.append(parts.t_cushion.reshape(-1))
    if parts.falling is not None:  # set exactly when there is a pin
        groups.append(jnp.where(parts.falling, 0.0, jnp.inf)[None])
    groups.append(parts.hz)
    return jnp.concatenate(groups)


def candidate_times(b: Balls, params, layout: Layout, pin=None):
    """Times from now of every candidate event, (layout.size,), in the order above.

    pin: None, or (position (2,), state) of the pin.
    """
    parts = _parts(b, params, layout, pin)
    coeffs, hi, tols, live = parts.pair
    P = layout.pairs
    if parts.pin is not None:
        # Ball-pin quartics join the ball-ball ones in a single root search (one loop, not two).
        coeffs, hi, tols, live = (jnp.concatenate([x, y]) for x, y in zip(parts.pair, parts.pin))
    t = jnp.where(live, roots.first_descending_root(coeffs, hi, tols), jnp.inf)
    return _assemble(parts, t[:P], None if parts.pin is None else t[P:])


def pin_buffer_size(lanes: int) -> int:
    """Default number of ball-pin quartics solved per step of ``candidate_times_batch``."""
    return max(4, lanes // 8)


def candidate_times_batch(b: Balls, params, layout: Layout, pin=None, buffer: int | None = None):
    """``candidate_times`` for a batch of shots (leading axis on b and pin), equal to a ``vmap``.

    With a pin, the ball-pin quartics that ``may_reach_pin`` keeps are packed into a buffer of
    ``buffer`` slots after the ball-ball quartics, and all are solved in one root search. Should
    more be needed, further rounds solve the rest (each round as many quartics as the first), so
    no contact is ever left out; the buffer size only trades work against rounds.
    """
    if pin is None:
        return jax.vmap(lambda b: candidate_times(b, params, layout))(b)
    position, state = pin
    parts = jax.vmap(lambda b, p, s: _parts(b, params, layout, (p, s)))(b, position, state)
    lanes = b.r.shape[0]
    buffer = pin_buffer_size(lanes) if buffer is None else max(1, int(buffer))
    flat = lambda x: x.reshape((-1,) + x.shape[2:])  # noqa: E731
    pair = tuple(flat(x) for x in parts.pair)
    assert parts.pin is not None  # _parts with a pin always fills its quartic
    pin_q = tuple(flat(x) for x in parts.pin)
    t_pair, t_pin = _solve_packed(pair, pin_q, buffer)
    t_pair = jnp.where(pair[3], t_pair, jnp.inf).reshape(lanes, layout.pairs)
    t_pin = jnp.where(pin_q[3], t_pin, jnp.inf).reshape(lanes, layout.n)
    return jax.vmap(_assemble)(parts, t_pair, t_pin)


def _solve_packed(pair, pin, buffer: int):
    """Roots of every pair quartic and of the pin quartics marked needed; inf for the others.

    pair: (coeffs (NP, 5), hi, tol, live); pin: (coeffs (N, 5), hi, tol, need). Round 0 solves the
    pair quartics and the first ``buffer`` needed pin quartics; round k > 0 fills every slot with
    the next needed pin quartics, until none is left.
    """
    coeffs_p, hi_p, tol_p, _ = pair
    coeffs_q, hi_q, tol_q, need = pin
    NP, N = coeffs_p.shape[0], coeffs_q.shape[0]
    S = NP + buffer
    dtype = coeffs_q.dtype
    # One dummy row at the end of each: index NP / N (zero interval: no root).
    pad = lambda x: jnp.concatenate([x, jnp.zeros((1,) + x.shape[1:], x.dtype)])  # noqa: E731
    coeffs_p, hi_p, tol_p = pad(coeffs_p), pad(hi_p), pad(tol_p)
    coeffs_q, hi_q, tol_q = pad(coeffs_q), pad(hi_q), pad(tol_q)
    rank = jnp.cumsum(need.astype(jnp.int32)) - 1
    count = jnp.sum(need.astype(jnp.int32))
    order = jnp.full((N,), N, jnp.int32).at[jnp.where(need, rank, N)].set(
        jnp.arange(N, dtype=jnp.int32), mode="drop")  # order[r]: the r-th needed pin quartic
    slot = jnp.arange(S, dtype=jnp.int32)

    def body(carry):
        k, t_pair, t_pin = carry
        first = k == 0
        r = jnp.where(first, slot - NP, buffer + (k - 1) * S + slot)
        is_pin = ~first | (slot >= NP)
        q = jnp.where(is_pin & (r >= 0) & (r < N), order[jnp.clip(r, 0, N - 1)], N)
        p = jnp.where(is_pin, NP, jnp.minimum(slot, NP))
        c = jnp.where(is_pin[:, None], coeffs_q[q], coeffs_p[p])
        hi = jnp.where(is_pin, hi_q[q], hi_p[p])
        tol = jnp.where(is_pin, tol_q[q], tol_p[p])
        t = roots.first_descending_root(c, hi, tol)
        t_pair = jnp.where(first, t[:NP], t_pair)
        t_pin = t_pin.at[jnp.where(is_pin, q, N)].set(t, mode="drop")
        return k + 1, t_pair, t_pin

    def cond(carry):
        k = carry[0]
        return (k == 0) | (buffer + (k - 1) * S < count)

    init = (jnp.zeros((), jnp.int32), jnp.full((NP,), jnp.inf, dtype), jnp.full((N,), jnp.inf, dtype))
    _, t_pair, t_pin = lax.while_loop(cond, body, init)
    return t_pair, t_pin
