"""Evaluate any agent on any discipline, over innings or whole games, under execution noise.

The innings and games are episodes of the discipline's own functional environment in its
"inning" and "game" modes, played by ``agents.arena`` (its docstring has the contract): the
agents choose every shot, given to the environment as its action and played with ``--noise``
times the standard execution noise (0 plays the planned shot, to the float32 precision of an
action), then judged by the referee.

Innings (``--innings N``): each from a random legal layout (``agents.states``), from the stored
benchmark layouts in order (``--layouts bench-v1``: 1,000 a discipline, the same on every machine,
``billiards_env.layouts``), or from the discipline's starting position (``--from start``); the
same player shoots until the turn passes or the game ends, at most ``--max-shots`` shots (then the
inning is "capped" and counts with the points made so far). Games (``--games N``): from the
starting position, both players' shots, to the game's distance (``--distance`` lowers it, for the
games only) or at most ``--max-game-shots`` shots ("unfinished"); the agent plays both sides, or
the first agent plays player 0 against ``--opponent``; the breaker alternates from game to game.
Per agent:

* points per inning: the shooter's points on the board over the inning (caroms, or Hungarian
  points, where a foul can take the run away, H-9.9), mean and 95 % interval (never below 0, and
  not [0, 0] when no inning scored: ``agents.stats.bounded_mean_ci``); also the net points;
* success rate per shot (``Outcome.shot_value > 0``) and foul rate per shot, Wilson intervals;
* shots per inning; seconds per decision (planning wall time per state planned, padding rows
  left out; the first call of each kind of rules compiles and is timed apart);
* games: winner, game length in innings, the general average per agent, with intervals;
* paired differences (two agents or more, innings): each agent's points and net points per
  inning minus the first agent's, inning by inning on the same layouts and noise draws, mean and
  95 % interval: the fair test of whether one agent makes more points than another.

Rule variants (``--variant NAME:OPTION=VALUE,...``, repeatable, as ``experiments.rule_variants``
takes them): the agents are evaluated under the rules as written and under each variant (its
options over ``--rule``'s), on the same layouts and noise draws; every row names its ``variant``,
and ``paired_variants.csv`` holds each variant's points per inning minus the rules as written's,
per agent, inning by inning. ``--save-shots N``: for each of the first N innings' layouts, a shot
file (``shots/layout_NNNN.json``, docs/shotfile.md) holding every agent's first strike from it as
planned (labelled by agent, the rules as written), with the noise and each agent's points.

Each round plans all unfinished innings (games) together, in ``plan_batch`` calls of at most
``--search-shots`` simulated shots for a search (its exact screen counted), then steps them
``--batch`` rows at a time. Every inning (game) has its own key from ``--seed``: the run is
deterministic, and every agent meets the same layouts and noise draws, shot for shot.

Writes under ``--out``: ``summary.csv`` (one row per agent), ``innings.csv``, ``shots.csv``,
``paired.csv`` (with two agents or more), ``games.csv`` and ``games_summary.csv`` (with
``--games``), ``summary.json``, ``evaluate.png`` (and ``games.png``). Figures: docs/agents.md.

    python -m experiments.evaluate --discipline three_cushion --agents random geometric search
    python -m experiments.evaluate --discipline three_cushion --agents search guided:shots=1024 \\
        --innings 200 --max-shots 1
    python -m experiments.evaluate --discipline hungarian_1000 --agents "search:candidates=256,trials=4" \\
        --innings 50 --games 10 --distance 300 --noise 1
    python -m experiments.evaluate --agents geometric policy --layouts bench-v1 --innings 200 \\
        --variant two:cushions_required=2 --save-shots 5
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import physics
from agents import ExecutionNoise, arena, shotfile
from agents.base import index_tree, profile_of
from agents.specs import SPEC_HELP, AgentSpecError, parse_agent_spec
from billiards_env import layouts, setup
from billiards_env.params import DEFAULT_NOISE
from experiments.common import (
    AS_WRITTEN, NOISE_HELP, VARIANT_HELP, add_discipline_argument, add_run_arguments, begin, check_variants,
    machine_info, noise_arg, parse_rule_options, short_label, write_csv,
)


# --- variants and shot files -------------------------------------------------------------------

def evaluate_variants(discipline, specs, variants, *, rule_options=None, players=None, **kwargs) -> dict:
    """``agents.arena.evaluate`` under the rules as written (with ``rule_options``) and under each
    variant ((label, options), its options over those), the same players, layouts and noise draws:
    the row lists of ``arena.evaluate``, every row labelled by its ``variant`` (``paired``: the
    agents against the first within each variant), and ``paired_variants``: each variant against
    the rules as written, per agent, inning by inning (``arena.paired_by``)."""
    players = {} if players is None else players
    out: dict = {}
    for label, options in [(AS_WRITTEN, {})] + list(variants):
        result = arena.evaluate(discipline, specs, rule_options={**(rule_options or {}), **options}, players=players,
                                **kwargs)
        out.setdefault("settings", result.pop("settings"))
        for key, rows in result.items():
            out.setdefault(key, []).extend({"variant": label, **r} for r in rows)
    out["paired_variants"] = arena.paired_by(out["innings"], "variant")
    out["settings"]["variants"] = [dict(name=label, options=options) for label, options in variants]
    return out


def noise_name(scale: float):
    """A player profile's name for its noise scale (``agents.NOISE_PROFILES``), else the scale."""
    name = profile_of(scale)
    return scale if name is None else name


def save_shot_files(folder, result, count: int, argv=None) -> list[str]:
    """For each of the first ``count`` innings, a shot file (``agents.shotfile.write``) of its
    layout with every agent's first strike as planned (label: the agent, source "planned"; the
    rules as written), the evaluation's noise and, under ``evaluation``, each agent's points in
    that inning. A strike the shot file refuses (outside the cue's range) is left out and named
    there. Returns the paths written."""
    settings = result["settings"]
    discipline = settings["discipline"]
    ruleset, params = setup(discipline, settings["calibration"], **settings["rule_options"])
    stored = None if settings["layouts"] == "random" else layouts.load(settings["layouts"], discipline)
    _, games = arena.inning_starts(ruleset, params, settings["innings"], start=settings["start"],
                                   seed=settings["seed"], layouts=stored)
    games = index_tree(games, slice(0, count))
    shots, innings = ([r for r in result[key] if r.get("variant", AS_WRITTEN) == AS_WRITTEN]
                      for key in ("shots", "innings"))
    first = {(r["row"], r["agent"]): r for r in shots if r["part"] == "inning" and r["shot"] == 0}
    points = {(r["inning"], r["agent"]): r["points"] for r in innings}
    paths = []
    for g in range(count):
        strikes, left_out = [], {}
        for agent in settings["agents"]:
            fields = {f: first[g, agent][f] for f in arena.SHOT_FIELDS}
            try:
                shotfile.make_shot(fields, params)
                strikes.append(shotfile.Strike(**fields, label=agent, source="planned"))
            except shotfile.ShotFileError as e:
                left_out[agent] = str(e)
        if not strikes:
            continue
        where = "random layouts" if stored is None else f"the {settings['layouts']} layouts"
        path = os.path.join(folder, f"layout_{g:04d}.json")
        shotfile.write(path, discipline, games.positions[g], strikes, cue_ball=int(games.cue_ball[g]),
                       player=int(games.current_player[g]), noise=noise_name(settings["noise"]),
                       notes=f"inning {g} of an evaluation from {where}: each agent's first strike as planned",
                       provenance=shotfile.provenance("experiments.evaluate", argv, seed=settings["seed"]),
                       extra=dict(evaluation=dict(layouts=settings["layouts"], inning=g,
                                                  points={a: points[g, a] for a in settings["agents"]},
                                                  **({"left_out": left_out} if left_out else {}))))
        paths.append(path)
    return paths


# --- plots -------------------------------------------------------------------------------------

def _bars(ax, labels, values, lows, highs, colour=None, offset=0.0, width=0.8, label=None):
    values = np.asarray(values, float)
    err = np.array([np.nan_to_num(values - np.asarray(lows, float)), np.nan_to_num(np.asarray(highs, float) - values)])
    err = np.clip(err, 0, None)
    x = np.arange(len(labels)) + offset
    ax.bar(x, values, width, yerr=err, capsize=3, color=colour, label=label)
    ax.set_xticks(np.arange(len(labels)))
    ax.set_xticklabels([short_label(s) for s in labels], fontsize=8, rotation=30, ha="right")


def _plot_panels(path, rows, title, panels):
    """One figure of bar panels side by side, one bar per row (agent) and series, saved to
    ``path``. panels: (y label, series, y limits or None); series: (value key, low key, high key,
    colour, legend label or None), drawn side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [r["agent"] for r in rows]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.6))
    for ax, (ylabel, series, ylim) in zip(np.atleast_1d(axes), panels):
        width = 0.8 / len(series)
        for j, (key, low, high, colour, name) in enumerate(series):
            _bars(ax, labels, [r[key] for r in rows], [r[low] for r in rows], [r[high] for r in rows], colour,
                  (j - (len(series) - 1) / 2) * width, width, name)
        ax.set_ylabel(ylabel)
        ax.axhline(0, color="black", lw=0.8)
        if ylim is not None:
            ax.set_ylim(*ylim)
        if len(series) > 1:
            ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_innings(path, rows, title):
    """Points per inning, success and foul rates per shot, shots per inning."""
    _plot_panels(path, rows, title, [
        ("points per inning (95 % interval)", [("points_per_inning", "points_low", "points_high", "#4f81bd", None)],
         None),
        ("rate per shot (95 % Wilson interval)", [
            ("success_rate", "success_low", "success_high", "#9bbb59", "success"),
            ("foul_rate", "foul_low", "foul_high", "#c0504d", "foul")], (0, 1.05)),
        ("shots per inning (95 % interval)", [("shots_per_inning", "shots_low", "shots_high", "#8064a2", None)], None),
    ])


def plot_games(path, rows, title):
    """Game length, general average and games won per agent."""
    _plot_panels(path, rows, title, [
        ("game length, innings (finished games, 95 %)", [("length_innings", "length_low", "length_high", "#4f81bd",
                                                          None)], None),
        ("general average, points per inning (95 %)", [("general_average", "average_low", "average_high", "#9bbb59",
                                                        None)], None),
        ("games won (95 % Wilson; self-play: by the breaker)", [("win_rate", "win_low", "win_high", "#c0504d", None)],
         (0, 1.05)),
    ])


# --- the command -------------------------------------------------------------------------------

def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m experiments.evaluate", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1] + "\n" + SPEC_HELP)
    add_discipline_argument(parser)
    parser.add_argument("--agents", nargs="+", default=["random", "geometric", "search"], metavar="SPEC",
                        help="agents to evaluate (specs, see below)")
    parser.add_argument("--innings", type=int, default=100, help="innings per agent (0: none)")
    parser.add_argument("--from", dest="start", choices=("random", "start"), default="random",
                        help="innings start from random legal layouts or the starting position")
    parser.add_argument("--layouts", choices=layouts.LAYOUT_SETS, default="random",
                        help="the innings' layouts: drawn from --seed, or a stored set's in order, the same on "
                             "every machine (at most its 1,000 innings; the noise still draws from --seed)")
    parser.add_argument("--max-shots", type=int, default=20, help="an inning is capped after this many shots")
    parser.add_argument("--games", type=int, default=0, help="whole games per agent (0: none)")
    parser.add_argument("--opponent", default=None, metavar="SPEC",
                        help="games: this agent plays player 1 against each agent (default: self-play)")
    parser.add_argument("--distance", type=int, default=None,
                        help="distance of the --games (default: the discipline's); innings keep the game's own")
    parser.add_argument("--max-game-shots", type=int, default=2000, help="a game is stopped after this many shots")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule option (rules.make_rules), repeatable, e.g. --rule scoring_mode=2")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME:OPTION=VALUE,...",
                        help=VARIANT_HELP + "; repeatable: each evaluated beside the rules as written, on the same "
                             "layouts and noise draws (its options over --rule's)")
    parser.add_argument("--save-shots", type=int, default=0, metavar="N",
                        help="a shot file for each of the first N innings' layouts, every agent's first strike "
                             "(under OUT/shots/)")
    parser.add_argument("--noise", type=noise_arg, default=DEFAULT_NOISE, help=NOISE_HELP + " (default 1)")
    parser.add_argument("--calibration", default=None, choices=sorted(physics.CALIBRATIONS),
                        help="the physics' parameter set (default: the table's own; docs/physics.md section 6)")
    add_run_arguments(parser, "results/evaluate")
    return parser


def _starts(settings) -> str:
    """Where the innings started, for a figure's title."""
    if settings["start"] != "random":
        return "the starting position"
    return "random layouts" if settings.get("layouts", "random") == "random" else f"the {settings['layouts']} layouts"


def _by_variant(rows) -> list:
    """Rows for a figure: with variants, each agent's label followed by its variant's."""
    return [dict(r, agent=f"{r['agent']} ({r['variant']})") if "variant" in r else r for r in rows]


def write_results(out_dir, result, seconds, name="evaluate"):
    os.makedirs(out_dir, exist_ok=True)
    write_csv(os.path.join(out_dir, "summary.csv"), result["summary"])
    write_csv(os.path.join(out_dir, "innings.csv"), result["innings"] + result["game_innings"])
    write_csv(os.path.join(out_dir, "shots.csv"), result["shots"])
    if result["paired"]:
        write_csv(os.path.join(out_dir, "paired.csv"), result["paired"])
    variants = {"paired_variants": result["paired_variants"]} if "paired_variants" in result else {}
    if variants:
        write_csv(os.path.join(out_dir, "paired_variants.csv"), result["paired_variants"])
    write_csv(os.path.join(out_dir, "games.csv"), result["games"])
    write_csv(os.path.join(out_dir, "games_summary.csv"), result["games_summary"])
    settings = result["settings"]
    summary = dict(settings=settings, summary=result["summary"], paired=result["paired"], **variants,
                   games_summary=result["games_summary"],
                   games=result["games"], execution_noise_std=ExecutionNoise(settings["noise"]).describe(),
                   machine=machine_info(), seconds=seconds)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=float)
    where = f"{settings['discipline']}, noise {settings['noise']:g}"
    if result["summary"]:
        plot_innings(os.path.join(out_dir, f"{name}.png"), _by_variant(result["summary"]),
                     f"{where}: {settings['innings']} innings from {_starts(settings)}, "
                     f"at most {settings['max_shots']} shots")
    if result["games_summary"]:
        plot_games(os.path.join(out_dir, "games.png"), _by_variant(result["games_summary"]),
                   f"{where}: {settings['games']} games to {settings['distance']}")


def main(argv=None):
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        for spec in args.agents + ([args.opponent] if args.opponent else []):
            parse_agent_spec(spec)
        options = parse_rule_options(args.rule)
        setup(args.discipline, **options, **({} if args.distance is None else dict(distance=args.distance)))
    except (AgentSpecError, ValueError) as e:
        parser.error(str(e))
    try:
        variants = check_variants(args.variant, args.discipline, **options)
    except ValueError as e:
        parser.error(f"--variant: {e}")
    if args.innings < 0 or args.games < 0 or args.innings + args.games == 0:
        parser.error("ask for some --innings or --games")
    if not 0 <= args.save_shots <= args.innings:
        parser.error(f"--save-shots saves the layouts of the innings played: 0 to --innings ({args.innings}), "
                     f"got {args.save_shots}")
    if args.max_shots < 1 or args.max_game_shots < 1 or args.batch < 1 or args.noise < 0:
        parser.error("--max-shots, --max-game-shots and --batch must be >= 1, --noise >= 0")
    if args.layouts != "random":
        if args.start != "random":
            parser.error(f"--layouts {args.layouts} replaces the random layouts: leave out --from start")
        held = len(layouts.load(args.layouts, args.discipline).positions)
        if args.innings > held:
            parser.error(f"--layouts {args.layouts} holds {held} layouts of {args.discipline}: "
                         f"--innings {held} at most")
    t0 = time.perf_counter()
    run = dict(innings=args.innings, start=args.start, max_shots=args.max_shots, games=args.games,
               opponent=args.opponent, distance=args.distance, max_game_shots=args.max_game_shots, rule_options=options,
               noise=args.noise, batch=args.batch, search_shots=args.search_shots, seed=args.seed,
               progress=not args.no_progress, calibration=args.calibration, layouts=args.layouts)
    try:
        if variants:
            result = evaluate_variants(args.discipline, args.agents, variants, **run)
        else:
            result = arena.evaluate(args.discipline, args.agents, **run)
    except AgentSpecError as e:
        parser.error(str(e))
    seconds = time.perf_counter() - t0
    write_results(args.out, result, seconds)
    if args.save_shots:
        saved = save_shot_files(os.path.join(args.out, "shots"), result, args.save_shots, argv)
        print(f"{len(saved)} shot files under {os.path.join(args.out, 'shots')}/")
    for r in _by_variant(result["summary"]):
        print(f"{r['agent']}: {r['points_per_inning']:.2f} points per inning [{r['points_low']:.2f}, "
              f"{r['points_high']:.2f}], success {r['success_rate']:.3f}, fouls {r['foul_rate']:.3f}, "
              f"{r['shots_per_inning']:.2f} shots per inning, {r['seconds_per_decision']:.3g} s per decision")
    for r in result["paired"]:
        print(f"paired, {r['agent']} - {r['against']}{' (' + r['variant'] + ')' if 'variant' in r else ''}: "
              f"{r['points_difference']:+.2f} points per inning [{r['points_low']:+.2f}, {r['points_high']:+.2f}] "
              f"over the same {r['innings']} innings (more in {r['more']}, fewer in {r['fewer']})")
    for r in result.get("paired_variants", []):
        print(f"variant {r['variant']} - {r['against']}, {r['agent']}: {r['points_difference']:+.2f} points per "
              f"inning [{r['points_low']:+.2f}, {r['points_high']:+.2f}] over the same {r['innings']} innings "
              f"(more in {r['more']}, fewer in {r['fewer']})")
    for r in result["games_summary"]:
        print(f"games {r['evaluated']} ({r['agent']}): {r['finished']}/{r['games']} finished, "
              f"{r['length_innings']:.1f} innings, general average {r['general_average']:.2f}, wins {r['wins']}")
    print(f"wrote {args.out}/ in {seconds:.0f} s")
    return result


if __name__ == "__main__":
    main()
