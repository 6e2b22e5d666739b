"""Tests of the Mathavan et al. (2010) ball-cushion impact (physics/collide/cushion_mathavan2010).

What every cushion model must keep (energy, symmetry, ...) is checked for all registered models in
tests/physics/test_collision_models.py (both use tests/support/cushion.py); here are this model's own answers.

Compiled functions are built once (tests/support/cushion.py); parameters are traced arguments, so parameter variants
reuse the same compilation.
"""
import math

import jax.numpy as jnp
import numpy as np
import pytest

from physics.params import cast_params
from tests.support.cushion import (  # noqa: F401
    BATCH, NO_LIFT, PARAMS, REFERENCE, STEPS, R, batched, batched_fine, energy, frame, mirror, random_shots, run,
    scale_of, shots, single, with_ball, with_cushion)


def stun_rebound_ratio(params):
    """|vy_after| / vy_before for a head-on stun hit, in closed form (for the test below).

    Derived by hand from the same equations: along the normal every force is constant while
    the contact modes stay the same, so with k = -dvy/dp (impulse per unit mass p) the work is
    W = cos(th) * integral vy dvy / k. Head-on, nothing acts sideways. Modes: (A) the nose slips
    (its slip along y' is -sin(th) vy < 0) and the bed slips forwards, until the nose slip
    reaches zero; (B) the nose rolls (friction fy' that holds zero slip) while the bed slips
    forwards, to the end of compression; (C) restitution: nose rolling, bed slipping backwards.
    """
    s = float(params.cushion.height) / float(params.ball.radius) - 1.0
    c = math.sqrt(1.0 - s * s)
    mw, ms, e = float(params.cushion.f_c), float(params.ball.u_s), float(params.cushion.e_c)
    m, r = s * s + 2.5, 2.5 - s

    def holding(u):  # nose friction that keeps its slip zero, bed sliding along +-y (u = +-1)
        return (-s * c + r * ms * s * u) / (m + r * ms * c * u)

    k_a = c + s * mw + ms * (s - c * mw)
    slip_rate = s * k_a + 2.5 * (mw - ms * (s - c * mw))  # d(y'-slip)/dp in mode A
    p_roll = s / slip_rate  # for vy0 = 1
    vy_roll = 1.0 - k_a * p_roll
    assert 0 < vy_roll < 1
    f_b, f_c = holding(+1.0), holding(-1.0)
    assert abs(f_b) <= mw and abs(f_c) <= mw  # the nose can roll (else the modes differ)
    k_b = c + s * f_b + ms * (s - c * f_b)
    k_c = c + s * f_c - ms * (s - c * f_c)
    work_c = c * ((1.0 - vy_roll**2) / (2 * k_a) + vy_roll**2 / (2 * k_b))
    return math.sqrt(2 * k_c * e * e * work_c / c)


def normal_rate_bounds(params):
    """Bounds of k = -dvy/dp over every admissible friction: |fy'| <= mu_w, |gy| <= mu_s N_C."""
    s = float(params.cushion.height) / float(params.ball.radius) - 1.0
    c = math.sqrt(1.0 - s * s)
    mw, ms = float(params.cushion.f_c), float(params.ball.u_s)
    spread = mw * s + ms * (s + mw * c)
    return c - spread, c + spread


# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("e_c", [0.85, 0.98])
def test_head_on_stun_rebounds_straight_back(e_c):
    assert NO_LIFT  # on REFERENCE values, where the bed never needs to pull
    params = with_cushion(REFERENCE, e_c=e_c)
    speeds = np.array([0.05, 0.5, 1.0, 2.5, 6.0] * 2)
    angles = np.repeat([0.5 * np.pi, 0.3], 5)  # a long cushion, and a tilted one
    n = np.stack([np.cos(angles), np.sin(angles)], -1)
    v = speeds[:, None] * n
    w = np.zeros((len(speeds), 3))
    v1, w1 = run(v, w, n, params)
    t = frame(n)
    # straight back: no sideways velocity, no side spin, no spin about the normal
    assert np.all(np.abs(np.sum(v1 * t, -1)) <= 1e-12 * speeds)
    assert np.all(np.abs(R * w1[:, 2]) <= 1e-12 * speeds)
    assert np.all(np.abs(R * np.sum(w1[:, :2] * n, -1)) <= 1e-12 * speeds)
    ratio = -np.sum(v1 * n, -1) / speeds
    # general bound: e_c sqrt(k_min / k_max) <= ratio <= e_c sqrt(k_max / k_min) (and <= 1)
    k_min, k_max = normal_rate_bounds(params)
    assert np.all(ratio >= e_c * math.sqrt(k_min / k_max))
    assert np.all(ratio <= min(1.0, e_c * math.sqrt(k_max / k_min)))
    # the hand-derived closed form for this case (0.7906 for the defaults, e_c = 0.85)
    assert np.allclose(ratio, stun_rebound_ratio(params), rtol=1e-6, atol=0)
    # the ball ends rolling on the nose (zero slip there): R w along the cushion = sin(theta) vy
    s = float(params.cushion.height) / R - 1
    assert np.allclose(R * np.sum(w1[:, :2] * t, -1), -s * ratio * speeds, rtol=1e-6)


def test_frictionless_normal_restitution_is_e_c():
    params = with_ball(with_cushion(PARAMS, f_c=0.0, e_c=0.9), u_s=1e-12)
    v, w, n = random_shots(3, BATCH)
    v1, w1 = run(v, w, n, params)
    vn, vn1 = np.sum(v * n, -1), np.sum(v1 * n, -1)
    t = frame(n)
    assert np.allclose(vn1, -0.9 * vn, rtol=1e-9)
    assert np.allclose(np.sum(v1 * t, -1), np.sum(v * t, -1), rtol=1e-9, atol=1e-9)
    assert np.allclose(w1, w, rtol=1e-9, atol=1e-9)




def test_float32_stays_float32():
    v, w, n = random_shots(5, 8)
    v64, w64 = run(v, w, n)
    p32 = cast_params(PARAMS, jnp.float32)
    v32, w32 = single(jnp.asarray(v[0], jnp.float32), jnp.asarray(w[0], jnp.float32),
                       jnp.asarray(n[0], jnp.float32), p32)
    assert v32.dtype == jnp.float32 and w32.dtype == jnp.float32
    sc = scale_of(v[0], w[0])
    assert np.max(np.abs(np.asarray(v32) - v64[0])) <= 1e-4 * sc
    assert np.max(np.abs(R * (np.asarray(w32) - w64[0]))) <= 1e-4 * sc


def test_vmap_equals_loop():
    v, w, n = random_shots(9, 8)
    vb, wb = run(v, w, n)
    for i in range(8):
        vi, wi = single(v[i], w[i], n[i], PARAMS)
        sc = scale_of(v[i], w[i])
        assert np.allclose(vi, vb[i], rtol=0, atol=1e-12 * sc)
        assert np.allclose(R * np.asarray(wi), R * wb[i], rtol=0, atol=1e-12 * sc)


def test_doubling_the_steps_agrees():
    """The documented accuracy: 200 -> 400 steps changes the result by < 2e-4 (worst case)."""
    v, w, n = random_shots(2024, 256)
    coarse = np.concatenate(run(v, w, n), -1)
    fine = np.concatenate(run(v, w, n, fn=batched_fine), -1)
    sc = scale_of(v, w)
    diff = np.max(np.abs(coarse - fine) * np.array([1, 1, R, R, R]), -1) / sc
    assert np.max(diff) < 2e-4, np.max(diff)
    assert np.median(diff) < 1e-6, np.median(diff)  # second order almost everywhere


def paper_explicit_scheme(vx, vy, ux, uy, uz, s, c, mw, ms, e, n_steps):
    """Direct transcription of the paper's scheme: constant dP_I, slip angles at the step start.

    Scaled units (M = R = 1, u = R w). Eqs. 12-13 (slips), 14d-f and 17a (increments), 15
    (no friction where a slip is zero), 16a-b (work; restitution ends at (1 - e^2) W_c).
    """
    dp = (1 + e) * vy / n_steps  # the paper's choice of dP_I

    def increments(vx, vy, ux, uy, uz):
        xi, yi = vx + s * uy - c * uz, -s * vy + ux
        xc, yc = vx - uy, vy + ux
        si, sc = math.hypot(xi, yi), math.hypot(xc, yc)
        cp, sp = (xi / si, yi / si) if si > 0 else (0.0, 0.0)
        cq, sq = (xc / sc, yc / sc) if sc > 0 else (0.0, 0.0)
        bed = s + mw * sp * c
        return (-(mw * cp + ms * cq * bed), -(c - mw * s * sp + ms * sq * bed),
                -2.5 * (mw * sp + ms * sq * bed), -2.5 * (mw * cp * s - ms * cq * bed),
                2.5 * mw * cp * c)

    y, work = (vx, vy, ux, uy, uz), 0.0
    while True:  # compression, until z'_I = c vy = 0
        d = increments(*y)
        frac = min(1.0, y[1] / (-d[1] * dp))
        y_new = tuple(a + frac * dp * b for a, b in zip(y, d))
        work += c * frac * dp * (y[1] + y_new[1]) / 2
        y = y_new
        if frac < 1.0:
            break
    target, work_r = e * e * work, 0.0
    while work_r < target:  # restitution, until the work reaches (1 - e^2) W_c
        d = increments(*y)
        y_new = tuple(a + dp * b for a, b in zip(y, d))
        dw = -c * dp * (y[1] + y_new[1]) / 2
        frac = min(1.0, (target - work_r) / dw)
        y = tuple(a + frac * dp * b for a, b in zip(y, d))
        work_r += frac * dw if frac < 1.0 else dw
        if frac < 1.0:
            break
    return y


def test_agrees_with_the_papers_explicit_scheme():
    assert NO_LIFT  # on REFERENCE values, where the bed never needs to pull
    s = float(REFERENCE.cushion.height) / R - 1
    c = math.sqrt(1 - s * s)
    mw, ms, e = float(REFERENCE.cushion.f_c), float(REFERENCE.ball.u_s), float(REFERENCE.cushion.e_c)
    n = np.array([[0.0, 1.0]] * 3)  # cushion frame x = table x
    v = np.array([[0.0, 1.0], [1.2, 1.5], [-0.8, 0.6]])
    w = np.array([[0.0, 0.0, 0.0], [-1.5, 1.2, 0.9], [0.6, 0.8, -1.0]]) / R
    v1, w1 = run(v, w, n, REFERENCE)
    for i in range(3):
        ref = paper_explicit_scheme(*v[i], *(R * w[i]), s, c, mw, ms, e, n_steps=10000)
        ours = (*v1[i], *(R * w1[i]))
        assert np.max(np.abs(np.subtract(ours, ref))) < 3e-4 * scale_of(v[i], w[i]), (ours, ref)
