"""A gallery of the search agent's best shots: pictures of their ball paths and what the referee
said.

The agent (``--agent``, default the search) plays one shot from each of ``--layouts`` random legal
layouts and from the discipline's starting position, under execution noise ``--noise`` (default
0: the planned shot is played). The shots are ranked by the points they scored for the shooter,
then by the cue ball's cushions before the carom (``Outcome.cushions``), then by all its cushion
contacts, then by the length of its path; the best ``--top`` (and
the shot from the starting position, whatever its rank) get a PNG of the table with every ball's
path (start: ring, rest: disc) and, unless ``--no-gif``, a GIF replay
(``billiards_env.render.save_replay``).

Writes under ``--out``: ``shot_NN.png`` (and ``.gif``), ``view.html`` (the drawn shots in the
interactive viewer of ``experiments.view``), ``index.json`` and ``index.md`` (per shot: where it was
played from, the layout, the strike, the referee's call in words, points, cushions, the cue ball's
contacts in order) and ``shots.csv`` (every shot played).

    python -m experiments.gallery --discipline three_cushion --layouts 40 --top 6
    python -m experiments.gallery --discipline hungarian_1000 --layouts 20 --top 4 --no-gif
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

import physics
import rules
from agents import arena
from agents.base import index_tree
from agents.specs import SPEC_HELP, AgentSpecError, check_discipline, parse_agent_spec
from billiards_env import render, setup
from experiments.common import (NOISE_HELP, add_discipline_argument, add_run_arguments, ball_names, begin,
                                machine_info, noise_arg, write_csv)
from experiments.view import ViewShot, standing_pin, write_view

SAMPLES = 600  # points along each ball's path in a picture
VIEW = "view.html"  # the drawn shots in the interactive viewer (experiments.view)


def contacts(result, cue: int, names) -> list:
    """The cue ball's contacts in order, from the shot's event log: ball names,
    ``cushion <name>``, ``pin``, ``off the table``."""
    seq = []
    for e in physics.event_list(result):
        if cue not in e["balls"]:
            continue
        if e["kind"] == "ball_cushion":
            seq.append(f"cushion {e.get('cushion', '?')}")
        elif e["kind"] == "ball_ball":
            other = [b for b in e["balls"] if b != cue]
            seq.append(names[other[0]] if other else "ball")
        elif e["kind"] == "ball_pin":
            seq.append("pin")
        elif e["kind"] == "off_table":
            seq.append("off the table")
    return seq


def path_lengths(paths) -> np.ndarray:
    """(n_balls,) length of each ball's sampled path (m); paths (T, n_balls, 2)."""
    return np.sum(np.linalg.norm(np.diff(paths, axis=0), axis=-1), axis=0)


def draw(path, result, state, params, ruleset, title, paths):
    """A PNG of one shot: the table with the balls' paths, rest positions (discs) and starting
    positions (rings), the pin where it stood if it did not fall."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hungarian = ruleset.is_hungarian
    pin = None if bool(result.pin_down) else standing_pin(ruleset, state)
    img = render.frame(np.asarray(result.final_positions), params, hungarian, pin=pin, paths=paths,
                       on_table=np.asarray(result.on_table), width=900)
    canvas = render.Canvas(float(params.table.length), float(params.table.width), 900)
    fig, ax = plt.subplots(figsize=(9, 9 * img.shape[0] / img.shape[1] + 0.9))
    ax.imshow(img)
    colours = np.asarray(render.ball_colours(hungarian)) / 255.0
    R = float(params.ball.radius) * canvas.scale
    for b, xy in enumerate(np.asarray(state.positions)):
        ax.add_patch(plt.Circle(canvas.to_pixels(xy), R * 1.15, fill=False, ec=colours[b], lw=1.6))
        ax.add_patch(plt.Circle(canvas.to_pixels(xy), R * 1.15 + 1.2, fill=False, ec="black", lw=0.5))
    ax.set_axis_off()
    ax.set_title(title, fontsize=9, loc="left")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def gallery(discipline="three_cushion", spec="search", *, layouts=40, top=6, noise=0.0, seed=0, batch=64,
            search_shots=arena.SEARCH_SHOTS, out="results/gallery", gif=True, gif_seconds=10.0, progress=True,
            players=None):
    """Play, rank, draw. Returns (index entries, shot rows)."""
    ruleset, params = setup(discipline)
    players = {} if players is None else players
    label = parse_agent_spec(spec).text
    if label not in players:
        players[label] = arena.make_player(spec, noise, batch, search_shots, discipline)
    player = players[label]
    check_discipline(player.agent, label, discipline)
    names = ball_names(ruleset)
    n = layouts + 1  # the random layouts, then the starting position
    keys = arena.row_keys(seed, 0, n)
    random_part = arena.first_states(ruleset, params, layouts, "random", keys[:layouts]) if layouts else None
    start_part = arena.first_states(ruleset, params, 1, "start", keys[layouts:])
    games = start_part if random_part is None else jax.tree_util.tree_map(
        lambda a, b: np.concatenate([a, b]), random_part, start_part)
    env, env_params = arena.environment(ruleset, params, "shot", noise, 1)
    states = arena.to_host(env.init_from(games, env_params))
    where = [f"random layout {i}" for i in range(layouts)] + ["starting position"]
    shot_keys = np.asarray(arena.shot_keys(keys, 0))
    rows, shots = [], []
    bar = tqdm(total=n, desc=f"{label} shots", unit="shot", disable=not progress)
    for first in range(0, n, batch):
        part = slice(first, min(n, first + batch))
        sub = index_tree(states, part)
        m = part.stop - part.start
        planned, stepped, result_batch = arena.play_round([player], np.zeros(m, int), env, env_params, sub,
                                                          shot_keys[part], batch)
        for i in range(m):
            r = first + i
            result = index_tree(result_batch, i)
            outcome = index_tree(stepped.outcome, i)
            state = index_tree(sub.game, i)
            cue = int(state.cue_ball)
            shooter = int(state.current_player)
            paths = render.shot_paths(result, params, samples=SAMPLES)
            lengths = path_lengths(paths)
            seq = contacts(result, cue, names)
            rows.append(dict(
                index=r, where=where[r], points=int(np.asarray(outcome.points)[shooter]),
                shot_value=int(outcome.shot_value), foul=bool(outcome.foul),
                reason=rules.Reason(int(outcome.reason)).name.lower(),
                cushions_before_carom=int(outcome.cushions), cushions=sum(c.startswith("cushion") for c in seq),
                cue_path_m=float(lengths[cue]),
                events=int(result.num_events), call=rules.call_words(outcome, discipline),
                **{f: float(planned[i, k]) for k, f in enumerate(arena.SHOT_FIELDS)},
            ))
            shots.append((result, state, outcome, paths, seq))
        bar.update(m)
    bar.close()
    order = sorted(range(n), key=lambda r: (-rows[r]["points"], -rows[r]["cushions_before_carom"],
                                            -rows[r]["cushions"], -rows[r]["cue_path_m"]))
    chosen = order[:top]
    if n - 1 not in chosen:
        chosen.append(n - 1)  # the shot from the starting position, whatever its rank
    os.makedirs(out, exist_ok=True)
    index, views = [], []
    for rank, r in enumerate(chosen, 1):
        result, state, outcome, paths, seq = shots[r]
        row = rows[r]
        cue = int(state.cue_ball)
        stem = f"shot_{rank:02d}"
        title = (f"#{rank} {discipline}, {row['where']}: {names[cue]} cue ball, V0 {row['V0']:.2f} m/s, "
                 f"aim {row['phi']:.1f} deg, tip a {row['a']:+.2f} b {row['b']:+.2f}\n"
                 + textwrap.fill(f"referee: {row['call']}", 120)
                 + "\n" + textwrap.fill(f"cue ball: {' -> '.join(seq) if seq else 'no contact'}", 120))
        draw(os.path.join(out, stem + ".png"), result, state, params, ruleset, title, paths)
        files = [stem + ".png"]
        pin = standing_pin(ruleset, state)
        if gif:
            render.save_replay(os.path.join(out, stem + ".gif"), result, params, ruleset.is_hungarian, pin=pin,
                               width=480, max_seconds=gif_seconds)
            files.append(stem + ".gif")
        views.append(ViewShot(f"#{rank} {row['where']}", discipline, params, result, row["call"], pin))
        index.append(dict(
            rank=rank, files=files, where=row["where"], discipline=discipline, agent=label,
            cue_ball=names[cue], layout={names[b]: [round(float(v), 4) for v in xy]
                                         for b, xy in enumerate(np.asarray(state.positions))},
            pin=None if pin is None else [round(float(v), 4) for v in pin],
            shot={f: round(row[f], 4) for f in arena.SHOT_FIELDS}, noise=noise,
            call=row["call"], points=row["points"], foul=row["foul"], reason=row["reason"],
            cushions=row["cushions"], cushions_before_carom=row["cushions_before_carom"], cue_ball_contacts=seq,
            cue_path_m=round(row["cue_path_m"], 3),
            duration_s=round(float(result.final_time), 3),
        ))
    write_view(os.path.join(out, VIEW), views, title=f"Gallery: {discipline}, agent {label}")
    return index, rows, player


def write_index(out, index, settings):
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(dict(settings=settings, shots=index), f, indent=2, ensure_ascii=False)
    lines = [f"# Gallery: {settings['discipline']}, agent {settings['agent']}", "",
             f"{settings['layouts']} random layouts and the starting position, execution noise "
             f"{settings['noise']:g}; ranked by points, then the cue ball's cushions before the carom, then all "
             f"its cushion contacts, then its path length.", ""]
    for e in index:
        shot = e["shot"]
        lines += [
            f"## {e['rank']}. {e['where']}: {e['points']} point(s)", "",
            f"![shot {e['rank']}]({e['files'][0]})", "",
            "- layout: " + ", ".join(f"{k} ({v[0]:.3f}, {v[1]:.3f})" for k, v in e["layout"].items())
            + (f", pin ({e['pin'][0]:.3f}, {e['pin'][1]:.3f})" if e["pin"] else "") + f"; cue ball {e['cue_ball']}",
            f"- strike: V0 {shot['V0']:.2f} m/s, aim {shot['phi']:.2f} deg, elevation {shot['theta']:.1f} deg, "
            f"tip a {shot['a']:+.3f}, b {shot['b']:+.3f} (fractions of R)",
            f"- referee: {e['call']}",
            f"- cue ball: {' -> '.join(e['cue_ball_contacts']) or 'no contact'} ({e['cushions']} cushions, "
            f"{e['cushions_before_carom']} before the carom, "
            f"{e['cue_path_m']:.2f} m, {e['duration_s']:.1f} s)",
            "",
        ]
    with open(os.path.join(out, "index.md"), "w") as f:
        f.write("\n".join(lines))


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m experiments.gallery", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1] + "\n" + SPEC_HELP)
    add_discipline_argument(parser)
    parser.add_argument("--agent", default="search", metavar="SPEC", help="the agent (default: search)")
    parser.add_argument("--layouts", type=int, default=40, help="random layouts (plus the starting position)")
    parser.add_argument("--top", type=int, default=6, help="shots drawn (plus the one from the starting position)")
    parser.add_argument("--noise", type=noise_arg, default=0.0, help=NOISE_HELP + " (default 0: exact)")
    parser.add_argument("--no-gif", action="store_true", help="PNGs only, no GIF replays")
    parser.add_argument("--gif-seconds", type=float, default=10.0, help="replay at most this much of a shot")
    add_run_arguments(parser, "results/gallery", batch=64)
    return parser


def main(argv=None):
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        parse_agent_spec(args.agent)
    except AgentSpecError as e:
        parser.error(str(e))
    if args.layouts < 0 or args.top < 1 or args.batch < 1 or args.noise < 0:
        parser.error("--layouts must be >= 0, --top and --batch >= 1, --noise >= 0")
    t0 = time.perf_counter()
    try:
        index, rows, player = gallery(args.discipline, args.agent, layouts=args.layouts, top=args.top,
                                      noise=args.noise, seed=args.seed, batch=args.batch,
                                      search_shots=args.search_shots, out=args.out,
                                      gif=not args.no_gif, gif_seconds=args.gif_seconds,
                                      progress=not args.no_progress)
    except AgentSpecError as e:
        parser.error(str(e))
    settings = dict(discipline=args.discipline, agent=player.label, layouts=args.layouts, top=args.top,
                    noise=args.noise, seed=args.seed, budget=player.timing()["budget"],
                    seconds=time.perf_counter() - t0, machine=machine_info())
    write_index(args.out, index, settings)
    write_csv(os.path.join(args.out, "shots.csv"), rows)
    for e in index:
        print(f"{e['rank']:2d}. {e['where']}: {e['call']}")
    print(f"wrote {args.out}/ in {settings['seconds']:.0f} s")
    return index


if __name__ == "__main__":
    main()
