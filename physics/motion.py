"""Ball motion between events, in closed form (docs/physics.md section 1).

Sources: Leckie & Greenspan (2005) and Alciatore's technical proofs; the same equations as the
field's reference simulators. Between events every ball's centre moves on a parabola,
r(t) = r0 + v0 t + a t^2 / 2, with a constant acceleration fixed by its motion state:

==========  ==========================================  =======================================
state       acceleration                                lasts until (the state's horizon)
==========  ==========================================  =======================================
SLIDING     -u_s g u_hat (u: contact-point slip)        slip vanishes: t = 2 |u| / (7 u_s g)
ROLLING     -u_r(|v|) g v_hat                           ball stops: t = |v| / (u_r g), or a fast
                                                        ball slows to roll_split
SPINNING    0 (only vertical-axis spin left)            spin stops: t = |w_z| / (5 u_sp g / 2R)
AIRBORNE    0 across the table, -g upwards              it lands: z(t) = 0
STATIONARY  0                                           never
OFF_TABLE   0 (out of play)                             never
==========  ==========================================  =======================================

A ball in the air keeps its spin (nothing touches it); on landing it bounces with the cloth's
restitution e_table, and once a bounce would lift it less than ``HOP_HEIGHT`` it stays down and
slides (the friction of the landing impacts themselves is neglected).

Rolling resistance rises with speed on real cloth: u_r(|v|) is u_r + u_r_step above
``roll_split`` and u_r below it, so a fast rolling ball first slows to ``roll_split`` (an event,
ROLLING_TO_SLOW_ROLLING) and rolls on at the lower resistance. With u_r_step = 0 there is one
resistance and no such event.
"""
from __future__ import annotations

import jax.numpy as jnp

from physics._pytree import pytree_dataclass
from physics.events import Motion

# A bounce that would lift the ball less than this (m) leaves it on the cloth.
HOP_HEIGHT = 1e-4


@pytree_dataclass
class Balls:
    """The state of every ball between events.

    Attributes:
      r: (..., n, 2) centres on the table (m).  v: (..., n, 2) velocities (m/s).
      w: (..., n, 3) angular velocities (rad/s).
      z: (..., n) height of the centre above its resting height (m), > 0 only in the air.
      vz: (..., n) vertical velocity (m/s).
      motion: (..., n) int8 ``Motion``.
    """

    r: jnp.ndarray
    v: jnp.ndarray
    w: jnp.ndarray
    z: jnp.ndarray
    vz: jnp.ndarray
    motion: jnp.ndarray

    @classmethod
    def at_rest(cls, positions):
        n = positions.shape[-2]
        zeros = jnp.zeros(positions.shape[:-1], positions.dtype)
        return cls(
            r=positions, v=jnp.zeros_like(positions), w=jnp.zeros(positions.shape[:-1] + (3,), positions.dtype),
            z=zeros, vz=zeros, motion=jnp.zeros(positions.shape[:-2] + (n,), jnp.int8),
        )

    def select(self, condition, other: "Balls") -> "Balls":
        """self where condition holds, else other: condition is (..., n) per ball, or () for all."""
        def pick(a, b):
            c = condition.reshape(condition.shape + (1,) * (a.ndim - condition.ndim))
            return jnp.where(c, a, b)

        return Balls(*(pick(a, b) for a, b in zip(self._fields(), other._fields())))

    def _fields(self):
        return (self.r, self.v, self.w, self.z, self.vz, self.motion)


def speed_tolerance(dtype):
    """Speeds below this (m/s) are zero: 1 nm/s in float64, 10 um/s in float32."""
    return 1e-9 if jnp.dtype(dtype) == jnp.float64 else 1e-5


def layout_tolerance(dtype):
    """Overlaps of balls, and reaches past a cushion, below this (m) are rounding, not a bad
    layout: 0.1 um in float64; 10 um in float32, whose spacing near 3 m is 0.24 um and whose
    event times and contact points carry a few tens of such units."""
    return 1e-7 if jnp.dtype(dtype) == jnp.float64 else 1e-5


def hop_speed(params):
    """The smallest take-off speed that counts as a hop (reaches ``HOP_HEIGHT``)."""
    return jnp.sqrt(2.0 * params.g * HOP_HEIGHT)


def slip(v, w, radius):
    """Velocity of the ball's contact point with the cloth, v + w x (-R z): (..., 2)."""
    return jnp.stack([v[..., 0] - radius * w[..., 1], v[..., 1] + radius * w[..., 0]], axis=-1)


def _norm(x):
    return jnp.sqrt(jnp.sum(x * x, axis=-1))


def _rolling_spin(v, radius):
    """(..., 2) the horizontal spin of a ball rolling without slip at velocity v (..., 2)."""
    return jnp.stack([-v[..., 1], v[..., 0]], axis=-1) / radius


def _unit(x, tol):
    n = _norm(x)
    safe = jnp.where(n > tol, n, 1.0)
    return jnp.where((n > tol)[..., None], x / safe[..., None], 0.0)


def classify(v, w, params):
    """The motion state on the cloth that velocities and spins imply: (...,) int8."""
    R = params.ball.radius
    tol = speed_tolerance(v.dtype)
    sliding = _norm(slip(v, w, R)) > tol
    rolling = _norm(v) > tol
    spinning = jnp.abs(w[..., 2]) * R > tol
    return jnp.select(
        [sliding, rolling, spinning],
        [Motion.SLIDING, Motion.ROLLING, Motion.SPINNING],
        Motion.STATIONARY,
    ).astype(jnp.int8)


def translating(motion):
    """Balls whose centre moves: sliding, rolling or in the air."""
    return (motion == Motion.SLIDING) | (motion == Motion.ROLLING) | (motion == Motion.AIRBORNE)


def on_cloth(motion):
    """Balls in motion on the cloth: sliding, rolling or spinning in place."""
    return (motion == Motion.SLIDING) | (motion == Motion.ROLLING) | (motion == Motion.SPINNING)


def rolls_fast(b: Balls, params):
    """(..., n): rolling balls above ``roll_split`` that meet the higher resistance."""
    above = _norm(b.v) > params.ball.roll_split + speed_tolerance(b.v.dtype)
    return (b.motion == Motion.ROLLING) & above & (params.ball.u_r_step > 0)


def rolling_resistance(b: Balls, params, fast=None):
    """(..., n): each ball's rolling resistance u_r(|v|); ``fast``: ``rolls_fast`` if already known."""
    fast = rolls_fast(b, params) if fast is None else fast
    return params.ball.u_r + jnp.where(fast, params.ball.u_r_step, 0.0)


def acceleration(b: Balls, params):
    """Constant acceleration of each ball's centre across the table: (..., n, 2)."""
    tol = speed_tolerance(b.v.dtype)
    g = params.g
    a_slide = -params.ball.u_s * g * _unit(slip(b.v, b.w, params.ball.radius), tol)
    a_roll = -(rolling_resistance(b, params) * g)[..., None] * _unit(b.v, tol)
    m = b.motion[..., None]
    return jnp.where(m == Motion.SLIDING, a_slide, jnp.where(m == Motion.ROLLING, a_roll, 0.0))


def vertical_acceleration(b: Balls, params):
    """(..., n): -g in the air, else 0."""
    return jnp.where(b.motion == Motion.AIRBORNE, -params.g, 0.0)


def horizon(b: Balls, params):
    """Time until each ball's motion state ends (inf for a ball at rest or off the table)."""
    g = params.g
    R = params.ball.radius
    t_slide = 2.0 * _norm(slip(b.v, b.w, R)) / (7.0 * params.ball.u_s * g)
    speed = _norm(b.v)
    fast = rolls_fast(b, params)
    t_roll = jnp.where(fast, speed - params.ball.roll_split, speed) / (rolling_resistance(b, params, fast) * g)
    t_spin = jnp.abs(b.w[..., 2]) / params.spin_decel
    t_land = (b.vz + jnp.sqrt(jnp.maximum(b.vz**2 + 2.0 * g * b.z, 0.0))) / g
    m = b.motion
    return jnp.select(
        [m == Motion.SLIDING, m == Motion.ROLLING, m == Motion.SPINNING, m == Motion.AIRBORNE],
        [t_slide, t_roll, t_spin, t_land],
        jnp.inf,
    )


def evolve(b: Balls, dt, params) -> Balls:
    """Advance every ball by dt (no later than its horizon).

    dt broadcasts against the leading axes of ``b.r`` without the last two (a scalar per shot).
    """
    dt = jnp.asarray(dt, b.r.dtype)
    dt1 = dt[..., None]
    dt2 = dt[..., None, None]
    R = params.ball.radius
    tol = speed_tolerance(b.r.dtype)
    a = acceleration(b, params)
    r = b.r + b.v * dt2 + 0.5 * a * dt2**2
    v = b.v + a * dt2

    m = b.motion[..., None]
    # Sliding: friction at the contact point turns the horizontal spin (section 1):
    # dw_x/dt = -k u_y, dw_y/dt = +k u_x with k = 5 u_s g / (2R).
    u_hat = _unit(slip(b.v, b.w, R), tol)
    k = 2.5 * params.ball.u_s * params.g / R
    w_slide = b.w[..., :2] + k * dt2 * jnp.stack([-u_hat[..., 1], u_hat[..., 0]], axis=-1)
    # Rolling: the spin follows the velocity (rolling without slip).
    w_roll = _rolling_spin(v, R)
    w_xy = jnp.where(m == Motion.SLIDING, w_slide, jnp.where(m == Motion.ROLLING, w_roll, b.w[..., :2]))
    # Vertical-axis spin decays linearly on the cloth, and never changes sign.
    wz = b.w[..., 2]
    wz = jnp.where(on_cloth(b.motion), jnp.sign(wz) * jnp.maximum(jnp.abs(wz) - params.spin_decel * dt1, 0.0), wz)
    # In the air: ballistic height.
    air = b.motion == Motion.AIRBORNE
    z = jnp.where(air, jnp.maximum(b.z + b.vz * dt1 - 0.5 * params.g * dt1**2, 0.0), b.z)
    vz = jnp.where(air, b.vz - params.g * dt1, b.vz)
    moves = translating(b.motion)[..., None]
    return Balls(
        r=jnp.where(moves, r, b.r), v=jnp.where(moves, v, b.v),
        w=jnp.concatenate([w_xy, wz[..., None]], axis=-1), z=z, vz=vz, motion=b.motion,
    )


def end_of_state(b: Balls, params) -> Balls:
    """One ball (fields without the ball axis) whose state ends now, at its horizon.

    Sliding ends in rolling (the rolling constraint is imposed exactly, removing round-off);
    rolling fast ends in rolling at ``roll_split`` (set exactly); rolling ends at rest, or
    spinning if vertical-axis spin is left; spinning ends at rest; a ball in the air lands: it
    bounces up again (e_table) or, below a hop, stays on the cloth.
    """
    R = params.ball.radius
    m = b.motion
    # A rolling ball whose state ends well above rest was rolling fast and reached the split.
    speed = _norm(b.v)
    slows = (m == Motion.ROLLING) & (params.ball.u_r_step > 0) & (speed > 0.5 * params.ball.roll_split)
    v_split = b.v * (params.ball.roll_split / jnp.where(slows, speed, 1.0))
    w_roll = jnp.concatenate([_rolling_spin(b.v, R), b.w[2:]])
    w_split = jnp.concatenate([_rolling_spin(v_split, R), b.w[2:]])
    stop_w = b.w.at[:2].set(0.0)
    bounce = params.ball.e_table * jnp.abs(b.vz)
    hops = (m == Motion.AIRBORNE) & (bounce >= hop_speed(params))
    v = jnp.where((m == Motion.SLIDING) | (m == Motion.AIRBORNE), b.v, jnp.where(slows, v_split, 0.0))
    w = jnp.where(
        m == Motion.SLIDING, w_roll,
        jnp.where(slows, w_split, jnp.where(m == Motion.ROLLING, stop_w, jnp.where(m == Motion.AIRBORNE, b.w, 0.0))),
    )
    motion = jnp.where(hops, Motion.AIRBORNE, classify(v, w, params)).astype(jnp.int8)
    return Balls(r=b.r, v=v, w=w, z=jnp.zeros_like(b.z), vz=jnp.where(hops, bounce, 0.0), motion=motion)


__all__ = [
    "Balls", "classify", "evolve", "end_of_state", "horizon", "on_cloth", "acceleration", "layout_tolerance",
    "rolling_resistance", "rolls_fast", "speed_tolerance",
]
