"""Real roots of quartics and quadratics on an interval, for event detection (docs/physics.md section 1).

Between events every ball moves on a quadratic-in-time path, so the squared centre distance of two
balls minus (2R)^2 is a quartic f(t) = c4 t^4 + c3 t^3 + c2 t^2 + c1 t + c0, and the distance of a
ball to a straight cushion is a quadratic. The next contact is the first time f crosses zero going
down. This module finds such times inside ``jax.jit`` / ``jax.vmap``, on CPU and GPU.

Method: monotone-segment bracketing, bottom-up, then a safeguarded Newton-type iteration.

1. The roots of f''' (linear) and f'' (quadratic, numerically stable closed form) split [lo, hi]
   into at most four segments on which f' is monotone and has constant curvature. (The root of
   f''' is the vertex of f'', so it lies between the two roots of f'': the order is known without
   sorting.)
2. In each such segment where f' changes sign, its single root is found by the safeguarded
   iteration below.
3. The roots of f' and f'' then split [lo, hi] into at most six segments on which f is monotone
   with constant curvature: each holds at most one root, and it is there exactly when the values
   of f at the two ends differ in sign. The same iteration finds it. A local extremum of f whose
   value is within rounding of 0 counts as exactly 0, so a tangency (double root) is reported
   once, at the extremum, instead of randomly as none or as two roots split by ~sqrt(eps).

The iteration (``_bracketed_newton``) keeps a bracket that it shrinks by the sign of g at every
iterate, takes the step when it stays inside the bracket and bisects otherwise, and starts at the
segment end with the smaller |g|. The step is Laguerre's, x - n g / (g' +- sqrt((n-1)((n-1) g'^2
- n g g''))) with n the degree (3 for f', 4 for f), sign chosen to point into the bracket: a
Newton step corrected with g''. It is exact for (t - r)^n and reaches full float64 precision in
4-5 iterations where plain Newton needed 24-32 (docs/physics.md section 1); DERIV_ITERS and
ROOT_ITERS keep a margin for the slowest cases measured.

Everything is branch-free (``jnp.where``) with bounded iteration counts (a rolled ``while_loop``
that stops once every iterate it needs has stopped moving), so it traces once and runs in
lock-step over a batch. It handles degenerate inputs: leading coefficients that are exactly zero
(a quadratic is a quartic with c4 = c3 = 0), double roots and tangencies, constant and zero
polynomials.

Not the companion matrix's eigenvalues (``numpy.roots``): docs/physics.md section 1 says why.

Shapes: coefficient arrays are (..., 5), highest degree first (c4, c3, c2, c1, c0); interval ends
broadcast against the batch shape (...). Computation is in the floating dtype of the inputs
(float32 stays float32).
"""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax

# Iterations for the roots of f' (cubic) and of f (quartic), per segment. Measured in float64 on
# 1500 quartics per family (random real roots in [0, 30], complex pairs, ball-ball contact
# quartics, root clusters 1e-9..1e-1 apart, perturbed and exact triple and quadruple roots,
# quadratics, leading coefficient 1e-18, coefficients spread over 8 decades, roots scaled by 1e-5
# and 1e6): with 8 / 12 every returned root has backward error |f(t)| <= 16 eps sum |c_i t^i|
# (full precision) and no sign change of f is missed. Typical quartics converge in 4-5; exact
# triple roots are the slowest (12 for f, 6 for f').
DERIV_ITERS = 8
ROOT_ITERS = 12


def _float_dtype(*args):
    """The floating dtype of the inputs (python scalars are weak and do not promote)."""
    return jnp.result_type(*args, 1.0)


def polyval(coeffs, t):
    """Evaluate a polynomial by Horner's rule.

    Args:
      coeffs: (..., n) coefficients, highest degree first.
      t: array broadcastable against coeffs.shape[:-1].
    Returns:
      the values, shape broadcast(coeffs.shape[:-1], t.shape).
    """
    coeffs = jnp.asarray(coeffs)
    t = jnp.asarray(t)
    y = coeffs[..., 0] + jnp.zeros_like(t, dtype=_float_dtype(coeffs, t))
    for i in range(1, coeffs.shape[-1]):
        y = y * t + coeffs[..., i]
    return y


def polyder(coeffs):
    """(..., n) coefficients, highest first -> (..., n - 1) coefficients of the derivative."""
    coeffs = jnp.asarray(coeffs)
    n = coeffs.shape[-1]
    powers = jnp.arange(n - 1, 0, -1, dtype=_float_dtype(coeffs))
    return coeffs[..., :-1] * powers


def _horner(cs, x):
    """cs: tuple of arrays broadcastable against x, highest degree first."""
    y = cs[0]
    for c in cs[1:]:
        y = y * x + c
    return y


def _derivative_tuples(cs):
    """(c4, c3, c2, c1, c0) -> the coefficient tuples of f, f', f'', f'''."""
    c4, c3, c2, c1, c0 = cs
    return cs, (4 * c4, 3 * c3, 2 * c2, c1), (12 * c4, 6 * c3, 2 * c2), (24 * c4, 6 * c3)


def _bracketed_newton(g, g1, g2, a, b, ga, gb, iters, deg, active):
    """Safeguarded Newton-type (Laguerre) iteration for the single root of g in [a, b].

    g, g1, g2: coefficient tuples of g, g', g'' (broadcastable against a); deg: the degree bound
    of g. a, b, ga = g(a), gb = g(b): arrays (broadcast together) with a <= b and g(a), g(b) of
    opposite signs or one of them zero (elsewhere the result is some point of [a, b]). g should be
    monotone on [a, b]. Returns the root estimate, same shape as a: exactly a (b) where ga (gb) is
    0, which lets the caller mark an end as a root (see ``_segments``).

    Each iteration evaluates g, g', g'' at the iterate x, shrinks the bracket by the sign of g(x),
    and takes Laguerre's step x - n g / (g' -/+ sqrt((n-1)((n-1) g'^2 - n g g''))) (the sign
    chosen to point into the bracket) when it stays inside the bracket, else bisects. The start is
    the end with the smaller |g|.

    An iteration that leaves x unchanged leaves the whole state (x and the bracket) at a fixed
    point, so the loop stops early once no element of ``active`` (a boolean mask broadcastable
    against a: the elements whose answer the caller uses) moved: there the answer is bit for bit
    that of all ``iters`` iterations, and elsewhere the caller discards it.
    """
    x = jnp.where(jnp.abs(ga) <= jnp.abs(gb), a, b)
    sa = jnp.sign(ga)  # g keeps this sign on [a, root) and the other on (root, b]
    n = float(deg)
    active = jnp.broadcast_to(active, x.shape)

    # A rolled loop: unrolled, XLA's fusion recomputes earlier iterates inside later ones and the
    # cost grows faster than the iteration count (measured ~3x slower per iteration on CPU).
    def step(carry):
        k, _, x, lo_b, hi_b = carry
        gx = _horner(g, x)
        dgx = _horner(g1, x)
        d2gx = _horner(g2, x)
        same = gx * sa > 0
        zero = gx == 0
        lo_b = jnp.where(same | zero, x, lo_b)
        hi_b = jnp.where(same & ~zero, hi_b, x)
        s = jnp.sqrt(jnp.maximum((n - 1.0) * ((n - 1.0) * dgx * dgx - n * gx * d2gx), 0.0))
        den = dgx - sa * s  # g' has the sign -sa on a monotone bracket
        ok = den != 0
        cand = x - n * gx / jnp.where(ok, den, 1.0)
        inside = ok & (cand >= lo_b) & (cand <= hi_b)
        new = jnp.where(inside, cand, 0.5 * (lo_b + hi_b))
        return k + 1, jnp.any(active & (new != x)), new, lo_b, hi_b

    def moving(carry):
        return (carry[0] < iters) & carry[1]

    a, b = jnp.broadcast_to(a, x.shape), jnp.broadcast_to(b, x.shape)
    _, _, x, _, _ = lax.while_loop(moving, step, (jnp.zeros((), jnp.int32), jnp.ones((), bool), x, a, b))
    return jnp.where(ga == 0, a, jnp.where(gb == 0, b, x))


def _quadratic_roots(a, b, c):
    """Real roots of a t^2 + b t + c by the stable formula, both ends of which may be missing.

    Returns (r_small, r_big, has_two, has_one): has_two where a != 0 and the discriminant is >= 0
    (r_small <= r_big), has_one where a == 0 != b (then r_small = r_big = -c / b).
    """
    disc = b * b - 4.0 * a * c
    sq = jnp.sqrt(jnp.maximum(disc, 0.0))
    sgn = jnp.where(b >= 0, 1.0, -1.0)
    q = -0.5 * (b + sgn * sq)
    q_ok = q != 0
    a_ok = a != 0
    r1 = q / jnp.where(a_ok, a, 1.0)
    r2 = jnp.where(q_ok, c / jnp.where(q_ok, q, 1.0), r1)  # q == 0 (a != 0): b = c = 0, both 0
    has_two = a_ok & (disc >= 0)
    has_one = ~a_ok & (b != 0)
    r1 = jnp.where(a_ok, r1, r2)
    return jnp.minimum(r1, r2), jnp.maximum(r1, r2), has_two, has_one


def _clip_finite(x, lo, hi):
    return jnp.where(jnp.isnan(x), lo, jnp.clip(x, lo, hi))


def _segments(coeffs, lo, hi, deriv_iters):
    """Breakpoints of [lo, hi] into segments where f is monotone with constant curvature.

    coeffs (..., 5); lo, hi (...), finite with lo <= hi. Returns (cs, points, values): cs the tuple
    of coefficient arrays shaped (..., 1), points (..., 7) non-decreasing (lo, f' root or the end
    of its segment, root of f'', f' root, root of f'', f' root, hi), values f(points) (..., 7),
    where the value at an interior root of f' (a local extremum) is set to exactly 0 when it is
    within rounding (8 eps sum |c_i t^i|) of 0: a tangency (double root) then shows as a root
    instead of randomly as none or as two split by ~sqrt(eps).
    """
    cs = tuple(coeffs[..., i, None] for i in range(5))
    f, f1, f2, f3 = _derivative_tuples(cs)
    lo1, hi1 = lo[..., None], hi[..., None]
    c4, c3, c2 = cs[0], cs[1], cs[2]
    # Roots of f'' / 2 = 6 c4 t^2 + 3 c3 t + c2 and of f''' (the vertex of f'').
    rs, rb, two, one = _quadratic_roots(6.0 * c4, 3.0 * c3, c2)
    c4_ok = c4 != 0
    t3 = -c3 / jnp.where(c4_ok, 4.0 * c4, 1.0)
    t3 = jnp.where(two, jnp.clip(t3, rs, rb), t3)
    rs = jnp.where(two | one, rs, jnp.where(c4_ok, t3, lo1))
    rb = jnp.where(two | one, rb, jnp.where(c4_ok, t3, lo1))
    t3 = jnp.where(c4_ok, t3, rs)
    rs, t3, rb = (_clip_finite(v, lo1, hi1) for v in (rs, t3, rb))
    # f' is monotone with constant curvature on each of these four segments.
    a = jnp.concatenate([lo1, rs, t3, rb], axis=-1)
    b = jnp.concatenate([rs, t3, rb, hi1], axis=-1)
    ga = _horner(f1, a)
    gb = _horner(f1, b)
    has = (a < b) & ((ga * gb < 0) | (gb == 0))
    r = _bracketed_newton(f1, f2, f3, a, b, ga, gb, deriv_iters, deg=3, active=has)
    r = jnp.where(has, r, b)
    rho_a = r[..., 0:1]
    rho_b = jnp.where(has[..., 1:2], r[..., 1:2], r[..., 2:3])  # f' is monotone on [rs, rb]
    rho_c = r[..., 3:4]
    points = jnp.concatenate([lo1, rho_a, rs, rho_b, rb, rho_c, hi1], axis=-1)
    values = _horner(f, points)
    no = jnp.zeros_like(has[..., :1])
    extremum = jnp.concatenate(
        [no, has[..., 0:1], no, has[..., 1:2] | has[..., 2:3], no, has[..., 3:4], no], axis=-1)
    extremum = extremum & (points > lo1) & (points < hi1)
    eps = jnp.finfo(values.dtype).eps
    noise = 8.0 * eps * _horner(tuple(jnp.abs(c) for c in cs), jnp.abs(points))
    values = jnp.where(extremum & (jnp.abs(values) <= noise), 0.0, values)
    return cs, points, values


def _prepare(coeffs, lo, hi, *others):
    dtype = _float_dtype(coeffs, lo, hi, *others)
    coeffs = jnp.asarray(coeffs, dtype)
    batch = coeffs.shape[:-1]
    lo = jnp.broadcast_to(jnp.asarray(lo, dtype), batch)
    hi = jnp.broadcast_to(jnp.asarray(hi, dtype), batch)
    valid = jnp.isfinite(lo) & jnp.isfinite(hi) & (lo <= hi)
    lo = jnp.where(valid, lo, 0.0)
    hi = jnp.where(valid, hi, 0.0)
    return dtype, coeffs, lo, hi, valid


def real_roots_in(coeffs, lo, hi, *, deriv_iters=DERIV_ITERS, root_iters=ROOT_ITERS):
    """All real roots of a quartic in [lo, hi].

    Args:
      coeffs: (..., 5) coefficients (c4, c3, c2, c1, c0), highest degree first; leading ones may
        be zero.
      lo, hi: interval ends, broadcastable against coeffs.shape[:-1]. Where they are not finite or
        lo > hi, the interval is empty.
    Returns:
      (..., 4) roots sorted ascending, unused slots +inf. A double root (tangency) inside the
      interval appears once, at the extremum of f, as do two roots closer than rounding can
      separate (f at the extremum within ~8 eps sum |c_i t^i| of 0); a double root exactly at lo
      appears once too. Roots of higher multiplicity appear once or twice. The zero polynomial
      has no roots (all +inf).
    """
    dtype, coeffs, lo, hi, valid = _prepare(coeffs, lo, hi)
    cs, p, fp = _segments(coeffs, lo, hi, deriv_iters)
    f, f1, f2, _ = _derivative_tuples(cs)
    a, b = p[..., :-1], p[..., 1:]
    fa, fb = fp[..., :-1], fp[..., 1:]
    has = (a < b) & ((fa * fb < 0) | (fb == 0))
    r = _bracketed_newton(f, f1, f2, a, b, fa, fb, root_iters, 4, active=has)
    r = jnp.where(has, r, jnp.inf)
    at_lo = jnp.where(fp[..., :1] == 0, p[..., :1], jnp.inf)
    cand = jnp.sort(jnp.concatenate([at_lo, r], axis=-1), axis=-1)[..., :4]
    nonzero = jnp.any(coeffs != 0, axis=-1)
    return jnp.where((valid & nonzero)[..., None], cand, jnp.inf)


def start_contact(c2, c1, c0, approach_tol):
    """(...) bool: f = ... + c2 t^2 + c1 t + c0, inside or on contact at t = 0 (c0 <= 0), makes a
    contact now: it approaches faster than ``approach_tol`` (c1 < -approach_tol), or it is not
    moving apart (c1 <= 0) and is pushed inwards (c2 < 0), as a ball that spin or friction
    drives into a cushion or another ball it rests against (docs/physics.md section 1)."""
    return (c0 <= 0) & ((c1 < -approach_tol) | ((c1 <= 0) & (c2 < 0)))


def first_descending_root(coeffs, hi, approach_tol, *, deriv_iters=DERIV_ITERS,
                          root_iters=ROOT_ITERS):
    """The first time in [0, hi] at which a quartic crosses zero going down.

    Args:
      coeffs: (..., 5) coefficients (c4, c3, c2, c1, c0), highest degree first; leading ones may
        be zero (a quadratic has c4 = c3 = 0).
      hi: horizon, broadcastable against coeffs.shape[:-1]. Where it is +inf, NaN or negative the
        interval is treated as empty and the result is +inf.
      approach_tol: >= 0, broadcastable; the slope f'(0) below which a start inside or on contact
        (f(0) <= 0) counts as approaching.
    Returns:
      (...) the smallest t in [0, hi] at which f goes from > 0 to <= 0; +inf where there is none.
      A start inside or on contact (f(0) <= 0) is a contact now (0) where f'(0) <
      -approach_tol, or where f'(0) <= 0 and f''(0) < 0 (a resting contact pushed inwards,
      ``start_contact``); otherwise the result is the first descending crossing after f has
      become positive. A tangency (a local minimum of f at 0, or within rounding of 0) counts
      as a crossing, at the minimum. The answer is within the rounding-limited accuracy of the
      root (full float64 precision for simple roots).
    """
    dtype, coeffs, lo, hi, valid = _prepare(coeffs, 0.0, hi, approach_tol)
    tol = jnp.asarray(approach_tol, dtype)
    start = start_contact(coeffs[..., 2], coeffs[..., 3], coeffs[..., 4], tol)
    cs, p, fp = _segments(coeffs, lo, hi, deriv_iters)
    f, f1, f2, _ = _derivative_tuples(cs)
    a, b = p[..., :-1], p[..., 1:]
    fa, fb = fp[..., :-1], fp[..., 1:]
    desc = (fa > 0) & (fb <= 0)
    k = jnp.argmax(desc, axis=-1)[..., None]
    any_desc = jnp.any(desc, axis=-1)
    take = lambda v: jnp.take_along_axis(v, k, axis=-1)  # noqa: E731
    used = (valid & ~start & any_desc)[..., None]
    r = _bracketed_newton(f, f1, f2, take(a), take(b), take(fa), take(fb), root_iters, 4, active=used)
    r = r[..., 0]
    out = jnp.where(start, 0.0, jnp.where(any_desc, r, jnp.inf))
    return jnp.where(valid, out, jnp.inf).astype(dtype)
