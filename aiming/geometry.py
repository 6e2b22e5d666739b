"""Aiming without simulation: ghost balls, mirror images across the cushions, and the lines the
geometric agent ranks (and the search agent perturbs).

The cushions as mirrors. A ball's centre touches a cushion ``params.cushion_reach`` from the nose
line, so the centres live in the *rail box* ``[lo, lo + size]``. Unfold the table (reflect the box
across its sides again and again) and a path off k cushions becomes a straight line from the real
box, cell (0, 0), to an image of its target in cell (i, j), |i| + |j| = k; the line crosses |i|
short-cushion and |j| long-cushion mirrors in the order its geometry decides, so every cell
stands for every cushion order that reaches it (the diamond-system idea without the numbers).
Real cushions are not mirrors (speed, spin and friction change the rebound): these lines are
starting points, not answers.

The ghost ball and the cue ball's path after the contact. To send a ball along a line the cue
ball must arrive where it touches it on that line (the ghost ball, 2R behind it). Equal balls
without friction between them: the cue ball keeps its velocity along the tangent line, v
sin(cut), and its spin. With no spin at the contact ("stun") it leaves along the tangent line, so
to carom from the first object ball O1 to a point Q (the second ball, or an image) the ghost ball
lies on the circle of radius 2R round O1 and on the circle with diameter O1-Q (Thales): one
solution each side of O1. With forward spin s (a fraction of rolling) the cloth bends the path
forward until the ball rolls, along (5/7 + 2/7 s) sin(cut) t + (2/7) s cos(cut) n (``departure``;
s = 1 is the "30-degree rule", Alciatore TP A-4), after a parabola whose end is offset from the
ghost ball (``_slide_offset``); the spin at the contact follows from the distance a centre-struck
ball slid (``_spin_at_contact``), and the ghost ball is found numerically round O1
(``_rolling_contacts``). A carom line reaching O1 directly is tried twice: struck at the centre
(spin as it comes), and with the draw that wears off just at the contact (stun, when 0.5 R of
draw or less does it).

Kinds of lines (one row each in a ``LineTable``): carom, cue ball -> k1 cushions -> O1 at G -> k2
cushions -> the second ball, k1 + k2 cushions in all (0 or 1 for straight rail and balkline, 1 or
2 for one-cushion, 3 or 4 for three-cushion; "bank" lines have k1 > 0); pin (Hungarian game), cue
ball -> k1 cushions (0 to 2) -> a target ball hit full enough to drive it into the pin where it
stands, with draw so the cue ball does not follow.

Each line gets a quality in [0, 1] (0: impossible, blocked by a ball or the pin, or too fast):
short paths, cuts near 45 degrees (pin lines: full hits), few cushions and above all none before
the first ball (measured: bank lines rarely come true, a spinning ball's rebound being far from a
mirror's). The speed comes from a simple model of the table, backwards from the end of the line
(calibrated against the simulator: a rolling ball slows by about 0.05 m/s every second, keeps
about 0.7 of its speed at each cushion, and starts rolling at about the cue speed in m/s).
"""
from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from physics.pytree import pytree_dataclass

# Speed model (ball speeds, m/s; see the module docstring).
ROLLING_DECEL = 0.06  # m/s^2: u_r g = 0.049 on the default cloth, with a margin
CUSHION_KEEP = 0.7  # speed kept at a cushion
ARRIVAL_SPEED = 0.5  # m/s the cue ball should still have at the second object ball
PIN_ARRIVAL_SPEED = 0.5  # m/s the target ball should still have at the pin (it topples at ~0.06)
MAX_CUT_DEG = 78.0  # thinner cuts are too sensitive to the aim
MAX_PIN_CUT_DEG = 60.0
PATH_SCALE = 4.0  # m: quality falls by e over this much cue-ball path
CUSHION_PENALTY = 0.4  # quality factor exp(-this) per cushion beyond the discipline's minimum
BANK_PENALTY = 1.6  # quality factor exp(-this) per cushion before the first ball: the rebound
# of a spinning ball is far from a mirror's, so "bank" lines come true less often
PIN_BANK_PENALTY = 3.0  # the same for pin lines, which need a full hit after the cushions
CAROM_DRAW = 0.0  # tip height of carom lines: centre ball (the spin at the contact is modelled)
STUN_DRAW_MAX = 0.5  # the most draw a stun line may ask for (fraction of R)
PIN_DRAW = -0.3  # pin lines: draw, so the cue ball does not follow the target into the pin
CAROM_POINTS_HUNGARIAN = 10.0
PIN_POINTS_HUNGARIAN = 50.0


def cells(k: int) -> np.ndarray:
    """(n, 2) int: the unfolded cells (i, j) with |i| + |j| = k, in a fixed order."""
    out = [(i, j) for i in range(-k, k + 1) for j in range(-k, k + 1) if abs(i) + abs(j) == k]
    return np.asarray(out, np.int32).reshape(-1, 2)


def cells_within(k: int) -> np.ndarray:
    """(n, 2) int: every cell with |i| <= k and |j| <= k."""
    return np.asarray([(i, j) for i in range(-k, k + 1) for j in range(-k, k + 1)], np.int32)


@dataclasses.dataclass(frozen=True)
class LineTable:
    """Static description of candidate lines. Shapes (n_lines,) unless noted.

    pin: bool, a pin line (else a carom line).  stun: bool, a carom line played with draw so
    that the cue ball arrives without spin (else struck at the centre and rolling as far as it
    has come).  first: int, which object ball is hit first (0 or 1, the lower or higher index
    of the two; for a pin line, the target).  side: +1 / -1, which of the two ghost balls
    (carom lines: the fuller or the thinner hit).  cell1: (n, 2) int, the cue ball's cell before
    the first contact.  cell2: (n, 2) int, the cell of the second object ball's image (carom).
    cushions: int, k1 + k2.  reach: int, largest |i| or |j| (the obstacle cells to check).
    """

    pin: np.ndarray
    stun: np.ndarray
    first: np.ndarray
    side: np.ndarray
    cell1: np.ndarray
    cell2: np.ndarray
    cushions: np.ndarray
    min_cushions: int
    reach: int
    near1: np.ndarray  # (n, m1) int: the obstacle cells of leg 1 (``near_cells``)
    near2: np.ndarray  # (n, m2) int: those of leg 2

    @property
    def n(self) -> int:
        return int(self.pin.shape[0])


def _carom_rows(totals):
    rows = []
    for total in totals:
        for k1 in range(total + 1):
            for c1 in cells(k1):
                for c2 in cells(total - k1):
                    for first in (0, 1):
                        for side in (1, -1):
                            for stun in ((False, True) if k1 == 0 else (False,)):
                                rows.append((False, stun, first, side, tuple(c1), tuple(c2), total))
    return rows


def _pin_rows(bank_max):
    rows = []
    for k1 in range(bank_max + 1):
        for c1 in cells(k1):
            for target in (0, 1):
                rows.append((True, False, target, 1, tuple(c1), (0, 0), k1))
    return rows


def line_cushions(ruleset) -> int:
    """The cue-ball cushions the rules require, as a Python int: it sets the shape of the line
    tables, so a planner needs it concrete. Inside a trace over the rules (a planner as an
    environment's built-in opponent) the environment fixes it when it is built
    (``billiards_env.modes.StatePolicy``); elsewhere a traced value is a ValueError."""
    try:
        return int(ruleset.cushions_required)
    except jax.errors.ConcretizationTypeError:
        raise ValueError("a planner needs rules.cushions_required as a concrete number (it sets the shape of its "
                         "line tables), not a traced value; pass the rules from outside jit or vmap") from None


def line_table_for(ruleset, light: bool = False) -> "LineTable":
    """The lines for a discipline's rules (see ``line_table``)."""
    return line_table(line_cushions(ruleset), ruleset.is_hungarian, light)


@functools.lru_cache(maxsize=None)
def line_table(cushions: int, hungarian: bool, light: bool = False) -> LineTable:
    """The lines for a game that asks for ``cushions`` cue-ball cushions before the carom, with
    pin lines for the Hungarian game (static, cached). ``light``: only the fewest-cushion carom
    lines (for judging many positions at once, e.g. the search's position term)."""
    k = int(cushions)
    totals = (k,) if light else (k, k + 1)
    rows = _carom_rows(totals)
    if hungarian and not light:
        rows += _pin_rows(2)
    pin, stun, first, side, c1, c2, cush = (np.asarray(x) for x in zip(*rows))
    reach = int(max(np.abs(c1).max(), np.abs(c2).max()))
    c1, c2 = c1.astype(np.int32).reshape(-1, 2), c2.astype(np.int32).reshape(-1, 2)
    grid = cells_within(max(reach, 1))
    return LineTable(pin.astype(bool), stun.astype(bool), first.astype(np.int32), side.astype(np.int32),
                     c1, c2, cush.astype(np.int32), int(k), reach, near_cells(c1, grid), near_cells(c2, grid))


def near_cells(ends: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """(n, m) int: for a leg from the real table (cell (0, 0)) into cell ``ends[i]``, the indices
    in ``grid`` of the cells that can hold an obstacle within reach of it, padded with
    ``len(grid)`` (no cell). The leg stays in the box of cells between (0, 0) and its end, and a
    cell that does not touch that box is a whole table length or width away from it, far beyond
    any ball's reach; so checking only the box and the cells around it decides the same as
    checking every cell of the grid, about a third of them for three-cushion lines."""
    lo = np.minimum(ends, 0)[:, None, :] - 1
    hi = np.maximum(ends, 0)[:, None, :] + 1
    near = np.all((grid[None] >= lo) & (grid[None] <= hi), axis=-1)  # (n, K)
    m = int(near.sum(-1).max())
    out = np.full((len(ends), m), len(grid), np.int32)
    for i, row in enumerate(near):
        idx = np.flatnonzero(row)
        out[i, :len(idx)] = idx
    return out


def rail_box(params):
    """(lo (2,), size (2,)): the box the ball centres live in (see the module docstring)."""
    reach = params.cushion_reach
    lo = jnp.stack([reach, reach])
    size = jnp.stack([params.table.length - 2 * reach, params.table.width - 2 * reach])
    return lo, size


def image(p, cell, lo, size):
    """The image of point(s) p (..., 2) in unfolded cell(s) (..., 2)."""
    u = p - lo
    odd = (cell % 2) != 0
    return lo + cell * size + jnp.where(odd, size - u, u)


def parity(cell):
    """(..., 2) +-1: how a direction in the unfolded plane maps back onto the real table."""
    return jnp.where((cell % 2) != 0, -1.0, 1.0)


def _unit(v):
    n = jnp.linalg.norm(v, axis=-1, keepdims=True)
    return v / jnp.where(n > 0, n, 1.0), n[..., 0]


def segment_distance(a, b, p):
    """Distance from point(s) p to the segment a-b; broadcasting over leading axes."""
    ab = b - a
    t = jnp.sum((p - a) * ab, -1) / jnp.maximum(jnp.sum(ab * ab, -1), 1e-12)
    t = jnp.clip(t, 0.0, 1.0)
    return jnp.linalg.norm(a + t[..., None] * ab - p, axis=-1)


def object_balls(cue):
    """(2,) int: the two object balls of cue ball ``cue`` (0, 1 or 2), lower index first."""
    return jnp.asarray([[1, 2], [0, 2], [0, 1]], jnp.int32)[cue]


def strike_gain(params, b):
    """The ball's speed per unit of cue speed from a level, centre-line strike at tip offset b
    (fraction of R): 2M/(M+m) for a centre hit (TP A-30), less as the offset turns some of the
    impulse into spin."""
    m, M, R = params.ball.mass, params.cue.mass, params.ball.radius
    return (1.0 + params.cue.tip_restitution) / m / (1.0 / M + 1.0 / m + b**2 * R**2 / params.ball.inertia)


def cue_speed_for(ball_speed, params, b):
    """Cue speed V0 that gives a level, centre-line cue ball (offset b) the rolling speed
    ``ball_speed``: the strike gives ``strike_gain`` V0, rolling keeps 5/7 of it."""
    return ball_speed / (strike_gain(params, b) * 5.0 / 7.0)


def _travel(v_end, length):
    """Speed needed at the start of a rolling path of ``length`` to end at ``v_end``."""
    return jnp.sqrt(v_end**2 + 2.0 * ROLLING_DECEL * length)


def _clear(a, b, obstacles, radius):
    """(...,) bool: the segment a-b keeps ``radius`` from every obstacle; obstacles (..., K, 2),
    with a NaN row for an obstacle to ignore."""
    d = segment_distance(a[..., None, :], b[..., None, :], obstacles)
    return jnp.all(jnp.where(jnp.isnan(d), jnp.inf, d) >= radius, axis=-1)


def cross(u, v):
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def departure(arrive, centres, spin):
    """The cue ball's direction once it rolls again after hitting a ball (unnormalised), and
    with it the share of its contact speed it keeps.

    arrive: (..., 2) unit direction at the contact; centres: (..., 2) unit line of centres
    (cue ball to object ball); spin: (...,) its forward spin at the contact as a fraction of
    rolling (0 stun, 1 rolling). Equal balls, no ball-ball friction: the cue ball keeps the
    tangent part of its velocity, v sin(cut) t, and its spin; cloth friction then adds
    (2/7) of the spin's rolling velocity, s v d, and keeps 5/7 of the slip along t, so it
    rolls along ((5/7 + 2/7 s) sin(cut) t + (2/7) s cos(cut) n) v, the "30-degree rule" for s = 1.
    """
    cos_cut = jnp.sum(arrive * centres, -1)
    tangent = arrive - cos_cut[..., None] * centres
    s = spin[..., None]
    return (5.0 / 7.0) * tangent + (2.0 / 7.0) * s * arrive


def _spin_at_contact(ball_speed, length, u_s, g):
    """Forward spin (fraction of rolling) of a centre-struck ball after ``length`` of sliding
    (it rolls from 12 v^2 / (49 u_s g) on; before, spin grows by 5/2 u_s g t / R)."""
    a = u_s * g
    rolls = length >= 12.0 * ball_speed**2 / (49.0 * a)
    disc = jnp.maximum(ball_speed**2 - 2.0 * a * length, 0.0)
    t = (ball_speed - jnp.sqrt(disc)) / a
    s = 2.5 * a * t / jnp.maximum(ball_speed - a * t, 1e-6)
    return jnp.where(rolls, 1.0, jnp.clip(s, 0.0, 1.0))


@pytree_dataclass
class Lines:
    """The lines of one position. Shapes (n_lines,): quality in [0, 1], the strike (V0, phi, b),
    the ball the cue ball must hit first (int), and for information the cut angle (degrees) and
    the cue ball's path length (m)."""

    quality: jnp.ndarray
    first_ball: jnp.ndarray
    V0: jnp.ndarray
    phi: jnp.ndarray
    b: jnp.ndarray
    cut_deg: jnp.ndarray
    length: jnp.ndarray


CONTACT_SAMPLES = 72  # points round the first object ball where the rolling model is solved


def _slide_offset(arrive, centres, spin, v_contact, u_s, g):
    """(..., 2) where the cue ball's final straight line starts, relative to the contact.

    Between the contact and rolling again the ball slides with a constant friction direction,
    so its path is a parabola from velocity v_t (the tangent part) to v_f (``departure``):
    it starts rolling at (v_t + v_f) / 2 * t_r, t_r = |v_f - v_t| / (u_s g).
    """
    cos_cut = jnp.sum(arrive * centres, -1)
    v_t = (arrive - cos_cut[..., None] * centres) * v_contact[..., None]
    v_f = departure(arrive, centres, spin) * v_contact[..., None]
    t_r = jnp.linalg.norm(v_f - v_t, axis=-1) / (u_s * g)
    return 0.5 * (v_t + v_f) * t_r[..., None]


def _rolling_contacts(O1, Q, C, cell1, spin, v_contact, rank, lo, size, R, u_s, g):
    """Ghost balls G (n, 2) for the rolling model: the contact points round O1 from which the
    cue ball, arriving from C through cell1 at ``v_contact``, rolls off towards Q (its curve
    included). Found by sampling the circle of radius 2R and interpolating sign changes of the
    aiming error; ``rank`` (n,) picks the first or second root (by how full the hit is).
    Returns (G, found)."""
    n = O1.shape[0]
    psi = jnp.linspace(-jnp.pi, jnp.pi, CONTACT_SAMPLES + 1)  # closed circle
    ring = 2 * R * jnp.stack([jnp.cos(psi), jnp.sin(psi)], -1)  # (P+1, 2)

    def error(G):
        aim, _ = _unit(image(G, cell1[:, None], lo, size) - C)
        arrive = aim * parity(cell1)[:, None]
        centres, _ = _unit(O1[:, None] - G)
        cos_cut = jnp.sum(arrive * centres, -1)
        dep_u, _ = _unit(departure(arrive, centres, spin[:, None]))
        start = G + _slide_offset(arrive, centres, spin[:, None], v_contact[:, None], u_s, g)
        want, _ = _unit(Q[:, None] - start)
        ok = (cos_cut > jnp.cos(jnp.radians(MAX_CUT_DEG))) & (jnp.sum(dep_u * want, -1) > 0)
        return cross(dep_u, want), ok, cos_cut

    G = O1[:, None] + ring[None]  # (n, P+1, 2)
    e, ok, cos_cut = error(G)
    crossing = ok[:, :-1] & ok[:, 1:] & (jnp.sign(e[:, :-1]) != jnp.sign(e[:, 1:]))
    frac = e[:, :-1] / jnp.where(crossing, e[:, :-1] - e[:, 1:], 1.0)
    psi_root = psi[:-1] + jnp.clip(frac, 0.0, 1.0) * (psi[1] - psi[0])
    fullness = jnp.where(crossing, cos_cut[:, :-1], -jnp.inf)
    top, idx = jax.lax.top_k(fullness, 2)
    pick = jnp.take_along_axis(idx, rank[:, None], 1)[:, 0]
    found = jnp.isfinite(jnp.take_along_axis(top, rank[:, None], 1)[:, 0])
    angle = psi_root[jnp.arange(n), pick]
    G = O1 + 2 * R * jnp.stack([jnp.cos(angle), jnp.sin(angle)], -1)
    e_root, ok_root, _ = error(G[:, None])
    return G, found & ok_root[:, 0] & (jnp.abs(e_root[:, 0]) < 0.05)


def lines(table: LineTable, positions, cue, params, pin_position=None, pin_radius=0.01,
          check_obstacles=True, rolling=True, pin_stands=True) -> Lines:
    """Evaluate every line of ``table`` from ``positions`` (3, 2) with cue ball ``cue``.

    pin_position: (2,) where the pin stands (pin lines, and an obstacle for every line), or None.
    pin_stands: () bool, False when the pin is down or off the table (``rules.pin.in_play``):
    no pin line is possible and the pin blocks nothing.
    rolling: solve the contact with the cue ball's spin at the contact (``departure``); False:
    the closed-form stun ghost ball only (cheaper). Pure jnp: jit and vmap it over positions.
    """
    dtype = positions.dtype
    R = params.ball.radius
    lo, size = rail_box(params)
    hi = lo + size
    obj = object_balls(cue)
    first_idx = obj[jnp.asarray(table.first)]
    second_idx = obj[1 - jnp.asarray(table.first)]
    C = positions[cue]
    O1 = positions[first_idx]  # (n, 2)
    O2 = positions[second_idx]
    cell1 = jnp.asarray(table.cell1)
    cell2 = jnp.asarray(table.cell2)
    side = jnp.asarray(table.side, dtype)
    is_pin = jnp.asarray(table.pin)
    pin = jnp.zeros((2,), dtype) if pin_position is None else jnp.asarray(pin_position, dtype)
    has_pin = pin_position is not None
    k1 = jnp.sum(jnp.abs(cell1), -1)
    k2 = jnp.sum(jnp.abs(cell2), -1)
    keep = CUSHION_KEEP
    rho = 2 * R

    # Carom, stun: ghost ball on the 2R circle round O1 and the Thales circle over O1-Q.
    Q = image(O2, cell2, lo, size)
    u, D = _unit(Q - O1)
    a_ = rho**2 / jnp.maximum(D, rho)
    h = jnp.sqrt(jnp.maximum(rho**2 - a_**2, 0.0))
    n_perp = jnp.stack([-u[:, 1], u[:, 0]], -1)
    G_carom = O1 + a_[:, None] * u + (side * h)[:, None] * n_perp
    spin = jnp.zeros_like(D)
    found = D > rho
    if rolling:
        # The stun line's speed tells how much the cue ball rolls by the contact; then solve
        # the contact again with that spin (after a cushion, take it as rolling).
        _, L1_stun = _unit(image(G_carom, cell1, lo, size) - C)
        _, L2_stun = _unit(Q - G_carom)
        v_contact = _travel(ARRIVAL_SPEED, L2_stun) / keep**k2 / 0.5
        ball_speed = _travel(v_contact, L1_stun) / keep**k1 * 7.0 / 5.0
        spin = jnp.where(k1 > 0, 1.0, _spin_at_contact(ball_speed, L1_stun, params.ball.u_s, params.g))
        spin = jnp.where(jnp.asarray(table.stun), 0.0, spin)
        rank = jnp.where(side > 0, 0, 1)
        G_carom, found = _rolling_contacts(O1, Q, C, cell1, spin, v_contact, rank, lo, size, R,
                                           params.ball.u_s, params.g)
    # Pin: ghost ball behind the target on the line target -> pin.
    e_pin, pin_dist = _unit(pin - O1)
    G_pin = O1 - rho * e_pin
    G = jnp.where(is_pin[:, None], G_pin, G_carom)

    G_img = image(G, cell1, lo, size)
    aim, L1 = _unit(G_img - C)
    phi = jnp.degrees(jnp.arctan2(aim[:, 1], aim[:, 0]))
    arrive = aim * parity(cell1)  # direction at the contact, on the real table
    centres, _ = _unit(O1 - G)
    cos_cut = jnp.sum(arrive * centres, -1)
    cut = jnp.degrees(jnp.arccos(jnp.clip(cos_cut, -1.0, 1.0)))
    dep = departure(arrive, centres, spin)
    dep_u, dep_keep = _unit(dep)
    _, L2 = _unit(Q - G)
    carom_ok = found & (cut < MAX_CUT_DEG)
    if not rolling:
        carom_ok = carom_ok & (jnp.sum(dep_u * _unit(Q - G)[0], -1) > 0.99)
    pin_ok = (cut < MAX_PIN_CUT_DEG) & (pin_dist > rho)
    ok = jnp.where(is_pin, pin_ok & pin_stands, carom_ok) & jnp.all((G >= lo) & (G <= hi), axis=-1)
    ok = ok & (L1 > 1e-6)

    if check_obstacles:
        # Each body's images in every cell of the grid, once, and a NaN row for "no cell"; each
        # leg is checked against the cells near it only (``near_cells``: the same verdicts).
        grid = cells_within(max(table.reach, 1))  # (K, 2)
        bodies = jnp.concatenate([positions, pin[None]])  # balls 0-2, then the pin
        imgs = image(bodies[:, None, :], jnp.asarray(grid), lo, size)  # (4, K, 2)
        imgs = jnp.concatenate([imgs, jnp.full((4, 1, 2), jnp.nan, dtype)], axis=1)
        near1, near2 = jnp.asarray(table.near1), jnp.asarray(table.near2)
        at = lambda body, near: imgs[body[:, None], near]  # noqa: E731  (n, m, 2)
        cell_at = lambda near: grid[np.minimum(near, len(grid) - 1)]  # noqa: E731  (n, m, 2), NumPy
        own1 = jnp.asarray(np.all(cell_at(table.near1) == table.cell1[:, None], -1))  # the contact's cell
        own2 = jnp.asarray(np.all(cell_at(table.near2) == table.cell2[:, None], -1))
        home2 = jnp.asarray(np.all(cell_at(table.near2) == 0, -1))
        # Leg 1: the cue ball must not meet the other object ball, nor O1 before the contact.
        o1_imgs = jnp.where(own1[..., None], jnp.nan, at(first_idx, near1))
        ok = ok & _clear(C, G_img, at(second_idx, near1), rho * 0.999) & _clear(C, G_img, o1_imgs, rho * 0.999)
        # Leg 2 (carom): from G to the second ball's image, missing O1 again and other images of O2.
        o2_others = jnp.where(own2[..., None], jnp.nan, at(second_idx, near2))
        o1_again = jnp.where(home2[..., None], jnp.nan, at(first_idx, near2))
        leg2 = _clear(G, Q, o2_others, rho * 0.999) & _clear(G, Q, o1_again, rho * 0.999)
        # Pin line: the target's way to the pin must miss the other object ball.
        target_way = segment_distance(O1, pin, O2) >= rho
        ok = ok & jnp.where(is_pin, target_way, leg2)
        if has_pin:
            reach = R + pin_radius  # the pin's images are row 3 of imgs
            clear = _clear(C, G_img, imgs[3, near1], reach) & (is_pin | _clear(G, Q, imgs[3, near2], reach))
            ok = ok & (clear | ~pin_stands)

    # Speeds, backwards from the end of the line (see the module docstring).
    v_depart = _travel(ARRIVAL_SPEED, L2) / keep**k2
    v_contact_carom = v_depart / jnp.maximum(dep_keep, 0.2)
    e_b = params.ball.e_b
    v_target = _travel(PIN_ARRIVAL_SPEED, jnp.maximum(pin_dist - R - pin_radius, 0.0))
    v_contact_pin = v_target / (jnp.maximum(cos_cut, 0.3) * (1 + e_b) / 2)
    v_contact = jnp.where(is_pin, v_contact_pin, v_contact_carom)
    v_start = _travel(v_contact, L1) / keep**k1
    # Stun lines: the draw whose backspin has just worn off at the contact. A centre-struck ball
    # of speed v sliding a distance L with backspin from tip height b (fraction of R) loses it
    # when L u_s g / v^2 = -b - b^2 / 2.
    x = L1 * params.ball.u_s * params.g / (v_start * 7.0 / 5.0) ** 2
    b_stun = jnp.sqrt(jnp.maximum(1.0 - 2.0 * x, 0.0)) - 1.0
    stun_ok = b_stun >= -STUN_DRAW_MAX
    stun = jnp.asarray(table.stun)
    b = jnp.where(is_pin, PIN_DRAW, jnp.where(stun, jnp.maximum(b_stun, -STUN_DRAW_MAX), CAROM_DRAW))
    ok = ok & ~(stun & ((k1 > 0) | ~stun_ok))
    V0 = cue_speed_for(v_start, params, b)
    feasible = V0 <= 0.9 * params.cue.max_speed
    V0 = jnp.clip(V0, 0.5, 0.9 * params.cue.max_speed)

    length = L1 + jnp.where(is_pin, 0.0, L2)
    cut_factor = jnp.where(is_pin, jnp.cos(jnp.radians(cut)), jnp.sqrt(jnp.abs(jnp.sin(jnp.radians(2 * cut)))))
    extra = jnp.asarray(table.cushions) - jnp.where(is_pin, 0, table.min_cushions)
    quality = jnp.exp(-length / PATH_SCALE) * cut_factor * jnp.exp(-CUSHION_PENALTY * jnp.maximum(extra, 0))
    quality = quality * jnp.exp(-jnp.where(is_pin, PIN_BANK_PENALTY, BANK_PENALTY) * k1)
    quality = jnp.where(ok & feasible, quality, 0.0)
    quality = jnp.where(jnp.isfinite(quality), quality, 0.0)
    return Lines(quality=quality, first_ball=first_idx, V0=V0, phi=phi, b=jnp.broadcast_to(b, phi.shape),
                 cut_deg=cut, length=length)


def line_values(table: LineTable, hungarian: bool, dtype):
    """(n_lines,) what a line scores if it works: 1 per carom; Hungarian 10 per carom, 50 per pin."""
    if not hungarian:
        return jnp.ones((table.n,), dtype)
    return jnp.where(jnp.asarray(table.pin), PIN_POINTS_HUNGARIAN, CAROM_POINTS_HUNGARIAN).astype(dtype)
