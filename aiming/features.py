"""The success model's inputs: a (layout, strike) pair as numbers a network can rate, with no
simulation (the learned agents' features, and the "lines" action form's candidate features).

``pair_features`` (one layout, one strike, the layout's best lines) concatenates the layout in
its canonical frame (``aiming.frame``), the strike (speed, aim, tip, the aim against each object
ball), the strike against the nearest best line, and from version 2 on what the hit makes of it:
the ball it meets first, the cut, where both balls go after the contact, their first cushions
(version 3) and the cue ball's mirror path through several cushions (version 4, where
three-cushion's points lie). ``FEATURE_VERSIONS`` gives each version's length; a model records
the version it learned from.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import physics
from physics.params import Params
from aiming import geometry
from aiming.frame import Frame, canonical_shot, frame, layout_features
from aiming.lines import line_shots


FEATURE_VERSIONS = {1: 28, 2: 41, 3: 47, 4: 57}
"""Inputs per (layout, strike) pair of each version of the success model's input
(``pair_features``). A version is added whenever a feature's meaning, order or scaling changes,
and a model records the one it was trained on, so that it is always fed what it learned from.
1: layout, strike and line-relative features; 2: those and what the hit makes of the strike
(``hit_features``); 3: those and the same lines after their first cushion; 4: those and the cue
ball's path on through several cushions (``path_features``: where three-cushion's points lie)."""


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
