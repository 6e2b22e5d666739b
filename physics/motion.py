"""Ball motion between events, in closed form (PHYSICS.md section 1).

Sources: Leckie & Greenspan (2005) and Alciatore's technical proofs; the same equations as the
field's reference simulators. Between events every ball's centre moves on a parabola,
r(t) = r0 + v0 t + a t^2 / 2, with a constant acceleration fixed by its motion state:

=========  ==================================  =============================================
state      acceleration                        lasts until (the state's horizon)
=========  ==================================  =============================================
SLIDING    -u_s g u_hat (u: contact-point slip)  slip vanishes: t = 2 |u| / (7 u_s g)
ROLLING    -u_r g v_hat                          ball stops: t = |v| / (u_r g)
SPINNING   0 (only vertical-axis spin left)     spin stops: t = |w_z| / (5 u_sp g / (2 R))
STATIONARY 0                                    never
=========  ==================================  =============================================

Shapes: positions (n, 2), velocities (n, 2), spins (n, 3), motion (n,) int8. Functions are written
for all balls at once (leading axes broadcast).
"""
from __future__ import annotations

import jax.numpy as jnp

from physics.events import Motion


def speed_tolerance(dtype):
    """Speeds below this (m/s) are zero: 1 nm/s in float64, 10 um/s in float32."""
    return 1e-9 if jnp.dtype(dtype) == jnp.float64 else 1e-5


def slip(v, w, radius):
    """Velocity of the ball's contact point with the cloth, v + w x (-R z): (..., 2)."""
    return jnp.stack([v[..., 0] - radius * w[..., 1], v[..., 1] + radius * w[..., 0]], axis=-1)


def _norm(x):
    return jnp.sqrt(jnp.sum(x * x, axis=-1))


def _unit(x, tol):
    n = _norm(x)
    safe = jnp.where(n > tol, n, 1.0)
    return jnp.where((n > tol)[..., None], x / safe[..., None], 0.0)


def classify(v, w, params):
    """The motion state that velocities and spins imply: (...,) int8."""
    R = params.ball.radius
    tol = speed_tolerance(v.dtype)
    sliding = _norm(slip(v, w, R)) > tol
    rolling = _norm(v) > tol
    spinning = jnp.abs(w[..., 2]) * R > tol
    return jnp.select(
        [sliding, rolling, spinning],
        [Motion.SLIDING, Motion.ROLLING, Motion.SPINNING],
        Motion.STATIONARY,
    ).astype(jnp.int8)


def acceleration(v, w, motion, params):
    """Constant acceleration of each ball's centre in its motion state: (..., 2)."""
    tol = speed_tolerance(v.dtype)
    g = params.g
    a_slide = -params.ball.u_s * g * _unit(slip(v, w, params.ball.radius), tol)
    a_roll = -params.ball.u_r * g * _unit(v, tol)
    m = motion[..., None]
    return jnp.where(m == Motion.SLIDING, a_slide, jnp.where(m == Motion.ROLLING, a_roll, 0.0))


def horizon(v, w, motion, params):
    """Time until each ball's motion state ends (inf for a stationary ball): (...,)."""
    g = params.g
    R = params.ball.radius
    t_slide = 2.0 * _norm(slip(v, w, R)) / (7.0 * params.ball.u_s * g)
    t_roll = _norm(v) / (params.ball.u_r * g)
    t_spin = jnp.abs(w[..., 2]) / params.spin_decel
    return jnp.select(
        [motion == Motion.SLIDING, motion == Motion.ROLLING, motion == Motion.SPINNING],
        [t_slide, t_roll, t_spin],
        jnp.inf,
    )


def evolve(r, v, w, motion, dt, params):
    """Advance every ball by dt (no later than its horizon). Returns (r, v, w).

    dt broadcasts against the leading axes of r (a scalar, or one time per ball).
    """
    dt = jnp.asarray(dt, r.dtype)
    dt_ = dt[..., None] if dt.ndim == r.ndim - 1 else dt
    R = params.ball.radius
    tol = speed_tolerance(r.dtype)
    a = acceleration(v, w, motion, params)
    r_new = r + v * dt_ + 0.5 * a * dt_**2
    v_new = v + a * dt_

    m = motion[..., None]
    # Sliding: friction at the contact point turns the horizontal spin (section 1):
    # dw_x/dt = -k u_y, dw_y/dt = +k u_x with k = 5 u_s g / (2R).
    u_hat = _unit(slip(v, w, R), tol)
    k = 2.5 * params.ball.u_s * params.g / R
    w_slide = w[..., :2] + k * dt_ * jnp.stack([-u_hat[..., 1], u_hat[..., 0]], axis=-1)
    # Rolling: the spin follows the velocity (rolling without slip).
    w_roll = jnp.stack([-v_new[..., 1], v_new[..., 0]], axis=-1) / R
    w_xy = jnp.where(m == Motion.SLIDING, w_slide, jnp.where(m == Motion.ROLLING, w_roll, w[..., :2]))
    # Vertical-axis spin decays linearly in every moving state, and never changes sign.
    decay = params.spin_decel * dt
    wz = w[..., 2]
    wz_new = jnp.sign(wz) * jnp.maximum(jnp.abs(wz) - decay, 0.0)
    wz_new = jnp.where(motion == Motion.STATIONARY, wz, wz_new)
    moving = (m == Motion.SLIDING) | (m == Motion.ROLLING)
    r_new = jnp.where(moving, r_new, r)
    v_new = jnp.where(moving, v_new, v)
    return r_new, v_new, jnp.concatenate([w_xy, wz_new[..., None]], axis=-1)


def end_of_state(v, w, motion, params):
    """Velocities, spins and next motion of balls whose state ended just now (at the horizon).

    Sliding ends in rolling (the rolling constraint is imposed exactly, removing round-off);
    rolling ends at rest, or spinning if vertical-axis spin is left; spinning ends at rest.
    Returns (v, w, motion).
    """
    R = params.ball.radius
    m = motion[..., None]
    w_roll = jnp.concatenate([jnp.stack([-v[..., 1], v[..., 0]], axis=-1) / R, w[..., 2:]], axis=-1)
    stop_w = w.at[..., :2].set(0.0)
    v_new = jnp.where(m == Motion.SLIDING, v, 0.0)
    w_new = jnp.where(
        m == Motion.SLIDING, w_roll, jnp.where(m == Motion.ROLLING, stop_w, jnp.zeros_like(w))
    )
    return v_new, w_new, classify(v_new, w_new, params)
