"""Ball-cushion impact after Han (2005) with restitution and friction graded by the impact.

One restitution and one friction did not fit the rebounds of tracked match shots: a friction
that fits grazing rebounds does not fit near-normal ones (docs/physics.md section 2). This model
is Han's single impulse at the nose (``cushion_han2005.impact``) with

    e(v_n) = clip(e_c - e_c_slope (min(v_n, V_MAX) - V_REF), 0, 1)
    f(a)   = max(f_c + f_c_slope (sin a - SIN_REF), 0)

where v_n is the speed of the ball's centre into the cushion and a its incidence from the
cushion's normal. e_c and f_c keep their meaning at the reference impact (1 m/s, 45 degrees).
The restitution is graded over the normal speeds that tracked rebounds cover (up to ``V_MAX``)
and held beyond, where nothing measured says how it goes on. With both slopes 0 the model is
``han2005`` exactly. The clips keep e in [0, 1] and f >= 0, the values for which the shared
kernel never adds energy.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from physics.collide.cushion_han2005 import impact

V_REF = 1.0  # m/s: normal speed at which the restitution is e_c
V_MAX = 4.0  # m/s: normal speed above which the restitution no longer changes
SIN_REF = 0.5 ** 0.5  # sin 45 deg: incidence at which the friction is f_c


def restitution(normal_speed, params):
    """Restitution of an impact at ``normal_speed`` (m/s) into the cushion."""
    c = params.cushion
    return jnp.clip(c.e_c - c.e_c_slope * (jnp.minimum(normal_speed, V_MAX) - V_REF), 0.0, 1.0)


def friction(sin_incidence, params):
    """Friction at the nose for an incidence a from the normal, given as sin(a)."""
    c = params.cushion
    return jnp.maximum(c.f_c + c.f_c_slope * (sin_incidence - SIN_REF), 0.0)


def resolve(v: jax.Array, w: jax.Array, normal: jax.Array, params) -> tuple[jax.Array, jax.Array]:
    """Velocity (2,) and spin (3,) after the impact. normal: (2,) unit, ball centre -> cushion.

    A ball that is not approaching the cushion is returned unchanged (the kernel's rule).
    """
    v_n = jnp.maximum(jnp.dot(v, normal), 0.0)
    speed2 = jnp.dot(v, v)
    moving = speed2 > 0.0
    sin_a = jnp.where(moving, jnp.sqrt(jnp.maximum(speed2 - v_n**2, 0.0) / jnp.where(moving, speed2, 1.0)), 0.0)
    return impact(v, w, normal, params, restitution(v_n, params), friction(sin_a, params))
