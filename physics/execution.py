"""How a player's strike is carried out: the ranges strikes are chosen from and the execution noise.

Both are in docs/physics.md section 6. The environments' action spans the strike ranges
(``billiards_env.params`` defaults), the agents draw and perturb strikes inside them, and every
shot played with noise, by an environment step or by an agent's evaluation, goes through
``add_noise`` here: one noise model, so a policy learnt under the environments' noise is judged
under the same noise.

Shots are handled as (..., 5) arrays in the order ``FIELDS`` = (V0, phi, theta, a, b), which
``shot_array`` and ``shot_from_array`` convert to and from ``Shot``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from physics.params import Params
from physics.strike import FIELDS, Shot

# The ranges a player chooses strikes from (docs/physics.md section 6).
V0_MIN = 0.5  # m/s
V0_MAX = 8.0  # m/s
THETA_MAX = 60.0  # deg, cue elevation
OFFSET_MAX = 0.5  # tip offset disc radius, fraction of R (inside the miscue limit, 0.6 by default)

# The standard execution noise: the computational-pool tournaments' standard deviations
# (docs/physics.md section 6), applied independently to each strike parameter.
NOISE_V0 = 0.075  # m/s
NOISE_PHI_DEG = 0.125
NOISE_THETA_DEG = 0.1
NOISE_OFFSET_M = 0.0005  # a and b, in metres at the ball (divided by R for a fraction of R)
MAX_ELEVATION = 89.0  # deg: a noisy elevation is kept below a vertical cue


def shot_array(shot: Shot) -> jax.Array:
    """(..., 5) array of a shot's fields in the order (V0, phi, theta, a, b)."""
    return jnp.stack([jnp.asarray(getattr(shot, f)) for f in FIELDS], -1)


def shot_from_array(x) -> Shot:
    """Inverse of ``shot_array``."""
    return Shot(V0=x[..., 0], phi=x[..., 1], theta=x[..., 2], a=x[..., 3], b=x[..., 4])


def wrap_degrees(phi):
    """Angles in (-180, 180]."""
    return phi - 360.0 * jnp.ceil((phi - 180.0) / 360.0)


def playable(x, params: Params, v_min: ArrayLike = 0.0, v_max: ArrayLike | None = None,
             max_offset: ArrayLike | None = None) -> jax.Array:
    """A (..., 5) shot array pulled back into what a cue can play: speed in [v_min, v_max]
    (default: the cue's ``max_speed``), aim wrapped to (-180, 180], elevation folded onto
    [0, 89] deg (``|theta|``: a cue cannot aim below the level, and folding keeps a level cue's
    noise as large as it is at any other elevation, where clipping would play half of the draws
    exactly level), tip offset pulled back onto the disc of ``max_offset`` (default: just inside
    the miscue limit). Works on values a ``Shot`` would refuse, so it can come first."""
    v_max = params.cue.max_speed if v_max is None else v_max
    max_offset = 0.999 * params.cue.max_offset if max_offset is None else max_offset
    V0, phi, theta, a, b = (x[..., i] for i in range(5))
    r = jnp.hypot(a, b)
    scale = jnp.where(r > max_offset, max_offset / jnp.where(r > 0, r, 1.0), 1.0)
    return jnp.stack([
        jnp.clip(V0, v_min, v_max), wrap_degrees(phi), jnp.clip(jnp.abs(theta), 0.0, MAX_ELEVATION),
        a * scale, b * scale,
    ], -1)


def perturb(shot: Shot, delta, params: Params) -> Shot:
    """``shot`` plus ``delta`` ((..., 5) in shot units), made playable (``playable``)."""
    return shot_from_array(playable(shot_array(shot) + delta, params))


def noise_std(params: Params, scale: ArrayLike = 1.0) -> jax.Array:
    """(5,) standard deviations in shot units, order (V0, phi, theta, a, b), a and b as fractions
    of R: the standard noise times ``scale`` (0: none; traceable)."""
    offset = NOISE_OFFSET_M / params.ball.radius
    std = jnp.stack([jnp.asarray(s, offset.dtype) for s in (NOISE_V0, NOISE_PHI_DEG, NOISE_THETA_DEG)]
                    + [offset, offset])
    return std * jnp.asarray(scale, offset.dtype)


def add_noise(shot: Shot, key: jax.Array, params: Params, scale: ArrayLike = 1.0) -> Shot:
    """The shot as played: ``shot`` (fields of any one shape) plus one Gaussian draw of
    ``noise_std(params, scale)`` per shot from ``key``, made playable. With ``scale`` 0 the shot
    comes back unchanged except for ``playable``'s wrapping of the aim."""
    x = shot_array(shot)
    e = jax.random.normal(key, x.shape, x.dtype) * noise_std(params, scale)
    return perturb(shot, e, params)
