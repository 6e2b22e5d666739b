"""The main demonstration: the baseline agents play three-cushion, and the search agent's best
shots are drawn.

1. Each agent (random, geometric aim, the shipped reinforcement-learning policy, ``rl``: DQN
   over the "lines" form's candidates, trained from scratch on the official reward; the shipped
   success model's policy, supervised on simulated plays; neither simulates at decision time;
   the search guided by that model, and the search over simulated shots; both searches plan
   8,192 simulated shots per decision) plays ``--innings`` innings from random legal layouts
   under the standard execution noise: it shoots until it misses (``agents.arena``).
   Reported: points per inning (the game's own average), success and foul rates per shot, with
   95 % intervals, and the seconds per decision.
2. The search agent plays one shot from each of ``--layouts`` random layouts and the starting
   position; the best are drawn with their ball paths and the referee's call
   (``experiments.gallery``).

Writes under ``--out``: ``README.md`` (the table and the pictures), ``summary.csv``,
``innings.csv``, ``shots.csv``, ``summary.json``, ``evaluate.png`` and the gallery under
``gallery/`` (its pictures and ``view.html``, the shots in the interactive viewer). About 5
minutes on a 2-core CPU, most of it compiling and the searches' planning.

    python -m experiments.demo
    python -m experiments.demo --innings 10 --layouts 4     # quicker
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from agents import arena
from agents.specs import rl_path
from experiments import evaluate as ev
from experiments import gallery as gal
from experiments.common import NOISE_HELP, begin, noise_arg, write_csv

DISCIPLINE = "three_cushion"
MODEL = rl_path(DISCIPLINE) + ".npz"
COLUMNS = (("agent", "agent"), ("points per inning", "points_per_inning"), ("success per shot", "success_rate"),
           ("fouls per shot", "foul_rate"), ("shots per inning", "shots_per_inning"),
           ("s per decision", "seconds_per_decision"))


GUIDED = "guided:shots=8192"  # the guided search at the search's own budget


def agent_specs(learned: bool) -> list[str]:
    """The agents of the demonstration; the learned (RL) one only if its model is here."""
    specs = ["random", "geometric"]
    if learned and not os.path.exists(MODEL):
        print(f"the learned agent is left out: its model {os.path.relpath(MODEL)} is not here", file=sys.stderr)
    elif learned:
        specs.append("rl")
    return specs + ["policy", GUIDED, "search"]


def label(row) -> str:
    if row["agent"] == "rl":
        return "learned (RL: DQN, lines)"
    return "guided" if row["agent"] == GUIDED else row["agent"]


def table(rows) -> list[str]:
    """The summary rows as a Markdown table, each estimate with its 95 % interval."""
    lines = ["| " + " | ".join(name for name, _ in COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    for r in rows:
        cells = [
            label(r),
            f"{r['points_per_inning']:.2f} [{r['points_low']:.2f}, {r['points_high']:.2f}]",
            f"{r['success_rate']:.1%} [{r['success_low']:.1%}, {r['success_high']:.1%}]",
            f"{r['foul_rate']:.1%} [{r['foul_low']:.1%}, {r['foul_high']:.1%}]",
            f"{r['shots_per_inning']:.2f}",
            f"{r['seconds_per_decision']:.3f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def write_report(out, result, index, settings, seconds):
    lines = [
        "# Three-cushion: the baseline agents", "",
        f"{settings['innings']} innings per agent from random legal layouts, standard execution noise "
        f"(scale {settings['noise']:g}); an inning ends at the first miss or after {settings['max_shots']} "
        "shots. Intervals are 95 % (points: normal approximation; rates: Wilson).", "",
        *table(result["summary"]), "",
        "![points per inning and success rates](evaluate.png)", "",
        "## The search agent's best shots", "",
        f"Replayed in the interactive viewer: [gallery/{gal.VIEW}](gallery/{gal.VIEW}).", "",
    ]
    for e in index:
        lines += [f"**{e['rank']}. {e['where']}**: {e['call']} (cue ball: "
                  f"{' -> '.join(e['cue_ball_contacts']) or 'no contact'})", "",
                  f"![shot {e['rank']}](gallery/{e['files'][0]})", ""]
    lines.append(f"Run time: {seconds:.0f} s.")
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    begin()
    ap = argparse.ArgumentParser(prog="python -m experiments.demo", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--innings", type=int, default=40, help="innings per agent")
    ap.add_argument("--max-shots", type=int, default=10, help="an inning is capped after this many shots")
    ap.add_argument("--layouts", type=int, default=12, help="random layouts the gallery's shots come from")
    ap.add_argument("--top", type=int, default=3, help="shots drawn in the gallery (and the starting position's)")
    ap.add_argument("--noise", type=noise_arg, default=1.0, help=NOISE_HELP)
    ap.add_argument("--no-learned", action="store_true", help="leave out the shipped RL policy")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/demo", help="results folder")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    if args.innings < 1 or args.layouts < 0 or args.top < 1 or args.noise < 0 or args.max_shots < 1:
        ap.error("--innings, --top and --max-shots must be at least 1, --layouts and --noise at least 0")
    t0 = time.perf_counter()
    os.makedirs(args.out, exist_ok=True)
    specs = agent_specs(not args.no_learned)
    print(f"three-cushion, {args.innings} innings per agent under execution noise {args.noise:g}: "
          + ", ".join(label({"agent": s}) for s in specs), flush=True)
    players = {}  # shared by the evaluation and the gallery: the search compiles once
    result = arena.evaluate(DISCIPLINE, specs, innings=args.innings, max_shots=args.max_shots, noise=args.noise,
                            seed=args.seed, progress=not args.no_progress, players=players)
    ev.write_results(args.out, result, time.perf_counter() - t0)
    print("\n".join(table(result["summary"])), flush=True)

    gallery_dir = os.path.join(args.out, "gallery")
    index, rows, _ = gal.gallery(DISCIPLINE, "search", layouts=args.layouts, top=args.top, noise=args.noise,
                                 seed=args.seed, batch=arena.BATCH, out=gallery_dir, gif=False,
                                 progress=not args.no_progress, players=players)
    settings = dict(discipline=DISCIPLINE, agent="search", layouts=args.layouts, noise=args.noise)
    gal.write_index(gallery_dir, index, settings)
    write_csv(os.path.join(gallery_dir, "shots.csv"), rows)
    for e in index:
        print(f"  gallery {e['rank']}. {e['where']}: {e['call']}")
    seconds = time.perf_counter() - t0
    write_report(args.out, result, index, dict(vars(args), innings=args.innings), seconds)
    print(f"wrote {os.path.join(args.out, 'README.md')} with the table and the pictures ({seconds:.0f} s)")


if __name__ == "__main__":
    main()
