"""The native Gymnasium vector environment: a batch of one discipline stepped by one compiled call.

``gymnasium.make_vec("billiards_env/ThreeCushion-v0", num_envs=1024)`` builds it (through the ids'
``vector_entry_point``). The physics of the batch runs on the lane pool. Finished environments are
reset in the same step (``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``): the
observation returned is the new episode's first one, and the finished episode's last observation
is in ``info["final_obs"]`` (a dense (num_envs, ...) array, valid where ``info["_final_obs"]``).

``info`` holds arrays over the batch, the batch keys of ``billiards_env.info``'s table (``points``,
``foul``, ``reason`` as names, ``scores``, ``current_player``, ``opponent_shots``, ``rewards``,
``repairs``, of the games as the step left them, before any autoreset; after ``reset`` too).
Actions: (num_envs, 9) in [-1, 1] ((num_envs, 10) with ``action="contact"``, (num_envs,) whole
numbers in 0..131 with ``action="lines"``); a bad batch raises ValueError naming the allowed range.
The observation space is the action form's (``observation.flat_space(action)``, ``dict_space``).
"""
from __future__ import annotations

import gymnasium as gym
import jax
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from billiards_env import actions, observation
from billiards_env.functional import DEFAULT_LANES, make_functional
from billiards_env.gym_env import check_obs_format, host
from billiards_env.info import batch_info, board_scores_batch, neutral_batch_info
from billiards_env.runner import Runner


class BilliardsVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` environments of one discipline; the other arguments as ``BilliardsEnv``
    (no rendering), plus ``lanes``, the physics pool's width."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, discipline: str = "three_cushion", mode: str = "shot",
                 opponent="random", obs_format: str = "flat", fused: bool = True, lanes: int = DEFAULT_LANES,
                 render_mode: str | None = None, rule_options=None, physics_options=None, action: str = "strike",
                 **values):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if render_mode is not None:
            raise ValueError("the vector environment does not render; valid render_mode: None")
        self.num_envs = int(num_envs)
        self.obs_format = check_obs_format(obs_format)
        self.functional = make_functional(discipline, mode, opponent, action=action, rule_options=rule_options,
                                          physics_options=physics_options, **values)
        self.params = self.functional.default_params
        self.action_form = self.functional.action_form
        self.single_action_space = actions.space(self.action_form)
        self.single_observation_space = (observation.flat_space(self.action_form) if obs_format == "flat"
                                         else observation.dict_space(self.action_form))
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.render_mode = None
        self._runner = Runner(self.functional, self.num_envs, fused=fused, lanes=lanes, autoreset=True)
        self._state = None
        self._acting = None
        self._key = None

    @property
    def state(self):
        """The batched functional State (device arrays)."""
        return self._state

    def _obs(self, flat):
        flat = np.array(flat, dtype=np.float32)
        return flat if self.obs_format == "flat" else observation.to_dict(flat, self.action_form)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"unknown reset option(s) {', '.join(sorted(options))}; the vector environment takes none")
        seed_key = int(self.np_random.integers(0, 2**31 - 1))
        self._key, k_init = jax.random.split(jax.random.PRNGKey(seed_key))
        self._state = self._runner.reset(k_init, self.params)
        state, scores = host((self._state, board_scores_batch(self.params.rules, self._state.game)))
        self._acting = state.current_player
        return self._obs(state.observation), neutral_batch_info(state, scores)

    def step(self, actions_):
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        batch = actions.check_action(actions_, batch=self.num_envs, form=self.action_form)
        self._key, k = jax.random.split(self._key)
        self._state, stepped = self._runner.step(self._state, batch, k, self.params)
        nxt_obs, nxt_player, stepped, scores = host((self._state.observation, self._state.current_player, stepped,
                                                     board_scores_batch(self.params.rules, stepped.game)))
        reward = stepped.rewards[np.arange(self.num_envs), self._acting].astype(np.float64)
        self._acting = nxt_player
        terminated, truncated = np.asarray(stepped.terminated), np.asarray(stepped.truncated)
        done = terminated | truncated
        info = batch_info(stepped, scores)
        if done.any():
            info["final_obs"] = self._obs(stepped.observation)
            info["_final_obs"] = done
        return self._obs(nxt_obs), reward, terminated, truncated, info
