"""The same agents under different rule settings, side by side.

Groups of settings (``--groups``; each a set of rule options for ``rules.make_rules``):

=====================  ======================================================  =============
group                  settings                                                rules
=====================  ======================================================  =============
hungarian_scoring      Hungarian 1000, scoring modes 1, 2, 3                   H-9.9, H-9.10
hungarian_pure_carom   Hungarian 1000 with and without the pure-carom limit    H-6.3, H-9.6
balkline               balkline 47/2, 47/1, 71/2                               C-12.3/4/6
straight_rail          straight rail with and without the restricted fields    C-11.1, C-11.2
restricted_fields      straight rail as written, balkline 47/2, 71/2           C-11.2, C-12.3/6
=====================  ======================================================  =============

Or any variants of one discipline (``--discipline``, a registered variant included), each named
on the command line: ``--variant NAME:OPTION=VALUE,...`` (rule options of ``rules.make_rules``),
compared with the rules as written.

For each setting and agent (``agents.arena.evaluate``, as ``experiments.evaluate`` plays them,
under execution noise ``--noise``):

* points per inning: ``--innings`` innings from random legal layouts, each until the turn passes
  or ``--max-shots`` shots, with the success and foul rates per shot and the share of shots whose
  call a field or anchor limit decided (a carom that did not count, C-11.2, C-12.3);
* game length: ``--games`` games in self-play from the starting position to a REDUCED distance
  (``--carom-distance``, ``--hungarian-distance``; the full distances, 150 to 1000 points, would
  take thousands of shots) or ``--max-game-shots`` shots; the innings of the finished games
  (the most innings either player began) and the general average, and the run lengths of those
  games (``run_lengths``: every inning's points, mean run, share of runs of at least each of
  ``--run-thresholds``, high run; intervals over games, whose innings are not independent; a run
  stops at the reduced distance, and the inning in play at the game cap is not counted).

* the paired comparison: each setting's points per inning minus the group's first setting's,
  inning by inning (every setting meets the same layouts and noise draws: common random numbers),
  with its 95 % interval.

``--match STRONG WEAK`` (two agent specs): per setting, ``--match-games`` games between them to the
reduced distance, STRONG player 0, the break alternating, the same game keys in every setting
(common random numbers): the stronger player's win probability (draws half, C-8.4; Wilson),
game length, each player's run lengths, and the paired differences per game against the group's
first setting (``matches.csv``, ``match_paired.csv``, ``match_games.csv``, ``match_innings.csv``).

A setting that appears in two groups (Hungarian mode 1 with the limit is the default game) is
played once and reported in both. Writes under ``--out``: ``variants.csv`` (one row per group,
setting and agent), ``paired.csv`` (one row per group, setting after the first, and agent),
``games.csv``, ``innings.csv``, ``summary.json`` and ``rule_variants.png`` (grouped bars with
95 % intervals).

    python -m experiments.rule_variants                      # default settings
    python -m experiments.rule_variants --quick --out results/rule_variants_quick   # a small run, minutes
    python -m experiments.rule_variants --discipline three_cushion --variant two:cushions_required=2 --quick
    python -m experiments.rule_variants --groups restricted_fields --agents geometric --match geometric random
"""
from __future__ import annotations

import argparse
import json
import os
import textwrap
import time

import jax
import numpy as np
from tqdm.auto import tqdm

from agents import arena
from agents.specs import SPEC_HELP, AgentSpecError, check_discipline, parse_agent_spec
from agents.stats import bounded_mean_ci, mean_ci, ratio_ci, wilson
from billiards_env import setup
from experiments.common import (NOISE_HELP, add_discipline_argument, add_run_arguments, begin, check_variants,
                                machine_info, noise_arg, short_label, write_csv)
from experiments.tournament import high_runs

# group -> (title, [(setting label, discipline, rule options)])
GROUPS = {
    "hungarian_scoring": ("Hungarian scoring mode (H-9.9)", [
        ("mode 1", "hungarian_1000", dict(scoring_mode=1)),
        ("mode 2", "hungarian_1000", dict(scoring_mode=2)),
        ("mode 3", "hungarian_1000", dict(scoring_mode=3)),
    ]),
    "hungarian_pure_carom": ("Hungarian pure-carom limit (H-6.3)", [
        ("limit", "hungarian_1000", dict(pure_carom_limit=True)),
        ("no limit", "hungarian_1000", dict(pure_carom_limit=False)),
    ]),
    "balkline": ("balkline (C-12)", [
        ("47/2", "balkline_47_2", {}),
        ("47/1", "balkline_47_1", {}),
        ("71/2", "balkline_71_2", {}),
    ]),
    "straight_rail": ("straight rail restricted fields (C-11)", [
        ("fields", "straight_rail", dict(restricted_fields=True)),
        ("no fields", "straight_rail", dict(restricted_fields=False)),
    ]),
    # three disciplines, each as written: corner fields only (C-11.1, C-11.2), against the whole table
    # cut into fields and anchors of 47 cm (C-12.2, C-12.3) or of 71 cm (C-12.5, C-12.6)
    "restricted_fields": ("straight rail against balkline (C-11.2, C-12.3, C-12.6)", [
        ("straight rail", "straight_rail", {}),
        ("47/2", "balkline_47_2", {}),
        ("71/2", "balkline_71_2", {}),
    ]),
}

DEFAULT_AGENTS = ("geometric", "search:candidates=128,trials=4,refine_parents=4,refine_children=32,refine_trials=4")
QUICK_AGENTS = ("geometric", "search:candidates=16,trials=2,refine_parents=0,seeds=8")
RUN_THRESHOLDS = (3, 5, 10)  # --run-thresholds: the shares of runs of at least these many points
MATCH_STREAM = 1  # the match's game keys (arena.run_games' stream): the same in every setting
ROLES = ("strong", "weak")  # the two players of --match, player 0 and player 1


def setting_key(discipline: str, options: dict, distance: int):
    """Settings that make the same rules (every option filled in) have the same key."""
    ruleset, _ = setup(discipline, **options, distance=distance)
    leaves = tuple(np.asarray(x).item() for x in jax.tree_util.tree_leaves(ruleset))
    return (discipline, leaves)


def reduced_distance(discipline: str, carom: int, hungarian: int) -> int:
    ruleset, _ = setup(discipline)
    return hungarian if ruleset.is_hungarian else carom


def variant_group(discipline: str, variants) -> dict:
    """The group of ``--variant`` settings: the rules as written, then each (label, options)."""
    settings = [("as written", discipline, {})] + [(label, discipline, options) for label, options in variants]
    return {"variants": (f"{discipline} variants", settings)}


def paired_settings(inning_rows, group: str) -> list[dict]:
    """Per agent, each setting of ``group`` after its first against the first: points per inning,
    inning by inning (``agents.arena.paired_by`` over the settings)."""
    return [dict(group=group, **r) for r in arena.paired_by([r for r in inning_rows if r["group"] == group], "setting")]


# --- run lengths and matches --------------------------------------------------------------------

def share_ci(counts, totals) -> tuple[float, float, float]:
    """(share, low, high): sum(counts) / sum(totals), counted per game, with the game-clustered
    interval of ``ratio_ci`` kept in [0, 1]; Wilson over all the items where that interval has no
    spread (none or all of them counted). NaN for no items."""
    k, n = int(np.sum(counts)), int(np.sum(totals))
    if n == 0:
        return (float("nan"),) * 3
    if k in (0, n):
        return (k / n, *wilson(k, n))
    share, low, high = ratio_ci(counts, totals)
    return share, max(0.0, low), min(1.0, high)


def run_lengths(game_rows, inning_rows, seats=(0, 1), thresholds=RUN_THRESHOLDS) -> dict:
    """The runs of the players in ``seats`` over whole games: every inning's points is one run (an
    inning ends when the turn passes, and a game's last run where its distance is reached).
    ``runs``, ``mean_run`` (points over innings), ``runs_ge_T`` (the share of runs of at least T
    points), ``high_run`` and ``game_high_run`` (the mean over games of each game's highest run of
    those seats, 0 when none scored), with 95 % intervals over games: the innings of one game share
    its layouts, the games are independent (``ratio_ci``, ``share_ci``, ``bounded_mean_ci``)."""
    games = [g["game"] for g in game_rows]
    points: dict = {g: [] for g in games}
    for r in inning_rows:
        if r["player"] in seats:
            points[r["game"]].append(int(r["points"]))
    runs = [np.asarray(points[g], int) for g in games]
    sizes = [v.size for v in runs]
    pooled = np.concatenate(runs) if runs else np.zeros(0, int)
    unit = arena.player_unit([dict(points=x) for x in pooled])
    if pooled.size and np.ptp(pooled) > 0:
        mean = ratio_ci([v.sum() for v in runs], sizes)
    else:  # no spread (or no runs): the interval of a constant (bounded_mean_ci), not a zero-width one
        mean = bounded_mean_ci(pooled, floor=0.0, unit=unit)
    row = dict(runs=sum(sizes), mean_run=mean[0], mean_run_low=mean[1], mean_run_high=mean[2])
    for t in thresholds:
        share = share_ci([int(np.sum(v >= t)) for v in runs], sizes)
        row.update({f"runs_ge_{t}": share[0], f"runs_ge_{t}_low": share[1], f"runs_ge_{t}_high": share[2]})
    best = high_runs(game_rows, inning_rows)
    highs = [max(best[g, p] for p in seats) for g in games]
    high = bounded_mean_ci(highs, floor=0.0, unit=unit)
    row.update(high_run=max(highs) if highs else float("nan"), game_high_run=high[0], game_high_run_low=high[1],
               game_high_run_high=high[2])
    return row


def game_score(game: dict, label: str) -> float:
    """``label``'s score of a finished game: 1 won, 1/2 drawn (C-8.4), 0 lost."""
    return 1.0 if game["winner_agent"] == label else 0.5 if game["draw"] else 0.0


def win_probability(game_rows, label: str) -> dict:
    """``label``'s wins over the finished games, a draw counted half (C-8.4), with the Wilson
    interval of that share; unfinished games are left out."""
    finished = [g for g in game_rows if g["finished"]]
    score = sum(game_score(g, label) for g in finished)
    low, high = wilson(score, len(finished))  # type: ignore[arg-type]  # a half win: the formula takes a real k
    return dict(finished=len(finished), wins=sum(g["winner_agent"] == label for g in finished),
                draws=sum(g["draw"] for g in finished),
                win_probability=score / len(finished) if finished else float("nan"), win_low=low, win_high=high)


def match_rows(players, game_rows, inning_rows, shot_rows, noise: float, thresholds=RUN_THRESHOLDS,
               **where) -> list[dict]:
    """One row per player of a match (``players``: strong, weak; seats 0 and 1): its win
    probability, the game length (finished games), its general average, its runs and its per-shot
    rates (``arena.shot_stats``: the share of its calls a field or anchor limit decided)."""
    finished = [g for g in game_rows if g["finished"]]
    length = bounded_mean_ci([g["length_innings"] for g in finished], floor=1.0)
    out = []
    for seat, (role, player) in enumerate(zip(ROLES, players)):
        average = ratio_ci([g[f"score{seat}"] for g in game_rows], [g[f"innings{seat}"] for g in game_rows])
        out.append(dict(**where, role=role, agent=player.label, opponent=players[1 - seat].label,
                        noise=noise if player.noise is None else player.noise, games=len(game_rows),
                        unfinished=len(game_rows) - len(finished), **win_probability(game_rows, player.label),
                        length_innings=length[0], length_low=length[1], length_high=length[2],
                        general_average=average[0], average_low=average[1], average_high=average[2],
                        **run_lengths(game_rows, inning_rows, (seat,), thresholds),
                        **arena.shot_stats([s for s in shot_rows if s["agent"] == player.label])))
    return out


def match_paired(match_games, group: str, strong: str) -> list[dict]:
    """Each setting of ``group`` after its first against the first, game by game (the same game
    keys): the stronger player's score (``game_score``), the game length in innings and the game's
    highest run, over the games finished in both, mean difference and 95 % interval (``mean_ci``)."""
    mine = [g for g in match_games if g["group"] == group]
    settings = list(dict.fromkeys(g["setting"] for g in mine))
    by_setting = {s: {g["game"]: g for g in mine if g["setting"] == s} for s in settings}
    out = []
    for setting in settings[1:]:
        base, other = by_setting[settings[0]], by_setting[setting]
        both = [k for k in base if k in other and base[k]["finished"] and other[k]["finished"]]
        row = dict(group=group, setting=setting, against=settings[0], games=len(both))
        for name, value in (("win", lambda g: game_score(g, strong)), ("length", lambda g: g["length_innings"]),
                            ("high_run", lambda g: max(g["high_run0"], g["high_run1"]))):
            d = mean_ci([value(other[k]) - value(base[k]) for k in both])
            row.update({f"{name}_difference": d[0], f"{name}_low": d[1], f"{name}_high": d[2]})
        out.append(row)
    return out


def player_for(players: dict, spec: str, noise: float, batch: int, search_shots: int, discipline: str):
    """The ``arena.Player`` of ``spec`` for ``discipline``, made once (by its label) in ``players``."""
    label = parse_agent_spec(spec).text
    if label not in players:
        players[label] = arena.make_player(spec, noise, batch, search_shots, discipline)
    check_discipline(players[label].agent, label, discipline)
    return players[label]


def play_match(players: dict, match, discipline: str, options: dict, distance: int, games: int, *, noise: float,
               max_game_shots: int, seed: int, batch: int, search_shots: int, progress: bool):
    """``games`` games of ``match`` (strong, weak specs) under one setting to ``distance`` points:
    (the two Players, game rows with each player's high run, inning rows, shot rows). The game keys
    are the same in every setting (``seed``, ``MATCH_STREAM``)."""
    ruleset, params = setup(discipline, **options, distance=distance)
    seats = [player_for(players, spec, noise, batch, search_shots, discipline) for spec in match]
    game_rows, inning_rows, shot_rows = arena.run_games(seats, ruleset, params, games, noise=noise,
                                                        max_shots=max_game_shots, seed=seed, stream=MATCH_STREAM,
                                                        batch=batch, progress=progress)
    best = high_runs(game_rows, inning_rows)
    game_rows = [dict(g, high_run0=best[g["game"], 0], high_run1=best[g["game"], 1]) for g in game_rows]
    return seats, game_rows, inning_rows, shot_rows


def run(groups, specs, *, innings=30, games=4, noise=1.0, max_shots=20, max_game_shots=600, carom_distance=10,
        hungarian_distance=300, batch=arena.BATCH, search_shots=arena.SEARCH_SHOTS, seed=0, progress=True,
        table=None, match=None, match_games=None, thresholds=RUN_THRESHOLDS):
    """Play every distinct setting of the groups with every agent. ``table``: the groups by name,
    (title, [(label, discipline, options)]) (default ``GROUPS``). ``match``: (strong, weak) specs,
    ``match_games`` games between them per setting (default ``games``). Returns a dict of row lists
    (``variants``, ``paired``, ``games``, ``innings``; with a match ``matches``, ``match_paired``,
    ``match_games``, ``match_innings``) and the settings."""
    match_games = games if match_games is None else match_games
    table = GROUPS if table is None else table
    players = {}  # per discipline: an agent may carry a discipline's model (leave=value)
    plan = []  # (group, setting label, discipline, options, distance, key)
    for group in groups:
        for label, discipline, options in table[group][1]:
            distance = reduced_distance(discipline, carom_distance, hungarian_distance)
            plan.append((group, label, discipline, options, distance, setting_key(discipline, options, distance)))
    done = {}
    variants, game_rows, inning_rows = [], [], []
    matches, match_game_rows, match_inning_rows = [], [], []
    bar = tqdm(total=len({p[-1] for p in plan}) * (len(specs) + bool(match)), desc="settings x agents", unit="run",
               disable=not progress)
    for group, label, discipline, options, distance, key in plan:
        if key not in done:
            full_distance = int(setup(discipline)[0].distance)
            result = arena.evaluate(discipline, specs, innings=innings, start="random", max_shots=max_shots,
                                    games=games, distance=distance, max_game_shots=max_game_shots,
                                    rule_options=options, noise=noise, batch=batch, search_shots=search_shots,
                                    seed=seed, progress=progress, players=players.setdefault(discipline, {}))
            played = None
            if match:
                played = play_match(players[discipline], match, discipline, options, distance, match_games,
                                    noise=noise, max_game_shots=max_game_shots, seed=seed, batch=batch,
                                    search_shots=search_shots, progress=progress)
            done[key] = (result, full_distance, played)
            bar.update(len(specs) + bool(match))
        result, full_distance, played = done[key]
        where = dict(group=group, setting=label, discipline=discipline,
                     options=";".join(f"{k}={v}" for k, v in options.items()), distance=distance,
                     full_distance=full_distance)
        by_agent = {r["agent"]: r for r in result["games_summary"]}
        for r in result["summary"]:
            g = by_agent.get(r["agent"], {})
            own = [[x for x in result[part] if x["evaluated"] == r["agent"]] for part in ("games", "game_innings")]
            variants.append(dict(
                **where, agent=r["agent"], noise=noise,
                points_per_inning=r["points_per_inning"], points_low=r["points_low"], points_high=r["points_high"],
                net_points_per_inning=r["net_points_per_inning"], innings=r["innings"],
                capped_innings=r["capped_innings"], success_rate=r["success_rate"], success_low=r["success_low"],
                success_high=r["success_high"], foul_rate=r["foul_rate"], foul_low=r["foul_low"],
                foul_high=r["foul_high"], limit_rate=r["limit_rate"], limit_low=r["limit_low"],
                limit_high=r["limit_high"], games=g.get("games", 0), finished_games=g.get("finished", 0),
                length_innings=g.get("length_innings", float("nan")), length_low=g.get("length_low", float("nan")),
                length_high=g.get("length_high", float("nan")),
                general_average=g.get("general_average", float("nan")), average_low=g.get("average_low", float("nan")),
                average_high=g.get("average_high", float("nan")), seconds_per_decision=r["seconds_per_decision"],
                **run_lengths(*own, thresholds=thresholds),
            ))
        game_rows += [dict(where, **r) for r in result["games"]]
        inning_rows += [dict(where, **r) for r in result["innings"]]
        if played:
            seats, g_rows, i_rows, s_rows = played
            matches += match_rows(seats, g_rows, i_rows, s_rows, noise, thresholds, **where)
            match_game_rows += [dict(where, **r) for r in g_rows]
            match_inning_rows += [dict(where, **r) for r in i_rows]
    bar.close()
    paired = [row for group in groups for row in paired_settings(inning_rows, group)]
    settings = dict(groups=list(groups), agents=list(specs), titles={g: table[g][0] for g in groups},
                    options={g: [[label, d, o] for label, d, o in table[g][1]] for g in groups},
                    innings=innings, games=games, noise=noise,
                    max_shots=max_shots, max_game_shots=max_game_shots, carom_distance=carom_distance,
                    hungarian_distance=hungarian_distance, batch=batch, search_shots=search_shots, seed=seed,
                    run_thresholds=list(thresholds), match=list(match) if match else None,
                    match_games=match_games if match else 0,
                    note=(f"game lengths are for REDUCED distances: {carom_distance} points in the carom "
                          f"disciplines, {hungarian_distance} in the Hungarian game (full: 150 to 1000)"),
                    timing={f"{discipline} {label}": p.timing() for discipline, mine in players.items()
                            for label, p in mine.items()})
    out = dict(variants=variants, paired=paired, games=game_rows, innings=inning_rows, settings=settings)
    if match:
        strong = parse_agent_spec(match[0]).text
        out.update(matches=matches, match_games=match_game_rows, match_innings=match_inning_rows,
                   match_paired=[row for group in groups for row in match_paired(match_game_rows, group, strong)])
    return out


COLOURS = ["#4f81bd", "#c0504d", "#9bbb59", "#8064a2", "#f79646", "#4bacc6"]


def bars(ax, rows, settings, key, series, metric, low, high):
    """Grouped bars with 95 % intervals on ``ax``: one bar per setting and series, a series the rows
    whose ``key`` is its name; ``series``: (name, legend label) pairs."""
    width = 0.8 / max(1, len(series))
    for j, (name, label) in enumerate(series):
        vals = [next((r for r in rows if r["setting"] == s and r[key] == name), None) for s in settings]
        y = np.array([np.nan if v is None else v[metric] for v in vals], float)
        lo = np.array([np.nan if v is None else v[low] for v in vals], float)
        hi = np.array([np.nan if v is None else v[high] for v in vals], float)
        err = np.clip(np.nan_to_num(np.array([y - lo, hi - y])), 0, None)
        x = np.arange(len(settings)) + (j - (len(series) - 1) / 2) * width
        ax.bar(x, np.nan_to_num(y), width, yerr=err, capsize=3, color=COLOURS[j % len(COLOURS)], label=label)
    ax.set_xticks(np.arange(len(settings)))
    ax.set_xticklabels(settings, fontsize=9)


def plot(path, rows, note, titles=None, matches=None):
    """Per group, points per inning and game length per setting and agent; with ``matches`` (the
    rows of ``match_rows``) three rows more: the stronger player's win probability, the match's
    game length and each player's mean run (the self-play length left out when no game was played)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(dict.fromkeys(r["group"] for r in rows))
    agents = [(a, short_label(a, 30)) for a in dict.fromkeys(r["agent"] for r in rows)]
    panels = [(rows, "agent", agents, "points_per_inning", "points_low", "points_high", "points per inning"),
              (rows, "agent", agents, "length_innings", "length_low", "length_high", "game length, innings")]
    if matches:
        if not any(r["games"] for r in rows):
            panels.pop()
        specs = {r["role"]: r["agent"] for r in matches}
        note += f"; match: strong {specs['strong']}, weak {specs['weak']}"
        roles = [(role, role) for role in ROLES]
        panels += [(matches, "role", roles[:1], "win_probability", "win_low", "win_high", "match: strong wins"),
                   (matches, "role", roles[:1], "length_innings", "length_low", "length_high",
                    "match: game length, innings"),
                   (matches, "role", roles, "mean_run", "mean_run_low", "mean_run_high", "match: mean run, points")]
    fig, axes = plt.subplots(len(panels), len(groups), figsize=(4.2 * len(groups) + 1, 3.75 * len(panels)),
                             squeeze=False)
    for c, group in enumerate(groups):
        mine = [r for r in rows if r["group"] == group]
        settings = list(dict.fromkeys(r["setting"] for r in mine))
        for k, (source, key, series, metric, low, high, ylabel) in enumerate(panels):
            ax = axes[k, c]
            bars(ax, [r for r in source if r["group"] == group], settings, key, series, metric, low, high)
            ax.set_ylabel(f"{ylabel} (95 %)", fontsize=9)
            if k == 0:
                ax.set_title((titles or {}).get(group) or GROUPS[group][0], fontsize=10)
            if metric == "length_innings":
                full = " / ".join(str(v) for v in dict.fromkeys(r["full_distance"] for r in mine))
                ax.set_xlabel(f"to {mine[0]['distance']} points (full game: {full})", fontsize=8)
    axes[0, 0].legend(fontsize=8)
    if matches:
        axes[-1, 0].legend(fontsize=8)
    fig.suptitle(textwrap.fill(note, 40 * len(groups) + 20), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m experiments.rule_variants", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1] + "\n" + SPEC_HELP)
    parser.add_argument("--groups", nargs="+", default=None, choices=list(GROUPS),
                        help="groups of settings (default: all, or none with --variant)")
    add_discipline_argument(parser)
    parser.add_argument("--variant", action="append", default=[], metavar="NAME:OPTION=VALUE,...",
                        help="a variant of --discipline under the label NAME (rule options of rules.make_rules, "
                             "e.g. two:cushions_required=2), compared with the rules as written; repeat it")
    parser.add_argument("--agents", nargs="+", default=None, metavar="SPEC",
                        help=f"agents (default: {' '.join(DEFAULT_AGENTS)})")
    parser.add_argument("--innings", type=int, default=None, help="innings per setting and agent (default 30)")
    parser.add_argument("--games", type=int, default=None, help="self-play games per setting and agent (default 4)")
    parser.add_argument("--carom-distance", type=int, default=None, help="reduced carom game distance (default 10)")
    parser.add_argument("--hungarian-distance", type=int, default=None,
                        help="reduced Hungarian game distance (default 300)")
    parser.add_argument("--max-shots", type=int, default=None, help="inning cap in shots (default 20)")
    parser.add_argument("--max-game-shots", type=int, default=None, help="game cap in shots (default 600)")
    parser.add_argument("--noise", type=noise_arg, default=1.0, help=NOISE_HELP)
    parser.add_argument("--match", nargs=2, default=None, metavar=("STRONG", "WEAK"),
                        help="two agent specs (e.g. search search@club): per setting, games between them "
                             "(STRONG player 0, the break alternating, the same game keys in every setting)")
    parser.add_argument("--match-games", type=int, default=None, help="games of --match per setting (default --games)")
    parser.add_argument("--run-thresholds", type=int, nargs="+", default=list(RUN_THRESHOLDS), metavar="POINTS",
                        help="report the share of runs of at least these many points (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="a small run: 4 innings, 2 games to 3 (Hungarian 100) points, a small search")
    add_run_arguments(parser, "results/rule_variants")
    return parser


def check_match(parser, args, games: int):
    """(the --match specs as (strong, weak) or None, its games per setting, the run thresholds),
    checked before any work (parser.error otherwise)."""
    thresholds = sorted(set(args.run_thresholds))
    if thresholds[0] < 1:
        parser.error(f"--run-thresholds must be >= 1 point, got {args.run_thresholds}")
    if args.match is None:
        if args.match_games is not None:
            parser.error("--match-games needs --match STRONG WEAK")
        return None, 0, thresholds
    try:
        labels = [parse_agent_spec(spec).text for spec in args.match]
    except AgentSpecError as e:
        parser.error(f"--match: {e}")
    if labels[0] == labels[1]:
        parser.error(f"--match needs two different players, got {labels[0]!r} twice (self-play is --agents')")
    n = games if args.match_games is None else args.match_games
    if n < 1:
        parser.error(f"--match needs at least one game a setting: --match-games (default --games) must be >= 1, "
                     f"got {n}")
    return tuple(args.match), n, thresholds


def write_results(out: str, result: dict, seconds: float):
    """The CSV files, summary.json and the figure under ``out`` (the match's only with a match)."""
    os.makedirs(out, exist_ok=True)
    parts = ["variants", "paired", "games", "innings"]
    if "matches" in result:
        parts += ["matches", "match_paired", "match_games", "match_innings"]
    for part in parts:
        write_csv(os.path.join(out, f"{part}.csv"), result[part])
    summary = dict(settings=result["settings"], variants=result["variants"], paired=result["paired"])
    summary.update({part: result[part] for part in ("matches", "match_paired") if part in result})
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(dict(summary, machine=machine_info(), seconds=seconds), f, indent=2, default=float)
    plot(os.path.join(out, "rule_variants.png"), result["variants"], result["settings"]["note"],
         result["settings"]["titles"], result.get("matches"))


def print_matches(result: dict):
    """The match's lines of the printed table: per setting and player, then the paired differences."""
    top = result["settings"]["run_thresholds"][-1]
    for r in result["matches"]:
        print(f"{r['group']:>20} {r['setting']:>9} {r['role']:>6} {r['agent'][:24]:>24}: wins "
              f"{r['win_probability']:.1%} [{r['win_low']:.1%}, {r['win_high']:.1%}] of {r['finished']} finished "
              f"({r['draws']} drawn), {r['length_innings']:.1f} innings [{r['length_low']:.1f}, "
              f"{r['length_high']:.1f}], mean run {r['mean_run']:.2f} [{r['mean_run_low']:.2f}, "
              f"{r['mean_run_high']:.2f}], runs >= {top}: {r[f'runs_ge_{top}']:.1%}, high run {r['high_run']}, "
              f"a limit decided {r['limit_calls']} of {r['shots']} calls")
    for d in result["match_paired"]:
        print(f"{d['group']:>20} {d['setting']:>9} match against {d['against']}: the stronger player's score "
              f"{d['win_difference']:+.2f} [{d['win_low']:+.2f}, {d['win_high']:+.2f}], length "
              f"{d['length_difference']:+.1f} [{d['length_low']:+.1f}, {d['length_high']:+.1f}] innings, the "
              f"game's high run {d['high_run_difference']:+.1f} [{d['high_run_low']:+.1f}, "
              f"{d['high_run_high']:+.1f}], paired over {d['games']} games")


def main(argv=None):
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    quick = args.quick
    pick = lambda value, normal, small: value if value is not None else (small if quick else normal)  # noqa: E731
    agents = pick(args.agents, list(DEFAULT_AGENTS), list(QUICK_AGENTS))
    try:
        for spec in agents:
            parse_agent_spec(spec)
    except AgentSpecError as e:
        parser.error(str(e))
    settings = dict(innings=pick(args.innings, 30, 4), games=pick(args.games, 4, 2),
                    carom_distance=pick(args.carom_distance, 10, 3),
                    hungarian_distance=pick(args.hungarian_distance, 300, 100),
                    max_shots=pick(args.max_shots, 20, 6), max_game_shots=pick(args.max_game_shots, 600, 60))
    if settings["innings"] < 1 or settings["games"] < 0 or settings["max_shots"] < 1 or settings["max_game_shots"] < 1:
        parser.error("--innings, --max-shots and --max-game-shots must be >= 1 and --games >= 0")
    match, match_games, thresholds = check_match(parser, args, settings["games"])
    table, groups = dict(GROUPS), args.groups
    if args.variant:
        try:
            variants = check_variants(args.variant, args.discipline)
        except ValueError as e:
            parser.error(f"--variant: {e}")
        table.update(variant_group(args.discipline, variants))
        groups = (groups or []) + ["variants"]
    elif groups is None:
        groups = list(GROUPS)
    t0 = time.perf_counter()
    try:
        result = run(groups, agents, noise=args.noise, batch=args.batch, search_shots=args.search_shots,
                     seed=args.seed, progress=not args.no_progress, table=table, match=match,
                     match_games=match_games, thresholds=thresholds, **settings)
    except AgentSpecError as e:
        parser.error(str(e))
    seconds = time.perf_counter() - t0
    write_results(args.out, result, seconds)
    print(result["settings"]["note"])
    for r in result["variants"]:
        print(f"{r['group']:>20} {r['setting']:>9} {r['agent'][:24]:>24}: {r['points_per_inning']:7.2f} points per "
              f"inning [{r['points_low']:.2f}, {r['points_high']:.2f}], a limit decided {r['limit_rate']:.1%} of "
              f"shots, games {r['finished_games']}/{r['games']} finished, {r['length_innings']:.1f} innings")
    for d in result["paired"]:
        print(f"{d['group']:>20} {d['setting']:>9} {d['agent'][:24]:>24}: {d['points_difference']:+7.2f} points per "
              f"inning against {d['against']} [{d['points_low']:+.2f}, {d['points_high']:+.2f}], paired over "
              f"{d['innings']} innings")
    if match:
        print_matches(result)
    print(f"wrote {args.out}/ in {seconds:.0f} s")
    return result


if __name__ == "__main__":
    main()
