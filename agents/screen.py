"""The exact screen of a search under execution noise: each candidate simulated once as aimed, and
how much room its carom leaves.

Under noise a search must play every candidate several times to tell a robust shot from a lucky
one, and at a small budget it can afford few candidates. Playing each candidate once without
noise is eight times cheaper and already finds the strikes that score as aimed (about one in
fourteen of the search's candidates on random three-cushion layouts); the noisy trials are then
spent on the screened strikes whose carom looks hardest to miss (``screen_keys``).

What makes a carom hard to miss, read from the exact shot's event log (docs/physics.md section 6
gives the noise): the cue ball's hit on the second object ball (the carom itself) and on the
first, each measured by its cut h = |sin| of the angle between the cue ball's path and the line
of centres (0: full, 1: a graze; a graze is lost to the smallest error of path), and the time
until the carom (aim and speed errors grow along the path, and more so at every cushion).
On 200 random three-cushion layouts (the shipped model's 132 grid strikes and 636 of the
search's own per layout, 24 noisy plays of each exact scorer), the 32 screened strikes with the
best margin x 8 noisy plays picked shots scoring 67.9 % of the time under the standard noise;
32 picked at random among the exact scorers 61.3 %; by the model's rating 56.0 %.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from physics.events import EventKind, ShotResult

CAROM_TIME_SCALE = 4.0  # s: a carom this long after the strike counts half as robust as an immediate one


def _cut(events, i, cue, other):
    """|sin| of the angle between the cue ball's incoming path and the line of centres at event i.

    The incoming velocity is the sum of both balls' outgoing ones (equal masses: the impulse
    only moves momentum between them)."""
    r, v = events.positions[i], events.velocities[i]
    d = r[other] - r[cue]
    u = v[cue] + v[other]
    cross = jnp.abs(u[0] * d[1] - u[1] * d[0])
    return jnp.clip(cross / jnp.maximum(jnp.linalg.norm(u) * jnp.linalg.norm(d), 1e-12), 0.0, 1.0)


def contact_cuts(result: ShotResult, cue):
    """(h1, h2, t2, reached) of one shot (``result``'s leaves without a batch axis): the cuts of
    the cue ball's first hits on the two object balls, in the order it reaches them, the time of
    the second hit, and whether it reached both (where it did not, h2 and t2 are meaningless)."""
    events = result.events
    C = events.kind.shape[0]
    n = events.positions.shape[-2]
    cue = jnp.asarray(cue, jnp.int32)
    logged = jnp.arange(C) < result.num_events
    first, second = events.balls[:, 0].astype(jnp.int32), events.balls[:, 1].astype(jnp.int32)
    with_cue = logged & (events.kind == EventKind.BALL_BALL) & ((first == cue) | (second == cue))
    other = jnp.where(first == cue, second, first)
    hits = jnp.stack([with_cue & (other == j) for j in range(n)])  # (n, C)
    at = jnp.where(jnp.any(hits, -1), jnp.argmax(hits, -1), C)  # each ball's first hit, C: none
    is_cue = jnp.arange(n) == cue
    o1 = jnp.argmin(jnp.where(is_cue, C + 1, at))
    o2 = jnp.argmax(jnp.where(is_cue, -1, at))
    i1, i2 = jnp.minimum(at[o1], C - 1), jnp.minimum(at[o2], C - 1)
    return _cut(events, i1, cue, o1), _cut(events, i2, cue, o2), events.time[i2], at[o2] < C


def carom_margin(result: ShotResult, cue) -> jax.Array:
    """() in [0, 1]: how hard the shot's carom is to miss, (1 - h2)(1 - h1 / 2) / (1 + t2 / 4 s)
    (``contact_cuts``); 0 when the cue ball does not reach both object balls."""
    h1, h2, t2, reached = contact_cuts(result, cue)
    margin = (1 - h2) * (1 - 0.5 * h1) / (1 + t2 / CAROM_TIME_SCALE)
    return jnp.where(reached, margin, 0.0).astype(result.events.time.dtype)


def screen_keys(values, results: ShotResult, cue) -> jax.Array:
    """(B,) the screen's order of B exactly simulated candidates: their value (the search's
    judgement of the exact shot, ``agents.search._judge``) scaled by (1 + margin) / 2 where it is
    positive, so strikes that score as aimed come first, those whose carom is hardest to miss
    first among equals."""
    margin = jax.vmap(carom_margin)(results, cue)
    return jnp.where(values > 0, values * (0.5 + 0.5 * margin.astype(values.dtype)), values)


__all__ = ["carom_margin", "contact_cuts", "screen_keys", "CAROM_TIME_SCALE"]
