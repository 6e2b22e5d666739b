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

Both see the layout and the strike in the canonical frame (``agents.frame``: a layout and its
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
from agents import geometry
from agents.base import ExecutionNoise, Planner, clip_shot
from agents.frame import Frame, canonical_shot, frame, layout_features
from agents.nets import mlp_apply
from agents.search import SearchConfig, best_lines, candidate_lines, round1
from rules import GameState, Rules


FEATURE_VERSIONS = {1: 28, 2: 41, 3: 47, 4: 57}
"""Inputs per (layout, strike) pair of each version of the success model's input
(``pair_features``). A version is added whenever a feature's meaning, order or scaling changes,
and a model records the one it was trained on, so that it is always fed what it learned from.
1: layout, strike and line-relative features; 2: those and what the hit makes of the strike
(``hit_features``); 3: those and the same lines after their first cushion; 4: those and the cue
ball's path on through several cushions (``path_features``: where three-cushion's points lie)."""

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


# --- the success model's inputs ---------------------------------------------------------------

def strike_features(shot: physics.Shot, f: Frame) -> jax.Array:
    """(11,) features of one strike (fields ()) in the frame ``f``: speed, aim (cos, sin), tip
    offset, and the aim relative to the direction of each object ball (cos, sin, and the
    angle in radians, which is sharp where it matters: near a full or thin hit)."""
    s = canonical_shot(shot, f)
    phi = jnp.radians(s.phi)

    def relative(d):
        rel = jnp.angle(jnp.exp(1j * (phi - jnp.arctan2(d[1], d[0]))))
        return jnp.stack([jnp.cos(rel), jnp.sin(rel), rel])

    base = jnp.stack([s.V0 / 4.0 - 1.0, jnp.cos(phi), jnp.sin(phi), s.a * 2, s.b * 2])
    return jnp.concatenate([base, relative(f.O1 - f.C), relative(f.O2 - f.C)])


def aim_difference(phi, reference) -> jax.Array:
    """phi - reference in degrees, wrapped to [-180, 180)."""
    return (jnp.asarray(phi) - jnp.asarray(reference) + 180.0) % 360.0 - 180.0


def line_shots(best) -> physics.Shot:
    """The best lines (score, phi, V0, b, each (..., k)) as the geometric agent plays them: level
    cue, no side spin."""
    _, phi, V0, b = best
    zero = jnp.zeros_like(phi)
    return physics.Shot(V0=V0, phi=phi, theta=zero, a=zero, b=b)


def line_features(shot: physics.Shot, best, f: Frame) -> jax.Array:
    """(5,) the strike against the nearest in aim of the layout's best geometric lines (score,
    phi, V0, b each (k,)): aim difference (canonical sense, in 3-degree units, clipped), log speed
    ratio, draw/follow difference, that line's score, and the best line's score."""
    score, _, V0, b = best
    c_lines, c_shot = canonical_shot(line_shots(best), f), canonical_shot(shot, f)
    dphi = aim_difference(c_shot.phi, c_lines.phi)
    j = jnp.argmin(jnp.where(score > 0, jnp.abs(dphi), jnp.inf))
    near = jnp.where(score[j] > 0, 1.0, 0.0)
    return jnp.stack([near * jnp.clip(dphi[j] / 3.0, -10.0, 10.0), near * jnp.log(shot.V0 / V0[j]),
                      near * (shot.b - b[j]), near * score[j], jnp.max(score)])


def check_features(version) -> int:
    """``version`` as an int if it is one of ``FEATURE_VERSIONS``; ValueError naming them otherwise."""
    if isinstance(version, bool) or not isinstance(version, (int, np.integer)) or int(version) not in FEATURE_VERSIONS:
        raise ValueError(f"input version must be one of {sorted(FEATURE_VERSIONS)}; got {version!r}")
    return int(version)


def _spin_at_hit(shot: physics.Shot, length, params: Params):
    """The forward spin, as a fraction of rolling, at the first hit of a level strike whose ball
    travels ``length`` to its first ball: the tip at height b R starts it with 5/2 b of rolling
    spin (the impulse's moment over the ball's inertia) at ``geometry.strike_gain`` times the cue
    speed; the cloth's sliding friction u_s g then moves speed and spin towards rolling, which
    holds once the slip is gone."""
    v0 = geometry.strike_gain(params, shot.b) * shot.V0
    s0 = 2.5 * shot.b
    a = params.ball.u_s * params.g
    sense = jnp.sign(1.0 - s0)  # +1: the ball slides forward (less spin than rolling), it slows
    t_roll = jnp.abs(1.0 - s0) * v0 / (3.5 * a)
    slowing = (v0 - jnp.sqrt(jnp.maximum(v0**2 - 2.0 * a * length, 0.0))) / a
    t = jnp.where(sense > 0, slowing, length / jnp.maximum(v0, 1e-6))
    v = jnp.maximum(v0 - a * sense * t, 1e-3)
    spin = jnp.where(t >= t_roll, 1.0, (s0 * v0 + 2.5 * a * sense * t) / v)
    return jnp.clip(spin, -3.0, 3.0)


def _first_cushion(p, d, reach):
    """Where the ray p + t d (t > 0) first meets a cushion line (the box |x|, |y| <= ``reach`` of a
    ball's centre, the canonical frame), and its direction reflected there as off a mirror."""
    tx = (jnp.sign(d[0]) * reach[0] - p[0]) / jnp.where(jnp.abs(d[0]) > 1e-9, d[0], 1e-9)
    ty = (jnp.sign(d[1]) * reach[1] - p[1]) / jnp.where(jnp.abs(d[1]) > 1e-9, d[1], 1e-9)
    tx, ty = jnp.where(tx > 0, tx, jnp.inf), jnp.where(ty > 0, ty, jnp.inf)
    t = jnp.minimum(tx, ty)
    t = jnp.where(jnp.isfinite(t), t, 0.0)
    flip = jnp.where(tx <= ty, jnp.array([-1.0, 1.0]), jnp.array([1.0, -1.0])).astype(d.dtype)
    return p + t * d, d * flip


PATH_CUSHIONS = 6
"""Cushions ``path_features`` follows a path through (segments 0 to 6)."""
THREE = 3  # three-cushion's cushions before the second ball (docs/rules.md C-3.1)


def _path(p, d, reach):
    """The mirror path from p along the unit direction d through ``PATH_CUSHIONS`` cushions: the
    segments' starts (S, 2), directions (S, 2), lengths (S,) and the length travelled before each.
    Unrolled (a few segments): the policy's decision stays free of loops."""
    segments = []
    for _ in range(PATH_CUSHIONS + 1):
        q, e = _first_cushion(p, d, reach)
        segments.append((p, d, jnp.linalg.norm(q - p)))
        p, d = q, e
    starts, dirs, lengths = (jnp.stack(v) for v in zip(*segments))
    return starts, dirs, lengths, jnp.cumsum(lengths) - lengths


def _approach(ball, path, first: int, last: int):
    """The closest the ball's centre comes to the path's segments first..last (cushions before
    them): that distance, the segment's cushion count, the length travelled to it."""
    starts, dirs, lengths, before = path
    t = jnp.clip(jnp.sum((ball - starts) * dirs, -1), 0.0, lengths)
    gap = jnp.linalg.norm(ball - starts - t[:, None] * dirs, axis=-1)
    k = jnp.arange(PATH_CUSHIONS + 1)
    gap = jnp.where((k >= first) & (k <= last), gap, jnp.inf)
    j = jnp.argmin(gap)
    return gap[j], j.astype(ball.dtype), before[j] + t[j]


def path_features(C, u, G, leave, hit, struck_ball, other, reach) -> jax.Array:
    """(10,) the cue ball's mirror path through several cushions (``_path``; a real cushion is no
    mirror and spin bends a rebound, docs/physics.md section 2), for three-cushion's points, which
    lie three cushions or more along it (docs/rules.md C-3.1). After a hit (``hit`` 1): the other
    ball's closest approach to the departure line from the ghost ball ``G`` after three cushions or
    more (the gap in tenths of a metre, clipped to 1 m, its cushion count over 6, the path length to
    it in metres, clipped to 10) and before three (a hit too early: no point, or a kiss). Without a
    hit (a cushion first): each object ball's closest approach to the aim line from the cue ball
    ``C`` after one cushion or more, alike."""
    def gap3(ball, path, first, last):
        gap, k, length = _approach(ball, path, first, last)
        return [jnp.minimum(gap / 0.1, 10.0), k / PATH_CUSHIONS, jnp.minimum(length, 10.0)]

    after = _path(G, leave, reach)
    late = gap3(other, after, THREE, PATH_CUSHIONS)
    early = gap3(other, after, 0, THREE - 1)[0]
    bank = _path(C, u, reach)
    banked = gap3(struck_ball, bank, 1, PATH_CUSHIONS) + gap3(other, bank, 1, PATH_CUSHIONS)
    miss = 1.0 - hit
    return jnp.stack([hit * v for v in late + [early]] + [miss * v for v in banked])


def hit_features(shot: physics.Shot, f: Frame, params: Params, cushions: bool = False,
                 paths: bool = False) -> jax.Array:
    """(13,) or with ``cushions`` (19,): what the hit makes of a level strike, in the layout's
    canonical frame ``f`` and in metres (the Hungarian pin at the origin, docs/rules.md H-2.1):
    whether the aim line meets a ball, which (the nearer +1, the other -1), the hit's offset (the
    sine of the cut), the cue ball's forward spin when it gets there (``_spin_at_hit``), and where
    the pin and the other ball lie against the lines the balls then take: the struck ball along the
    line of centres, the cue ball along its departure (``geometry.departure``: the tangent line bent
    by the spin, the 30-degree rule when rolling), each as the offset across the line (in tenths of
    a metre, clipped to +-1 m) and the distance along it (clipped to +-3 m); the pin against the
    aim line itself; and how far the cue ball travels to the hit. Straight lines: they say where a
    carom, a pin or a pin with a carom lies from the strike, which the grid's variations of speed
    and spin move. With ``cushions``, the pin against the struck ball's line and the pin and the
    other ball against the cue ball's line once each has come off the first cushion it reaches
    (``_first_cushion``: a mirror, which a real cushion is not, docs/physics.md section 2). With
    ``paths`` ten more: the cue ball's path on through several cushions (``path_features``; without
    a hit, the aim line's, measured against the nearer object ball and the other)."""
    half = jnp.stack([params.table.length, params.table.width]) / 2
    C, O1, O2 = f.C * half, f.O1 * half, f.O2 * half
    R = params.ball.radius
    s = canonical_shot(shot, f)
    phi = jnp.radians(s.phi)
    u = jnp.stack([jnp.cos(phi), jnp.sin(phi)])

    def meets(ball):  # (meets, distance to the contact, offset of the ball across the aim line)
        d = ball - C
        along, across = d @ u, geometry.cross(u, d)
        ok = (along > 0) & (jnp.abs(across) < 2 * R)
        return ok, jnp.where(ok, along - jnp.sqrt(jnp.maximum(4 * R * R - across**2, 0.0)), jnp.inf), across

    ok1, d1, off1 = meets(O1)
    ok2, d2, off2 = meets(O2)
    nearer = d1 <= d2
    hit = (ok1 | ok2).astype(C.dtype)
    struck_ball, other = jnp.where(nearer, O1, O2), jnp.where(nearer, O2, O1)
    length = jnp.where(ok1 | ok2, jnp.where(nearer, d1, d2), 0.0)
    G = C + u * length  # the cue ball at the contact (the ghost ball)
    n = struck_ball - G
    n = n / jnp.maximum(jnp.linalg.norm(n), 1e-9)
    spin = _spin_at_hit(s, length, params)
    leave = geometry.departure(u, n, spin)
    leave = leave / jnp.maximum(jnp.linalg.norm(leave), 1e-9)

    def against(p, start, direction):
        d = p - start
        return jnp.clip(geometry.cross(direction, d) / 0.1, -10.0, 10.0), jnp.clip(d @ direction, -3.0, 3.0)

    pin = jnp.zeros(2, C.dtype)
    struck, aim_pin = against(pin, struck_ball, n), against(pin, C, u)
    cue_pin, cue_other = against(pin, G, leave), against(other, G, leave)
    out = [hit, hit * jnp.where(nearer, 1.0, -1.0), hit * jnp.where(nearer, off1, off2) / (2 * R),
           hit * spin, hit * struck[0], hit * struck[1], hit * cue_pin[0], hit * cue_pin[1],
           hit * cue_other[0], hit * cue_other[1], aim_pin[0], aim_pin[1], hit * length]
    if cushions:
        reach = half - R
        (hs, ds), (hc, dc) = _first_cushion(struck_ball, n, reach), _first_cushion(G, leave, reach)
        banked, cue_banked, other_banked = against(pin, hs, ds), against(pin, hc, dc), against(other, hc, dc)
        out += [hit * banked[0], hit * banked[1], hit * cue_banked[0], hit * cue_banked[1],
                hit * other_banked[0], hit * other_banked[1]]
    lines = jnp.stack(out)
    if paths:  # without a hit, struck_ball is the nearer object ball (O1)
        lines = jnp.concatenate([lines, path_features(C, u, G, leave, hit, struck_ball, other, half - R)])
    return lines.astype(C.dtype)


def pair_features(positions, cue_ball, shot: physics.Shot, best, params: Params, version: int = 1) -> jax.Array:
    """(FEATURE_VERSIONS[version],) the success model's input (one layout, one strike, the
    layout's best lines ``best``): layout, strike and line-relative features, and from version 2
    on what the hit makes of the strike (``hit_features``, from version 3 with its first cushions,
    from version 4 with the cue ball's path through several)."""
    f = frame(positions, cue_ball, params)
    parts = [layout_features(f), strike_features(shot, f), line_features(shot, best, f)]
    if check_features(version) >= 2:
        parts.append(hit_features(shot, f, params, cushions=version >= 3, paths=version >= 4))
    return jnp.concatenate(parts)


# --- proposals --------------------------------------------------------------------------------

def proposal(ruleset: Rules, states: GameState, params: Params, keys, cfg: SearchConfig):
    """(S, N) strikes drawn like the search's round 1 (``cfg.candidates`` per state), with the
    best lines (score, phi, V0, b), each (S, k): no simulation."""
    best = best_lines(ruleset, states, params, cfg.seeds)
    return round1(best, params, keys, cfg), best


GRID = ((1.0, 0.0, 0.0), (0.8, 0.0, 0.0), (1.25, 0.0, 0.0), (1.0, 0.0, -0.2), (1.0, 0.0, 0.2), (0.8, 0.0, -0.2),
        (0.8, 0.0, 0.2), (1.25, 0.0, -0.2), (1.25, 0.0, 0.2), (1.0, -0.25, 0.0), (1.0, 0.25, 0.0))
"""Variations of a geometric line in the grid proposal: (speed factor, side spin a, added draw/follow b)."""


@jax.jit
def line_grid(best, params: Params) -> physics.Shot:
    """(S, k * len(GRID)) strikes: each of the k best lines (score, phi, V0, b each (S, k)) played
    with every variation of ``GRID``, its aim untouched; lines without a seed keep their (unused) values."""
    _, phi, V0, b = best
    g = jnp.asarray(GRID, phi.dtype)
    shape = phi.shape[:-1] + (-1,)
    shots = physics.Shot(V0=(V0[..., None] * g[:, 0]).reshape(shape), phi=jnp.repeat(phi, len(GRID), -1),
                         theta=jnp.zeros(phi.shape + (len(GRID),), phi.dtype).reshape(shape),
                         a=jnp.broadcast_to(g[:, 1], phi.shape + (len(GRID),)).reshape(shape),
                         b=(b[..., None] + g[:, 2]).reshape(shape))
    return clip_shot(shots, params)


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
