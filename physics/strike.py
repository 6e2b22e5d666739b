"""The cue strike: from cue speed, aim, elevation and tip offsets to the cue ball's velocity and spin.

Model (docs/physics.md section 3): the cue (mass M) hits the ball (mass m, radius R) at a point offset
a (right) and b (up) from the cue's axis, both measured perpendicular to the cue and given as
fractions of R; the impulse J acts along the cue (Leckie & Greenspan 2005; Alciatore TP A-30):

    J = (1 + e_tip) V0 / (1/M + 1/m + (a^2 + b^2) / I),     I = 2/5 m R^2

so a centre hit gives the ball 2 M V0 / (M + m) (TP A-30). The ball gets v = J/m along the cue
and w = (J / I) r x d, with r the contact point and d the cue direction (tilted down by theta).
The vertical part of v drives the ball into the cloth; the slate throws it back up with the
cloth's restitution e_table, so an elevated cue makes the ball hop (docs/physics.md section 1; a jump
shot), and massé curve comes from the spin's horizontal components once it slides again. Squirt (TP A-31) turns the ball's
direction away from the side of the english:

    squirt = atan( (5/2) a sqrt(1 - a^2) / (1 + m/m_end + (5/2)(1 - a^2)) ).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from physics._pytree import pytree_dataclass


@pytree_dataclass
class Shot:
    """A cue strike. Angles in degrees (the field's units), the rest SI.

    Attributes:
      V0: cue speed (m/s), >= 0.
      phi: aim direction in the table plane, 0 along +x, counter-clockwise.
      theta: cue elevation above the table, in [0, 90).
      a: side offset, fraction of R, + is right english.
      b: vertical offset, fraction of R, + is follow (top), - is draw.

    Concrete values are checked when the shot is built; inside jit the simulation flags invalid
    shots in ``ShotResult.status`` instead.
    """

    V0: jax.Array
    phi: jax.Array
    theta: jax.Array = 0.0
    a: jax.Array = 0.0
    b: jax.Array = 0.0

    def __post_init__(self):
        values = (self.V0, self.phi, self.theta, self.a, self.b)
        if all(_is_concrete_number(x) for x in values):
            check_shot(*values)


def _is_concrete_number(x) -> bool:
    if isinstance(x, jax.core.Tracer):
        return False
    if isinstance(x, (int, float, np.ndarray, np.generic, jax.Array)):
        return np.asarray(x).dtype.kind in "fiu"
    return False


def check_shot(V0, phi, theta, a, b, max_speed=10.0, max_offset=0.6) -> None:
    """Raise ValueError naming the allowed range for any strike parameter outside it."""
    arrays = {"V0": V0, "phi": phi, "theta": theta, "a": a, "b": b}
    for name, x in arrays.items():
        if not np.all(np.isfinite(np.asarray(x, dtype=float))):
            raise ValueError(f"shot parameter {name} must be finite, got {x}")
    if np.any(np.asarray(V0) < 0) or np.any(np.asarray(V0) > max_speed):
        raise ValueError(f"cue speed V0 must be in [0, {max_speed}] m/s, got {V0}")
    if np.any(np.asarray(theta) < 0) or np.any(np.asarray(theta) >= 90):
        raise ValueError(f"cue elevation theta must be in [0, 90) degrees, got {theta}")
    offset = np.hypot(np.asarray(a, float), np.asarray(b, float))
    if np.any(offset > max_offset):
        raise ValueError(
            f"tip offset sqrt(a^2 + b^2) must be at most {max_offset} R (beyond is a miscue), "
            f"got a={a}, b={b}"
        )


def shot_is_valid(shot: Shot, params) -> jax.Array:
    """() bool: the traced counterpart of ``check_shot``."""
    values = jnp.stack([jnp.asarray(x, params.dtype) for x in (shot.V0, shot.phi, shot.theta, shot.a, shot.b)])
    return (
        jnp.all(jnp.isfinite(values))
        & (shot.V0 >= 0)
        & (shot.V0 <= params.cue.max_speed)
        & (shot.theta >= 0)
        & (shot.theta < 90)
        & (shot.a**2 + shot.b**2 <= params.cue.max_offset**2)
    )


def squirt_angle(a, params):
    """Cue-ball deflection (radians) for side offset a (fraction of R); odd in a (TP A-31)."""
    s = 1.0 - a**2
    return jnp.arctan(2.5 * a * jnp.sqrt(s) / (1.0 + params.cue.end_mass_ratio + 2.5 * s))


def strike(shot: Shot, params):
    """The cue ball just after the strike: velocity across the table (2,), angular velocity (3,),
    and the speed (>= 0) with which it is driven down into the cloth."""
    dtype = params.dtype
    V0, a, b = (jnp.asarray(x, dtype) for x in (shot.V0, shot.a, shot.b))
    phi = jnp.deg2rad(jnp.asarray(shot.phi, dtype))
    theta = jnp.deg2rad(jnp.asarray(shot.theta, dtype))
    m, R, M = params.ball.mass, params.ball.radius, params.cue.mass
    inertia = params.ball.inertia

    # Impulse along the cue (TP A-30): offsets in metres enter through |r x d|^2 = (a^2 + b^2) R^2.
    J = (1.0 + params.cue.tip_restitution) * V0 / (1.0 / M + 1.0 / m + (a**2 + b**2) * R**2 / inertia)

    # Frame: e1 = aim (horizontal), e2 = left of aim, e3 = up. d = cos(theta) e1 - sin(theta) e3.
    # With the contact point r = a R (-e2) + b R (sin(theta) e1 + cos(theta) e3) - c d,
    # r x d = R (a sin(theta) e1 + b e2 + a cos(theta) e3).
    e1 = jnp.stack([jnp.cos(phi), jnp.sin(phi)])
    e2 = jnp.stack([-jnp.sin(phi), jnp.cos(phi)])
    spin_xy = (J * R / inertia) * (a * jnp.sin(theta) * e1 + b * e2)
    spin_z = (J * R / inertia) * a * jnp.cos(theta)
    w = jnp.concatenate([spin_xy, spin_z[None]])

    # Horizontal velocity along the aim, turned by squirt (right english squirts left, TP A-31).
    direction = phi + squirt_angle(a, params)
    v = (J / m) * jnp.cos(theta) * jnp.stack([jnp.cos(direction), jnp.sin(direction)])
    return v, w, (J / m) * jnp.sin(theta)
