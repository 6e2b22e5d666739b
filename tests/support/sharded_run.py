"""Run by tests/physics/test_devices.py in a subprocess, once with two forced CPU devices and once with one
(``XLA_FLAGS=--xla_force_host_platform_device_count=2`` must be set before JAX is imported):
batched physics, the batched environment step and one JAX PPO update on fixed seeds, written to
an .npz with the shardings seen.

    python -m tests.support.sharded_run OUT.npz
"""
from __future__ import annotations

import json
import sys

import jax
import jax.numpy as jnp
import numpy as np

import billiards_env
import physics
from agents.jax_ppo import PPO, PPOConfig
from billiards_env.runner import Runner
from physics import devices
from physics.api import simulate_pool_jit

BATCH = 8
CONFIG = PPOConfig(n_envs=BATCH, n_steps=1, minibatch_size=BATCH, epochs=1, lr_schedule="constant")


def devices_of(x) -> int:
    return len(x.sharding.device_set)


def main(out: str) -> None:
    params = physics.default_params()
    key = jax.random.PRNGKey(0)
    k = jax.random.split(key, 4)
    positions = jnp.stack([jnp.array([[0.7, 0.5], [1.4, 0.71], [2.1, 0.9]])] * BATCH)
    positions = positions + jax.random.uniform(k[0], positions.shape, minval=-0.05, maxval=0.05)
    shot = physics.Shot(V0=jax.random.uniform(k[1], (BATCH,), minval=1.0, maxval=6.0),
                        phi=jax.random.uniform(k[2], (BATCH,), minval=-180.0, maxval=180.0),
                        theta=jnp.zeros(BATCH), a=jnp.zeros(BATCH), b=jnp.zeros(BATCH))
    result = physics.simulate_batch(positions, shot, 0, params, lanes=4)
    # the pool on the default device alone, without the split: the one-device answer
    whole = simulate_pool_jit(positions, shot, jnp.zeros(BATCH, jnp.int32), params, None, lanes=4)

    env = billiards_env.make_functional("three_cushion")
    runner = Runner(env, BATCH, lanes=4)
    states = runner.reset(jax.random.PRNGKey(1), env.default_params)
    action = jax.random.uniform(k[3], (BATCH, 9), minval=-1.0, maxval=1.0)
    following, stepped = runner.step(states, action, jax.random.PRNGKey(2), env.default_params)

    ppo = PPO(env, CONFIG)
    state, metrics = ppo.update(ppo.init(0))
    net = {f"net{i}": np.asarray(x) for i, x in enumerate(jax.tree_util.tree_leaves(state.net))}
    seen = dict(devices=devices.device_count(), simulate=devices_of(result.final_positions),
                env=devices_of(stepped.observation), ppo_env=devices_of(state.env_state.observation))
    np.savez(out, final_positions=np.asarray(result.final_positions), whole=np.asarray(whole.final_positions),
             num_events=np.asarray(result.num_events), rewards=np.asarray(stepped.rewards),
             env_obs=np.asarray(following.observation), ppo_reward=np.asarray(metrics["reward"]),
             ppo_obs=np.asarray(state.env_state.observation), seen=json.dumps(seen), **net)


if __name__ == "__main__":
    main(sys.argv[1])
