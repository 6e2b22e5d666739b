"""Ball layouts and shot distributions shared by the experiments."""
from __future__ import annotations

import numpy as np

import physics

BALL_NAMES = ("white", "yellow", "red")
BALL_COLOURS = ("#f4f4f0", "#f2c500", "#c8102e")


def starting_position(params, breaker_side: int = 0) -> np.ndarray:
    """Carom starting position (rule C-2.1): white (the breaker's ball) on a head-string spot
    beside the centre, yellow on the head spot, red on the top spot. (3, 2)."""
    spots = np.asarray(params.table.head_string_spots)
    white = spots[0] if breaker_side == 0 else spots[2]
    return np.stack([white, spots[1], np.asarray(params.table.top_spot)])


def random_shots(rng: np.random.Generator, n: int, v_range=(1.0, 6.0), max_offset=0.5) -> physics.Shot:
    """n random shots: V0 uniform in v_range, any aim, tip offset uniform on a disc of radius
    max_offset (so |a|, |b| <= max_offset and never a miscue), level cue."""
    r = max_offset * np.sqrt(rng.uniform(size=n))
    ang = rng.uniform(0, 2 * np.pi, n)
    return physics.Shot(
        V0=rng.uniform(*v_range, n), phi=rng.uniform(-180, 180, n), theta=np.zeros(n),
        a=r * np.cos(ang), b=r * np.sin(ang),
    )
