"""What happened in a shot, read from its event log: the facts the scoring rules need.

Frozen balls (open point O-3): a cue ball that touches, within ``push_time`` of the strike, a ball
it was frozen to has been shot into it and moved it (H-4.6, C-12.7 c, C-13.3 c); a later contact
is a release massé or a ball hit after leaving it, which is allowed. The same test for a cushion
the cue ball was frozen to is used by the Hungarian game only (H-4.6 names the cushion); the
carom clauses (C-11.3, C-12.7, C-13.3: "if the balls freeze together") speak of balls only, so
there a cue ball at a cushion is played as it lies.

Nothing here decides points or fouls; ``rules.scoring`` does. Simultaneous contacts (closer than
``time_tolerance``) are read against the shooter (rule H-6.6, open point O-7): "strictly earlier"
below always means earlier by more than the tolerance.
"""
from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from rules import geometry, log


class Facts(NamedTuple):
    """Shapes: () unless noted.

    ok: the simulation status is fine.  wrong_ball: the cue struck another ball (C-9.2 j, H-4.3).
    jumped: (3,) bool.  hit: (3,) float, the cue ball's first contact with each ball (+inf).
    objects: (3,) bool, the object (target) balls.  first_object_time, carom_time: the cue ball's
    first contact with an object ball, and with the second one (+inf if not both: no carom).
    carom: the cue ball touched both object balls (C-3.2, H-6.2).
    cushions_before_carom: cue-ball cushion contacts strictly before the carom (C-13), or before
    the earlier object-ball contact when the two cannot be separated (O-7).
    frozen_ball_moved: the cue ball touched, within ``push_time``, a ball it was frozen to.
    frozen_cushion_moved: the same for a cushion it was frozen to (H-4.6).
    """

    ok: jnp.ndarray
    wrong_ball: jnp.ndarray
    jumped: jnp.ndarray
    hit: jnp.ndarray
    objects: jnp.ndarray
    first_object_time: jnp.ndarray
    carom_time: jnp.ndarray
    carom: jnp.ndarray
    cushions_before_carom: jnp.ndarray
    frozen_ball_moved: jnp.ndarray
    frozen_cushion_moved: jnp.ndarray


def read(ruleset, params, start_positions, cue, shot) -> Facts:
    """The facts of a shot played with ball ``cue`` from ``start_positions`` (3, 2)."""
    n = start_positions.shape[0]
    tol = ruleset.time_tolerance
    strike = log.strike_ball(shot)
    hit = log.first_contacts(shot, cue, n)
    objects = jnp.arange(n) != cue
    object_hits = jnp.where(objects, hit, jnp.inf)
    first = jnp.min(object_hits)
    carom_time = jnp.max(jnp.where(objects, hit, -jnp.inf))
    carom = jnp.isfinite(carom_time)
    # rule C-13.2: the carom is completed when the cue ball first touches the second object ball;
    # a cushion counts only if strictly before it (C-13.1, O-7), cushions before the first object
    # ball included. Rule O-7: when the log cannot separate the two object-ball contacts, the
    # cushions must be complete before the earlier of the two.
    at_once = carom & (carom_time <= first + tol)
    completed = jnp.where(at_once, first, carom_time)
    cushions = log.count_before(shot, log.cushion_hits(shot, cue), completed - tol)
    # open point O-3: touching a frozen ball (or cushion) at once means shooting into it.
    frozen = geometry.frozen_balls(start_positions, cue, params.ball.radius, ruleset.frozen_tolerance)
    ball_moved = jnp.any(frozen & (hit <= ruleset.push_time))
    frozen_c = geometry.frozen_cushions(
        start_positions[cue], params.cushion_reach, params.table, ruleset.frozen_tolerance
    )
    cushion_first = jnp.stack([log.first_time(shot, log.cushion_hits_on(shot, cue, k)) for k in range(4)])
    cushion_moved = jnp.any(frozen_c & (cushion_first <= ruleset.push_time))
    return Facts(
        ok=log.status_ok(shot),
        wrong_ball=(strike >= 0) & (strike != cue),
        jumped=log.jumped(shot),
        hit=hit,
        objects=objects,
        first_object_time=first,
        carom_time=carom_time,
        carom=carom,
        cushions_before_carom=cushions,
        frozen_ball_moved=ball_moved,
        frozen_cushion_moved=cushion_moved,
    )


class PinFacts(NamedTuple):
    """The pin in a Hungarian shot. Shapes ().

    fell: the pin stood before the shot and fell (H-8.2). knocked_illegally: no target ball
    knocked it (the log names the cue ball, or no ball), or the cue ball touched it at the same
    moment as it fell (H-4.8, H-8.1, H-6.6). pin_first: the cue
    ball touched the pin before any target ball, or at the same moment (H-4.9, H-6.6).
    fell_before_target: the pin was down before the cue ball touched a target ball (H-9.10).
    """

    fell: jnp.ndarray
    knocked_illegally: jnp.ndarray
    pin_first: jnp.ndarray
    fell_before_target: jnp.ndarray


def read_pin(ruleset, pin_standing, cue, facts: Facts, shot) -> PinFacts:
    """The pin facts of a Hungarian shot; pin_standing: () bool, before the shot."""
    tol = ruleset.time_tolerance
    logged, t_down, knocker = log.pin_fall(shot)
    fell = pin_standing & logged
    cue_pin = log.pin_hits(shot, cue)
    t_cue_pin = log.first_time(shot, cue_pin)
    at_fall = jnp.any(cue_pin & (jnp.abs(shot.events.time - t_down) <= tol))
    target_first = facts.first_object_time + tol < t_cue_pin
    return PinFacts(
        fell=fell,
        knocked_illegally=fell & ((knocker == cue) | (knocker < 0) | at_fall),
        pin_first=jnp.isfinite(t_cue_pin) & ~target_first,
        fell_before_target=fell & ~(facts.first_object_time + tol < t_down),
    )


__all__ = ["Facts", "PinFacts", "read", "read_pin"]
