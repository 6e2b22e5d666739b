"""Where things are on the table: restricted fields, anchors, frozen balls, free spots.

A zone (a straight-rail corner field, a balkline field or an anchor square) is a convex polygon
given as up to four half-planes ``nx * x + ny * y <= c`` (unit normals, so distances are metres):
``zones: (n_zones, 4, 3) float``. A ball centre within ``line_tolerance`` outside a line still
counts inside (rules C-11.5, C-12.9: on the line is inside, against the player).

Coordinates follow ``physics.table``: x along the long side, origin at the BOTTOM-RIGHT corner.
"""
from __future__ import annotations

import jax.numpy as jnp

from physics.events import Cushion
from rules.codes import Zones

_NO_LINE = (0.0, 0.0, 0.0)  # 0 <= 0: a padding half-plane every point satisfies
_NOWHERE = (0.0, 0.0, -1.0)  # 0 <= -1: a half-plane no point satisfies (a padding zone holds no ball)
N_FIELDS, N_ANCHORS = 9, 8  # the most fields and anchors of any discipline (balkline, C-12.2)


def _rectangle(x_lo, x_hi, y_lo, y_hi):
    """(4, 3): the four sides of an axis-aligned rectangle."""
    zero, one = jnp.zeros_like(x_lo), jnp.ones_like(x_lo)
    return jnp.stack([
        jnp.stack([-one, zero, -x_lo]),
        jnp.stack([one, zero, x_hi]),
        jnp.stack([zero, -one, -y_lo]),
        jnp.stack([zero, one, y_hi]),
    ])


def corner_fields(ruleset, table):
    """(4, 4, 3): straight-rail restricted fields (rule C-11.1, open point O-5).

    Right triangles in the corners, legs ``corner_long_leg`` along the long cushion and
    ``corner_short_leg`` along the short one. Order: BOTTOM-RIGHT, BOTTOM-LEFT, TOP-RIGHT, TOP-LEFT.
    """
    a, b = ruleset.corner_long_leg, ruleset.corner_short_leg
    h = jnp.sqrt(a * a + b * b)
    zero = jnp.zeros_like(a)
    fields = []
    for x0, sx in ((zero, 1.0), (table.length, -1.0)):
        for y0, sy in ((zero, 1.0), (table.width, -1.0)):
            # local u = sx (x - x0) >= 0, v = sy (y - y0) >= 0, b u + a v <= a b
            nu, nv = b / h, a / h
            fields.append(jnp.stack([
                jnp.stack([-sx + zero, zero, -sx * x0]),
                jnp.stack([zero, -sy + zero, -sy * y0]),
                jnp.stack([nu * sx, nv * sy, a * b / h + nu * sx * x0 + nv * sy * y0]),
                jnp.asarray(_NO_LINE, a.dtype),
            ]))
    return jnp.stack(fields)


def _cuts(size, d):
    """(4,): the cut points of one side: the two cushions and the two balkline lines."""
    return jnp.stack([jnp.zeros_like(size), d, size - d, size])


def balkline_fields(ruleset, table):
    """(9, 4, 3): the balkline fields (rules C-12.2, C-12.5), row by row from the BOTTOM-RIGHT.

    Lines at ``line_distance`` from every cushion. With 71 cm lines on a 1.42 m wide table the two
    long lines coincide on the long axis (three lines, six fields, C-12.5): the middle row of
    fields then has zero width and only holds balls lying on that line, which also lie in the
    fields beside it, so it changes no ruling.
    """
    xs = _cuts(table.length, ruleset.line_distance)
    ys = _cuts(table.width, ruleset.line_distance)
    return jnp.stack([_rectangle(xs[i], xs[i + 1], ys[j], ys[j + 1]) for i in range(3) for j in range(3)])


def anchors(ruleset, table):
    """(8, 4, 3): the anchor squares (rule C-12.2 b, C-12.5 b).

    At each end of each balkline line, centred on the line, side ``anchor_fraction`` of the playing
    width, one side on the cushion. Order: the two cross lines (x = d, x = L - d) at the RIGHT then
    LEFT cushion, then the two long lines (y = d, y = W - d) at the BOTTOM then TOP cushion.
    """
    L, W, d = table.length, table.width, ruleset.line_distance
    s = ruleset.anchor_fraction * W
    half = 0.5 * s
    zero = jnp.zeros_like(L)
    squares = []
    for x0 in (d, L - d):
        squares.append(_rectangle(x0 - half, x0 + half, zero, s))
        squares.append(_rectangle(x0 - half, x0 + half, W - s, W))
    for y0 in (d, W - d):
        squares.append(_rectangle(zero, s, y0 - half, y0 + half))
        squares.append(_rectangle(L - s, L, y0 - half, y0 + half))
    return jnp.stack(squares)


def zones(ruleset, table):
    """((N_FIELDS, 4, 3), (N_ANCHORS, 4, 3)): the discipline's fields and anchors.

    The shapes are the same for every discipline, so one compiled referee serves them all: the
    kind of zones (``rules.zones``, a leaf) picks the lines, and the rows a discipline does not
    have are padding zones that hold no ball (straight rail: four corner fields, no anchors; the
    other carom disciplines: none).
    """
    dtype = table.length.dtype
    nowhere = jnp.broadcast_to(jnp.asarray(_NOWHERE, dtype), (N_FIELDS, 4, 3))
    corners = jnp.concatenate([corner_fields(ruleset, table).astype(dtype), nowhere[: N_FIELDS - 4]])
    balkline = balkline_fields(ruleset, table).astype(dtype)
    fields = jnp.where(ruleset.zones == Zones.CORNERS, corners,
                       jnp.where(ruleset.zones == Zones.BALKLINE, balkline, nowhere))
    anchor_lines = jnp.where(ruleset.zones == Zones.BALKLINE, anchors(ruleset, table).astype(dtype),
                             nowhere[:N_ANCHORS])
    return fields, anchor_lines


def inside(zone_lines, points, tol):
    """(..., n_zones) bool: each point (..., 2) lies in each zone (n_zones, 4, 3), lines included
    (within tol)."""
    x = points[..., 0][..., None, None]
    y = points[..., 1][..., None, None]
    s = zone_lines[..., 0] * x + zone_lines[..., 1] * y - zone_lines[..., 2]
    return jnp.all(s <= tol, axis=-1)


def frozen_balls(positions, cue, radius, tol):
    """(n,) bool: the balls touching the cue ball: centres closer than 2R + tol (open point O-3)."""
    d = jnp.linalg.norm(positions - positions[cue], axis=-1)
    return (d < 2 * radius + tol) & (jnp.arange(positions.shape[0]) != cue)


def frozen_cushions(point, reach, table, tol):
    """(4,) bool, in ``Cushion`` order: the ball touches that cushion (nose gap below tol, O-3)."""
    gaps = jnp.stack([
        point[0],  # Cushion.BOTTOM, x = 0
        table.length - point[0],  # Cushion.TOP
        point[1],  # Cushion.RIGHT, y = 0
        table.width - point[1],  # Cushion.LEFT
    ]) - reach
    assert [Cushion.BOTTOM, Cushion.TOP, Cushion.RIGHT, Cushion.LEFT] == [0, 1, 2, 3]
    return gaps < tol


def spot_taken(positions, present, spot, clearance):
    """() bool: a present ball's centre is closer than clearance to the spot."""
    d = jnp.linalg.norm(positions - spot, axis=-1)
    return jnp.any(present & (d < clearance))


def nearest_free_on_line(wanted, x_line, lo, hi, centres, clearances, active):
    """() float: the y nearest to ``wanted`` on the line x = x_line, y in [lo, hi], that keeps
    every active obstacle's centre at least its clearance away.

    centres: (k, 2); clearances: (k,); active: (k,) bool. The nearest free point is the wanted y
    itself (clipped) or an end of a blocked interval or of the range, so those are the candidates.
    """
    dx = x_line - centres[:, 0]
    blocking = active & (jnp.abs(dx) < clearances)
    half = jnp.sqrt(jnp.maximum(clearances**2 - dx**2, 0.0))
    candidates = jnp.concatenate([
        jnp.clip(wanted, lo, hi)[None],
        jnp.where(blocking, centres[:, 1] - half, lo),
        jnp.where(blocking, centres[:, 1] + half, hi),
        jnp.stack([lo, hi]),
    ])

    def free(y):
        d2 = (y - centres[:, 1]) ** 2 + dx**2
        # a relative slack of 1e-9 lets the rounded ends of the blocked intervals count as free
        return (y >= lo) & (y <= hi) & jnp.all(~blocking | (d2 >= clearances**2 * (1 - 1e-9)))

    ok = jnp.stack([free(y) for y in candidates])
    cost = jnp.where(ok, jnp.abs(candidates - wanted), jnp.inf)
    return candidates[jnp.argmin(cost)]
