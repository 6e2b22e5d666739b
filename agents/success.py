"""Learned shot choice without simulating at decision time (three-cushion and the Hungarian game).

Two players, both drawing their strikes from the search agent's own proposal (perturbations of
the best geometric lines plus random strikes, ``agents.search``) but never simulating one:

* ``SuccessAgent`` ranks proposed strikes with a success model, an MLP estimating
  P(the shot scores | layout, strike), or in the Hungarian game the strike's expected net points
  (``TARGETS``: one output, or a softmax over the few values a shot can be worth, ``net_rating``),
  and plays the one rated highest. The proposal is either
  the search's (N strikes) or, better, a fixed grid of variations of the 12 best lines
  (``line_grid``: speed, draw/follow and side spin changed, the aim kept), whose strikes score
  about three times as often and so teach the model more per simulated shot; ``aimed`` plays
  every grid strike at a few aim offsets too, for a model trained on strikes so moved
  (``aim_jitter``; the sidecar's proposal names the offsets, the symmetric sets keep the mirrors).
* ``ClonedAgent`` (behaviour cloning of a search's choices) scores each of the layout's best
  geometric lines with an MLP (which line the search would have chosen) and adds the strike's
  learned correction to that line (speed factor, aim, tip offset).

Both see the layout and the strike in the canonical frame (``aiming.frame``: a layout and its
mirror images look the same), through inputs of a recorded version (``FEATURE_VERSIONS``,
``pair_features``); the networks are ``agents.nets``' MLPs. The shipped success models and their
files are ``agents.policy``'s.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import physics
from physics.execution import perturb, shot_array, shot_from_array
from physics.params import Params
from aiming.features import (  # noqa: F401 (the model's inputs, where its callers found them)
    FEATURE_VERSIONS, aim_difference, check_features, hit_features, line_features, pair_features, path_features,
    strike_features)
from aiming.lines import GRID, line_grid, line_shots  # noqa: F401
from agents.base import ExecutionNoise, Planner, clip_shot
from aiming.frame import Frame, canonical_shot, frame, layout_features
from agents.nets import mlp_apply
from agents.search import SearchConfig, best_lines, candidate_lines, round1
from rules import GameState, Rules



TARGETS = ("score", "net_points")
"""What a success model's output estimates: "score", the logit of P(the strike scores) (carom
games: a carom is the only thing worth playing for); "net_points", the expected net points of
the strike over ``NET_UNIT`` (the Hungarian game, where a pin is worth five caroms and a foul
hands the opponent points, docs/rules.md H-9)."""
NET_UNIT = 100.0  # net points per unit of a "net_points" model's output (H-9.4: the best shot's worth)


def check_target(target) -> str:
    """``target`` if it is one of ``TARGETS``; ValueError naming the allowed kinds otherwise."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}; got {target!r}")
    return target


# --- proposals --------------------------------------------------------------------------------

def proposal(ruleset: Rules, states: GameState, params: Params, keys, cfg: SearchConfig):
    """(S, N) strikes drawn like the search's round 1 (``cfg.candidates`` per state), with the
    best lines (score, phi, V0, b), each (S, k): no simulation."""
    best = best_lines(ruleset, states, params, cfg.seeds)
    return round1(best, params, keys, cfg), best


AIMS = (0.0,)
"""Aim offsets (degrees) at which the policy plays each grid strike: the grid's own aim alone."""


def check_aims(aims) -> tuple[float, ...]:
    """``aims`` as a tuple of distinct finite floats (degrees), 0 among them; ValueError otherwise."""
    values = tuple(float(v) for v in aims)
    if not values or 0.0 not in values or len(set(values)) != len(values) or not all(
            np.isfinite(v) and abs(v) <= 10.0 for v in values):
        raise ValueError(f"aims: distinct aim offsets in degrees within +-10, 0 among them; got {list(aims)!r}")
    return values


def aimed(shots: physics.Shot, aims) -> physics.Shot:
    """(S, N * len(aims)) each strike of ``shots`` (S, N) played at every aim offset of ``aims``
    (degrees from its own aim) in turn: the grid varies speed and spin along each line, this
    varies the line itself, which a cut into the pin or a thin carom is most sensitive to."""
    aims = check_aims(aims)
    if aims == AIMS:
        return shots
    k = len(aims)

    def each(v):
        return jnp.repeat(v, k, -1)

    phi = jnp.asarray(shots.phi)
    offsets = jnp.tile(jnp.asarray(aims, phi.dtype), phi.shape[-1])
    return physics.Shot(V0=each(shots.V0), phi=each(phi) + offsets, theta=each(shots.theta), a=each(shots.a),
                        b=each(shots.b))


def aim_jitter(shots: physics.Shot, aims, key) -> physics.Shot:
    """(S, N) each strike of ``shots`` at one offset of ``aims`` drawn at random (uniformly): the
    training data of a model that ranks the ``aimed`` grid, at the grid's cost in simulated shots."""
    aims = check_aims(aims)
    pick = jax.random.randint(key, jnp.shape(shots.phi), 0, len(aims))
    phi = jnp.asarray(shots.phi)
    return physics.Shot(V0=shots.V0, phi=phi + jnp.asarray(aims, phi.dtype)[pick], theta=shots.theta,
                        a=shots.a, b=shots.b)


def seeded_line(cfg: SearchConfig) -> jax.Array:
    """(N,) int: the geometric line (rank) each proposed strike perturbs, -1 for random ones
    (``agents.search.candidate_lines`` with ``cfg.seeds`` lines)."""
    return candidate_lines(cfg, cfg.seeds)


# --- the success model's player ---------------------------------------------------------------

def check_outcomes(outcomes, target: str):
    """``outcomes`` as a tuple of floats, or None: the net points of each class of an outcome-class
    head (``net_rating``), only for a "net_points" model; ValueError otherwise."""
    if outcomes is None:
        return None
    values = tuple(float(v) for v in outcomes)
    if target != "net_points" or len(values) < 2 or len(set(values)) != len(values):
        raise ValueError(f"outcomes: an outcome-class head needs the target 'net_points' and two distinct class "
                         f"values or more; got target {target!r} and outcomes {list(outcomes)!r}")
    return values


def net_rating(out, target: str, outcomes=None) -> jax.Array:
    """(...,) a rating from the network's output ``out`` (..., width): the probability that the
    strike scores ("score": sigmoid of the one logit), or its expected net points over
    ``NET_UNIT`` ("net_points"): the one output (a mean head, fitted by squared error), or with
    ``outcomes`` (the net points of each class) the expectation under the softmax over the
    classes (an outcome-class head, fitted by cross-entropy: a Hungarian shot ends in one of a few
    values, docs/rules.md H-9, so the classes keep what a mean blurs)."""
    if outcomes is not None:
        return jax.nn.softmax(out, -1) @ (jnp.asarray(outcomes, jnp.float32) / NET_UNIT)
    return jax.nn.sigmoid(out[..., 0]) if target == "score" else out[..., 0]


@functools.partial(jax.jit, static_argnames=("target", "outcomes", "features"))
def ratings(net, states, shots, best, params, draws, target: str = "score", outcomes=None,
            features: int = 1) -> jax.Array:
    """(S, N) the model's rating of each strike of ``shots`` (S, N), averaged over the
    execution-noise draws ``draws`` (K, 5) added to it (None: the strike as it is): the
    probability that it scores for a "score" model, the expected net points over ``NET_UNIT``
    for a "net_points" one (``TARGETS``; ``outcomes``: the class values of an outcome-class head,
    ``net_rating``); ``best``: the layouts' best lines (``best_lines``), which the features
    compare the strikes with; ``features``: the version of the inputs the model was trained on."""
    def one(positions, cue, shots_s, best_s):
        n, k = shots_s.V0.shape[0], 1 if draws is None else draws.shape[0]
        played = shots_s if draws is None else perturb(
            shot_from_array(jnp.broadcast_to(shot_array(shots_s)[:, None], (n, k, 5))), draws[None], params)
        flat = jax.tree_util.tree_map(lambda v: v.reshape(n * k), played)
        x = jax.vmap(lambda s: pair_features(positions, cue, s, best_s, params, features))(flat)
        return jnp.mean(net_rating(mlp_apply(net, x), target, outcomes).reshape(n, k), -1)

    return jax.vmap(one)(states.positions, states.cue_ball, shots, best)


def chances(net, states, shots, best, params, draws) -> jax.Array:
    """(S, N) a "score" model's probability that each strike scores (``ratings``)."""
    return ratings(net, states, shots, best, params, draws, "score")


@functools.partial(jax.jit, static_argnames=("target", "outcomes", "features"))
def _rank(net, states, shots, best, params, draws, target: str = "score", outcomes=None, features: int = 1):
    """The strike (fields (S,)) of ``shots`` (S, N) the model rates highest (``ratings``)."""
    best = jnp.argmax(ratings(net, states, shots, best, params, draws, target, outcomes, features), -1)
    return jax.tree_util.tree_map(lambda v: jnp.take_along_axis(v, best[:, None], -1)[:, 0], shots)


def noise_draws(params: Params, noise: float, samples: int) -> jax.Array | None:
    """(K, 5) fixed execution-noise offsets (scale ``noise``) in antithetic pairs, K = 2 * (samples // 2);
    None without noise or samples (the strikes are ranked as they are)."""
    if noise <= 0 or samples < 2:
        return None
    z = jax.random.normal(jax.random.PRNGKey(0), (samples // 2, 5), params.dtype)
    return jnp.concatenate([z, -z]) * ExecutionNoise(scale=noise).std(params)


def with_lines(shots: physics.Shot, best) -> physics.Shot:
    """(S, N + k) the proposed strikes followed by the k best lines themselves, as the geometric
    agent plays them (no side spin): the model may keep a line untouched."""
    return jax.tree_util.tree_map(lambda x, y: jnp.concatenate([x, y], -1), shots, line_shots(best))


class SuccessAgent(Planner):
    """Plays the proposed strike (or best geometric line) the success model rates highest: most
    likely to score, or worth the most net points (``target``, one of ``TARGETS``; ``outcomes``:
    the class values of an outcome-class head, ``net_rating``; ``features``: the version of the
    inputs it was trained on, ``FEATURE_VERSIONS``; ``aims``: with ``grid``, the aim offsets at
    which every grid strike is ranked, ``aimed``)."""

    name = "success"

    def __init__(self, net, candidates: int = 1024, seeds: int = 12, grid: bool = False, noise: float = 0.0,
                 samples: int = 0, rolling: bool = True, target: str = "score", outcomes=None, features: int = 1,
                 aims=AIMS):
        self.net = net
        self.features = check_features(features)
        inputs = int(np.shape(net[0][0])[0])
        if inputs != FEATURE_VERSIONS[self.features]:
            raise ValueError(f"the network takes {inputs} inputs; input version {self.features} has "
                             f"{FEATURE_VERSIONS[self.features]}")
        self.target = check_target(target)
        self.outcomes = check_outcomes(outcomes, self.target)
        width = int(np.shape(net[-1][0])[-1])
        if width != (1 if self.outcomes is None else len(self.outcomes)):
            raise ValueError(f"the network has {width} outputs; a {target!r} model needs "
                             + ("one" if self.outcomes is None else f"{len(self.outcomes)}, one per outcome class"))
        self.grid = grid  # rank the grid of line variations (``line_grid``) instead of the search's proposal
        self.aims = check_aims(aims)  # grid: each strike at every one of these aim offsets (``aimed``)
        self.rolling = rolling  # grid: lines with the rolling model (``agents.geometric.lines_batch``)
        self.config = SearchConfig(candidates=candidates, seeds=seeds, refine_parents=0)
        self.noise = noise  # the execution noise the choice allows for: the model averaged over
        self.samples = samples  # this many noise draws per strike (0: the strike as it is)

    def budget(self) -> str:
        """What a decision costs: strikes ranked, none simulated."""
        seeds = self.config.seeds
        ranked = seeds * (len(GRID) * len(self.aims) + 1) if self.grid else self.config.candidates + seeds
        draws = f" x {self.samples} noise draws" if self.samples > 1 else ""
        return f"no simulation: {ranked} strikes ranked{draws}"

    def candidates(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array):
        """(strikes (S, N), best lines): what the model chooses among, the grid of line variations or
        the search's proposal, followed by the lines themselves (``with_lines``)."""
        if self.grid:  # no random draw: the grid is fixed by the lines
            best = best_lines(ruleset, states, params, self.config.seeds, self.rolling)
            shots = aimed(line_grid(best, params), self.aims)
        else:
            shots, best = proposal(ruleset, states, params, jnp.asarray(keys), self.config)
        return with_lines(shots, best), best

    def plan_batch(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        shots, best = self.candidates(ruleset, states, params, keys)
        draws = noise_draws(params, self.noise, self.samples)
        return clip_shot(_rank(self.net, states, shots, best, params, draws, self.target, self.outcomes,
                               self.features), params)


# --- behaviour cloning over the geometric lines -------------------------------------------------

def line_inputs(positions, cue_ball, best, params: Params):
    """(k, 18) the cloned policy's input for each of one layout's k best lines (score, phi, V0,
    b each (k,)): layout features, the line's canonical strike features and its score, rank."""
    f = frame(positions, cue_ball, params)
    score = best[0]
    k = score.shape[0]
    strike = jax.vmap(lambda s: strike_features(s, f))(line_shots(best))[:, [0, 1, 2, 4]]
    rank = jnp.arange(k, dtype=score.dtype) / k
    layout = jnp.broadcast_to(layout_features(f), (k, 12))
    return jnp.concatenate([layout, strike, score[:, None], rank[:, None]], -1)


def correction(line_shot: physics.Shot, delta, f: Frame) -> physics.Shot:
    """The line's strike with a correction ``delta`` (4,) in the canonical frame: (log speed
    factor, aim in degrees, a, b); the inverse of ``line_correction``."""
    c = canonical_shot(line_shot, f)
    shot = physics.Shot(V0=c.V0 * jnp.exp(delta[0]), phi=c.phi + delta[1] * 3.0, theta=c.theta, a=delta[2],
                        b=delta[3])
    return canonical_shot(shot, f)


def line_correction(line_shot: physics.Shot, shot: physics.Shot, f: Frame):
    """(4,) the correction that turns the line's strike into ``shot`` (see ``correction``)."""
    c, s = canonical_shot(line_shot, f), canonical_shot(shot, f)
    dphi = aim_difference(s.phi, c.phi)
    return jnp.stack([jnp.log(s.V0 / c.V0), dphi / 3.0, s.a, s.b])


@jax.jit
def _clone(net, states, best, params):
    def one(positions, cue, best_s):
        out = mlp_apply(net, line_inputs(positions, cue, best_s, params))  # (k, 5)
        usable = best_s[0] > 0
        i = jnp.argmax(jnp.where(usable, out[:, 0], -jnp.inf))
        line = jax.tree_util.tree_map(lambda x: x[i], line_shots(best_s))
        return correction(line, out[i, 1:], frame(positions, cue, params))

    shots = jax.vmap(one)(states.positions, states.cue_ball, best)
    return clip_shot(shots, params)


class ClonedAgent(Planner):
    """Plays the geometric line a cloned search would choose, with its learned correction."""

    name = "cloned"

    def __init__(self, net, seeds: int = 12):
        self.net = net
        self.config = SearchConfig(candidates=1, seeds=seeds, refine_parents=0, random_fraction=0.0)

    def plan_batch(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        best = best_lines(ruleset, states, params, self.config.seeds)
        return _clone(self.net, states, best, params)
