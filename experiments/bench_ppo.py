"""Throughput of the JAX PPO (``agents.jax_ppo``): training shots per second with the environments
stepped on the physics lane pool and with a ``vmap`` of the one-environment step, and where an
update's time goes (the environment steps alone, timed with the same batch, against the whole
update: rollout, GAE and the epochs).

    python -m experiments.bench_ppo --discipline three_cushion --updates 5
"""
from __future__ import annotations

import argparse
import json
import os
import time

import jax
import numpy as np

import billiards_env
from experiments.common import begin, machine_info, need

need("optax", what="experiments.bench_ppo")  # agents.jax_ppo imports it
from agents.jax_ppo import ENV_STEPS, PPO, PPOConfig  # noqa: E402
from billiards_env.runner import Runner  # noqa: E402


def timed(fn, repeats: int):
    """(seconds of the first call, compile included; mean seconds of ``repeats`` more calls)."""
    t0 = time.perf_counter()
    jax.block_until_ready(fn())
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(repeats):
        jax.block_until_ready(fn())
    return first, (time.perf_counter() - t0) / repeats


def bench(discipline: str, env_step: str, updates: int, config: PPOConfig) -> dict:
    env = billiards_env.make_functional(discipline)
    ppo = PPO(env, PPOConfig(**{**config.__dict__, "env_step": env_step}))
    box = [ppo.init(0)]

    def update():
        box[0], metrics = ppo.update(box[0])
        return metrics

    first, per_update = timed(update, updates)
    shots = ppo.shots_per_update
    return dict(env_step=env_step, first_update_s=round(first, 1), update_s=round(per_update, 3),
                shots_per_s=round(shots / per_update, 1))


def bench_env_alone(discipline: str, steps: int, config: PPOConfig) -> dict:
    """The pool-stepped batch alone, as many steps as one update's rollout."""
    env = billiards_env.make_functional(discipline)
    runner = Runner(env, config.n_envs, lanes=config.lanes)
    state = [runner.reset(jax.random.PRNGKey(0), env.default_params)]
    key = [jax.random.PRNGKey(1)]
    rng = np.random.default_rng(0)

    def rollout():
        for _ in range(config.n_steps):
            key[0], k = jax.random.split(key[0])
            action = rng.uniform(-1, 1, (config.n_envs, 9)).astype(np.float32)
            state[0], _ = runner.step(state[0], action, k, env.default_params)
        return state[0].observation

    first, per_rollout = timed(rollout, steps)
    return dict(rollout_s=round(per_rollout, 3), env_shots_per_s=round(config.n_envs * config.n_steps / per_rollout, 1))


def main(argv=None):
    begin()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--discipline", default="three_cushion")
    parser.add_argument("--updates", type=int, default=5, help="timed updates after the first (compiling) one")
    parser.add_argument("--env-steps", nargs="+", default=list(ENV_STEPS), choices=ENV_STEPS)
    parser.add_argument("--out", default=os.path.join("results", "bench_ppo.json"))
    args = parser.parse_args(argv)
    if args.updates < 1:  # the mean time per update divides by it
        parser.error(f"--updates must be at least 1, got {args.updates}")
    config = PPOConfig()
    rows = [bench(args.discipline, mode, args.updates, config) for mode in args.env_steps]
    env_alone = bench_env_alone(args.discipline, args.updates, config)
    for row in rows:
        print(json.dumps(row))
    print(json.dumps(env_alone))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(dict(discipline=args.discipline, config=config.__dict__, rows=rows, env_alone=env_alone,
                       machine=machine_info()), f, indent=2, default=str)
    return rows, env_alone


if __name__ == "__main__":
    main()
