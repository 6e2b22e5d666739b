"""Reference scores per environment id, and the ``reward_threshold`` of each Gymnasium spec.

What the shipped agents make in each discipline's default episode: "shot" mode (one shot from a
random legal layout) under the standard execution noise, the reward the shooter's official
points, on one shot from each of seed 7's 2,000 layouts (``experiments.evaluate --agents random
geometric rl --innings 2000 --max-shots 1 --seed 7``; the supervised success model ``policy`` where
one is shipped; no training run used these layouts). In the carom games the mean reward is the
success rate; in the Hungarian game it is points a shot. Measured on the match table's calibrated
physics, README "Reference scores" has the intervals.

``reward_threshold``: the geometric agent's level (aim at the ghost ball of the best line, no
learning and no simulation, ``agents.geometry``). Billiards under noise has no score that solves
it; a learner above this line has learnt more than the geometry hands it, which is what a
threshold such as Stable-Baselines3's ``StopTrainingOnRewardThreshold`` is for. Variants
registered later get none.
"""
from __future__ import annotations

import json
import os

# discipline -> agent -> mean reward a shot, measured data kept beside this module (the command and
# the settings that made it are in the file too)
with open(os.path.join(os.path.dirname(__file__), "reference.json"), encoding="utf-8") as _file:
    REFERENCE: dict[str, dict[str, float]] = json.load(_file)["scores"]


def reward_threshold(discipline: str) -> float | None:
    """The spec's threshold of a discipline: its geometric agent's reference score (None if none)."""
    return REFERENCE.get(discipline, {}).get("geometric")


__all__ = ["REFERENCE", "reward_threshold"]
