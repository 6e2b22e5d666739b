"""``GameState``: everything the referee remembers between shots, as fixed-shape arrays.

Ball indices (rule C-3.4): in the carom disciplines 0 = white (player 0's cue ball),
1 = yellow (player 1's), 2 = red. In the Hungarian game (rule H-3.1) 0 = red, everyone's cue
ball, 1 = white, 2 = yellow.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from physics.pytree import pytree_dataclass, replace
from rules.codes import Phase, PinState
from rules.options import Rules

N_BALLS = 3
RED_CAROM = 2  # the red in the carom disciplines (C-3.4)
RED_HUNGARIAN = 0  # the red, the cue ball of both players (H-3.1)


@pytree_dataclass
class GameState:
    """One game between shots.

    Attributes:
      positions: (3, 2) float, the layout the next shot is played from (m).
      scores: (2,) int32, points recorded for each player.
      run: () int32, points of the current run. Carom disciplines: already in ``scores``
        (each carom counts at once, C-9.2 j). Hungarian: not yet recorded, because a foul decides
        where they go (H-9.9); ``board_scores`` adds them.
      current_player: () int32, who shoots next (0 or 1).
      cue_ball: () int32, the ball the next shot must be played with (C-3.4, H-3.1).
      breaker: () int32, who broke (C-2.1, H-5.1; decides the equalizing inning, C-8.3).
      innings: (2,) int32, innings each player has begun.
      shots: () int32, shots refereed (lag shots included).
      pure_caroms: () int32, consecutive pure caroms (without the pin) in this run (H-6.3).
      field_zone, anchor_zone: () int32, the field / anchor whose caroms are being counted, -1
        none (C-11.2, C-12.3, C-12.4).
      field_count, anchor_count: () int32, consecutive caroms made in it with both object balls
        inside and none driven out.
      ball_in_hand: () bool, the next shooter places the red on the cross axis (H-6.4).
      base_spot_ball: () int32, a jumped target ball the next shooter may move to the other base
        spot (H-7.3), -1 none.
      frozen_balls: (3,) bool, balls touching the next shot's cue ball (O-3, C-14.1 warning).
      frozen_cushions: (4,) bool, cushions (``Cushion`` order) the next cue ball touches.
      may_respot: () bool, the next shooter may have frozen balls re-spotted (C-12.7 a, C-13.3 a).
      may_choose_side: () bool, the balls are in the starting position: the shooter may put his
        ball on the other side spot of the head string (C-2.1 c).
      may_choose_breaker: () bool, the lag winner may still choose who breaks (C-1.2).
      pin_state: () int32, a ``PinState`` (H-8.4 to H-8.7).
      pin_position: (2,) float, where the pin stands or lies (its spot while WAITING).
      first_carom_pending: () bool, no carom scored yet in this game (C-2.2).
      equalizing: () bool, the equalizing inning is being played (C-8.3).
      phase: () int32, a ``Phase``.
      lag_collisions: () int32, lags repeated because the balls collided (C-1.3).
      game_over: () bool.  winner: () int32, -1 while playing or for a draw.  draw: () bool (C-8.4).
      repairs: () int32, impossible states the referee repaired in this game (``rules.repair``):
        balls found outside the cushions, balls parted, layouts re-laid, void streaks resolved.
      void_streak: () int32, void shots in a row (``rules.void``).
    """

    positions: jnp.ndarray
    scores: jnp.ndarray
    run: jnp.ndarray
    current_player: jnp.ndarray
    cue_ball: jnp.ndarray
    breaker: jnp.ndarray
    innings: jnp.ndarray
    shots: jnp.ndarray
    pure_caroms: jnp.ndarray
    field_zone: jnp.ndarray
    field_count: jnp.ndarray
    anchor_zone: jnp.ndarray
    anchor_count: jnp.ndarray
    ball_in_hand: jnp.ndarray
    base_spot_ball: jnp.ndarray
    frozen_balls: jnp.ndarray
    frozen_cushions: jnp.ndarray
    may_respot: jnp.ndarray
    may_choose_side: jnp.ndarray
    may_choose_breaker: jnp.ndarray
    pin_state: jnp.ndarray
    pin_position: jnp.ndarray
    first_carom_pending: jnp.ndarray
    equalizing: jnp.ndarray
    phase: jnp.ndarray
    lag_collisions: jnp.ndarray
    game_over: jnp.ndarray
    winner: jnp.ndarray
    draw: jnp.ndarray
    repairs: jnp.ndarray
    void_streak: jnp.ndarray


def blank_state(positions) -> GameState:
    """A state with the given layout and every counter at its start value."""
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    no = jnp.asarray(False)
    return GameState(
        positions=positions,
        scores=jnp.zeros((2,), jnp.int32),
        run=i32(0),
        current_player=i32(0),
        cue_ball=i32(0),
        breaker=i32(0),
        innings=jnp.zeros((2,), jnp.int32),
        shots=i32(0),
        pure_caroms=i32(0),
        field_zone=i32(-1),
        field_count=i32(0),
        anchor_zone=i32(-1),
        anchor_count=i32(0),
        ball_in_hand=no,
        base_spot_ball=i32(-1),
        frozen_balls=jnp.zeros((N_BALLS,), bool),
        frozen_cushions=jnp.zeros((4,), bool),
        may_respot=no,
        may_choose_side=no,
        may_choose_breaker=no,
        pin_state=i32(PinState.NO_PIN),
        pin_position=jnp.zeros((2,), positions.dtype),
        first_carom_pending=jnp.asarray(True),
        equalizing=no,
        phase=i32(Phase.PLAY),
        lag_collisions=i32(0),
        game_over=no,
        winner=i32(-1),
        draw=no,
        repairs=i32(0),
        void_streak=i32(0),
    )


def cue_ball_of(ruleset: Rules, player: ArrayLike) -> jax.Array:
    """() int32: the cue ball of a player: his own ball (C-3.4), or the red for all (H-3.1)."""
    if ruleset.is_hungarian:
        return jnp.zeros_like(jnp.asarray(player, jnp.int32)) + RED_HUNGARIAN
    return jnp.asarray(player, jnp.int32)


def board_scores_of(ruleset: Rules, state: GameState) -> jax.Array:
    """(2,) int32: the points on the board: recorded scores, plus the Hungarian pending run."""
    scores = jnp.asarray(state.scores)  # host (NumPy) states too
    if not ruleset.is_hungarian:
        return scores
    return scores.at[state.current_player].add(state.run)


__all__ = ["GameState", "blank_state", "cue_ball_of", "board_scores_of", "replace", "select", "N_BALLS"]


def select(condition, a, b):
    """Pick pytree a where condition (a () bool) holds, else b, leaf by leaf."""
    return jax.tree_util.tree_map(lambda x, y: jnp.where(condition, x, y), a, b)
