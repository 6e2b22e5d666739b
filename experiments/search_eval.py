"""Evaluate the baseline agents (random, geometric, search) on three-cushion and the Hungarian game.

Three-cushion, "shot" mode: one shot from each of N random legal layouts (three balls uniform
inside the cushions, 5 mm apart) and from the starting position (rule C-2.1, where the first
carom must come off the red, C-2.2), played exactly and under the standard execution noise
(docs/physics.md section 6). Reported: success rate (the shot scored) with its 95 % Wilson interval,
foul rate, seconds per decision. With noise the search plans for it (several noisy plays per
candidate); the random and geometric agents do not change.

Hungarian 1000 game: points per shot from random layouts with the pin standing on its spot, and
points per inning (shots until the turn passes, at most ``--max-inning-shots``). Points are the
shooter's board change minus what a foul hands the opponent.

Writes under ``--out``: ``three_cushion.csv``, ``hungarian.csv``, ``shots.csv`` (one row per
shot played), ``summary.json`` (everything, with the budgets, timings and machine) and
``search_eval.png``; with ``--save-shots N`` also ``shots/<discipline>_<random|start>_<i>.json``,
a shot file (docs/shotfile.md) for each of the first N layouts of each set, holding the strike
each agent chose there at each noise (source: the agent; ``experiments.view --from`` replays it).

    python -m experiments.search_eval --out results/search_eval
    python -m experiments.search_eval --layouts 20 --start 5 --hungarian-layouts 10 --innings 5   # quick
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time

import jax
import numpy as np

import physics
import rules
from agents import (
    ExecutionNoise, SearchAgent, execute, net_points,
    random_states, shooter_points, stack_states, starting_state,
)
from agents import arena, shotfile
from agents.base import index_tree
from agents.specs import AgentSpecError, make_agent, parse_config
from agents.stats import mean_ci, wilson
from experiments.common import begin, machine_info, write_csv

AGENTS = ("random", "geometric", "search")
PAD = 256  # shots are played in batches padded to this size: one compiled simulation


def decide(agent, ruleset, states, params, keys):
    """Shots (fields (N,)) and seconds per decision. The search decides one state at a time
    (after a warm-up decision, so compilation is not counted); the others in one batch."""
    n = int(states.positions.shape[0])
    if not isinstance(agent, SearchAgent):
        jax.block_until_ready(agent.plan_batch(ruleset, states, params, keys))  # warm-up
        t0 = time.perf_counter()
        shots = jax.block_until_ready(agent.plan_batch(ruleset, states, params, keys))
        return shots, [(time.perf_counter() - t0) / n] * n, 0.0
    t0 = time.perf_counter()
    jax.block_until_ready(agent.plan(ruleset, index_tree(states, 0), params, jax.random.fold_in(keys[0], 7)))
    warmup = time.perf_counter() - t0
    shots, seconds = [], []
    for i in range(n):
        t0 = time.perf_counter()
        shots.append(jax.block_until_ready(agent.plan(ruleset, index_tree(states, i), params, keys[i])))
        seconds.append(time.perf_counter() - t0)
        if (i + 1) % 25 == 0 or i + 1 == n:
            print(f"    {i + 1}/{n} decisions, {np.mean(seconds):.2f} s each", flush=True)
    return stack_states(shots), seconds, warmup


def play(game, states, shots, params, noise: float, key):
    """Next states and outcomes of one shot per state, with execution noise of the given scale."""
    _, nxt, outcomes, _ = execute(game, states, shots, params, key=key, noise=ExecutionNoise(noise), pad_to=PAD)
    return nxt, outcomes


SHOT_FIELDS = ("V0", "phi", "theta", "a", "b")
SET_NAMES = {"random layouts": "random", "starting position": "start"}


def keep_shots(saved: dict, count: int, discipline: str, set_name: str, states, shots, agent: str, noise: float,
               points) -> None:
    """Note, for ``save_shots``, the strikes ``agent`` chose at ``noise`` on the first ``count``
    layouts of a set (``states`` and ``shots`` with a leading axis), and the points each made."""
    for i in range(min(count, int(np.shape(shots.V0)[0]))):
        entry = saved.setdefault((discipline, set_name, i), dict(state=index_tree(states, i), strikes=[], noise=set()))
        strike = physics.Shot(*(float(np.asarray(getattr(shots, f))[i]) for f in SHOT_FIELDS))
        entry["strikes"].append(shotfile.Strike.of(strike, f"{agent} at noise {noise:g}: {int(points[i])} point(s) "
                                                          "when played in the evaluation", agent))
        entry["noise"].add(noise)


def save_shots(folder: str, saved: dict, argv=None, seed: int = 0) -> list:
    """Write each noted layout and its strikes (``keep_shots``) as a shot file,
    ``folder/<discipline>_<random|start>_<i>.json``; returns the paths."""
    paths = []
    for (discipline, set_name, i), entry in saved.items():
        state = entry["state"]
        path = os.path.join(folder, f"{discipline}_{SET_NAMES.get(set_name, 'random')}_{i:03d}.json")
        noise = next(iter(entry["noise"])) if len(entry["noise"]) == 1 else None
        notes = f"Layout {i} of the {set_name} of experiments.search_eval, and the strike each agent chose there."
        if set_name == "starting position":
            notes += " The evaluation played it as the break (C-2.2: the first carom off the red)."
        shotfile.write(path, discipline, np.asarray(state.positions), entry["strikes"],
                       cue_ball=int(np.asarray(state.cue_ball)), player=int(np.asarray(state.current_player)),
                       noise=noise, notes=notes, provenance=shotfile.provenance("experiments.search_eval", argv,
                                                                                seed=seed, layout=i))
        paths.append(path)
    return paths


def three_cushion(args, exact, noisy, shot_rows, saved=None):
    params = physics.default_params()
    ruleset = rules.make_rules("three_cushion")
    key = jax.random.PRNGKey(args.seed)
    sets = {}
    if args.layouts > 0:
        sets["random layouts"] = random_states(ruleset, jax.random.fold_in(key, 1), params, args.layouts)
    if args.start > 0:
        sets["starting position"] = stack_states([starting_state(ruleset, params, breaker=0)] * args.start)
    rows = []
    for noise in args.noise:
        for set_name, states in sets.items():
            n = int(states.positions.shape[0])
            for name in args.agents:
                agent = make_agent(name, noise, exact, noisy)
                print(f"three-cushion, {set_name}, noise {noise:g}: {name} ({n} shots)", flush=True)
                keys = jax.random.split(jax.random.fold_in(key, 100 + int(10 * noise)), n)
                shots, seconds, warmup = decide(agent, ruleset, states, params, keys)
                key_n = jax.random.fold_in(key, 200 + int(10 * noise))
                _, outcomes = play(ruleset, states, shots, params, noise, key_n)
                points = np.asarray(shooter_points(outcomes, states.current_player))
                fouls = np.asarray(outcomes.foul)
                k = int((points > 0).sum())
                low, high = wilson(k, n)
                row = dict(
                    discipline="three_cushion", layouts=set_name, noise=noise, agent=name, shots=n,
                    successes=k, success_rate=k / n, ci_low=low, ci_high=high,
                    foul_rate=float(fouls.mean()), seconds_per_decision=float(np.median(seconds)),
                    mean_seconds_per_decision=float(np.mean(seconds)), first_decision_seconds=warmup,
                    budget=agent.config.budget if name == "search" else 0,
                    search_config=agent.config.describe() if name == "search" else "",
                )
                rows.append(row)
                print(f"  success {k}/{n} = {k / n:.3f} [{low:.3f}, {high:.3f}], fouls {fouls.mean():.3f}, "
                      f"{row['seconds_per_decision']:.3f} s per decision", flush=True)
                if saved is not None:
                    keep_shots(saved, args.save_shots, "three_cushion", set_name, states, shots, name, noise, points)
                shots_np = {f: np.asarray(getattr(shots, f)) for f in ("V0", "phi", "theta", "a", "b")}
                for i in range(n):
                    shot_rows.append(dict(
                        discipline="three_cushion", layouts=set_name, noise=noise, agent=name, index=i,
                        points=int(points[i]), foul=bool(fouls[i]), reason=int(outcomes.reason[i]),
                        **{f: float(v[i]) for f, v in shots_np.items()},
                    ))
    return rows


def hungarian(args, exact, noisy, shot_rows, saved=None):
    params = physics.default_params("hungarian")
    ruleset = rules.make_rules("hungarian_1000")
    key = jax.random.PRNGKey(args.seed + 1)
    rows = []
    for noise in args.noise:
        for name in args.agents:
            agent = make_agent(name, noise, exact, noisy)
            # Points per shot.
            n = args.hungarian_layouts
            if n > 0:
                print(f"Hungarian, shots, noise {noise:g}: {name} ({n} shots)", flush=True)
                states = random_states(ruleset, jax.random.fold_in(key, 1), params, n)
                keys = jax.random.split(jax.random.fold_in(key, 2), n)
                shots, seconds, _ = decide(agent, ruleset, states, params, keys)
                _, outcomes = play(ruleset, states, shots, params, noise, jax.random.fold_in(key, 3))
                net = np.asarray(net_points(outcomes, states.current_player))
                m, low, high = mean_ci(net)
                k = int((np.asarray(shooter_points(outcomes, states.current_player)) > 0).sum())
                rows.append(dict(
                    discipline="hungarian_1000", mode="shot", noise=noise, agent=name, count=n,
                    mean_points=m, ci_low=low, ci_high=high, success_rate=k / n,
                    foul_rate=float(np.asarray(outcomes.foul).mean()), shots_per_inning="",
                    seconds_per_decision=float(np.median(seconds)),
                ))
                print(f"  {m:.2f} points per shot [{low:.2f}, {high:.2f}], scored {k}/{n}", flush=True)
                if saved is not None:
                    keep_shots(saved, args.save_shots, "hungarian_1000", "random layouts", states, shots, name, noise,
                               net)
                for i in range(n):
                    shot_rows.append(dict(
                        discipline="hungarian_1000", layouts="random layouts", noise=noise, agent=name,
                        index=i, points=int(net[i]), foul=bool(outcomes.foul[i]), reason=int(outcomes.reason[i]),
                        **{f: float(getattr(shots, f)[i]) for f in ("V0", "phi", "theta", "a", "b")},
                    ))
            # Points per inning: agents.arena's innings (its planning chunks, noise and referee).
            n = args.innings
            if n > 0:
                print(f"Hungarian, innings, noise {noise:g}: {name} ({n} innings)", flush=True)
                batch = min(n, arena.BATCH)
                player = arena.Player(name, agent, arena.plan_chunk(agent, batch))
                innings, _ = arena.run_innings(player, ruleset, params, n, noise=noise, max_shots=args.max_inning_shots,
                                               seed=args.seed + 1, stream=int(10 * noise), batch=batch,
                                               progress=False)
                total = np.array([r["net_points"] for r in innings], float)
                shots_taken = np.array([r["shots"] for r in innings])
                fouls = sum(r["fouls"] for r in innings)
                m, low, high = mean_ci(total)
                rows.append(dict(
                    discipline="hungarian_1000", mode="inning", noise=noise, agent=name, count=n,
                    mean_points=m, ci_low=low, ci_high=high, success_rate=float(np.mean(total > 0)),
                    foul_rate=fouls / max(1, int(shots_taken.sum())),
                    shots_per_inning=float(shots_taken.mean()), seconds_per_decision="",
                ))
                print(f"  {m:.1f} points per inning [{low:.1f}, {high:.1f}], {shots_taken.mean():.2f} shots "
                      f"per inning", flush=True)
    return rows


COLOURS = {"random": "#9e9e9e", "geometric": "#4f81bd", "search": "#c0504d"}


def _grouped_bars(ax, rows, group_of, tick_of, value, low, high, title):
    """One bar per agent in each group of rows (``group_of(row)``), with its interval; an empty
    panel when there are no rows."""
    groups = list(dict.fromkeys(group_of(r) for r in rows))
    agents_seen = list(dict.fromkeys(r["agent"] for r in rows))
    width = 0.8 / max(1, len(agents_seen))
    for j, name in enumerate(agents_seen):
        mine = [(groups.index(group_of(r)), r) for r in rows if r["agent"] == name]
        xs = [g + (j - (len(agents_seen) - 1) / 2) * width for g, _ in mine]
        ys = np.array([r[value] for _, r in mine], float)
        err = np.array([[r[value] - r[low] for _, r in mine], [r[high] - r[value] for _, r in mine]], float)
        ax.bar(xs, ys, width, yerr=np.clip(np.nan_to_num(err), 0, None), capsize=3, label=name,
               color=COLOURS.get(name))
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([tick_of(g) for g in groups], fontsize=8)
    ax.set_title(title)
    if rows:
        ax.legend(fontsize=8)
    else:
        ax.axis("off")


def plot(path, tc_rows, hu_rows):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    _grouped_bars(axes[0], tc_rows, lambda r: (r["layouts"], r["noise"]),
                  lambda g: f"{g[0]}\n{'noise' if g[1] else 'exact'}", "success_rate", "ci_low", "ci_high",
                  "three-cushion, one shot")
    axes[0].axhline(0.6, color="black", lw=0.8, ls="--")
    axes[0].axhline(0.4, color="black", lw=0.8, ls=":")
    axes[0].set_ylim(0, 1.05)
    axes[0].set_ylabel("success rate (95 % Wilson interval)")
    _grouped_bars(axes[1], hu_rows, lambda r: (r["mode"], r["noise"]),
                  lambda g: f"per {g[0]}\n{'noise' if g[1] else 'exact'}", "mean_points", "ci_low", "ci_high",
                  "Hungarian 1000")
    axes[1].axhline(0.0, color="black", lw=0.8)
    axes[1].set_ylabel("points (95 % interval)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    begin()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Search options: fields of agents.SearchConfig, e.g. "
                                            "--search candidates=2048,refine_parents=32")
    parser.add_argument("--out", default="results/search_eval", help="results folder")
    parser.add_argument("--layouts", type=int, default=200, help="random three-cushion layouts")
    parser.add_argument("--start", type=int, default=40, help="shots from the three-cushion starting position")
    parser.add_argument("--hungarian-layouts", type=int, default=60, help="Hungarian shots from random layouts")
    parser.add_argument("--innings", type=int, default=30, help="Hungarian innings from random layouts")
    parser.add_argument("--max-inning-shots", type=int, default=10, help="an inning ends after this many shots")
    parser.add_argument("--noise", default="0,1", help="execution-noise scales, comma-separated (1: standard)")
    parser.add_argument("--agents", default=",".join(AGENTS), help="agents to evaluate, comma-separated")
    parser.add_argument("--search", default="", help="search options for exact execution")
    parser.add_argument("--noisy-search", default="", help="search options under noise")
    parser.add_argument("--skip", default="", help="parts to skip: three_cushion, hungarian")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save-shots", type=int, default=0, metavar="N",
                        help="also write the first N layouts of each set, with the strike each agent chose there, as "
                             "shot files under OUT/shots (docs/shotfile.md)")
    args = parser.parse_args(argv)
    if args.save_shots < 0:
        parser.error(f"argument --save-shots: must be a number of layouts >= 0, got {args.save_shots}")
    args.noise = [float(x) for x in args.noise.split(",") if x.strip()]
    args.agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    for a in args.agents:
        if a not in AGENTS:
            raise SystemExit(f"unknown agent {a!r}; valid: {', '.join(AGENTS)}")
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    try:
        exact = parse_config(args.search, SearchAgent().config)
        noisy = parse_config(args.noisy_search, SearchAgent.for_noise().config)
    except AgentSpecError as e:
        parser.error(str(e))
    os.makedirs(args.out, exist_ok=True)

    t0 = time.perf_counter()
    shot_rows = []
    saved = {} if args.save_shots else None
    tc_rows = [] if "three_cushion" in skip else three_cushion(args, exact, noisy, shot_rows, saved)
    hu_rows = [] if "hungarian" in skip else hungarian(args, exact, noisy, shot_rows, saved)
    if saved:
        print(f"wrote {len(save_shots(os.path.join(args.out, 'shots'), saved, argv, args.seed))} shot files under "
              f"{args.out}/shots", flush=True)
    write_csv(os.path.join(args.out, "three_cushion.csv"), tc_rows)
    write_csv(os.path.join(args.out, "hungarian.csv"), hu_rows)
    write_csv(os.path.join(args.out, "shots.csv"), shot_rows)
    summary = dict(
        three_cushion=tc_rows, hungarian=hu_rows,
        search_exact=dataclasses.asdict(exact), search_noisy=dataclasses.asdict(noisy),
        budget_exact=exact.describe(), budget_noisy=noisy.describe(),
        execution_noise_std=ExecutionNoise().describe(),
        arguments={k: v for k, v in vars(args).items()},
        machine=machine_info(),
        seconds=time.perf_counter() - t0,
    )
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=float)
    if tc_rows or hu_rows:
        plot(os.path.join(args.out, "search_eval.png"), tc_rows, hu_rows)
    print(f"wrote {args.out}/ in {summary['seconds']:.0f} s")
    return summary


if __name__ == "__main__":
    main()
