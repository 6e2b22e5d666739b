"""The leaderboard: every shipped agent in every discipline, on the benchmark layouts and in games.

For each discipline of ``--disciplines`` (default all seven), the agents of ``--agents`` (default
``SHIPPED``: random, geometric, policy and guided where the discipline ships a success model, rl
where it ships an RL policy, search, and search:leave=value where it ships a leave value) that
``agents.specs`` can make for it; a spec whose model the discipline does not ship is left out and
named on the page. Each agent is

* evaluated as ``experiments.evaluate --layouts bench-v1`` evaluates (``agents.arena.evaluate``):
  one inning from each of the first ``--count`` bench-v1 layouts (``billiards_env.layouts``, the
  same on every machine), at most ``--max-shots`` shots, under ``--noise`` (default the standard
  execution noise): success per shot (Wilson interval) and points per inning (bootstrap), 95 %;
* rated as ``experiments.tournament`` rates (``round_robin``, ``agents.ratings``): the agents of
  ``--field`` (default all) play ``--games`` games a pair from ``--openings`` (the break, or the
  bench-v1 layouts) to ``--distance`` points (``--hungarian-distance`` in the Hungarian game) or
  ``--max-game-shots`` shots; Bradley-Terry ratings on the Elo scale with bootstrap intervals.

Every agent meets the same layouts, games and noise draws (``--seed``). The physics are each
table's calibrated default (``physics.params.TABLE_CALIBRATION``). The page states the command
that made it, the date, the machine, the physics, the noise and the counts; beside it,
``leaderboard.json`` holds every row. The search is the costly agent (about 0.3 s a decision at
its default budget under the noise); ``--search-shots`` bounds its memory per planning call.

    python -m experiments.leaderboard --count 8 --games 2 --out results/leaderboard/leaderboard.md
    python -m experiments.leaderboard --disciplines three_cushion one_cushion --agents random geometric \\
        --count 4 --games 2 --distance 2 --out results/leaderboard_small/leaderboard.md
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import time

import rules
from agents import ExecutionNoise, arena
from agents.shotfile import provenance
from agents.specs import SPEC_HELP, AgentSpecError, check_discipline, parse_agent_spec
from billiards_env import layouts, setup
from billiards_env.params import DEFAULT_NOISE
from experiments import tournament
from experiments.common import NOISE_HELP, add_run_arguments, begin, discipline_arg, machine_info, noise_arg
from experiments.evaluate import noise_name
from experiments.tournament import interval_text, markdown_table
from physics.params import TABLE_CALIBRATION

SHIPPED = ("random", "geometric", "policy", "guided", "rl", "search", "search:leave=value")
LAYOUTS = "bench-v1"
PAGE = os.path.join("docs", "leaderboard.md")  # the page --out writes by default


# --- one discipline ----------------------------------------------------------------------------

def players_for(discipline: str, specs, noise: float, batch: int, search_shots: int):
    """({label: Player} of the specs the discipline can make, {label: why not} of the others:
    a model it does not ship, ``agents.specs``' own words)."""
    players, missing = {}, {}
    for spec in specs:
        label = parse_agent_spec(spec).text
        try:
            player = arena.make_player(spec, noise, batch, search_shots, discipline)
            check_discipline(player.agent, label, discipline)
            players[label] = player
        except AgentSpecError as e:
            missing[label] = str(e)
    return players, missing


def game_distance(discipline: str, carom: int, hungarian: int) -> int:
    """The games' distance: ``hungarian`` in the Hungarian game, ``carom`` in the others."""
    return hungarian if setup(discipline)[0].is_hungarian else carom


def board(discipline: str, specs, field, *, count: int, max_shots: int, games: int, distance: int,
          max_game_shots: int, openings: str, noise: float, batch: int, search_shots: int, seed: int,
          progress: bool) -> dict:
    """One discipline's rows: ``agents`` (``arena.evaluate``'s summary rows, most points first),
    ``missing`` (label -> why), and with two agents of ``field`` or more ``ratings`` and
    ``standings`` (``experiments.tournament``), each player's ``timing`` and the ``seconds`` spent."""
    t0 = time.perf_counter()
    players, missing = players_for(discipline, specs, noise, batch, search_shots)
    result = arena.evaluate(discipline, list(players), innings=count, max_shots=max_shots, noise=noise, batch=batch,
                            search_shots=search_shots, seed=seed, progress=progress, players=players, layouts=LAYOUTS)
    rows = sorted(result["summary"], key=lambda r: -r["points_per_inning"])
    chosen = [label for label in players if field is None or label in field]
    out = dict(discipline=discipline, agents=rows, missing=missing, field=chosen, ratings=[], standings=[],
               distance=distance)
    if games and len(chosen) >= 2:
        records = tournament.round_robin(discipline, [players[label] for label in chosen], games, distance=distance,
                                         max_game_shots=max_game_shots, noise=noise, seed=seed, batch=batch,
                                         progress=progress, openings=openings)
        out["ratings"] = tournament.rate_games(chosen, records, seed=seed)
        order = {r["agent"]: i for i, r in enumerate(out["ratings"])}
        out["standings"] = sorted((tournament.standing(label, records) for label in chosen),
                                  key=lambda r: order[r["agent"]])
    out["timing"] = {label: p.timing() for label, p in players.items()}  # innings and games together
    out["seconds"] = time.perf_counter() - t0
    return out


# --- the page ----------------------------------------------------------------------------------

def discipline_section(part: dict, settings: dict) -> list[str]:
    """A discipline's markdown: the agents' table, what it does not ship, the ratings."""
    d = part["discipline"]
    table = rules.disciplines.get(d).table
    lines = [f"## {d}", "", f"{settings['count']} {LAYOUTS} layouts, one inning each of at most "
             f"{settings['max_shots']} shots; physics: the {table} table's {TABLE_CALIBRATION.get(table, 'reference')} "
             f"calibration; {part['seconds']:.0f} s.", ""]
    lines += markdown_table(
        ("agent", "success per shot (%)", "points per inning", "shots per inning", "s per decision"),
        [(r["agent"], interval_text(r["success_rate"], r["success_low"], r["success_high"], 1, 100.0),
          interval_text(r["points_per_inning"], r["points_low"], r["points_high"]), f"{r['shots_per_inning']:.2f}",
          f"{r['seconds_per_decision']:.3g}") for r in part["agents"]])
    if part["missing"]:
        lines += ["", f"Not shipped for {d} (the reasons are in leaderboard.json): {', '.join(part['missing'])}."]
    if part["ratings"]:
        lines += ["", f"Games among {', '.join(part['field'])}: {settings['games']} a pair to {part['distance']} "
                  f"points (at most {settings['max_game_shots']} shots), from "
                  + ("the break" if settings["openings"] == "start" else f"the {settings['openings']} layouts") + ".",
                  ""]
        lines += tournament.standings_table(part["standings"]) + [""] + tournament.ratings_table(part["ratings"])
    return lines + [""]


def leaders(rows, key: str, scale: float = 1.0, digits: int = 2) -> str:
    """The agents sharing the highest ``key`` (every one of a tie) and that value, or "-"."""
    if not rows:
        return "-"
    best = max(round(scale * r[key], digits) for r in rows) + 0.0  # never "-0"
    return f"{', '.join(r['agent'] for r in rows if round(scale * r[key], digits) == best)} ({best:.{digits}f})"


def markdown(parts, settings) -> str:
    """The whole page: how it was made, an overview, then one section per discipline."""
    m = settings["machine"]
    calibrations = ", ".join(f"the {k} table {v}" for k, v in TABLE_CALIBRATION.items())
    lines = ["# Leaderboard", "",
             f"Made by `{settings['command']}` on {settings['date']}, on {m['platform']} ({m['cpus']} CPUs, "
             f"JAX {m['jax']}, {', '.join(m['devices'])}), in {settings['seconds'] / 60:.1f} minutes.", "",
             f"Physics: each table's calibrated default ({calibrations}). Execution noise {settings['noise']:g} "
             f"({settings['noise_name']}) for every agent. Innings: the first {settings['count']} {LAYOUTS} layouts of "
             f"each discipline, one inning each, at most {settings['max_shots']} shots. Games: {settings['games']} a "
             f"pair. Seed {settings['seed']}. Intervals are 95 %.", ""]
    lines += markdown_table(("discipline", "most points per inning", "best success per shot (%)", "top rating"), [
        (part["discipline"], leaders(part["agents"], "points_per_inning"),
         leaders(part["agents"], "success_rate", 100.0, 1), leaders(part["ratings"], "rating", digits=0))
        for part in parts]) + [""]
    for part in parts:
        lines += discipline_section(part, settings)
    return "\n".join(lines)


# --- the command -------------------------------------------------------------------------------

def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m experiments.leaderboard", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1] + "\n" + SPEC_HELP)
    parser.add_argument("--disciplines", nargs="+", type=discipline_arg, default=list(rules.DISCIPLINES),
                        metavar="DISCIPLINE", help=f"disciplines with {LAYOUTS} layouts (default all seven)")
    parser.add_argument("--agents", nargs="+", default=list(SHIPPED), metavar="SPEC",
                        help="agents (specs; default every shipped kind, each where its discipline ships it)")
    parser.add_argument("--field", nargs="+", default=None, metavar="SPEC",
                        help="the agents of the games, among --agents (default all)")
    parser.add_argument("--count", type=int, default=1000, help=f"innings: the first N {LAYOUTS} layouts")
    parser.add_argument("--max-shots", type=int, default=20, help="an inning is capped after this many shots")
    parser.add_argument("--games", type=int, default=20, help="games a pair (0: no ratings)")
    parser.add_argument("--distance", type=int, default=10, help="the games' distance in the carom disciplines")
    parser.add_argument("--hungarian-distance", type=int, default=300, help="the games' distance in the Hungarian game")
    parser.add_argument("--max-game-shots", type=int, default=600, help="a game is stopped after this many shots")
    parser.add_argument("--openings", choices=tournament.OPENINGS, default="start",
                        help="where the games start: the break, or the stored layouts (experiments.tournament)")
    parser.add_argument("--noise", type=noise_arg, default=DEFAULT_NOISE, help=NOISE_HELP + " (default 1)")
    add_run_arguments(parser, PAGE)
    return parser


def check_arguments(parser, args) -> list[str] | None:
    """The field's labels (None: all), every argument checked before any work (parser.error)."""
    try:
        labels = [parse_agent_spec(spec).text for spec in args.agents]
        field = None if args.field is None else [parse_agent_spec(spec).text for spec in args.field]
    except AgentSpecError as e:
        parser.error(str(e))
    if len(set(labels)) < len(labels):
        parser.error("each agent once in --agents")
    if field is not None and not set(field) <= set(labels):
        parser.error(f"--field names agents of --agents only ({', '.join(labels)}), got "
                     f"{', '.join(sorted(set(field) - set(labels)))}")
    for name in ("count", "max_shots", "max_game_shots", "distance", "hungarian_distance", "batch"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.games < 0:
        parser.error(f"--games must be >= 0, got {args.games}")
    for d in args.disciplines:
        try:
            held = len(layouts.load(LAYOUTS, d).positions)
        except (ValueError, FileNotFoundError) as e:
            parser.error(f"--disciplines: {e}")
        if args.count > held:
            parser.error(f"{LAYOUTS} holds {held} layouts of {d}: --count {held} at most")
        if args.openings != "start" and args.games > 2 * held:
            parser.error(f"--openings {args.openings}: --games {2 * held} at most")
    return field


def main(argv=None):
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    field = check_arguments(parser, args)

    t0 = time.perf_counter()
    parts = [board(d, args.agents, field, count=args.count, max_shots=args.max_shots, games=args.games,
                   distance=game_distance(d, args.distance, args.hungarian_distance),
                   max_game_shots=args.max_game_shots, openings=args.openings, noise=args.noise, batch=args.batch,
                   search_shots=args.search_shots, seed=args.seed, progress=not args.no_progress)
             for d in args.disciplines]
    settings = dict(command=provenance("experiments.leaderboard", argv)["command"],
                    date=datetime.date.today().isoformat(), machine=machine_info(), seconds=time.perf_counter() - t0,
                    noise=args.noise, noise_name=noise_name(args.noise), count=args.count, max_shots=args.max_shots,
                    games=args.games, distance=args.distance, hungarian_distance=args.hungarian_distance,
                    max_game_shots=args.max_game_shots, openings=args.openings, seed=args.seed, batch=args.batch,
                    search_shots=args.search_shots, layouts=LAYOUTS, calibration=TABLE_CALIBRATION,
                    execution_noise_std=ExecutionNoise(args.noise).describe())
    text = markdown(parts, settings)
    folder = os.path.dirname(args.out)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    with open(os.path.join(folder, "leaderboard.json"), "w") as f:
        json.dump(dict(settings=settings, disciplines=parts), f, indent=2, default=float)
    print(text)
    print(f"wrote {args.out} and leaderboard.json beside it in {settings['seconds']:.0f} s")
    return dict(settings=settings, disciplines=parts)


if __name__ == "__main__":
    main()
