"""Physical parameters as pytrees (docs/physics.md section 6), and ``default_params``.

Every number is a leaf, so experiments can ``vmap`` over any of them (cushion restitution, say).
Model choices (which ball-ball and cushion model) and the log capacity are static metadata.
Derived values are properties, so they never go stale when a base value is replaced.
Every leaf has an allowed range (``RANGES``): ``check_params`` raises for concrete values outside
it, ``params_are_valid`` says so under ``jit`` (the simulation then flags ``Status.INVALID_PARAMS``).
"""
from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from physics import _pytree
from physics._pytree import pytree_dataclass, static_field
from physics.collide.registry import BALL_BALL_MODELS, CUSHION_MODELS  # the registries: name -> model
from physics.table import Table, make_table

# Events a shot's log holds by default. Play stays well below it: 3 of 28,672 shots of the soak's
# families went past it (at most 96 events; 51 outside the frozen-ball and float32 families).
# Those are thinned (``physics.thinning``), which keeps what the referee reads and what a replay
# needs. A batch allocates its logs whole: 8,192 shots' logs take 96 MB at 64 events.
LOG_CAPACITY = 64


@pytree_dataclass
class BallParams:
    """Ball and cloth.

    Attributes:
      mass: kg (UMB 205-220 g).  radius: m (61.5 mm ball).
      u_s: sliding friction.  u_r: rolling resistance.
      u_r_step, roll_split: rolling resistance rises with speed (tracked shots): a ball rolling
        faster than ``roll_split`` (m/s) meets u_r + u_r_step (docs/physics.md section 1).
      u_sp_proportionality: spin friction per metre of radius (pooltool's 0.444): u_sp = it * R.
      e_b: ball-ball restitution.
      e_table: restitution of a ball bouncing on the cloth and slate (docs/physics.md section 1).
      e_strike: restitution of the strike's squeeze of the ball into the cloth and slate (section 3).
      strike_press: the downward speed of that squeeze that the cloth and the stroke absorb (m/s):
        the tip is still on the ball and presses it down while the slate pushes back (section 3).
      throw_a, throw_b, throw_c: ball-ball friction against slip speed v (TP A-14 fit),
        u_b(v) = a + b exp(-c v).
    """

    mass: jnp.ndarray
    radius: jnp.ndarray
    u_s: jnp.ndarray
    u_r: jnp.ndarray
    u_r_step: jnp.ndarray
    roll_split: jnp.ndarray
    u_sp_proportionality: jnp.ndarray
    e_b: jnp.ndarray
    e_table: jnp.ndarray
    e_strike: jnp.ndarray
    strike_press: jnp.ndarray
    throw_a: jnp.ndarray
    throw_b: jnp.ndarray
    throw_c: jnp.ndarray

    @property
    def u_sp(self):
        return self.u_sp_proportionality * self.radius

    @property
    def inertia(self):
        """Moment of inertia of a solid sphere, 2/5 m R^2."""
        return 0.4 * self.mass * self.radius**2


@pytree_dataclass
class CushionParams:
    """Cushion.

    Attributes:
      e_c: restitution.  f_c: ball-cushion friction.
      height: nose height above the bed (m); 37 mm (UMB, rule H-1.1).
      e_c_slope, f_c_slope: how the "graded" cushion model varies e_c with the normal speed (per
        m/s) and f_c with the sine of the incidence (docs/physics.md section 2); 0 by default,
        and the other models ignore them.
      f_bed: friction of the cloth under the ball during an impact of the Han cushions ("han2005",
        "graded"), bounded by the bed's share of the nose's impulse (docs/physics.md section 2);
        0 by default (Han's model: the bed takes only the vertical velocity). "mathavan2010" has
        the cloth's u_s there.
      give: how long (s) the rubber yields under a ball on the cloth before it turns: the ball
        turns where its path has taken it ``give`` s after it met the nose, ``give`` times its
        speed into the cushion beyond the nose line, whatever the model (docs/physics.md section 2);
        0 by default (an instant turn at the nose).
    """

    e_c: jnp.ndarray
    f_c: jnp.ndarray
    height: jnp.ndarray
    e_c_slope: jnp.ndarray
    f_c_slope: jnp.ndarray
    f_bed: jnp.ndarray
    give: jnp.ndarray

    def contact_angle(self, radius):
        """Angle of the nose above the ball's equator: sin(theta) = h / R - 1 (docs/physics.md section 2)."""
        return jnp.arcsin(self.height / radius - 1.0)


@pytree_dataclass
class PinParams:
    """The wooden pin of the Hungarian game (rule H-1.3; docs/physics.md section 4).

    The rules give its height (90-92 mm), base diameter (14 mm) and centre of mass (33 mm above
    the base), not its mass or its width where a ball touches it (open point O-9): a turned
    pin of this size weighs 10-20 g and is about 20 mm across at a ball's centre height.

    Attributes:
      mass: kg (15 g).  contact_radius: m, the pin's radius at a ball's centre height (10 mm).
      total_height: m (91 mm).  base_radius: m (7 mm).  cm_height: m (33 mm).
      restitution: of a ball-pin impact (wood on a phenolic ball).
    """

    mass: jnp.ndarray
    contact_radius: jnp.ndarray
    total_height: jnp.ndarray
    base_radius: jnp.ndarray
    cm_height: jnp.ndarray
    restitution: jnp.ndarray

    @property
    def edge_inertia(self):
        """Moment of inertia about an edge of the base: a slender rod of the pin's height about
        its centre of mass, moved to the edge (parallel axes)."""
        return self.mass * (self.total_height**2 / 12 + self.cm_height**2 + self.base_radius**2)

    @property
    def tip_lift(self):
        """How far the centre of mass rises before it passes over the base edge (m)."""
        return jnp.sqrt(self.cm_height**2 + self.base_radius**2) - self.cm_height


@pytree_dataclass
class CueParams:
    """Cue (docs/physics.md section 3).

    Attributes:
      mass: kg.  tip_radius: m.
      end_mass_ratio: ball mass over the cue's effective end mass (TP A-31; about 12 to 30).
      tip_restitution: of the tip-ball impact (1 as in Leckie-Greenspan and pooltool).
      max_offset: the miscue limit, largest sqrt(a^2 + b^2) as a fraction of R.
      max_speed: the fastest cue speed accepted (m/s).
    """

    mass: jnp.ndarray
    tip_radius: jnp.ndarray
    end_mass_ratio: jnp.ndarray
    tip_restitution: jnp.ndarray
    max_offset: jnp.ndarray
    max_speed: jnp.ndarray


@pytree_dataclass
class Params:
    """All physical parameters of a shot.

    Attributes:
      ball, cushion, cue, pin: the parameter groups above.  table: the ``Table``.  g: gravity (m/s^2).
      ball_ball: "frictional" (TP A-14 throw), "frictional_bed" (and the cloth under a pressed ball) or
        "frictionless".
      cushion_model: "han2005" (closed form), "mathavan2010" (integrated impact) or "graded" (Han
        2005 with restitution and friction graded by the impact).
      capacity: events the log can hold (``LOG_CAPACITY`` by default).
    """

    ball: BallParams
    cushion: CushionParams
    cue: CueParams
    pin: PinParams
    table: Table
    g: jnp.ndarray
    ball_ball: str = static_field(default="frictional")
    cushion_model: str = static_field(default="han2005")
    capacity: int = static_field(default=LOG_CAPACITY)

    @property
    def dtype(self):
        return self.g.dtype

    @property
    def spin_decel(self):
        """Vertical-axis spin slowdown 5 u_sp g / (2 R) (rad/s^2)."""
        return 2.5 * self.ball.u_sp * self.g / self.ball.radius

    @property
    def cushion_reach(self):
        """Horizontal distance from a ball's centre to the nose line at contact: R cos(theta)."""
        return self.ball.radius * jnp.cos(self.cushion.contact_angle(self.ball.radius))


_DEFAULTS = {
    BallParams: dict(
        mass=0.210, radius=0.03075, u_s=0.2, u_r=0.005, u_r_step=0.0, roll_split=0.9, u_sp_proportionality=0.444,
        e_b=0.95, e_table=0.5, e_strike=0.5, strike_press=2.6, throw_a=9.951e-3, throw_b=0.108, throw_c=1.088,
    ),
    CushionParams: dict(e_c=0.85, f_c=0.15, height=0.037, e_c_slope=0.0, f_c_slope=0.0, f_bed=0.0, give=0.0),
    PinParams: dict(
        mass=0.015, contact_radius=0.010, total_height=0.091, base_radius=0.007, cm_height=0.033,
        restitution=0.6,
    ),
    CueParams: dict(
        mass=0.567, tip_radius=0.0106, end_mass_ratio=20.0, tip_restitution=1.0,
        max_offset=0.6, max_speed=10.0,
    ),
}
# Named sets of the cloth, ball and cushion values (docs/physics.md section 6), applied over
# ``_DEFAULTS`` and under any override. "reference": the textbook values of ``_DEFAULTS`` (those of
# the comparison with pooltool and of the golden shots). "tracked": fitted to 90 tracked shots of
# a three-cushion match (``experiments.calibrate``, cross-validated; data erdo100/3cushiontool,
# Apache-2.0): a more gripping cushion, a higher nose, more cloth friction, slower spin decay,
# rolling resistance that rises with speed, the ball-ball friction fit scaled by 2.094 (more
# throw). The graded cushion's slopes came out near zero, so the set keeps the han2005 cushion.
CALIBRATIONS = {
    "reference": {},
    "tracked": dict(e_c=0.862, f_c=0.2805, height=0.0388, u_s=0.225, u_r=0.00427, u_r_step=0.00117, roll_split=0.9,
                    u_sp_proportionality=0.205, e_b=0.945, throw_a=2.084e-2, throw_b=0.2262),
}
# The set each table starts from: the match table's is fitted to match shots; no tracked shots of
# the Hungarian table exist, so it keeps the reference values.
TABLE_CALIBRATION = {"match": "tracked", "hungarian": "reference"}

_TABLE_FIELDS = (
    "length", "width", "head_string_offset", "spot_spacing", "base_spot_fraction", "face_depth", "rail_height",
    "rail_width",
)
_GROUP = {BallParams: "ball", CushionParams: "cushion", PinParams: "pin", CueParams: "cue"}


def _override_name(group, field):
    """A leaf's override name: the pin's are all prefixed ``pin_``; others by their own name where
    that is unique, else prefixed by their group (``ball_mass``, ``cue_mass``)."""
    clashes = sum(field in values for values in _DEFAULTS.values())
    unique = clashes == 1 and field != "radius" and group is not PinParams
    return field if unique else f"{_GROUP[group]}_{field}"


def _valid_names():
    names = ["table", "ball_ball", "cushion", "capacity", "dtype", "g", *_TABLE_FIELDS]
    for group, values in _DEFAULTS.items():
        names += [_override_name(group, k) for k in values]
    return sorted(set(names))


def default_params(table: str = "match", calibration: str | None = None, **overrides) -> Params:
    """Default parameters for a table ("match" or "hungarian"), with named overrides.

    calibration: the named set of cloth, ball and cushion values (``CALIBRATIONS``) the
    overrides apply to; by default the table's own (``TABLE_CALIBRATION``: "tracked" for the
    match table, "reference" for the Hungarian one). "reference" gives the textbook values.
    Overrides: ``ball_ball`` ("frictional" | "frictional_bed" | "frictionless"), ``cushion`` ("han2005" |
    "mathavan2010" | "graded"), ``capacity`` (events in the log), ``dtype`` ("float64" | "float32"), ``g``,
    any table size (``length``, ``width``, ...), and any leaf of the groups by its name
    (``u_s``, ``e_b``, ``e_c``, ``height``; ``ball_mass``, ``ball_radius``, ``cue_mass``; the pin's
    with ``pin_``: ``pin_mass``, ``pin_contact_radius``, ...).
    """
    dtype = jnp.dtype(overrides.pop("dtype", jnp.zeros(()).dtype))
    if dtype not in (jnp.float32, jnp.float64):
        raise ValueError(f"dtype must be float32 or float64, not {dtype}")
    ball_ball = overrides.pop("ball_ball", "frictional")
    if ball_ball not in BALL_BALL_MODELS:
        raise ValueError(f"unknown ball_ball model {ball_ball!r}; valid: {', '.join(BALL_BALL_MODELS)}")
    cushion_model = overrides.pop("cushion", "han2005")
    if cushion_model not in CUSHION_MODELS:
        raise ValueError(f"unknown cushion model {cushion_model!r}; valid: {', '.join(CUSHION_MODELS)}")
    capacity = check_capacity(overrides.pop("capacity", LOG_CAPACITY))
    table_sizes = {k: _real(k, overrides.pop(k)) for k in _TABLE_FIELDS if k in overrides}
    g = _real("g", overrides.pop("g", 9.81))

    if calibration is None:  # the table's own (an unknown table: make_table says so)
        calibration = TABLE_CALIBRATION.get(table, "reference")
    if calibration not in CALIBRATIONS:
        raise ValueError(f"unknown calibration {calibration!r}; valid: {', '.join(CALIBRATIONS)}")
    calibrated = CALIBRATIONS[calibration]

    groups = {}
    for group, values in _DEFAULTS.items():
        fields = {}
        for name, default in values.items():
            key = _override_name(group, name)
            fields[name] = _real(key, overrides.pop(key, calibrated.get(key, default)))
        groups[_GROUP[group]] = group(**{k: jnp.asarray(v, dtype) for k, v in fields.items()})
    if overrides:
        raise ValueError(
            f"unknown parameter(s) {', '.join(sorted(overrides))}; valid: {', '.join(_valid_names())}"
        )
    params = Params(
        table=make_table(table, dtype, **table_sizes),
        g=jnp.asarray(g, dtype),
        ball_ball=ball_ball,
        cushion_model=cushion_model,
        capacity=capacity,
        **groups,
    )
    check_params(params)
    return params


# -- allowed values ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Range:
    """An interval of allowed values; the open ends exclude their bound (an infinite end is
    always open, so every allowed value is finite)."""

    low: float
    high: float = math.inf
    low_open: bool = True
    high_open: bool = True

    def __str__(self):
        return f"{'(' if self.low_open else '['}{self.low:g}, {self.high:g}{')' if self.high_open else ']'}"

    def holds(self, x, xp=np):
        """Elementwise: x lies in the interval (False for NaN)."""
        above = x > self.low if self.low_open else x >= self.low
        below = x < self.high if self.high_open or math.isinf(self.high) else x <= self.high
        return above & below & xp.isfinite(x)


POSITIVE = Range(0.0)
NON_NEGATIVE = Range(0.0, low_open=False)
FRACTION = Range(0.0, 1.0, low_open=False, high_open=False)  # restitutions
REAL = Range(-math.inf)

# The allowed range of every leaf of ``Params``, by its path. Why each bound (docs/physics.md):
# masses, lengths, g and the friction that ends a motion (u_s, u_r, u_sp) must be > 0, or a
# time to stop is infinite or a division by zero gives NaN (section 1); restitutions lie in
# [0, 1] (no energy is created); the cloth must absorb something on a bounce (e_table < 1) or a
# hopping ball never lands; the throw fit a + b exp(-c v) is a friction, >= 0 (section 2); the
# cue's end mass ratio m / m_end is >= 0 (section 3; a negative one divides by zero in the
# squirt); offsets are fractions of R below the ball's edge (section 3); the speed the strike's
# squeeze absorbs, strike_press, is >= 0 (0: none, section 3); the rail's sizes are > 0 and its
# top no lower than the nose (section 5); the graded cushion's slopes may have either sign (its
# clips keep the restitution in [0, 1] and the friction >= 0, section 2).
RANGES = {
    "ball": dict(
        mass=POSITIVE, radius=POSITIVE, u_s=POSITIVE, u_r=POSITIVE, u_r_step=NON_NEGATIVE, roll_split=POSITIVE,
        u_sp_proportionality=POSITIVE, e_b=FRACTION,
        e_table=Range(0.0, 1.0, low_open=False), e_strike=FRACTION, strike_press=NON_NEGATIVE,
        throw_a=NON_NEGATIVE, throw_b=NON_NEGATIVE, throw_c=NON_NEGATIVE,
    ),
    "cushion": dict(e_c=FRACTION, f_c=NON_NEGATIVE, height=POSITIVE, e_c_slope=REAL, f_c_slope=REAL,
                    f_bed=NON_NEGATIVE, give=NON_NEGATIVE),
    "cue": dict(
        mass=POSITIVE, tip_radius=POSITIVE, end_mass_ratio=NON_NEGATIVE, tip_restitution=FRACTION,
        max_offset=Range(0.0, 1.0), max_speed=POSITIVE,
    ),
    "pin": dict(
        mass=POSITIVE, contact_radius=POSITIVE, total_height=POSITIVE, base_radius=POSITIVE, cm_height=POSITIVE,
        restitution=FRACTION,
    ),
    "table": dict(
        length=POSITIVE, width=POSITIVE, head_string_offset=NON_NEGATIVE, spot_spacing=POSITIVE,
        base_spot_fraction=Range(0.0, 0.5), face_depth=POSITIVE, rail_height=POSITIVE, rail_width=POSITIVE,
    ),
    "g": POSITIVE,
}


def _relations(p: Params, xp):
    """Bounds that tie two leaves together: (name, holds, allowed range in words)."""
    R = p.ball.radius
    return [
        # docs/physics.md section 2: the nose touches the ball above its equator, below its top.
        ("cushion.height", (p.cushion.height >= R) & (p.cushion.height < 2 * R), "in [ball.radius, 2 ball.radius)"),
        ("pin.cm_height", p.pin.cm_height < p.pin.total_height, "below pin.total_height"),
        # docs/physics.md section 5: the cushion's upper face rises (or stays level) from the nose to the rail.
        ("table.rail_height", p.table.rail_height >= p.cushion.height, "at least cushion.height (the nose)"),
        ("table.length", p.table.length > 4 * R, "above 4 ball.radius (room for two balls)"),
        ("table.width", p.table.width > 4 * R, "above 4 ball.radius (room for two balls)"),
    ]


def _leaves(obj, prefix):
    """(path, value, Range) of every ranged leaf of ``obj``: a ``Params`` (prefix "") or one group."""
    if prefix:
        return [(f"{prefix}.{name}", getattr(obj, name), rng) for name, rng in RANGES[prefix].items()]
    out = []
    for group, ranges in RANGES.items():
        if isinstance(ranges, Range):
            out.append((group, getattr(obj, group), ranges))
        else:
            out += _leaves(getattr(obj, group), group)
    return out


_GROUP_NAMES = {BallParams: "ball", CushionParams: "cushion", CueParams: "cue", PinParams: "pin", Table: "table"}
GROUPS = (Params, *_GROUP_NAMES)  # what ``check_params`` and ``replace`` take


def check_capacity(capacity) -> int:
    """The log capacity as an int: TypeError unless an integer, ValueError below 2 events."""
    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)):
        raise TypeError(f"params.capacity must be an integer number of events (at least 2), got {capacity!r}")
    if capacity < 2:
        raise ValueError(f"params.capacity must be at least 2 events, got {capacity}")
    return int(capacity)


def _is_traced(obj) -> bool:
    return any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(obj))


def check_params(params) -> None:
    """Raise ValueError naming the first leaf outside its allowed range (``RANGES``), e.g.
    "params.ball.u_sp_proportionality must be in (0, inf), got 0".

    params: a ``Params`` or one of its groups (``BallParams``, ``Table``, ...); a leaf may carry a
    batch axis (every value is checked). Traced params are skipped: inside ``jit`` the simulation
    flags them instead (``params_are_valid``; ``Status.INVALID_PARAMS``).
    """
    if _is_traced(params):
        return
    whole = isinstance(params, Params)
    if not whole and type(params) not in _GROUP_NAMES:
        raise TypeError(f"params must be a physics.Params (or one of its groups), got {type(params).__name__}")
    if whole:
        check_capacity(params.capacity)
        for name, value, valid in (("ball_ball", params.ball_ball, BALL_BALL_MODELS),
                                   ("cushion_model", params.cushion_model, CUSHION_MODELS)):
            if value not in valid:
                raise ValueError(f"params.{name} must be one of {', '.join(valid)}, got {value!r}")
    concrete = jax.device_get(params)
    for path, value, rng in _leaves(concrete, "" if whole else _GROUP_NAMES[type(params)]):
        value = np.asarray(value)
        if value.dtype.kind not in "fiu":
            raise TypeError(f"params.{path} must be a real number, got dtype {value.dtype}")
        if not np.all(rng.holds(value)):
            raise ValueError(f"params.{path} must be in {rng}, got {_show(value)}")
    if whole:
        for path, holds, words in _relations(concrete, np):
            if not np.all(holds):
                raise ValueError(f"params.{path} must be {words}, got {_show(np.asarray(_get(concrete, path)))}")


def params_are_valid(params: Params) -> jax.Array:
    """() bool, traceable: every leaf in its range and every relation holds (``check_params``)."""
    ok = jnp.asarray(True)
    for _, value, rng in _leaves(params, ""):
        ok = ok & jnp.all(rng.holds(jnp.asarray(value), jnp))
    for _, holds, _ in _relations(params, jnp):
        ok = ok & jnp.all(holds)
    return ok


def replace(obj, **changes):
    """``dataclasses.replace`` for ``Params`` and its groups, checked (``check_params``) when the
    values are concrete: the way to change a parameter of an existing set."""
    new = _pytree.replace(obj, **changes)
    check_params(new)
    return new


def _real(name, value):
    """An override as a NumPy value, or TypeError unless it is a real number (or array of them)."""
    array = np.asarray(value) if not isinstance(value, (str, bytes)) else np.asarray(None)
    if array.dtype.kind not in "fiu":
        raise TypeError(f"parameter {name} must be a real number, got {value!r}")
    return array


def _get(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _show(value):
    """The offending values of a leaf, short."""
    return value.item() if value.ndim == 0 else value.tolist()


def cast_params(params: Params, dtype) -> Params:
    """The same parameters in another float dtype."""
    return jax.tree_util.tree_map(lambda x: jnp.asarray(x, dtype), params)


__all__ = [
    "BallParams", "CushionParams", "CueParams", "PinParams", "Params", "Range", "RANGES", "default_params",
    "check_params", "params_are_valid", "replace", "cast_params", "GROUPS", "POSITIVE", "NON_NEGATIVE", "FRACTION",
]
