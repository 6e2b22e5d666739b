"""Tests of physics.roots: real roots of quartics on an interval and the first descending crossing.

References: numpy.roots (companion-matrix eigenvalues, polished by Newton in long double) where it
is reliable; otherwise exact rational evaluation of f at the returned roots (backward error) and a
dense sampling of f for sign changes that must not be missed. Each jitted function is compiled once
for a fixed batch shape (inputs are padded to B rows).
"""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import jax
import jax.numpy as jnp

from physics import roots  # noqa: F401  (importing physics turns on float64)

B = 256
EPS64 = np.finfo(np.float64).eps
_RR = jax.jit(roots.real_roots_in)
_FDR = jax.jit(roots.first_descending_root)


def _pad(c, *vals, dtype=np.float64):
    c = np.atleast_2d(np.asarray(c, dtype))
    n = c.shape[0]
    assert n <= B
    cp = np.zeros((B, 5), dtype)
    cp[:n] = c
    cp[n:, 3] = 1.0  # padding rows: f = t, harmless
    out = [cp]
    for v in vals:
        vp = np.zeros(B, dtype)
        vp[:n] = np.broadcast_to(np.asarray(v, dtype), (n,))
        out.append(vp)
    return n, out


def rr(c, lo, hi, dtype=np.float64):
    """real_roots_in on up to B rows (numpy in, numpy out), one compilation per dtype."""
    c = np.atleast_2d(c)
    if c.shape[0] > B:
        return np.concatenate([rr(c[i:i + B], _row(lo, i), _row(hi, i), dtype)
                               for i in range(0, c.shape[0], B)])
    n, (cp, lp, hp) = _pad(c, lo, hi, dtype=dtype)
    return np.asarray(_RR(cp, lp, hp))[:n]


def fdr(c, hi, tol, dtype=np.float64):
    c = np.atleast_2d(c)
    if c.shape[0] > B:
        return np.concatenate([fdr(c[i:i + B], _row(hi, i), _row(tol, i), dtype)
                               for i in range(0, c.shape[0], B)])
    n, (cp, hp, tp) = _pad(c, hi, tol, dtype=dtype)
    return np.asarray(_FDR(cp, hp, tp))[:n]


def _row(v, i):
    v = np.asarray(v)
    return v if v.ndim == 0 else v[i:i + B]


def poly_from_roots(rs, lead=1.0):
    c = np.real(np.poly(rs)) * lead
    return np.concatenate([np.zeros(5 - len(c)), c])


def exact_f(c, x):
    y = Fraction(0)
    xf = Fraction(float(x))
    for ci in c:
        y = y * xf + Fraction(float(ci))
    return y


def scale_at(c, x):
    return sum(abs(float(ci)) * abs(float(x)) ** k for ci, k in zip(c, range(4, -1, -1)))


def backward_ok(c, x, k=16):
    """f(x) is zero to rounding: |f(x)| <= k eps sum |c_i x^i| (exact), or f changes sign within
    two ulps of x."""
    if abs(exact_f(c, x)) <= k * EPS64 * Fraction(scale_at(c, x)):
        return True
    lo = np.nextafter(np.nextafter(x, -np.inf), -np.inf)
    hi = np.nextafter(np.nextafter(x, np.inf), np.inf)
    return exact_f(c, lo) * exact_f(c, hi) <= 0


def numpy_real_roots(c, lo, hi):
    """Real roots of c in [lo, hi] from numpy.roots, polished by Newton in long double."""
    c = np.asarray(c, np.float64)
    nz = np.flatnonzero(c)
    if len(nz) == 0 or nz[0] == 4:
        return np.zeros(0)
    r = np.roots(c[nz[0]:])
    r = r[np.abs(r.imag) <= 1e-7 * (1 + np.abs(r))].real.astype(np.longdouble)
    cl = c.astype(np.longdouble)
    dl = np.polyder(cl)
    for _ in range(4):
        d = np.polyval(dl, r)
        r = np.where(d != 0, r - np.polyval(cl, r) / np.where(d != 0, d, 1), r)
    r = np.sort(r.astype(np.float64))
    return r[(r >= lo) & (r <= hi)]


def root_tol(c, r, k=64):
    """A tight tolerance for a simple root r: k eps times its condition number, plus 4 ulp."""
    d = abs(np.polyval(np.polyder(np.asarray(c, np.float64)), r))
    return k * EPS64 * scale_at(c, r) / max(d, 1e-300) + 4 * EPS64 * abs(r)


def missed_sign_changes(c, got, lo, hi, n=4001):
    """Robust sign changes of f on a dense grid (|f| far above rounding at both grid points) with
    no returned root in the grid cell."""
    t = np.linspace(lo, hi, n)
    f = np.polyval(c, t)
    noise = 1e3 * EPS64 * sum(abs(ci) * np.abs(t) ** k for ci, k in zip(c, range(4, -1, -1)))
    idx = np.flatnonzero(np.abs(f) > noise)
    s = np.sign(f[idx])
    missed = []
    for j in np.flatnonzero(s[1:] != s[:-1]):
        a, b = t[idx[j]], t[idx[j + 1]]
        if not np.any((got >= a) & (got <= b)):
            missed.append((a, b))
    return missed


def check_structure(got, lo, hi):
    fin = got[np.isfinite(got)]
    assert np.all(np.isnan(got) == False)  # noqa: E712
    assert np.all(np.diff(got[np.isfinite(got)]) >= 0), got
    assert np.all(np.isinf(got[len(fin):])), got  # +inf padding at the end
    assert np.all((fin >= lo) & (fin <= hi)), (got, lo, hi)


def check_against_numpy(c, got, lo, hi):
    ref = numpy_real_roots(c, lo, hi)
    fin = got[np.isfinite(got)]
    assert len(fin) == len(ref), (c, got, ref)
    for g, r in zip(fin, ref):
        assert abs(g - r) <= root_tol(c, r), (c, got, ref, g - r, root_tol(c, r))


# ------------------------------------------------------------------------------------------------
# Helpers of the module.

def test_polyval_and_polyder_match_numpy():
    rng = np.random.default_rng(0)
    c = rng.normal(size=(7, 5))
    t = rng.normal(size=7)
    np.testing.assert_allclose(roots.polyval(c, t), [np.polyval(ci, ti) for ci, ti in zip(c, t)],
                               rtol=1e-13)
    np.testing.assert_allclose(roots.polyder(c), [np.polyder(ci) for ci in c], rtol=0)
    assert roots.polyval(c.astype(np.float32), t.astype(np.float32)).dtype == jnp.float32


# ------------------------------------------------------------------------------------------------
# real_roots_in against numpy on well-conditioned random quartics.

def _separated(rng, n, k, lo, hi, sep):
    out = []
    while len(out) < n:
        r = np.sort(rng.uniform(lo, hi, k))
        if k < 2 or np.min(np.diff(r)) >= sep:
            out.append(rng.permutation(r))
    return np.array(out)


def test_random_factored_quartics_match_numpy_roots():
    rng = np.random.default_rng(1)
    n = 200
    lead = 10.0 ** rng.uniform(-3, 3, 3 * n)
    real4 = _separated(rng, n, 4, -5.0, 35.0, 0.3)
    two_real = _separated(rng, n, 2, -5.0, 35.0, 0.3)
    p = rng.uniform(-40, 40, (2 * n, 1))
    q = p ** 2 / 4 + 10.0 ** rng.uniform(-2, 2, (2 * n, 1))  # t^2 + p t + q has no real root
    cs = [poly_from_roots(r) for r in real4]
    cs += [np.polymul(np.poly(r), [1.0, pp[0], qq[0]]) for r, pp, qq in zip(two_real, p, q)]
    cs += [np.polymul([1.0, p[i, 0], q[i, 0]], [1.0, p[n + i, 0], q[n + i, 0]]) for i in range(n)]
    c = np.array(cs) * lead[:, None]
    lo, hi = 0.0, 30.0
    got = rr(c, lo, hi)
    all_r = [np.roots(ci).real for ci in c]
    for ci, gi, r in zip(c, got, all_r):
        if np.min(np.abs(np.concatenate([r - lo, r - hi]))) < 1e-6:
            continue  # a root at an end: in or out is decided by rounding
        check_structure(gi, lo, hi)
        check_against_numpy(ci, gi, lo, hi)
    assert np.isfinite(got).sum() > 700  # the test did compare many roots


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(-10.0, 40.0), min_size=1, max_size=4, unique=True),
       st.floats(-3.0, 3.0), st.floats(0.0, 10.0), st.floats(1.0, 30.0))
def test_hypothesis_factored_polynomials(rs, log_lead, lo, width):
    rs = np.sort(np.array(rs))
    hi = lo + width
    assume(len(rs) == 1 or np.min(np.diff(rs)) >= 1e-2)  # clusters: tested separately
    assume(np.min(np.abs(np.concatenate([rs - lo, rs - hi]))) >= 1e-6)  # a root at an end
    c = poly_from_roots(rs, 10.0 ** log_lead)
    got = rr(c, lo, hi)[0]
    check_structure(got, lo, hi)
    check_against_numpy(c, got, lo, hi)
    want = rs[(rs >= lo) & (rs <= hi)]
    fin = got[np.isfinite(got)]
    assert len(fin) == len(want)
    np.testing.assert_allclose(fin, want, rtol=1e-8, atol=1e-8)


# ------------------------------------------------------------------------------------------------
# Near-degenerate polynomials.

P = poly_from_roots
DEGENERATE = [
    # name, coefficients, lo, hi, expected roots (None: no exact expectation), abs tolerance
    ("double root", P([1, 1, 3, 4]), 0.0, 5.0, [1, 3, 4], 1e-12),
    ("double root, inexact coefficients", P([1.3, 1.3, 3, 4], 0.37), 0.0, 5.0, [1.3, 3, 4], 1e-9),
    ("double root of a quadratic", P([2.5, 2.5]), 0.0, 5.0, [2.5], 1e-12),
    ("double root at lo", P([0, 0, 2, 3]), 0.0, 5.0, [0, 2, 3], 1e-12),
    ("roots 1e-9 apart at 1e-3", P([1e-3, 1e-3 + 1e-9, 1.5, 2.5]), 0.0, 5.0,
     [1e-3, 1e-3 + 1e-9, 1.5, 2.5], 1e-12),
    ("roots 1e-9 apart at 1 (not resolvable)", P([1, 1 + 1e-9, 3, 4]), 0.0, 5.0, None, None),
    ("roots 1e-7 apart at 20", P([20, 20 + 1e-7, 3, 4], 1e-2), 0.0, 30.0, None, None),
    ("triple root", P([1, 1, 1, 5]), 0.0, 6.0, None, None),
    ("quadruple root", P([2, 2, 2, 2]), 0.0, 6.0, None, None),
    ("leading coefficient 1e-18", np.r_[1e-18, P([1, 2, 3])[1:]], 0.0, 10.0, [1, 2, 3], 1e-12),
    ("leading coefficient -1e-18", np.r_[-1e-18, P([1, 2, 3])[1:]], 0.0, 10.0, [1, 2, 3], 1e-12),
    ("cubic (c4 = 0)", P([1, 2, 3]), 0.0, 10.0, [1, 2, 3], 1e-12),
    ("quadratic (c4 = c3 = 0)", P([0.5, 7]), 0.0, 10.0, [0.5, 7], 1e-12),
    ("quadratic, complex roots", np.array([0, 0, 1.0, 0.0, 1.0]), -5.0, 5.0, [], 0),
    ("linear", np.array([0, 0, 0, 2.0, -3.0]), 0.0, 10.0, [1.5], 0),
    ("constant", np.array([0, 0, 0, 0, 3.0]), 0.0, 10.0, [], 0),
    ("constant negative", np.array([0, 0, 0, 0, -2.0]), 0.0, 10.0, [], 0),
    ("zero polynomial", np.zeros(5), 0.0, 10.0, [], 0),
    ("two complex pairs", np.polymul([1, 0, 1.0], [1, -2.0, 2.0]), -10.0, 10.0, [], 0),
    ("roots at both ends", P([0, 1, 2, 30]), 0.0, 30.0, [0, 1, 2, 30], 1e-12),
    ("tiny scale", P([1e-6, 2e-6, 3e-6, 4e-6]), 0.0, 1e-5, [1e-6, 2e-6, 3e-6, 4e-6], 1e-18),
    ("huge scale", P([1e5, 2e5, 3e5, 4e5]), 0.0, 1e6, [1e5, 2e5, 3e5, 4e5], 1e-7),
    ("huge t, small coefficients", P([1e3, 2e3, 5e3, 9e3], 1e-12), 0.0, 1e4,
     [1e3, 2e3, 5e3, 9e3], 1e-9),
    ("ball contact quartic", np.array([0.25, 0.3, 0.39, -0.4, 0.01]), 0.0, 30.0, None, None),
]


@pytest.mark.parametrize("name,c,lo,hi,want,tol", DEGENERATE, ids=[d[0] for d in DEGENERATE])
def test_near_degenerate(name, c, lo, hi, want, tol):
    c = np.asarray(c, np.float64)
    got = rr(c, lo, hi)[0]
    check_structure(got, lo, hi)
    fin = got[np.isfinite(got)]
    if want is not None:
        assert len(fin) == len(want), (name, got)
        np.testing.assert_allclose(fin, want, rtol=0, atol=tol)
    for x in fin:
        assert backward_ok(c, x), (name, x, float(exact_f(c, x)))
    assert not missed_sign_changes(c, fin, lo, hi), name


def test_near_degenerate_unresolvable_pairs_and_multiple_roots():
    # Roots 1e-9 apart at 1 cannot be separated in float64: one root near 1 (or two), never more.
    got = rr(P([1, 1 + 1e-9, 3, 4]), 0.0, 5.0)[0]
    fin = got[np.isfinite(got)]
    assert 3 <= len(fin) <= 4 and np.all(np.abs(fin[:-2] - 1) < 1e-7), got
    np.testing.assert_allclose(fin[-2:], [3, 4], atol=1e-12)
    # Triple and quadruple roots: found (once or twice), to their conditioning eps^(1/m).
    got = rr(P([1, 1, 1, 5]), 0.0, 6.0)[0]
    fin = got[np.isfinite(got)]
    assert np.abs(fin[-1] - 5) < 1e-12 and 1 <= len(fin) - 1 <= 3, got
    assert np.all(np.abs(fin[:-1] - 1) < 1e-4), got
    got = rr(P([2, 2, 2, 2]), 0.0, 6.0)[0]
    fin = got[np.isfinite(got)]
    assert 1 <= len(fin) <= 4 and np.all(np.abs(fin - 2) < 1e-3), got


def test_random_near_degenerate_families():
    """Clusters, perturbed multiple roots, tiny leading coefficients and wild coefficients:
    every returned root is a root to rounding, and no robust sign change of f is missed."""
    rng = np.random.default_rng(3)
    n = 48
    r0 = rng.uniform(0, 30, n)
    fams = [
        np.array([P([a, a + d, b, e]) for a, d, b, e in
                  zip(r0, 10 ** rng.uniform(-9, -1, n), rng.uniform(0, 30, n),
                      rng.uniform(0, 30, n))]),
        np.array([P([a, a, a, b]) for a, b in zip(r0, rng.uniform(0, 30, n))]),
        np.array([P(np.full(4, a) + rng.normal(0, 1e-3, 4)) for a in r0]),
        np.array([np.r_[1e-18 * s, P(rng.uniform(0, 30, 3))[1:]]
                  for s in rng.choice([-1.0, 1.0], n)]),
        rng.normal(size=(n, 5)) * 10 ** rng.uniform(-4, 4, (n, 5)),
        np.array([np.polymul([1, -2 * a, a * a + e * e], np.poly(rng.uniform(0, 30, 2)))
                  for a, e in zip(r0, 10 ** rng.uniform(-8, -2, n))]),
    ]
    c = np.concatenate(fams)
    got = rr(c, 0.0, 30.0)
    for ci, gi in zip(c, got):
        check_structure(gi, 0.0, 30.0)
        fin = gi[np.isfinite(gi)]
        for x in fin:
            assert backward_ok(ci, x), (ci, gi, x)
        assert not missed_sign_changes(ci, fin, 0.0, 30.0, n=1001), (ci, gi)


def test_scaling_of_t():
    """Roots of f(t / s) are s times those of f, for s from 1e-6 to 1e6."""
    base = P([0.3, 1.1, 2.0, 3.7], 1.0)
    want = rr(base, 0.0, 5.0)[0]
    for s in [1e-6, 1e-3, 1e3, 1e6]:
        c = base / s ** np.arange(4, -1, -1.0)
        got = rr(c, 0.0, 5.0 * s)[0]
        np.testing.assert_allclose(got / s, want, rtol=1e-12)


def test_empty_and_infinite_intervals_give_inf_not_nan():
    c = np.array([P([1, 2, 3, 4])] * 4)
    got = rr(c, np.array([0.0, 5.0, 0.0, np.nan]), np.array([np.inf, 1.0, np.nan, 5.0]))
    assert np.all(np.isposinf(got)), got


# ------------------------------------------------------------------------------------------------
# first_descending_root semantics.

T = 1e-9
FIRST = [
    # name, coefficients, hi, approach_tol, expected
    ("approaching at t=0 (touching)", [0, 0, 1, -1, 0], 10.0, T, 0.0),
    ("approaching at t=0 (overlapping)", [0, 0, 1, -1, -0.1], 10.0, T, 0.0),
    ("separating at t=0 (touching)", [0, 0, 1, 1, 0], 10.0, T, np.inf),
    ("separating at t=0 (overlapping)", [0, 0, 1, 1, -0.1], 10.0, T, np.inf),
    ("separating, then coming back", P([0, 2, 3]), 10.0, T, 2.0),
    ("overlapping and separating, then coming back", -P([1, 3]), 10.0, T, 3.0),
    ("touching tangentially at t=0, then crossing", P([0, 0, 2, 3]), 10.0, T, 2.0),
    ("touching tangentially at t=0, never crossing", P([0, 0]), 10.0, T, np.inf),
    ("approaching slower than the tolerance", [0, 0, 1, -1e-12, 0], 10.0, T, np.inf),
    ("the same with tolerance 0", [0, 0, 1, -1e-12, 0], 10.0, 0.0, 0.0),
    ("tangent later", P([1, 1]), 10.0, T, 1.0),
    ("tangent later, inexact", P([1.3, 1.3, 7, 8], 0.37), 10.0, T, 1.3),
    ("near miss", np.array([0, 0, 1, -2, 1 + 1e-6]), 10.0, T, np.inf),
    ("crossing after an excursion", np.polymul([1, -2, 1 + 1e-6], np.poly([3, 5])), 10.0, T, 3.0),
    ("four crossings", P([1, 2, 3, 4]), 10.0, T, 1.0),
    ("first descending crossing is the second root", -P([0.5, 2, 3, 4]), 10.0, T, 2.0),
    ("no root", [0, 0, 1, 0, 1], 10.0, T, np.inf),
    ("constant positive", [0, 0, 0, 0, 1], 10.0, T, np.inf),
    ("zero polynomial", [0, 0, 0, 0, 0], 10.0, T, np.inf),
    ("root exactly at hi", P([2, 5]), 2.0, T, 2.0),
    ("root just after hi", P([2, 5]), 1.999, T, np.inf),
    ("hi = 0, approaching", [0, 0, 1, -1, 0], 0.0, T, 0.0),
    ("hi = 0, not approaching", [0, 0, 1, 1, 0], 0.0, T, np.inf),
    ("hi = inf", P([2, 5]), np.inf, T, np.inf),
    ("hi = inf, approaching", [0, 0, 1, -1, 0], np.inf, T, np.inf),
    ("hi = nan", P([2, 5]), np.nan, T, np.inf),
    ("hi < 0", P([2, 5]), -1.0, T, np.inf),
    ("cushion quadratic", [0, 0, 0.3, -1.2, 0.6], 10.0, T, (1.2 - np.sqrt(1.44 - 0.72)) / 0.6),
    ("linear", [0, 0, 0, -2, 1], 10.0, T, 0.5),
]


def test_first_descending_root_semantics():
    c = np.array([np.asarray(f[1], np.float64) for f in FIRST])
    hi = np.array([f[2] for f in FIRST])
    tol = np.array([f[3] for f in FIRST])
    got = fdr(c, hi, tol)
    assert not np.any(np.isnan(got))
    for f, g in zip(FIRST, got):
        assert g == f[4] or abs(g - f[4]) <= 1e-12 * max(1.0, abs(f[4])), (f[0], g, f[4])


def _fdr_reference(c, hi, tol):
    """The first descending crossing from the polished numpy roots (simple roots only)."""
    if c[4] <= 0 and c[3] < -tol:
        return 0.0
    if not hi >= 0 or not np.isfinite(hi):
        return np.inf
    d = np.polyder(c)
    for r in numpy_real_roots(c, 0.0, hi):
        if r > 0 and np.polyval(d, r) < 0:
            return r
    return np.inf


def test_first_descending_root_matches_reference_on_random_quartics():
    rng = np.random.default_rng(4)
    n = 600
    rs = _separated(rng, n, 4, -5.0, 20.0, 0.2)
    sign = rng.choice([-1.0, 1.0], n)
    c = np.array([P(r, s * 10 ** rng.uniform(-2, 2)) for r, s in zip(rs, sign)])
    # ball-ball contact quartics |p0 + v t + a t^2|^2 - (2R)^2
    p0 = rng.uniform(-1, 1, (n, 2))
    v = rng.uniform(-3, 3, (n, 2))
    a = rng.uniform(-1, 1, (n, 2))
    R2 = 4 * 0.03075 ** 2
    contact = np.stack([(a * a).sum(1), 2 * (a * v).sum(1), (v * v).sum(1) + 2 * (a * p0).sum(1),
                        2 * (v * p0).sum(1), (p0 * p0).sum(1) - R2], 1)
    c = np.concatenate([c, contact])
    hi = rng.uniform(0.0, 25.0, len(c))
    got = fdr(c, hi, T)
    n_finite = 0
    for ci, h, g in zip(c, hi, got):
        r = numpy_real_roots(ci, 0.0, h)
        if np.any(np.abs(r - h) < 1e-6) or np.any(np.abs(r) < 1e-9):
            continue  # roots at the ends: decided by rounding
        want = _fdr_reference(ci, h, T)
        if np.isinf(want):
            assert np.isinf(g), (ci, h, g)
        else:
            n_finite += 1
            assert abs(g - want) <= root_tol(ci, want), (ci, h, g, want)
    assert n_finite > 300


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(-5.0, 15.0), min_size=2, max_size=4, unique=True),
       st.sampled_from([-1.0, 1.0]),
       st.floats(0.0, 20.0))
def test_hypothesis_first_descending_root(rs, sign, hi):
    rs = np.sort(np.array(rs))
    assume(np.min(np.diff(rs)) >= 1e-2 and np.min(np.abs(rs - hi)) >= 1e-6)
    c = P(rs, sign)
    g = fdr(c, hi, T)[0]
    want = _fdr_reference(c, hi, T)
    assert (np.isinf(g) and np.isinf(want)) or abs(g - want) <= 1e-9 * max(1.0, want), (g, want)


# ------------------------------------------------------------------------------------------------
# float32, vmap, jit.

def test_float32_stays_float32_and_is_accurate():
    rng = np.random.default_rng(5)
    n = 200
    rs = _separated(rng, n, 4, -2.0, 32.0, 1.0)
    c64 = np.array([P(r, 10 ** rng.uniform(-1, 1)) for r in rs])
    c32 = c64.astype(np.float32)
    got32 = rr(c32, 0.0, 30.0, dtype=np.float32)
    assert got32.dtype == np.float32
    assert fdr(c32[:3], 30.0, T, dtype=np.float32).dtype == np.float32
    want = rr(c32.astype(np.float64), 0.0, 30.0)  # the same (rounded) polynomial in float64
    keep = ~np.any(np.abs(np.concatenate([rs, rs - 30.0], 1)) < 1e-2, axis=1)
    assert np.all(np.isfinite(got32[keep]) == np.isfinite(want[keep]))
    fin = np.isfinite(want[keep])
    np.testing.assert_allclose(got32[keep][fin], want[keep][fin], rtol=2e-4, atol=2e-4)
    g32 = fdr(c32[keep], 30.0, T, dtype=np.float32)
    w = fdr(c32[keep].astype(np.float64), 30.0, T)
    assert np.all(np.isfinite(g32) == np.isfinite(w))
    np.testing.assert_allclose(g32[np.isfinite(w)], w[np.isfinite(w)], rtol=2e-4, atol=2e-4)
    # Double roots (tangencies) in float32 too.
    got = rr(np.array([P([1, 1, 3, 4]), P([0.5, 2])]), 0.0, 5.0, dtype=np.float32)
    np.testing.assert_allclose(got[0][:3], [1, 3, 4], atol=1e-5)
    np.testing.assert_allclose(got[1][:2], [0.5, 2], atol=1e-6)


def test_vmap_and_jit_with_batch_shapes():
    rng = np.random.default_rng(6)
    rs = _separated(rng, 24, 4, -2.0, 12.0, 0.3)
    c = jnp.asarray(np.array([P(r) for r in rs]).reshape(2, 3, 4, 5))
    hi = jnp.asarray(rng.uniform(1.0, 10.0, (2, 3, 4)))
    direct = jax.jit(roots.real_roots_in)(c, 0.0, hi)
    assert direct.shape == (2, 3, 4, 4)
    # Rows agree with the padded (B, 5) batch, so batching does not change any answer.
    np.testing.assert_array_equal(rr(np.asarray(c).reshape(-1, 5), 0.0, np.asarray(hi).ravel()),
                                  np.asarray(direct).reshape(-1, 4))
    vm = jax.vmap(jax.vmap(roots.real_roots_in, in_axes=(0, None, 0)), in_axes=(0, None, 0))
    np.testing.assert_array_equal(jax.jit(jax.vmap(vm, in_axes=(0, None, 0)))(c, 0.0, hi), direct)
    d1 = jax.jit(roots.first_descending_root)(c, hi, T)
    assert d1.shape == (2, 3, 4)
    np.testing.assert_array_equal(fdr(np.asarray(c).reshape(-1, 5), np.asarray(hi).ravel(), T),
                                  np.asarray(d1).ravel())
    # A vmap over hi only (coefficients and tolerance broadcast).
    one = np.asarray(c[0, 0, 0])
    his = np.linspace(0.0, 12.0, 7)
    per_hi = jax.jit(jax.vmap(roots.first_descending_root, in_axes=(None, 0, None)))(one, his, T)
    np.testing.assert_array_equal(per_hi, fdr(np.tile(one, (7, 1)), his, T))
    assert np.isfinite(per_hi).sum() >= 2
