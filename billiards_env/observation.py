"""Observations from the shooter's point of view: a flat float32 vector, and the same as a dict.

The flat vector is the concatenation of the dict's entries in this order (``GROUPS``); every
value is clipped into its bounds, so an observation always lies in its space.

The contract: ``GROUPS`` (name, size, upper bound, in order) and ``OBS_VERSION``. A trained model
depends on both, so a saved model stores them (``layout()``: the version, the groups' names and
sizes, and their ``fingerprint``) and is refused by a build that observes anything else. Any
change of what the vector holds (a group added, removed, resized, reordered, or an entry whose
meaning or scale changes) bumps ``OBS_VERSION``; a test pins the fingerprint of each version, so
a change of the groups without a bump fails it.

=========  ====  ========================================================================  ======
key        size  contents                                                                  bounds
=========  ====  ========================================================================  ======
balls      6     (x / length, y / width) of the viewer's cue ball, then the other two       0..1
                 balls in index order (carom: the other player's ball, then the red;
                 Hungarian: white, then yellow; the red is everyone's cue ball, H-3.1)
pin        5     pin x / length, y / width, standing, waiting for its spot, jammed           0..1
                 (H-8.4 to H-8.6); all 0 in the carom games
frozen     7     the two other balls touch the cue ball (a zero for the cue ball's own       0..1
                 slot first), then the cue ball touches the BOTTOM, TOP, RIGHT, LEFT
                 cushion (O-3, C-14.1)
choices    5     ball in hand (H-6.4); the base-spot choice is offered for the second or     0..1
                 third ball (H-7.3); the frozen-ball re-spot is offered (C-12.7 a,
                 C-13.3 a); the start-side choice is offered (C-2.1 c)
score      5     own score, opponent's score, the current run, each over the game's          0..10
                 distance; own innings, opponent's innings, each over 100
counters   5     pure caroms in this run / 2 (H-6.3); a restricted field is being counted,   0..1
                 its caroms / field limit; an anchor is being counted, its caroms / limit
                 (C-11.2, C-12.3)
turn       5     the viewer is player 1 (0: player 0); the viewer broke; the equalizing     0..1
                 inning is being played (C-8.3); the first carom of the game is still to
                 come (C-2.2); steps used / max_steps
=========  ====  ========================================================================  ======

The "lines" action form (``billiards_env.lines``) observes two more groups after these: "lines",
each candidate strike's features (COUNT x FEATURES, row by row, within +-BOUND), and "line_mask"
(COUNT: 1 where the candidate varies a real line). ``groups(form)`` lists a form's groups.
"""
from __future__ import annotations

import hashlib

import gymnasium as gym
import jax.numpy as jnp
import numpy as np

from billiards_env import lines
from rules import PinState, board_scores_of, cue_ball_of

OBS_VERSION = 1
GROUPS = (
    ("balls", 6, 1.0),
    ("pin", 5, 1.0),
    ("frozen", 7, 1.0),
    ("choices", 5, 1.0),
    ("score", 5, 10.0),
    ("counters", 5, 1.0),
    ("turn", 5, 1.0),
)
OBS_SIZE = sum(size for _, size, _ in GROUPS)
LINE_GROUPS = (("lines", lines.COUNT * lines.FEATURES, lines.BOUND), ("line_mask", lines.COUNT, 1.0))
LOWS = {"lines": -lines.BOUND}  # lower bounds other than 0
INNINGS_SCALE = 100.0


def groups(form: str = "strike") -> tuple:
    """The observation's groups (name, size, upper bound) for an action form: ``GROUPS``, and for
    "lines" ``LINE_GROUPS`` after them."""
    return GROUPS + LINE_GROUPS if form == "lines" else GROUPS


def size(form: str = "strike") -> int:
    """The flat observation's length for an action form: ``OBS_SIZE`` (38), more for "lines"."""
    return sum(group[1] for group in groups(form))


def fingerprint(groups=None) -> str:
    """12 hex digits of ``groups`` (default ``GROUPS``; (name, size, ...) each) that change
    whenever a group's name or size, or their order, changes."""
    text = ";".join(f"{group[0]}:{group[1]}" for group in (GROUPS if groups is None else groups))
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:12]


def layout(form: str = "strike") -> dict:
    """The observation contract as a saved model stores it: version, groups [name, size], fingerprint."""
    return {"version": OBS_VERSION, "groups": [[name, size] for name, size, _ in groups(form)],
            "fingerprint": fingerprint(groups(form))}


def describe(stored: dict) -> str:
    """A layout in words, for messages: 'version 1 with groups balls 6, pin 5, ...'."""
    groups = ", ".join(f"{name} {size}" for name, size in stored["groups"])
    return f"version {stored['version']} with groups {groups}"


def ball_order(cue):
    """(3,) int32: the cue ball first, then the other two in index order."""
    cue = jnp.asarray(cue, jnp.int32)
    others = jnp.where(jnp.arange(2) >= cue, jnp.arange(2) + 1, jnp.arange(2))
    return jnp.concatenate([cue[None], others]).astype(jnp.int32)


def observe(ruleset, game, params, step_count, viewer=None):
    """(OBS_SIZE,) float32: the observation of ``game`` (a ``rules.GameState``) for ``viewer``
    (default: the player to shoot next)."""
    phys = params.physics
    table = phys.table
    viewer = game.current_player if viewer is None else jnp.asarray(viewer, jnp.int32)
    opponent = 1 - viewer
    cue = cue_ball_of(ruleset, viewer)
    order = ball_order(cue)
    scale = jnp.stack([table.length, table.width])
    f = lambda x: jnp.asarray(x, jnp.float32)  # noqa: E731

    balls = (game.positions[order] / scale).reshape(-1)
    standing = game.pin_state == PinState.STANDING
    pin_xy = jnp.where(game.pin_state == PinState.NO_PIN, 0.0, game.pin_position / scale)
    pin = jnp.concatenate([pin_xy, f(jnp.stack([
        standing, game.pin_state == PinState.WAITING, game.pin_state == PinState.JAMMED]))])
    # frozen flags are computed by the referee for the next shooter's cue ball
    own_turn = viewer == game.current_player
    frozen = jnp.concatenate([f(game.frozen_balls[order]), f(game.frozen_cushions)]) * own_turn
    choices = f(jnp.stack([
        game.ball_in_hand, game.base_spot_ball == order[1], game.base_spot_ball == order[2],
        game.may_respot, game.may_choose_side,
    ])) * own_turn
    distance = f(ruleset.distance)
    board = f(board_scores_of(ruleset, game))
    run = jnp.where(own_turn, f(game.run), 0.0)
    score = jnp.stack([
        board[viewer] / distance, board[opponent] / distance, run / distance,
        f(game.innings[viewer]) / INNINGS_SCALE, f(game.innings[opponent]) / INNINGS_SCALE,
    ])
    limit = jnp.maximum(f(ruleset.field_limit), 1.0)
    counters = jnp.stack([
        f(game.pure_caroms) / 2.0,
        f(game.field_zone >= 0), f(game.field_count) / limit,
        f(game.anchor_zone >= 0), f(game.anchor_count) / limit,
    ])
    turn = jnp.stack([
        f(viewer == 1), f(game.breaker == viewer), f(game.equalizing), f(game.first_carom_pending),
        f(step_count) / f(params.max_steps),
    ])
    parts = []
    for (_name, _size, high), value in zip(GROUPS, (balls, pin, frozen, choices, score, counters, turn)):
        parts.append(jnp.clip(f(value), 0.0, high))
    return jnp.concatenate(parts)


def to_dict(flat, form: str = "strike") -> dict:
    """The dict form of a flat observation (or of a batch: the last axis is split)."""
    out = {}
    start = 0
    for name, n, _ in groups(form):
        out[name] = np.asarray(flat[..., start:start + n], dtype=np.float32).copy()
        start += n
    return out


def flat_space(form: str = "strike") -> gym.spaces.Box:
    """The flat observation's Box for an action form."""
    low = np.concatenate([np.full(n, LOWS.get(name, 0.0), np.float32) for name, n, _ in groups(form)])
    high = np.concatenate([np.full(n, high, np.float32) for _, n, high in groups(form)])
    return gym.spaces.Box(low, high, dtype=np.float32)


def dict_space(form: str = "strike") -> gym.spaces.Dict:
    """The dict observation's space for an action form."""
    return gym.spaces.Dict({
        name: gym.spaces.Box(LOWS.get(name, 0.0), high, (n,), np.float32) for name, n, high in groups(form)
    })
