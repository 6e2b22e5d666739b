"""Gymnasium ids, one per discipline (docs/design.md): ``billiards_env/<gym_name>-v0``, where the
gym name is a column of the discipline table (``rules.disciplines``); each spec's
``reward_threshold`` is the discipline's geometric agent's level (``billiards_env.reference``)."""
from __future__ import annotations

import gymnasium as gym

from billiards_env.reference import reward_threshold
from rules import disciplines

NAMESPACE = "billiards_env"


def env_id(discipline: str) -> str:
    """The Gymnasium id of a discipline id (a variant's too); ValueError for an unknown one."""
    return f"{NAMESPACE}/{disciplines.get(discipline).gym_name}-v0"


# The seven disciplines' ids; variants get theirs from ``env_id`` once registered.
IDS = {discipline: env_id(discipline) for discipline in disciplines.DISCIPLINES}
ENV_IDS = tuple(IDS.values())


def discipline_of(name: str) -> str:
    """The discipline of a discipline id or a Gymnasium id; ValueError listing both otherwise."""
    if name in disciplines.ids():
        return name
    for discipline in disciplines.ids():
        if name == env_id(discipline):
            return discipline
    every = disciplines.ids()
    raise ValueError(f"unknown environment {name!r}; valid ids: {', '.join(map(env_id, every))}; "
                     f"valid disciplines: {', '.join(every)}")


def register_all() -> None:
    """Register every discipline of the table with Gymnasium, variants included (idempotent): call
    it again after ``rules.register_discipline`` to make a variant by its id."""
    for discipline in disciplines.ids():
        if env_id(discipline) in gym.registry:
            continue
        gym.register(
            id=env_id(discipline),
            entry_point="billiards_env.gym_env:BilliardsEnv",
            vector_entry_point="billiards_env.vector:BilliardsVectorEnv",
            kwargs={"discipline": discipline},
            reward_threshold=reward_threshold(discipline),  # the geometric agent's level (billiards_env.reference)
            disable_env_checker=False,
        )
