"""Gymnasium ids, one per discipline (docs/design.md): ``billiards_env/<CamelCase>-v0``."""
from __future__ import annotations

import gymnasium as gym

import rules

NAMESPACE = "billiards_env"
NAMES = {
    "three_cushion": "ThreeCushion",
    "one_cushion": "OneCushion",
    "straight_rail": "StraightRail",
    "balkline_47_2": "Balkline47_2",
    "balkline_47_1": "Balkline47_1",
    "balkline_71_2": "Balkline71_2",
    "hungarian_1000": "Hungarian1000",
}
assert tuple(NAMES) == rules.DISCIPLINES
IDS = {discipline: f"{NAMESPACE}/{name}-v0" for discipline, name in NAMES.items()}
ENV_IDS = tuple(IDS.values())


def discipline_of(name: str) -> str:
    """The discipline of a discipline id or a Gymnasium id; ValueError listing both otherwise."""
    if name in IDS:
        return name
    for discipline, env_id in IDS.items():
        if name == env_id:
            return discipline
    raise ValueError(f"unknown environment {name!r}; valid ids: {', '.join(ENV_IDS)}; "
                     f"valid disciplines: {', '.join(IDS)}")


def register_all() -> None:
    """Register every id (idempotent)."""
    for discipline, env_id in IDS.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point="billiards_env.gym_env:BilliardsEnv",
            vector_entry_point="billiards_env.vector:BilliardsVectorEnv",
            kwargs={"discipline": discipline},
            disable_env_checker=False,
        )
