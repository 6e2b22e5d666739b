"""The action: a vector in [-1, 1]^9 ("strike", the raw cue strike), [-1, 1]^10 ("contact", the
strike aimed at a chosen ball), or an index ("lines", one of the geometry's candidate strikes),
mapped to a cue strike and to the choices some positions offer.

The form is the environment's ``action=`` option (``FORMS``; "strike" by default). The forms are
tabled in docs/design.md, "The action forms"; in short:

- "strike" (``NAMES``): aim (phi over -180..180 deg), speed (V0 over v_min..v_max), elevation
  (level up to ``RAISED_FROM``, then up to theta_max), tip (u, v) on the square mapped onto the disc
  of offset_max, then the choices place (H-6.4), base_spot (H-7.3), respot (C-12.7 a, C-13.3 a)
  and side (C-2.1 c), each used only when the observation offers it. The all-zeros action is a
  level, centre-ball shot at 4.25 m/s along +x; uniform actions raise the cue one time in ten.
- "contact" (``CONTACT_NAMES``): target (ten buckets, ``TARGETS``: either object ball in the
  observation's order, ``observation.ball_order``, directly or at its mirror image across one
  cushion's reflection line), thickness (the aim from the cue ball to the target turned by
  asin(thickness 2R / d): 0 full ball, +-1 grazing either side), then the strike form's speed,
  elevation, tip and choices. ``contact_to_strike`` gives the strike action it asks for, from the
  game state after the choices are applied.
- "lines": ``Discrete(lines.COUNT)``, the index of a candidate strike (``billiards_env.lines``: the
  best geometric lines, each in a grid of variations), whose features the observation carries;
  the choices leave the layout as it lies (``kept_choices``).

``VERSIONS`` names each form's mapping (``ACTION_VERSION`` the strike's, ``CONTACT_VERSION`` the
contact's); a saved policy records its form and version and is refused by an environment of
another. The built-in opponent ("game" mode) always plays strike-form actions.

Components that do not apply to the position are ignored. Inside ``jit`` nothing can raise, so
the functional step replaces NaN by 0 and clips to [-1, 1]; the Python adapters raise ValueError
instead (``check_action``). The choices are applied before the strike, in the order base spot,
ball in hand, re-spot, side (each a no-op when not offered: ``rules.choose_*``).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import gymnasium as gym

import physics
import rules
from physics import execution
from billiards_env import lines
from billiards_env.observation import ball_order

NAMES = ("aim", "speed", "elevation", "tip_u", "tip_v", "place", "base_spot", "respot", "side")
N_ACTIONS = len(NAMES)
LOW, HIGH = -1.0, 1.0
RAISED_FROM = 0.8  # the elevation component above which the cue is raised
# 1: the elevation spanned the whole component (-1..1 -> 0..theta_max); 2: level up to RAISED_FROM.
ACTION_VERSION = 2

FORMS = ("strike", "contact", "lines")
CONTACT_NAMES = ("target", "thickness") + NAMES[1:]
# 1: ten target buckets (two object balls, each direct or off one of four cushions), thickness by asin.
CONTACT_VERSION = 1
# 1: 12 best lines x 11 variations (aiming.lines.GRID), features of aiming.features version 4.
LINES_VERSION = 1
VERSIONS = {"strike": ACTION_VERSION, "contact": CONTACT_VERSION, "lines": LINES_VERSION}
ROUTES = ("direct", "bottom", "top", "right", "left")  # the target's route, bucket k % 5
TARGETS = tuple((ball, route) for ball in (0, 1) for route in ROUTES)  # bucket k: (object ball, route)


def check_form(form) -> str:
    """``form`` if it is one of ``FORMS``, else ValueError listing them."""
    if not isinstance(form, str) or form not in FORMS:
        raise ValueError(f"unknown action form {form!r}; valid: {', '.join(FORMS)}")
    return form


def names(form: str = "strike") -> tuple:
    """The components' names of the form's action."""
    return {"strike": NAMES, "contact": CONTACT_NAMES, "lines": ("line",)}[check_form(form)]


def size(form: str = "strike") -> int:
    """The form's action length: 9 ("strike"), 10 ("contact"), or the number of candidates ("lines")."""
    return lines.COUNT if check_form(form) == "lines" else len(names(form))


def shape(form: str = "strike", batch: int | None = None) -> tuple:
    """One action's shape, (9,), (10,) or () for an index, with a leading ``batch`` axis if given."""
    one = () if check_form(form) == "lines" else (size(form),)
    return one if batch is None else (batch,) + one


def space(form: str = "strike") -> gym.spaces.Space:
    """The form's Gymnasium action space: a Box [-1, 1]^size float32, or Discrete(COUNT) for "lines"."""
    if check_form(form) == "lines":
        return gym.spaces.Discrete(lines.COUNT)
    return gym.spaces.Box(LOW, HIGH, (size(form),), np.float32)


def form_of(env) -> str:
    """The action form of an environment (any adapter, wrapped or not, or a ``FunctionalEnv``)."""
    for candidate in (env, getattr(env, "unwrapped", None), getattr(env, "functional", None)):
        form = getattr(candidate, "action_form", None)
        if isinstance(form, str):
            return form
    raise TypeError(f"{type(env).__name__} has no action form (not a billiards environment)")


def check_shape(action, batch: int | None = None, form: str = "strike"):
    """ValueError unless ``action`` has the form's shape (``shape``), TypeError unless it holds
    real numbers. Shapes and dtypes are static, so this raises even while ``jit`` traces."""
    want = shape(form, batch)
    dtype = np.dtype(action.dtype) if hasattr(action, "dtype") else np.asarray(action).dtype
    if dtype.kind not in "fiu":
        raise TypeError(f"action must be real numbers in [{LOW}, {HIGH}], got dtype {dtype}")
    if np.shape(action) != want:
        raise ValueError(f"action must have shape {want} (components {', '.join(names(form))}), "
                         f"got {np.shape(action)}")


def sanitize(action, form: str = "strike"):
    """(9,) or (10,): the traced action with NaN replaced by 0 and every component clipped to
    [-1, 1]; for "lines", the index as int32 clipped into 0..COUNT-1 (NaN: 0). ValueError for
    another shape than the form's (``check_shape``)."""
    check_shape(action, form=form)
    action = jnp.asarray(action)
    if form == "lines":
        action = jnp.where(jnp.isnan(action), 0, action) if action.dtype.kind == "f" else action
        return jnp.clip(action, 0, lines.COUNT - 1).astype(jnp.int32)
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


def apply_choices(ruleset, game, action, phys, form: str = "strike"):
    """The game state with the shooter's choices of an action of ``form`` written in (no-ops
    where not offered)."""
    place, base_spot, respot, side = choices_of(action, form)
    game = rules.choose_base_spot(ruleset, game, jnp.where(base_spot >= 0, 1, 0), phys)
    game = rules.place_cue_ball(ruleset, game, (place + 1.0) / 2.0, phys)
    game = rules.choose_respot(ruleset, game, respot > 0, phys)
    game = rules.choose_start_side(ruleset, game, jnp.where(side >= 0, 1, 0), phys)
    return game


def check_action(action, batch: int | None = None, form: str = "strike") -> np.ndarray:
    """A concrete action (or batch) of the form as float32 (int32 indices for "lines"), or
    ValueError naming the allowed shape, components and range."""
    want = shape(form, batch)
    if form == "lines":
        return _check_index(action, want)
    if np.iscomplexobj(action):
        raise TypeError(f"action must be real numbers of shape {want} in [{LOW}, {HIGH}], got complex values")
    try:
        array = np.asarray(action, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"action must be numbers of shape {want} in [{LOW}, {HIGH}], got {action!r}") from None
    if array.shape != want:
        raise ValueError(f"action must have shape {want} (components {', '.join(names(form))}), "
                         f"got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"action must be finite, in [{LOW}, {HIGH}]; got NaN or inf in {array.tolist()}")
    if np.any(array < LOW) or np.any(array > HIGH):
        bad = array[(array < LOW) | (array > HIGH)]
        raise ValueError(f"action components must be in [{LOW}, {HIGH}]; got {bad.tolist()}")
    return array.astype(np.float32)


def _check_index(action, want: tuple) -> np.ndarray:
    """A "lines" action: whole numbers 0..COUNT-1 of shape ``want``, as int32; ValueError otherwise."""
    allowed = f"whole numbers in 0..{lines.COUNT - 1} of shape {want} (a candidate's index)"
    try:
        array = np.asarray(action)
        real = array.dtype.kind in "iub" or (array.dtype.kind == "f" and np.all(np.isfinite(array)))
    except (TypeError, ValueError):
        real = False
    if not real or array.shape != want or np.any(array != np.round(array)):
        raise ValueError(f"action must be {allowed}, got {action!r}")
    if np.any(array < 0) or np.any(array >= lines.COUNT):
        raise ValueError(f"action must be {allowed}, got {array.tolist()}")
    return array.astype(np.int32)


def contact_target(action, game, params):
    """(2,) the point the contact action's target component aims at, in the physics dtype: the
    chosen object ball's centre, or its mirror image across the chosen cushion's reflection line
    (``TARGETS``). ``game`` is the ``rules.GameState`` the shot is played from."""
    phys = params.physics
    dtype = phys.dtype
    x = jnp.asarray(action, dtype)
    table, reach = phys.table, jnp.asarray(phys.cushion_reach, dtype)
    bucket = jnp.clip(jnp.floor(5.0 * (x[0] + 1.0)), 0, len(TARGETS) - 1).astype(jnp.int32)  # len(TARGETS) / 2 = 5
    ball = ball_order(game.cue_ball)[1 + bucket // len(ROUTES)]
    route = bucket % len(ROUTES)
    centre = jnp.asarray(game.positions[ball], dtype)
    # each route's reflection: (axis, line), the mirror image 2 line - coordinate along the axis
    length, width = jnp.asarray(table.length, dtype), jnp.asarray(table.width, dtype)
    lines = jnp.stack([reach, reach, length - reach, reach, width - reach])  # direct: unused
    axis = jnp.asarray([0, 0, 0, 1, 1])[route]
    mirrored = centre.at[axis].set(2.0 * lines[route] - centre[axis])
    return jnp.where(route == 0, centre, mirrored)


def contact_to_strike(action, game, params):
    """(9,) the strike-form action a sanitized contact-form action (10,) asks for, from ``game``
    (the ``rules.GameState`` after the choices are applied: ball in hand may have moved the cue
    ball), in the physics dtype. The aim: the direction from the cue ball to the target point
    (``contact_target``) turned counter-clockwise by asin(clip(thickness 2R / d, -1, 1)); the
    other components are copied. Pure and jittable; no inverse (the hit a strike makes depends
    on the layout)."""
    phys = params.physics
    dtype = phys.dtype
    x = jnp.asarray(action, dtype)
    cue = jnp.asarray(game.positions[game.cue_ball], dtype)
    delta = contact_target(x, game, params) - cue
    d = jnp.sqrt(jnp.sum(delta * delta))
    two_r = 2.0 * jnp.asarray(phys.ball.radius, dtype)
    turn = jnp.arcsin(jnp.clip(x[1] * two_r / jnp.where(d > 0, d, 1.0), -1.0, 1.0))
    phi = jnp.degrees(jnp.arctan2(delta[1], delta[0]) + turn)
    aim = (phi - 360.0 * jnp.ceil((phi - 180.0) / 360.0)) / 180.0  # phi wrapped to (-180, 180]
    return jnp.concatenate([jnp.clip(aim, LOW, HIGH)[None], x[2:]])


def to_strike(action, game, params, form: str = "strike"):
    """(9,) the strike-form action of a sanitized action of ``form`` ("strike" or "contact")
    played from ``game``."""
    return action if check_form(form) == "strike" else contact_to_strike(action, game, params)


def resolve(action, game, params, form: str = "strike", line_table: tuple = (), candidates=None):
    """(game, shot): an action of ``form`` played from ``game`` (a ``rules.GameState``), as the
    environments play it and the learned planners plan it: sanitized, its choices written into the
    game (``apply_choices``), then the strike it asks for from that game (``to_strike``,
    ``to_shot``; no noise). A "lines" action keeps the layout (``kept_choices``) and plays its
    candidate (``lines.shot_of``; ``line_table``: the static (cushions, hungarian) of the
    discipline's lines; ``candidates``: the position's candidate strikes if already found). Pure
    and jittable."""
    action = sanitize(action, form)
    if form == "lines":
        kept = jnp.concatenate([jnp.zeros((5,), jnp.float32), kept_choices(game, params).astype(jnp.float32)])
        game = apply_choices(params.rules, game, kept, params.physics)
        cushions, hungarian = line_table
        return game, lines.shot_of(cushions, hungarian, game, params, action, candidates)
    game = apply_choices(params.rules, game, action, params.physics, form)
    return game, to_shot(to_strike(action, game, params, form), params)


def choices_of(action, form: str = "strike"):
    """(4,) the choice components (place, base spot, re-spot, side) of an action of ``form``."""
    return jnp.asarray(action)[size(form) - 4:]


def random_action(key, observation=None, params=None):
    """(9,) float32 uniform in [-1, 1]: the built-in random player (a policy's signature)."""
    return jax.random.uniform(key, (N_ACTIONS,), jnp.float32, LOW, HIGH)


def describe(shot: physics.Shot) -> dict:
    """A concrete shot as a dict of Python floats (for ``info``)."""
    return {name: float(np.asarray(getattr(shot, name))) for name in ("V0", "phi", "theta", "a", "b")}
