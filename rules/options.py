"""``Rules``: one discipline's rules with its options, as a pytree; ``make_rules`` builds it.

Everything that tells one discipline from another within a family is a leaf: the numeric options
(so an experiment can ``vmap`` over, say, the pure-carom limit or the balkline line distance) and
the discipline table's words as integer codes (zones, re-spot kinds). Only the family and the lag
switch are static metadata, because they choose code paths; so one compiled referee (and one
compiled environment step) serves every carom discipline. ``Rules`` carries no discipline id:
identity lives in the discipline table and in the environment built from it. Every option exists in
every ``Rules`` (fixed structure); ``make_rules`` only lets a caller set the ones that apply to the
discipline.
"""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from physics.pytree import pytree_dataclass, static_field
from rules import disciplines
from rules.codes import FrozenRespot


@pytree_dataclass
class Rules:
    """One discipline's rules. All leaves are () arrays.

    Attributes:
      distance: int32, points to win (O-1; C-3.3, H-3.3).
      scoring_mode: int32, 1 / 2 / 3, what happens to a fouling player's run (H-9.9).
      pure_carom_limit: bool, at most two pure caroms in a row score (H-6.3).
      cushions_required: int32, cue-ball cushions before the carom (C-13.1, C-13.2).
      restricted_fields: bool, the corner fields / balkline fields and anchors are in force.
      field_limit: int32, consecutive caroms in one field or anchor (C-11.2, C-12.3, C-12.4).
      corner_long_leg, corner_short_leg: float, straight-rail corner triangles' legs along the
        long and the short cushion (m), O-5 / docs/physics.md section 7.
      line_distance: float, balkline lines' distance from the cushions (m), C-12.2, C-12.5.
      anchor_fraction: float, anchor side as a fraction of the playing width (C-12.2 b: 1/8).
      equalizing_inning: bool, the breaker's opponent gets a last inning (C-8.3).
      countdown_from: int32, announce the last this-many points (C-14.1).
      time_tolerance: float, contacts closer in time than this (s) are simultaneous (H-6.6, O-7).
      frozen_tolerance: float, gap (m) below which balls touch each other or a cushion (O-3).
      line_tolerance: float, half-width (m) of a chalk line: a ball centre this close to a line
        lies "on the line" and counts inside (C-11.5, C-12.9). Open point: the documents say
        "exactly on the line"; we choose 0.5 mm, the half-width of a fine chalk line.
      push_time: float, a cue ball that touches the ball (or cushion) it was frozen to within this
        time (s) after the strike has moved it: foul (H-4.6, C-12.7 c, C-13.3 c; open point O-3).
      pin_radius: float, the pin's radius where a ball touches it (m), docs/physics.md section 4.
      carom_points, pin_points, carom_with_pin_points: int32, what a valid Hungarian carom, pin
        and carom with the pin score (H-9.2, H-9.3, H-9.4: 10, 50, 100); a foul hands the
        opponent the shot's value (H-9.7).
      pin_jam_reach: float, a fallen pin whose reported position lies closer than this (m) to a
        ball's surface cannot be taken away without moving the ball: jammed (H-8.6). Open point:
        the log gives one point for a lying pin; we take 10 mm, about its body radius.
      lag_tie_tolerance: float, lag balls closer than this (m) to equal distance tie (C-1.3).
      zones: int32 ``codes.Zones``, the restricted zones (C-11.1, C-12.2, C-12.5).
      jumped_respot: int32 ``codes.JumpedRespot``, where jumped balls go (C-11.4, C-12.8, C-13.4, H-7).
      frozen_respot: int32 ``codes.FrozenRespot``, re-spots of a frozen cue ball (C-11.3, C-12.7 a,
        C-13.3, H-4.6).
      family: static, "carom" (Part C) or "hungarian" (Part H): which referee judges.
      lag: static, the game starts with a lag (C-1, open point O-10).
    """

    distance: jnp.ndarray
    scoring_mode: jnp.ndarray
    pure_carom_limit: jnp.ndarray
    cushions_required: jnp.ndarray
    restricted_fields: jnp.ndarray
    field_limit: jnp.ndarray
    corner_long_leg: jnp.ndarray
    corner_short_leg: jnp.ndarray
    line_distance: jnp.ndarray
    anchor_fraction: jnp.ndarray
    equalizing_inning: jnp.ndarray
    countdown_from: jnp.ndarray
    time_tolerance: jnp.ndarray
    frozen_tolerance: jnp.ndarray
    line_tolerance: jnp.ndarray
    push_time: jnp.ndarray
    pin_radius: jnp.ndarray
    carom_points: jnp.ndarray
    pin_points: jnp.ndarray
    carom_with_pin_points: jnp.ndarray
    pin_jam_reach: jnp.ndarray
    lag_tie_tolerance: jnp.ndarray
    zones: jnp.ndarray
    jumped_respot: jnp.ndarray
    frozen_respot: jnp.ndarray
    family: str = static_field(default="carom")
    lag: bool = static_field(default=False)

    @property
    def is_hungarian(self) -> bool:
        return self.family == "hungarian"

    @property
    def pin(self) -> bool:
        """The pin stands in the physics: the Hungarian family exactly (the discipline table's
        ``pin`` column, which ``disciplines`` keeps equal to it, H-1.3)."""
        return self.is_hungarian

    def respot_offered(self) -> jnp.ndarray:
        """() bool: a frozen cue ball lets the shooter ask for a re-spot (C-12.7 a, C-13.3)."""
        return (self.frozen_respot == FrozenRespot.START_CHOICE) | (self.frozen_respot == FrozenRespot.SPOTS_CHOICE)


# name -> (kind, which disciplines may set it). Defaults come from the discipline row or below.
_ALL = "all"
_OPTIONS = {
    "distance": ("int_pos", _ALL),
    "time_tolerance": ("float_nonneg", _ALL),
    "frozen_tolerance": ("float_nonneg", _ALL),
    "push_time": ("float_nonneg", _ALL),
    "scoring_mode": ("mode", "hungarian"),
    "pure_carom_limit": ("bool", "hungarian"),
    "pin_radius": ("float_pos", "hungarian"),
    "pin_jam_reach": ("float_nonneg", "hungarian"),
    "carom_points": ("int_nonneg", "hungarian"),
    "pin_points": ("int_nonneg", "hungarian"),
    "carom_with_pin_points": ("int_nonneg", "hungarian"),
    "equalizing_inning": ("bool", "carom"),
    "countdown_from": ("int_nonneg", "carom"),
    "lag": ("static_bool", "carom"),
    "lag_tie_tolerance": ("float_nonneg", "carom"),
    "cushions_required": ("int_nonneg", "cushions"),
    "restricted_fields": ("bool", "zones"),
    "field_limit": ("int_pos", "zones"),
    "line_tolerance": ("float_nonneg", "zones"),
    "corner_long_leg": ("float_pos", "corners"),
    "corner_short_leg": ("float_pos", "corners"),
    "line_distance": ("float_pos", "balkline"),
    "anchor_fraction": ("fraction", "balkline"),
}

_DEFAULTS = dict(
    scoring_mode=1,  # rule H-9.9: mode 1 is the first way the original lists
    pure_carom_limit=True,  # rule H-6.3
    restricted_fields=True,
    corner_long_leg=0.71,  # docs/physics.md section 7, open point O-5
    corner_short_leg=0.355,
    anchor_fraction=1.0 / 8.0,  # rule C-12.2 b
    equalizing_inning=True,  # rule C-8.3
    time_tolerance=1e-6,  # open point O-7: the simulator resolves events far finer than this
    frozen_tolerance=1e-4,  # open point O-3
    line_tolerance=5e-4,
    push_time=1e-2,
    pin_radius=0.010,  # docs/physics.md section 4: the body is about 20 mm across at ball height
    pin_jam_reach=0.010,  # about the pin's body radius: a ball touching where it lies
    carom_points=10,  # rule H-9.2
    pin_points=50,  # rule H-9.3
    carom_with_pin_points=100,  # rule H-9.4
    lag_tie_tolerance=1e-3,
    lag=False,  # open point O-10
)


def _applies(scope: str, spec: disciplines.Discipline) -> bool:
    return {
        _ALL: True,
        "hungarian": spec.family == "hungarian",
        "carom": spec.family == "carom",
        "cushions": spec.cushions_required > 0,
        "zones": spec.zones != "none",
        "corners": spec.zones == "corners",
        "balkline": spec.zones == "balkline",
    }[scope]


def _check(name: str, kind: str, value):
    """Validate one concrete option value; return it as a Python scalar."""
    array = np.asarray(value)
    if array.shape != () or array.dtype.kind not in "biuf":
        raise ValueError(f"option {name} must be a number or bool, got {value!r}")
    scalar = array.item()
    if kind in ("bool", "static_bool"):
        if array.dtype.kind != "b" and scalar not in (0, 1):
            raise ValueError(f"option {name} must be True or False, got {value!r}")
        return bool(scalar)
    if kind in ("int_pos", "int_nonneg", "mode"):
        if array.dtype.kind == "b" or float(scalar) != int(scalar):
            raise ValueError(f"option {name} must be an integer, got {value!r}")
        scalar = int(scalar)
        low = {"int_pos": 1, "int_nonneg": 0, "mode": 1}[kind]
        if scalar < low or (kind == "mode" and scalar > 3):
            allowed = "1, 2 or 3" if kind == "mode" else f">= {low}"
            raise ValueError(f"option {name} must be {allowed}, got {value!r}")
        return scalar
    if array.dtype.kind == "b" or not math.isfinite(float(scalar)):
        raise ValueError(f"option {name} must be a finite number, got {value!r}")
    scalar = float(scalar)
    if (kind == "float_pos" and scalar <= 0) or (kind == "float_nonneg" and scalar < 0):
        raise ValueError(f"option {name} must be {'> 0' if kind == 'float_pos' else '>= 0'}, got {value!r}")
    if kind == "fraction" and not 0 < scalar < 1:
        raise ValueError(f"option {name} must be in (0, 1), got {value!r}")
    return scalar


def valid_options(discipline: str) -> tuple[str, ...]:
    """The option names a discipline accepts."""
    spec = disciplines.get(discipline)
    return tuple(sorted(n for n, (_, scope) in _OPTIONS.items() if _applies(scope, spec)))


def make_rules(discipline: str, **options) -> Rules:
    """The rules of a discipline with options; ValueError for unknown names or bad values."""
    spec = disciplines.get(discipline)
    valid = valid_options(discipline)
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} for {discipline}; valid: {', '.join(valid)}"
        )
    values = dict(_DEFAULTS)
    values.update(
        distance=spec.distance,
        cushions_required=spec.cushions_required,
        field_limit=spec.field_limit,
        line_distance=spec.line_distance,
        countdown_from=spec.countdown_from,
    )
    for name, value in options.items():
        values[name] = _check(name, _OPTIONS[name][0], value)
    lag = bool(values.pop("lag"))
    values.update(zip(("zones", "jumped_respot", "frozen_respot"), disciplines.codes_of(spec)))
    ints = ("distance", "scoring_mode", "cushions_required", "field_limit", "countdown_from", "zones",
            "jumped_respot", "frozen_respot", "carom_points", "pin_points", "carom_with_pin_points")
    bools = ("pure_carom_limit", "restricted_fields", "equalizing_inning")
    leaves = {}
    for name, value in values.items():
        dtype = jnp.int32 if name in ints else jnp.bool_ if name in bools else jnp.float64
        leaves[name] = jnp.asarray(value, dtype)
    return Rules(family=spec.family, lag=lag, **leaves)
