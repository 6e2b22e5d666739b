"""One shot, from the cue strike until every ball is at rest, as a short chain of stages:

    strike -> loop( find next event -> advance all balls -> resolve it -> log it ) -> summarise

The loop is a ``lax.while_loop`` over a fixed-shape state, so a shot compiles once and a batch of
shots is the same code under ``vmap`` (one compiled call; the batch runs until its longest shot
ends). Every iteration resolves exactly one event; simultaneous events come out one after the
other at the same time, in the order ``physics.detect`` documents.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from physics import collide
from physics._pytree import pytree_dataclass
from physics.detect import (
    CUSHION_NORMALS, PIN_DOWN, PIN_FALLING, PIN_STANDING, Layout, candidate_times, candidate_times_batch, pairs,
)
from physics.events import EventKind, EventLog, Motion, ShotResult, Status
from physics.motion import Balls, classify, end_of_state, evolve, hop_speed
from physics.params import Params, check_params, default_params, params_are_valid
from physics.strike import Shot, check_fields, check_limits, shot_is_valid, strike

# Balls closer than this (m) beyond touching, or past a cushion, make an invalid layout.
LAYOUT_TOLERANCE = 1e-7


@pytree_dataclass
class PinState:
    """The pin during a shot. position: (2,); state: () int8 (detect.PIN_*); knocked_by: () int8."""

    position: jnp.ndarray
    state: jnp.ndarray
    knocked_by: jnp.ndarray


def layout_is_valid(positions, params, pin_position=None):
    """() bool: no two balls overlap, none overlaps the pin, and every ball is inside the cushions."""
    n = positions.shape[0]
    R = params.ball.radius
    i, j = pairs(n)
    d = jnp.linalg.norm(positions[j] - positions[i], axis=-1)
    reach = params.cushion_reach
    inside = (
        (positions[:, 0] >= reach - LAYOUT_TOLERANCE)
        & (positions[:, 0] <= params.table.length - reach + LAYOUT_TOLERANCE)
        & (positions[:, 1] >= reach - LAYOUT_TOLERANCE)
        & (positions[:, 1] <= params.table.width - reach + LAYOUT_TOLERANCE)
    )
    ok = jnp.all(d >= 2 * R - LAYOUT_TOLERANCE) & jnp.all(inside) & jnp.all(jnp.isfinite(positions))
    if pin_position is not None:
        to_pin = jnp.linalg.norm(positions - pin_position, axis=-1)
        ok = ok & jnp.all(to_pin >= R + params.pin.contact_radius - LAYOUT_TOLERANCE)
        ok = ok & jnp.all(jnp.isfinite(pin_position))
    return ok


def _record(log, k, kind, t, ball, other, cushion, b: Balls):
    k = jnp.minimum(k, log.capacity - 1)
    return EventLog(
        kind=log.kind.at[k].set(jnp.asarray(kind, jnp.int8)),
        time=log.time.at[k].set(t),
        balls=log.balls.at[k].set(jnp.stack([ball, other]).astype(jnp.int8)),
        cushion=log.cushion.at[k].set(jnp.asarray(cushion, jnp.int8)),
        positions=log.positions.at[k].set(b.r),
        velocities=log.velocities.at[k].set(b.v),
        spins=log.spins.at[k].set(b.w),
        motion=log.motion.at[k].set(b.motion),
    )


def _set_ball(b: Balls, k, one: Balls) -> Balls:
    """b with ball k replaced by ``one`` (fields without the ball axis)."""
    return Balls(*(full.at[k].set(part) for full, part in zip(b._fields(), one._fields())))


def _ball(b: Balls, k) -> Balls:
    return Balls(*(full[k] for full in b._fields()))


def _unit(d):
    n = jnp.linalg.norm(d)
    return jnp.where(n > 0, d / jnp.where(n > 0, n, 1.0), jnp.array([1.0, 0.0], d.dtype))


def _resolve(b: Balls, pin, index, params, layout: Layout):
    """Apply event ``index`` (into the candidate list) to the bodies, which are already there.

    Every kind of resolution is computed for the bodies its slot names and one is selected, so
    the step has no data-dependent branch. Returns (balls, pin, kind, ball, other, cushion).
    """
    n = layout.n
    clip = lambda x, lo, size: jnp.clip(x - lo, 0, max(size - 1, 0))  # noqa: E731
    outcomes = []  # (is_this_kind, balls, pin, kind, ball, other, cushion)

    if layout.pairs:
        p = clip(index, 0, layout.pairs)
        i, j = jnp.asarray(layout.pair_i)[p], jnp.asarray(layout.pair_j)[p]
        # The impulse acts across the table; a ball in the air keeps its vertical motion.
        normal = _unit(b.r[j] - b.r[i])
        v1, w1, v2, w2 = collide.ball_ball_resolve(b.v[i], b.w[i], b.v[j], b.w[j], normal, params)
        v, w = b.v.at[i].set(v1).at[j].set(v2), b.w.at[i].set(w1).at[j].set(w2)
        air = b.motion == Motion.AIRBORNE
        motion = jnp.where(air, b.motion, classify(v, w, params)).astype(jnp.int8)
        bb = Balls(b.r, v, w, b.z, b.vz, motion)
        outcomes.append((index < layout.pairs, bb, pin, EventKind.BALL_BALL, i, j, -1))

    if pin is not None:
        k = clip(index, layout.pin, n)
        v_k, topples = collide.ball_pin_resolve(b.v[k], _unit(pin.position - b.r[k]), params)
        v = b.v.at[k].set(v_k)
        motion = b.motion.at[k].set(jnp.where(b.motion[k] == Motion.AIRBORNE, b.motion[k], classify(v_k, b.w[k], params)))
        hit_pin = PinState(
            pin.position, jnp.where(topples, PIN_FALLING, pin.state).astype(jnp.int8),
            jnp.where(topples, k, pin.knocked_by).astype(jnp.int8),
        )
        is_pin = (index >= layout.pin) & (index < layout.cushion)
        outcomes.append((is_pin, Balls(b.r, v, b.w, b.z, b.vz, motion), hit_pin, EventKind.BALL_PIN, k, -1, -1))
        down = PinState(pin.position, jnp.asarray(PIN_DOWN, jnp.int8), pin.knocked_by)
        is_fall = (index >= layout.fall) & (index < layout.transition)
        outcomes.append((is_fall, b, down, EventKind.PIN_DOWN, pin.knocked_by.astype(jnp.int32), -1, -1))

    # Ball-cushion. A ball in the air whose centre is above the nose rides over it: off the table
    # (rules H-7.1, C-6.2: it touched the frame). Otherwise the cushion model, across the table.
    c = clip(index, layout.cushion, 4 * n)
    k, cushion = c // 4, c % 4
    outward = jnp.asarray(CUSHION_NORMALS, b.r.dtype)[cushion]
    vk, wk = collide.cushion_resolve(b.v[k], b.w[k], outward, params)
    air = b.motion[k] == Motion.AIRBORNE
    leaves = air & (b.z[k] > params.cushion.height - params.ball.radius)
    bounced = Balls(b.r[k], vk, wk, b.z[k], b.vz[k], jnp.where(air, b.motion[k], classify(vk, wk, params)))
    # A ball that left is put down beyond the cushion it crossed, outside the playing area.
    beyond = b.r[k] + (params.cushion_reach + 2.0 * params.ball.radius) * outward
    gone = Balls(beyond, jnp.zeros_like(vk), jnp.zeros_like(wk), jnp.zeros_like(b.z[k]), jnp.zeros_like(b.z[k]),
                 jnp.asarray(Motion.OFF_TABLE, jnp.int8))
    one = Balls(*(jnp.where(leaves, g, h).astype(h.dtype) for g, h in zip(gone._fields(), bounced._fields())))
    is_cushion = (index >= layout.cushion) & (index < layout.fall)
    kind = jnp.where(leaves, EventKind.OFF_TABLE, EventKind.BALL_CUSHION)
    outcomes.append((is_cushion, _set_ball(b, k, one), pin, kind, k, -1, cushion))

    # End of a motion state.
    k = clip(index, layout.transition, n)
    old = _ball(b, k)
    new = end_of_state(old, params)
    kind = jnp.select(
        [old.motion == Motion.SLIDING, old.motion == Motion.AIRBORNE,
         (old.motion == Motion.ROLLING) & (new.motion == Motion.SPINNING), old.motion == Motion.ROLLING],
        [EventKind.SLIDING_TO_ROLLING, EventKind.BALL_LANDING, EventKind.ROLLING_TO_SPINNING,
         EventKind.ROLLING_TO_STATIONARY],
        EventKind.SPINNING_TO_STATIONARY,
    )
    outcomes.append((index >= layout.transition, _set_ball(b, k, new), pin, kind, k, -1, -1))

    # Select the outcome of the event that happened (the last one is the default).
    _, balls, pin_out, kind, ball, other, cushion = outcomes[-1]
    for is_this, b_o, p_o, kind_o, ball_o, other_o, cushion_o in outcomes[-2::-1]:
        balls = b_o.select(is_this, balls)
        if pin is not None:
            pin_out = jax.tree_util.tree_map(lambda x, y: jnp.where(is_this, x, y), p_o, pin_out)
        kind = jnp.where(is_this, kind_o, kind)
        ball = jnp.where(is_this, ball_o, ball)
        other = jnp.where(is_this, other_o, other)
        cushion = jnp.where(is_this, cushion_o, cushion)
    return balls, pin_out, kind, ball, other, cushion


def _start(positions, shot: Shot, cue_ball, params: Params, pin_position=None):
    """The balls just after the strike, the pin, and the ``Status`` flags known before the loop.

    An elevated cue drives the ball into the cloth, which throws it back up with restitution
    e_table: a hop if that lifts it more than ``HOP_HEIGHT``. Invalid parameters, an invalid
    shot or an invalid layout leave every ball at rest, so nothing is simulated. Returns
    (balls, pin, status): status is int32 INVALID_* flags (see ``_status``).
    """
    dtype = params.dtype
    r = jnp.asarray(positions, dtype)
    n = r.shape[0]
    cue_ball = jnp.asarray(cue_ball, jnp.int32)
    shot_ok = shot_is_valid(shot, params) & (cue_ball >= 0) & (cue_ball < n)
    pin = None
    if pin_position is not None:
        pin_position = jnp.asarray(pin_position, dtype)
        pin = PinState(pin_position, jnp.asarray(PIN_STANDING, jnp.int8), jnp.asarray(-1, jnp.int8))
    layout_ok = layout_is_valid(r, params, pin_position)
    params_ok = params_are_valid(params)
    go = shot_ok & layout_ok & params_ok
    v_cue, w_cue, down = strike(shot, params)
    up = params.ball.e_table * down
    hops = go & (up >= hop_speed(params))
    b = Balls.at_rest(r)
    v = b.v.at[cue_ball].set(jnp.where(go, v_cue, 0.0))
    w = b.w.at[cue_ball].set(jnp.where(go, w_cue, 0.0))
    vz = b.vz.at[cue_ball].set(jnp.where(hops, up, 0.0))
    motion = classify(v, w, params).at[cue_ball].set(
        jnp.where(hops, Motion.AIRBORNE, classify(v[cue_ball], w[cue_ball], params))
    )
    # Shot and layout are judged against the parameters: with invalid ones only INVALID_PARAMS says so.
    status = jnp.where(
        params_ok,
        jnp.where(shot_ok, 0, Status.INVALID_SHOT) | jnp.where(layout_ok, 0, Status.INVALID_LAYOUT),
        Status.INVALID_PARAMS,
    ).astype(jnp.int32)
    return Balls(r, v, w, b.z, vz, motion.astype(jnp.int8)), pin, status


def _next_event(b: Balls, pin, t, params):
    """Find the next event, advance every ball to it and resolve it.

    Returns (balls, pin, t, kind, ball, other, cushion).
    """
    layout = Layout(b.r.shape[0], pin is not None)
    times = candidate_times(b, params, layout, None if pin is None else (pin.position, pin.state))
    return _advance(b, pin, t, times, params)


def _advance(b: Balls, pin, t, times, params):
    """Advance every ball to the earliest of the candidate ``times`` and resolve that event."""
    layout = Layout(b.r.shape[0], pin is not None)
    index = jnp.argmin(times)
    dt = jnp.maximum(times[index], 0.0)
    b = evolve(b, dt, params)
    b, pin, kind, ball, other, cushion = _resolve(b, pin, index, params, layout)
    return b, pin, t + dt, kind, ball, other, cushion


def _is_moving(motion):
    return jnp.any((motion != Motion.STATIONARY) & (motion != Motion.OFF_TABLE), axis=-1)


def _status(overflow, start_status):
    """() int32 ``Status`` flags: those found at the start (``_start``), and OVERFLOW."""
    return (jnp.where(overflow, Status.OVERFLOW, 0) | start_status).astype(jnp.int32)


def _result(log, k, overflow, status, b: Balls, pin, t, dtype) -> ShotResult:
    batch = k.shape
    if pin is None:
        pin_fields = dict(
            pin_present=jnp.zeros(batch, bool), pin_down=jnp.zeros(batch, bool),
            pin_position=jnp.zeros(batch + (2,), dtype), pin_knocked_by=jnp.full(batch, -1, jnp.int8),
        )
    else:
        pin_fields = dict(
            pin_present=jnp.ones(batch, bool), pin_down=pin.state != PIN_STANDING,
            pin_position=pin.position, pin_knocked_by=pin.knocked_by,
        )
    return ShotResult(
        events=log, num_events=k, overflow=overflow, status=status, final_positions=b.r,
        final_time=t, on_table=b.motion != Motion.OFF_TABLE, **pin_fields,
    )


def _simulate(positions, shot: Shot, cue_ball, params: Params, pin_position=None) -> ShotResult:
    """One shot: a while loop of ``_next_event`` until every ball is at rest or the log is full."""
    b, pin, start_status = _start(positions, shot, cue_ball, params, pin_position)
    t = jnp.zeros((), params.dtype)
    log = EventLog.empty(params.capacity, b.r.shape[0], params.dtype)
    log = _record(log, 0, EventKind.CUE_STRIKE, t, jnp.asarray(cue_ball), -1, -1, b)

    def cond(state):
        return _is_moving(state[0].motion) & (state[3] < params.capacity)

    def body(state):
        b, pin, t, k, log = state
        b, pin, t, kind, ball, other, cushion = _next_event(b, pin, t, params)
        log = _record(log, k, kind, t, ball, other, cushion, b)
        return b, pin, t, k + 1, log

    state = (b, pin, t, jnp.ones((), jnp.int32), log)
    b, pin, t, k, log = jax.lax.while_loop(cond, body, state)
    overflow = _is_moving(b.motion)
    return _result(log, k, overflow, _status(overflow, start_status), b, pin, t, params.dtype)


def _simulate_pool(positions, shot: Shot, cue_ball, params: Params, pin_position, lanes: int) -> ShotResult:
    """A batch of shots on a pool of ``lanes`` simulation lanes.

    Shots differ a lot in length (a few events to a hundred), and a plain ``vmap`` of the while
    loop runs every shot for as many iterations as the longest one. Here each lane takes the next
    waiting shot as soon as its own shot ends, so the batch costs about (total events / lanes)
    iterations. Every shot still goes through exactly the arithmetic of ``_simulate`` (the
    candidate times of all lanes come from ``detect.candidate_times_batch``, which equals a
    ``vmap`` of ``detect.candidate_times``).
    pin_position: None, or (B, 2).
    """
    B, n = positions.shape[:2]
    C = params.capacity
    dtype = params.dtype
    b0, pin0, start_status = jax.vmap(lambda p, s, c, q: _start(p, s, c, params, q))(
        positions, shot, cue_ball, pin_position
    )
    log = jax.vmap(lambda c, b: _record(EventLog.empty(C, n, dtype), 0, EventKind.CUE_STRIKE, 0.0, c, -1, -1, b))(
        cue_ball, b0
    )
    lanes = max(1, min(lanes, B))
    take = lambda tree, idx: jax.tree_util.tree_map(lambda x: x[idx], tree)  # noqa: E731
    sid = jnp.arange(lanes, dtype=jnp.int32)
    carry = dict(
        sid=sid, next=jnp.asarray(lanes, jnp.int32), b=take(b0, sid), pin=take(pin0, sid),
        t=jnp.zeros((lanes,), dtype), k=jnp.ones((lanes,), jnp.int32), log=log,
        num=jnp.ones((B,), jnp.int32), final=b0, final_pin=pin0, final_t=jnp.zeros((B,), dtype),
    )

    def lane_where(c, new, old):
        return jax.tree_util.tree_map(
            lambda a, b: jnp.where(c.reshape(c.shape + (1,) * (a.ndim - 1)), a, b), new, old
        )

    def put(tree, rows, values, cols=None):
        idx = rows if cols is None else (rows, cols)
        return jax.tree_util.tree_map(lambda a, v: a.at[idx].set(v.astype(a.dtype), mode="drop"), tree, values)

    def cond(c):
        return jnp.any(c["sid"] < B)

    def body(c):
        c = dict(c)
        # Lanes whose shot has ended hand in its summary ...
        done = (c["sid"] < B) & (~_is_moving(c["b"].motion) | (c["k"] >= C))
        out = jnp.where(done, c["sid"], B)  # index B is out of range: dropped
        c["num"] = put(c["num"], out, c["k"])
        c["final"] = put(c["final"], out, c["b"])
        c["final_pin"] = put(c["final_pin"], out, c["pin"])
        c["final_t"] = put(c["final_t"], out, c["t"])
        # ... and take the next waiting shot.
        sid = jnp.where(done, jnp.minimum(c["next"] + jnp.cumsum(done) - 1, B), c["sid"]).astype(jnp.int32)
        c["next"] = c["next"] + jnp.sum(done).astype(jnp.int32)
        fresh = jnp.clip(sid, 0, B - 1)
        c["b"] = lane_where(done, take(b0, fresh), c["b"])
        c["pin"] = lane_where(done, take(pin0, fresh), c["pin"])
        c["t"] = jnp.where(done, 0.0, c["t"])
        c["k"] = jnp.where(done, 1, c["k"])
        c["sid"] = sid
        # Every lane with a shot in motion resolves its next event.
        step = (sid < B) & _is_moving(c["b"].motion) & (c["k"] < C)
        # Candidate times for all lanes at once: the pin's quartics are packed (``detect``).
        pins = None if pin_position is None else (c["pin"].position, c["pin"].state)
        times = candidate_times_batch(c["b"], params, Layout(n, pin_position is not None), pins)
        b, pin, t, kind, ball, other, cushion = jax.vmap(lambda b, p, t, x: _advance(b, p, t, x, params))(
            c["b"], c["pin"], c["t"], times
        )
        c["b"] = lane_where(step, b, c["b"])
        c["pin"] = lane_where(step, pin, c["pin"])
        c["t"] = jnp.where(step, t, c["t"])
        row = jnp.where(step, sid, B)
        record = EventLog(
            kind=kind, time=t, balls=jnp.stack([ball, other], -1), cushion=cushion,
            positions=b.r, velocities=b.v, spins=b.w, motion=b.motion,
        )
        c["log"] = put(c["log"], row, record, c["k"])
        c["k"] = jnp.where(step, c["k"] + 1, c["k"])
        return c

    c = jax.lax.while_loop(cond, body, carry)
    overflow = _is_moving(c["final"].motion)
    pin = None if pin_position is None else c["final_pin"]
    return _result(c["log"], c["num"], overflow, _status(overflow, start_status), c["final"], pin,
                   c["final_t"], dtype)


_simulate_jit = jax.jit(_simulate)
_simulate_pool_jit = jax.jit(_simulate_pool, static_argnames="lanes")
_simulate_batch_params_jit = jax.jit(jax.vmap(_simulate, in_axes=(0, 0, 0, 0, 0)))

# Lanes of the shot pool: enough to keep the vector units busy, few enough that lanes rarely idle.
DEFAULT_LANES = 128


def _as_shot(shot, params: Params, batch=None) -> Shot:
    """The shot, checked: real fields of shape () (or (batch,)), and within the limits of
    ``params`` when both are concrete (traced values are flagged in ``status`` instead)."""
    if not isinstance(shot, Shot):
        raise TypeError(f"shot must be a physics.Shot, got {type(shot).__name__}")
    check_fields(shot, () if batch is None else (batch,))
    check_limits(shot, params)
    return shot


def _as_params(params: Params | None, batch=None) -> Params:
    """The params (default: ``default_params()``), checked when concrete; with ``batch``, every
    leaf must have that leading batch axis (``batched_params``)."""
    params = default_params() if params is None else params
    if not isinstance(params, Params):
        raise TypeError(f"params must be a physics.Params (physics.default_params()), got {type(params).__name__}")
    check_params(params)
    if batch is not None:
        for path, leaf in jax.tree_util.tree_leaves_with_path(params):
            if np.shape(leaf)[:1] != (batch,):
                raise ValueError(
                    f"with batched_params, params{jax.tree_util.keystr(path)} must have the leading batch axis "
                    f"of positions ({batch},), got shape {np.shape(leaf)}"
                )
    return params


def _check_real(name, value):
    dtype = np.result_type(value) if not hasattr(value, "dtype") else np.dtype(value.dtype)
    if dtype.kind not in "fiu":
        raise TypeError(f"{name} must be real numbers (int or float), got dtype {dtype}")


def _check_positions(positions, batched: bool):
    shape = np.shape(positions)
    want = 3 if batched else 2
    if len(shape) != want or shape[-1] != 2 or shape[-2] < 1:
        expected = "(batch, n_balls, 2)" if batched else "(n_balls, 2)"
        raise ValueError(f"positions must have shape {expected}, got {shape}")
    if batched and shape[0] < 1:
        raise ValueError(f"positions must hold at least one shot (batch size >= 1), got shape {shape}")
    _check_real("positions", positions)


def _check_pin(pin, batch=None):
    if pin is None:
        return
    shape = np.shape(pin)
    ok = shape == (2,) or (batch is not None and shape == (batch, 2))
    if not ok:
        allowed = "(2,)" if batch is None else f"(2,) or ({batch}, 2)"
        raise ValueError(f"pin must be None (no pin) or a position of shape {allowed}, got {shape}")
    _check_real("pin", pin)


def _check_cue_ball(cue_ball, n: int, batch=None):
    """An integer ball index in [0, n - 1] (or (batch,) of them); the range only when concrete."""
    allowed = f"an integer ball index in [0, {n - 1}]" + ("" if batch is None else f", or ({batch},) of them")
    dtype = getattr(cue_ball, "dtype", None)
    integer = (isinstance(cue_ball, (int, np.integer)) and not isinstance(cue_ball, (bool, np.bool_))) or (
        dtype is not None and np.dtype(dtype).kind in "iu"
    )
    if not integer:
        raise TypeError(f"cue_ball must be {allowed}, got {cue_ball!r}")
    if np.shape(cue_ball) not in ((), () if batch is None else (batch,)):
        raise ValueError(f"cue_ball must be {allowed}, got shape {np.shape(cue_ball)}")
    if not isinstance(cue_ball, jax.core.Tracer):
        values = np.asarray(cue_ball)
        if np.any(values < 0) or np.any(values >= n):
            raise ValueError(f"cue_ball must be {allowed}, got {values.tolist()}")


def simulate(positions, shot: Shot, cue_ball: int = 0, params: Params | None = None, pin=None) -> ShotResult:
    """Simulate one shot. positions: (n_balls, 2) ball centres (m); the cue ball is struck.

    pin: None for the carom games, or where the pin stands, (2,) (the Hungarian game: usually
    ``params.table.centre``). Runs compiled (the first call for a given shape and set of static
    settings compiles). Bad arguments raise TypeError or ValueError naming the allowed values;
    what only shows in traced values (under ``jit``) is flagged in ``result.status``.
    """
    params = _as_params(params)
    _check_positions(positions, batched=False)
    _check_pin(pin)
    n = np.shape(positions)[0]
    _check_cue_ball(cue_ball, n)
    shot = _as_shot(shot, params)
    pin = None if pin is None else jnp.asarray(pin, params.dtype)
    return _simulate_jit(positions, shot, cue_ball, params, pin)


def simulate_batch(
    positions, shot: Shot, cue_ball=0, params: Params | None = None, pin=None, *,
    batched_params=False, lanes: int = DEFAULT_LANES,
) -> ShotResult:
    """Simulate a batch of shots in one compiled call.

    positions: (batch, n_balls, 2), batch >= 1; shot: a ``Shot`` whose fields are (batch,) arrays
    (scalars are broadcast); cue_ball: an int or (batch,) ints; pin: None, (2,) or (batch, 2);
    params: shared, or with a leading batch axis on every leaf when ``batched_params`` is True
    (to sweep a physical parameter, with a plain ``vmap``). lanes: how many shots run side by
    side (see ``_simulate_pool``). Bad arguments raise as in ``simulate``; a size that does not
    match the batch of ``positions`` raises ValueError naming the argument.
    """
    _check_positions(positions, batched=True)
    batch, n = np.shape(positions)[:2]
    params = _as_params(params, batch if batched_params else None)
    _check_pin(pin, batch)
    _check_cue_ball(cue_ball, n, batch)
    shot = _as_shot(shot, params, batch)
    shot = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(jnp.asarray(x, params.dtype), (batch,)), shot)
    cue_ball = jnp.broadcast_to(jnp.asarray(cue_ball, jnp.int32), (batch,))
    positions = jnp.asarray(positions, params.dtype)
    if pin is not None:
        pin = jnp.broadcast_to(jnp.asarray(pin, params.dtype), (batch, 2))
    if batched_params:
        return _simulate_batch_params_jit(positions, shot, cue_ball, params, pin)
    return _simulate_pool_jit(positions, shot, cue_ball, params, pin, lanes=int(lanes))
