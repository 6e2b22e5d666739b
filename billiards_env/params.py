"""``EnvParams``: everything an environment step reads, as one pytree, and ``default_params``.

The physical parameters (``physics.Params``), the rules with their options (``rules.Rules``), the
execution noise, the action ranges, the reward settings and the episode settings are all leaves,
so an experiment can ``vmap`` over any of them (a batch of cushion restitutions, of rule options,
of noise levels). Derived values (the noise standard deviations in action units) are properties,
so they never go stale when a base value is replaced.

What chooses code paths (the discipline, the episode mode, the opponent) is not here: it is fixed
when the environment is built (``billiards_env.make_functional``).
"""
from __future__ import annotations

from typing import Any, Mapping

import jax
import jax.numpy as jnp
import numpy as np

import physics
import rules
from physics import execution
from physics import params as physics_params
from physics import pytree
from physics.params import FRACTION, NON_NEGATIVE, POSITIVE, Range
from physics.pytree import pytree_dataclass


@pytree_dataclass
class EnvParams:
    """Parameters of one environment. All leaves; shapes () unless noted.

    Attributes:
      physics: ``physics.Params`` (table, balls, cushions, cue, pin).
      rules: ``rules.Rules`` (the family, static, and the discipline's columns and options, leaves).
      noise: execution-noise scale: 1 (``DEFAULT_NOISE``) adds the computational-pool noise
        (phi 0.125 deg, V0 0.075 m/s, theta 0.1 deg, a and b 0.5 mm), 0 plays the shot exactly
        as asked.
      v_min, v_max: cue-speed range (m/s) that the action's speed component spans.
      theta_max: largest cue elevation (deg) the action spans (from 0).
      offset_max: radius of the disc of tip offsets, a fraction of the ball radius R (below the
        miscue limit ``physics.cue.max_offset``).
      zero_sum: bool, the reward is the player's points minus the points the shot handed to the
        opponent; False: the player's points only.
      reward_scale: factor on the rewards (1: the official points).
      max_steps: int32, the episode is truncated after this many steps ("inning" and "game").
      start_probability: "shot" and "inning" episodes start from the discipline's starting
        position with this probability, else from a random legal layout (default 0,
        ``DEFAULT_START_PROBABILITY``: always a random layout).
      layout: (3, 2) float, a layout given by the user (m, ball indices as in ``rules``).
      layout_given: bool, "shot" and "inning" episodes start from ``layout`` (shooter
        ``layout_player``) instead of drawing one.
      layout_player: int32, who shoots first from ``layout`` (0 or 1).
    """

    physics: physics.Params
    rules: rules.Rules
    noise: jnp.ndarray
    v_min: jnp.ndarray
    v_max: jnp.ndarray
    theta_max: jnp.ndarray
    offset_max: jnp.ndarray
    zero_sum: jnp.ndarray
    reward_scale: jnp.ndarray
    max_steps: jnp.ndarray
    start_probability: jnp.ndarray
    layout: jnp.ndarray
    layout_given: jnp.ndarray
    layout_player: jnp.ndarray

    @property
    def noise_std(self):
        """(5,) standard deviations in shot units, order (V0 m/s, phi deg, theta deg, a, b) with
        a and b as fractions of R, times ``noise`` (``physics.execution.noise_std``)."""
        return execution.noise_std(self.physics, self.noise)


# The action's elevation spans 0..THETA_MAX: up to a near-vertical cue, for jumps and massé
# (docs/physics.md section 3), beyond the 60 deg the agents draw strikes from (``execution.THETA_MAX``).
THETA_MAX = 80.0  # deg

# The one default of training, evaluation and the environments (README, "Defaults"): every
# stroke carries the standard execution noise, as a real one does (a policy trained on exact
# strokes learns shots that a real cue cannot repeat), and episodes start from random legal
# layouts (the break is one layout among many; ``start_probability`` adds it).
DEFAULT_NOISE = 1.0
DEFAULT_START_PROBABILITY = 0.0

# name -> (default, kind, allowed values). Every float is finite; theta_max and offset_max are
# > 0 because ``actions.from_shot`` divides by them; reward_scale > 0 keeps the official order of
# rewards (0 would hide every point, a negative one reward fouls).
_ENV_LEAVES = {
    "noise": (DEFAULT_NOISE, "float", NON_NEGATIVE),
    "v_min": (execution.V0_MIN, "float", NON_NEGATIVE),
    "v_max": (execution.V0_MAX, "float", POSITIVE),
    "theta_max": (THETA_MAX, "float", Range(0.0, 90.0)),
    "offset_max": (execution.OFFSET_MAX, "float", Range(0.0, 1.0)),
    "zero_sum": (False, "bool", Range(0, 1, low_open=False, high_open=False)),
    "reward_scale": (1.0, "float", POSITIVE),
    "max_steps": (200, "int", Range(1, low_open=False)),
    "start_probability": (DEFAULT_START_PROBABILITY, "float", FRACTION),
    "layout_player": (0, "int", Range(0, 1, low_open=False, high_open=False)),
}
PARAM_NAMES = tuple(sorted(_ENV_LEAVES)) + ("layout",)


def _allowed(name) -> str:
    _, kind, allowed = _ENV_LEAVES[name]
    return {"bool": "True or False", "int": f"an integer in {allowed}"}.get(kind, f"a real number in {allowed}")


def _leaf(name, value, dtype):
    """One EnvParams leaf from a user's value: TypeError unless a real number (a bool for
    ``zero_sum``), ValueError unless whole where an integer is needed or outside its range."""
    _, kind, allowed = _ENV_LEAVES[name]
    array = None if isinstance(value, (str, bytes)) else np.asarray(value)
    ok_kinds = "b" if kind == "bool" else ("iu" if kind == "int" else "fiu")
    if array is None or array.shape != () or array.dtype.kind not in ok_kinds:
        raise TypeError(f"params.{name} must be {_allowed(name)}, got {value!r}")
    jdtype = {"float": dtype, "int": jnp.int32, "bool": jnp.bool_}[kind]
    return jnp.asarray(array, jdtype)


def _relations(p: EnvParams, xp):
    """Bounds that tie leaves together: (name, holds, allowed values in words)."""
    return [
        ("v_min", p.v_min < p.v_max, "below v_max"),
        ("v_max", p.v_max <= p.physics.cue.max_speed, "at most the cue's max_speed (physics.cue.max_speed)"),
        ("offset_max", p.offset_max <= p.physics.cue.max_offset, "at most the miscue limit (physics.cue.max_offset)"),
        ("layout", xp.all(xp.isfinite(p.layout)), "finite ball centres"),
    ]


def check_params(params: EnvParams) -> None:
    """Raise ValueError naming the first leaf of ``params`` outside its allowed values (the
    physics' own with ``physics.params.check_params``). Traced params are skipped: inside ``jit``
    the step flags them instead (``params_are_valid``)."""
    if not isinstance(params, EnvParams):
        raise TypeError("params must be billiards_env.EnvParams (billiards_env.default_params()), "
                        f"got {type(params).__name__}")
    if any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(params)):
        return
    physics_params.check_params(params.physics)
    concrete = jax.device_get(params)
    for name, (_, kind, allowed) in _ENV_LEAVES.items():
        value = np.asarray(getattr(concrete, name))
        if not np.all(allowed.holds(value.astype(float))) or (kind == "int" and value.dtype.kind not in "iu"):
            raise ValueError(f"params.{name} must be {_allowed(name)}, got {value.tolist()}")
    if np.shape(concrete.layout) != (3, 2):
        raise ValueError(f"params.layout must have shape (3, 2), got {np.shape(concrete.layout)}")
    for name, holds, words in _relations(concrete, np):
        if not np.all(holds):
            raise ValueError(f"params.{name} must be {words}, got {np.asarray(getattr(concrete, name)).tolist()}")


def params_are_valid(params: EnvParams) -> jax.Array:
    """() bool, traceable: every leaf in its range and the physics valid (``check_params``)."""
    ok = physics_params.params_are_valid(params.physics)
    for name, (_, _, allowed) in _ENV_LEAVES.items():
        ok = ok & allowed.holds(jnp.asarray(getattr(params, name)).astype(params.physics.dtype), jnp)
    for _, holds, _ in _relations(params, jnp):
        ok = ok & holds
    return ok


def replace(obj, **changes):
    """``dataclasses.replace``, checked when the result is concrete ``EnvParams`` or physical
    parameters (``check_params``): the way to change a parameter of an existing set."""
    new = pytree.replace(obj, **changes)
    if isinstance(new, EnvParams):
        check_params(new)
    elif type(new) in physics_params.GROUPS:
        physics_params.check_params(new)
    return new


def setup(discipline: str = "three_cushion", calibration: str | None = None, *,
          physics_options: Mapping[str, Any] | None = None, **rule_options) -> tuple[rules.Rules, physics.Params]:
    """(rules, physics parameters) of a discipline: ``rules.make_rules(discipline, **rule_options)``
    and the physics of the table its row of the discipline table names (O-2, H-1.1: the Hungarian
    game on its 1:2 table, the others on the match table), in the named ``calibration``
    (``physics.CALIBRATIONS``; default: the table's own). physics_options: further
    ``physics.default_params`` overrides (``table`` replaces the discipline's). The pair the
    planners take (``agents``), and what ``default_params`` builds an environment on.

        game, params = billiards_env.setup("hungarian_1000", scoring_mode=2)
    """
    ruleset = rules.make_rules(discipline, **rule_options)
    physics_options = dict(physics_options or {})
    table = physics_options.pop("table", rules.disciplines.get(discipline).table)
    return ruleset, physics.default_params(table, calibration=calibration, **physics_options)


def default_params(discipline: str = "three_cushion", *, rule_options: Mapping[str, Any] | None = None,
                   physics_options: Mapping[str, Any] | None = None, **values) -> EnvParams:
    """The default parameters of a discipline, with overrides.

    rule_options: dict for ``rules.make_rules`` (e.g. ``distance=10``); physics_options: dict for
    ``physics.default_params`` (e.g. ``e_c=0.8``); values: the leaves of ``EnvParams`` above
    (``noise``, ``zero_sum``, ``max_steps``, ``layout``, ...). Unknown names or values outside
    their range raise ValueError naming the allowed ones; values of the wrong type TypeError.
    """
    rule_options = dict(rule_options or {})
    physics_options = dict(physics_options or {})
    if rule_options.get("lag"):
        raise ValueError("option lag: the environments do not play the lag (C-1): both lag balls "
                         "are struck at once, and a step strikes one ball; valid: lag=False")
    rule_options.pop("lag", None)
    ruleset, phys = setup(discipline, physics_options.pop("calibration", None), physics_options=physics_options,
                             **rule_options)
    unknown = sorted(set(values) - set(PARAM_NAMES))
    if unknown:
        raise ValueError(f"unknown environment parameter(s) {', '.join(unknown)}; valid: {', '.join(PARAM_NAMES)}")
    leaves = {name: _leaf(name, values.get(name, default), phys.dtype) for name, (default, _, _) in _ENV_LEAVES.items()}
    layout = values.get("layout")
    if layout is None:
        leaves["layout"] = jnp.zeros((3, 2), phys.dtype)
        leaves["layout_given"] = jnp.asarray(False)
    else:
        leaves["layout"] = check_layout(layout, phys, ruleset)
        leaves["layout_given"] = jnp.asarray(True)
    params = EnvParams(physics=phys, rules=ruleset, **leaves)
    check_params(params)
    return params


def check_layout(layout, phys, ruleset):
    """(3, 2) array of a user's layout; ValueError when it is not a legal layout on the table."""
    from physics.simulate import layout_is_valid

    array = np.asarray(layout, dtype=float)
    if array.shape != (3, 2) or not np.all(np.isfinite(array)):
        raise ValueError(f"layout must be three finite ball centres, shape (3, 2) in metres, got shape {array.shape}")
    pin = phys.table.centre if ruleset.pin else None
    if not bool(layout_is_valid(jnp.asarray(array, phys.dtype), phys, pin)):
        L, W = float(phys.table.length), float(phys.table.width)
        raise ValueError(
            f"layout is not legal: balls must lie inside the cushions (x in (0, {L}), y in (0, {W}) m, "
            "a ball radius from the cushion noses), must not overlap each other"
            + (" or the pin on the centre spot" if pin is not None else "")
        )
    return jnp.asarray(array, phys.dtype)


__all__ = ["EnvParams", "default_params", "setup", "check_layout", "check_params", "params_are_valid", "replace",
           "PARAM_NAMES"]
