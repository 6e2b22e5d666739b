"""The canonical frame of a layout: what the learned agents see instead of the table's coordinates.

The table is symmetric about both centre lines (docs/physics.md section 7), and so are the rules
the networks play for: three-cushion scores off either object ball (docs/rules.md C-3.1), so does
a Hungarian carom (H-6.2), the Hungarian pin stands on the centre spot (H-2.1), which both mirrors
keep, and the fields and anchors of balkline and straight rail are symmetric too (C-11.1, C-12.2).
So a layout and its mirror images are one layout to learn from: ``frame`` mirrors it so that the
cue ball lies in the quadrant x >= centre, y >= centre, scales it to units of the half table
(centre at 0), and orders the two object balls by their distance to the cue ball. A mirror
reverses the aim's sense and the side spin's sign, so strikes are mapped with the same flips
(``canonical_shot``, its own inverse). ``layout_features`` are the layout's inputs in that frame,
shared by the success model (``agents.success``) and the leave value (``agents.leave``).

    f = frame(positions, cue_ball, params)     # positions (3, 2), cue_ball () int
    x = layout_features(f)                     # (12,)
    s = canonical_shot(shot, f)                # the strike as seen in the frame (and back)
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

import physics
from physics.params import Params
from aiming import geometry


class Frame(NamedTuple):
    """A layout in the canonical frame: flips sx, sy (+-1), the cue ball C and the ordered object
    balls O1, O2, all (..., 2) in units of the half table (centre at 0)."""

    sx: jax.Array
    sy: jax.Array
    C: jax.Array
    O1: jax.Array
    O2: jax.Array


def frame(positions, cue_ball, params: Params) -> Frame:
    """The canonical frame of one layout: positions (3, 2), cue_ball () int."""
    half = jnp.stack([params.table.length, params.table.width]) / 2
    p = (positions - params.table.centre) / half
    C = p[cue_ball]
    flip = jnp.where(C >= 0, 1.0, -1.0).astype(p.dtype)
    p = p * flip
    obj = geometry.object_balls(cue_ball)
    A, B = p[obj[0]], p[obj[1]]
    near_a = jnp.linalg.norm(A - p[cue_ball]) <= jnp.linalg.norm(B - p[cue_ball])
    O1 = jnp.where(near_a, A, B)
    O2 = jnp.where(near_a, B, A)
    return Frame(flip[0], flip[1], p[cue_ball], O1, O2)


def canonical_shot(shot: physics.Shot, f: Frame) -> physics.Shot:
    """``shot`` seen in the frame ``f`` (and back: the map is its own inverse)."""
    rad = jnp.radians(shot.phi)
    phi = jnp.degrees(jnp.arctan2(f.sy * jnp.sin(rad), f.sx * jnp.cos(rad)))
    return physics.Shot(V0=shot.V0, phi=phi, theta=shot.theta, a=f.sx * f.sy * shot.a, b=shot.b)


def layout_features(f: Frame) -> jax.Array:
    """(12,) features of a canonical layout: the three balls, and each object ball's offset
    from the cue ball with its distance."""
    d1, d2 = f.O1 - f.C, f.O2 - f.C
    n1, n2 = jnp.linalg.norm(d1, keepdims=True), jnp.linalg.norm(d2, keepdims=True)
    return jnp.concatenate([f.C, f.O1, f.O2, d1, n1, d2, n2])


__all__ = ["Frame", "frame", "canonical_shot", "layout_features"]
