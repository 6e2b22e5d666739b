"""A PettingZoo AEC environment for the two-player games: "player_0" and "player_1" take turns as
the rules say (a player keeps shooting while he scores, C-9, H-3.4), one shot per ``step``.

Each agent observes the table from its own point of view (its own cue ball first, its own score
first); the choices and frozen flags are shown to the agent whose turn it is. Rewards are each
player's points on the board from the shot (with ``zero_sum``, minus the opponent's), so a
Hungarian foul rewards the other player (H-9.7). The episode ends with the game (terminations) or
after ``max_steps`` shots (truncations). Every agent's info holds the game's repair counter under
``"repairs"`` (``rules.GameState.repairs``) and ``"scores"`` (points on the board, a Hungarian
run still pending included, the same count as the verdict's ``points``), and after a shot the
referee's verdict. ``game`` is the referee's state, which the planners of ``agents`` read.
"""
from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import jax
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

import physics
import rules
from billiards_env import actions, observation, render
from billiards_env.functional import Config, make_functional, observe_for
from billiards_env.gym_env import REPAIRS_KEY, board_scores, host, outcome_info
from billiards_env.registration import discipline_of
from billiards_env.runner import Runner

AGENTS = ("player_0", "player_1")


@functools.lru_cache(maxsize=None)
def _observe_fn(cfg: Config):
    """The compiled observation of ``cfg``'s action form (``functional.observe_for``: for "lines"
    the candidates' features and mask after the base observation), shared by every environment
    whose form and line table agree."""
    return jax.jit(lambda game, params, steps, viewer: observe_for(cfg, game, params, steps, viewer)[0])


class BilliardsAECEnv(AECEnv):
    """A whole game of a discipline (an id of ``rules.DISCIPLINES`` or a Gymnasium id) between two
    agents. Other arguments: render_mode ("rgb_array", "human"), fused, action (both players'
    action form, ``billiards_env.actions.FORMS``; it sets both the action and the observation
    spaces), rule_options, physics_options and the ``EnvParams`` values. With "lines" each agent's
    observation carries the candidates of the player to shoot (those ``step`` plays)."""

    metadata: dict[str, Any] = {"render_modes": ["rgb_array", "human"], "name": "billiards_v0",
                                "is_parallelizable": False}

    def __init__(self, discipline: str = "three_cushion", render_mode: str | None = None, fused: bool = True,
                 rule_options=None, physics_options=None, action: str = "strike", **values):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; valid: {', '.join(self.metadata['render_modes'])}")
        self.functional = make_functional(discipline_of(discipline), "game", "two_player", action=action,
                                          rule_options=rule_options, physics_options=physics_options, **values)
        self.action_form = self.functional.action_form
        self.params = self.functional.default_params
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self._obs_space = observation.flat_space(self.action_form)
        self._act_space = actions.space(self.action_form)
        self._runner = Runner(self.functional, None, fused=fused)
        self._state: Any = None  # the functional State once reset
        self._result = None
        self._figure = None

    @property
    def game(self) -> rules.GameState:
        """The referee's state of the game now (``rules.GameState``, device arrays): what the
        planners of ``agents`` read, e.g. ``planner.plan(env.params.rules, env.game,
        env.params.physics, key)``, then ``billiards_env.actions.from_shot(shot, env.params)``.
        (PettingZoo reserves ``state()`` for a global observation array.)"""
        if self._state is None:
            EnvLogger.error_observe_before_reset()
        return self._state.game

    @property
    def functional_state(self):
        """The functional environment's State (``billiards_env.State``) of the game now."""
        return self._state

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def reset(self, seed=None, options=None):
        if seed is not None or not hasattr(self, "_rng"):
            self._rng = np.random.default_rng(seed)
        self._key, k = jax.random.split(jax.random.PRNGKey(int(self._rng.integers(0, 2**31 - 1))))
        self._state = self._runner.reset(k, self.params)
        self._result = None
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        game = host(self._state.game)
        self.infos = {a: {"scores": board_scores(self.params, game), REPAIRS_KEY: int(game.repairs)}
                      for a in self.agents}
        self.agent_selection = AGENTS[int(self._state.current_player)]

    def _check_agent(self, agent):
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r}; valid: {', '.join(AGENTS)}")

    def observe(self, agent):
        self._check_agent(agent)
        if self._state is None:
            EnvLogger.error_observe_before_reset()
        s = self._state
        viewer = AGENTS.index(agent)
        if viewer == int(s.current_player):  # the State's own observation: the one the step plays from
            return np.array(s.observation, dtype=np.float32)
        cfg = self.functional.config
        observe = _observe_fn(Config(cfg.family, "shot", None, cfg.action, cfg.line_table))
        return np.array(observe(s.game, self.params, s.step_count, viewer), dtype=np.float32)

    def step(self, action):
        if self._state is None:
            EnvLogger.error_step_before_reset()  # PettingZoo's own error: reset() first
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = actions.check_action(action, form=self.action_form)
        self._key, k = jax.random.split(self._key)
        self._state, self._result = self._runner.step(self._state, action, k, self.params)
        state = host(self._state)
        self._cumulative_rewards[agent] = 0.0
        for i, a in enumerate(self.agents):
            self.rewards[a] = float(state.rewards[i])
            self.terminations[a] = bool(state.terminated)
            self.truncations[a] = bool(state.truncated)
        info = dict(outcome_info(state.outcome, self.functional.discipline), shooter=agent,
                    scores=board_scores(self.params, state.game))
        info[REPAIRS_KEY] = int(state.game.repairs)
        self.infos = {a: dict(info) for a in self.agents}
        self.agent_selection = AGENTS[int(state.current_player)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def last_events(self) -> list:
        """The last shot's events (``physics.event_list``)."""
        return [] if self._result is None else physics.event_list(host(self._result))

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode")
            return None
        if self._state is None:
            EnvLogger.error_render_before_reset()
        state = host(self._state)
        game = state.game
        hungarian = self.params.rules.is_hungarian
        pin = game.pin_position if self.params.rules.pin and game.pin_state in (1, 3) else None
        paths = None if self._result is None else render.shot_paths(self._result, self.params.physics)
        img = render.frame(game.positions, self.params.physics, hungarian, pin=pin, pin_jammed=game.pin_state == 3,
                           paths=paths)
        if self.render_mode == "human":
            self._figure = render.show(img, self._figure)
            return None
        return img

    def close(self):
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None


def env(**kwargs) -> BilliardsAECEnv:
    """PettingZoo's conventional constructor."""
    return BilliardsAECEnv(**kwargs)
