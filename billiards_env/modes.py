"""Episode modes: when an episode ends, and who plays the other side.

=======  =====================================================  ==================================
mode     an episode is                                          terminated when
=======  =====================================================  ==================================
shot     one shot from a drawn (or given) layout: the main      after the shot
         mode for learning shots (``billiards_env.starts``)
inning   shots from a drawn (or given) layout until the turn    the turn passes, or the game ends
         passes (a void shot is played again)
game     a whole game from the starting position                the game ends (C-8, H-10)
=======  =====================================================  ==================================

Every mode is truncated after ``params.max_steps`` steps ("shot" ends sooner). In "game" mode the
other side is one of:

* ``"random"`` (default): a built-in player whose actions are uniform in [-1, 1];
* a policy ``policy(key, observation, params) -> action`` (a pure JAX function, (9,) in [-1, 1]);
* a ``StatePolicy``, a policy that also sees the referee's game state,
  ``policy(key, observation, params, game) -> action``: e.g. any planner of ``agents``
  (``agents.Planner.as_policy()``: the search agent as the built-in opponent);
* ``"two_player"``: no built-in opponent; each step is a shot by ``state.current_player`` and
  ``state.rewards`` holds both players' rewards (self-play, the two-player adapters).

Against a built-in opponent the learning player is player 0 and breaks; the opponent's shots are
played inside the step that passed him the turn, until the turn comes back (or the game ends),
and his fouls' points count in that step's rewards.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Union

import jax.numpy as jnp
import numpy as np

from billiards_env.actions import random_action
from physics.pytree import replace

MODES = ("shot", "inning", "game")
OPPONENTS = ("random", "two_player")
# A built-in opponent: a name of OPPONENTS, None (none), a policy (key, observation, params) -> action,
# or a StatePolicy (key, observation, params, game) -> action.
Opponent = Union[str, Callable[..., Any], None]
AGENT = 0  # the learning player against a built-in opponent
MAX_OPPONENT_SHOTS = 64  # a run of the built-in opponent longer than this truncates the episode


# Rule leaves a planner reads as Python numbers, because they shape its work (the cushions
# required set the size of its line tables, ``aiming.geometry``).
PLANNER_STATIC_RULES = ("cushions_required",)


@dataclasses.dataclass(frozen=True)
class StatePolicy:
    """A built-in opponent that reads the game state: ``fn(key, observation, params, game) ->
    action``, with ``game`` the ``rules.GameState`` he shoots from. Equal wrappers of equal
    functions share compiled steps (the environment's Config hashes its policy).

    ``fixed``: (name, value) pairs of rule leaves handed to ``fn`` as concrete numbers inside the
    compiled step (``PLANNER_STATIC_RULES``); the environment fixes them from its rules when it is
    built (``fixing``), so a planner plays the discipline's lines even though the step traces the
    rules. The referee still reads the step's own rules."""

    fn: Callable[..., Any]
    fixed: tuple = ()

    def fixing(self, ruleset) -> "StatePolicy":
        """This policy with ``PLANNER_STATIC_RULES`` fixed to the values in ``ruleset``."""
        fixed = tuple((name, int(getattr(ruleset, name))) for name in PLANNER_STATIC_RULES)
        return dataclasses.replace(self, fixed=fixed)

    def __call__(self, key, observation, params, game):
        if self.fixed:
            fixed = {name: np.asarray(value, np.int32) for name, value in self.fixed}
            params = replace(params, rules=replace(params.rules, **fixed))
        return self.fn(key, observation, params, game)


def act(policy: Callable[..., Any], key, observation, params, game):
    """The built-in opponent's action: a ``StatePolicy`` is given the game state too, any other
    policy the observation only."""
    if isinstance(policy, StatePolicy):
        return policy(key, observation, params, game)
    return policy(key, observation, params)


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid modes: {', '.join(MODES)}")
    return mode


def opponent_policy(mode: str, opponent: Opponent) -> Optional[Callable[..., Any]]:
    """The built-in opponent's policy, or None when there is none (every mode but "game", and
    "two_player"). ValueError for an unknown opponent."""
    if callable(opponent):
        if mode != "game":
            raise ValueError(f"an opponent policy needs mode 'game', not {mode!r}")
        return opponent
    if opponent not in OPPONENTS and opponent is not None:
        raise ValueError(f"unknown opponent {opponent!r}; valid: {', '.join(OPPONENTS)} or a policy function")
    if mode != "game" or opponent in (None, "two_player"):
        return None
    return random_action


def terminated(mode: str, outcome, game):
    """() bool: the episode ends after this step (see the module table)."""
    if mode == "shot":
        return jnp.asarray(True)
    if mode == "inning":
        return outcome.turn_passes | game.game_over
    return game.game_over


def shooter_reward(before, after):
    """(...) float32: the reward of the player who acted in the step from State ``before`` to State
    ``after`` (``after.rewards`` holds both players'; the shooter is ``before.current_player``);
    a batch of States gives a batch of rewards."""
    return jnp.take_along_axis(after.rewards, jnp.asarray(before.current_player)[..., None], -1)[..., 0]


def reward_of(outcome, params):
    """(2,) float32: each player's reward for one shot: his points on the board (``Outcome.points``,
    e.g. a Hungarian foul hands the opponent points, H-9.7), or with ``zero_sum`` his points
    minus the opponent's; times ``reward_scale``."""
    points = outcome.points.astype(jnp.float32)
    points = jnp.where(params.zero_sum, points - points[::-1], points)
    return points * params.reward_scale.astype(jnp.float32)
