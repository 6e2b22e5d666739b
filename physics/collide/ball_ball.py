"""Ball-ball collisions (docs/physics.md section 2).

Instantaneous impulse at the contact point on the line of centres, restitution e_b, and friction
between the balls that makes throw and transfers spin. Models:

- "frictional": friction coefficient against slip speed v at the contact, Alciatore TP A-14 fit
  u_b(v) = a + b exp(-c v) (default a = 9.951e-3, b = 0.108, c = 1.088, v in m/s).
- "frictionless": no friction; with e_b = 1 equal balls exchange their normal velocities exactly.
- "frictional_bed": "frictional", and the cloth's friction under a ball the impact presses into
  the bed. A rolling striker's face turns downwards at the contact, so the friction between the
  balls drags the struck ball's face down: that ball is pressed into the bed, whose normal impulse
  is the downward part of the impulse between the balls, and the cloth's sliding friction u_s on
  it acts against the slip of the ball's bottom point (``contact.bed_friction``), as the cloth
  does after the impact. The struck ball leaves a little slower (about u_s times the friction
  between the balls: some 2 % for a rolling hit) while the striker keeps what "frictional" gives
  it; a drawn striker is the one pressed down. Why: on tracked match shots a ball struck at rest
  leaves slower than the frictional impulse gives; calibrated with this model, held-out shots
  fitted no better and were called right a little more often (docs/physics.md sections 2 and 10);
  an option, not a default.

Both balls touch the cloth at their lowest point; any vertical velocity the impulse would give a
ball is taken up by the bed (the balls stay on the table).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from physics.collide.contact import bed_friction, cross, frictional_impulse, lift

# What every ball-ball model returns: (v1, w1, v2, w2).
_Pair = tuple[jax.Array, jax.Array, jax.Array, jax.Array]


def _impact(v1, w1, v2, w2, normal, params, mu_of_slip, bed: bool = False):
    """Velocities (2,) and spins (3,) of two colliding balls after the impact, with the friction
    coefficient ``mu_of_slip(slip speed)`` at the contact; ``bed``: the cloth's friction u_s
    under a ball the impact presses down (a Python bool: a model's choice, not an array).

    normal: (2,) unit vector from ball 1's centre to ball 2's. Returns (v1, w1, v2, w2).
    Balls that are not approaching are returned unchanged.
    """
    m, R, inertia = params.ball.mass, params.ball.radius, params.ball.inertia
    n = lift(normal)
    r1, r2 = R * n, -R * n
    u = (lift(v1) + cross(w1, r1)) - (lift(v2) + cross(w2, r2))
    u_t = u - jnp.sum(u * n) * n
    slip = jnp.sqrt(jnp.sum(u_t * u_t))
    k_n = 2.0 / m
    k_t = 2.0 * (1.0 / m + R**2 / inertia)
    P = frictional_impulse(u, n, k_n, k_t, params.ball.e_b, mu_of_slip(slip))
    v1, w1 = v1 + P[:2] / m, w1 + cross(r1, P) / inertia
    v2, w2 = v2 - P[:2] / m, w2 + cross(r2, -P) / inertia
    if bed:  # P acts on ball 1, -P on ball 2
        v1, w1 = bed_friction(v1, w1, P[2], params.ball.u_s, params)
        v2, w2 = bed_friction(v2, w2, -P[2], params.ball.u_s, params)
    return v1, w1, v2, w2


def _throw(b):
    """The TP A-14 friction between the balls against their slip speed, with ball params ``b``."""
    return lambda slip: b.throw_a + b.throw_b * jnp.exp(-b.throw_c * slip)


def frictional(v1: jax.Array, w1: jax.Array, v2: jax.Array, w2: jax.Array, normal: jax.Array,
               params) -> _Pair:
    """The "frictional" model: throw from the TP A-14 friction fit (arguments as ``_impact``)."""
    return _impact(v1, w1, v2, w2, normal, params, _throw(params.ball))


def frictional_bed(v1: jax.Array, w1: jax.Array, v2: jax.Array, w2: jax.Array, normal: jax.Array,
                   params) -> _Pair:
    """The "frictional_bed" model: "frictional" and the cloth's friction under a ball the impact
    presses into the bed (arguments as ``_impact``)."""
    return _impact(v1, w1, v2, w2, normal, params, _throw(params.ball), bed=True)


def frictionless(v1: jax.Array, w1: jax.Array, v2: jax.Array, w2: jax.Array, normal: jax.Array,
                 params) -> _Pair:
    """The "frictionless" model: restitution only (arguments as ``_impact``)."""
    return _impact(v1, w1, v2, w2, normal, params, jnp.zeros_like)
