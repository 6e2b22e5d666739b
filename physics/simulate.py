"""One shot, from the cue strike until every ball is at rest, as a short chain of stages:

    strike -> loop( find next event -> advance all balls -> resolve it -> log it ) -> summarise

The loop is a ``lax.while_loop`` over a fixed-shape state, so a shot compiles once and a batch of
shots is the same code under ``vmap`` (one compiled call; the batch runs until its longest shot
ends). Every iteration resolves exactly one event; simultaneous events come out one after the
other at the same time, in the order ``physics.detect`` documents.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from physics import collide
from physics.detect import CUSHION_NORMALS, candidate_times, pairs
from physics.events import EventKind, EventLog, Motion, ShotResult, Status
from physics.motion import classify, end_of_state, evolve
from physics.params import Params, default_params
from physics.strike import Shot, shot_is_valid, strike

# Balls closer than this (m) beyond touching, or past a cushion, make an invalid layout.
LAYOUT_TOLERANCE = 1e-7


def layout_is_valid(positions, params):
    """() bool: no two balls overlap and every ball is inside the cushions."""
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
    return jnp.all(d >= 2 * R - LAYOUT_TOLERANCE) & jnp.all(inside) & jnp.all(jnp.isfinite(positions))


def _record(log, k, kind, t, ball, other, cushion, r, v, w, motion):
    k = jnp.minimum(k, log.capacity - 1)
    return EventLog(
        kind=log.kind.at[k].set(jnp.asarray(kind, jnp.int8)),
        time=log.time.at[k].set(t),
        balls=log.balls.at[k].set(jnp.stack([ball, other]).astype(jnp.int8)),
        cushion=log.cushion.at[k].set(jnp.asarray(cushion, jnp.int8)),
        positions=log.positions.at[k].set(r),
        velocities=log.velocities.at[k].set(v),
        spins=log.spins.at[k].set(w),
        motion=log.motion.at[k].set(motion),
    )


def _resolve(r, v, w, motion, index, params, pair_i, pair_j):
    """Apply event ``index`` (into the candidate list) to the balls, which are already there.

    All three kinds of resolution are computed for the balls involved and one is selected, so
    the step has no data-dependent branch. Returns (v, w, motion, kind, ball, other, cushion).
    """
    n = r.shape[0]
    n_pairs = pair_i.shape[0]
    is_pair = index < n_pairs
    is_cushion = (index >= n_pairs) & (index < n_pairs + 4 * n)

    # Ball-ball.
    p = jnp.clip(index, 0, max(n_pairs - 1, 0))
    bi, bj = jnp.asarray(pair_i)[p], jnp.asarray(pair_j)[p]
    d = r[bj] - r[bi]
    normal = d / jnp.linalg.norm(d)
    v1, w1, v2, w2 = collide.ball_ball_resolve(v[bi], w[bi], v[bj], w[bj], normal, params)
    v_bb = v.at[bi].set(v1).at[bj].set(v2)
    w_bb = w.at[bi].set(w1).at[bj].set(w2)

    # Ball-cushion.
    c = jnp.clip(index - n_pairs, 0, 4 * n - 1)
    cb, cushion = c // 4, c % 4
    cn = jnp.asarray(CUSHION_NORMALS, r.dtype)[cushion]
    vc, wc = collide.cushion_resolve(v[cb], w[cb], cn, params)
    v_c = v.at[cb].set(vc)
    w_c = w.at[cb].set(wc)

    # End of a motion state.
    tb = jnp.clip(index - n_pairs - 4 * n, 0, n - 1)
    vt, wt, mt = end_of_state(v[tb], w[tb], motion[tb], params)
    v_t = v.at[tb].set(vt)
    w_t = w.at[tb].set(wt)
    m_t = motion.at[tb].set(mt)
    old = motion[tb]
    transition_kind = jnp.select(
        [old == Motion.SLIDING, (old == Motion.ROLLING) & (mt == Motion.SPINNING), old == Motion.ROLLING],
        [EventKind.SLIDING_TO_ROLLING, EventKind.ROLLING_TO_SPINNING, EventKind.ROLLING_TO_STATIONARY],
        EventKind.SPINNING_TO_STATIONARY,
    )

    v_new = jnp.where(is_pair, v_bb, jnp.where(is_cushion, v_c, v_t))
    w_new = jnp.where(is_pair, w_bb, jnp.where(is_cushion, w_c, w_t))
    m_new = jnp.where(is_pair | is_cushion, classify(v_new, w_new, params), m_t)
    kind = jnp.where(is_pair, EventKind.BALL_BALL, jnp.where(is_cushion, EventKind.BALL_CUSHION, transition_kind))
    ball = jnp.where(is_pair, bi, jnp.where(is_cushion, cb, tb))
    other = jnp.where(is_pair, bj, -1)
    cushion_id = jnp.where(is_cushion, cushion, -1)
    return v_new, w_new, m_new, kind, ball, other, cushion_id


def _start(positions, shot: Shot, cue_ball, params: Params):
    """The balls just after the strike, and whether the shot and layout are valid.

    An invalid shot or layout leaves every ball at rest, so nothing is simulated.
    Returns (r, v, w, motion, shot_ok, layout_ok).
    """
    dtype = params.dtype
    r = jnp.asarray(positions, dtype)
    n = r.shape[0]
    cue_ball = jnp.asarray(cue_ball, jnp.int32)
    shot_ok = shot_is_valid(shot, params) & (cue_ball >= 0) & (cue_ball < n)
    layout_ok = layout_is_valid(r, params)
    go = shot_ok & layout_ok
    v_cue, w_cue = strike(shot, params)
    v = jnp.zeros((n, 2), dtype).at[cue_ball].set(jnp.where(go, v_cue, 0.0))
    w = jnp.zeros((n, 3), dtype).at[cue_ball].set(jnp.where(go, w_cue, 0.0))
    return r, v, w, classify(v, w, params), shot_ok, layout_ok


def _next_event(r, v, w, motion, t, params):
    """Find the next event, advance every ball to it and resolve it.

    Returns (r, v, w, motion, t, kind, ball, other, cushion).
    """
    pair_i, pair_j = pairs(r.shape[0])
    times = candidate_times(r, v, w, motion, params, pair_i, pair_j)
    index = jnp.argmin(times)
    dt = jnp.maximum(times[index], 0.0)
    r, v, w = evolve(r, v, w, motion, dt, params)
    v, w, motion, kind, ball, other, cushion = _resolve(r, v, w, motion, index, params, pair_i, pair_j)
    return r, v, w, motion, t + dt, kind, ball, other, cushion


def _is_moving(motion):
    return jnp.any(motion != Motion.STATIONARY, axis=-1)


def _status(overflow, shot_ok, layout_ok):
    return (
        jnp.where(overflow, Status.OVERFLOW, 0)
        | jnp.where(shot_ok, 0, Status.INVALID_SHOT)
        | jnp.where(layout_ok, 0, Status.INVALID_LAYOUT)
    ).astype(jnp.int32)


def _result(log, k, overflow, status, r, t, dtype) -> ShotResult:
    n = r.shape[-2]
    batch = k.shape
    return ShotResult(
        events=log,
        num_events=k,
        overflow=overflow,
        status=status,
        final_positions=r,
        final_time=t,
        on_table=jnp.ones(batch + (n,), bool),
        pin_present=jnp.zeros(batch, bool),
        pin_down=jnp.zeros(batch, bool),
        pin_position=jnp.zeros(batch + (2,), dtype),
        pin_knocked_by=jnp.full(batch, -1, jnp.int8),
    )


def _simulate(positions, shot: Shot, cue_ball, params: Params) -> ShotResult:
    """One shot: a while loop of ``_next_event`` until every ball is at rest or the log is full."""
    r, v, w, motion, shot_ok, layout_ok = _start(positions, shot, cue_ball, params)
    t = jnp.zeros((), params.dtype)
    log = EventLog.empty(params.capacity, r.shape[0], params.dtype)
    log = _record(log, 0, EventKind.CUE_STRIKE, t, cue_ball, -1, -1, r, v, w, motion)

    def cond(state):
        return _is_moving(state[3]) & (state[5] < params.capacity)

    def body(state):
        r, v, w, motion, t, k, log = state
        r, v, w, motion, t, *event = _next_event(r, v, w, motion, t, params)
        log = _record(log, k, *event[:1], t, *event[1:], r, v, w, motion)
        return r, v, w, motion, t, k + 1, log

    state = (r, v, w, motion, t, jnp.ones((), jnp.int32), log)
    r, v, w, motion, t, k, log = jax.lax.while_loop(cond, body, state)
    overflow = _is_moving(motion)
    return _result(log, k, overflow, _status(overflow, shot_ok, layout_ok), r, t, params.dtype)


def _simulate_pool(positions, shot: Shot, cue_ball, params: Params, lanes: int) -> ShotResult:
    """A batch of shots on a pool of ``lanes`` simulation lanes.

    Shots differ a lot in length (a few events to a hundred), and a plain ``vmap`` of the while
    loop runs every shot for as many iterations as the longest one. Here each lane takes the next
    waiting shot as soon as its own shot ends, so the batch costs about (total events / lanes)
    iterations. Every shot still goes through exactly the arithmetic of ``_simulate``.
    """
    B, n = positions.shape[:2]
    C = params.capacity
    dtype = params.dtype
    r0, v0, w0, m0, shot_ok, layout_ok = jax.vmap(lambda p, s, c: _start(p, s, c, params))(
        positions, shot, cue_ball
    )
    log = jax.vmap(lambda *a: _record(EventLog.empty(C, n, dtype), 0, EventKind.CUE_STRIKE, *a))(
        jnp.zeros((B,), dtype), cue_ball, jnp.full((B,), -1), jnp.full((B,), -1), r0, v0, w0, m0
    )
    lanes = max(1, min(lanes, B))
    sid = jnp.arange(lanes, dtype=jnp.int32)
    carry = dict(
        sid=sid, next=jnp.asarray(lanes, jnp.int32), r=r0[sid], v=v0[sid], w=w0[sid], m=m0[sid],
        t=jnp.zeros((lanes,), dtype), k=jnp.ones((lanes,), jnp.int32), log=log,
        num=jnp.ones((B,), jnp.int32), final_r=r0, final_t=jnp.zeros((B,), dtype),
        overflow=jnp.zeros((B,), bool),
    )
    lane_where = lambda c, a, b: jnp.where(c.reshape(c.shape + (1,) * (a.ndim - 1)), a, b)  # noqa: E731

    def cond(c):
        return jnp.any(c["sid"] < B)

    def body(c):
        c = dict(c)
        moving = _is_moving(c["m"])
        # Lanes whose shot has ended hand in its summary ...
        done = (c["sid"] < B) & (~moving | (c["k"] >= C))
        out = jnp.where(done, c["sid"], B)  # index B is out of range: dropped
        c["num"] = c["num"].at[out].set(c["k"], mode="drop")
        c["final_r"] = c["final_r"].at[out].set(c["r"], mode="drop")
        c["final_t"] = c["final_t"].at[out].set(c["t"], mode="drop")
        c["overflow"] = c["overflow"].at[out].set(moving, mode="drop")
        # ... and take the next waiting shot.
        new = jnp.minimum(c["next"] + jnp.cumsum(done) - 1, B).astype(jnp.int32)
        sid = jnp.where(done, new, c["sid"])
        c["next"] = c["next"] + jnp.sum(done).astype(jnp.int32)
        take = jnp.clip(sid, 0, B - 1)
        for key, init in (("r", r0), ("v", v0), ("w", w0), ("m", m0)):
            c[key] = lane_where(done, init[take], c[key])
        c["t"] = jnp.where(done, 0.0, c["t"])
        c["k"] = jnp.where(done, 1, c["k"])
        c["sid"] = sid
        # Every lane with a shot in motion resolves its next event.
        step = (sid < B) & _is_moving(c["m"]) & (c["k"] < C)
        r, v, w, m, t, kind, ball, other, cushion = jax.vmap(
            lambda r, v, w, m, t: _next_event(r, v, w, m, t, params)
        )(c["r"], c["v"], c["w"], c["m"], c["t"])
        for key, new_value in (("r", r), ("v", v), ("w", w), ("m", m), ("t", t)):
            c[key] = lane_where(step, new_value, c[key])
        row, col = jnp.where(step, sid, B), c["k"]
        lg = c["log"]
        c["log"] = EventLog(
            kind=lg.kind.at[row, col].set(kind.astype(jnp.int8), mode="drop"),
            time=lg.time.at[row, col].set(t, mode="drop"),
            balls=lg.balls.at[row, col].set(jnp.stack([ball, other], -1).astype(jnp.int8), mode="drop"),
            cushion=lg.cushion.at[row, col].set(cushion.astype(jnp.int8), mode="drop"),
            positions=lg.positions.at[row, col].set(r, mode="drop"),
            velocities=lg.velocities.at[row, col].set(v, mode="drop"),
            spins=lg.spins.at[row, col].set(w, mode="drop"),
            motion=lg.motion.at[row, col].set(m, mode="drop"),
        )
        c["k"] = jnp.where(step, c["k"] + 1, c["k"])
        return c

    c = jax.lax.while_loop(cond, body, carry)
    status = _status(c["overflow"], shot_ok, layout_ok)
    return _result(c["log"], c["num"], c["overflow"], status, c["final_r"], c["final_t"], dtype)


_simulate_jit = jax.jit(_simulate)
_simulate_pool_jit = jax.jit(_simulate_pool, static_argnames="lanes")
_simulate_batch_params_jit = jax.jit(jax.vmap(_simulate, in_axes=(0, 0, 0, 0)))

# Lanes of the shot pool: enough to keep the vector units busy, few enough that lanes rarely idle.
DEFAULT_LANES = 128


def _as_shot(shot) -> Shot:
    if isinstance(shot, Shot):
        return shot
    raise TypeError(f"shot must be a physics.Shot, got {type(shot).__name__}")


def _check_positions(positions, batched: bool):
    shape = np.shape(positions)
    want = 3 if batched else 2
    if len(shape) != want or shape[-1] != 2 or shape[-2] < 1:
        expected = "(batch, n_balls, 2)" if batched else "(n_balls, 2)"
        raise ValueError(f"positions must have shape {expected}, got {shape}")


def simulate(positions, shot: Shot, cue_ball: int = 0, params: Params | None = None) -> ShotResult:
    """Simulate one shot. positions: (n_balls, 2) ball centres (m); the cue ball is struck.

    Runs compiled (the first call for a given shape and set of static settings compiles).
    Problems the compiled code cannot raise for are flagged in ``result.status``.
    """
    params = default_params() if params is None else params
    _check_positions(positions, batched=False)
    n = np.shape(positions)[0]
    if isinstance(cue_ball, (int, np.integer)) and not 0 <= cue_ball < n:
        raise ValueError(f"cue_ball must be a ball index in [0, {n - 1}], got {cue_ball}")
    return _simulate_jit(positions, _as_shot(shot), cue_ball, params)


def simulate_batch(
    positions, shot: Shot, cue_ball=0, params: Params | None = None, *, batched_params=False,
    lanes: int = DEFAULT_LANES,
) -> ShotResult:
    """Simulate a batch of shots in one compiled call.

    positions: (batch, n_balls, 2); shot: a ``Shot`` whose fields are (batch,) arrays (scalars
    are broadcast); cue_ball: an int or (batch,) ints; params: shared, or with a leading batch
    axis on every leaf when ``batched_params`` is True (to sweep a physical parameter, with a
    plain ``vmap``). lanes: how many shots run side by side (see ``_simulate_pool``).
    """
    params = default_params() if params is None else params
    _check_positions(positions, batched=True)
    batch = np.shape(positions)[0]
    shot = _as_shot(shot)
    shot = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(jnp.asarray(x, params.dtype), (batch,)), shot)
    cue_ball = jnp.broadcast_to(jnp.asarray(cue_ball, jnp.int32), (batch,))
    positions = jnp.asarray(positions, params.dtype)
    if batched_params:
        return _simulate_batch_params_jit(positions, shot, cue_ball, params)
    return _simulate_pool_jit(positions, shot, cue_ball, params, lanes=int(lanes))
