"""A ball in the air meeting a cushion: where it meets it, and what follows (docs/physics.md section 5).

The cushion and rail in a cross-section normal to the cushion line, heights above the bed: the
nose at ``cushion.height``; above it the cushion's cloth-covered upper face, rising at the angle
``face_slope`` over ``table.face_depth`` back to the wooden rail, whose top lies at
``table.rail_height`` and is ``table.rail_width`` wide. A ball is judged by the height of its
centre when it reaches the nose line (the event the detection finds):

========  =====================================  ==============================================
zone      centre height R + z                    what follows
========  =====================================  ==============================================
CUSHION   at or below the nose                   the cushion model, across the table (section 2)
FACE      above the nose, touching the nose's    one impulse along the contact normal, with the
          edge or the upper face                 cushion's restitution e_c; the ball comes back
                                                 unless it still moves outwards (it rides up
                                                 onto the rail: jumped)
RAIL      its lowest point below the rail top    it strikes the rail: jumped (rules H-7.1, C-6.2)
CLEAR     its lowest point above the rail top    it flies over the rail: off the table
========  =====================================  ==============================================

The contact normal in the FACE zone points from the contact to the ball's centre: from the nose's
edge while the centre is less than R cos(face_slope) above the nose, from the face above that. It
points up and into the table, so the rebound sends the ball back and up: a ball that meets the
cushion just above the nose hops off it, one that meets it high up is thrown steeply upwards.
The impulse is frictionless (the spin is kept) and fixed bodies take it, so it never adds energy.
"""
from __future__ import annotations

import jax.numpy as jnp

CUSHION, FACE, RAIL, CLEAR = 0, 1, 2, 3
ZONES = ("cushion", "face", "rail", "clear")


def face_slope(params):
    """() angle (rad) at which the cushion's upper face rises from the nose to the rail top."""
    return jnp.arctan2(params.table.rail_height - params.cushion.height, params.table.face_depth)


def zone(z, params):
    """(...) int: the zone (``CUSHION`` .. ``CLEAR``) in which a ball whose centre is ``z`` above its
    resting height reaches the nose line."""
    R, nose, rail = params.ball.radius, params.cushion.height, params.table.rail_height
    above = R + z - nose  # the centre's height above the nose
    face_top = R * jnp.cos(face_slope(params)) + (rail - nose)  # the face's last contact
    return jnp.select([above <= 0, above <= face_top, z < rail], [CUSHION, FACE, RAIL], CLEAR)


def contact_angle(z, params):
    """(...) angle (rad) of the FACE zone's contact below the centre's horizontal: from the nose's
    edge, asin(height above the nose / R), up to the face's own normal (90 deg - face_slope)."""
    R = params.ball.radius
    above = jnp.clip((R + z - params.cushion.height) / R, 0.0, 1.0)
    return jnp.minimum(jnp.arcsin(above), 0.5 * jnp.pi - face_slope(params))


def face_rebound(v, vz, z, outward, params):
    """A ball in the FACE zone after its impact: (v (2,), vz, back), back True when it now moves
    back towards the table (False: it rides up onto the rail, a jumped ball).

    v: (2,) velocity across the table; vz: vertical velocity; outward: (2,) unit vector from the
    ball towards the cushion. The contact lies along c = cos(b) outward - sin(b) up from the
    centre (b: ``contact_angle``); the approach speed along c is reversed times e_c.
    """
    b = contact_angle(z, params)
    cos_b, sin_b = jnp.cos(b), jnp.sin(b)
    approach = jnp.dot(v, outward) * cos_b - vz * sin_b
    push = jnp.where(approach > 0, (1.0 + params.cushion.e_c) * approach, 0.0)
    v_new = v - push * cos_b * outward
    vz_new = vz + push * sin_b
    return v_new, vz_new, jnp.dot(v_new, outward) < 0


__all__ = ["CUSHION", "FACE", "RAIL", "CLEAR", "ZONES", "face_slope", "zone", "contact_angle", "face_rebound"]
