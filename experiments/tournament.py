"""A round robin: every pair of agents plays whole games of a discipline; ratings with intervals.

Each unordered pair of ``--agents`` plays ``--games`` games from the starting position to the
discipline's distance (``--distance`` lowers it) or at most ``--max-game-shots`` shots (then the
game is "unfinished" and left out of the ratings), as ``agents.arena.run_games`` plays them: the
first agent of the pair (in the order of ``--agents``) is player 0 and breaks the even-numbered
games, the other the odd ones, so an even ``--games`` gives each the break equally often (an odd
one gives player 0 one break more). ``--openings bench-v1``: game g starts from the stored layout
g // 2 instead (``billiards_env.layouts``, as ``experiments.evaluate --layouts``), player g % 2
to shoot first, his cue ball where the set's shooter's lies (``agents.arena.opening_states``): each
opening is played twice, each side first once. ``--variant NAME:OPTION=VALUE,...`` (as
``experiments.rule_variants`` takes it) changes the rules of every game. Every pair plays the same
game keys (``--seed``) and openings: each pairing meets the same noise draws, shot for shot
(common random numbers). Shots are played with ``--noise`` times the standard execution noise,
or a player's own (a spec ending in ``@NOISE``: ``search@club``, ``geometric@0.5``); plug-in
agents (``plugin:MODULE.CLASS``) play like any other (docs/agents.md section 7).

Ratings: Bradley-Terry on the Elo scale, the field's average 0, fitted to the finished games (a
draw half a win each) with one virtual draw per agent against an average opponent, and 95 %
bootstrap intervals over the games (``agents.ratings``). Per agent: games, wins and the win rate
over finished games (Wilson interval), points for and against, the general average (points over
innings, every game, with its interval) and the best run (the highest inning of any game).

Writes under ``--out`` (default ``results/tournament/DISCIPLINE``): ``games.csv`` (every game:
players, breaker, winner, scores, innings, each player's high run), ``summary.json`` (settings,
per-agent rows and ratings), ``results.md`` (both tables; printed at the end) and ``ratings.png``.

    python -m experiments.tournament --discipline three_cushion --agents geometric policy search --games 20
    python -m experiments.tournament --discipline one_cushion --games 10 --distance 5 \\
        --agents random geometric@club plugin:agents.plugin_example.NearestBall
    python -m experiments.tournament --agents geometric policy --openings bench-v1 --games 40 \\
        --distance 5 --variant two:cushions_required=2
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import time

import numpy as np
from tqdm.auto import tqdm

from agents import ExecutionNoise, arena, ratings
from agents.specs import SPEC_HELP, AgentSpecError, check_discipline, parse_agent_spec
from agents.stats import ratio_ci
from billiards_env import layouts, setup
from billiards_env.params import DEFAULT_NOISE
from experiments.common import (
    NOISE_HELP, VARIANT_HELP, add_discipline_argument, add_run_arguments, begin, check_variants, machine_info,
    noise_arg, short_label, write_csv,
)

RESAMPLES = 1000  # bootstrap resamples of the ratings' intervals
OPENINGS = ("start",) + layouts.STORED  # where the games start: the break, or a stored set's layouts
GAME_COLUMNS = ("discipline", "pair", "game", "player0", "player1", "breaker", "winner_agent", "score0", "score1",
                "innings0", "innings1", "high_run0", "high_run1", "finished")


# --- the games ---------------------------------------------------------------------------------

def high_runs(game_rows, inning_rows) -> dict:
    """(game, player) -> the player's highest run in that game, over its finished innings (0 when
    none scored)."""
    best: dict = {}
    for r in inning_rows:
        key = (r["game"], r["player"])
        best[key] = max(best.get(key, 0), r["points"])
    return {(g["game"], p): best.get((g["game"], p), 0) for g in game_rows for p in (0, 1)}


def game_records(discipline: str, pair: int, game_rows, inning_rows) -> list[dict]:
    """``run_games``' game rows with the discipline, the pair and each player's high run, the
    columns of ``GAME_COLUMNS`` first."""
    runs = high_runs(game_rows, inning_rows)
    out = []
    for g in game_rows:
        row = dict(g, discipline=discipline, pair=pair, high_run0=runs[g["game"], 0], high_run1=runs[g["game"], 1])
        out.append({**{k: row[k] for k in GAME_COLUMNS}, **row})
    return out


def rules_of(discipline: str, distance=None, rule_options=None):
    """(rules, physics) of the games: the discipline with the rule options (a variant's) and the
    distance, when given (it replaces the options' own)."""
    return setup(discipline, **{**(rule_options or {}), **({} if distance is None else dict(distance=distance))})


def round_robin(discipline: str, players, games: int, *, distance=None, max_game_shots: int = 2000,
                noise: float = DEFAULT_NOISE, seed: int = 0, batch: int = arena.BATCH, progress: bool = True,
                openings: str = "start", rule_options=None):
    """Every unordered pair of ``players`` (``arena.Player``s, made once so that their compiled
    functions serve every pair) plays ``games`` games with the same game keys and openings
    (``OPENINGS``: the break, or a stored set's layouts, ``arena.opening_states``), under the
    discipline's rules with ``rule_options``. Returns the game records (``game_records``)."""
    ruleset, params = rules_of(discipline, distance, rule_options)
    starts = None
    if openings != "start":
        starts = arena.opening_states(ruleset, params, layouts.load(openings, discipline), games)
    records = []
    pairs = list(itertools.combinations(players, 2))
    for pair, (first, second) in enumerate(tqdm(pairs, desc="pairs", unit="pair", disable=not progress)):
        game_rows, inning_rows, _ = arena.run_games([first, second], ruleset, params, games, noise=noise,
                                                    max_shots=max_game_shots, seed=seed, batch=batch,
                                                    progress=progress, openings=starts)
        records += game_records(discipline, pair, game_rows, inning_rows)
    return records


# --- the tables --------------------------------------------------------------------------------

def standing(label: str, records) -> dict:
    """One agent's games: wins and the win rate over finished games (Wilson), draws, points for
    and against, the general average with its interval (``agents.stats.ratio_ci``), best run."""
    seats = [(g, p) for g in records for p in (0, 1) if g[f"player{p}"] == label]
    finished = [g for g, _ in seats if g["finished"]]
    wins = sum(g["winner_agent"] == label for g in finished)
    win = arena.rate(wins, len(finished))
    average = ratio_ci([g[f"score{p}"] for g, p in seats], [g[f"innings{p}"] for g, p in seats])
    return dict(agent=label, games=len(seats), finished=len(finished), wins=wins,
                draws=sum(g["draw"] for g in finished), win_rate=win["value"], win_low=win["low"],
                win_high=win["high"], points_for=sum(g[f"score{p}"] for g, p in seats),
                points_against=sum(g[f"score{1 - p}"] for g, p in seats), general_average=average[0],
                average_low=average[1], average_high=average[2],
                best_run=max((g[f"high_run{p}"] for g, p in seats), default=0))


def rate_games(labels, records, seed: int = 0, resamples: int = RESAMPLES) -> list[dict]:
    """The ratings table (``agents.ratings.rate``) of the games, best first."""
    return ratings.rate([(g["player0"], g["player1"], g["winner_agent"]) for g in records], agents=labels,
                        resamples=resamples, seed=seed)


def _number(value: float, digits: int = 2) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.{digits}f}"


def interval_text(value: float, low: float, high: float, digits: int = 2, scale: float = 1.0) -> str:
    """``value [low, high]`` times ``scale`` to ``digits`` decimals ("n/a" for no value)."""
    if not np.isfinite(value):
        return "n/a"
    ends = ", ".join(_number(scale * x, digits) for x in (low, high))
    return f"{_number(scale * value, digits)} [{ends}]"


def _elo(value: float) -> str:
    return f"{int(round(value)):+d}"  # never "-0"


def markdown_table(head, rows) -> list[str]:
    """A markdown table's lines: the head, then one line per row (strings)."""
    return ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


def conditions(settings) -> str:
    """Where the games started and under which rules, in words (empty for the break and the rules
    as written)."""
    words = []
    if settings.get("openings", "start") != "start":
        words.append(f"Openings: the {settings['openings']} layouts, game g from layout g // 2 with player g % 2 "
                     "shooting first (each opening played twice, each side first once).")
    variant = settings.get("variant")
    if variant:
        options = ", ".join(f"{k}={v}" for k, v in variant["options"].items())
        words.append(f"Rules: the variant {variant['name']} ({options}) in every game, not the rules as written.")
    return " ".join(words)


def markdown(standings, rated, settings) -> str:
    """results.md: the settings, the agents' table and the ratings' table, both best first."""
    lines = [f"# Round robin: {settings['discipline']}", "",
             f"{len(rated)} agents, {settings['games']} games a pair to {settings['distance']} points (at most "
             f"{settings['max_game_shots']} shots a game), execution noise {settings['noise']:g} unless the agent "
             f"names its own, seed {settings['seed']}.", ""]
    if conditions(settings):
        lines += [conditions(settings), ""]
    lines += standings_table(standings) + [""] + ratings_table(rated)
    return "\n".join(lines) + "\n"


def standings_table(standings) -> list[str]:
    """The agents' table (markdown lines), in the order given."""
    head = ("agent", "games", "wins", "win rate (%)", "points for", "points against", "general average", "best run")
    return markdown_table(head, [
        (r["agent"], str(r["games"]), str(r["wins"]),
         interval_text(r["win_rate"], r["win_low"], r["win_high"], 1, 100.0), str(r["points_for"]),
         str(r["points_against"]), interval_text(r["general_average"], r["average_low"], r["average_high"], 3),
         str(r["best_run"]))
        for r in standings])


def ratings_table(rated) -> list[str]:
    """The ratings' note and table (markdown lines), best first."""
    lines = ["Ratings: Bradley-Terry on the Elo scale (the field's average 0; 400 points are odds of 10 to 1), "
             "finished games, one virtual draw each against an average opponent, 95 % bootstrap intervals.", ""]
    return lines + markdown_table(("rank", "agent", "rating", "95 % interval", "finished games", "wins", "draws"),
                                  [(str(i + 1), r["agent"], _elo(r["rating"]), f"[{_elo(r['low'])}, {_elo(r['high'])}]",
                                    str(r["games"]), str(r["wins"]), str(r["draws"])) for i, r in enumerate(rated)])


def plot_ratings(path, rated, title):
    """The ratings as points with their intervals, one row per agent, the best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y = np.arange(len(rated))[::-1]
    values = np.array([r["rating"] for r in rated])
    err = np.clip([values - [r["low"] for r in rated], [r["high"] for r in rated] - values], 0, None)
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.45 * len(rated)))
    ax.errorbar(values, y, xerr=err, fmt="o", color="#4f81bd", capsize=3)
    ax.set_yticks(y)
    ax.set_yticklabels([short_label(r["agent"]) for r in rated], fontsize=8)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("rating, Elo scale (95 % bootstrap interval)")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- the command -------------------------------------------------------------------------------

def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m experiments.tournament", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1] + "\n" + SPEC_HELP)
    add_discipline_argument(parser)
    parser.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                        help="two agents or more (specs, see below; SPEC@NOISE: that player's own noise)")
    parser.add_argument("--games", type=int, default=20, help="games per pair (even: the break shared equally)")
    parser.add_argument("--distance", type=int, default=None, help="the games' distance (default: the discipline's)")
    parser.add_argument("--max-game-shots", type=int, default=2000, help="a game is stopped after this many shots")
    parser.add_argument("--noise", type=noise_arg, default=DEFAULT_NOISE,
                        help=NOISE_HELP + " (default 1), for the players without @NOISE")
    parser.add_argument("--openings", choices=OPENINGS, default="start",
                        help="where the games start: the break (default), or a stored layout set's layouts, "
                             "game g from layout g // 2, each side shooting first once")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME:OPTION=VALUE,...",
                        help=VARIANT_HELP + "; once at most: the rules of every game")
    add_run_arguments(parser, "results/tournament/DISCIPLINE")
    parser.set_defaults(out=None)
    return parser


def check_arguments(parser, args) -> list[str]:
    """The agents' labels, every argument checked before any work (parser.error otherwise); sets
    ``args.variant`` to None or {name, options}."""
    if len(args.agents) < 2:
        parser.error("a round robin needs at least two --agents")
    try:
        labels = [parse_agent_spec(spec).text for spec in args.agents]
        rules_of(args.discipline, args.distance)
    except (AgentSpecError, ValueError) as e:
        parser.error(str(e))
    if len(args.variant) > 1:
        parser.error(f"--variant changes the rules of every game: give it once, got {len(args.variant)}")
    try:
        variants = check_variants(args.variant, args.discipline)
        for _, options in variants:
            rules_of(args.discipline, args.distance, options)
    except ValueError as e:
        parser.error(f"--variant: {e}")
    args.variant = dict(name=variants[0][0], options=variants[0][1]) if variants else None
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        parser.error(f"each agent plays once: {', '.join(twice)} given more than once")
    if args.games < 1 or args.max_game_shots < 1 or args.batch < 1:
        parser.error("--games, --max-game-shots and --batch must be >= 1")
    if args.openings != "start":
        try:
            held = len(layouts.load(args.openings, args.discipline).positions)
        except (ValueError, FileNotFoundError) as e:
            parser.error(f"--openings {args.openings}: {e}")
        if args.games > 2 * held:
            parser.error(f"--openings {args.openings} holds {held} layouts of {args.discipline}: --games {2 * held} "
                         "at most (each layout twice)")
    return labels


def make_players(parser, args):
    """The Players of ``--agents`` (models loaded, plug-ins made), each checked for the discipline."""
    try:
        players = [arena.make_player(spec, args.noise, args.batch, args.search_shots, args.discipline)
                   for spec in args.agents]
        for p in players:
            check_discipline(p.agent, p.label, args.discipline)
    except AgentSpecError as e:
        parser.error(str(e))
    return players


def write_results(out, records, standings, rated, settings, seconds) -> str:
    """games.csv, summary.json, results.md and ratings.png under ``out``; returns the markdown."""
    os.makedirs(out, exist_ok=True)
    write_csv(os.path.join(out, "games.csv"), records)
    text = markdown(standings, rated, settings)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text)
    summary = dict(settings=settings, ratings=rated, agents=standings,
                   execution_noise_std=ExecutionNoise(settings["noise"]).describe(), machine=machine_info(),
                   seconds=seconds)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=float)
    plot_ratings(os.path.join(out, "ratings.png"), rated,
                 f"{settings['discipline']}: {settings['games']} games a pair to {settings['distance']}")
    return text


def main(argv=None):
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    labels = check_arguments(parser, args)
    out = args.out or os.path.join("results", "tournament", args.discipline)
    players = make_players(parser, args)
    t0 = time.perf_counter()
    options = args.variant["options"] if args.variant else None
    records = round_robin(args.discipline, players, args.games, distance=args.distance,
                          max_game_shots=args.max_game_shots, noise=args.noise, seed=args.seed, batch=args.batch,
                          progress=not args.no_progress, openings=args.openings, rule_options=options)
    rated = rate_games(labels, records, seed=args.seed)
    order = {r["agent"]: i for i, r in enumerate(rated)}
    standings = sorted((dict(standing(p.label, records), noise=args.noise if p.noise is None else p.noise,
                             **p.timing()) for p in players), key=lambda r: order[r["agent"]])
    settings = dict(discipline=args.discipline, agents=labels, games=args.games,
                    distance=int(records[0]["distance"]), max_game_shots=args.max_game_shots, noise=args.noise,
                    seed=args.seed, batch=args.batch, search_shots=args.search_shots, resamples=RESAMPLES,
                    openings=args.openings, variant=args.variant)
    seconds = time.perf_counter() - t0
    print(write_results(out, records, standings, rated, settings, seconds))
    print(f"wrote {out}/ in {seconds:.0f} s")
    return dict(games=records, standings=standings, ratings=rated, settings=settings)


if __name__ == "__main__":
    main()
