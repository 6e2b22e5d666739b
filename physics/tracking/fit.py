"""Strike reconstruction: the cue strike that makes the physics reproduce a tracked shot.

The unknowns (``FIELDS``) are the strike (V0, phi, a, b and the cue elevation theta, near 0 for
most carom strokes) and ``dt``, the strike time relative to the start of motion read from the
tracks (``TrackedShot.strike_time``); a candidate is scored by ``objective.rms`` with the tracked
contacts. The search starts from a first guess read off the cue ball's first samples, or from the
ghost ball of a ball it meets at once (``first_guess``). It is a cross-entropy method (CEM) over
``pop`` candidates a round per shot, simulated in one call: sample, keep the best eighth, refit a
normal distribution to them, repeat. Early rounds score only the first seconds of the shot and
the horizon grows to the whole shot, which keeps the search out of the many local minima that
later contacts make. Several searches start with different side spins (its sign sets every
cushion angle) and the best goes on alone after ``explore`` of the rounds; the last ``polish``
rounds search around the best strike found, scored on the whole shot. ``searches`` whole searches
run for every shot (in the same simulation calls, each drawing its own candidates), and the one
whose strike fits best is kept: a shot's objective has several minima.

``reconstruct`` fits one shot and reports its errors: RMS over the whole shot, over the first
``early`` s after the strike, and the time-free path shape (``errors.path_distance``). Figures on
the 90 match shots: docs/physics.md sections 6 and 10. Settings: ``TrackingConfig``.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np

from physics.events import ShotResult
from physics.params import Params, default_params
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.errors import path_distance
from physics.tracking.events import ball_contacts
from physics.tracking.objective import final_result, rms, simulate
from physics.tracking.target import Target
from physics.tracking.tracks import TrackedShot

FIELDS = ("V0", "phi", "a", "b", "dt", "theta")


def first_guess(shot: TrackedShot, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """(6,) a strike (``FIELDS``) from the cue ball's first samples: aim along its first
    ``first_travel`` s of travel, cue speed from the ball's speed there, a level centre hit,
    dt = 0. Where the tracks show the cue ball meeting a ball sooner, it aims at the ghost ball
    instead (``ghost_aim``): the hit has already turned those samples (match shot 545762, a thin
    hit on a ball 5 cm away: its first 60 ms point 14 degrees off the aim)."""
    tr = shot.tracks[shot.cue]
    t0 = shot.strike_time
    k = int(np.searchsorted(tr.t, t0 + config.first_travel))
    k = min(max(k, 1), len(tr.t) - 1)
    d = tr.xy[k] - tr.xy[0]
    speed = np.linalg.norm(d) / max(tr.t[k] - t0, 1e-3)
    aim = np.degrees(np.arctan2(d[1], d[0]))
    first = next((c for c in ball_contacts(shot, config) if shot.cue in c.balls), None)
    if first is not None and first.t < t0 + config.first_travel:
        aim = ghost_aim(shot, first.balls[0] + first.balls[1] - shot.cue, config)
    return np.array([speed / config.ball_speed_per_cue_speed, aim, 0.0, 0.0, 0.0, 0.0])


def ghost_aim(shot: TrackedShot, ball: int, config: TrackingConfig = DEFAULT) -> float:
    """The aim (degrees) that sends the cue ball's centre to where it touches ``ball`` at rest: 2 R
    back from that ball's place along the line it leaves on (read over its first ``first_travel``
    s of motion; the throw of a cut, a degree or two, is left to the search)."""
    tr = shot.tracks[ball]
    k = min(int(np.searchsorted(tr.t, tr.moves_at + config.first_travel)), len(tr.t) - 1)
    leaves = tr.xy[k] - tr.xy[0]
    d = tr.xy[0] - 2 * config.radius * leaves / max(np.linalg.norm(leaves), 1e-9) - shot.tracks[shot.cue].xy[0]
    return float(np.degrees(np.arctan2(d[1], d[0])))


def legal(x: np.ndarray, config: TrackingConfig = DEFAULT) -> np.ndarray:
    """Strikes (..., 6) moved into the search box, tip offsets inside ``max_tip``."""
    x = np.clip(x, np.asarray(config.low), np.asarray(config.high))
    r = np.hypot(x[..., 2], x[..., 3])
    scale = np.minimum(1.0, config.max_tip / np.maximum(r, 1e-12))
    x[..., 2] *= scale
    x[..., 3] *= scale
    return x


@dataclasses.dataclass
class Fit:
    """The best strike found for a target and its errors (m); objective: what the search
    minimised, the RMS over the whole shot with the tracked contacts' misses (``objective.rms``)."""

    strike: np.ndarray
    rms: float
    rms_early: float
    result: Optional[ShotResult] = None
    objective: float = np.inf

    def row(self) -> dict:
        return dict(zip(FIELDS, (float(v) for v in self.strike)), rms=self.rms, rms_early=self.rms_early)


def _side_spins(init: np.ndarray, restarts: int) -> np.ndarray:
    """(n, restarts, 6): the starting strikes of the independent searches, alike but for their
    side spin, spread evenly over -0.3..0.3 (one search keeps ``init``)."""
    start = np.repeat(np.array(init, float)[:, None], restarts, axis=1)
    if restarts > 1:
        start[:, :, 2] = np.linspace(-0.3, 0.3, restarts)
    return start


def fit(targets: list[Target], params: Params, config: TrackingConfig = DEFAULT, *, init: np.ndarray,
        seed: int = 0, spread: Optional[np.ndarray] = None, batched_params: bool = False, progress=None
        ) -> list[Fit]:
    """CEM over the strikes of several targets at once, the search of ``config`` (``pop``,
    ``rounds``, ``restarts``, ``polish``, ``searches``, ``first_horizon``; module docstring).

    init: (len(targets), 6) starting strikes (``first_guess`` of each shot, or earlier fits);
    spread: (6,) the starting standard deviations (default ``wide_spread``, for a first guess;
    a warm start can score more of the shot from the first round, ``first_horizon``);
    restarts: independent searches per target (``pop // restarts`` candidates each, side spins
    from ``_side_spins``) for the first ``explore`` of the rounds; the one whose best strike fits
    the whole shot best then goes on with the whole population;
    polish: the last rounds sample around the best strike so far, scored on the whole shot.
    With ``batched_params`` every leaf of ``params`` has a leading axis of len(targets): each
    target is fitted under its own parameters (calibration).
    searches: whole searches per target, independent (their own draws, in the same simulation
    calls), the one whose best strike has the lowest objective kept (``searches`` times the
    simulated shots). ``progress``: a tqdm-like bar, updated once a round.
    """
    pop, rounds, restarts, polish, searches = config.pop, config.rounds, config.restarts, config.polish, config.searches
    n, dim = len(targets), len(FIELDS)
    if init is None or np.shape(init) != (n, dim):
        raise ValueError(f"init must hold a starting strike per target, shape ({n}, {dim}) (fit.first_guess), "
                         f"got {None if init is None else np.shape(init)}")
    if searches > 1:  # the targets repeated: each copy's lanes draw their own candidates
        if batched_params:
            params = jax.tree_util.tree_map(lambda x: jnp.concatenate([x] * searches), params)
        fits = fit(targets * searches, params, dataclasses.replace(config, searches=1),
                   init=np.tile(init, (searches, 1)), seed=seed, spread=spread, batched_params=batched_params,
                   progress=progress)
        return [min(fits[i::n], key=lambda f: f.objective) for i in range(n)]
    rng = np.random.default_rng(seed)
    mean = _side_spins(init, restarts)  # (n, groups, dim)
    std = np.array(config.wide_spread if spread is None else spread, float)[None, None] * np.ones_like(mean)
    if spread is None:
        std[..., 0] *= mean[..., 0]
    cov = np.einsum("ngi,ij->ngij", std**2, np.eye(dim))  # full covariances: V0, aim, spin and dt trade off
    lanes = [t for t in targets for _ in range(pop)]
    lane_params = params
    if batched_params:
        lane_params = jax.tree_util.tree_map(lambda x: jnp.repeat(x, pop, axis=0), params)
    used = np.stack([t.used for t in lanes])
    best = [[Fit(m.copy(), np.inf, np.inf) for m in row] for row in mean]  # per target and search
    merge = max(int(rounds * config.explore), 1) if restarts > 1 else -1
    floor = np.diag(np.asarray(config.min_spread) ** 2)
    for k in range(rounds):
        if k == merge:  # the best search of each target goes on alone
            keep = [int(np.argmin([f.objective for f in row])) for row in best]
            mean, cov = mean[np.arange(n), keep][:, None], cov[np.arange(n), keep][:, None]
            best = [[row[j]] for row, j in zip(best, keep)]
        groups = mean.shape[1]
        size = pop // groups
        polishing = k >= rounds - polish
        if polishing:
            mean = np.array([[f.strike for f in row] for row in best])
        chol = np.linalg.cholesky(cov + floor)
        x = mean[:, :, None, :] + np.einsum("ngij,ngpj->ngpi", chol, rng.standard_normal((n, groups, size, dim)))
        x[:, :, 0] = mean  # the current mean is always a candidate, and so is the best strike
        x[:, :, 1] = [[f.strike if np.isfinite(f.objective) else m for f, m in zip(row, mrow)]
                      for row, mrow in zip(best, mean)]
        x = legal(x, config).reshape(n * pop, dim)
        _, d2, rel, misses = simulate(lanes, x, lane_params, config, batched_params)
        horizon = np.inf if polishing else config.first_horizon * config.growth ** k
        shape = (n, groups, size)
        score = rms(d2, used & (rel <= horizon), misses.within(horizon), config).reshape(shape)
        objective = rms(d2, used, misses.within(), config).reshape(shape)
        whole = rms(d2, used, config=config).reshape(shape)
        early = rms(d2, used & (rel <= config.early), config=config).reshape(shape)
        x = x.reshape(n, groups, size, dim)
        elite = max(size // 8, 2)
        for i in range(n):
            for g in range(groups):
                order = np.argsort(score[i, g])[:elite]
                mean[i, g] = x[i, g, order].mean(0)
                cov[i, g] = np.cov(x[i, g, order], rowvar=False)
                j = int(np.argmin(objective[i, g]))
                if objective[i, g, j] < best[i][g].objective:
                    best[i][g] = Fit(x[i, g, j].copy(), float(whole[i, g, j]), float(early[i, g, j]),
                                     objective=float(objective[i, g, j]))
        if progress is not None:
            progress.update(1)
    return [min(row, key=lambda f: f.objective) for row in best]


def check_horizon(horizon) -> None:
    """ValueError unless ``horizon`` (s) is a positive number."""
    if not horizon > 0:
        raise ValueError(f"horizon must be a positive number of seconds, got {horizon!r}")


def reconstruct(shot: TrackedShot, params: Optional[Params] = None, config: TrackingConfig = DEFAULT, *,
                seed: int = 0, horizon: Optional[float] = None) -> tuple[Fit, float]:
    """The best strike for one tracked shot (the search of ``config``, from ``first_guess``) and its
    path-shape distance. ``horizon``: fit only the samples of the first ``horizon`` s after the
    strike (the strike that explains the start of a shot; default: the whole shot); the errors
    reported are still those of the whole shot and its first ``early`` s."""
    params = default_params() if params is None else params
    target = Target.of(shot, config)
    scored = target
    if horizon is not None:
        check_horizon(horizon)
        near = target.near
        assert near is not None  # Target.of always reads the contacts
        scored = dataclasses.replace(target, used=target.used & (target.times - target.strike_time <= horizon),
                                     near=dataclasses.replace(near, used=near.used & (
                                         near.times[:, 0] - target.strike_time <= horizon)))
    best = fit([scored], params, config, init=first_guess(shot, config)[None], seed=seed)[0]
    if horizon is None:
        result = best.result = final_result(target, best.strike, params, config)
    else:  # the errors of the whole shot, from its one simulation
        results, d2, rel, _ = simulate([target], best.strike[None], params, config)
        result = jax.tree_util.tree_map(lambda v: v[0], results)
        best = Fit(best.strike, float(rms(d2, target.used[None], config=config)[0]),
                   float(rms(d2, target.used[None] & (rel <= config.early), config=config)[0]), result)
    return best, path_distance(shot, result, float(best.strike[4]), params, config=config)


__all__ = ["FIELDS", "Fit", "check_horizon", "first_guess", "fit", "ghost_aim", "legal", "reconstruct"]
