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

# discipline -> agent -> mean reward per shot ("shot" mode, standard noise, seed 7, 2,000 layouts)
REFERENCE: dict[str, dict[str, float]] = {
    "three_cushion": {"random": 0.0175, "geometric": 0.1655, "rl": 0.2995, "policy": 0.3345},
    "one_cushion": {"random": 0.03, "geometric": 0.3735, "rl": 0.4275},
    "straight_rail": {"random": 0.0325, "geometric": 0.443, "rl": 0.47},
    "balkline_47_2": {"random": 0.0325, "geometric": 0.443, "rl": 0.47},
    "balkline_47_1": {"random": 0.032, "geometric": 0.4395, "rl": 0.4545},
    "balkline_71_2": {"random": 0.0325, "geometric": 0.443, "rl": 0.47},
    "hungarian_1000": {"random": 3.08, "geometric": 13.61, "rl": 22.355, "policy": 31.48},
}


def reward_threshold(discipline: str) -> float | None:
    """The spec's threshold of a discipline: its geometric agent's reference score (None if none)."""
    return REFERENCE.get(discipline, {}).get("geometric")


__all__ = ["REFERENCE", "reward_threshold"]
