"""Ball-cushion impact after Han (2005), "Dynamics in carom and three cushion billiards".

The cushion's nose touches the ball above its equator, at angle theta with sin(theta) = h/R - 1
(h = 37 mm on carom tables: theta = 11.7 deg), so the contact normal N = (cos(theta) n, sin(theta))
is tilted: a ball driven straight in is also pushed down into the bed, and its spin about the
horizontal axes is changed by the friction at the nose. One impulse at the nose: restitution e_c
on the contact normal, Coulomb friction f_c that either stops the slip at the nose (sticking) or
slides (Han's two cases, eqs. 16-20). Han approximates the sliding direction by the direction of
incidence; here it is the actual slip direction at the nose, which makes the two cases meet
continuously. The vertical velocity the impulse would give the ball is taken up by the bed.

The cloth under the ball (an extension, ``f_bed`` > 0; 0 is Han's model bit for bit): the nose
presses the ball into the bed, and the bed's normal impulse is the downward part of the nose's.
Coulomb friction f_bed on it acts against the slip of the ball's bottom point after the nose's
impulse, at most stopping that slip. It turns spin into speed during the impact, as the cloth
does after it, so a ball leaves nearer to rolling; it conserves the angular momentum about the
bottom point, so the speed the ball ends up rolling at is unchanged. Tracked near-normal
rebounds leave slower and slow down less afterwards than Han's impulse alone gives
(docs/physics.md section 2).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from physics.collide.contact import bed_friction, cross, frictional_impulse, lift


def resolve(v: jax.Array, w: jax.Array, normal: jax.Array, params) -> tuple[jax.Array, jax.Array]:
    """Velocity (2,) and spin (3,) after the impact. normal: (2,) unit, ball centre -> cushion.

    A ball that is not approaching the cushion is returned unchanged.
    """
    return impact(v, w, normal, params, params.cushion.e_c, params.cushion.f_c)


def impact(v, w, normal, params, restitution, friction):
    """``resolve`` with the restitution and the friction at the nose given (the graded model
    chooses them per impact)."""
    m, R, inertia = params.ball.mass, params.ball.radius, params.ball.inertia
    theta = params.cushion.contact_angle(R)
    N = jnp.concatenate([jnp.cos(theta) * normal, jnp.sin(theta)[None]])
    r = R * N
    u = lift(v) + cross(w, r)
    k_n = 1.0 / m
    k_t = 1.0 / m + R**2 / inertia
    P = frictional_impulse(u, N, k_n, k_t, restitution, friction)
    return bed_friction(v + P[:2] / m, w + cross(r, P) / inertia, P[2], params.cushion.f_bed, params)
