"""Soak test of the physics: many random and adversarial shots, each checked for what must never
happen (a NaN, a ball outside the cushions or inside another, a ball off the table reported on
it, a next layout that is invalid, a void or cut-off result from valid input).

Families: ordinary play; extreme speed and spin; a raised cue (hops, masse, jumps); frozen pairs
and clusters (balls touching each other and the cushions, corners); the Hungarian table with the
pin; the Mathavan cushion; "bed", the ball-ball model "frictional_bed" on frozen layouts with hard
shots; float32 (ordinary shots, half of them from frozen layouts); "give", a cushion give
(``CushionParams.give``) of ``SOAK_GIVE``, four times what the tracked rebounds show, on the
frozen family's inputs (balls turn past the cushion lines, pressed against them or among others).
Prints a table of failures per family and check, writes results/soak/soak.csv and soak.json, and ends
with "soak: N shots, K failures" (exit code 1 if K > 0).

    python -m experiments.soak --shots 2000
    python -m experiments.soak --families frozen float32 --shots 10000 --seed 3
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import time

import jax
import numpy as np
from tqdm import tqdm

import physics
import rules
from experiments import soak_games
from experiments.common import begin
from physics.events import EventKind
from physics.motion import layout_tolerance
from physics.simulate import layout_is_valid

FAMILIES = ("ordinary", "extreme", "raised", "frozen", "pin", "mathavan", "bed", "float32", "give")
SOAK_GIVE = 0.01  # s
CHECKS = ("nan", "outside", "overlap", "left_on_table", "next_layout", "status")


def family_params(family: str, dtype: str = "float64"):
    """The parameters a family is played with (dtype: that of every family but float32)."""
    if family == "pin":
        return physics.default_params("hungarian", dtype=dtype)
    if family == "mathavan":
        return physics.default_params(cushion="mathavan2010", dtype=dtype)
    if family == "bed":
        return physics.default_params(ball_ball="frictional_bed", dtype=dtype)
    if family == "give":
        return physics.default_params(give=SOAK_GIVE, dtype=dtype)
    return physics.default_params(dtype="float32" if family == "float32" else dtype)


def _shots(rng, n, v=(1.0, 6.0), offset=0.5, theta=(0.0, 0.0)):
    r = offset * np.sqrt(rng.uniform(size=n))
    ang = rng.uniform(0, 2 * np.pi, n)
    return dict(V0=rng.uniform(*v, n), phi=rng.uniform(-180, 180, n), theta=rng.uniform(*theta, n),
                a=r * np.cos(ang), b=r * np.sin(ang))


def _random_layout(rng, params, pin=None):
    R, reach = float(params.ball.radius), float(params.cushion_reach)
    L, W = float(params.table.length), float(params.table.width)
    while True:
        pos = np.column_stack([rng.uniform(reach, L - reach, 3), rng.uniform(reach, W - reach, 3)])
        d = np.linalg.norm(pos[:, None] - pos[None], axis=-1) + np.eye(3) * 9
        clear = pin is None or np.all(np.linalg.norm(pos - pin, axis=-1) > R + float(params.pin.contact_radius))
        if d.min() >= 2 * R and clear:
            return pos


def _frozen_layout(rng, params):
    """Balls touching each other and the cushions: a ball on a cushion or in a corner, a second
    frozen to it at a random angle, the third frozen to one of them or anywhere (valid only)."""
    R, reach = float(params.ball.radius), float(params.cushion_reach)
    L, W = float(params.table.length), float(params.table.width)
    lo, hi = np.array([reach, reach]), np.array([L - reach, W - reach])
    for _ in range(1000):
        p0 = rng.uniform(lo, hi)
        pick = rng.integers(0, 3)  # 0: against a cushion, 1: in a corner, 2: anywhere
        if pick == 0:
            axis = rng.integers(0, 2)
            p0[axis] = (lo if rng.uniform() < 0.5 else hi)[axis]
        elif pick == 1:
            p0 = np.where(rng.uniform(size=2) < 0.5, lo, hi)
        ang = rng.uniform(0, 2 * np.pi)
        p1 = p0 + 2 * R * np.array([np.cos(ang), np.sin(ang)])
        base = (p0, p1)[rng.integers(0, 2)]
        ang2 = rng.uniform(0, 2 * np.pi)
        p2 = base + 2 * R * np.array([np.cos(ang2), np.sin(ang2)])
        if rng.uniform() < 0.3:
            p2 = rng.uniform(lo, hi)
        pos = np.clip(np.stack([p0, p1, p2]), lo, hi)
        d = np.linalg.norm(pos[:, None] - pos[None], axis=-1) + np.eye(3) * 9
        if d.min() >= 2 * R:
            return pos
    return _random_layout(rng, params)


def family_inputs(family: str, rng, n: int, params):
    """(positions (n, 3, 2), Shot, pin or None) for n shots of a family."""
    pin = np.asarray(params.table.centre) if family == "pin" else None
    family = "frozen" if family in ("bed", "give") else family  # other physics, on the frozen family's inputs
    if family == "frozen":
        pos = np.stack([_frozen_layout(rng, params) for _ in range(n)])
    elif family == "float32":  # half of them frozen
        pos = np.stack([(_frozen_layout if k % 2 else _random_layout)(rng, params) for k in range(n)])
    else:
        pos = np.stack([_random_layout(rng, params, pin) for _ in range(n)])
    if family in ("extreme", "mathavan"):
        shots = _shots(rng, n, v=(0.01, 10.0), offset=0.59, theta=(0.0, 30.0))
    elif family == "raised":
        shots = _shots(rng, n, v=(0.5, 10.0), offset=0.59, theta=(0.0, 89.9))
    elif family == "frozen":
        shots = _shots(rng, n, v=(0.01, 8.0), offset=0.59, theta=(0.0, 60.0))
    else:
        shots = _shots(rng, n)
    dtype = np.dtype(params.dtype)
    shot = physics.Shot(**{k: v.astype(dtype) for k, v in shots.items()})
    return pos.astype(dtype), shot, None if pin is None else np.broadcast_to(pin, (n, 2)).astype(dtype)


@jax.jit
def _valid_batch(positions, params, pin):
    return jax.vmap(lambda p, q: layout_is_valid(p.astype(params.dtype), params, q))(positions, pin)


def check_results(res, params, pin=None) -> dict:
    """{check: (B,) bool failures} for a batch of results (numpy or jax); pin: (B, 2) or None."""
    fp = np.asarray(res.final_positions, np.float64)
    B = fp.shape[0]
    on = np.asarray(res.on_table, bool)
    R, reach = float(params.ball.radius), float(params.cushion_reach)
    L, W = float(params.table.length), float(params.table.width)
    tol = layout_tolerance(params.dtype)
    nan = ~np.all(np.isfinite(fp), axis=(-1, -2)) | ~np.isfinite(np.asarray(res.final_time, np.float64))
    with np.errstate(invalid="ignore"):
        inside = ((fp[..., 0] >= reach - tol) & (fp[..., 0] <= L - reach + tol)
                  & (fp[..., 1] >= reach - tol) & (fp[..., 1] <= W - reach + tol))
        outside = np.any(on & ~inside, axis=-1)
        i, j = np.triu_indices(fp.shape[1], 1)
        d = np.linalg.norm(fp[:, j] - fp[:, i], axis=-1)
        overlap = np.any(on[:, i] & on[:, j] & (d < 2 * R - tol), axis=-1)
    kinds = np.asarray(res.events.kind)
    used = np.arange(kinds.shape[-1])[None] < np.asarray(res.num_events)[:, None]
    off_logged = np.stack(
        [np.any(used & (kinds == EventKind.OFF_TABLE) & (np.asarray(res.events.balls)[..., 0] == b), axis=-1)
         for b in range(fp.shape[1])], axis=-1)
    beyond = ~inside & np.all(np.isfinite(fp), axis=-1)
    left_on_table = np.any(beyond & (on | ~off_logged), axis=-1)
    status = (np.asarray(res.status) != 0) | np.asarray(res.overflow, bool)
    standing = np.ones(B, bool) if pin is None else ~np.asarray(res.pin_down, bool)
    # Every ball on the table (nearly every shot): one batched call; the others one by one.
    common = np.all(on, axis=-1) & standing
    pins = None if pin is None else np.asarray(pin, fp.dtype)
    next_layout = ~np.asarray(_valid_batch(fp, params, pins))
    next_layout &= common
    for s in np.flatnonzero(~common & ~nan & np.any(on, axis=-1)):
        q = None if pin is None or not standing[s] else np.asarray(pin[s])
        next_layout[s] = not bool(layout_is_valid(jax.numpy.asarray(fp[s][on[s]], params.dtype), params, q))
    return dict(nan=nan, outside=outside, overlap=overlap, left_on_table=left_on_table,
                next_layout=next_layout & ~nan, status=status)


def soak_family(family: str, shots: int, seed: int, batch: int = 1024, dtype: str = "float64",
                progress=None, examples: int = 3) -> dict:
    """Run ``shots`` shots of a family in batches; returns counts per check, reproducers, and
    shots/s of the simulation alone (without the first call's compile when there are several)."""
    params = family_params(family, dtype)
    rng = np.random.default_rng([seed, FAMILIES.index(family)])
    counts = dict.fromkeys(CHECKS, 0)
    failures, bad, seconds, done, timed = 0, [], 0.0, 0, 0
    while done < shots:
        n = min(batch, shots - done)
        pos, shot, pin = family_inputs(family, rng, batch, params)  # fixed batch shape: one compile
        t0 = time.perf_counter()
        res = jax.block_until_ready(physics.simulate_batch(pos, shot, 0, params, pin=pin))
        if done > 0 or shots <= batch:  # the first of several calls compiles: not timed
            seconds += time.perf_counter() - t0
            timed += n
        fails = check_results(res, params, pin)
        fails = {k: v[:n] for k, v in fails.items()}
        any_fail = np.zeros(n, bool)
        for k, v in fails.items():
            counts[k] += int(v.sum())
            any_fail |= v
        failures += int(any_fail.sum())
        for s in np.flatnonzero(any_fail)[: max(0, examples - len(bad))]:
            bad.append(dict(family=family, checks=[k for k, v in fails.items() if v[s]],
                            positions=pos[s].tolist(),
                            shot={k: float(getattr(shot, k)[s]) for k in ("V0", "phi", "theta", "a", "b")},
                            status=int(np.asarray(res.status)[s])))
        done += n
        if progress is not None:
            progress.update(n)
    return dict(family=family, shots=shots, failures=failures, shots_per_s=timed / max(seconds, 1e-9),
                **counts, examples=bad)


def run_games(disciplines, games: int, dtype: str, seed: int):
    """Whole random games per discipline (``experiments.soak_games``): {discipline: counts}, or
    None when no games are asked for. A stuck game is a failure."""
    if games <= 0:
        return None
    return {d: soak_games.run(d, games, dtype, seed) for d in disciplines}


def write_results(out: str, seed: int, dtype: str, rows: list, games) -> None:
    """soak.csv (one row per family done so far) and soak.json (with the games, when played)."""
    with open(os.path.join(out, "soak.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["family", "shots", "failures", *CHECKS, "shots_per_s"])
        w.writeheader()
        w.writerows({k: r[k] for k in w.fieldnames} for r in rows)
    with open(os.path.join(out, "soak.json"), "w") as f:
        json.dump(dict(seed=seed, dtype=dtype, families=rows, games=games), f, indent=1)


def main(argv=None) -> int:
    begin()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shots", type=int, default=1024, help="shots per family")
    ap.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", default="float64", choices=("float64", "float32"),
                    help="dtype of every family but float32 (always float32)")
    ap.add_argument("--batch", type=int, default=1024, help="shots per compiled call")
    ap.add_argument("--games", type=int, default=0, help="whole games per discipline (experiments.soak_games)")
    ap.add_argument("--disciplines", nargs="+", default=["three_cushion", "hungarian_1000"])
    ap.add_argument("--out", default="results/soak")
    args = ap.parse_args(argv)
    if args.shots < 0 or args.batch < 1 or args.games < 0 or args.shots + args.games == 0:
        raise ValueError(f"--shots and --games must be >= 0 and not both 0, --batch >= 1; got {args.shots}, "
                         f"{args.games} and {args.batch}")
    unknown = sorted(set(args.disciplines) - set(rules.DISCIPLINES))
    if unknown:
        raise ValueError(f"unknown disciplines {unknown}; valid: {', '.join(rules.DISCIPLINES)}")
    rows = []
    os.makedirs(args.out, exist_ok=True)
    if args.shots:
        with tqdm(total=args.shots * len(args.families), desc="soak", unit="shot") as bar:
            for family in args.families:
                rows.append(soak_family(family, args.shots, args.seed, min(args.batch, args.shots), args.dtype, bar))
                write_results(args.out, args.seed, args.dtype, rows, None)  # a long run cut short still counts
    print(f"{'family':<10}{'shots':>9}{'fail':>7}" + "".join(f"{c:>14}" for c in CHECKS) + f"{'shots/s':>10}")
    for r in rows:
        print(f"{r['family']:<10}{r['shots']:>9}{r['failures']:>7}" + "".join(f"{r[c]:>14}" for c in CHECKS)
              + f"{r['shots_per_s']:>10.0f}")
        for e in r["examples"]:
            print(f"  reproducer: {json.dumps(e)}")
    games = run_games(args.disciplines, args.games, args.dtype, args.seed)
    if games is not None:
        for d, counts in games.items():
            print(f"games {d}: {counts}")
    write_results(args.out, args.seed, args.dtype, rows, games)
    total, failures = sum(r["shots"] for r in rows), sum(r["failures"] for r in rows)
    stuck = sum(c["stuck"] for c in (games or {}).values())
    played = sum(c["games"] for c in (games or {}).values())
    print(f"soak: {total} shots, {played} games, {failures + stuck} failures")
    return 1 if failures or stuck else 0


if __name__ == "__main__":
    raise SystemExit(main())
