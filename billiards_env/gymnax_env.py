"""The environments as gymnax environments, for JAX training code written against gymnax's API
(PureJaxRL style: rollouts, GAE and updates inside one ``jit``).

    env, env_params = billiards_env.make_gymnax("three_cushion")          # or "billiards_env/ThreeCushion-v0"
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, env_params)
    obs, state, reward, terminated, truncated, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
        keys, state, actions, env_params)

``GymnaxEnv`` wraps a ``FunctionalEnv`` (its ``init`` and ``step``, nothing copied): the state is
the functional ``State``, the params are ``EnvParams``, the reward is the acting player's
(``billiards_env.shooter_reward``), ``terminated`` and ``truncated`` are the State's own.
gymnax's base ``step`` (1.0) does the automatic reset: where the step ends the episode it
returns a new episode's observation and state, and the finished one's observation in
``info["final_observation"]``. A batch stepped with ``jax.vmap(env.step)`` runs each shot's
physics loop for as long as the batch's longest shot; ``FunctionalEnv.step_batch`` (the lane
pool) is faster for a batch and is what ``agents.jax_ppo`` uses.

gymnax is an optional dependency (the ``jax`` extra); only this module imports it.
"""
from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from billiards_env import actions, observation
from billiards_env.functional import FunctionalEnv, State, make_functional
from billiards_env.modes import shooter_reward
from billiards_env.params import EnvParams
from billiards_env.registration import discipline_of
from rules import disciplines

try:
    from gymnax.environments import environment, spaces
except ImportError as error:  # pragma: no cover - the optional "jax" extra is missing
    raise ImportError(f'billiards_env.gymnax_env needs gymnax (pip install -e ".[jax]"): {error}') from error


class GymnaxEnv(environment.Environment):
    """One discipline and mode as a gymnax ``Environment``. Arguments as
    ``billiards_env.make_functional`` (discipline, mode, opponent and the options, ``action``
    the action form among them), or an existing
    ``functional`` environment."""

    def __init__(self, discipline: str = "three_cushion", mode: str = "shot", opponent: Any = "random", *,
                 functional: FunctionalEnv | None = None, **options):
        super().__init__()
        self.functional = functional if functional is not None else make_functional(
            discipline, mode, opponent, **options)

    @property
    def default_params(self) -> EnvParams:  # type: ignore[override]
        return self.functional.default_params

    def reset_env(self, key: jax.Array, params: EnvParams) -> tuple[jax.Array, State]:  # type: ignore[override]
        state = self.functional.init(key, params)
        return state.observation, state

    def step_env(self, key: jax.Array, state: State, action, params: EnvParams):  # type: ignore[override]
        """One step of the functional environment: (observation, state, the acting player's
        reward, terminated, info with both players' ``rewards``)."""
        new = self.functional.step(state, action, key, params)
        info = {"rewards": new.rewards, "points": new.outcome.points}
        return new.observation, new, shooter_reward(state, new), new.terminated, info

    def is_terminated(self, state: State, params: EnvParams) -> jax.Array:  # type: ignore[override]
        return state.terminated

    def is_truncated(self, state: State, params: EnvParams) -> jax.Array:  # type: ignore[override]
        """The State's own truncation (``params.max_steps``, or the opponent's shots capped)."""
        return state.truncated

    @property
    def name(self) -> str:
        return f"{disciplines.get(self.functional.discipline).gym_name}-{self.functional.mode}"

    @property
    def num_actions(self) -> int:
        return self.functional.num_actions

    @property
    def action_form(self) -> str:
        """The action's form (``actions.FORMS``), the functional environment's."""
        return self.functional.action_form

    def action_space(self, params: EnvParams | None = None) -> spaces.Box | spaces.Discrete:
        """The action: (9,) float32 in [-1, 1], (10,) for the "contact" form, ``Discrete(132)``
        (a candidate's index) for the "lines" form (``billiards_env.actions``)."""
        if self.action_form == "lines":
            return spaces.Discrete(self.num_actions)
        return spaces.Box(actions.LOW, actions.HIGH, actions.shape(self.action_form), jnp.float32)

    def observation_space(self, params: EnvParams | None = None) -> spaces.Box:
        """The flat observation of the action form: (``observation.size(form)``,) float32, each
        entry within its group's bounds (``observation.flat_space(form)``)."""
        box = observation.flat_space(self.action_form)
        return spaces.Box(jnp.asarray(box.low, jnp.float32), jnp.asarray(box.high, jnp.float32), box.shape,
                          jnp.float32)

    def __repr__(self):
        form = "" if self.action_form == "strike" else f", action={self.action_form!r}"
        return f"GymnaxEnv({self.functional.discipline!r}, mode={self.functional.mode!r}{form})"


def make_gymnax(name: str = "three_cushion", mode: str = "shot", opponent: Any = "random",
                **options) -> tuple[GymnaxEnv, EnvParams]:
    """(env, env_params) for a discipline id or a Gymnasium id (``billiards_env.IDS``); unknown
    names raise ValueError listing the valid ones. mode, opponent and the options (``action``,
    ``rule_options``, ``physics_options``, ``noise``, ...) as ``billiards_env.make_functional``."""
    env = GymnaxEnv(discipline_of(name), mode, opponent, **options)
    return env, env.default_params


__all__ = ["GymnaxEnv", "make_gymnax"]
