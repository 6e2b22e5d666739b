"""``Outcome``: what the referee says about one shot."""
from __future__ import annotations

import jax.numpy as jnp

from physics.pytree import pytree_dataclass
from rules.codes import CALL_OF_REASON, CALL_OF_REASON_HUNGARIAN


@pytree_dataclass
class Outcome:
    """The referee's verdict on a shot. Shapes () unless noted.

    Attributes:
      points: (2,) int32, change of each player's score on the board (recorded + pending run):
        the sum over a game equals the final scores. A Hungarian foul in mode 1 or 2 takes the
        fouling player's pending run away (negative), H-9.9.
      shot_value: int32, what the shot itself scored for its shooter (0 if it did not score).
      foul: bool.  reason: int32, a ``Reason``.
      call: int32, the referee's main call (``Call``).  field_call, anchor_call: int32,
        ``PositionCall``s about the next layout (C-12.10).  countdown: int32, the last points
        the next shooter needs when within the countdown (C-14.1), else 0.
      frozen_warning: bool, the next cue ball touches another ball (C-14.1).
      turn_passes: bool.  ball_in_hand: bool, the next shooter has the red in hand (H-6.4).
      game_over: bool.  winner: int32 (-1 none or draw).  draw: bool (C-8.4).
      shooter: int32, who played the shot.  carom: bool, the cue ball touched both object balls.
      pin_down: bool, a standing pin fell.  cushions: int32, cue-ball cushions before the carom.
      jumped: (3,) bool.  respotted: (3,) bool, balls the referee moved (re-spot, ball in hand, a
        repair, ``rules.repair``).
      lag_winner: int32, the lag's winner (-1 if not a decided lag shot).
    """

    points: jnp.ndarray
    shot_value: jnp.ndarray
    foul: jnp.ndarray
    reason: jnp.ndarray
    call: jnp.ndarray
    field_call: jnp.ndarray
    anchor_call: jnp.ndarray
    countdown: jnp.ndarray
    frozen_warning: jnp.ndarray
    turn_passes: jnp.ndarray
    ball_in_hand: jnp.ndarray
    game_over: jnp.ndarray
    winner: jnp.ndarray
    draw: jnp.ndarray
    shooter: jnp.ndarray
    carom: jnp.ndarray
    pin_down: jnp.ndarray
    cushions: jnp.ndarray
    jumped: jnp.ndarray
    respotted: jnp.ndarray
    lag_winner: jnp.ndarray


def call_of(reason, hungarian: bool = False):
    """() int32: the main call for a reason code, in the carom games' words or the Hungarian
    game's (``hungarian``, static)."""
    table = CALL_OF_REASON_HUNGARIAN if hungarian else CALL_OF_REASON
    return jnp.asarray([int(c) for c in table], jnp.int32)[reason]


def quiet_outcome(reason, shooter, **fields) -> Outcome:
    """An outcome with nothing happening, for the given reason; fields override."""
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    no = jnp.asarray(False)
    values = dict(
        points=jnp.zeros((2,), jnp.int32), shot_value=i32(0), foul=no, reason=i32(reason),
        call=call_of(i32(reason)), field_call=i32(0), anchor_call=i32(0), countdown=i32(0),
        frozen_warning=no, turn_passes=no, ball_in_hand=no, game_over=no, winner=i32(-1), draw=no,
        shooter=i32(shooter), carom=no, pin_down=no, cushions=i32(0), jumped=jnp.zeros((3,), bool),
        respotted=jnp.zeros((3,), bool), lag_winner=i32(-1),
    )
    values.update(fields)
    return Outcome(**values)


def countdown(ruleset, scores, player, game_over):
    """() int32: rule C-14.1: the points the next shooter still needs, if within the countdown."""
    need = ruleset.distance - scores[player]
    return jnp.where(~game_over & (need >= 1) & (need <= ruleset.countdown_from), need, 0).astype(jnp.int32)


def shot_outcome(ruleset, facts, verdict, *, shooter, points, turn_passes, game_over, winner, draw,
                 countdown_value, frozen, positions, final_positions, ball_in_hand, pin_down,
                 field_call=0, anchor_call=0) -> Outcome:
    """The outcome of a judged shot (both families)."""
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    moved = jnp.linalg.norm(positions - final_positions, axis=-1) > 0
    return Outcome(
        points=points.astype(jnp.int32),
        shot_value=verdict.shot_value,
        foul=verdict.foul,
        reason=verdict.reason,
        call=call_of(verdict.reason, ruleset.is_hungarian),
        field_call=jnp.where(game_over, 0, field_call).astype(jnp.int32),
        anchor_call=jnp.where(game_over, 0, anchor_call).astype(jnp.int32),
        countdown=countdown_value,
        frozen_warning=jnp.any(frozen) & ~game_over,  # rule C-14.1
        turn_passes=turn_passes,
        ball_in_hand=jnp.asarray(ball_in_hand),
        game_over=game_over,
        winner=winner,
        draw=jnp.asarray(draw),
        shooter=i32(shooter),
        carom=facts.carom,
        pin_down=jnp.asarray(pin_down),
        cushions=jnp.where(facts.carom, facts.cushions_before_carom, 0).astype(jnp.int32),
        jumped=facts.jumped,
        respotted=moved | facts.jumped,
        lag_winner=i32(-1),
    )
