"""The cue strike: from cue speed, aim, elevation and tip offsets to the cue ball's velocity and spin.

Model (docs/physics.md section 3): the cue (mass M) hits the ball (mass m, radius R) at a point offset
a (right) and b (up) from the cue's axis, both measured perpendicular to the cue and given as
fractions of R; the impulse J acts along the cue (Leckie & Greenspan 2005; Alciatore TP A-30):

    J = (1 + e_tip) V0 / (1/M + 1/m + (a^2 + b^2) / I),     I = 2/5 m R^2

so a centre hit gives the ball 2 M V0 / (M + m) (TP A-30). The ball gets v = J/m along the cue
and w = (J / I) r x d, with r the contact point and d the cue direction (tilted down by theta).
The vertical part of v drives the ball into the cloth; the slate throws it back up, less than in a
free bounce because the tip still presses the ball down (``launch_speed``), so a steep, firm stroke
makes the ball hop or jump (docs/physics.md section 3), and massé curve comes from the spin's
horizontal components once it slides. Squirt
(TP A-31) turns the ball's direction away from the side of the english:

    squirt = atan( (5/2) a sqrt(1 - a^2) / (1 + m/m_end + (5/2)(1 - a^2)) ).
"""
from __future__ import annotations

import math
from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from physics._pytree import pytree_dataclass


FIELDS = ("V0", "phi", "theta", "a", "b")


@pytree_dataclass
class Shot:
    """A cue strike. Angles in degrees (the field's units), the rest SI.

    Attributes:
      V0: cue speed (m/s), >= 0 (and at most the parameters' ``cue.max_speed``).
      phi: aim direction in the table plane, 0 along +x, counter-clockwise.
      theta: cue elevation above the table, in [0, 90).
      a: side offset, fraction of R, + is right english.
      b: vertical offset, fraction of R, + is follow (top), - is draw.
        sqrt(a^2 + b^2) is at most the parameters' ``cue.max_offset`` (beyond is a miscue).

    Each field is a real number or array. What holds whatever the parameters (finite values,
    V0 >= 0, theta in [0, 90)) is checked when the shot is built from host numbers (Python or
    NumPy); the limits that come from the parameters, and a shot of JAX arrays, are checked by
    ``physics.simulate`` (``check_limits``). (JAX rebuilds the shots in its results at every
    compiled call: reading their device arrays back each time would cost more than an
    environment step.) Inside ``jit`` the simulation flags an invalid shot in
    ``ShotResult.status`` instead. Fields that are not numbers (None, objects) are let through
    here, because JAX rebuilds shots with placeholders (``vmap``'s ``in_axes``); the simulation
    refuses them.
    """

    V0: ArrayLike
    phi: ArrayLike
    theta: ArrayLike = 0.0
    a: ArrayLike = 0.0
    b: ArrayLike = 0.0

    def __post_init__(self):
        values = [getattr(self, name) for name in FIELDS]
        kinds = [_kind(x) for x in values]
        for name, x, kind in zip(FIELDS, values, kinds):
            if isinstance(x, (str, bytes, list, dict)) or kind == "c":
                raise TypeError(f"Shot.{name} must be a real number or array, got {_describe(x)}")
        if all(kind in ("f", "i", "u") for kind in kinds) and not any(isinstance(x, jax.Array) for x in values):
            check_shot(*values)


def map_fields(f, shot: "Shot") -> "Shot":
    """The shot with ``f`` applied to each field, built without ``Shot.__post_init__``'s checks:
    for entry points that have checked the shot already (a second check would cost a single
    shot's entry more than the rest of it)."""
    new = object.__new__(Shot)
    for name in FIELDS:
        object.__setattr__(new, name, f(getattr(shot, name)))
    return new


def _kind(x):
    """The dtype kind of a concrete number or array ("f", "i", "c", ...), None for anything else
    (a tracer, a placeholder). Read from the dtype: a device array is not fetched."""
    if isinstance(x, jax.core.Tracer):
        return None
    if isinstance(x, (np.ndarray, np.generic, jax.Array)):
        return np.dtype(x.dtype).kind
    if isinstance(x, (bool, int, float, complex)):
        return np.asarray(x).dtype.kind
    return None


def _describe(x) -> str:
    return f"{x!r} ({type(x).__name__})" if not hasattr(x, "dtype") else f"an array of dtype {x.dtype}"


def check_fields(shot: "Shot", shape=()) -> None:
    """TypeError unless every field is a real number or array (traced ones included); ValueError
    unless each has shape () or ``shape``. The simulation's entry check."""
    for name in FIELDS:
        x = getattr(shot, name)
        dtype = getattr(x, "dtype", None)
        if dtype is None and isinstance(x, (int, float)) and not isinstance(x, bool):
            continue
        if dtype is None or np.dtype(dtype).kind not in "fiu":
            raise TypeError(f"Shot.{name} must be a real number or array (int or float), got {_describe(x)}")
        if np.shape(x) not in ((), tuple(shape)):
            allowed = "()" if tuple(shape) == () else f"() or {tuple(shape)}"
            raise ValueError(f"Shot.{name} must have shape {allowed}, got {np.shape(x)}")


def check_shot(V0, phi, theta, a, b, max_speed=None, max_offset=None) -> None:
    """Raise ValueError naming the allowed range for any strike parameter outside it: finite,
    V0 >= 0, theta in [0, 90); and, when given, V0 <= max_speed and sqrt(a^2 + b^2) <= max_offset
    (each tolerant of the rounding of the limit to the value's own dtype). This runs on every
    simulated shot, so a shot that passes is checked in one pass (``_all_within``); the checks one
    by one (``_name_the_failure``) run only to say what failed."""
    arrays = {"V0": V0, "phi": phi, "theta": theta, "a": a, "b": b}
    values = {name: np.asarray(x) for name, x in arrays.items()}
    if not _all_within(values, max_speed, max_offset):
        _name_the_failure(arrays, values, max_speed, max_offset)


def _name_the_failure(arrays, values, max_speed, max_offset) -> None:
    """``check_shot``'s checks one by one: ValueError naming the first that fails (nothing when
    all pass). arrays: the fields as given, by name; values: the same as NumPy arrays."""
    V0, theta, a, b = (arrays[name] for name in ("V0", "theta", "a", "b"))
    for name, x in values.items():
        if not np.isfinite(x.astype(float, copy=False)).all():
            raise ValueError(f"shot parameter {name} must be finite, got {arrays[name]}")
    if (values["V0"] < 0).any():
        raise ValueError(f"cue speed V0 must be in [0, inf) m/s, got {V0}")
    if (values["theta"] < 0).any() or (values["theta"] >= 90).any():
        raise ValueError(f"cue elevation theta must be in [0, 90) degrees, got {theta}")
    V0_ = values["V0"]
    if max_speed is not None and not np.asarray(_speed_ok(V0_, np.asarray(max_speed), V0_.dtype)).all():
        raise ValueError(f"cue speed V0 must be in [0, {float(max_speed):g}] m/s (params.cue.max_speed), got {V0}")
    a_, b_ = values["a"], values["b"]
    limit = None if max_offset is None else np.asarray(max_offset)
    if limit is not None and not np.asarray(_offset_ok(a_, b_, limit, (a_.dtype, b_.dtype))).all():
        raise ValueError(
            f"tip offset sqrt(a^2 + b^2) must be at most {float(max_offset):g} R (params.cue.max_offset; "
            f"beyond is a miscue), got a={a}, b={b}"
        )


def _all_within(values: dict, max_speed, max_offset) -> bool:
    """Every check of ``check_shot`` in one pass over ``values`` (the fields as NumPy arrays, by
    name), when they share a float dtype and a shape (the usual shot): True when all pass. False
    sends ``check_shot`` through its checks one by one, which name what failed (or pass a shot of
    mixed dtypes)."""
    V0, phi, theta, a, b = (values[name] for name in FIELDS)
    dtype, shape = V0.dtype, V0.shape
    if dtype.kind != "f" or any(x.dtype != dtype or x.shape != shape for x in (phi, theta, a, b)):
        return False
    limits = [None if x is None else np.asarray(x) for x in (max_speed, max_offset)]
    if dtype == np.float64 and V0.size == 1 and all(x is None or x.size == 1 for x in limits):
        # One shot: the same float64 arithmetic on Python numbers, a tenth of the cost of NumPy's.
        speed, offset = (None if x is None else x.item() for x in limits)
        fields = (V0.item(), phi.item(), theta.item(), a.item(), b.item())
        return bool(_within(*fields, speed, offset, dtype, math.isfinite))
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(_within(V0, phi, theta, a, b, limits[0], limits[1], dtype, np.isfinite).all())


def _within(V0, phi, theta, a, b, max_speed, max_offset, dtype, isfinite):
    """``check_shot``'s conditions joined with ``&``, on Python numbers or NumPy arrays alike: a
    sum is finite only when every field is (inf or NaN anywhere, or an overflow, makes it not)."""
    ok = isfinite(V0 + phi + theta + a + b) & (V0 >= 0) & (theta >= 0) & (theta < 90)
    if max_speed is not None:
        ok = ok & _speed_ok(V0, max_speed, dtype)
    if max_offset is not None:
        ok = ok & _offset_ok(a, b, max_offset, (dtype, dtype))
    return ok


def check_limits(shot: "Shot", params) -> None:
    """``check_shot`` against the limits of ``params`` (max_speed, max_offset), for concrete shots
    and parameters; nothing when either is traced (the simulation flags it then)."""
    values = [getattr(shot, name) for name in FIELDS]
    limits = (params.cue.max_speed, params.cue.max_offset)
    if not any(isinstance(x, jax.core.Tracer) for x in values + list(limits)):
        check_shot(shot.V0, shot.phi, shot.theta, shot.a, shot.b, max_speed=limits[0], max_offset=limits[1])


def _slack(*dtypes) -> float:
    """1 + the relative rounding of the coarsest of ``dtypes`` (float64 for integers): a value
    equal to a limit rounded to the value's own dtype still meets the limit."""
    return max(_dtype_slack(np.dtype(d)) for d in dtypes)


@lru_cache(maxsize=None)
def _dtype_slack(dtype: np.dtype) -> float:
    return 1.0 + float(np.finfo(dtype if dtype.kind == "f" else np.float64).eps)


def _speed_ok(V0, limit, dtype):
    return V0 <= limit * _slack(dtype)


def _offset_ok(a, b, limit, dtypes):
    return a * a + b * b <= (limit * _slack(*dtypes)) ** 2


def shot_is_valid(shot: Shot, params) -> jax.Array:
    """() bool: the traced counterpart of ``check_shot`` with the limits of ``params`` (tolerant
    of the rounding of the shot's own dtype, as ``check_shot``)."""
    raw = [jnp.asarray(getattr(shot, name)) for name in FIELDS]
    V0, phi, theta, a, b = (x.astype(params.dtype) for x in raw)
    return (
        jnp.all(jnp.isfinite(jnp.stack([V0, phi, theta, a, b])))
        & (V0 >= 0)
        & _speed_ok(V0, params.cue.max_speed, raw[0].dtype)
        & (theta >= 0)
        & (theta < 90)
        & _offset_ok(a, b, params.cue.max_offset, (raw[3].dtype, raw[4].dtype))
    )


def squirt_angle(a, params):
    """Cue-ball deflection (radians) for side offset a (fraction of R); odd in a (TP A-31)."""
    s = 1.0 - a**2
    return jnp.arctan(2.5 * a * jnp.sqrt(s) / (1.0 + params.cue.end_mass_ratio + 2.5 * s))


def strike(shot: Shot, params):
    """The cue ball just after the strike: velocity across the table (2,), angular velocity (3,),
    and the speed (>= 0) with which it is driven down into the cloth."""
    dtype = params.dtype
    V0, a, b = (jnp.asarray(x, dtype) for x in (shot.V0, shot.a, shot.b))
    phi = jnp.deg2rad(jnp.asarray(shot.phi, dtype))
    theta = jnp.deg2rad(jnp.asarray(shot.theta, dtype))
    m, R, M = params.ball.mass, params.ball.radius, params.cue.mass
    inertia = params.ball.inertia

    # Impulse along the cue (TP A-30): offsets in metres enter through |r x d|^2 = (a^2 + b^2) R^2.
    J = (1.0 + params.cue.tip_restitution) * V0 / (1.0 / M + 1.0 / m + (a**2 + b**2) * R**2 / inertia)

    # Frame: e1 = aim (horizontal), e2 = left of aim, e3 = up. d = cos(theta) e1 - sin(theta) e3.
    # With the contact point r = a R (-e2) + b R (sin(theta) e1 + cos(theta) e3) - c d,
    # r x d = R (a sin(theta) e1 + b e2 + a cos(theta) e3).
    e1 = jnp.stack([jnp.cos(phi), jnp.sin(phi)])
    e2 = jnp.stack([-jnp.sin(phi), jnp.cos(phi)])
    spin_xy = (J * R / inertia) * (a * jnp.sin(theta) * e1 + b * e2)
    spin_z = (J * R / inertia) * a * jnp.cos(theta)
    w = jnp.concatenate([spin_xy, spin_z[None]])

    # Horizontal velocity along the aim, turned by squirt (right english squirts left, TP A-31).
    direction = phi + squirt_angle(a, params)
    v = (J / m) * jnp.cos(theta) * jnp.stack([jnp.cos(direction), jnp.sin(direction)])
    return v, w, (J / m) * jnp.sin(theta)


def launch_speed(down, params):
    """The upward speed with which the slate throws back a cue ball that the strike drives down into
    the cloth at ``down`` (m/s): e_strike sqrt(down^2 - strike_press^2), and 0 below strike_press
    (docs/physics.md section 3).

    The squeeze is no free bounce (e_table): it happens while the tip is still on the ball and the
    stroke still presses it down, so the slate takes that part of the drive as a reaction, and the
    cloth is crushed; the work 1/2 m strike_press^2 is not returned. A slightly raised cue therefore
    leaves the ball on the cloth, and only a steep, firm stroke makes it jump.
    """
    lift = down * down - params.ball.strike_press ** 2
    above = lift > 0  # (the square root only there, so that its derivative stays finite)
    return jnp.where(above, params.ball.e_strike * jnp.sqrt(jnp.where(above, lift, 1.0)), 0.0)
