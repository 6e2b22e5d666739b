"""Physical parameters as pytrees (docs/physics.md section 6), and ``default_params``.

Every number is a leaf, so experiments can ``vmap`` over any of them (cushion restitution, say).
Model choices (which ball-ball and cushion model) and the log capacity are static metadata.
Derived values are properties, so they never go stale when a base value is replaced.
"""
from __future__ import annotations

import jax.numpy as jnp

from physics._pytree import pytree_dataclass, static_field
from physics.collide.registry import BALL_BALL_MODELS, CUSHION_MODELS  # the registries: name -> model
from physics.table import Table, make_table


@pytree_dataclass
class BallParams:
    """Ball and cloth.

    Attributes:
      mass: kg (UMB 205-220 g).  radius: m (61.5 mm ball).
      u_s: sliding friction.  u_r: rolling resistance.
      u_sp_proportionality: spin friction per metre of radius (pooltool's 0.444): u_sp = it * R.
      e_b: ball-ball restitution.
      e_table: restitution of a ball bouncing on the cloth and slate (docs/physics.md section 1).
      throw_a, throw_b, throw_c: ball-ball friction against slip speed v (TP A-14 fit),
        u_b(v) = a + b exp(-c v).
    """

    mass: jnp.ndarray
    radius: jnp.ndarray
    u_s: jnp.ndarray
    u_r: jnp.ndarray
    u_sp_proportionality: jnp.ndarray
    e_b: jnp.ndarray
    e_table: jnp.ndarray
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
    """

    e_c: jnp.ndarray
    f_c: jnp.ndarray
    height: jnp.ndarray

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
      ball_ball: "frictional" (TP A-14 throw) or "frictionless".
      cushion_model: "han2005" (closed form) or "mathavan2010" (integrated impact).
      capacity: events the log can hold.
    """

    ball: BallParams
    cushion: CushionParams
    cue: CueParams
    pin: PinParams
    table: Table
    g: jnp.ndarray
    ball_ball: str = static_field(default="frictional")
    cushion_model: str = static_field(default="han2005")
    capacity: int = static_field(default=128)

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
        mass=0.210, radius=0.03075, u_s=0.2, u_r=0.005, u_sp_proportionality=0.444, e_b=0.95,
        e_table=0.5, throw_a=9.951e-3, throw_b=0.108, throw_c=1.088,
    ),
    CushionParams: dict(e_c=0.85, f_c=0.15, height=0.037),
    PinParams: dict(
        mass=0.015, contact_radius=0.010, total_height=0.091, base_radius=0.007, cm_height=0.033,
        restitution=0.6,
    ),
    CueParams: dict(
        mass=0.567, tip_radius=0.0106, end_mass_ratio=20.0, tip_restitution=1.0,
        max_offset=0.6, max_speed=10.0,
    ),
}
_TABLE_FIELDS = ("length", "width", "head_string_offset", "spot_spacing", "base_spot_fraction")
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


def default_params(table: str = "match", **overrides) -> Params:
    """Default parameters for a table ("match" or "hungarian"), with named overrides.

    Overrides: ``ball_ball`` ("frictional" | "frictionless"), ``cushion`` ("han2005" |
    "mathavan2010"), ``capacity`` (events in the log), ``dtype`` ("float64" | "float32"), ``g``,
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
    capacity = int(overrides.pop("capacity", 128))
    if capacity < 2:
        raise ValueError(f"capacity must be at least 2 events, not {capacity}")
    table_sizes = {k: overrides.pop(k) for k in _TABLE_FIELDS if k in overrides}
    g = overrides.pop("g", 9.81)

    groups = {}
    for group, values in _DEFAULTS.items():
        fields = {}
        for name, default in values.items():
            fields[name] = overrides.pop(_override_name(group, name), default)
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


def check_params(params: Params) -> None:
    """Raise ValueError for physically meaningless concrete parameters (skipped under tracing)."""
    import jax
    import numpy as np

    leaves = jax.tree_util.tree_leaves_with_path(params)
    for path, leaf in leaves:
        if isinstance(leaf, jax.core.Tracer):
            return
        value = np.asarray(leaf)
        name = jax.tree_util.keystr(path)
        if not np.all(np.isfinite(value)):
            raise ValueError(f"parameter {name} must be finite, got {value}")
    b, c, t = params.ball, params.cushion, params.table
    checks = [
        (np.all(np.asarray(b.mass) > 0), "ball mass must be > 0"),
        (np.all(np.asarray(b.radius) > 0), "ball radius must be > 0"),
        (np.all(np.asarray(b.u_s) > 0), "u_s must be > 0"),
        (np.all(np.asarray(b.u_r) > 0), "u_r must be > 0"),
        (np.all(np.asarray(b.u_sp_proportionality) >= 0), "u_sp_proportionality must be >= 0"),
        (np.all((np.asarray(b.e_b) >= 0) & (np.asarray(b.e_b) <= 1)), "e_b must be in [0, 1]"),
        (np.all((np.asarray(b.e_table) >= 0) & (np.asarray(b.e_table) < 1)), "e_table must be in [0, 1)"),
        (np.all(np.asarray(params.pin.mass) > 0), "pin_mass must be > 0"),
        (np.all(np.asarray(params.pin.contact_radius) > 0), "pin_contact_radius must be > 0"),
        (np.all((np.asarray(params.pin.restitution) >= 0) & (np.asarray(params.pin.restitution) <= 1)), "pin_restitution must be in [0, 1]"),
        (np.all((np.asarray(params.pin.cm_height) > 0) & (np.asarray(params.pin.cm_height) < np.asarray(params.pin.total_height))), "pin_cm_height must be in (0, pin_total_height)"),
        (np.all((np.asarray(c.e_c) >= 0) & (np.asarray(c.e_c) <= 1)), "e_c must be in [0, 1]"),
        (np.all(np.asarray(c.f_c) >= 0), "f_c must be >= 0"),
        (
            np.all((np.asarray(c.height) >= np.asarray(b.radius)) & (np.asarray(c.height) < 2 * np.asarray(b.radius))),
            "cushion height must be in [R, 2R) so the nose is above the ball's equator",
        ),
        (np.all(np.asarray(t.length) > 4 * np.asarray(b.radius)), "table length too small for the balls"),
        (np.all(np.asarray(t.width) > 4 * np.asarray(b.radius)), "table width too small for the balls"),
        (np.all(np.asarray(params.g) > 0), "g must be > 0"),
        (np.all(np.asarray(params.cue.mass) > 0), "cue mass must be > 0"),
        (np.all((np.asarray(params.cue.max_offset) > 0) & (np.asarray(params.cue.max_offset) < 1)), "max_offset must be in (0, 1)"),
    ]
    for ok, message in checks:
        if not ok:
            raise ValueError(message)


def cast_params(params: Params, dtype) -> Params:
    """The same parameters in another float dtype."""
    import jax

    return jax.tree_util.tree_map(lambda x: jnp.asarray(x, dtype), params)


__all__ = [
    "BallParams", "CushionParams", "CueParams", "PinParams", "Params", "default_params", "check_params",
    "cast_params",
]
