"""Tracked-shot helpers shared across the tests (``physics.tracking``): the 90 match shots by id,
loaded once, and a shot made by the physics whose cue ball meets several cushions, sampled like
the camera. Data: erdo100/3cushiontool, 20221225_2_Match_Ersin_Cemal.pkl, Apache-2.0."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from physics.tracking import TrackedShot, load

# A layout and a strike (V0, phi, a, b) whose cue ball runs into several cushions.
CUSHIONS_START = np.array([[0.5, 0.4], [2.3, 1.1], [2.6, 0.3]])
CUSHIONS_STRIKE = np.array([3.0, 70.0, 0.0, 0.2])


@lru_cache(maxsize=1)
def _shots() -> tuple[TrackedShot, ...]:
    return tuple(load())


def match_shots() -> dict[int, TrackedShot]:
    """The tracked match shots (``physics.tracking.DATA``) by shot id, in the file's order."""
    return {s.shot_id: s for s in _shots()}
