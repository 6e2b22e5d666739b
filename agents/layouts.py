"""Game states to plan from: the starting position, and random legal layouts for "shot" play.

A random layout puts the three balls uniformly inside the cushions, at least ``GAP`` from each
other, from the cushions and (Hungarian) from the pin on the centre spot, so that nothing is
frozen (rule O-3 tolerance 0.1 mm). The state around it is a game in play: the shooter's own ball
(carom, C-3.4) or the red (Hungarian, H-3.1) is the cue ball, the first-carom rule of the break
(C-2.2) no longer applies, no ball in hand, the Hungarian pin standing on its spot.
"""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

import rules as rules_lib
from rules import PinState, cue_ball_of

GAP = 0.005  # m
TRIES = 64  # candidate layouts per draw; the first legal one is used


def random_layout(key, params, pin_position=None, pin_radius=0.01, gap=GAP):
    """(3, 2): three ball centres uniform inside the cushions, ``gap`` apart (see the module
    docstring). Pure; vmap over keys. Falls back to the last candidate in the (vanishing) case
    that none of the ``TRIES`` candidates is legal."""
    dtype = params.dtype
    R = params.ball.radius
    lo = params.cushion_reach + gap
    hi = jnp.stack([params.table.length, params.table.width]) - lo
    cand = lo + jax.random.uniform(key, (TRIES, 3, 2), dtype) * (hi - lo)
    i, j = jnp.array([0, 0, 1]), jnp.array([1, 2, 2])
    ok = jnp.all(jnp.linalg.norm(cand[:, i] - cand[:, j], axis=-1) >= 2 * R + gap, axis=-1)
    if pin_position is not None:
        to_pin = jnp.linalg.norm(cand - pin_position, axis=-1)
        ok = ok & jnp.all(to_pin >= R + pin_radius + gap, axis=-1)
    first = jnp.where(jnp.any(ok), jnp.argmax(ok), TRIES - 1)
    return cand[first]


def state_from_layout(game_rules, positions, params, player=0):
    """A ``rules.GameState`` in play from ``positions`` (3, 2) with ``player`` to shoot."""
    from rules import geometry

    base = rules_lib.init_game(game_rules, jax.random.PRNGKey(0), params, breaker=player)
    positions = jnp.asarray(positions, params.dtype)
    cue = cue_ball_of(game_rules, jnp.asarray(player, jnp.int32))
    tol = game_rules.frozen_tolerance
    return dataclasses.replace(
        base,
        positions=positions,
        cue_ball=cue,
        first_carom_pending=jnp.asarray(False),
        may_choose_side=jnp.asarray(False),
        ball_in_hand=jnp.asarray(False),
        frozen_balls=geometry.frozen_balls(positions, cue, params.ball.radius, tol),
        frozen_cushions=geometry.frozen_cushions(positions[cue], params.cushion_reach, params.table, tol),
    )


def random_state(game_rules, key, params, player=0):
    """A game in play from a random legal layout (pin standing on the centre spot if Hungarian)."""
    pin = params.table.centre if game_rules.is_hungarian else None
    layout = random_layout(key, params, pin, game_rules.pin_radius)
    state = state_from_layout(game_rules, layout, params, player)
    if game_rules.is_hungarian:
        state = dataclasses.replace(state, pin_state=jnp.asarray(PinState.STANDING, jnp.int32),
                                    pin_position=params.table.centre.astype(params.dtype))
    return state


def random_states(game_rules, key, params, n: int, player=0):
    """n random games in play, stacked along a leading axis."""
    keys = jax.random.split(key, n)
    return jax.jit(jax.vmap(lambda k: random_state(game_rules, k, params, player)))(keys)


def starting_state(game_rules, params, breaker=0):
    """The discipline's starting position (``rules.init_game``) with ``breaker`` to shoot."""
    return rules_lib.init_game(game_rules, jax.random.PRNGKey(0), params, breaker=breaker)
