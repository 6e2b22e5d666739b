"""The learned players' canonical frame: a layout and its mirror images look the same to the networks."""
import dataclasses

import jax.numpy as jnp
import numpy as np

import physics
from agents.success import canonical_shot, frame, line_correction, correction, pair_features

PARAMS = physics.default_params()
LAYOUT = jnp.array([[0.9, 0.4], [2.1, 1.0], [1.6, 0.3]])
SHOT = physics.Shot(V0=jnp.asarray(3.0), phi=jnp.asarray(37.0), theta=jnp.asarray(0.0), a=jnp.asarray(0.2),
                    b=jnp.asarray(-0.1))
BEST = (jnp.array([0.8, 0.5]), jnp.array([35.0, -120.0]), jnp.array([3.5, 2.0]), jnp.array([0.1, 0.0]))


def mirror(layout, shot, best, mx, my):
    """The layout, strike and lines reflected across the table's centre lines (mx, my: +-1)."""
    c = PARAMS.table.centre
    flip = jnp.array([mx, my], layout.dtype)
    f = frame(LAYOUT, 0, PARAMS)._replace(sx=jnp.asarray(float(mx)), sy=jnp.asarray(float(my)))
    score, phi, V0, b = best
    lines = canonical_shot(physics.Shot(V0, phi, jnp.zeros_like(phi), jnp.zeros_like(phi), b), f)
    return c + (layout - c) * flip, canonical_shot(shot, f), (score, lines.phi, V0, b)


def test_features_are_the_same_for_every_mirror_image():
    base = np.asarray(pair_features(LAYOUT, 0, SHOT, BEST, PARAMS))
    for mx, my in ((-1, 1), (1, -1), (-1, -1)):
        layout, shot, best = mirror(LAYOUT, SHOT, BEST, mx, my)
        np.testing.assert_allclose(pair_features(layout, 0, shot, best, PARAMS), base, atol=1e-5)
    # and a different strike looks different
    other = dataclasses.replace(SHOT, phi=jnp.asarray(40.0))
    assert np.abs(np.asarray(pair_features(LAYOUT, 0, other, BEST, PARAMS)) - base).max() > 0.01


def test_correction_undoes_line_correction():
    f = frame(jnp.array([[0.5, 0.3], [2.2, 1.1], [1.0, 1.2]]), 0, PARAMS)  # both flips
    assert float(f.sx) == -1.0 and float(f.sy) == -1.0
    line = dataclasses.replace(SHOT, a=jnp.asarray(0.0), phi=jnp.asarray(170.0))
    back = correction(line, line_correction(line, SHOT, f), f)
    for name in ("V0", "phi", "a", "b"):
        np.testing.assert_allclose(getattr(back, name), getattr(SHOT, name), atol=1e-9)
