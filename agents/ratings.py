"""Bradley-Terry ratings of agents from the games they played, on the Elo scale, with intervals.

The model: agent i beats agent j with probability pi_i / (pi_i + pi_j), whoever breaks. A game is
(first, second, outcome), the outcome the winner's name, ``DRAW`` (half a win to each) or
``UNFINISHED`` (left out: a game stopped at its shot cap says nothing about who is better).

The strengths are the maximum of the likelihood times a weak prior: every agent also plays one
virtual draw against a virtual opponent of strength 1 (a rating of 0 before the shift below).
Without it an agent that won (or lost) every game would have an infinite rating; with it the
rating is finite and pulled towards the field's middle by about as much as one more game weighs.
The fit is Newton's method on the log-strengths, each step halved until the log-posterior
rises (it is strictly concave, so the maximum is unique and found from any start).

Ratings are 400 log10(pi), shifted so that they average 0: a difference of 400 is odds of 10 to
1, 191 odds of 3 to 1 (a 75 % chance of winning). Intervals: percentile bootstrap, the finished
games resampled with replacement (a seeded ``numpy.random.Generator``), each resample refitted
and shifted alike, the 2.5 and 97.5 percentiles. Plain NumPy on the host, as ``agents.stats``.
"""
from __future__ import annotations

import math

import numpy as np

DRAW = "draw"
UNFINISHED = "unfinished"
ELO = 400.0 / math.log(10.0)  # Elo points per unit of natural log-strength
PRIOR_DRAWS = 1.0  # virtual draws of each agent against the virtual opponent of strength 1


# --- the games -----------------------------------------------------------------------------------

def first_scores(games) -> list[tuple[str, str, float]]:
    """(first, second, the first's score: 1, 0.5 or 0) for every finished game of ``games``
    ((first, second, outcome) each); ValueError for an agent playing itself, an agent named
    like an outcome, or an outcome that is neither player, ``DRAW`` nor ``UNFINISHED``."""
    scored = []
    for first, second, outcome in games:
        if first == second:
            raise ValueError(f"a game needs two different agents, got {first!r} against itself")
        if {first, second} & {DRAW, UNFINISHED}:
            raise ValueError(f"agents cannot be named {DRAW!r} or {UNFINISHED!r}: those are outcomes")
        if outcome == UNFINISHED:
            continue
        if outcome not in (first, second, DRAW):
            raise ValueError(f"unknown outcome {outcome!r} of {first!r} against {second!r}: the winner's name, "
                             f"{DRAW!r} or {UNFINISHED!r}")
        scored.append((first, second, 1.0 if outcome == first else 0.0 if outcome == second else 0.5))
    return scored


def score_matrices(scored, index: dict, picks) -> np.ndarray:
    """(R, k, k) each resample's scores: [r, i, j] the points i took from j over the games
    ``picks[r]`` (indices into ``scored``)."""
    k = len(index)
    a = np.array([index[f] for f, _, _ in scored], int)
    b = np.array([index[s] for _, s, _ in scored], int)
    s = np.array([x for _, _, x in scored], float)
    picks = np.asarray(picks, int)
    base = (np.arange(picks.shape[0]) * k * k)[:, None]
    total = np.bincount((base + a[picks] * k + b[picks]).ravel(), s[picks].ravel(), picks.shape[0] * k * k)
    total += np.bincount((base + b[picks] * k + a[picks]).ravel(), 1.0 - s[picks].ravel(), picks.shape[0] * k * k)
    return total.reshape(picks.shape[0], k, k)


# --- the fit ---------------------------------------------------------------------------------------

def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def log_posterior(theta, scores, prior: float = PRIOR_DRAWS) -> np.ndarray:
    """(R,) the log-likelihood of the scores (R, k, k) at log-strengths theta (R, k), plus the
    prior's virtual draws against a strength of 1 (log-strength 0)."""
    diff = theta[:, :, None] - theta[:, None, :]
    games = np.sum(scores * _log_sigmoid(diff), axis=(1, 2))
    return games + 0.5 * prior * np.sum(_log_sigmoid(theta) + _log_sigmoid(-theta), axis=1)


def newton_step(theta, scores, prior: float = PRIOR_DRAWS) -> np.ndarray:
    """(R, k) Newton's step on the log-posterior from theta: the gradient solved against the
    (negative definite) Hessian, one small linear system per resample."""
    p = 1.0 / (1.0 + np.exp(theta[:, None, :] - theta[:, :, None]))  # [r, i, j]: i beats j
    played = scores + np.swapaxes(scores, 1, 2)
    s = 1.0 / (1.0 + np.exp(-theta))
    grad = np.sum(scores * (1.0 - p) - np.swapaxes(scores, 1, 2) * p, axis=2) + prior * (0.5 - s)
    weight = played * p * (1.0 - p)
    k = theta.shape[1]
    curvature = -weight + np.eye(k) * (np.sum(weight, axis=2) + prior * s * (1.0 - s))[:, :, None]
    return np.linalg.solve(curvature, grad[:, :, None])[:, :, 0]


def fit(scores, prior: float = PRIOR_DRAWS, tol: float = 1e-12, max_steps: int = 100) -> np.ndarray:
    """(R, k) log-strengths maximising the log-posterior of each resample's scores (R, k, k),
    by Newton's method, each step halved (up to 60 times) until the log-posterior does not fall."""
    theta = np.zeros(scores.shape[:2])
    for _ in range(max_steps):
        step = newton_step(theta, scores, prior)
        now = log_posterior(theta, scores, prior)
        scale = np.ones(theta.shape[0])
        for _ in range(60):
            worse = log_posterior(theta + scale[:, None] * step, scores, prior) < now - 1e-12 * np.abs(now)
            if not worse.any():
                break
            scale = np.where(worse, scale / 2, scale)
        theta = theta + scale[:, None] * step
        if np.max(np.abs(scale[:, None] * step)) < tol:
            break
    return theta


def elo(theta) -> np.ndarray:
    """Log-strengths (..., k) as Elo ratings averaging 0."""
    points = ELO * np.asarray(theta)
    return points - points.mean(axis=-1, keepdims=True)


# --- the ratings table ---------------------------------------------------------------------------

def rate(games, agents=None, resamples: int = 1000, seed: int = 0, prior: float = PRIOR_DRAWS) -> list[dict]:
    """One row per agent, best first: ``agent``, ``rating`` (Elo, the field's average 0), ``low``
    and ``high`` (bootstrap 95 %), ``games`` (finished games), ``wins``, ``draws``.

    games: (first, second, outcome) each (see the module docstring); agents: every agent to rate,
    in order (default: as they first appear in ``games``; an agent with no finished game rates 0).
    ValueError for no games, fewer than two agents, an unknown outcome or agent, no resample or a
    prior that is not positive."""
    games = list(games)
    if not games:
        raise ValueError("no games to rate")
    if resamples < 1 or not prior > 0:
        raise ValueError(f"need resamples >= 1 and a prior > 0, got {resamples} and {prior}")
    scored = first_scores(games)
    names = list(dict.fromkeys(agents if agents is not None else (n for g in games for n in g[:2])))
    if len(names) < 2:
        raise ValueError(f"ratings need at least two agents, got {names}")
    index = {name: i for i, name in enumerate(names)}
    unknown = {n for g in games for n in g[:2]} - set(index)
    if unknown:
        raise ValueError(f"games of agents not in the list to rate: {sorted(unknown)}")
    point = elo(fit(score_matrices(scored, index, [np.arange(len(scored))]), prior))[0]
    boot = point[None]  # no finished game: nothing to resample
    if scored:
        picks = np.random.default_rng(seed).integers(0, len(scored), (resamples, len(scored)))
        boot = elo(fit(score_matrices(scored, index, picks), prior))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    rows = []
    for name, i in index.items():
        mine = [(s if f == name else 1.0 - s) for f, o, s in scored if name in (f, o)]
        rows.append(dict(agent=name, rating=float(point[i]), low=float(low[i]), high=float(high[i]),
                         games=len(mine), wins=sum(x == 1.0 for x in mine), draws=sum(x == 0.5 for x in mine)))
    return sorted(rows, key=lambda r: -r["rating"])


__all__ = ["DRAW", "UNFINISHED", "ELO", "PRIOR_DRAWS", "first_scores", "score_matrices", "log_posterior",
           "newton_step", "fit", "elo", "rate"]
