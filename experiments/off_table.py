"""How often a raised cue sends a ball off the table: random shots from the three-cushion starting
position (the breaker's ball on the right head-string spot, rule C-2.1), tip offsets within 0.3 R,
any aim, for each cue elevation and speed; default parameters (docs/physics.md sections 3 and 5).

Prints, per cell, the share of shots in which a ball left the table (with its 95 % interval), and
how many shots filled the event log (a thinned log, ``ShotResult.dropped``, or a lost event,
``Status.OVERFLOW``).

    python -m experiments.off_table
    python -m experiments.off_table --shots 1024 --elevations 10 15 --speeds 5 7
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import physics
from agents.stats import wilson
from experiments.common import begin
from physics import Shot, Status
from rules import respot

ELEVATIONS = (8.0, 10.0, 12.0, 15.0, 30.0)  # degrees
SPEEDS = (3.0, 4.0, 5.0, 6.0, 7.0)  # cue speed, m/s
MAX_OFFSET = 0.3  # tip offsets on a disc of this radius (fractions of R)


def starting_layout(params) -> np.ndarray:
    """(3, 2): the three-cushion start with ball 0 (the breaker's) on the right head-string spot."""
    return np.asarray(respot.starting_position(params.table, 0), np.float64)


def random_shots(rng, n: int, theta: float, speed: float) -> Shot:
    """n strikes at one elevation and speed, any aim, tips uniform on the disc of ``MAX_OFFSET``."""
    r = MAX_OFFSET * np.sqrt(rng.uniform(size=n))
    turn = rng.uniform(0.0, 2.0 * np.pi, n)
    return Shot(V0=np.full(n, speed), phi=rng.uniform(-180.0, 180.0, n), theta=np.full(n, theta),
                a=r * np.cos(turn), b=r * np.sin(turn))


def cell(params, layout, shot: Shot, cue_ball: int):
    """(left the table, filled the log) counts of one batch of shots."""
    n = shot.V0.shape[0]
    res = physics.simulate_batch(np.broadcast_to(layout, (n,) + layout.shape), shot, cue_ball, params)
    left = ~np.all(np.asarray(res.on_table), axis=-1)
    filled = (np.asarray(res.dropped) > 0) | ((np.asarray(res.status) & Status.OVERFLOW) != 0)
    return int(left.sum()), int(filled.sum())


def main(argv=None):
    begin()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shots", type=int, default=4096, help="shots per cell")
    parser.add_argument("--elevations", type=float, nargs="+", default=list(ELEVATIONS))
    parser.add_argument("--speeds", type=float, nargs="+", default=list(SPEEDS))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.shots < 1:
        parser.error(f"--shots must be at least 1, got {args.shots}")
    params = physics.default_params()
    layout = starting_layout(params)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"off the table, share of {args.shots} shots per cell (95 % interval); log filled: shots")
    print(f"{'elevation':>9} {'speed':>6} {'off table':>10} {'interval':>17} {'log filled':>10}")
    rows = []
    for theta in args.elevations:
        for speed in args.speeds:
            left, filled = cell(params, layout, random_shots(rng, args.shots, theta, speed), 0)
            low, high = wilson(left, args.shots)
            rows.append((theta, speed, left, filled))
            print(f"{theta:>8g}° {speed:>4g}/s {100 * left / args.shots:>9.2f}% "
                  f"[{100 * low:>6.2f}, {100 * high:>6.2f}]% {filled:>10d}")
    print(f"{len(rows) * args.shots} shots in {time.perf_counter() - start:.0f} s")
    return rows


if __name__ == "__main__":
    main()
