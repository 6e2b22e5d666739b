"""Game states to plan from: the starting position, and random legal layouts for "shot" play.

The layouts and the states around them are the referee's own (``rules.random_layout``,
``rules.game_from_layout``): the three balls clear of each other, the cushions and the Hungarian
pin, nothing frozen; a game in play with the shooter's own ball (carom, C-3.4) or the red
(Hungarian, H-3.1) as cue ball and the pin standing on its spot. The same distribution as the
environments' random "shot" episodes.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

import rules
from physics.params import Params
from rules import GameState, Rules


def state_from_layout(ruleset: Rules, positions: ArrayLike, params: Params, player: ArrayLike = 0) -> GameState:
    """A ``rules.GameState`` in play from ``positions`` (3, 2) with ``player`` to shoot."""
    return rules.game_from_layout(ruleset, positions, params, player)


def random_state(ruleset: Rules, key: jax.Array, params: Params, player: ArrayLike = 0) -> GameState:
    """A game in play from a random legal layout (pin standing on the centre spot if Hungarian)."""
    return state_from_layout(ruleset, rules.random_layout(ruleset, key, params), params, player)


@jax.jit
def random_states_for(ruleset: Rules, keys: jax.Array, params: Params, player: ArrayLike = 0) -> GameState:
    """One random game in play per key of ``keys`` (n, 2), stacked along a leading axis."""
    return jax.vmap(lambda k: random_state(ruleset, k, params, player))(keys)


def random_states(ruleset: Rules, key: jax.Array, params: Params, n: int, player: ArrayLike = 0) -> GameState:
    """n random games in play, stacked along a leading axis (one compile per n)."""
    return random_states_for(ruleset, jax.random.split(key, n), params, jnp.asarray(player, jnp.int32))


def starting_state(ruleset: Rules, params: Params, breaker: ArrayLike = 0) -> GameState:
    """The discipline's starting position (``rules.init_game``) with ``breaker`` to shoot."""
    return rules.init_game(ruleset, jax.random.PRNGKey(0), params, breaker=breaker)
