"""Shot reconstruction: the cue strike that makes the physics reproduce a tracked shot.

For each tracked match shot (``physics.tracking``; data: erdo100/3cushiontool,
20221225_2_Match_Ersin_Cemal.pkl, Apache-2.0) it searches for the strike (V0, phi, tip offsets
a and b, cue elevation theta, and dt, the strike's time against the start of motion the tracks
show) whose simulated shot comes closest to the tracks, the contacts seen in the tracks taken as
constraints (``physics.tracking.fit.reconstruct``: the method in its docstring, the settings in
``physics.tracking.TrackingConfig``), and reports its errors: RMS over the whole shot, over the
first 2 s after the strike, and the time-free path shape. ``--searches N``: whole searches a
shot, the best kept (two: about 21 s a shot on 2 cores). ``--horizon S``: fit only the first S s
after the strike; the errors reported stay those of the whole shot and its first 2 s.

    python -m experiments.reconstruct --shot 545712 --out results/reconstruct

writes reconstruct.csv (a row per shot: shot_id, cue, the strike, rms, rms_early, shape,
seconds), shot_<id>.json (a shot file, docs/shotfile.md: the tracked layout and the strike found,
source "played", with its errors under "reconstruction"; ``python -m experiments.view --from`` it
to replay the shot, ``experiments.shot_map --from`` it to map its layout) and, unless --no-plots,
shot_<id>.png (tracked dots, simulated lines). Figures on the 90 match shots:
docs/physics.md section 6 (the fits under each parameter set, the searches a shot) and section
10 (the first 2 s of a shot).
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import time

import numpy as np

import physics
from agents import shotfile
from physics.tracking import DEFAULT, SOURCE, TrackedShot, TrackingConfig, tracks
from physics.tracking.fit import FIELDS, Fit, check_horizon, reconstruct
from experiments.common import begin

DISCIPLINE = "three_cushion"  # the discipline of the tracked match (SOURCE)


def draw(shot: TrackedShot, fit_: Fit, params: physics.Params, path: str, note: str = "",
         config: TrackingConfig = DEFAULT) -> None:
    """Tracked dots and simulated lines of one shot, saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dt = float(fit_.strike[4])
    t = np.arange(0.0, shot.end_time - shot.strike_time - dt, 0.01)
    sim = np.asarray(physics.positions_at(fit_.result, t, params))
    fig, ax = plt.subplots(figsize=(9, 5))
    for k, (tr, colour) in enumerate(zip(shot.tracks, ("tab:blue", "tab:orange", "tab:green"))):
        label = "cue ball" if k == shot.cue else f"ball {k + 1}"
        ax.plot(tr.xy[:, 0], tr.xy[:, 1], ".", ms=3, color=colour, label=f"{label}, tracked")
        ax.plot(sim[:, k, 0], sim[:, k, 1], "-", lw=1, color=colour, alpha=0.8)
    ax.set_xlim(0, config.length)
    ax.set_ylim(0, config.width)
    ax.set_aspect("equal")
    ax.set_title(f"shot {shot.shot_id}: RMS {100 * fit_.rms:.1f} cm, first 2 s {100 * fit_.rms_early:.1f} cm {note}",
                 fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    fig.text(0.01, 0.01, f"lines: simulated. Data: {SOURCE}", fontsize=6)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def write_shot_file(path: str, shot: TrackedShot, fit_: Fit, shape: float, calibration=None, argv=None,
                    seed: int = 0) -> shotfile.ShotFile:
    """The reconstructed shot as a shot file: the tracked layout (the tracks give no colours: the
    balls in their tracked order, a cue ball tracked third swapped with the second, since the
    cue ball is the white or the yellow, C-3.4), the strike found (source "played"), and under
    "reconstruction" its errors and dt, the strike's time against the start of motion seen."""
    found = dict(zip(FIELDS, (float(v) for v in fit_.strike)))
    order = [0, 2, 1] if shot.cue == 2 else [0, 1, 2]
    played = physics.Shot(V0=found["V0"], phi=found["phi"], theta=found["theta"], a=found["a"], b=found["b"])
    strike = shotfile.Strike.of(played, f"match shot {shot.shot_id}, as reconstructed (RMS {100 * fit_.rms:.1f} cm)",
                                "played")
    fitted_on = "" if calibration is None else (f" It was fitted on the {calibration!r} parameters; a replay on "
                                                "the table's own parameters differs.")
    notes = (f"Match shot {shot.shot_id} ({SOURCE}), reconstructed from its tracks: the strike whose simulation "
             f"follows them best.{fitted_on}")
    report = dict(shot_id=shot.shot_id, tracked_balls=[tracks.BALL_IDS[i] for i in order], dt=found["dt"],
                  rms=fit_.rms, rms_early=fit_.rms_early, shape=shape, calibration=calibration)
    return shotfile.write(path, DISCIPLINE, shot.start[order], [strike], cue_ball=order.index(shot.cue), notes=notes,
                          provenance=shotfile.provenance("experiments.reconstruct", argv, seed=seed,
                                                         tracked_shot=shot.shot_id),
                          extra=dict(reconstruction=report))


def main(argv=None) -> list[dict]:
    begin()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shot", type=int, action="append", help="shot id (repeatable); default: every shot")
    parser.add_argument("--data", default=str(tracks.DATA), help="tracked shots JSON")
    parser.add_argument("--out", default="results/reconstruct", help="output folder")
    parser.add_argument("--pop", type=int, default=DEFAULT.pop, help="candidates per CEM round")
    parser.add_argument("--rounds", type=int, default=DEFAULT.rounds, help="CEM rounds")
    parser.add_argument("--restarts", type=int, default=DEFAULT.restarts,
                        help="independent searches in the first rounds")
    parser.add_argument("--polish", type=int, default=DEFAULT.polish,
                        help="last rounds searching around the best strike")
    parser.add_argument("--searches", type=int, default=DEFAULT.searches,
                        help="independent whole searches per shot, the best kept (each one more costs as much again)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=DEFAULT.chunk, help="shots simulated per call")
    parser.add_argument("--calibration", default=None, choices=sorted(physics.CALIBRATIONS),
                        help="the physics' parameter set (default: the match table's own)")
    parser.add_argument("--horizon", type=float, default=None, metavar="S",
                        help="fit only the first S seconds after the strike (default: the whole shot); the errors "
                        "reported are still over the whole shot and its first 2 s")
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    if args.chunk < 1:  # the lanes a call pads to (0 divides by zero)
        parser.error(f"--chunk must be at least 1, got {args.chunk}")
    try:
        config = dataclasses.replace(DEFAULT, pop=args.pop, rounds=args.rounds, restarts=args.restarts,
                                     polish=args.polish, searches=args.searches, chunk=args.chunk)
    except ValueError as err:
        parser.error(f"--pop, --rounds, --restarts, --polish, --searches: {err}")
    if args.horizon is not None:
        try:
            check_horizon(args.horizon)
        except ValueError as err:
            parser.error(f"--{err}")
    shots = {s.shot_id: s for s in tracks.load(args.data, config)}
    unknown = sorted(set(args.shot or []) - set(shots))
    if unknown:
        parser.error(f"--shot: no shot with id {', '.join(map(str, unknown))} in {args.data}")
    chosen = [shots[i] for i in args.shot] if args.shot else list(shots.values())
    params = physics.default_params(calibration=args.calibration)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for shot in chosen:
        clock = time.perf_counter()
        best, shape = reconstruct(shot, params, config, seed=args.seed, horizon=args.horizon)
        row = dict(shot_id=shot.shot_id, cue=shot.cue, **best.row(), shape=shape,
                   seconds=time.perf_counter() - clock)
        rows.append(row)
        print(f"shot {shot.shot_id}: RMS {100 * best.rms:.1f} cm, first 2 s {100 * best.rms_early:.1f} cm, "
              f"path shape {100 * shape:.1f} cm, {row['seconds']:.1f} s")
        try:
            write_shot_file(os.path.join(args.out, f"shot_{shot.shot_id}.json"), shot, best, shape,
                            args.calibration, argv, args.seed)
        except shotfile.ShotFileError as err:  # a tracked layout the table's checks refuse: the fit stands
            print(f"shot {shot.shot_id}: no shot file: {err}")
        if not args.no_plots:
            draw(shot, best, params, os.path.join(args.out, f"shot_{shot.shot_id}.png"), config=config)
    with open(os.path.join(args.out, "reconstruct.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


if __name__ == "__main__":
    main()
