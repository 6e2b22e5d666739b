"""The action: a vector in [-1, 1]^9, mapped to a cue strike and to the choices some positions offer.

=====  ==========  ==========================================================================
index  name        meaning (each component in [-1, 1]; ``params`` hold the ranges)
=====  ==========  ==========================================================================
0      aim         phi, the aim direction: -1..1 -> -180..180 deg, 0 along +x (towards the TOP
                   cushion), counter-clockwise (towards the LEFT cushion)
1      speed       V0, the cue speed: -1..1 -> v_min..v_max (default 0.5..8 m/s), linear
2      elevation   theta, the cue elevation: level (0 deg) up to RAISED_FROM (0.8), then rising
                   linearly to theta_max at 1 (default 80 deg: jumps and massé)
3, 4   tip         (u, v) on the square mapped onto the disc of radius offset_max (default 0.5 R)
                   by radial stretching: (a, b) = offset_max * max(|u|, |v|) * (u, v) / |(u, v)|;
                   a is the side offset (+ right english), b the height (+ follow, - draw)
5      place       ball in hand (H-6.4): the red on the cross axis at -1..1 -> 0..1 of the way
                   from the RIGHT (y = 0) to the LEFT cushion, moved to the nearest legal place.
                   Used only when the observation offers ball in hand
6      base_spot   H-7.3: < 0 the bottom base spot, >= 0 the top one, for the jumped target ball.
                   Used only when the observation offers the base-spot choice
7      respot      C-12.7 a, C-13.3 a: > 0 has the frozen balls re-spotted. Used only when the
                   observation offers the re-spot
8      side        C-2.1 c: in the starting position, < 0 the right head-string spot for the
                   shooter's ball, >= 0 the left one. Used only when the observation offers it
=====  ==========  ==========================================================================

The centre of the box, the all-zeros action, is a plain shot: a level cue, medium speed (4.25 m/s),
the centre of the ball, aimed along +x. Uniform random actions play a raised cue one time in ten
(elevation components above 0.8, a tenth of the range), as a player does. ``ACTION_VERSION``
names this mapping; a saved policy trained on another one is refused when loaded.

Components that do not apply to the position are ignored. Inside ``jit`` nothing can raise, so
the functional step replaces NaN by 0 and clips to [-1, 1]; the Python adapters raise ValueError
instead (``check_action``). The choices are applied before the strike, in the order base spot,
ball in hand, re-spot, side (each a no-op when not offered: ``rules.choose_*``).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import physics
import rules
from physics import execution

NAMES = ("aim", "speed", "elevation", "tip_u", "tip_v", "place", "base_spot", "respot", "side")
N_ACTIONS = len(NAMES)
LOW, HIGH = -1.0, 1.0
RAISED_FROM = 0.8  # the elevation component above which the cue is raised
# 1: the elevation spanned the whole component (-1..1 -> 0..theta_max); 2: level up to RAISED_FROM.
ACTION_VERSION = 2


def check_shape(action, batch: int | None = None):
    """ValueError unless ``action`` has shape (9,) (or (batch, 9)), TypeError unless it holds real
    numbers. Shapes and dtypes are static, so this raises even while ``jit`` traces."""
    shape = (N_ACTIONS,) if batch is None else (batch, N_ACTIONS)
    dtype = np.dtype(action.dtype) if hasattr(action, "dtype") else np.asarray(action).dtype
    if dtype.kind not in "fiu":
        raise TypeError(f"action must be real numbers in [{LOW}, {HIGH}], got dtype {dtype}")
    if np.shape(action) != shape:
        raise ValueError(f"action must have shape {shape} (components {', '.join(NAMES)}), got {np.shape(action)}")


def sanitize(action):
    """(9,) the traced action with NaN replaced by 0 and every component clipped to [-1, 1]
    (ValueError for another shape: ``check_shape``)."""
    check_shape(action)
    action = jnp.asarray(action)
    action = jnp.where(jnp.isfinite(action), action, jnp.where(jnp.isnan(action), 0.0, jnp.sign(action)))
    return jnp.clip(action, LOW, HIGH)


def tip_offsets(u, v, radius):
    """(a, b): the square [-1, 1]^2 onto the disc of ``radius`` by radial stretching (the square's
    boundary goes onto the circle, the centre stays at the centre)."""
    norm = jnp.sqrt(u * u + v * v)
    scale = jnp.where(norm > 0, jnp.maximum(jnp.abs(u), jnp.abs(v)) / jnp.where(norm > 0, norm, 1.0), 0.0)
    return radius * scale * u, radius * scale * v


def elevation(component, theta_max):
    """The cue elevation (deg) of the elevation component: 0 up to ``RAISED_FROM``, then linear
    up to ``theta_max`` at 1."""
    return theta_max * jnp.clip((component - RAISED_FROM) / (HIGH - RAISED_FROM), 0.0, 1.0)


def strike_of(x, v_min, v_max, theta_max, offset_max) -> physics.Shot:
    """The strike of the action's first five components ``x`` (aim, speed, elevation, tip u, v), in
    ``x``'s dtype: the one mapping the environments and ``agents.RandomAgent`` share."""
    a, b = tip_offsets(x[3], x[4], offset_max)
    return physics.Shot(
        V0=v_min + (x[1] + 1.0) / 2.0 * (v_max - v_min),
        phi=180.0 * x[0],
        theta=elevation(x[2], theta_max),
        a=a,
        b=b,
    )


def to_shot(action, params) -> physics.Shot:
    """The strike asked by a sanitized action (no noise), in the physics dtype."""
    x = jnp.asarray(action, params.physics.dtype)
    return strike_of(x, params.v_min, params.v_max, params.theta_max, params.offset_max)


def from_shot(shot: physics.Shot, params, game=None):
    """(9,) float32: the action that asks for ``shot`` (the inverse of ``to_shot``), its strike
    clipped into the action's ranges (speed, elevation, tip disc). Lets any planner of ``agents``
    drive an environment. The choices are 0, or with ``game`` (the ``rules.GameState`` the shot
    was planned from) those that leave its layout as it lies (``kept_choices``)."""
    dtype = params.physics.dtype
    V0, phi, theta, a, b = (jnp.asarray(getattr(shot, f), dtype) for f in ("V0", "phi", "theta", "a", "b"))
    aim = (phi - 360.0 * jnp.ceil((phi - 180.0) / 360.0)) / 180.0  # phi wrapped to (-180, 180]
    speed = 2.0 * (V0 - params.v_min) / (params.v_max - params.v_min) - 1.0
    raised = RAISED_FROM + (HIGH - RAISED_FROM) * theta / params.theta_max
    lift = jnp.where(theta > 0, raised, 0.0)  # a level cue: the centre of the component
    # the disc back onto the square: (u, v) = (a, b) * (|(a, b)| / radius) / max(|a|, |b|)
    r = jnp.sqrt(a * a + b * b)
    scale = jnp.minimum(r, params.offset_max) / params.offset_max
    m = jnp.maximum(jnp.abs(a), jnp.abs(b))
    u = jnp.where(m > 0, a * scale / jnp.where(m > 0, m, 1.0), 0.0)
    v = jnp.where(m > 0, b * scale / jnp.where(m > 0, m, 1.0), 0.0)
    choices = jnp.zeros((4,), dtype) if game is None else kept_choices(game, params).astype(dtype)
    action = jnp.concatenate([jnp.stack([aim, speed, lift, u, v]), choices])
    return jnp.clip(action, LOW, HIGH).astype(jnp.float32)


def kept_choices(game, params):
    """(4,) the choice components (place, base spot, re-spot, side) that leave the layout of
    ``game`` as it lies, so that a shot planned from it is played from it: the red in hand stays
    where the referee put it (H-6.4), the jumped ball on its base spot (H-7.3), frozen balls
    where they are (C-12.7 a, C-13.3 a: declined), the shooter's ball on its side spot (C-2.1 c).
    0 where a choice is not offered."""
    phys = params.physics
    table, reach = phys.table, phys.cushion_reach
    cue = game.positions[game.cue_ball]
    place = 2.0 * (cue[1] - reach) / (table.width - 2.0 * reach) - 1.0  # the inverse of the place component

    def nearer(point, first, second):  # +1 nearer the second point, else -1
        return jnp.where(jnp.sum((point - second) ** 2) < jnp.sum((point - first) ** 2), 1.0, -1.0)

    spots, base = table.head_string_spots, table.base_spots
    spotted = game.positions[jnp.maximum(game.base_spot_ball, 0)]
    zero = jnp.zeros_like(place)
    return jnp.stack([
        jnp.where(game.ball_in_hand, place, zero),
        jnp.where(game.base_spot_ball >= 0, nearer(spotted, base[0], base[1]), zero),
        zero,
        jnp.where(game.may_choose_side, nearer(cue, spots[0], spots[2]), zero),
    ])


def add_noise(shot: physics.Shot, key, params) -> physics.Shot:
    """The shot as executed: ``physics.execution.add_noise`` at the scale ``params.noise`` (the
    noise model the agents' ``ExecutionNoise`` plays too), kept inside what a cue can do."""
    return execution.add_noise(shot, key, params.physics, params.noise)


def apply_choices(ruleset, game, action, phys):
    """The game state with the shooter's choices written in (no-ops where not offered)."""
    x = jnp.asarray(action)
    game = rules.choose_base_spot(ruleset, game, jnp.where(x[6] >= 0, 1, 0), phys)
    game = rules.place_cue_ball(ruleset, game, (x[5] + 1.0) / 2.0, phys)
    game = rules.choose_respot(ruleset, game, x[7] > 0, phys)
    game = rules.choose_start_side(ruleset, game, jnp.where(x[8] >= 0, 1, 0), phys)
    return game


def check_action(action, batch: int | None = None) -> np.ndarray:
    """A concrete action (or batch) as float32, or ValueError naming the allowed shape and range."""
    shape = (N_ACTIONS,) if batch is None else (batch, N_ACTIONS)
    if np.iscomplexobj(action):
        raise TypeError(f"action must be real numbers of shape {shape} in [{LOW}, {HIGH}], got complex values")
    try:
        array = np.asarray(action, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"action must be numbers of shape {shape} in [{LOW}, {HIGH}], got {action!r}") from None
    if array.shape != shape:
        raise ValueError(f"action must have shape {shape} (components {', '.join(NAMES)}), got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"action must be finite, in [{LOW}, {HIGH}]; got NaN or inf in {array.tolist()}")
    if np.any(array < LOW) or np.any(array > HIGH):
        bad = array[(array < LOW) | (array > HIGH)]
        raise ValueError(f"action components must be in [{LOW}, {HIGH}]; got {bad.tolist()}")
    return array.astype(np.float32)


def random_action(key, observation=None, params=None):
    """(9,) float32 uniform in [-1, 1]: the built-in random player (a policy's signature)."""
    return jax.random.uniform(key, (N_ACTIONS,), jnp.float32, LOW, HIGH)


def describe(shot: physics.Shot) -> dict:
    """A concrete shot as a dict of Python floats (for ``info``)."""
    return {name: float(np.asarray(getattr(shot, name))) for name in ("V0", "phi", "theta", "a", "b")}
