"""Where a "shot" or "inning" episode starts: the layout distribution.

With probability ``params.start_probability`` the discipline's starting position (``rules.init_game``:
C-2.1, or H-2 with the red in hand on the cross axis); otherwise a random legal layout
(``rules.random_layout``: the three balls uniform over the playing area, clear of each other, the
cushions and the Hungarian pin, so that nothing is frozen), with the shooter drawn (player 0 or 1)
and nothing scored (``rules.game_from_layout``). A layout given in ``params.layout`` replaces the
draw. Pure and jittable.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

import rules
def initial_game(ruleset, key, params):
    """The first ``rules.GameState`` of a "shot" or "inning" episode (see the module docstring)."""
    phys = params.physics
    k_start, k_layout, k_player, k_init = jax.random.split(key, 4)
    start = rules.init_game(ruleset, k_init, phys)
    player = jax.random.randint(k_player, (), 0, 2).astype(jnp.int32)
    drawn = rules.game_from_layout(ruleset, rules.random_layout(ruleset, k_layout, phys), phys, player)
    given = rules.game_from_layout(ruleset, params.layout, phys, params.layout_player)
    use_start = jax.random.uniform(k_start, (), phys.dtype) < params.start_probability
    game = jax.tree_util.tree_map(lambda a, b: jnp.where(use_start, a, b), start, drawn)
    return jax.tree_util.tree_map(lambda a, b: jnp.where(params.layout_given, a, b), given, game)
