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

A quartic is solved only where ``may_meet`` allows a contact in its search window: a
closed-form test that never rules out a contact the quartic search would find. The window of a
ball pair is short (it ends at the earliest cushion contact or change of motion of any ball), so
on random three-cushion shots it keeps about one pair quartic in forty, and of the ball-pin ones
about one moving ball in twenty, nearly only those that do touch. A single shot solves its
quartics only when one is needed and masks those the test ruled out; a batch of shots
(``candidate_times_batch``) packs the quartics that are needed into a short buffer, so the root
search, the costliest part of an event, runs on a few slots instead of every pair of every lane.
Both give the same times: each quartic that is solved gets the same coefficients and the same
arithmetic (compiled for another buffer size, a root may differ in its last bit).
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

# The longest step (s) of the float32 contact-time polish (``_polish_pairs``): a light touch of two
# slow balls is found up to some 20 ms late by the quartic in float32.
MAX_POLISH = 0.05

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


def cushion_gaps(r, params):
    """(..., 4) how far each centre r (..., 2) lies inside each cushion's contact line, in
    ``Cushion`` order (negative past it): the distance to the nose line less R cos(theta)."""
    L, W, reach = params.table.length, params.table.width, params.cushion_reach
    x, y = r[..., 0], r[..., 1]
    return jnp.stack([x - reach, L - x - reach, y - reach, W - y - reach], axis=-1)


def first_descending_root_quadratic(c2, c1, c0, hi, approach_tol):
    """First t in [0, hi] where c2 t^2 + c1 t + c0 falls through zero; inf if none.

    The falling root of a quadratic is (-c1 - sqrt(d)) / (2 c2) whatever the sign of c2 (the
    slope there is -sqrt(d)); for c1 < 0 it is evaluated as 2 c0 / (-c1 + sqrt(d)) to avoid
    cancellation, which also covers the linear case c2 = 0. A start on or inside contact
    (c0 <= 0) is a contact now by ``roots.start_contact`` (approaching, or pushed inwards);
    a caller reads such a start as c0 = 0 (``touching``, or the cushion gaps clamped at 0) so
    that a ball moving slowly away from a cushion it touches but pulled back, as one that spin
    drives along it, is caught when it returns (at -c1 / c2).
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


def may_meet(q0, v, a, hi, reach):
    """(..., ) bool: False only where two bodies provably stay farther apart than ``reach``.

    q0: (..., 2) the position of one relative to the other (a ball's centre relative to the pin's
    axis, or to another ball's centre, across the table: the distance across the table is never
    more than the distance in space); v, a: (..., 2) the relative velocity and acceleration, so that
    q(t) = q0 + v t + a t^2 / 2; hi: (...) the end of the window [0, hi].

    For any unit vector n, the distance |q(t)| is at least n . q(t), a quadratic in t; if that
    stays above ``reach`` on [0, hi] so does the distance, and the bodies cannot touch. Two
    directions are tried: along q0 (tight for bodies heading at each other or apart) and across
    the relative path (the miss distance of a straight path, tight for bodies that pass by). A
    margin of many rounding units of the path's scale keeps every contact, grazing or tangential,
    that the quartic search could report.
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
    pair: tuple  # (coeffs (P, 5), hi (P,), tol (P,), need (P,))
    pin: Optional[tuple]  # (coeffs (n, 5), hi (n,), tol (n,), need (n,)), or None without a pin
    paths: tuple  # (dr, dv, da) (P, 3) each: every pair's relative path in space (``_pair_paths``)


def _parts(b: Balls, params, layout: Layout, pin=None) -> _Parts:
    R = params.ball.radius
    tol = speed_tolerance(b.r.dtype)
    a = acceleration(b, params)
    hz = horizon(b, params)
    moving = translating(b.motion)
    in_play = b.motion != Motion.OFF_TABLE

    # Ball-cushion: f(t) = (distance to the nose line) - R cos(theta), across the table only.
    # A ball on the line, or past it (by rounding, or by the cushion's give, ``CushionParams.give``),
    # is in contact where it is: it meets the cushion now if it moves in, or when it is back where
    # it is now if it moves out and is pulled back in.
    c0 = jnp.maximum(cushion_gaps(b.r, params), 0.0)
    c1 = jnp.stack([b.v[:, 0], -b.v[:, 0], b.v[:, 1], -b.v[:, 1]], axis=-1)
    c2 = 0.5 * jnp.stack([a[:, 0], -a[:, 0], a[:, 1], -a[:, 1]], axis=-1)
    hi = jnp.where(moving, hz, 0.0)[:, None]
    t_cushion = jnp.where(moving[:, None], first_descending_root_quadratic(c2, c1, c0, hi, tol), jnp.inf)
    t_cap = jnp.minimum(jnp.min(t_cushion), jnp.min(hz))

    # Ball-ball, in three dimensions (a ball in the air passes over one it clears).
    slack = layout_tolerance(b.r.dtype)  # distance inside contact that is rounding
    i, j = layout.pair_i, layout.pair_j
    live = (moving[i] | moving[j]) & in_play[i] & in_play[j]
    hi_pair = jnp.where(live, jnp.minimum(jnp.minimum(hz[i], hz[j]), t_cap), 0.0)
    paths = _pair_paths(b, a, params, layout)
    dr, dv, da = paths
    coeffs = _distance_quartic(dr, dv, da, 2.0 * R)
    coeffs = coeffs.at[:, 4].set(touching(coeffs[:, 4], 4.0 * R * slack))  # |d|^2 - (2R)^2 ~ -4R overlap
    need = live & may_meet(dr[:, :2], dv[:, :2], da[:, :2], hi_pair, 2.0 * R)  # across the table
    pair = (coeffs, hi_pair, jnp.full(hi_pair.shape, 4.0 * R * tol), need)
    if pin is None:
        return _Parts(t_cushion, hz, None, pair, None, paths)

    # Ball-pin, across the table (the pin is taller than a ball in the air is high).
    position, state = pin
    reach_pin = R + params.pin.contact_radius
    pin_live = moving & (state == PIN_STANDING)
    hi_pin = jnp.where(pin_live, jnp.minimum(hz, t_cap), 0.0)
    q0 = b.r - position
    need = pin_live & may_meet(q0, b.v, a, hi_pin, reach_pin)
    coeffs_pin = _distance_quartic(q0, b.v, a, reach_pin)
    coeffs_pin = coeffs_pin.at[:, 4].set(touching(coeffs_pin[:, 4], 2.0 * reach_pin * slack))
    pin_quartic = (coeffs_pin, hi_pin, jnp.full(hi_pin.shape, 2.0 * reach_pin * tol), need)
    return _Parts(t_cushion, hz, state == PIN_FALLING, pair, pin_quartic, paths)


def _pair_paths(b: Balls, a, params, layout: Layout):
    """Each pair's relative position, velocity and acceleration in space, (P, 3) each (ball j
    relative to ball i); a: the balls' accelerations across the table."""
    i, j = layout.pair_i, layout.pair_j
    r3 = jnp.concatenate([b.r, b.z[:, None]], axis=-1)
    v3 = jnp.concatenate([b.v, b.vz[:, None]], axis=-1)
    a3 = jnp.concatenate([a, vertical_acceleration(b, params)[:, None]], axis=-1)
    return r3[j] - r3[i], v3[j] - v3[i], a3[j] - a3[i]


def _polish_pairs(paths, t, radius):
    """Ball-ball contact times (P,) refined on the gap itself, in float32 only (float64 returns t
    unchanged). paths: the pairs' relative paths (``_Parts.paths``).

    The quartic's coefficients hold terms far larger than its value near the root, and in float32
    its root is only as exact as eps times those terms: some 1e-5 s on a clean crossing, and near
    a tangency (two balls that pass within some 15 micrometres of touching) the search reports a
    contact at the closest approach whether or not they touch, milliseconds late where they touch
    lightly (then the balls meet with no approach speed and nothing happens). The gap evaluated
    from the relative position p at t (a difference of positions first, squared after) is exact
    to the rounding of a position. Two steps of its local quadratic model, g + s h + c h^2 with
    g = |p|^2 - (2R)^2, s = g'(t) and c = g''(t) / 2, move the time to the falling root of the
    model (a Newton step on a clean crossing, the entry on a light touch), and where the model has
    no root at all the balls pass apart: no contact. A time of 0 (a contact now), a step that
    would go before now or further than ``MAX_POLISH`` seconds, and a model without a falling
    root ahead of a minimum (c <= 0 and s >= 0) leave the time as it is.
    """
    if t.dtype != jnp.float32:
        return t
    dr, dv, da = paths
    dot = lambda x, y: jnp.sum(x * y, axis=-1)  # noqa: E731
    for _ in range(2):
        live = jnp.isfinite(t) & (t > 0)
        ts = jnp.where(live, t, 0.0)[:, None]
        w = dv + da * ts
        p = dr + (dv + 0.5 * da * ts) * ts
        g = dot(p, p) - (2.0 * radius) ** 2
        s = 2.0 * dot(p, w)
        c = dot(w, w) + dot(p, da)
        disc = s * s - 4.0 * c * g
        sq = jnp.sqrt(jnp.maximum(disc, 0.0))
        # The falling root: 2g / (-s + sq) while approaching (no cancellation; Newton's step as
        # c -> 0), the smaller root (-s - sq) / 2c at or past the closest approach.
        h = jnp.where(s < 0, 2.0 * g / jnp.where(s < 0, -s + sq, 1.0),
                      (-s - sq) / jnp.where(c > 0, 2.0 * c, 1.0))
        apart = (c > 0) & (disc < 0) & (jnp.abs(s) <= 2.0 * c * MAX_POLISH)
        step = live & (disc >= 0) & ((s < 0) | (c > 0)) & (t + h >= 0) & (jnp.abs(h) <= MAX_POLISH)
        t = jnp.where(live & apart, jnp.inf, jnp.where(step, t + h, t))
    return t


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
    # Ball-pin quartics join the ball-ball ones in a single root search (one loop, not two), run
    # only when ``may_meet`` keeps one of them (most events need none).
    coeffs, hi, tols, need = _quartics(parts)
    t = lax.cond(jnp.any(need), lambda: roots.first_descending_root(coeffs, hi, tols),
                 lambda: jnp.full(hi.shape, jnp.inf, hi.dtype))
    t = jnp.where(need, t, jnp.inf)
    P = layout.pairs
    return _assemble(parts, _polish_pairs(parts.paths, t[:P], params.ball.radius), None if parts.pin is None else t[P:])


def _quartics(parts: _Parts):
    """The quartics of one shot, ball-ball then ball-pin: (coeffs (Q, 5), hi, tol, need)."""
    if parts.pin is None:
        return parts.pair
    return tuple(jnp.concatenate([x, y]) for x, y in zip(parts.pair, parts.pin))


def buffer_size(lanes: int) -> int:
    """Default number of quartics solved per round of ``candidate_times_batch``."""
    return max(8, lanes // 4)


def candidate_times_batch(b: Balls, params, layout: Layout, pin=None, buffer: int | None = None):
    """``candidate_times`` for a batch of shots (leading axis on b and pin): a ``vmap`` of it (to
    the last bit of a root).

    The quartics that ``may_meet`` keeps, of every shot, are packed into a buffer of ``buffer``
    slots and solved in one root search. Should more be needed, further rounds solve the rest,
    so no contact is ever left out; the buffer size only trades work against rounds.
    """
    lanes = b.r.shape[0]
    if pin is None:
        parts = jax.vmap(lambda b: _parts(b, params, layout))(b)
    else:
        parts = jax.vmap(lambda b, p, s: _parts(b, params, layout, (p, s)))(b, *pin)
    buffer = buffer_size(lanes) if buffer is None else max(1, int(buffer))
    quartics = jax.vmap(_quartics)(parts)
    Q = quartics[0].shape[1]
    t = _solve_packed(tuple(x.reshape((lanes * Q,) + x.shape[2:]) for x in quartics), buffer).reshape(lanes, Q)
    P = layout.pairs
    t_pair = jax.vmap(lambda paths, t: _polish_pairs(paths, t, params.ball.radius))(parts.paths, t[:, :P])
    return jax.vmap(_assemble)(parts, t_pair, None if pin is None else t[:, P:])


def _solve_packed(quartics, buffer: int):
    """The first descending root of every quartic marked needed, inf for the others.

    quartics: (coeffs (N, 5), hi (N,), tol (N,), need (N,)). Round k solves the k-th ``buffer``
    needed quartics, until none is left (no round where none is needed). N may be 0 (a single
    ball without the pin has no pair and no pin to meet).
    """
    coeffs, hi, tol, need = quartics
    N = coeffs.shape[0]
    dtype = coeffs.dtype
    if N == 0:  # no quartic at all (one ball and no pin): nothing to pack, and nothing to gather from
        return jnp.zeros((0,), dtype)
    # One dummy row at the end: index N (zero interval: no root; its result is dropped).
    pad = lambda x: jnp.concatenate([x, jnp.zeros((1,) + x.shape[1:], x.dtype)])  # noqa: E731
    coeffs, hi, tol = pad(coeffs), pad(hi), pad(tol)
    rank = jnp.cumsum(need.astype(jnp.int32)) - 1
    count = jnp.sum(need.astype(jnp.int32))
    order = jnp.full((N,), N, jnp.int32).at[jnp.where(need, rank, N)].set(
        jnp.arange(N, dtype=jnp.int32), mode="drop")  # order[r]: the r-th needed quartic
    slot = jnp.arange(buffer, dtype=jnp.int32)

    def body(carry):
        k, t_all = carry
        r = k * buffer + slot
        q = jnp.where(r < count, order[jnp.clip(r, 0, N - 1)], N)
        t = roots.first_descending_root(coeffs[q], hi[q], tol[q])
        return k + 1, t_all.at[q].set(t, mode="drop")

    def cond(carry):
        return carry[0] * buffer < count

    init = (jnp.zeros((), jnp.int32), jnp.full((N,), jnp.inf, dtype))
    return lax.while_loop(cond, body, init)[1]
