"""Ball layouts and shot distributions shared by the experiments."""
from __future__ import annotations

import jax
import numpy as np

import physics
import rules


def starting_position(params) -> np.ndarray:
    """The carom starting position (rule C-2.1) with white breaking, as the referee sets it:
    white, yellow, red. (3, 2)."""
    game = rules.make_rules("three_cushion")
    return np.asarray(rules.init_game(game, jax.random.PRNGKey(0), params, breaker=0).positions)


def random_shots(rng: np.random.Generator, n: int, v_range=(1.0, 6.0), max_offset=0.5) -> physics.Shot:
    """n random shots: V0 uniform in v_range, any aim, tip offset uniform on a disc of radius
    max_offset (so |a|, |b| <= max_offset and never a miscue), level cue."""
    r = max_offset * np.sqrt(rng.uniform(size=n))
    ang = rng.uniform(0, 2 * np.pi, n)
    return physics.Shot(
        V0=rng.uniform(*v_range, n), phi=rng.uniform(-180, 180, n), theta=np.zeros(n),
        a=r * np.cos(ang), b=r * np.sin(ang),
    )
