"""Whether one shot makes a three-cushion point, on the Python side.

A point is the cue ball meeting both object balls with at least three cushion contacts before it
reaches the second one (docs/rules.md C-13.2), read from the shot's event log by the referee's own
facts (``rules.judge``). A tracked shot's contacts written as an event log
(``physics.tracking.events.event_log``) and a simulated shot are judged alike, which is how the
calibration compares the two (docs/physics.md section 6). This lives with the rules, not with the
tracked-shot library in ``physics.tracking``, because the physics knows no rules.
"""
from __future__ import annotations

from functools import lru_cache

import jax
import jax.numpy as jnp

from physics.events import ShotResult
from physics.params import default_params
from rules import judge
from rules.options import make_rules


@lru_cache(maxsize=1)
def _three_cushion():
    return make_rules("three_cushion"), default_params()


@jax.jit
def _point(ruleset, params, result: ShotResult, start, cue):
    facts = judge.read(ruleset, params, start, cue, result)
    # docs/rules.md C-13.2: both object balls, three cushions before the second.
    return facts.carom & (facts.cushions_before_carom >= ruleset.cushions_required), facts.cushions_before_carom


def scores_point(result: ShotResult, start, cue) -> bool:
    """Whether a shot (tracked: ``physics.tracking.events.event_log``; or simulated), played with
    ball ``cue`` from ``start`` (3, 2), makes a three-cushion point, C-13.2."""
    result = jax.tree_util.tree_map(jnp.asarray, result)
    point, _ = _point(*_three_cushion(), result, jnp.asarray(start, jnp.float64), jnp.asarray(cue, jnp.int32))
    return bool(point)


__all__ = ["scores_point"]
