"""Reading a shot back: the event log in plain Python, and ball positions at any time."""
from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from physics.events import Cushion, EventKind, Motion, ShotResult
from physics.motion import Balls, end_of_state, evolve, horizon
from physics.params import Params
from physics.simulate import next_power_of_two


def event_list(result: ShotResult) -> list[dict]:
    """The log of one shot as a list of dicts, one per event, in time order.

    Keys: "t" (s), "kind" (e.g. "ball_ball", "ball_cushion", "sliding_to_rolling"), "balls"
    (ball indices involved), "cushion" (name, for cushion contacts and the cushion a ball left over), "positions" and
    "velocities" of all balls right after the event, and "motion" (state names).
    """
    log = jax.tree_util.tree_map(np.asarray, result.events)
    if log.kind.ndim != 1:
        raise ValueError("event_list takes one shot; index a batch first (e.g. result[i] via tree_map)")
    out = []
    for k in range(int(result.num_events)):
        kind = EventKind(int(log.kind[k]))
        event = {
            "t": float(log.time[k]),
            "kind": kind.name.lower(),
            "balls": [int(b) for b in log.balls[k] if b >= 0],
            "positions": log.positions[k].tolist(),
            "velocities": log.velocities[k].tolist(),
            "motion": [Motion(int(m)).name.lower() for m in log.motion[k]],
        }
        if kind in (EventKind.BALL_CUSHION, EventKind.OFF_TABLE) and log.cushion[k] >= 0:
            event["cushion"] = Cushion(int(log.cushion[k])).name.lower()
        out.append(event)
    return out


# The most motion-state changes a ball on the cloth goes through before it rests: sliding, rolling
# fast, rolling, spinning (docs/physics.md section 1).
_CLOTH_CHANGES = 4


def evolve_through(b: Balls, dt, params) -> Balls:
    """Balls (n, ...) advanced by dt (s) through the motion-state changes of those on the cloth.

    Between two events of a full log no ball changes state, and one ``motion.evolve`` is exact. A
    log that was thinned (``physics.thinning``) has lost motion-state changes first, and over such
    a gap each ball is taken to its horizon, through ``motion.end_of_state``, and on, as the
    simulation does (up to rounding), so that replays of a thinned shot follow the same paths. A
    ball in the air keeps its straight line across the table (the log does not hold heights).
    """
    n = b.r.shape[0]
    per_ball = lambda x: x.reshape((n, 1) + x.shape[1:])  # noqa: E731  (each ball a table of one)
    one = Balls(*(per_ball(x) for x in b._fields()))
    left = jnp.full((n,), dt, b.r.dtype)
    for _ in range(_CLOTH_CHANGES):
        h = horizon(one, params)[:, 0]
        on_cloth = jnp.isin(one.motion[:, 0], jnp.asarray([Motion.SLIDING, Motion.ROLLING, Motion.SPINNING]))
        ends = on_cloth & (h <= left)
        moved = evolve(one, jnp.where(ends, h, left), params)
        ended = jax.vmap(end_of_state, in_axes=(0, None))(Balls(*(x[:, 0] for x in moved._fields())), params)
        one = Balls(*(per_ball(x) for x in ended._fields())).select(ends[:, None], moved)
        left = jnp.where(ends, left - h, 0.0)
    return Balls(*(x[:, 0] for x in one._fields()))


@jax.jit
def _positions_at(result: ShotResult, times, params):
    log = result.events
    valid_time = jnp.where(jnp.arange(log.capacity) < result.num_events, log.time, jnp.inf)
    k = jnp.clip(jnp.searchsorted(valid_time, times, side="right") - 1, 0, log.capacity - 1)

    def one(k, t):
        # Heights do not matter across the table: a ball in the air moves in a straight line.
        b = Balls.at_rest(log.positions[k])
        b = Balls(b.r, log.velocities[k], log.spins[k], b.z, b.vz, log.motion[k])
        return evolve_through(b, jnp.maximum(t - log.time[k], 0.0), params).r

    return jax.vmap(one)(k, times)


def positions_at(result: ShotResult, times: ArrayLike, params: Optional[Params] = None) -> jax.Array:
    """Ball positions (len(times), n_balls, 2) at the given times (s) of one shot."""
    from physics.params import default_params

    params = default_params() if params is None else params
    times = jnp.atleast_1d(jnp.asarray(times, params.dtype))
    # compiled for a power-of-two number of times (the last one repeated), so that replays of
    # many lengths share a few programs
    n = times.shape[0]
    size = next_power_of_two(max(n, 2))
    padded = jnp.concatenate([times, jnp.broadcast_to(times[-1:], (size - n,))]) if size > n else times
    return _positions_at(result, padded, params)[:n]
