"""Interval estimates of the evaluations: a proportion, a mean, a ratio and a bounded mean.

Each returns its estimate with a 95 % interval (``z`` = 1.96) as plain floats, NaN where the data
cannot give one, and is deterministic (the bootstrap of ``bounded_mean_ci`` is seeded). Plain
NumPy on the host, no JAX: ``agents.arena`` summarises its innings and games with them, and the
commands their own measurements.
"""
from __future__ import annotations

import math

import numpy as np


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion k / n: (low, high); (0, 1) when n is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exact at the ends (no rounding past p)
    high = 1.0 if k == n else min(1.0, centre + half)
    return (low, high)


def mean_ci(x, z: float = 1.96) -> tuple[float, float, float]:
    """(mean, low, high): the mean and its normal-approximation 95 % interval (NaN bounds for
    fewer than two values, all NaN for none)."""
    x = np.asarray(x, float)
    if x.size == 0:
        return (float("nan"),) * 3
    m = float(x.mean())
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size) if x.size > 1 else float("nan")
    return m, m - half, m + half


def ratio_ci(numerators, denominators, z: float = 1.96) -> tuple[float, float, float]:
    """(ratio, low, high): sum(numerators) / sum(denominators), with a 95 % interval by the delta
    method over the pairs (the general average: points over innings, game by game); the low end
    is kept at 0 when no numerator is negative."""
    x = np.asarray(numerators, float)
    y = np.asarray(denominators, float)
    if x.size == 0 or y.sum() <= 0:
        return (float("nan"),) * 3
    r = float(x.sum() / y.sum())
    if x.size < 2:
        return r, float("nan"), float("nan")
    resid = x - r * y
    half = z * math.sqrt(float(np.sum(resid ** 2)) / (x.size - 1) / x.size) / float(y.mean())
    floor = 0.0 if np.all(x >= 0) else -math.inf  # points over innings cannot be negative
    return r, max(floor, r - half), r + half


def bounded_mean_ci(x, floor: float = -math.inf, unit: float = 1.0, z: float = 1.96, resamples: int = 4000,
                    seed: int = 0) -> tuple[float, float, float]:
    """(mean, low, high): the mean and a 95 % interval that stays inside the possible range, for a
    quantity that cannot fall below ``floor`` and comes in steps of ``unit`` (points per inning:
    floor 0, one point; shots per inning: floor 1, one shot).

    A percentile bootstrap of the mean (``resamples`` draws, seeded: the same data give the same
    interval), cut at ``floor``. When every value is the same the bootstrap has no spread, yet the
    mean is not known exactly: then the interval reaches one ``unit`` times the Wilson upper bound
    of 0 of n (the share of values that could differ by a unit and not be seen) on either side, cut
    at ``floor``; 0 scoring innings of 40 give [0, 0.088] points per inning. NaN bounds for fewer
    than two values (all NaN for none), as ``mean_ci``."""
    x = np.asarray(x, float)
    if x.size == 0:
        return (float("nan"),) * 3
    m = float(x.mean())
    if x.size < 2:
        return m, float("nan"), float("nan")
    if np.all(x == x[0]):
        half = unit * wilson(0, x.size, z)[1]
        return m, max(floor, m - half), m + half
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, (resamples, x.size))].mean(axis=1)
    tail = 100.0 * (1.0 - math.erf(z / math.sqrt(2.0))) / 2.0  # 2.5 % for z = 1.96
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return m, max(floor, float(low)), float(high)


__all__ = ["wilson", "mean_ci", "ratio_ci", "bounded_mean_ci"]
