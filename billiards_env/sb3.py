"""A Stable-Baselines3 ``VecEnv`` that runs the JAX-batched environment directly: each
``step_wait`` is one compiled batched step (with the reset of finished episodes), no Python loop
over environments and no sub-processes.

    from stable_baselines3 import PPO
    from billiards_env.sb3 import BilliardsVecEnv
    venv = BilliardsVecEnv("three_cushion", num_envs=256)
    PPO("MlpPolicy", venv).learn(100_000)

Episode ends follow SB3's conventions: ``infos[i]["terminal_observation"]`` holds the last
observation and ``infos[i]["TimeLimit.truncated"]`` says the episode was truncated;
``infos[i]["repairs"]`` is the game's repair counter (``rules.GameState.repairs``). The last
step's official rewards stay in ``official_rewards``; ``shape_reward`` is the one hook for a
training aid on top of them.
"""
from __future__ import annotations

import jax
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from billiards_env import actions, observation
from billiards_env.functional import DEFAULT_LANES, make_functional
from billiards_env.gym_env import REPAIRS_KEY, check_obs_format, host
from billiards_env.registration import discipline_of
from billiards_env.runner import Runner


class BilliardsVecEnv(VecEnv):
    """``num_envs`` environments of a discipline (an id of ``rules.DISCIPLINES`` or a Gymnasium id
    ``billiards_env/<Name>-v0``); the other arguments as ``BilliardsEnv`` (``action``: the action
    form; "lines" gives a ``Discrete`` action space and its longer observation), plus ``seed`` and
    ``lanes``."""

    def __init__(self, discipline: str = "three_cushion", num_envs: int = 64, mode: str = "shot",
                 opponent="random", obs_format: str = "flat", seed: int = 0, fused: bool = True,
                 lanes: int = DEFAULT_LANES, rule_options=None, physics_options=None, action: str = "strike",
                 **values):
        self.render_mode = None
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer (environments run side by side), got {num_envs!r}")
        self.obs_format = check_obs_format(obs_format)
        self.functional = make_functional(discipline_of(discipline), mode, opponent, action=action,
                                          rule_options=rule_options, physics_options=physics_options, **values)
        self.params = self.functional.default_params
        self.action_form = self.functional.action_form
        form = self.action_form
        space = observation.flat_space(form) if obs_format == "flat" else observation.dict_space(form)
        action_space = actions.space(self.action_form)
        super().__init__(int(num_envs), space, action_space)
        self._runner = Runner(self.functional, self.num_envs, fused=fused, lanes=lanes, autoreset=True)
        self._key = jax.random.PRNGKey(int(seed))
        self._state = None
        self._acting = None
        self._actions = None

    def _obs(self, flat):
        flat = np.array(flat, dtype=np.float32)
        return flat if self.obs_format == "flat" else observation.to_dict(flat, self.action_form)

    def reset(self):
        if self._seeds[0] is not None:
            self._key = jax.random.PRNGKey(int(self._seeds[0]))
        self._reset_seeds()
        self._key, k = jax.random.split(self._key)
        self._state = self._runner.reset(k, self.params)
        obs, self._acting = host((self._state.observation, self._state.current_player))
        return self._obs(obs)

    def step_async(self, actions_) -> None:
        if self._state is None:
            raise RuntimeError("BilliardsVecEnv has no episodes running (not reset yet, or closed): "
                               "call reset() before step()")
        self._actions = actions.check_action(actions_, batch=self.num_envs, form=self.action_form)

    def step_wait(self):
        self._key, k = jax.random.split(self._key)
        self._state, stepped = self._runner.step(self._state, self._actions, k, self.params)
        obs, player, final_obs, rewards, terminated, truncated, repairs = host((
            self._state.observation, self._state.current_player, stepped.observation, stepped.rewards,
            stepped.terminated, stepped.truncated, stepped.game.repairs))
        self.official_rewards = rewards[np.arange(self.num_envs), self._acting].astype(np.float32)
        reward = self.shape_reward(self.official_rewards, stepped)
        self._acting = player
        dones = terminated | truncated
        infos = [{REPAIRS_KEY: int(n)} for n in repairs]
        for i in np.nonzero(dones)[0]:
            infos[i]["terminal_observation"] = self._obs(final_obs[i])
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return self._obs(obs), reward, dones, infos

    def shape_reward(self, official, stepped):
        """The reward handed to the learner: the acting player's official points (``official``,
        (num_envs,) float32) unless a subclass adds a documented training aid. ``stepped`` is the
        step's ``billiards_env.State`` before the autoreset (its ``outcome`` says what the shot did)."""
        return official

    def close(self) -> None:
        self._state = None

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        return [getattr(self, method_name)(*method_args, **method_kwargs)] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._indices(indices))

    def _indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices
