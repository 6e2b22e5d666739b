"""Success maps and the robustness of a shot under execution noise, from one layout.

For a layout (a random legal one from ``--seed``, the discipline's starting position with
``--from start``, a shot file's with ``--from FILE``, docs/shotfile.md, or ``--layout``), in
batched simulation (``agents.robustness``):

1. **Aim x speed map**: the share of ``--trials`` noisy plays that score, the expected points
   and (the Hungarian game) the expected points handed to the opponent, over ``--aims`` aims
   (all directions) x ``--speeds`` cue speeds, the cue level and the tip in the centre (or
   ``--theta``, ``--tip a,b``); the most robust shots (highest success, then the widest region
   around them) are marked, and their success is reported from ``--shot-trials`` fresh plays,
   not from the map's plays that chose them (``agents.robustness.value_chosen``).
2. **Tip map**: the same over the tip offsets inside the miscue disc, at the aim and speed of the
   best cell of map 1 (or ``--at PHI,V0``, or named ``--at phi=...,v0=...``).
3. **The shot** (``--shot V0,PHI,THETA,A,B`` or named ``v0=...,phi=...``, default the best cell of
   map 1): its success and
   expected points under noise with 95 % intervals (Wilson; a bootstrap kept inside the possible
   range), and how far each input may move alone, with exact execution, before it stops
   scoring (``agents.robustness.sensitivity``).
4. With ``--difficulty``: the layout's difficulty, the success of the shot the search agent
   chooses for this noise.

Writes under ``--out``: ``aim_speed.png``/``.csv``, ``tip.png``/``.csv``, ``shot.json``, and prints a
summary. ``shot.json`` is a shot file (docs/shotfile.md): the layout, the judged shot (source "map"
or "given") and with ``--difficulty`` the search's (source "search"), the noise and the command;
beside them the report (``shot``: success, points, intervals, sensitivity; ``most_robust``,
``difficulty``, ``noise_std``, timings). ``python -m experiments.view --from OUT/shot.json --fan 64``
replays it. Noise: ``--noise`` times the standard execution noise (docs/physics.md section 6).

    python -m experiments.shot_map --discipline three_cushion --seed 3
    python -m experiments.shot_map --from results/reconstruct/shot_545712.json --at phi=80,v0=3
    python -m experiments.shot_map --discipline hungarian_1000 --aims 120 --speeds 40 --trials 16 --difficulty
"""
from __future__ import annotations

import argparse
import os
import time
from typing import Any

import jax
import numpy as np
from tqdm.auto import tqdm

import agents
from agents import ExecutionNoise, shotfile
from agents import robustness as rb
from agents.stats import bounded_mean_ci, wilson
from billiards_env.params import DEFAULT_NOISE, check_layout, setup
from experiments.common import NOISE_HELP, add_discipline_argument, begin, machine_info, noise_arg, write_csv
from experiments.view import strike_arg

LAYOUTS = ("random", "start")  # what --from takes besides a shot file


def _floats(text: str, n: int, name: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name} must be {n} comma-separated numbers, got {text!r}") from None
    if len(values) != n or not np.all(np.isfinite(values)):
        raise argparse.ArgumentTypeError(f"{name} must be {n} comma-separated finite numbers, got {text!r}")
    return values


def at_arg(text: str) -> list[float]:
    """argparse type of ``--at``: ``PHI,V0``, or named as a strike (``phi=80,v0=3``) with no other field."""
    if "=" not in text:
        return _floats(text, 2, "--at")
    shot = strike_arg(text)
    if any(float(np.asarray(getattr(shot, f))) for f in ("theta", "a", "b")):
        raise argparse.ArgumentTypeError(f"--at takes the aim and speed only (phi=...,v0=...), got {text!r}: the tip "
                                         "map varies a and b, and --theta sets the elevation")
    return [float(np.asarray(shot.phi)), float(np.asarray(shot.V0))]


def layout_state(ruleset, params, args):
    """The game state the maps start from: --layout, a shot file (--from FILE), --from start, or a
    random legal layout."""
    if getattr(args, "shot_file", None) is not None:
        return args.shot_file.game()[2]
    if args.layout is not None:
        layout = check_layout(np.reshape(args.layout, (3, 2)), params, ruleset)
        return agents.state_from_layout(ruleset, layout, params)
    if args.start == "start":
        return agents.starting_state(ruleset, params)
    return agents.random_state(ruleset, jax.random.PRNGKey(args.seed), params)


def map_rows(m: rb.SuccessMap) -> list[dict]:
    return [{m.rows: float(m.row_values[i]), m.cols: float(m.col_values[j]), "success": float(m.success[i, j]),
             "points": float(m.points[i, j]), "given": float(m.given[i, j]), "trials": m.trials}
            for i in range(len(m.row_values)) for j in range(len(m.col_values))]


def map_figure(m: rb.SuccessMap, title: str, labels: tuple[str, str], best: list, size=(9, 4.8)):
    """(figure, axes) of a success map, its ``best`` cells ringed (the first larger)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size)
    extent = [m.row_values[0], m.row_values[-1], m.col_values[0], m.col_values[-1]]
    image = ax.imshow(m.success.T, origin="lower", aspect="auto", extent=extent, vmin=0, vmax=1, cmap="viridis")
    fig.colorbar(image, ax=ax, label=f"share of {m.trials} noisy plays that score")
    for rank, (i, j) in enumerate(best):
        ax.plot(m.row_values[i], m.col_values[j], marker="o", mfc="none", mec="#ff3030", ms=10 if rank else 14, mew=2)
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title)
    fig.tight_layout()
    return fig, ax


def plot_map(path, m: rb.SuccessMap, title: str, labels: tuple[str, str], best: list):
    import matplotlib.pyplot as plt

    fig, _ = map_figure(m, title, labels, best)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def shot_report(ruleset, state, shot, params, key, noise, trials, batch) -> dict:
    """The shot's success and points under noise with intervals, and its sensitivity."""
    one = jax.tree_util.tree_map(lambda x: np.reshape(np.asarray(x, float), (1,)), shot)
    played = rb.play_trials(ruleset, state, one, params, key, noise=noise, trials=trials, batch=batch)
    k = int(played.scored[0])
    low, high = wilson(k, trials)
    points, p_low, p_high = bounded_mean_ci(played.points[0], floor=0.0)
    given, g_low, g_high = bounded_mean_ci(played.given[0], floor=0.0)
    return dict(
        shot={f: float(np.asarray(getattr(shot, f))) for f in rb.FIELDS}, trials=trials,
        success=k / trials, success_ci=[low, high], points=points, points_ci=[p_low, p_high],
        given=given, given_ci=[g_low, g_high],
        sensitivity={f: list(v) for f, v in rb.sensitivity(ruleset, state, shot, params, batch=batch).items()},
    )


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m experiments.shot_map", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    add_discipline_argument(parser)
    parser.set_defaults(discipline=None)  # three_cushion, or the discipline of the --from file
    parser.add_argument("--seed", type=int, default=0, help="seed of the random layout and of the noise")
    parser.add_argument("--from", dest="start", default="random", metavar="random|start|FILE",
                        help="a random legal layout (from --seed), the discipline's starting position, or a shot "
                             "file's layout, cue ball and discipline (docs/shotfile.md)")
    parser.add_argument("--layout", type=lambda t: _floats(t, 6, "--layout"), metavar="X1,Y1,X2,Y2,X3,Y3",
                        help="the three balls' centres (m), in the discipline's ball order")
    parser.add_argument("--aims", type=int, default=200, help="aims of the aim x speed map (all directions)")
    parser.add_argument("--speeds", type=int, default=100, help="cue speeds of the aim x speed map")
    parser.add_argument("--speed-range", type=lambda t: _floats(t, 2, "--speed-range"), default=[0.5, 8.0],
                        metavar="LOW,HIGH", help="cue speeds spanned (m/s)")
    parser.add_argument("--theta", type=float, default=0.0, help="cue elevation of the maps (deg)")
    parser.add_argument("--tip", type=lambda t: _floats(t, 2, "--tip"), default=[0.0, 0.0], metavar="A,B",
                        help="tip offset of the aim x speed map (fractions of R)")
    parser.add_argument("--offsets", type=int, default=21, help="tip offsets per axis of the tip map (0: no map)")
    parser.add_argument("--at", type=at_arg, metavar="PHI,V0",
                        help="aim and speed of the tip map, or named phi=...,v0=... (default: the best cell of the "
                             "aim x speed map)")
    parser.add_argument("--shot", type=strike_arg, metavar="V0,PHI,THETA,A,B",
                        help="the shot to judge, or named v0=...,phi=...[,theta=...,a=...,b=...] (default: the "
                             "best cell of the aim x speed map)")
    parser.add_argument("--trials", type=int, default=32, help="noisy plays per cell")
    parser.add_argument("--shot-trials", type=int, default=1000, help="noisy plays of the judged shot")
    parser.add_argument("--noise", type=noise_arg, default=DEFAULT_NOISE, help=NOISE_HELP)
    parser.add_argument("--difficulty", action="store_true", help="also the search agent's best shot under the noise")
    parser.add_argument("--batch", type=int, default=rb.BATCH, help="shots per compiled call")
    parser.add_argument("--out", default="results/shot_map")
    parser.add_argument("--no-progress", action="store_true")
    return parser


def check_args(parser, args):
    if args.aims < 2 or args.speeds < 2:
        parser.error(f"--aims and --speeds must be at least 2, got {args.aims} and {args.speeds}")
    if args.offsets < 0 or args.offsets == 1:
        parser.error(f"--offsets must be 0 (no tip map) or at least 2, got {args.offsets}")
    if args.trials < 1 or args.shot_trials < 1 or args.batch < 1:
        parser.error("--trials, --shot-trials and --batch must be positive")
    low, high = args.speed_range
    if not 0 < low < high:
        parser.error(f"--speed-range must be 0 < LOW < HIGH, got {low}, {high}")
    args.shot_file = None
    if args.start not in LAYOUTS:
        if args.layout is not None:
            parser.error("argument --layout: not with --from FILE, whose shot file gives the layout")
        try:
            args.shot_file = shotfile.read(args.start)
        except shotfile.ShotFileError as err:
            parser.error(f"argument --from: {err} (--from takes {', '.join(LAYOUTS)} or a shot file)")
        if args.discipline not in (None, args.shot_file.discipline):
            parser.error(f"argument --discipline: {args.discipline} is not the shot file's "
                         f"{args.shot_file.discipline}")
        args.discipline = args.shot_file.discipline
    args.discipline = args.discipline or "three_cushion"


def run(args, argv=None) -> dict:
    ruleset, params = setup(args.discipline)
    if args.speed_range[1] > float(params.cue.max_speed):
        raise ValueError(f"--speed-range must end at most at the cue's {float(params.cue.max_speed):g} m/s")
    state = layout_state(ruleset, params, args)
    noise = ExecutionNoise(args.noise)
    keys = jax.random.split(jax.random.PRNGKey(args.seed + 1), 4)
    aims = np.linspace(-180.0, 180.0, args.aims, endpoint=False)
    speeds = np.linspace(*args.speed_range, args.speeds)
    os.makedirs(args.out, exist_ok=True)
    name = args.discipline.replace("_", " ")
    summary: dict[str, Any] = dict(noise_std=noise.describe(), machine=machine_info())

    bar = tqdm(total=args.aims * args.speeds * args.trials, unit="shot", desc="aim x speed", disable=args.no_progress)
    t0 = time.perf_counter()
    m = rb.success_map(ruleset, state, params, keys[0], aims, speeds, theta=args.theta, a=args.tip[0], b=args.tip[1],
                       noise=noise, trials=args.trials, batch=args.batch, progress=bar.update)
    bar.close()
    summary["aim_speed_seconds"] = time.perf_counter() - t0
    best = m.most_robust(5)
    # chosen on the map's draws, valued on fresh ones (agents.robustness.value_chosen)
    fresh = rb.value_chosen(ruleset, state, rb.stack_shots(m.shot(i, j) for i, j in best), params, keys[0], noise=noise,
                            trials=args.shot_trials, batch=args.batch)
    summary["most_robust"] = [dict(phi=float(m.row_values[i]), V0=float(m.col_values[j]),
                                   success=float(fresh.success[r]), success_ci=list(wilson(int(fresh.scored[r]),
                                                                                           fresh.trials)),
                                   trials=fresh.trials, map_success=float(m.success[i, j]))
                              for r, (i, j) in enumerate(best)]
    write_csv(os.path.join(args.out, "aim_speed.csv"), map_rows(m))
    cue = "level cue" if args.theta == 0 else f"cue at {args.theta:g} deg"
    plot_map(os.path.join(args.out, "aim_speed.png"), m, f"{name}: scoring under noise x{args.noise:g}, {cue}",
             ("aim phi (deg)", "cue speed V0 (m/s)"), best)

    phi, V0 = args.at if args.at is not None else (float(m.row_values[best[0][0]]), float(m.col_values[best[0][1]]))
    if args.offsets:
        limit = float(params.cue.max_offset)
        tips = rb.offset_map(ruleset, state, params, keys[1], phi, V0, np.linspace(-limit, limit, args.offsets),
                             theta=args.theta, noise=noise, trials=args.trials, batch=args.batch)
        write_csv(os.path.join(args.out, "tip.csv"), map_rows(tips))
        plot_map(os.path.join(args.out, "tip.png"), tips, f"{name}: tip offsets at phi {phi:.1f} deg, V0 {V0:.2f} m/s",
                 ("side offset a (R)", "height b (R)"), tips.most_robust(3))

    shot = args.shot if args.shot is not None else m.shot(*best[0])
    summary["shot"] = shot_report(ruleset, state, shot, params, keys[2], noise, args.shot_trials, args.batch)
    judged = "given shot" if args.shot is not None else "most robust cell of the aim x speed map"
    strikes = [shotfile.Strike.of(shot, f"{judged}: scores {100 * summary['shot']['success']:.0f} % of "
                                        f"{args.shot_trials} noisy plays", "given" if args.shot is not None else "map")]
    if args.difficulty:
        chosen, played = rb.difficulty(ruleset, state, params, keys[3], noise=noise, trials=args.shot_trials,
                                       batch=args.batch)
        k = int(played.scored[0])
        summary["difficulty"] = dict(shot={f: float(np.asarray(getattr(chosen, f))) for f in rb.FIELDS},
                                     success=k / played.trials, success_ci=list(wilson(k, played.trials)))
        strikes.append(shotfile.Strike.of(chosen, f"the search's shot: scores {100 * k / played.trials:.0f} % of "
                                                  f"{played.trials} noisy plays", "search"))
    shotfile.write(os.path.join(args.out, "shot.json"), args.discipline, np.asarray(state.positions), strikes,
                   cue_ball=int(np.asarray(state.cue_ball)), player=int(np.asarray(state.current_player)),
                   noise=args.noise, provenance=shotfile.provenance("experiments.shot_map", argv, seed=args.seed),
                   extra=summary)
    return summary


def main(argv=None):
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    check_args(parser, args)
    try:
        summary = run(args, argv)
    except ValueError as err:
        parser.error(str(err))
    s = summary["shot"]
    print(f"aim x speed map: {args.aims} x {args.speeds} cells x {args.trials} plays in "
          f"{summary['aim_speed_seconds']:.1f} s")
    print(f"its most robust cells, each valued on {args.shot_trials} fresh plays (the map's {args.trials} chose them):")
    for row in summary["most_robust"]:
        print(f"  phi {row['phi']:7.2f} deg  V0 {row['V0']:.2f} m/s  scores {100 * row['success']:.0f} % "
              f"[{100 * row['success_ci'][0]:.0f}, {100 * row['success_ci'][1]:.0f}] (on the map "
              f"{100 * row['map_success']:.0f} %)")
    print(f"shot {s['shot']}: scores {100 * s['success']:.1f} % [{100 * s['success_ci'][0]:.1f}, "
          f"{100 * s['success_ci'][1]:.1f}] of {s['trials']} plays, {s['points']:.2f} points "
          f"[{s['points_ci'][0]:.2f}, {s['points_ci'][1]:.2f}]")
    for f, (down, up) in s["sensitivity"].items():
        print(f"  {f}: may move {down:g} down and {up:g} up before it stops scoring (exact execution)")
    if "difficulty" in summary:
        d = summary["difficulty"]
        print(f"difficulty: the search's shot scores {100 * d['success']:.1f} % [{100 * d['success_ci'][0]:.1f}, "
              f"{100 * d['success_ci'][1]:.1f}]")
    print(f"wrote {args.out}/aim_speed.png, .csv, tip.png, .csv, shot.json")


if __name__ == "__main__":
    main()
