"""The "lines" action form: one of ``COUNT`` candidate strikes proposed by the geometry.

The candidates of a position are the grid of ``aiming.lines``: the shooter's ``SEEDS`` best
geometric lines (ghost-ball caroms, mirror-image cushion lines, pin lines in the Hungarian game;
``aiming.geometry``), each played as it is and in the variations of ``aiming.lines.GRID`` (slower,
faster, more draw or follow, side spin either way), in that order: candidate ``i`` is line
``i // len(GRID)``, variation ``i % len(GRID)``. A line the layout does not offer (fewer lines
than ``SEEDS``, or every ghost ball blocked) is replaced by a full ball at the nearer object ball,
and masked. The action is the candidate's index, ``Discrete(COUNT)``; a masked index is still a
legal stroke.

The observation of the form appends to the flat vector (``billiards_env.observation``) each
candidate's ``FEATURES`` numbers, ``aiming.features.pair_features`` of version ``VERSION`` (the
layout in the shooter's canonical frame, the strike, the strike against the best lines, what the
hit makes of it and the cue ball's mirror path through the cushions), clipped to +-``BOUND``, and
then the mask (1: a real line). A policy reshapes them to (COUNT, FEATURES) and (COUNT,) and
scores every candidate with one network, as a Q-network or a pointer head does.

The shooter's choices (ball in hand, base spot, re-spot, side) are the ones that leave the layout
as it lies (``actions.kept_choices``), so that the candidates observed are the ones played.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from aiming.features import FEATURE_VERSIONS, pair_features
from aiming.lines import GRID, candidates
from physics.pytree import replace

SEEDS = 12  # best geometric lines per position
COUNT = SEEDS * len(GRID)  # candidates: 132
LIGHT_FROM = 3  # cushions required from which only the fewest-cushion lines are found (three-cushion)
ROLLING = False  # the closed-form stun ghost balls: a quarter of the rolling model's cost (docs/agents.md)
VERSION = 4  # aiming.features version of the candidates' features
FEATURES = FEATURE_VERSIONS[VERSION]  # 57 numbers per candidate
BOUND = 10.0  # the features are clipped to [-BOUND, BOUND]


def proposals(cushions: int, hungarian: bool, game, params):
    """(best, shots, valid) of ``game`` (one ``rules.GameState``): ``aiming.lines.candidates`` with
    ``SEEDS`` lines, their speeds kept within the environment's [v_min, v_max] as every form's
    are. ``cushions``, ``hungarian``: static (``Config.line_table``)."""
    best, shots, valid = candidates(cushions, hungarian, params.rules.pin_radius, game, params.physics, SEEDS,
                                    ROLLING, cushions >= LIGHT_FROM)
    V0 = jnp.clip(shots.V0, params.v_min, params.v_max).astype(shots.V0.dtype)
    return best, replace(shots, V0=V0), valid


def view(cushions: int, hungarian: bool, game, params):
    """(flat, shots): every candidate's features flattened, then the mask, (COUNT * FEATURES +
    COUNT,) float32; and the candidates' strikes (``physics.Shot``, leaves (COUNT,)), which the
    environment keeps so that the step plays what was observed without finding the lines again."""
    best, shots, valid = proposals(cushions, hungarian, game, params)
    feats = jax.vmap(lambda s: pair_features(game.positions, game.cue_ball, s, best, params.physics, VERSION))(shots)
    feats = jnp.clip(jnp.nan_to_num(feats.astype(jnp.float32)), -BOUND, BOUND)
    return jnp.concatenate([feats.reshape(-1), valid.astype(jnp.float32)]), shots


def shot_of(cushions: int, hungarian: bool, game, params, index, shots=None):
    """The strike of candidate ``index`` (clipped into 0..COUNT-1) of ``game``, from its candidates
    ``shots`` when given (``view``'s), else found again."""
    if shots is None:
        _, shots, _ = proposals(cushions, hungarian, game, params)
    i = jnp.clip(jnp.asarray(index, jnp.int32), 0, COUNT - 1)
    return jax.tree_util.tree_map(lambda x: x[i], shots)


def split(flat):
    """(features (..., COUNT, FEATURES), mask (..., COUNT)) of the lines part of observations:
    the last ``COUNT * FEATURES + COUNT`` entries."""
    n = COUNT * FEATURES
    tail = flat[..., flat.shape[-1] - n - COUNT:]
    return tail[..., :n].reshape(tail.shape[:-1] + (COUNT, FEATURES)), tail[..., n:]
