"""The planner interface, shot helpers and the execution-noise model shared by the agents.

A planner looks at a game between shots and chooses the next cue strike:

    plan(rules, state, params, key) -> physics.Shot                 fields () float
    plan_batch(rules, states, params, keys) -> physics.Shot         fields (S,) float

``states`` is a ``rules.GameState`` whose leaves carry a leading batch axis S (``stack_states``),
``keys`` an (S, 2) array of PRNG keys. The shot is played with ``state.cue_ball`` from
``state.positions``, with the pin standing at ``state.pin_position`` when
``state.pin_state == rules.PinState.STANDING``. Planners choose only the strike: the choices some
positions offer (ball in hand, re-spots, start side) are left at the referee's defaults.

Every planner is deterministic given its key.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Iterable, Optional, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

import physics
from physics.execution import (  # the one noise model (docs/physics.md section 6) and the shot arrays
    NOISE_OFFSET_M, NOISE_PHI_DEG, NOISE_THETA_DEG, NOISE_V0, add_noise, noise_std, playable, shot_array,
    shot_from_array,
)
from physics.params import Params
import rules
from rules import GameState, Rules

if TYPE_CHECKING:  # billiards_env imports are kept out of agents' import time (see env_actions)
    from billiards_env import EnvParams, State
    from billiards_env.modes import StatePolicy

_Tree = TypeVar("_Tree")  # a pytree: a GameState, a Shot, ...


class Planner:
    """Base class: subclasses implement ``plan_batch``; ``plan`` is the batch of one."""

    name = "planner"

    def plan(self, ruleset: Rules, state: GameState, params: Params, key: jax.Array) -> physics.Shot:
        """The shot for one game state: a ``physics.Shot`` of () arrays."""
        states = jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], state)
        shot = self.plan_batch(ruleset, states, params, jnp.asarray(key)[None])
        return jax.tree_util.tree_map(lambda x: x[0], shot)

    def plan_batch(  # pragma: no cover
        self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array,
    ) -> physics.Shot:
        raise NotImplementedError

    def env_actions(self, env_states: "State", env_params: "EnvParams", keys: jax.Array) -> jax.Array:
        """(S, 9) float32 actions for a batch of the functional environment's states
        (``billiards_env.State``, leaves (S, ...)): the planned strikes as actions
        (``billiards_env.actions.from_shot``), the choices those that keep the layouts planned
        from (0 where none is offered). Shots beyond the action's ranges are clipped into them."""
        from billiards_env.actions import from_shot

        shots = self.plan_batch(env_params.rules, env_states.game, env_params.physics, keys)
        return jax.vmap(lambda s, g: from_shot(s, env_params, g))(shots, env_states.game)

    def as_policy(self) -> "StatePolicy":
        """The planner as an environment's built-in opponent ("game" mode): a
        ``billiards_env.modes.StatePolicy`` that plans from the game state (``plan``) and gives
        the strike as an action (``billiards_env.actions.from_shot``, the choices keeping the
        layout planned from)."""
        from billiards_env.modes import StatePolicy

        return StatePolicy(self._policy_action)

    def _policy_action(self, key, observation, env_params, game):
        from billiards_env.actions import from_shot

        return from_shot(self.plan(env_params.rules, game, env_params.physics, key), env_params, game)

    def __repr__(self):
        return f"{type(self).__name__}()"


def stack_states(states: Iterable[_Tree]) -> _Tree:
    """Stack a list of ``GameState``s (or any equal pytrees) along a new leading axis."""
    states = list(states)
    if not states:
        raise ValueError("stack_states needs at least one state")
    return jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *states)


def repeat_state(state: _Tree, n: int) -> _Tree:
    """``n`` copies of one ``GameState`` (or any pytree) along a new leading axis: a batch that
    plays several strikes from the same layout."""
    return jax.tree_util.tree_map(lambda x: jnp.broadcast_to(jnp.asarray(x), (n,) + jnp.shape(x)), state)


def index_tree(tree, i):
    """Rows ``i`` (an index, a slice or an index array) of every leaf: e.g. the i-th state of a batch."""
    return jax.tree_util.tree_map(lambda x: x[i], tree)


def clip_shot(shot: physics.Shot, params: Params, v_min: ArrayLike = 0.0, v_max: Optional[ArrayLike] = None,
              max_offset: Optional[ArrayLike] = None) -> physics.Shot:
    """A playable shot (``physics.execution.playable``): speed in [v_min, v_max] (default: the
    cue's limit), aim wrapped to (-180, 180], elevation in [0, 89], tip offset pulled back onto
    the disc of radius ``max_offset`` (default: just inside the miscue limit)."""
    return shot_from_array(playable(shot_array(shot), params, v_min, v_max, max_offset))


def disc_from_uniform(u_r, u_angle, radius):
    """Points uniform on a disc of ``radius`` from two uniform [0, 1) arrays: (x, y)."""
    r = radius * jnp.sqrt(u_r)
    angle = (2.0 * u_angle - 1.0) * jnp.pi
    return r * jnp.cos(angle), r * jnp.sin(angle)


def normal_from_uniform(u):
    """Standard normal values from uniform [0, 1) ones (inverse CDF), so that one draw of
    uniforms can feed every random choice of a step (fewer generator calls to compile)."""
    tiny = jnp.finfo(u.dtype).tiny
    return jax.scipy.special.ndtri(jnp.clip(u, tiny, 1.0 - jnp.finfo(u.dtype).eps))


# Named execution-noise scales: a player of a given level (``ExecutionNoise.profile``). Each scale is
# the one at which the search agent (``SearchAgent.for_noise``) makes the three-cushion points per
# inning of published general averages of players of that level (docs/physics.md section 6,
# "Player profiles": the sources, the ranges and the calibration run).
NOISE_PROFILES = {"exact": 0.0, "standard": 1.0, "world_class": 2.1, "master": 3.2, "club": 4.9, "beginner": 14.0}


def noise_scale(value) -> float:
    """The noise scale of a profile name (``NOISE_PROFILES``) or of a number >= 0 (or its text)."""
    if isinstance(value, str) and value in NOISE_PROFILES:
        return NOISE_PROFILES[value]
    try:
        scale = float(value)
    except (TypeError, ValueError):
        scale = float("nan")
    if not 0 <= scale < float("inf"):
        raise ValueError(f"noise must be a finite scale >= 0 or a profile name ({', '.join(NOISE_PROFILES)}), "
                         f"got {value!r}")
    return scale


def profile_of(scale: float) -> str | None:
    """The name of the player profile whose noise scale is ``scale`` (``NOISE_PROFILES``), or None:
    ``noise_scale``'s inverse, for results that name the noise they were made under."""
    return next((name for name, value in NOISE_PROFILES.items() if value == scale), None)


@dataclasses.dataclass(frozen=True)
class ExecutionNoise:
    """The execution noise at ``scale`` times the standard deviations of docs/physics.md section 6
    (0: none, 1: the standard noise): the same model as the environments' ``noise`` parameter
    (``physics.execution.add_noise``), bound to a scale for the agents and experiments."""

    scale: float = 1.0

    @classmethod
    def profile(cls, name: str) -> "ExecutionNoise":
        """The noise of a named player level (``NOISE_PROFILES``: "exact", "standard", "world_class",
        "master", "club", "beginner")."""
        if name not in NOISE_PROFILES:
            raise ValueError(f"unknown noise profile {name!r}; valid: {', '.join(NOISE_PROFILES)}")
        return cls(NOISE_PROFILES[name])

    def std(self, params: Params) -> jax.Array:
        """(5,) standard deviations in shot units, order (V0, phi, theta, a, b)."""
        return noise_std(params, self.scale)

    def apply(self, shot: physics.Shot, key: jax.Array, params: Params) -> physics.Shot:
        """The shot as played: ``shot`` (any batch shape) plus one noise draw per shot."""
        return add_noise(shot, key, params, self.scale)

    def describe(self) -> dict:
        """The standard deviations in their natural units (for results files)."""
        return dict(scale=self.scale, phi_deg=self.scale * NOISE_PHI_DEG, V0=self.scale * NOISE_V0,
                    theta_deg=self.scale * NOISE_THETA_DEG, offset_m=self.scale * NOISE_OFFSET_M)


def pin_for_simulation(ruleset, states, params):
    """(S, 2) where the physics sees each state's pin (``rules.pin.in_play``), or None for the
    disciplines without a pin (the discipline table's ``pin`` column: no pin body at all)."""
    return rules.pin.in_play(states) if ruleset.pin else None


def as_numpy_shot(shot: physics.Shot) -> dict:
    """A shot's fields as Python floats (one shot) or NumPy arrays (a batch), for printing."""
    out = {}
    for f in ("V0", "phi", "theta", "a", "b"):
        v = np.asarray(getattr(shot, f))
        out[f] = float(v) if v.ndim == 0 else v
    return out
