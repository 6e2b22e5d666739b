"""Learning curves of several training runs in one picture: each run's periodic evaluations (the
official mean reward a shot on its fixed layouts, ``curve.csv`` of ``experiments.train``) against
training shots and against wall time, one line per run named by its discipline, algorithm and
action form (its ``summary.json``); the Hungarian game's points a shot and the carom games'
success rates get panels of their own, since their scales differ. Also prints a table of each
run's last row and final comparison.

    python -m experiments.curves results/train/*_rl --out docs/rl_curves.png
"""
from __future__ import annotations

import argparse
import csv
import json
import os

import numpy as np

from experiments.common import begin
from rules import disciplines

FAMILIES = (("carom", "success rate a shot"), ("hungarian", "reward a shot (net points with --zero-sum)"))


def read_run(folder: str) -> dict:
    """A training run's curve rows and summary; ValueError naming what is missing."""
    paths = {name: os.path.join(folder, name) for name in ("curve.csv", "summary.json")}
    missing = [p for p in paths.values() if not os.path.isfile(p)]
    if missing:
        raise ValueError(f"{folder} is not a finished experiments.train run: no {', '.join(missing)}")
    with open(paths["curve.csv"]) as f:
        rows = [{k: float(v) if v not in ("", None) else np.nan for k, v in row.items()} for row in csv.DictReader(f)]
    with open(paths["summary.json"]) as f:
        summary = json.load(f)
    if not rows:
        raise ValueError(f"{paths['curve.csv']} has no evaluation rows")
    return dict(folder=folder, rows=rows, summary=summary)


def label(run: dict) -> str:
    """The run's name: discipline, algorithm (and SB3 where it trained), action form, the DQN's
    plays a position and mode where they are not one and "shot", what rates a leave where a
    carom's target adds it (``--gamma``), and a start from the success model (``--init-from-policy``)."""
    s, settings = run["summary"], run["summary"].get("settings", {})
    parts = [s["algorithm"].upper() + (" SB3" if s.get("backend") == "sb3" else ""), s.get("action_form", "strike")]
    if (settings.get("plays") or 1) > 1:
        parts.append(f"{settings['plays']} plays")
    if settings.get("mode", "shot") != "shot":
        parts.append(settings["mode"])
    if (settings.get("gamma") or 0) > 0:
        parts.append(f"leave {settings.get('leave', 'best')}")
    if settings.get("init_from_policy"):
        parts.append("from the success model")
    return f"{s['discipline']} ({', '.join(parts)})"


def family(run: dict) -> str:
    """The run's discipline family in the discipline table: its panel."""
    return disciplines.get(run["summary"]["discipline"]).family


def table(runs: list) -> list[str]:
    """Markdown rows: each run's shots, minutes, last periodic reward and final comparison."""
    lines = ["| run | shots | minutes | last periodic evaluation | final comparison | random player |",
             "| --- | --- | --- | --- | --- | --- |"]
    for run in runs:
        s, last = run["summary"], run["rows"][-1]
        final = s["final"]
        lines.append(f"| {label(run)} | {s['timesteps']:,} | {s['timings']['train_s'] / 60:.1f} | "
                     f"{last['mean_reward']:.3f} | {final['trained']['mean_reward']:.3f} | "
                     f"{final['random']['mean_reward']:.3f} |")
    return lines


def plot(runs: list, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = [(name, ylabel) for name, ylabel in FAMILIES if any(family(r) == name for r in runs)]
    fig, axes = plt.subplots(len(families), 2, figsize=(12, 4.2 * len(families)), squeeze=False)
    for (name, ylabel), row in zip(families, axes):
        for run in (r for r in runs if family(r) == name):
            x = np.array([r["timesteps"] for r in run["rows"]])
            y = np.array([r["mean_reward"] for r in run["rows"]])
            minutes = np.array([r["seconds"] for r in run["rows"]]) / 60
            line, = row[0].plot(x, y, "o-", ms=3, label=label(run))
            row[1].plot(minutes, y, "o-", ms=3, color=line.get_color(), label=label(run))
        for ax, xlabel in zip(row, ("training shots", "wall time (minutes)")):
            ax.set_xlabel(xlabel)
            ax.set_ylabel(f"{ylabel} (periodic evaluation)")
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> list:
    begin()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="experiments.train output folders")
    parser.add_argument("--out", default="results/curves.png", help="the picture (PNG)")
    args = parser.parse_args(argv)
    try:
        runs = [read_run(folder) for folder in args.runs]
    except ValueError as error:
        parser.error(str(error))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    plot(runs, args.out)
    lines = table(runs)
    print("\n".join(lines))
    print(f"wrote {args.out}")
    return runs


if __name__ == "__main__":
    main()
