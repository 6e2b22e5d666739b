"""Learning curves of training runs against wall time, on one plot: e.g. the same PPO trained by
the JAX backend and by Stable-Baselines3 (``experiments.train --backend jax|sb3``).

Each run is a folder written by ``experiments.train`` (its ``curve.csv`` and ``summary.json``);
the curve's ``seconds`` column is the wall time since the command started, so compile and setup
time count against each backend.

    python -m experiments.compare_backends results/train/three_cushion_ppo_jax results/train/three_cushion_ppo \\
        --out results/train/backends.png
"""
from __future__ import annotations

import argparse
import csv
import json
import os

import numpy as np

from experiments.common import begin


def read_run(folder: str) -> dict:
    """A run's label (backend, algorithm, shots/s) and its curve's columns as arrays; ValueError
    when the folder holds no curve."""
    curve = os.path.join(folder, "curve.csv")
    if not os.path.isfile(curve):
        raise ValueError(f"{folder} holds no curve.csv (a folder written by experiments.train)")
    with open(curve, newline="") as f:
        rows = list(csv.DictReader(f))
    summary_path = os.path.join(folder, "summary.json")
    summary = {}
    if os.path.isfile(summary_path):
        with open(summary_path) as f:
            summary = json.load(f)
    backend = summary.get("backend", "sb3")  # summaries from before the jax backend are SB3's
    rate = summary.get("timings", {}).get("wall_shots_per_s")  # the training loop's, evaluations included
    label = f"{summary.get('algorithm', 'ppo').upper()} ({backend})" + (f", {rate:,.0f} shots/s" if rate else "")
    columns = {k: np.array([float(r[k]) for r in rows]) for k in ("seconds", "timesteps", "success_rate",
                                                                  "mean_reward")}
    return dict(label=label, **columns)


def plot(runs: list[dict], path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4))
    for run in runs:
        axes[0].plot(run["seconds"], run["success_rate"], "o-", ms=3, label=run["label"])
        axes[1].plot(run["seconds"], run["mean_reward"], "o-", ms=3, label=run["label"])
    for ax, what in zip(axes, ("success rate (deterministic policy)", "mean official reward per shot")):
        ax.set_xlabel("wall time since the command started (s)")
        ax.set_ylabel(what)
        ax.legend(fontsize=8)
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    begin()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="folders written by experiments.train")
    parser.add_argument("--out", default=os.path.join("results", "train", "backends.png"), help="the plot (.png)")
    parser.add_argument("--title", default="learning curves against wall time")
    args = parser.parse_args(argv)
    runs = [read_run(folder) for folder in args.runs]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    plot(runs, args.out, args.title)
    print(f"wrote {args.out}")
    return runs


if __name__ == "__main__":
    main()
