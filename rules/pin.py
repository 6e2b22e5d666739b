"""The pin between shots (rules H-8.4 to H-8.7): standing, waiting for its spot, or jammed."""
from __future__ import annotations

import jax.numpy as jnp

from rules.codes import PinState

# Where the physics is told the pin is while it does not stand (H-8.4 to H-8.6): out of every
# ball's reach, so that no contact with it can be found.
AWAY = (-1.0, -1.0)


def in_play(state):
    """(..., 2): where the physics sees the pin of a ``GameState`` (or of a batch of them): its
    place while it stands, else ``AWAY``."""
    away = jnp.asarray(AWAY, state.pin_position.dtype)
    standing = jnp.asarray(state.pin_state == PinState.STANDING)[..., None]
    return jnp.where(standing, state.pin_position, away)


def after_shot(ruleset, params, pin_state, pin_position, fell, lying_position, positions, present):
    """The pin's state and position before the next shot: (() int32, (2,) float).

    pin_state, pin_position: before the shot. fell: () bool, it was standing and fell.
    lying_position: (2,) where the shot left it. positions: (3, 2) the balls before the next
    shot; present: (3,) bool, the balls on the table (a red in hand is not).
    """
    R = params.ball.radius
    tol = ruleset.frozen_tolerance
    spot = params.table.centre  # rule H-2.1: the pin's spot is the centre spot
    lying = jnp.where(fell, lying_position, pin_position)
    gone_down = fell | (pin_state == PinState.JAMMED)
    # rule H-8.6: a fallen pin that a ball holds down stays where it lies, out of the score.
    near = jnp.linalg.norm(positions - lying, axis=-1) < R + ruleset.pin_jam_reach
    jammed = gone_down & jnp.any(present & near)
    # rules H-8.5, H-8.7: re-set exactly on its spot, not touching a ball; else off the table.
    spot_free = ~jnp.any(present & (jnp.linalg.norm(positions - spot, axis=-1) < R + ruleset.pin_radius + tol))
    reset_state = jnp.where(spot_free, PinState.STANDING, PinState.WAITING)
    needs_reset = gone_down | (pin_state == PinState.WAITING)
    # rule H-8.4: a standing pin that was tilted or pushed stays where it is.
    new_state = jnp.where(
        pin_state == PinState.NO_PIN, PinState.NO_PIN,
        jnp.where(jammed, PinState.JAMMED, jnp.where(needs_reset, reset_state, PinState.STANDING)),
    ).astype(jnp.int32)
    new_position = jnp.where(
        jammed, lying,
        jnp.where(needs_reset, spot, jnp.where(pin_state == PinState.STANDING, lying_position, pin_position)),
    )
    return new_state, new_position.astype(pin_position.dtype)
