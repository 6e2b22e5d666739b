"""Collision models, one module per model, chosen by name (static in ``Params``).

=============  ===================  ==============================================
pair           model name           module
=============  ===================  ==============================================
ball-ball      "frictional"         ball_ball (Alciatore TP A-14 throw)
ball-ball      "frictionless"       ball_ball (no friction)
ball-cushion   "han2005"            cushion_han2005 (Han 2005, closed form)
ball-cushion   "mathavan2010"       cushion_mathavan2010 (Mathavan et al. 2010)
ball-pin       (one model)          ball_pin (impulse and toppling about the base edge)
=============  ===================  ==============================================
"""
from __future__ import annotations

from physics.collide import ball_ball, ball_pin, cushion_han2005


def _mathavan(*args):
    from physics.collide import cushion_mathavan2010

    return cushion_mathavan2010.resolve(*args)


CUSHION_MODELS = {"han2005": cushion_han2005.resolve, "mathavan2010": _mathavan}


def ball_ball_resolve(v1, w1, v2, w2, normal, params):
    """Ball-ball impact with the model named by ``params.ball_ball``."""
    return ball_ball.resolve(v1, w1, v2, w2, normal, params)


def cushion_resolve(v, w, normal, params):
    """Ball-cushion impact with the model named by ``params.cushion_model``."""
    return CUSHION_MODELS[params.cushion_model](v, w, normal, params)


def ball_pin_resolve(v, normal, params):
    """Ball-pin impact: the ball's velocity after it, and whether the pin topples."""
    return ball_pin.resolve(v, normal, params)
