"""Ball-pin impact and toppling (docs/physics.md section 4; rules H-1.3, H-8.2, H-8.3).

The pin is a rigid body standing on its base; a ball touches it at the height of the ball's
centre, h_c = R above the cloth, where the pin is modelled as a vertical cylinder of radius
``pin.contact_radius``. The hit is one impulse J along the line from the ball's centre to the
pin's axis, with the pin pivoting about the edge of its base (moment of inertia I_edge), so

    J = (1 + e_pin) v_n / (1/m + h_c^2 / I_edge),

where v_n is the ball's approach speed. The pin falls if the kinetic energy that J gives it
about the base edge lifts its centre of mass over that edge:

    (J h_c)^2 / (2 I_edge) > m_pin g dh,   dh = sqrt(h_cm^2 + r_base^2) - h_cm   (about 0.73 mm),

so a ball at about 6 cm/s or more knocks the default pin down, and one creeping in at a few
cm/s only rocks it (rule H-8.3). The ball, several times heavier than the pin's effective mass
at the contact, then loses only J/m of its speed. A pin that stays up rocks and settles back
where it stood (a push that leaves it standing elsewhere is not modelled): to the ball it is a
fixed post, off which it bounces with restitution e_pin. No friction acts at the contact.
"""
from __future__ import annotations

import jax.numpy as jnp


def resolve(v, normal, params):
    """Ball velocity (2,) after hitting the pin, and whether the pin falls.

    normal: (2,) unit vector from the ball's centre towards the pin's axis.
    Returns (v_after, topples). A ball that is not approaching is returned unchanged.
    """
    pin, R, m = params.pin, params.ball.radius, params.ball.mass
    approach = jnp.maximum(jnp.sum(v * normal), 0.0)
    inertia = pin.edge_inertia
    J = (1.0 + pin.restitution) * approach / (1.0 / m + R**2 / inertia)
    topples = (J * R) ** 2 / (2.0 * inertia) > pin.mass * params.g * pin.tip_lift
    knocked = v - (J / m) * normal
    rebound = v - (1.0 + pin.restitution) * approach * normal
    return jnp.where(topples, knocked, rebound), topples


def topple_speed(params):
    """The smallest head-on ball speed that knocks the pin down (m/s), from the formulas above."""
    pin, R, m = params.pin, params.ball.radius, params.ball.mass
    inertia = pin.edge_inertia
    J = jnp.sqrt(2.0 * inertia * pin.mass * params.g * pin.tip_lift) / R
    return J * (1.0 / m + R**2 / inertia) / (1.0 + pin.restitution)
