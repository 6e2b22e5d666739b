"""Make a stored benchmark layout set (``billiards_env.layouts``): fixed legal layouts per discipline.

For each discipline, ``count`` layouts of ``rules.random_layout`` (the three balls uniform over
the playing area, at least 5 mm clear of each other, the cushions and the Hungarian pin) from the
set's fixed seed: the key ``fold_in(PRNGKey(seed), stream)``, the stream being the discipline's
index in ``rules.DISCIPLINES``, split into one key per layout; player 0 shoots, as in the
"random" innings. The layouts are rounded to 0.1 mm and checked before they are written (every
ball clear of the others, the cushions and the pin by the draw's gap less the rounding, the cue
ball the rules'); any fault stops the command and nothing is written.

Writes ``<set>/<discipline>.npz`` and ``<set>/manifest.json`` (each file's sha256 and count,
the seed, the command) under ``--out``, by default the package's own folder of sets. A stored
set never changes, since figures made on it must stay comparable: the command refuses to
rewrite one (``--force`` does, e.g. to check that the same seed redraws the same bytes); a new
draw is a new set, added to ``SETS`` here and to ``billiards_env.layouts.LAYOUT_SETS``.

    python -m experiments.bench_layouts --set bench-v1
"""
from __future__ import annotations

import argparse
from pathlib import Path

import jax
import numpy as np

import rules
from billiards_env import layouts, setup
from billiards_env.layouts import Layouts
from experiments.common import begin
from rules.start import LAYOUT_GAP

SETS = {"bench-v1": dict(seed=1, count=1000)}  # the recipe of each stored set
MARGIN = LAYOUT_GAP - 2 / layouts.SCALE  # the draw's clearance, less what the rounding may take

_draw = jax.jit(jax.vmap(rules.random_layout, in_axes=(None, 0, None)))


def draw(name: str, discipline: str, count: int, seed: int) -> Layouts:
    """``count`` layouts of ``discipline`` from ``seed`` (see the module docstring), rounded to
    0.1 mm as the files hold them."""
    ruleset, params = setup(discipline)
    stream = rules.DISCIPLINES.index(discipline)
    keys = jax.random.split(jax.random.fold_in(jax.random.PRNGKey(seed), stream), count)
    player = np.zeros(count, np.int32)
    table = params.table
    return layouts.rounded(Layouts(
        name, discipline, np.asarray(_draw(ruleset, keys, params)), player,
        np.full(count, int(rules.cue_ball_of(ruleset, 0)), np.int32),
        np.array([float(table.length), float(table.width)]),
        np.asarray(table.centre, np.float64) if rules.disciplines.get(discipline).pin else None))


def faults(found: Layouts, margin: float = MARGIN) -> list[str]:
    """What makes any layout illegal on its discipline's table, as lines naming the first one:
    two balls closer than 2 R + margin, a ball closer than the cushion reach + margin to a cushion
    or than R + the pin radius + margin to the pin, a cue ball other than the rules'."""
    ruleset, params = setup(found.discipline)
    R, p = float(params.ball.radius), found.positions
    lo = float(params.cushion_reach) + margin
    i, j = np.array([0, 0, 1]), np.array([1, 2, 2])
    checks = {
        "with a ball off the table or near a cushion": np.any((p < lo) | (p > found.table - lo), axis=(1, 2)),
        "with two balls near each other": np.any(np.linalg.norm(p[:, i] - p[:, j], axis=-1) < 2 * R + margin, axis=1),
        "with a cue ball other than the rules'": found.cue_ball != np.asarray(rules.cue_ball_of(ruleset, found.player)),
    }
    if found.pin is not None:
        near = np.linalg.norm(p - found.pin, axis=-1) < R + float(ruleset.pin_radius) + margin
        checks["with a ball near the pin"] = np.any(near, axis=1)
    return [f"{found.discipline}: {int(bad.sum())} of {len(p)} layouts {what}, the first #{int(np.argmax(bad))}"
            for what, bad in checks.items() if bad.any()]


def main(argv=None):
    begin()
    parser = argparse.ArgumentParser(prog="python -m experiments.bench_layouts", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--set", dest="name", required=True, choices=sorted(SETS), help="the set to make")
    parser.add_argument("--disciplines", nargs="+", default=list(rules.DISCIPLINES), choices=rules.DISCIPLINES,
                        metavar="ID", help="only these disciplines (default: all seven)")
    parser.add_argument("--out", type=Path, default=layouts.ROOT, help="folder of the sets (default: the package's)")
    parser.add_argument("--force", action="store_true", help="rewrite a set that is stored already")
    args = parser.parse_args(argv)
    if (args.out / args.name / layouts.MANIFEST).exists() and not args.force:
        parser.error(f"{args.out / args.name} exists: a stored set never changes (figures made on it must stay "
                     "comparable); make a new set, or --force to rewrite it")
    recipe = SETS[args.name]
    drawn = {d: draw(args.name, d, recipe["count"], recipe["seed"]) for d in args.disciplines}
    problems = [line for found in drawn.values() for line in faults(found)]
    if problems:
        raise SystemExit("illegal layouts, nothing written:\n" + "\n".join(problems))
    command = f"python -m experiments.bench_layouts --set {args.name}"
    if args.disciplines != list(rules.DISCIPLINES):
        command += " --disciplines " + " ".join(args.disciplines)
    info = dict(command=command, seed=recipe["seed"], count=recipe["count"], unit="0.1 mm",
                gap_m=LAYOUT_GAP, player=0, jax=jax.__version__,
                draw="rules.random_layout, keys split from fold_in(PRNGKey(seed), stream)")
    streams = {d: dict(seed=recipe["seed"], stream=rules.DISCIPLINES.index(d)) for d in args.disciplines}
    written = layouts.write(args.name, drawn, info, args.out, streams)
    for file, entry in written["files"].items():
        print(f"{args.out / args.name / file}: {entry['count']} layouts, sha256 {entry['sha256']}")
    return written


if __name__ == "__main__":
    main()
