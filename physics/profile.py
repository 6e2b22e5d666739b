"""Where the time of one event goes: the stages of the event loop timed one by one.

The shot pool (``physics.simulate.simulate_batch``) resolves one event per lane per iteration of its loop:

* ``setup``: the candidates' coefficients: ball-cushion quadratics, motion-change horizons and the
  ball-ball distance quartics (``detect._parts``);
* ``roots``: the first root of the ball-ball quartics that may have one, packed in a short buffer
  (``detect._solve_packed``);
* ``evolve``: every ball moved to the earliest candidate (``motion.evolve``);
* ``resolve``: the event itself: who meets whom, collision or transition (the rest of
  ``simulate._advance``);
* ``loop``: what is left of an iteration: assembling the candidates, writing the log, handing
  finished lanes new shots, thinning a full log.

Each stage is compiled on its own and run on a batch of ball states taken from real shots (one
logged event of each), so its time per lane is what it costs inside the loop, up to what fusion
across stages saves there. ``loop`` is the measured iteration time (a whole batch through the
pool, divided by its iterations) minus the four. ``experiments.bench_physics --profile`` prints it.
"""
from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from physics import detect, motion
from physics.events import ShotResult
from physics.params import Params
from physics.simulate import DEFAULT_LANES, _advance, simulate_batch

STAGES = ("setup", "roots", "evolve", "resolve", "loop")


def event_states(result: ShotResult, seed: int = 0) -> motion.Balls:
    """One logged event of each shot of a batch, as the ball states the loop resolves next: the
    positions, velocities, spins and motion right after the event (heights 0: the shots profiled
    are played on the cloth). Shots of a single event are skipped."""
    num = np.asarray(result.num_events)
    keep = np.nonzero(num > 1)[0]
    if keep.size == 0:
        raise ValueError("event_states needs shots of at least two events")
    rng = np.random.default_rng(seed)
    k = rng.integers(0, num[keep] - 1)  # not the last event: balls still move after it
    log = jax.tree_util.tree_map(np.asarray, result.events)
    r = log.positions[keep, k]
    return motion.Balls(jnp.asarray(r), jnp.asarray(log.velocities[keep, k]), jnp.asarray(log.spins[keep, k]),
                        jnp.zeros(r.shape[:2], r.dtype), jnp.zeros(r.shape[:2], r.dtype),
                        jnp.asarray(log.motion[keep, k]))


def _best(fn, args, repeats: int) -> float:
    """Seconds of the fastest of ``repeats`` calls (after one that compiles)."""
    jax.block_until_ready(fn(*args))
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        best = min(best, time.perf_counter() - t0)
    return best


def stage_times(balls: motion.Balls, params: Params, repeats: int = 20) -> dict:
    """Seconds per lane of each of the first four stages (see the module docstring) on a batch of
    ball states (no pin)."""
    n = balls.r.shape[-2]
    layout = detect.Layout(n, False)
    parts = jax.jit(jax.vmap(lambda b: detect._parts(b, params, layout)))
    quartics = tuple(x.reshape((-1,) + x.shape[2:]) for x in jax.block_until_ready(parts(balls)).pair)
    lanes = balls.r.shape[0]
    solve = jax.jit(lambda q: detect._solve_packed(q, detect.buffer_size(lanes)))
    times = jax.jit(lambda b: detect.candidate_times_batch(b, params, layout))(balls)
    dt = jnp.maximum(jnp.min(times, axis=-1), 0.0)
    move = jax.jit(jax.vmap(lambda b, dt: motion.evolve(b, dt, params)))
    zero = jnp.zeros(dt.shape, dt.dtype)
    advance = jax.jit(jax.vmap(lambda b, t, x: _advance(b, None, t, x, params)))
    evolve = _best(move, (balls, dt), repeats)
    seconds = dict(
        setup=_best(parts, (balls,), repeats),
        roots=_best(solve, (quartics,), repeats),
        evolve=evolve,
        resolve=max(_best(advance, (balls, zero, times), repeats) - evolve, 0.0),
    )
    return {name: s / lanes for name, s in seconds.items()}


def profile(positions, shots, params: Params, lanes: int = DEFAULT_LANES, repeats: int = 20,
            seed: int = 0) -> dict:
    """Microseconds per event and lane of every stage, and the whole iteration, for a batch of
    shots (positions (B, n, 2), a batched ``Shot``; cue ball 0, no pin) played on ``lanes`` lanes:
    {stage: us, "iteration": us, "events": mean events per shot}."""
    play = lambda: simulate_batch(positions, shots, 0, params, lanes=lanes)  # noqa: E731
    result = jax.block_until_ready(play())
    whole = _best(play, (), max(1, repeats // 4))
    events = float(np.asarray(result.num_events).sum())
    iteration = whole / events  # seconds per event and lane: an iteration resolves one event per lane
    stages = stage_times(event_states(result, seed), params, repeats)
    stages["loop"] = max(iteration - sum(stages.values()), 0.0)
    out = {name: 1e6 * s for name, s in stages.items()}
    out["iteration"] = 1e6 * iteration
    out["events"] = events / np.shape(positions)[0]
    return out


__all__ = ["STAGES", "event_states", "stage_times", "profile"]
