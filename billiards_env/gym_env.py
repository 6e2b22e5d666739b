"""The Gymnasium environment: a thin adapter over the functional environment.

NumPy in and out (writable arrays; Python float and bool for the reward and the flags), the
spaces, seeding through ``super().reset(seed=seed)``, rendering, and the checks that Python can
make and ``jit`` cannot: a bad action raises ValueError naming the allowed range, and stepping a
finished episode raises (``gymnasium.error.ResetNeeded``): call ``reset()``.

``info`` (the table of ``billiards_env.info``; the same keys after ``reset``, neutral) after a
step: ``call`` (the referee's call in words, ``rules.call_words``), ``events``
(the shot's events, ``physics.event_list``), ``shot`` (the strike as played, after noise),
``points`` (each player's points on the board for the step's first shot), ``foul``, ``reason``,
``scores`` (points on the board, a Hungarian run still pending included, as in ``points``;
also after ``reset``), ``current_player``, ``opponent_shots`` (built-in opponent, "game" mode), and
``repairs`` (``REPAIRS_KEY``, also after ``reset``): the impossible states the referee repaired
in this game so far (``rules.GameState.repairs``; ``rules.repair``, ``rules.void``), which every
adapter reports under the same key.
"""
from __future__ import annotations

import dataclasses

import gymnasium as gym
import jax
import numpy as np

import physics
import rules
from billiards_env import actions, observation, render
from billiards_env.functional import FunctionalEnv, make_functional
from billiards_env.info import neutral_info
from billiards_env.params import check_layout, replace
from billiards_env.runner import Runner

OBS_FORMATS = ("flat", "dict")
REPAIRS_KEY = "repairs"  # the info key of the referee's repair counter, in every adapter


def host(tree):
    """A pytree of device arrays as NumPy arrays. On the CPU each leaf is read in place
    (``np.asarray``), some ten times faster than ``jax.device_get``'s per-array bookkeeping on the
    eighty small arrays of a step; elsewhere one ``device_get`` fetches them all at once."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    if jax.default_backend() != "cpu":
        leaves = jax.device_get(leaves)
    return jax.tree_util.tree_unflatten(treedef, [np.asarray(x) for x in leaves])


def outcome_info(outcome, discipline: str) -> dict:
    """The referee's verdict on one shot of ``discipline``, in Python values and words."""
    return {
        "call": rules.call_words(outcome, discipline),
        "points": [int(v) for v in np.asarray(outcome.points)],
        "foul": bool(outcome.foul),
        "reason": rules.Reason(int(outcome.reason)).name.lower(),
    }


def board_scores(params, game) -> list:
    """[int, int]: each player's points on the board (``rules.board_scores_of``: the recorded
    scores plus a Hungarian run still pending, H-9.9), the same count as ``points``."""
    return [int(v) for v in np.asarray(rules.board_scores_of(params.rules, game))]


def check_obs_format(obs_format: str) -> str:
    if obs_format not in OBS_FORMATS:
        raise ValueError(f"unknown obs_format {obs_format!r}; valid: {', '.join(OBS_FORMATS)}")
    return obs_format


class BilliardsEnv(gym.Env):
    """One discipline as a Gymnasium environment (ids ``billiards_env/<Discipline>-v0``).

    Arguments: discipline (``rules.DISCIPLINES``), mode ("shot", "inning", "game"), opponent
    ("random", "two_player" or a JAX policy; "game" mode; it plays strike-form actions), action
    (the action form, ``actions.FORMS``: "strike", the raw strike, "contact", aimed at a ball,
    or "lines", the index of one of the geometry's candidate strikes), obs_format ("flat": a Box
    of ``observation.size(action)`` float32, or "dict", ``observation.groups(action)``),
    render_mode ("rgb_array", "human"), fused (one compiled call per step; False compiles stage
    by stage, see ``billiards_env.runner``), rule_options, physics_options and the ``EnvParams``
    values (``noise``, ``zero_sum``, ...).

    ``reset(options={"layout": (3, 2) metres, "player": 0 or 1})`` starts a "shot" or "inning"
    episode from a given layout. The reward is the acting player's ``rewards`` entry.
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 4}
    _spec = None

    @property
    def spec(self):
        """The registration's ``EnvSpec`` with ``max_episode_steps`` set to the environment's own
        truncation (``max_steps``, 200 by default): the environment truncates itself, so the ids
        are registered without a TimeLimit, which would cut an episode at 200 steps whatever
        ``max_steps`` the user passed. ``gymnasium.make(id, max_episode_steps=K)`` still adds one."""
        if self._spec is None:
            return None
        return dataclasses.replace(self._spec, max_episode_steps=int(self.params.max_steps))

    @spec.setter
    def spec(self, value):
        self._spec = value

    def __init__(self, discipline: str = "three_cushion", mode: str = "shot", opponent="random",
                 obs_format: str = "flat", render_mode: str | None = None, fused: bool = True,
                 rule_options=None, physics_options=None, action: str = "strike", **values):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; valid: {', '.join(self.metadata['render_modes'])}")
        self.obs_format = check_obs_format(obs_format)
        self.functional: FunctionalEnv = make_functional(
            discipline, mode, opponent, action=action, rule_options=rule_options, physics_options=physics_options,
            **values)
        self.params = self.functional.default_params
        self.render_mode = render_mode
        self.action_space = actions.space(self.action_form)
        form = self.action_form
        self.observation_space = observation.flat_space(form) if obs_format == "flat" else observation.dict_space(form)
        self._runner = Runner(self.functional, None, fused=fused)
        self._state = None
        self._host = (None, None)  # (a State, the same on the host): what the next step reads
        self._result = None
        self._key = None
        self._figure = None
        self._pin_before = None

    @property
    def discipline(self) -> str:
        return self.functional.discipline

    @property
    def action_form(self) -> str:
        """The action's form (``actions.FORMS``)."""
        return self.functional.action_form

    @property
    def state(self):
        """The functional State (device arrays), None before the first reset."""
        return self._state

    def _on_host(self):
        """The State on the host, fetched once per State (a step reads its checks from the copy
        the last step or reset already fetched)."""
        if self._host[0] is not self._state:
            self._host = (self._state, host(self._state))
        return self._host[1]

    def _obs(self, state):
        flat = np.array(state.observation, dtype=np.float32)
        return flat if self.obs_format == "flat" else observation.to_dict(flat, self.action_form)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        params = self.functional.default_params
        options = dict(options or {})
        layout = options.pop("layout", None)
        player = options.pop("player", 0)
        if options:
            raise ValueError(f"unknown reset option(s) {', '.join(sorted(options))}; valid: layout, player")
        if layout is not None:
            if self.functional.mode == "game":
                raise ValueError("a layout can be given in the 'shot' and 'inning' modes only")
            if player not in (0, 1):
                raise ValueError(f"player must be 0 or 1, got {player!r}")
            params = replace(params, layout=check_layout(layout, params.physics, params.rules),
                             layout_given=np.asarray(True), layout_player=np.asarray(player, np.int32))
        self.params = params
        seed_key = int(self.np_random.integers(0, 2**31 - 1))
        self._key, k_init = jax.random.split(jax.random.PRNGKey(seed_key))
        self._state = self._runner.reset(k_init, params)
        self._result = None
        state = self._on_host()
        return self._obs(state), self._reset_info(state)

    def _reset_info(self, state) -> dict:
        return neutral_info(board_scores(self.params, state.game), int(state.current_player), int(state.game.repairs))

    def step(self, action):
        """One shot. action: (9,) real numbers in [-1, 1] ((10,) for the "contact" form; for
        "lines" a whole number in 0..131, the candidate's index; ``billiards_env.actions``); an
        action outside the space (NaN, inf, out of range, not whole for "lines", another shape)
        raises ValueError and a complex one TypeError: nothing is clipped silently (clip in the
        agent, or use Gymnasium's ClipAction wrapper). Stepping before ``reset()`` or after the
        episode ended raises ResetNeeded."""
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        now = self._on_host()
        if bool(now.terminated) or bool(now.truncated):
            raise gym.error.ResetNeeded("the episode has ended (terminated or truncated): call reset()")
        action = actions.check_action(action, form=self.action_form)
        acting = int(now.current_player)
        before = now.game
        self._pin_before = before.pin_position if before.pin_state == rules.PinState.STANDING else None
        self._key, k = jax.random.split(self._key)
        self._state, self._result = self._runner.step(self._state, action, k, self.params)
        state, result = host((self._state, self._result))
        self._host = (self._state, state)
        reward = float(state.rewards[acting])
        info = dict(outcome_info(state.outcome, self.discipline))
        info.update(
            events=physics.event_list(result),
            shot=actions.describe(state.shot),
            scores=board_scores(self.params, state.game),
            current_player=int(state.current_player),
            opponent_shots=int(state.opponent_shots),
            rewards=state.rewards.tolist(),
        )
        info[REPAIRS_KEY] = int(state.game.repairs)
        if self.render_mode == "human":
            self.render()
        return self._obs(state), reward, bool(state.terminated), bool(state.truncated), info

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='rgb_array' or 'human'")
            return None
        img = self.frame()
        if self.render_mode == "human":
            self._figure = render.show(img, self._figure)
            return None
        return img

    def frame(self, width: int = 640) -> np.ndarray:
        """(H, W, 3) uint8: the table now, with the last shot's paths."""
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before render()")
        state = self._on_host()
        phys = self.params.physics
        game = state.game
        hungarian = self.params.rules.is_hungarian
        pin = None
        if game.pin_state in (rules.PinState.STANDING, rules.PinState.JAMMED):
            pin = game.pin_position
        paths = None if self._result is None else render.shot_paths(self._result, phys)
        return render.frame(game.positions, phys, hungarian, pin=pin,
                            pin_jammed=game.pin_state == rules.PinState.JAMMED, paths=paths, width=width)

    def save_replay(self, path, **kwargs) -> str:
        """Write a GIF of the last shot (the acting player's) to ``path``."""
        if self._result is None:
            raise RuntimeError("no shot played yet: step() first")
        return render.save_replay(path, self._result, self.params.physics, self.params.rules.is_hungarian,
                                  pin=self._pin_before, **kwargs)

    def close(self):
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None
