"""Medians of measured rows per bin of their first column, as the calibration's tables show them.

Rebounds are binned by incidence (``rebounds.by_incidence``), ball-ball hits by cut angle
(``collisions.by_cut``), turns past the contact line by speed into the cushion; a bin holds the
rows whose first column lies in [lo, hi), and the medians leave out NaN (a reading that does not
apply to that row).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def _median(values) -> float:
    """Median of the finite values (NaN if none)."""
    values = values[np.isfinite(values)]
    return float(np.median(values)) if len(values) else float("nan")


def binned_medians(rows: np.ndarray, columns: Sequence[str], edges: Sequence[float]) -> list[dict]:
    """Medians of each named column per bin of the first one (NaN in an empty bin):
    [{"bin": "0-15", "n", medians...}]."""
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        part = rows[(rows[:, 0] >= lo) & (rows[:, 0] < hi)]
        medians = {c: _median(part[:, i]) for i, c in enumerate(columns)}
        out.append({"bin": f"{lo}-{hi}", "n": int(len(part)), **medians})
    return out


__all__ = ["binned_medians"]
