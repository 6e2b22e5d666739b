"""Golden shots: a few dozen shots from every family of the soak, whose full event logs are stored
in ``tests/data/golden_shots.npz`` and compared by ``tests/physics/test_golden.py``.

A change that moves any golden shot changes the physics: if that is intended, say so in the
commit and write the file again with ``python -m tests.support.golden_shots``. The shots are made from
fixed seeds here, so the file holds only what the simulator gave.

Families: ordinary random shots; power and extreme spin; a raised cue (hops, masse); frozen
balls (touching each other or a cushion); the Hungarian table with the pin; the Mathavan cushion;
float32. Every shot is simulated alone (``physics.simulate``), the compiled shapes the other
physics tests use.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import physics
from physics import Shot

PATH = Path(__file__).resolve().parents[1] / "data" / "golden_shots.npz"
PER_FAMILY = 8
FAMILIES = ("ordinary", "power_spin", "raised_cue", "frozen", "pin", "mathavan", "float32")
LOG_FIELDS = ("kind", "time", "balls", "cushion", "positions", "velocities", "spins", "motion")


def family_params(family: str):
    """(params, pin position or None) of a family: the reference values (``physics.CALIBRATIONS``), so
    that the golden shots check the engine, whatever set the tables default to."""
    if family == "pin":
        params = physics.default_params("hungarian")
        return params, np.asarray(params.table.centre, np.float64)
    if family == "mathavan":
        return physics.default_params(calibration="reference", cushion="mathavan2010"), None
    if family == "float32":
        return physics.default_params(calibration="reference", dtype="float32"), None
    return physics.default_params(calibration="reference"), None


def _layout(rng, params, pin=None):
    """Three balls inside the cushions, apart from each other and from the pin."""
    R, reach = float(params.ball.radius), float(params.cushion_reach)
    L, W = float(params.table.length), float(params.table.width)
    while True:
        pos = np.column_stack([rng.uniform(reach, L - reach, 3), rng.uniform(reach, W - reach, 3)])
        d = np.linalg.norm(pos[:, None] - pos[None], axis=-1) + 9 * np.eye(3)
        clear = pin is None or np.linalg.norm(pos - pin, axis=-1).min() > R + float(params.pin.contact_radius) + 1e-3
        if d.min() > 2 * R + 1e-6 and clear:
            return pos


def _tip(rng, most):
    r, ang = most * np.sqrt(rng.uniform()), rng.uniform(0, 2 * np.pi)
    return r * np.cos(ang), r * np.sin(ang)


def _frozen_layout(rng, params):
    """The cue ball touching an object ball (any angle), or a cushion, or both in a corner."""
    R, reach = float(params.ball.radius), float(params.cushion_reach)
    L, W = float(params.table.length), float(params.table.width)
    kind = rng.integers(3)
    if kind == 0:  # touching an object ball in the open
        cue = rng.uniform([0.5, 0.4], [L - 0.5, W - 0.4])
    elif kind == 1:  # at a long cushion
        cue = np.array([rng.uniform(0.5, L - 0.5), reach])
    else:  # in a corner
        cue = np.array([reach, reach])
    for _ in range(1000):
        ang = rng.uniform(0, 2 * np.pi)
        obj = cue + 2 * R * np.array([np.cos(ang), np.sin(ang)])
        if reach <= obj[0] <= L - reach and reach <= obj[1] <= W - reach:
            break
    far = np.array([L - reach - 0.2, W - reach - 0.2]) if cue[0] < L / 2 else np.array([reach + 0.2, W - reach - 0.2])
    return np.stack([cue, obj, far])


def family_shots(family: str):
    """[(positions (3, 2), Shot, cue ball)] of a family, from its own seed."""
    params, pin = family_params(family)
    rng = np.random.default_rng(FAMILIES.index(family) + 11)
    out = []
    for _ in range(PER_FAMILY):
        if family == "frozen":
            pos = _frozen_layout(rng, params)
            a, b = _tip(rng, 0.5)
            shot = Shot(V0=rng.uniform(0.3, 5.0), phi=rng.uniform(-180, 180), theta=rng.uniform(0, 30), a=a, b=b)
            out.append((pos, shot, 0))
            continue
        pos = _layout(rng, params, pin)
        if family == "power_spin":
            a, b = _tip(rng, 0.6)
            shot = Shot(V0=rng.uniform(6.0, 10.0), phi=rng.uniform(-180, 180), theta=rng.uniform(0, 5), a=a, b=b)
        elif family == "raised_cue":
            a, b = _tip(rng, 0.5)
            shot = Shot(V0=rng.uniform(1.0, 6.0), phi=rng.uniform(-180, 180), theta=rng.uniform(20, 80), a=a, b=b)
        elif family == "pin":
            to_pin = pin - pos[0]
            aim = np.degrees(np.arctan2(to_pin[1], to_pin[0])) + rng.uniform(-8, 8)
            a, b = _tip(rng, 0.4)
            shot = Shot(V0=rng.uniform(0.5, 5.0), phi=aim, theta=rng.uniform(0, 10), a=a, b=b)
        else:
            a, b = _tip(rng, 0.5)
            shot = Shot(V0=rng.uniform(0.5, 6.0), phi=rng.uniform(-180, 180), theta=rng.uniform(0, 20), a=a, b=b)
        out.append((pos, shot, int(rng.integers(3))))
    return out


def simulate_family(family: str):
    """The family's results, one ``ShotResult`` per shot."""
    params, pin = family_params(family)
    dtype = np.float32 if family == "float32" else np.float64
    return [physics.simulate(pos.astype(dtype), shot, cue, params, pin=pin) for pos, shot, cue in family_shots(family)]


def record(results) -> dict:
    """The arrays stored for a family: every log field, padded to the capacity, and the summary."""
    stack = lambda get: np.stack([np.asarray(get(r)) for r in results])  # noqa: E731
    out = {f: stack(lambda r, f=f: getattr(r.events, f)) for f in LOG_FIELDS}
    out.update(
        num_events=stack(lambda r: r.num_events), status=stack(lambda r: r.status),
        final_positions=stack(lambda r: r.final_positions), final_time=stack(lambda r: r.final_time),
        on_table=stack(lambda r: r.on_table), pin_down=stack(lambda r: r.pin_down),
    )
    return out


def write(path: Path = PATH) -> None:
    arrays = {}
    for family in FAMILIES:
        for name, value in record(simulate_family(family)).items():
            arrays[f"{family}/{name}"] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    print(f"wrote {len(FAMILIES)} families x {PER_FAMILY} shots to {path}")


if __name__ == "__main__":
    write()
