"""Where a "shot" or "inning" episode starts: the layout distribution.

With probability ``params.start_probability`` the discipline's starting position (``rules.init_game``:
C-2.1, or H-2 with the red in hand on the cross axis); otherwise a random legal layout: the three
balls uniform over the playing area, at least ``GAP`` apart from each other, from the cushions and
(Hungarian) from the pin standing on the centre spot, so that nothing is frozen; the shooter is
drawn (player 0 or 1) and nothing has been scored. A layout given in ``params.layout`` replaces
the draw. Pure and jittable.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

import rules as rules_lib
from rules import PinState, cue_ball_of, geometry
from rules.state import blank_state, replace

GAP = 0.005  # m: clearance of a random layout (well above the frozen tolerance, O-3)
TRIES = 32  # candidate layouts drawn; the first legal one is used


def random_positions(key, game_rules, params):
    """(3, 2): a random legal layout (the starting position in the vanishing case that none of the
    candidates is legal)."""
    phys = params.physics
    table = phys.table
    R = phys.ball.radius
    lo = phys.cushion_reach + GAP
    hi = jnp.stack([table.length, table.width]) - lo
    u = jax.random.uniform(key, (TRIES, 3, 2), phys.dtype)
    cand = lo + u * (hi - lo)
    i, j = jnp.array([0, 0, 1]), jnp.array([1, 2, 2])
    d = jnp.linalg.norm(cand[:, i] - cand[:, j], axis=-1)
    ok = jnp.all(d >= 2 * R + GAP, axis=-1)
    if game_rules.is_hungarian:
        to_pin = jnp.linalg.norm(cand - table.centre, axis=-1)
        ok = ok & jnp.all(to_pin >= R + game_rules.pin_radius + GAP, axis=-1)
    first = jnp.argmax(ok)
    fallback = rules_lib.init_game(game_rules, key, phys, breaker=0).positions
    return jnp.where(jnp.any(ok), cand[first], fallback).astype(phys.dtype)


def game_from_layout(game_rules, positions, player, params):
    """A ``rules.GameState`` in play from a layout: ``player`` shoots, nothing scored, the pin (if
    any) standing on the centre spot, the frozen flags and the re-spot offer computed."""
    phys = params.physics
    table = phys.table
    player = jnp.asarray(player, jnp.int32)
    cue = cue_ball_of(game_rules, player)
    tol = game_rules.frozen_tolerance
    frozen = geometry.frozen_balls(positions, cue, phys.ball.radius, tol)
    choice = game_rules.spec.frozen_respot in ("start_choice", "spots_choice")
    game = replace(
        blank_state(positions.astype(phys.dtype)),
        current_player=player, breaker=player, cue_ball=cue,
        innings=jnp.zeros((2,), jnp.int32).at[player].set(1),
        frozen_balls=frozen,
        frozen_cushions=geometry.frozen_cushions(positions[cue], phys.cushion_reach, table, tol),
        may_respot=jnp.any(frozen) & choice,
        first_carom_pending=jnp.asarray(False),
    )
    if game_rules.is_hungarian:
        game = replace(game, pin_state=jnp.asarray(PinState.STANDING, jnp.int32),
                       pin_position=table.centre.astype(phys.dtype))
    return game


def initial_game(game_rules, key, params):
    """The first ``rules.GameState`` of a "shot" or "inning" episode (see the module docstring)."""
    phys = params.physics
    k_start, k_layout, k_player, k_init = jax.random.split(key, 4)
    start = rules_lib.init_game(game_rules, k_init, phys)
    player = jax.random.randint(k_player, (), 0, 2).astype(jnp.int32)
    drawn = game_from_layout(game_rules, random_positions(k_layout, game_rules, params), player, params)
    given = game_from_layout(game_rules, params.layout, params.layout_player, params)
    use_start = jax.random.uniform(k_start, (), phys.dtype) < params.start_probability
    game = jax.tree_util.tree_map(lambda a, b: jnp.where(use_start, a, b), start, drawn)
    return jax.tree_util.tree_map(lambda a, b: jnp.where(params.layout_given, a, b), given, game)
