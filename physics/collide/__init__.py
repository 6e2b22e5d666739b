"""Collision models, one module per model, chosen by name (static in ``Params``) from one registry
per interaction (``physics.collide.registry``).

=============  ===================  ==============================================
pair           model name           module
=============  ===================  ==============================================
ball-ball      "frictional"         ball_ball (Alciatore TP A-14 throw)
ball-ball      "frictionless"       ball_ball (no friction)
ball-ball      "frictional_bed"     ball_ball (throw, and the cloth under a pressed
                                    ball)
ball-cushion   "han2005"            cushion_han2005 (Han 2005, closed form)
ball-cushion   "mathavan2010"       cushion_mathavan2010 (Mathavan et al. 2010)
ball-cushion   "graded"             cushion_graded (Han 2005, graded e and f)
ball-pin       (one model)          ball_pin (impulse and toppling about the base edge)
ball in air    (one model)          rail (above the nose: the cushion's face, the
at a cushion                        rail, the frame; docs/physics.md section 5)
=============  ===================  ==============================================

Listing the models: ``ball_ball_models()`` and ``cushion_models()`` (name -> ``Model``, with its
``reference`` and ``description``). A new model is one entry in ``registry.py``, or at run time
``register("cushion", "name", Model(resolve, reference, description))``; then
``physics.default_params(cushion="name")`` selects it. A model's ``resolve`` has the signature of
the Protocol ``BallBallResolve`` or ``CushionResolve``, which mypy checks.
"""
from __future__ import annotations

from physics.collide import ball_pin
from physics.collide.registry import (
    BALL_BALL_MODELS, CUSHION_MODELS, BallBallResolve, CushionResolve, Model, ball_ball_models, cushion_models,
    register, unregister,
)


def ball_ball_resolve(v1, w1, v2, w2, normal, params):
    """Ball-ball impact with the model named by ``params.ball_ball``."""
    return BALL_BALL_MODELS[params.ball_ball].resolve(v1, w1, v2, w2, normal, params)


def cushion_resolve(v, w, normal, params):
    """Ball-cushion impact with the model named by ``params.cushion_model``."""
    return CUSHION_MODELS[params.cushion_model].resolve(v, w, normal, params)


def ball_pin_resolve(v, normal, params):
    """Ball-pin impact: the ball's velocity after it, and whether the pin topples."""
    return ball_pin.resolve(v, normal, params)


__all__ = [
    "BALL_BALL_MODELS", "CUSHION_MODELS", "Model", "BallBallResolve", "CushionResolve", "ball_ball_models",
    "cushion_models", "register", "unregister", "ball_ball_resolve", "cushion_resolve", "ball_pin_resolve",
]
