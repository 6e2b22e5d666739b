"""The same agents under different rule settings, side by side.

Groups of settings (``--groups``; each a set of rule options for ``rules.make_rules``):

=====================  ======================================================  =============
group                  settings                                                rules
=====================  ======================================================  =============
hungarian_scoring      Hungarian 1000, scoring modes 1, 2, 3                   H-9.9, H-9.10
hungarian_pure_carom   Hungarian 1000 with and without the pure-carom limit    H-6.3, H-9.6
balkline               balkline 47/2, 47/1, 71/2                               C-12.3/4/6
straight_rail          straight rail with and without the restricted fields    C-11.1, C-11.2
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
  (the most innings either player began) and the general average.

* the paired comparison: each setting's points per inning minus the group's first setting's,
  inning by inning (every setting meets the same layouts and noise draws: common random numbers),
  with its 95 % interval.

A setting that appears in two groups (Hungarian mode 1 with the limit is the default game) is
played once and reported in both. Writes under ``--out``: ``variants.csv`` (one row per group,
setting and agent), ``paired.csv`` (one row per group, setting after the first, and agent),
``games.csv``, ``innings.csv``, ``summary.json`` and ``rule_variants.png`` (grouped bars with
95 % intervals).

    python -m experiments.rule_variants                      # default settings
    python -m experiments.rule_variants --quick --out results/rule_variants_quick   # a small run, minutes
    python -m experiments.rule_variants --discipline three_cushion --variant two:cushions_required=2 --quick
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
from agents.specs import SPEC_HELP, AgentSpecError, parse_agent_spec
from billiards_env import setup
from experiments.common import (NOISE_HELP, add_discipline_argument, add_run_arguments, begin, machine_info, noise_arg,
                                parse_variant, short_label, write_csv)

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
}

DEFAULT_AGENTS = ("geometric", "search:candidates=128,trials=4,refine_parents=4,refine_children=32,refine_trials=4")
QUICK_AGENTS = ("geometric", "search:candidates=16,trials=2,refine_parents=0,seeds=8")


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
    inning by inning (``agents.arena.paired_differences`` over the settings)."""
    mine = [r for r in inning_rows if r["group"] == group]
    out = []
    for agent in dict.fromkeys(r["agent"] for r in mine):
        rows = [dict(r, agent=r["setting"]) for r in mine if r["agent"] == agent]
        for d in arena.paired_differences(rows):
            out.append(dict(group=group, agent=agent, setting=d.pop("agent"), **d))
    return out


def run(groups, specs, *, innings=30, games=4, noise=1.0, max_shots=20, max_game_shots=600, carom_distance=10,
        hungarian_distance=300, batch=arena.BATCH, search_shots=arena.SEARCH_SHOTS, seed=0, progress=True,
        table=None):
    """Play every distinct setting of the groups with every agent. ``table``: the groups by name,
    (title, [(label, discipline, options)]) (default ``GROUPS``). Returns a dict of row lists
    (``variants``, ``paired``, ``games``, ``innings``) and the settings."""
    table = GROUPS if table is None else table
    players = {}  # per discipline: an agent may carry a discipline's model (leave=value)
    plan = []  # (group, setting label, discipline, options, distance, key)
    for group in groups:
        for label, discipline, options in table[group][1]:
            distance = reduced_distance(discipline, carom_distance, hungarian_distance)
            plan.append((group, label, discipline, options, distance, setting_key(discipline, options, distance)))
    done = {}
    variants, game_rows, inning_rows = [], [], []
    bar = tqdm(total=len({p[-1] for p in plan}) * len(specs), desc="settings x agents", unit="run",
               disable=not progress)
    for group, label, discipline, options, distance, key in plan:
        if key not in done:
            full_distance = int(setup(discipline)[0].distance)
            result = arena.evaluate(discipline, specs, innings=innings, start="random", max_shots=max_shots,
                                    games=games, distance=distance, max_game_shots=max_game_shots,
                                    rule_options=options, noise=noise, batch=batch, search_shots=search_shots,
                                    seed=seed, progress=progress, players=players.setdefault(discipline, {}))
            done[key] = (result, full_distance)
            bar.update(len(specs))
        result, full_distance = done[key]
        where = dict(group=group, setting=label, discipline=discipline,
                     options=";".join(f"{k}={v}" for k, v in options.items()), distance=distance,
                     full_distance=full_distance)
        by_agent = {r["agent"]: r for r in result["games_summary"]}
        for r in result["summary"]:
            g = by_agent.get(r["agent"], {})
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
            ))
        game_rows += [dict(where, **r) for r in result["games"]]
        inning_rows += [dict(where, **r) for r in result["innings"]]
    bar.close()
    paired = [row for group in groups for row in paired_settings(inning_rows, group)]
    settings = dict(groups=list(groups), agents=list(specs), titles={g: table[g][0] for g in groups},
                    options={g: [[label, d, o] for label, d, o in table[g][1]] for g in groups},
                    innings=innings, games=games, noise=noise,
                    max_shots=max_shots, max_game_shots=max_game_shots, carom_distance=carom_distance,
                    hungarian_distance=hungarian_distance, batch=batch, search_shots=search_shots, seed=seed,
                    note=(f"game lengths are for REDUCED distances: {carom_distance} points in the carom "
                          f"disciplines, {hungarian_distance} in the Hungarian game (full: 150 to 1000)"),
                    timing={f"{discipline} {label}": p.timing() for discipline, mine in players.items()
                            for label, p in mine.items()})
    return dict(variants=variants, paired=paired, games=game_rows, innings=inning_rows, settings=settings)


def plot(path, rows, note, titles=None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(dict.fromkeys(r["group"] for r in rows))
    agents = list(dict.fromkeys(r["agent"] for r in rows))
    colours = ["#4f81bd", "#c0504d", "#9bbb59", "#8064a2", "#f79646", "#4bacc6"]
    fig, axes = plt.subplots(2, len(groups), figsize=(4.2 * len(groups) + 1, 7.5), squeeze=False)
    width = 0.8 / max(1, len(agents))
    for c, group in enumerate(groups):
        mine = [r for r in rows if r["group"] == group]
        settings = list(dict.fromkeys(r["setting"] for r in mine))
        for k, (metric, low, high, ylabel) in enumerate((
                ("points_per_inning", "points_low", "points_high", "points per inning"),
                ("length_innings", "length_low", "length_high", "game length, innings"))):
            ax = axes[k, c]
            for j, agent in enumerate(agents):
                vals = [next((r for r in mine if r["setting"] == s and r["agent"] == agent), None) for s in settings]
                y = np.array([np.nan if v is None else v[metric] for v in vals], float)
                lo = np.array([np.nan if v is None else v[low] for v in vals], float)
                hi = np.array([np.nan if v is None else v[high] for v in vals], float)
                err = np.clip(np.nan_to_num(np.array([y - lo, hi - y])), 0, None)
                x = np.arange(len(settings)) + (j - (len(agents) - 1) / 2) * width
                ax.bar(x, np.nan_to_num(y), width, yerr=err, capsize=3, color=colours[j % len(colours)],
                       label=short_label(agent, 30))
            ax.set_xticks(np.arange(len(settings)))
            ax.set_xticklabels(settings, fontsize=9)
            ax.set_ylabel(f"{ylabel} (95 %)", fontsize=9)
            if k == 0:
                ax.set_title((titles or {}).get(group) or GROUPS[group][0], fontsize=10)
            if k == 1:
                full = " / ".join(str(v) for v in dict.fromkeys(r["full_distance"] for r in mine))
                ax.set_xlabel(f"to {mine[0]['distance']} points (full game: {full})", fontsize=8)
    axes[0, 0].legend(fontsize=8)
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
    parser.add_argument("--quick", action="store_true",
                        help="a small run: 4 innings, 2 games to 3 (Hungarian 100) points, a small search")
    add_run_arguments(parser, "results/rule_variants")
    return parser


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
    table, groups = dict(GROUPS), args.groups
    if args.variant:
        try:
            variants = [parse_variant(text) for text in args.variant]
            for _, options in variants:
                setup(args.discipline, **options)
        except ValueError as e:
            parser.error(f"--variant: {e}")
        labels = [label for label, _ in variants]
        if len(set(labels)) < len(labels) or "as written" in labels:
            parser.error(f"--variant labels must differ from each other and from 'as written', got {labels}")
        table.update(variant_group(args.discipline, variants))
        groups = (groups or []) + ["variants"]
    elif groups is None:
        groups = list(GROUPS)
    t0 = time.perf_counter()
    try:
        result = run(groups, agents, noise=args.noise, batch=args.batch, search_shots=args.search_shots,
                     seed=args.seed, progress=not args.no_progress, table=table, **settings)
    except AgentSpecError as e:
        parser.error(str(e))
    seconds = time.perf_counter() - t0
    os.makedirs(args.out, exist_ok=True)
    write_csv(os.path.join(args.out, "variants.csv"), result["variants"])
    write_csv(os.path.join(args.out, "paired.csv"), result["paired"])
    write_csv(os.path.join(args.out, "games.csv"), result["games"])
    write_csv(os.path.join(args.out, "innings.csv"), result["innings"])
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(dict(settings=result["settings"], variants=result["variants"], paired=result["paired"],
                       machine=machine_info(), seconds=seconds), f, indent=2, default=float)
    plot(os.path.join(args.out, "rule_variants.png"), result["variants"], result["settings"]["note"],
         result["settings"]["titles"])
    print(result["settings"]["note"])
    for r in result["variants"]:
        print(f"{r['group']:>20} {r['setting']:>9} {r['agent'][:24]:>24}: {r['points_per_inning']:7.2f} points per "
              f"inning [{r['points_low']:.2f}, {r['points_high']:.2f}], a limit decided {r['limit_rate']:.1%} of "
              f"shots, games {r['finished_games']}/{r['games']} finished, {r['length_innings']:.1f} innings")
    for d in result["paired"]:
        print(f"{d['group']:>20} {d['setting']:>9} {d['agent'][:24]:>24}: {d['points_difference']:+7.2f} points per "
              f"inning against {d['against']} [{d['points_low']:+.2f}, {d['points_high']:+.2f}], paired over "
              f"{d['innings']} innings")
    print(f"wrote {args.out}/ in {seconds:.0f} s")
    return result


if __name__ == "__main__":
    main()
