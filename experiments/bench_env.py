"""Environment benchmark: env steps per second of ``gymnasium.make_vec`` for each discipline and
batch size, and Stable-Baselines3 PPO training steps per second through the JAX-batched adapter.

Random actions, "shot" mode (one shot per episode, reset in the same step). The first step of
each configuration compiles; it is timed on its own and left out of the rate. Writes
``env_steps.csv`` and ``ppo.csv`` under the output folder and prints the machine it ran on.

    python -m experiments.bench_env --out results/bench_env
    python -m experiments.bench_env --disciplines three_cushion --envs 1 64 --ppo-steps 4096
"""
from __future__ import annotations

import argparse
import csv
import os
import platform
import time

import gymnasium as gym
import jax
import numpy as np

import billiards_env
from experiments.common import begin, need
from physics.simulate import DEFAULT_LANES


def machine_info() -> dict:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "jax": jax.__version__,
        "devices": ", ".join(str(d) for d in jax.devices()),
    }


def time_vec(discipline: str, num_envs: int, steps: int, fused: bool, lanes: int, seed: int = 0) -> dict:
    env = gym.make_vec(billiards_env.IDS[discipline], num_envs=num_envs, fused=fused, lanes=lanes)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    actions = rng.uniform(-1, 1, (steps + 1, num_envs, 9)).astype(np.float32)
    start = time.perf_counter()
    env.step(actions[0])
    compile_s = time.perf_counter() - start
    fouls = 0
    start = time.perf_counter()
    for k in range(1, steps + 1):
        _, _, _, _, info = env.step(actions[k])
        fouls += int(np.sum(info["foul"]))
    seconds = time.perf_counter() - start
    env.close()
    return dict(discipline=discipline, num_envs=num_envs, steps=steps, first_step_s=round(compile_s, 3),
                seconds=round(seconds, 4), env_steps_per_s=round(num_envs * steps / seconds, 1),
                foul_fraction=round(fouls / (num_envs * steps), 3))


def time_ppo(discipline: str, num_envs: int, total: int, fused: bool, lanes: int) -> dict:
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.logger import Logger

    from billiards_env.sb3 import BilliardsVecEnv

    torch.set_num_threads(max(1, (os.cpu_count() or 1)))
    venv = BilliardsVecEnv(discipline, num_envs=num_envs, fused=fused, lanes=lanes)
    n_steps = max(2, 2048 // num_envs)
    model = PPO("MlpPolicy", venv, n_steps=n_steps, batch_size=min(512, n_steps * num_envs), n_epochs=4,
                device="cpu", seed=0, policy_kwargs=dict(net_arch=[64, 64]))
    model.set_logger(Logger(folder=None, output_formats=[]))  # no log folder left behind
    start = time.perf_counter()
    model.learn(n_steps * num_envs)  # compiles; not counted
    warm = time.perf_counter() - start
    before = model.num_timesteps
    start = time.perf_counter()
    model.learn(total, reset_num_timesteps=False)
    seconds = time.perf_counter() - start
    done = model.num_timesteps - before
    return dict(discipline=discipline, num_envs=num_envs, n_steps=n_steps, timesteps=done,
                warmup_s=round(warm, 2), seconds=round(seconds, 2), train_steps_per_s=round(done / seconds, 1))


def write(rows, path):
    if not rows:
        return
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def main(argv=None):
    begin()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--out", default="results/bench_env", help="output folder")
    parser.add_argument("--disciplines", nargs="+", default=list(billiards_env.IDS),
                        choices=list(billiards_env.IDS), help="disciplines to time")
    parser.add_argument("--envs", nargs="+", type=int, default=[1, 64, 1024, 8192], help="batch sizes")
    parser.add_argument("--steps", type=int, default=5, help="timed steps per configuration")
    parser.add_argument("--lanes", type=int, default=DEFAULT_LANES, help="physics lanes of the batched step")
    parser.add_argument("--staged", action="store_true", help="compile stage by stage instead of one call per step")
    parser.add_argument("--ppo-steps", type=int, default=8192, help="PPO timesteps timed per discipline (0: skip)")
    parser.add_argument("--ppo-envs", type=int, default=256, help="environments of the PPO adapter")
    args = parser.parse_args(argv)
    if args.ppo_steps > 0:  # before any timing: the PPO rows need Stable-Baselines3 and torch (the rl extra)
        for module in ("torch", "stable_baselines3"):
            need(module, what="experiments.bench_env's PPO timing (--ppo-steps 0 leaves it out)")
    # Each is a divisor of a rate (steps, environments) or a batch shape: 0 would divide by zero.
    for flag, values in (("--envs", args.envs), ("--steps", [args.steps]), ("--lanes", [args.lanes]),
                         ("--ppo-envs", [args.ppo_envs])):
        if min(values) < 1:
            parser.error(f"{flag} must be at least 1, got {' '.join(map(str, values))}")
    if args.ppo_steps < 0:
        parser.error(f"--ppo-steps must be at least 0 (0: skip), got {args.ppo_steps}")

    os.makedirs(args.out, exist_ok=True)
    info = machine_info()
    print("machine:", "; ".join(f"{k} {v}" for k, v in info.items()), flush=True)
    with open(os.path.join(args.out, "machine.txt"), "w") as f:
        f.writelines(f"{k}: {v}\n" for k, v in info.items())

    rows = []
    for discipline in args.disciplines:
        for n in args.envs:
            row = time_vec(discipline, n, args.steps, not args.staged, args.lanes)
            rows.append(row)
            print(f"{discipline:15s} envs {n:5d}: {row['env_steps_per_s']:10.1f} env steps/s "
                  f"(first step {row['first_step_s']:.1f} s)", flush=True)
            write(rows, os.path.join(args.out, "env_steps.csv"))

    ppo_rows = []
    if args.ppo_steps > 0:
        for discipline in args.disciplines:
            row = time_ppo(discipline, args.ppo_envs, args.ppo_steps, not args.staged, args.lanes)
            ppo_rows.append(row)
            print(f"{discipline:15s} PPO, {args.ppo_envs} envs: {row['train_steps_per_s']:.1f} steps/s", flush=True)
            write(ppo_rows, os.path.join(args.out, "ppo.csv"))
    print(f"wrote {args.out}/env_steps.csv" + (f" and {args.out}/ppo.csv" if ppo_rows else ""))


if __name__ == "__main__":
    main()
