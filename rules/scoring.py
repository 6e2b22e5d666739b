"""Verdicts: from a shot's facts to reason, foul and points, one function per family.

The first reason that applies is the one reported (the order of the lists below); the points do
not depend on which foul is reported.

Open points settled here:
* Part C: a carom that the rules void without calling it a foul (C-2.2 not off the red, the
  restricted-field and anchor limits of C-11.2, C-12.3, C-12.4) scores nothing and ends the run
  but is not flagged a foul; "no carom" and a carom short of cushions are fouls (C-9.2 a). In
  Part C a foul only passes the turn, so the flag changes no score.
* Part H: a pin that falls before the cue ball has touched a target ball makes the shot a foul:
  H-9.10 gives points for it in the foul scoring, and H-4.9 asks the cue ball to reach a target
  ball before anything else happens.
"""
from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from rules.codes import Reason
from rules.fields import ZoneCount
from rules.judge import Facts, PinFacts

# The points of a valid Hungarian shot, rules H-9.2 to H-9.4, are rule options (``Rules.carom_points``,
# ``pin_points``, ``carom_with_pin_points``; by default the original's carom 10, pin 50, and carom with
# the pin down a further 50, so 100 in all).
JUMP_PENALTY = 10  # rule H-9.8, per jumped ball
MODE3_EXTRA = 10  # rule H-9.10


class Verdict(NamedTuple):
    """reason: () int32 ``Reason``; foul: () bool; scored: () bool;
    shot_value: () int32, points the shot earns its shooter (0 unless scored);
    foul_points: () int32, points the foul itself gives the opponent (before H-9.9's run)."""

    reason: jnp.ndarray
    foul: jnp.ndarray
    scored: jnp.ndarray
    shot_value: jnp.ndarray
    foul_points: jnp.ndarray


def _first_reason(checks, otherwise):
    """() int32: the reason of the first true check, else ``otherwise``."""
    conditions = [c for c, _ in checks]
    reasons = [jnp.asarray(int(r), jnp.int32) for _, r in checks]
    return jnp.select(conditions, reasons, jnp.asarray(otherwise, jnp.int32)).astype(jnp.int32)


def carom_verdict(ruleset, facts: Facts, first_carom_pending, red, field: ZoneCount, anchor: ZoneCount) -> Verdict:
    """Part C: one point per carom (C-3.3) unless a foul or a restriction voids it."""
    tol = ruleset.time_tolerance
    other_hit = jnp.min(jnp.where(facts.objects & (jnp.arange(facts.hit.shape[0]) != red), facts.hit, jnp.inf))
    red_first = facts.hit[red] + tol < other_hit  # rule C-2.2, simultaneous read against (O-7)
    fouls = [
        (facts.wrong_ball, Reason.WRONG_BALL),  # rule C-9.2 j
        (jnp.any(facts.jumped), Reason.JUMPED),  # rules C-9.2 b, C-6.2
        (facts.frozen_ball_moved, Reason.FROZEN_BALL_MOVED),  # rules C-12.7 c, C-13.3 c, O-3
        (~facts.carom, Reason.EMPTY),  # rules C-3.2, C-9.2 a
        (facts.cushions_before_carom < ruleset.cushions_required, Reason.TOO_FEW_CUSHIONS),  # C-13.1, C-13.2
    ]
    voids = [
        (first_carom_pending & ~red_first, Reason.FIRST_CAROM_NOT_OFF_RED),  # rule C-2.2
        (field.limited & ~field.left, Reason.FIELD_LIMIT),  # rules C-11.2, C-12.3, C-12.4
        (anchor.limited & ~anchor.left, Reason.ANCHOR_LIMIT),  # rules C-12.3 c, C-12.4 b
    ]
    reason = _first_reason(fouls + voids, Reason.SCORED)
    foul = jnp.any(jnp.stack([c for c, _ in fouls]))
    scored = reason == Reason.SCORED
    zero = jnp.asarray(0, jnp.int32)
    return Verdict(reason, foul, scored, scored.astype(jnp.int32), zero)  # rule C-3.3: one point


def pin_carom_value(ruleset, carom, pin_down):
    """() int32: rules H-9.2 to H-9.4: a carom, the pin, both (the originals: 10, 50, 100)."""
    return jnp.where(
        carom & pin_down, ruleset.carom_with_pin_points,
        jnp.where(pin_down, ruleset.pin_points, jnp.where(carom, ruleset.carom_points, 0)),
    ).astype(jnp.int32)


def hungarian_verdict(ruleset, facts: Facts, pin: PinFacts, pure_caroms) -> Verdict:
    """Part H: validity (H-4), the value of the shot (H-9.2 to H-9.6), the foul's points (H-9.7,
    H-9.8, H-9.10). The run's fate (H-9.9) is settled by the referee."""
    touched = jnp.isfinite(facts.first_object_time)
    fouls = [
        (facts.wrong_ball, Reason.WRONG_BALL),  # rule H-4.3
        (jnp.any(facts.jumped), Reason.JUMPED),  # rules H-4.7, H-7.1
        (facts.frozen_ball_moved | facts.frozen_cushion_moved, Reason.FROZEN_BALL_MOVED),  # H-4.6
        (~touched, Reason.NO_TARGET_BALL),  # rule H-4.9
        (pin.pin_first, Reason.PIN_FIRST),  # rule H-4.9
        (pin.knocked_illegally, Reason.PIN_NOT_BY_TARGET),  # rules H-4.8, H-8.1
        (pin.fell_before_target, Reason.PIN_BEFORE_TARGET),  # rules H-4.9, H-9.10
    ]
    foul = jnp.any(jnp.stack([c for c, _ in fouls]))
    value = pin_carom_value(ruleset, facts.carom, pin.fell)
    # rule H-6.3 / H-9.6: the third pure carom in a row scores nothing (not a foul).
    pure = facts.carom & ~pin.fell
    pure_limited = ~foul & pure & ruleset.pure_carom_limit & (pure_caroms >= 2)
    scored = ~foul & ~pure_limited & (value > 0)
    reason = _first_reason(
        fouls + [(pure_limited, Reason.PURE_CAROM_LIMIT), (scored, Reason.SCORED)],
        Reason.EMPTY,  # rule H-9.5: a target ball hit, no carom, no pin
    )
    # rules H-9.7, H-9.8, H-9.10
    extra = (ruleset.scoring_mode == 3) & (~touched | pin.fell_before_target)
    foul_points = value + JUMP_PENALTY * jnp.sum(facts.jumped) + jnp.where(extra, MODE3_EXTRA, 0)
    return Verdict(
        reason, foul, scored,
        jnp.where(scored, value, 0).astype(jnp.int32),
        jnp.where(foul, foul_points, 0).astype(jnp.int32),
    )
