"""Reading a shot back: the event log in plain Python, and ball positions at any time."""
from __future__ import annotations

from functools import partial
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from physics.events import Cushion, EventKind, Motion, ShotResult
from physics.motion import Balls, end_of_state, evolve, horizon, on_cloth
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


def _per_ball(b: Balls) -> Balls:
    """Each ball as a table of one (fields (n, 1, ...)), so that each can have its own time."""
    return Balls(*(x.reshape((x.shape[0], 1) + x.shape[1:]) for x in b._fields()))


def _unpack(b: Balls) -> Balls:
    return Balls(*(x[:, 0] for x in b._fields()))


def evolve_through(b: Balls, dt, params) -> Balls:
    """Balls (n, ...) advanced by dt (s) through the motion-state changes of those on the cloth.

    Between two events of a full log no ball changes state, and one ``motion.evolve`` is exact. A
    log that was thinned (``physics.thinning``) has lost motion-state changes first, and over such
    a gap each ball is taken to its horizon and through ``motion.end_of_state`` as the simulation
    does (up to rounding), so that replays of a thinned shot follow the same paths. The changes are
    looked for only while a ball reaches one (a loop that a full log's replay does not enter). A
    ball in the air keeps its straight line across the table (the log holds no heights).
    """
    def reached(one, left):
        h = horizon(one, params)[:, 0]
        return on_cloth(one.motion[:, 0]) & (h <= left), h

    def change(carry):
        one, left, ends, h, count = carry
        moved = _unpack(evolve(one, jnp.where(ends, h, 0.0), params))
        ended = jax.vmap(end_of_state, in_axes=(0, None))(moved, params)
        one = _per_ball(ended.select(ends, _unpack(one)))
        left = jnp.where(ends, left - h, left)
        return (one, left, *reached(one, left), count + 1)

    one = _per_ball(b)
    left = jnp.full((b.r.shape[0],), dt, b.r.dtype)
    carry = (one, left, *reached(one, left), 0)
    one, left, *_ = jax.lax.while_loop(lambda c: jnp.any(c[2]) & (c[4] < _CLOTH_CHANGES), change, carry)
    return _unpack(evolve(one, left, params))


def _replay(result: ShotResult, times, params, through: bool):
    """Positions (N, n, 2) of one shot at ``times`` (N,): each ball from the last logged event
    before, by ``motion.evolve``, or with ``through`` by ``evolve_through``."""
    log = result.events
    valid_time = jnp.where(jnp.arange(log.capacity) < result.num_events, log.time, jnp.inf)
    k = jnp.clip(jnp.searchsorted(valid_time, times, side="right") - 1, 0, log.capacity - 1)
    advance = evolve_through if through else evolve

    def one(k, t):
        # Heights do not matter across the table: a ball in the air moves in a straight line.
        b = Balls.at_rest(log.positions[k])
        b = Balls(b.r, log.velocities[k], log.spins[k], b.z, b.vz, log.motion[k])
        return advance(b, jnp.maximum(t - log.time[k], 0.0), params).r

    return jax.vmap(one)(k, times)


@jax.jit
def _positions_at(result: ShotResult, times, params):
    # Only a thinned log can have lost motion changes; a full one replays by one evolve per time
    # (a result made by hand, without ``dropped``, is full).
    if result.dropped is None:
        return _replay(result, times, params, through=False)
    return jax.lax.cond(result.dropped > 0, partial(_replay, through=True), partial(_replay, through=False),
                        result, times, params)


def positions_at_batch(results: ShotResult, times, params: Params, per_shot_params: bool = False) -> jax.Array:
    """Positions (B, N, n, 2) of a batch of shots (``simulate_batch``'s result) at times (B, N), for
    use inside ``jit``: a batch in which no log was thinned replays by one ``motion.evolve`` per
    time (a ``vmap`` of ``positions_at`` would also pay for following motion changes, as its test
    of each shot's log becomes a select). ``per_shot_params``: params with a leading batch axis."""
    B = np.shape(results.num_events)
    if len(B) != 1 or np.ndim(times) != 2 or np.shape(times)[0] != B[0]:
        raise ValueError(f"positions_at_batch takes a batch of results (simulate_batch's) and times of shape "
                         f"(batch, N) with the same batch; got results of batch shape {B} and times of shape "
                         f"{np.shape(times)}")
    in_axes = (0, 0, 0 if per_shot_params else None)
    play = lambda through: jax.vmap(partial(_replay, through=through), in_axes=in_axes)  # noqa: E731
    if results.dropped is None:
        return play(False)(results, times, params)
    return jax.lax.cond(jnp.any(results.dropped > 0), play(True), play(False), results, times, params)


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
