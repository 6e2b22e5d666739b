"""Ball-cushion impact after Mathavan, Jackson & Parkin (2010), integrated in the normal impulse.

S. Mathavan, M. R. Jackson, R. M. Parkin, "A theoretical analysis of billiard ball dynamics under
cushion impacts", Proc. IMechE Part C 224(9), 1863-1873 (2010). Equation numbers in the code are the
paper's as quoted in open summaries of it (the full text was not at hand); every equation was
re-derived here from the rigid-body impulse balance and agrees with them.

A ball meets a rigid cushion whose nose touches it at an angle theta above its equator while it also
touches the bed; both contacts have Coulomb friction (f_c at the nose, the cloth's u_s at the bed),
each against its own changing slip. The normal impulse at the nose is the independent variable:
compression runs until the centre stops moving into the cushion, and restitution until the work it
returns is e_c^2 times the work of compression (without friction, vy_after = -e_c vy_before). The
centre's vertical velocity is held at zero (the bed's normal impulse clipped at zero: it cannot
pull); the cushion is rigid (valid up to about 2.5 m/s normal speed); rolling at a contact is
resolved as Coulomb sticking.

``resolve(v, w, normal, params, *, steps=STEPS)`` integrates it in a fixed number of steps per phase
(one ``lax.fori_loop``), each step's length chosen so that the phases end exactly. The equations
(with the paper's numbers), the integrator and its measured accuracy (worst about 1e-4 relative
against a 3,200-step run) are in docs/physics.md section 2, "The Mathavan et al. (2010) impact".
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

STEPS = 200  # integration steps per phase
_PASSES = 2  # fixed-point passes per step for the friction directions and the step length
_CUTS = 8  # steps that may be cut short where a slip passes through zero


def _hypot(x, y):
    return jnp.sqrt(x * x + y * y)


def _average_direction(ax, ay, bx, by):
    """Mean over t in [0, 1] of the unit vector of a + t b (2-vectors); 0 where a = b = 0.

    With b = |b| e and a = p0 e + t_perp e_perp (e_perp = e rotated +90 deg), the mean is
    e (|a + b| - |a|) / |b| + e_perp t_perp (asinh(p1/|t_perp|) - asinh(p0/|t_perp|)) / |b|,
    p1 = p0 + |b|; both terms are evaluated without cancellation.
    """
    dtype = ax.dtype
    tiny = jnp.asarray(1e-30, dtype)
    na = _hypot(ax, ay)
    nb = _hypot(bx, by)
    n1 = _hypot(ax + bx, ay + by)

    use_path = nb > 1e-3 * jnp.finfo(dtype).eps * na
    nbs = jnp.where(use_path, nb, 1.0)
    ex, ey = bx / nbs, by / nbs
    p0 = ax * ex + ay * ey
    p1 = p0 + nb
    tp = ay * ex - ax * ey  # a . e_perp, e_perp = (-ey, ex)
    d = jnp.abs(tp)
    n_sum = jnp.where(na + n1 > 0, na + n1, 1.0)
    along = (2.0 * p0 + nb) / n_sum  # (|a+b| - |a|) / |b|

    # transverse integral G / |b| = (asinh(p1/d) - asinh(p0/d)) / |b|
    same = (p0 >= 0) | (p1 <= 0)
    sgn = jnp.where(p0 >= 0, 1.0, -1.0)
    den = jnp.where(sgn * p0 + na > 0, sgn * p0 + na, 1.0)
    x_over_nb = (sgn + (2.0 * p0 + nb) / n_sum) / den
    x = x_over_nb * nb
    x_safe = jnp.where(jnp.abs(x) > 1e-4, x, 1.0)
    # log1p(x)/x, with a series near 0 (error < 1e-12 for |x| <= 1e-4)
    # (x = -1 only where the path ends exactly at zero slip; clamped so it stays finite)
    eps = jnp.finfo(dtype).eps
    l1p = jnp.where(jnp.abs(x) > 1e-4, jnp.log1p(jnp.maximum(x_safe, -1.0 + eps)) / x_safe,
                    1.0 - x / 2.0 + x * x / 3.0)
    g_same = sgn * l1p * x_over_nb
    ds = jnp.maximum(d, tiny * (na + nb))
    ds = jnp.where(ds > 0, ds, 1.0)
    g_cross = (jnp.arcsinh(p1 / ds) + jnp.arcsinh(-p0 / ds)) / nbs
    transverse = jnp.where(d > 0, tp * jnp.where(same, g_same, g_cross), 0.0)
    px = along * ex - transverse * ey
    py = along * ey + transverse * ex

    # b negligible: the direction of a
    nas = jnp.where(na > 0, na, 1.0)
    qx = jnp.where(na > 0, ax / nas, 0.0)
    qy = jnp.where(na > 0, ay / nas, 0.0)
    return jnp.where(use_path, px, qx), jnp.where(use_path, py, qy)


class _Model:
    """The impact equations in the cushion frame, in scaled units (velocities only).

    State: (vx, vy, ux, uy, uz) with u = R w; impulses per unit mass (p = P_I / M). All
    friction quantities are per unit normal impulse at the cushion.
    """

    def __init__(self, s, c, mu_w, mu_s):
        self.s, self.c, self.mu_w, self.mu_s = s, c, mu_w, mu_s
        dtype = s.dtype
        self.tol = 1.0 + 64.0 * jnp.finfo(dtype).eps
        self.q = 1.0 - 2.5 * s  # x coupling of the two contacts
        self.r = 2.5 - s  # y coupling
        self.m = s * s + 2.5  # y' self term at I (the bed takes the vertical part)

    # --- kinematics ---------------------------------------------------------------------------
    def slips(self, y):
        vx, vy, ux, uy, uz = y
        s, c = self.s, self.c
        return (vx + s * uy - c * uz, -s * vy + ux), (vx - uy, vy + ux)

    def derivative(self, f, g):
        """d(state)/dp for friction f (at I, axes x, y') and g (at C, axes x, y)."""
        s, c = self.s, self.c
        fx, fy = f
        gx, gy = g
        return (fx + gx, -c - s * fy + gy, 2.5 * (fy + gy), 2.5 * (s * fx - gx), -2.5 * c * fx)

    def slip_rates(self, f, g):
        s, c, q, r, m = self.s, self.c, self.q, self.r, self.m
        fx, fy = f
        gx, gy = g
        return ((3.5 * fx + q * gx, s * c + m * fy + r * gy),
                (q * fx + 3.5 * gx, -c + r * fy + 3.5 * gy))

    def normal_rate(self, f, g):
        """k = -dvy/dp > 0."""
        return jnp.maximum(self.c + self.s * f[1] - g[1], 1e-3)

    def bed_normal(self, fy):
        return jnp.maximum(self.s - self.c * fy, 0.0)

    # --- friction over one step -----------------------------------------------------------------
    def friction(self, aI, aC, h, bI, bC, f_prev, g_prev):
        """Constant friction (f, g) for a step of length h from slips aI, aC.

        bI, bC: the predicted slip changes over the step; f_prev, g_prev: the previous estimate.
        """
        s, c, q, r, m = self.s, self.c, self.q, self.r, self.m
        mw, ms, tol = self.mu_w, self.mu_s, self.tol
        hs = jnp.where(h > 0, h, 1.0)
        aIx, aIy = aI[0] / hs, aI[1] / hs
        aCx, aCy = aC[0] / hs, aC[1] / hs

        # sliding directions: the mean of the Coulomb direction along the straight slip path,
        # except where the slip is small against what friction changes in one step (stiff: coming
        # to rest, at rest, or leaving rest; a slip passing through zero is cut there by
        # _impact). There the direction of the end-of-step slip (implicit, as in Moreau's time
        # stepping), which brings a slip to rest without chattering and starts it off along the
        # direction it keeps.
        uIx, uIy = _average_direction(aI[0], aI[1], bI[0], bI[1])
        cIx, cIy = aI[0] + h * q * g_prev[0], aI[1] + h * (s * c + r * g_prev[1])  # no own friction
        vIx, vIy = _implicit_direction(cIx, cIy, 3.5 * h, m * h, mw)
        stiff_i = _hypot(*aI) < 3.5 * mw * h
        uIx, uIy = jnp.where(stiff_i, vIx, uIx), jnp.where(stiff_i, vIy, uIy)
        f_ss = (-mw * uIx, -mw * uIy)
        n_ss = self.bed_normal(f_ss[1])

        uCx, uCy = _average_direction(aC[0], aC[1], bC[0], bC[1])
        cx, cy = aC[0] + h * q * f_prev[0], aC[1] + h * (-c + r * f_prev[1])  # C is isotropic
        ncc = _hypot(cx, cy)
        ncs = jnp.where(ncc > 0, ncc, 1.0)
        stiff_c = (_hypot(*aC) < 3.5 * ms * n_ss * h) & (ncc > 0)
        uCx, uCy = jnp.where(stiff_c, cx / ncs, uCx), jnp.where(stiff_c, cy / ncs, uCy)

        # both slide
        g_ss = (-ms * n_ss * uCx, -ms * n_ss * uCy)

        # I sticks (ends the step with zero slip), C slides
        f_is, g_is = self._i_sticks(aIx, aIy, uCx, uCy)
        hold_i = _hypot(*self._i_sticks(0.0, 0.0, uCx, uCy)[0]) <= mw * tol  # zero slip held
        ok_is = (_hypot(*f_is) <= mw * tol) & hold_i

        # I slides, C sticks
        g_cs = self._c_sticks(aCx, aCy, f_ss)
        hold_c = _hypot(*self._c_sticks(0.0, 0.0, f_ss)) <= ms * n_ss * tol  # zero slip held
        ok_cs = (_hypot(*g_cs) <= ms * n_ss * tol) & hold_c

        # both stick
        f_bb, g_bb, ok_bb = self._both_stick(aIx, aIy, aCx, aCy)
        ok_bb = ok_bb & self._both_stick(0.0, 0.0, 0.0, 0.0)[2]

        def pick(bb, is_, cs, ss):
            return jnp.where(ok_bb, bb, jnp.where(ok_is, is_, jnp.where(ok_cs, cs, ss)))

        f = tuple(pick(f_bb[i], f_is[i], f_ss[i], f_ss[i]) for i in range(2))
        g = tuple(pick(g_bb[i], g_is[i], g_cs[i], g_ss[i]) for i in range(2))
        return f, g

    def _i_sticks(self, ax, ay, uCx, uCy):
        """Friction when I ends the step at rest (slip/h = (ax, ay) now) and C slides along uC."""
        s, c, q, r, m, ms = self.s, self.c, self.q, self.r, self.m, self.mu_s
        den = m + r * ms * c * uCy
        fy_lin = (-ay - s * c + r * ms * s * uCy) / jnp.maximum(den, 0.1)
        n = self.bed_normal(fy_lin)
        gx, gy = -ms * n * uCx, -ms * n * uCy
        return ((-ax - q * gx) / 3.5, (-ay - s * c - r * gy) / m), (gx, gy)

    def _c_sticks(self, ax, ay, f):
        """Friction at C when C ends the step at rest and I's friction is f."""
        return ((-ax - self.q * f[0]) / 3.5, (-ay + self.c - self.r * f[1]) / 3.5)

    def _both_stick(self, ax_i, ay_i, ax_c, ay_c):
        """Both contacts end the step at rest: two symmetric 2x2 systems (x and y components)."""
        s, c, q, r, m = self.s, self.c, self.q, self.r, self.m
        mw, ms, tol = self.mu_w, self.mu_s, self.tol
        det_x = 12.25 - q * q
        fx = (-3.5 * ax_i + q * ax_c) / det_x
        gx = (-3.5 * ax_c + q * ax_i) / det_x
        r1, r2 = -ay_i - s * c, -ay_c + c
        det_y = 2.5 * (1.0 + s) ** 2
        fy = (3.5 * r1 - r * r2) / det_y
        gy = (m * r2 - r * r1) / det_y
        n = s - c * fy
        ok = (_hypot(fx, fy) <= mw * tol) & (n >= 0) & (_hypot(gx, gy) <= ms * n * tol)
        return (fx, fy), (gx, gy), ok

    def step(self, y, h, f, g, length):
        """Constant-friction step; ``length(k)`` gives the step in p for the normal rate k.

        h, f, g: the previous step's length and friction (first guesses).
        """
        aI, aC = self.slips(y)

        def one_pass(_, hfg):
            h, f, g = hfg
            rI, rC = self.slip_rates(f, g)
            f, g = self.friction(aI, aC, h, (h * rI[0], h * rI[1]), (h * rC[0], h * rC[1]), f, g)
            return length(self.normal_rate(f, g)), f, g

        h, f, g = lax.fori_loop(0, _PASSES, one_pass, (h, f, g))
        dy = self.derivative(f, g)
        return tuple(yi + h * di for yi, di in zip(y, dy)), h, f, g


def _implicit_direction(cx, cy, dx, dy, mu):
    """Unit slip direction u with f = -mu u and c + diag(dx, dy) f parallel to u (dx >= dy > 0).

    That is, f = -(diag(dx, dy) + kappa)^-1 c with |f| = mu, kappa >= 0 (Newton on 1/|f|, which is
    linear in kappa when dx = dy); kappa = 0 if the end slip can be stopped.
    """
    nc = _hypot(cx, cy)
    kappa = jnp.maximum(nc / mu - dx, 0.0)
    for _ in range(3):
        ex, ey = dx + kappa, dy + kappa
        ex, ey = jnp.where(ex > 0, ex, 1.0), jnp.where(ey > 0, ey, 1.0)
        fx, fy = cx / ex, cy / ey
        nf = _hypot(fx, fy)
        nfs = jnp.where(nf > 0, nf, 1.0)
        psi = 1.0 / nfs - 1.0 / mu
        dpsi = (fx * fx / ex + fy * fy / ey) / nfs**3
        kappa = jnp.maximum(kappa - psi / jnp.where(dpsi > 0, dpsi, 1.0), 0.0)
    ex, ey = dx + kappa, dy + kappa
    fx = cx / jnp.where(ex > 0, ex, 1.0)
    fy = cy / jnp.where(ey > 0, ey, 1.0)
    nf = _hypot(fx, fy)
    nfs = jnp.where(nf > 0, nf, 1.0)
    return jnp.where(nf > 0, fx / nfs, 0.0), jnp.where(nf > 0, fy / nfs, 0.0)


def _crossing(a, r, h, rest):
    """Impulse (per unit mass) at which the slip a + p r comes closest to zero, or inf unless that
    is ahead, and the slip turns there: its closest approach is under a quarter of the larger of
    |a| and |a + h r| (the slip now and at the end of a step h)."""
    rr = r[0] * r[0] + r[1] * r[1]
    tau = -(a[0] * r[0] + a[1] * r[1]) / jnp.where(rr > 0, rr, 1.0)
    na = _hypot(*a)
    miss = _hypot(a[0] + tau * r[0], a[1] + tau * r[1])
    far = jnp.maximum(na, _hypot(a[0] + h * r[0], a[1] + h * r[1]))
    ok = (rr > 0) & (tau > 0) & (na > rest) & (miss <= 0.25 * far)
    return jnp.where(ok, tau, jnp.inf)


def _impact(y0, s, c, mu_w, mu_s, e, steps):
    """Integrate compression and restitution from the scaled cushion-frame state y0 (vy0 >= 0).

    Targets: ``steps`` equal decrements of vy down to 0 (compression), then ``steps`` equal
    increments of sigma = sqrt(restitution work) up to e sqrt(W_c). A step that would carry a
    slip through zero is cut where the slip is smallest, and the target is reached by the next
    step (at most _CUTS cuts; the loop runs 2 * steps + _CUTS times, spare steps are empty).
    """
    model = _Model(s, c, mu_w, mu_s)
    vy0 = y0[1]
    zero = jnp.zeros_like(vy0)
    rest = 64.0 * jnp.finfo(vy0.dtype).eps

    def body(i, carry):
        y, work_c, work_r, h, f, g, j, cuts = carry
        active = j < 2 * steps
        compressing = j < steps
        jf = j.astype(vy0.dtype)
        # compression target vy = vy0 (1 - (j + 1) / steps)
        dv = jnp.maximum(y[1] - vy0 * (1.0 - (jf + 1.0) / steps), 0.0)
        # restitution target: work = sigma^2, sigma = (j + 1 - steps) e sqrt(W_c) / steps
        sig = (jf + 1.0 - steps) * e * jnp.sqrt(jnp.maximum(work_c, 0.0)) / steps
        dw = jnp.maximum(sig * sig - work_r, 0.0)
        qc = -y[1] * c

        def to_target(k):
            den = qc + jnp.sqrt(jnp.maximum(qc * qc + 2.0 * k * c * dw, 0.0))
            rest_len = jnp.where(den > 0, 2.0 * dw / jnp.where(den > 0, den, 1.0), 0.0)
            return jnp.where(active, jnp.where(compressing, dv / k, rest_len), 0.0)

        # does a slip pass through zero before the target (at the previous step's friction)?
        aI, aC = model.slips(y)
        rI, rC = model.slip_rates(f, g)
        k_prev = model.normal_rate(f, g)
        h_full = to_target(k_prev)
        tau = jnp.minimum(_crossing(aI, rI, h_full, rest), _crossing(aC, rC, h_full, rest))
        tau_s = jnp.where(jnp.isfinite(tau), tau, 0.0)
        # ... before it (up to the change of the normal rate k within the step; the friction has
        # no reason to turn before the crossing, so k hardly changes, and a slight overshoot of a
        # target only makes the next step empty)
        k_hi = 1.02 * k_prev
        safe = jnp.where(compressing, tau_s * k_hi < dv,
                         c * tau_s * (-y[1] + 0.5 * k_hi * tau_s) < dw)
        cut = active & (cuts < _CUTS) & jnp.isfinite(tau) & safe

        def length(k):
            return jnp.where(cut, tau_s, to_target(k))

        y_new, h, f, g = model.step(y, jnp.where(cut, tau_s, h), f, g, length)
        # work of the normal force at I, eq. 16a (trapezoidal, exact for a constant-force step)
        dwork = c * h * 0.5 * (y[1] + y_new[1])
        work_c = jnp.where(compressing, work_c + dwork, work_c)
        work_r = jnp.where(compressing, work_r, work_r - dwork)
        j = jnp.where(active & ~cut, j + 1, j)
        return y_new, work_c, work_r, h, f, g, j, cuts + cut.astype(cuts.dtype)

    carry = (y0, zero, zero, vy0 / (steps * c), (zero, zero), (zero, zero),
             jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))
    return lax.fori_loop(0, 2 * steps + _CUTS, body, carry)[0]


def resolve(v: jax.Array, w: jax.Array, normal: jax.Array, params, *, steps: int = STEPS
            ) -> tuple[jax.Array, jax.Array]:
    """Velocity and spin after a ball-cushion impact (Mathavan et al. 2010).

    v: (2,) ball velocity (m/s) in the table frame; w: (3,) angular velocity (rad/s);
    normal: (2,) unit vector from the ball's centre towards the cushion (horizontal);
    params: physics.params.Params. Returns (v_after (2,), w_after (3,)), same dtype as v.
    A ball that is not approaching the cushion (v . normal <= 0) is returned unchanged.
    ``steps``: integration steps per phase (static).
    """
    v = jnp.asarray(v)
    if not jnp.issubdtype(v.dtype, jnp.floating):
        v = v.astype(jnp.zeros(()).dtype)
    dtype = v.dtype
    w = jnp.asarray(w, dtype)
    n = jnp.asarray(normal, dtype)
    R = jnp.asarray(params.ball.radius, dtype)
    s = jnp.clip(jnp.asarray(params.cushion.height, dtype) / R - 1.0, -1.0, 1.0)  # sin(theta)
    c = jnp.sqrt(1.0 - s * s)
    mu_w = jnp.asarray(params.cushion.f_c, dtype)
    mu_s = jnp.asarray(params.ball.u_s, dtype)
    e = jnp.asarray(params.cushion.e_c, dtype)

    nn = _hypot(n[0], n[1])
    n = n / jnp.where(nn > 0, nn, 1.0)
    tx, ty = n[1], -n[0]  # cushion x axis: (x, n, z) is right-handed
    comps = (
        v[0] * tx + v[1] * ty, v[0] * n[0] + v[1] * n[1],
        R * (w[0] * tx + w[1] * ty), R * (w[0] * n[0] + w[1] * n[1]), R * w[2],
    )
    # the model is homogeneous of degree 1 in the velocities: solve at unit scale
    scale = jnp.max(jnp.abs(jnp.stack(comps)))
    approaching = comps[1] > 0
    scale = jnp.where(approaching & (scale > 0), scale, 1.0)
    y0 = tuple(x / scale for x in comps)
    y0 = (y0[0], jnp.where(approaching, y0[1], 0.0)) + y0[2:]
    vx, vy, ux, uy, uz = (x * scale for x in _impact(y0, s, c, mu_w, mu_s, e, steps))

    v_out = jnp.stack([vx * tx + vy * n[0], vx * ty + vy * n[1]])
    w_out = jnp.stack([(ux * tx + uy * n[0]) / R, (ux * ty + uy * n[1]) / R, uz / R])
    return (jnp.where(approaching, v_out, v).astype(dtype),
            jnp.where(approaching, w_out, w).astype(dtype))
