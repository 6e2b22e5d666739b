"""One frictional point impulse between rigid bodies: the kernel every collision model shares.

At a contact with unit normal N (pointing from body 1 into body 2) and relative contact-point
velocity u (body 1 minus body 2), an impulse P acts on body 1 (and -P on body 2). For spheres
the contact-space response is isotropic in the tangent plane,

    delta u = k_n (P.N) N + k_t (P - (P.N) N),

with k_n the inverse effective mass along the normal and k_t across it (for a ball touched on
its surface, k_t = 1/m + R^2/I = 7/(2m)). The normal impulse restores a fraction e of the
approach speed (Newton's restitution); the tangential impulse stops the slip if that needs no
more than mu times the normal impulse (sticking), else it is mu times the normal impulse against
the slip (sliding). Both cases only remove energy.

The same Coulomb law gives the cloth's share where an impact presses a ball into the bed
(``bed_friction``: the Han cushions' ``f_bed``, the ball-ball model "frictional_bed").
"""
from __future__ import annotations

import jax.numpy as jnp

from physics.motion import slip


def _dot(a, b):
    return jnp.sum(a * b, axis=-1, keepdims=True)


def frictional_impulse(u, normal, k_n, k_t, restitution, mu):
    """Impulse on body 1 (..., 3) for approach velocity u (..., 3) and unit normal (..., 3).

    Zero when the bodies are not approaching (u.N <= 0).
    """
    u_n = _dot(u, normal)
    u_t = u - u_n * normal
    approach = jnp.maximum(u_n, 0.0)
    p_n = (1.0 + restitution) * approach / k_n
    return -p_n * normal - coulomb(u_t, k_t, mu * p_n)


def coulomb(u_t, k_t, bound):
    """Size and direction (..., d) of the friction impulse against the slip u_t (..., d), to be
    subtracted: the impulse that stops the slip (|u_t| / k_t), at most ``bound`` (mu times the
    normal impulse)."""
    slip = jnp.sqrt(_dot(u_t, u_t))
    p_t = jnp.minimum(slip / k_t, bound)
    safe = jnp.where(slip > 0, slip, 1.0)
    return p_t * jnp.where(slip > 0, u_t / safe, 0.0)


def bed_friction(v, w, push, mu, params):
    """Velocity (2,) and spin (3,) of a ball after the cloth's friction during an impact whose
    vertical impulse on the ball is ``push``: where it points down the bed pushes back as much,
    and the friction is at most ``mu`` times that, against the slip of the ball's bottom point,
    never more than stops it (none where the impact lifts the ball). It conserves the angular
    momentum about the bottom point, so the speed the ball ends up rolling at is unchanged."""
    m, R, inertia = params.ball.mass, params.ball.radius, params.ball.inertia
    pressed = jnp.maximum(-push, 0.0)
    F = -coulomb(slip(v, w, R), 1.0 / m + R**2 / inertia, mu * pressed)
    bottom = jnp.array([0.0, 0.0, -1.0], v.dtype) * R
    return v + F / m, w + cross(bottom, lift(F)) / inertia


def cross(a, b):
    return jnp.cross(a, b)


def lift(v):
    """(..., 2) horizontal vector -> (..., 3) with z = 0."""
    return jnp.concatenate([v, jnp.zeros_like(v[..., :1])], axis=-1)
