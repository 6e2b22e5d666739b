"""Physics helpers shared across the tests: random legal layouts and strikes, the invariants every
simulated shot keeps (docs/physics.md section 8), kinetic energy, and a parking place for a ball."""
import jax
import numpy as np

import physics
from physics import Shot

def far_ball(params):
    """A parking place for a ball that takes no part (a corner, touching no cushion)."""
    return np.array([float(params.table.length) - 0.1, float(params.table.width) - 0.1])


def energy(velocities, spins, params):
    """Kinetic energy of every ball, translation plus rotation: (..., n) -> summed over balls."""
    m = float(params.ball.mass)
    inertia = float(params.ball.inertia)
    v2 = np.sum(np.asarray(velocities) ** 2, axis=-1)
    w2 = np.sum(np.asarray(spins) ** 2, axis=-1)
    return np.sum(0.5 * m * v2 + 0.5 * inertia * w2, axis=-1)


def random_layout(rng, params, n=3):
    """n non-overlapping balls inside the cushions (rejection sampling)."""
    R, reach = float(params.ball.radius), float(params.cushion_reach)
    L, W = float(params.table.length), float(params.table.width)
    while True:
        pos = np.column_stack([rng.uniform(reach, L - reach, n), rng.uniform(reach, W - reach, n)])
        d = np.linalg.norm(pos[:, None] - pos[None], axis=-1) + np.eye(n) * 9
        if d.min() >= 2 * R:
            return pos


def random_shot(rng):
    r, ang = 0.5 * np.sqrt(rng.uniform()), rng.uniform(0, 2 * np.pi)
    return Shot(
        V0=rng.uniform(0.5, 6.0), phi=rng.uniform(-180, 180), theta=rng.uniform(0, 20),
        a=r * np.cos(ang), b=r * np.sin(ang),
    )


def check_invariants(result, params, samples=600):
    """The cushion's give (``params.cushion.give``) lets a ball past a cushion line by give
    (v_in + v_out) (physics/simulate.py ``_yielded``)."""
    R, reach = float(params.ball.radius), float(params.cushion_reach)
    L, W = float(params.table.length), float(params.table.width)
    n = int(result.num_events)
    log = jax.tree_util.tree_map(np.asarray, result.events)
    assert int(result.status) == 0, f"status {int(result.status)}"
    assert not bool(result.overflow)
    # Event times never go back.
    assert np.all(np.diff(log.time[:n]) >= 0)
    # Energy never increases from one event to the next. The log holds no heights: a ball in the
    # air that meets the cushion's upper face may turn its fall into speed across the table
    # (docs/physics.md section 5; the full energy is checked in tests/physics/test_raised.py).
    e = energy(log.velocities[:n], log.spins[:n], params)
    ball = np.clip(log.balls[:n, 0], 0, log.motion.shape[-1] - 1)
    in_air = log.motion[np.arange(n), ball] == physics.Motion.AIRBORNE
    traded = (log.kind[1:n] == physics.EventKind.BALL_CUSHION) & in_air[1:]
    assert np.all((np.diff(e) <= 1e-12 * e[0] + 1e-15) | traded), np.diff(e).max()
    # At rest (or off the table) at the end.
    assert np.all(np.isin(log.motion[n - 1], [physics.Motion.STATIONARY, physics.Motion.OFF_TABLE]))
    # No overlap and never outside the cushions: at every event and on a dense grid between.
    # Overlap across the table is checked for balls on the cloth: one in the air may pass over another.
    times = np.concatenate([log.time[:n], np.linspace(0, float(result.final_time), samples)])
    pos = np.asarray(physics.positions_at(result, times, params))
    k = np.clip(np.searchsorted(log.time[:n], times, side="right") - 1, 0, n - 1)
    on_cloth = ~np.isin(log.motion[k], [physics.Motion.AIRBORNE, physics.Motion.OFF_TABLE])
    i, j = np.triu_indices(pos.shape[1], 1)
    d = np.linalg.norm(pos[:, i] - pos[:, j], axis=-1)
    d = np.where(on_cloth[:, i] & on_cloth[:, j], d, np.inf)
    assert d.min() >= 2 * R - 1e-9, d.min() - 2 * R
    gone = log.motion[k] == physics.Motion.OFF_TABLE
    x, y = np.where(gone, np.nan, pos[..., 0]), np.where(gone, np.nan, pos[..., 1])
    give = float(params.cushion.give)
    past = 1e-9 + 2.0 * give * float(np.max(np.linalg.norm(log.velocities[:n], axis=-1)))
    assert np.nanmin(x) >= reach - past and np.nanmax(x) <= L - reach + past
    assert np.nanmin(y) >= reach - past and np.nanmax(y) <= W - reach + past
    # A ball that left the table lies outside the playing area.
    final = np.asarray(result.final_positions)
    off = ~np.asarray(result.on_table)
    # At rest, every ball on the table lies inside the cushion lines.
    rest = final[~off]
    assert np.all((rest >= reach - 1e-9) & (rest <= np.array([L, W]) - reach + 1e-9))
    assert np.all((final[off, 0] < 0) | (final[off, 0] > L) | (final[off, 1] < 0) | (final[off, 1] > W))
