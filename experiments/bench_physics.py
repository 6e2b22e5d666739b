"""Physics benchmark: shots/s and events/s against batch size, compile time, and the float32
against float64 difference on the same shots.

``--profile N`` adds where the time of one event goes (``physics.profile``).

Random three-cushion shots from the starting position (rule C-2.1): V0 in 1-6 m/s, tip offsets
on a disc of radius 0.5 R, any aim. Writes CSV files under the output folder.

    python -m experiments.bench_physics --out results/bench
    python -m experiments.bench_physics --device gpu --dtype float32 --sizes 8192 65536 --out results/bench_gpu
"""
from __future__ import annotations

import argparse
import csv
import os
import platform
import time

import jax
import numpy as np

import physics
from physics import cores, profile as event_profile
from physics.simulate import DEFAULT_LANES
from rules import respot
from experiments.common import begin


def starting_position(params) -> np.ndarray:
    """The carom starting position (rule C-2.1) with white breaking, as the referee sets it
    (``rules.respot.starting_position``): white, yellow, red. (3, 2)."""
    return np.asarray(respot.starting_position(params.table, 0).astype(params.table.length.dtype))


def random_shots(rng: np.random.Generator, n: int, v_range=(1.0, 6.0), max_offset=0.5) -> physics.Shot:
    """n random shots: V0 uniform in v_range, any aim, tip offset uniform on a disc of radius
    max_offset (so |a|, |b| <= max_offset and never a miscue), level cue."""
    r = max_offset * np.sqrt(rng.uniform(size=n))
    ang = rng.uniform(0, 2 * np.pi, n)
    return physics.Shot(
        V0=rng.uniform(*v_range, n), phi=rng.uniform(-180, 180, n), theta=np.zeros(n),
        a=r * np.cos(ang), b=r * np.sin(ang),
    )


def batch_inputs(params, shots):
    """The shots, each from the starting position."""
    n = shots.V0.shape[0]
    pos = np.broadcast_to(_start(params), (n, 3, 2)).copy()
    return pos, shots


_STARTS: dict[int, tuple] = {}


def _start(params) -> np.ndarray:
    """``starting_position``, worked out once per parameter set: the referee sets it with small
    JAX calls, and between two timed shots those would slow the second one down
    (by about 0.3 ms of a single shot's 0.4 on this 2-core CPU), so the figure would not be the
    simulation's."""
    hit = _STARTS.get(id(params))
    if hit is None or hit[0] is not params:
        hit = _STARTS[id(params)] = (params, starting_position(params))
    return hit[1]


def time_batch(params, batch: int, repeats: int, seed: int = 0, threads: int | None = None):
    """Shots/s of one batch size: the best of ``timed_calls(batch, repeats)`` calls, each on new
    random shots (the median is kept too). threads: ``simulate_batch``'s (default: one per core)."""
    rng = np.random.default_rng(seed)
    pos, shots = batch_inputs(params, random_shots(rng, batch))
    t0 = time.perf_counter()
    res = physics.simulate_batch(pos, shots, 0, params, threads=threads)
    jax.block_until_ready(res)
    first = time.perf_counter() - t0
    seconds = []
    for r in range(timed_calls(batch, repeats)):
        pos, shots = batch_inputs(params, random_shots(np.random.default_rng(seed + 1 + r), batch))
        t0 = time.perf_counter()
        res = jax.block_until_ready(physics.simulate_batch(pos, shots, 0, params, threads=threads))
        seconds.append(time.perf_counter() - t0)
    best = min(seconds)
    events = np.asarray(res.num_events)
    block = cores.block_size(batch, DEFAULT_LANES, threads)
    return dict(
        batch=batch,
        threads=1 if block is None else -(-batch // block),
        first_call_s=first,
        seconds_per_call=best,
        median_seconds_per_call=float(np.median(seconds)),
        shots_per_s=batch / best,
        events_per_s=events.sum() / best,
        mean_events=events.mean(),
        max_events=int(events.max()),
        overflow=int(np.asarray(res.overflow).sum()),
    )


def timed_calls(batch: int, repeats: int) -> int:
    """``repeats`` calls, and at least 512 shots in all for small batches: a single shot's time
    swings by a factor of two from call to call on a shared CPU (and a shot's own length varies),
    so its best needs many calls; a large batch averages over its shots already."""
    return max(repeats, -(-512 // batch))


def hungarian_start(params):
    """Rule H-2: red on a cross-axis spot beside the pin, white and yellow on the base spots."""
    spots = np.asarray(params.table.cross_axis_spots)
    base = np.asarray(params.table.base_spots)
    return np.stack([spots[0], base[0], base[1]])


def pin_cost(batch: int, repeats: int, seed: int = 7):
    """Throughput on the Hungarian table with the pin against the same shots without it."""
    params = physics.default_params("hungarian")
    pin = np.asarray(params.table.centre)
    rows = {}
    for label, p in (("without pin", None), ("with pin", pin)):
        pos = np.broadcast_to(hungarian_start(params), (batch, 3, 2)).copy()
        shots = random_shots(np.random.default_rng(seed), batch)
        jax.block_until_ready(physics.simulate_batch(pos, shots, 0, params, pin=p))
        best = np.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            res = jax.block_until_ready(physics.simulate_batch(pos, shots, 0, params, pin=p))
            best = min(best, time.perf_counter() - t0)
        rows[label] = dict(case=label, batch=batch, shots_per_s=batch / best,
                           pin_down=float(np.asarray(res.pin_down).mean()) if p is not None else 0.0)
    rows["with pin"]["ratio_to_without"] = rows["without pin"]["shots_per_s"] / rows["with pin"]["shots_per_s"]
    rows["without pin"]["ratio_to_without"] = 1.0
    return list(rows.values())


def precision_table(n: int, seed: int = 123):
    """Final-position differences between float32 and float64 on the same n shots."""
    p64 = physics.default_params()
    p32 = physics.default_params(dtype="float32")
    rng = np.random.default_rng(seed)
    pos, shots = batch_inputs(p64, random_shots(rng, n))
    r64 = physics.simulate_batch(pos, shots, 0, p64)
    shots32 = jax.tree_util.tree_map(lambda x: np.asarray(x, np.float32), shots)
    r32 = physics.simulate_batch(pos.astype(np.float32), shots32, 0, p32)
    d = np.linalg.norm(np.asarray(r64.final_positions) - np.asarray(r32.final_positions, np.float64), axis=-1).max(-1)
    same = [
        np.array_equal(np.asarray(r64.events.kind[k]), np.asarray(r32.events.kind[k])) for k in range(n)
    ]
    rows = []
    for q in (50, 90, 99, 100):
        rows.append(dict(statistic=f"p{q} max-ball final position difference (m)", value=float(np.percentile(d, q))))
    rows.append(dict(statistic="fraction of shots with the same event sequence", value=float(np.mean(same))))
    rows.append(dict(statistic="fraction of shots within 1 mm", value=float(np.mean(d < 1e-3))))
    rows.append(dict(statistic="fraction of shots within 1 cm", value=float(np.mean(d < 1e-2))))
    return rows


PLATFORMS = {"cpu": "cpu", "gpu": "cuda"}  # --device -> JAX platform


def use_device(ap, device: str):
    """Run on ``device`` (a key of PLATFORMS) before anything touches a backend; a backend this
    machine does not have ends the command with a message saying so."""
    jax.config.update("jax_platforms", PLATFORMS[device])
    try:
        jax.devices()
    except (RuntimeError, AssertionError) as err:  # JAX without the platform's plugin fails an assertion
        why = str(err) or "JAX found no such backend"
        ap.error(f"--device {device}: not available here ({why}); gpu needs an NVIDIA GPU and the [cuda] extra")


def stage_profile(params, batch: int, seed: int = 3):
    """physics.profile on ``batch`` random shots: microseconds per event and lane of each stage of
    the event loop, printed and returned as rows."""
    pos, shots = batch_inputs(params, random_shots(np.random.default_rng(seed), batch))
    us = event_profile.profile(pos, shots, params)
    print(f"one event, {batch} random shots ({us['events']:.1f} events each) on {DEFAULT_LANES} lanes: "
          f"{us['iteration']:.2f} us per event and lane")
    rows = []
    for stage in event_profile.STAGES:
        rows.append(dict(stage=stage, us_per_event=us[stage], share=us[stage] / us["iteration"]))
        print(f"  {stage:<8} {us[stage]:7.3f} us  {us[stage] / us['iteration']:6.1%}")
    return rows


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main(argv=None):
    begin()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 8192], help="batch sizes")
    ap.add_argument("--repeats", type=int, default=3,
                    help="timed calls per batch size, at least 512 shots in all (best kept)")
    ap.add_argument("--pin-batch", type=int, default=1024, help="batch for the pin's cost")
    ap.add_argument("--precision-shots", type=int, default=1024,
                    help="shots for the float32/float64 table (0: no table)")
    ap.add_argument("--device", choices=tuple(PLATFORMS), default=None,
                    help="the backend to measure on (default: JAX's own choice; gpu needs the [cuda] extra)")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64",
                    help="dtype of the throughput figures (accelerators run float32 many times faster)")
    ap.add_argument("--profile", type=int, default=0, metavar="BATCH",
                    help="also time each stage of one event on BATCH random shots (physics.profile)")
    ap.add_argument("--calibration", choices=sorted(physics.CALIBRATIONS), default=None,
                    help="the physics' parameter set of the timed shots (default: the match table's own)")
    ap.add_argument("--capacity", type=int, default=None,
                    help="events the log of each timed shot holds (default: the physics' own, "
                         f"{physics.params.LOG_CAPACITY}; a batch allocates its logs whole, so a smaller one is "
                         "faster and thins long shots' logs)")
    ap.add_argument("--threads", type=int, default=None,
                    help="threads a batch is played on, on a CPU (default: one per core; physics.cores)")
    ap.add_argument("--out", default="results/bench", help="output folder")
    args = ap.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        ap.error(f"--threads must be at least 1, got {args.threads}")
    # Batch sizes and calls are divisors of the rates (0 timed calls would divide by zero).
    for flag, values in (("--sizes", args.sizes), ("--repeats", [args.repeats]), ("--pin-batch", [args.pin_batch])):
        if min(values) < 1:
            ap.error(f"{flag} must be at least 1, got {' '.join(map(str, values))}")
    if args.profile < 0 or args.precision_shots < 0:
        ap.error(f"--profile and --precision-shots must be at least 0 (0: none), got {args.profile} and "
                 f"{args.precision_shots}")
    if args.device is not None:
        use_device(ap, args.device)
    os.makedirs(args.out, exist_ok=True)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"jax {jax.__version__} on {jax.default_backend()} ({jax.devices()[0].device_kind}), {args.dtype}")
    sizes = {} if args.capacity is None else {"capacity": args.capacity}
    try:
        params = physics.default_params(calibration=args.calibration, dtype=args.dtype, **sizes)
    except ValueError as err:
        ap.error(f"--capacity: {err}")
    rows = []
    for b in args.sizes:
        row = time_batch(params, b, args.repeats, threads=args.threads)
        rows.append(row)
        print(
            f"batch {b:>6}: {row['shots_per_s']:>10.0f} shots/s  {row['events_per_s']:>11.0f} events/s  "
            f"{1e3 * row['seconds_per_call']:>9.2f} ms/call on {row['threads']} thread(s) "
            f"(median {1e3 * row['median_seconds_per_call']:.2f})  "
            f"first call (compile + run) {row['first_call_s']:.1f} s  "
            f"events mean {row['mean_events']:.1f} max {row['max_events']}  overflow {row['overflow']}",
            flush=True,
        )
    write_csv(os.path.join(args.out, "throughput.csv"), rows)
    pin_rows = pin_cost(args.pin_batch, args.repeats)
    print(f"Hungarian table, batch {args.pin_batch}: "
          + ", ".join(f"{r['case']} {r['shots_per_s']:.0f} shots/s" for r in pin_rows)
          + f"; cost of the pin x{pin_rows[1]['ratio_to_without']:.2f}; pin knocked down in "
          f"{pin_rows[1]['pin_down']:.0%} of the random shots")
    write_csv(os.path.join(args.out, "pin.csv"), pin_rows)
    if args.profile:
        stage_rows = stage_profile(params, args.profile)
        write_csv(os.path.join(args.out, "profile.csv"), stage_rows)
    written = ["throughput.csv", "pin.csv"]
    if args.precision_shots > 0:  # 0 leaves the precision table out
        prec = precision_table(args.precision_shots)
        print("float32 against float64 on the same shots:")
        for r in prec:  # fractions to a hundredth of a percent (99.93 % is not 99.9 %), distances to 3 digits
            shown = f"{r['value']:.2%}" if r["statistic"].startswith("fraction") else f"{r['value']:.3g}"
            print(f"  {r['statistic']:<50} {shown}")
        write_csv(os.path.join(args.out, "precision.csv"), prec)
        written.append("precision.csv")
    print(f"wrote {', '.join(f'{args.out}/{name}' for name in written)}")


if __name__ == "__main__":
    main()
