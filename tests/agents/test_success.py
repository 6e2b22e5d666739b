"""The learned players' canonical frame: a layout and its mirror images look the same to the networks."""
import dataclasses

import jax.numpy as jnp
import numpy as np

import physics
import pytest

from aiming.frame import canonical_shot, frame
from agents.success import correction, line_correction
from aiming.features import FEATURE_VERSIONS, PATH_CUSHIONS, _spin_at_hit, hit_features, pair_features, path_features

PARAMS = physics.default_params()
LAYOUT = jnp.array([[0.9, 0.4], [2.1, 1.0], [1.6, 0.3]])
SHOT = physics.Shot(V0=jnp.asarray(3.0), phi=jnp.asarray(37.0), theta=jnp.asarray(0.0), a=jnp.asarray(0.2),
                    b=jnp.asarray(-0.1))
BEST = (jnp.array([0.8, 0.5]), jnp.array([35.0, -120.0]), jnp.array([3.5, 2.0]), jnp.array([0.1, 0.0]))


def mirror(layout, shot, best, mx, my):
    """The layout, strike and lines reflected across the table's centre lines (mx, my: +-1)."""
    c = PARAMS.table.centre
    flip = jnp.array([mx, my], layout.dtype)
    f = frame(LAYOUT, 0, PARAMS)._replace(sx=jnp.asarray(float(mx)), sy=jnp.asarray(float(my)))
    score, phi, V0, b = best
    lines = canonical_shot(physics.Shot(V0, phi, jnp.zeros_like(phi), jnp.zeros_like(phi), b), f)
    return c + (layout - c) * flip, canonical_shot(shot, f), (score, lines.phi, V0, b)


@pytest.mark.parametrize("version", sorted(FEATURE_VERSIONS))
def test_features_are_the_same_for_every_mirror_image(version):
    base = np.asarray(pair_features(LAYOUT, 0, SHOT, BEST, PARAMS, version))
    assert base.shape == (FEATURE_VERSIONS[version],)
    for mx, my in ((-1, 1), (1, -1), (-1, -1)):
        layout, shot, best = mirror(LAYOUT, SHOT, BEST, mx, my)
        np.testing.assert_allclose(pair_features(layout, 0, shot, best, PARAMS, version), base, atol=1e-5)
    # and a different strike looks different
    other = dataclasses.replace(SHOT, phi=jnp.asarray(40.0))
    assert np.abs(np.asarray(pair_features(LAYOUT, 0, other, BEST, PARAMS, version)) - base).max() > 0.01


def test_an_unknown_input_version_is_refused():
    with pytest.raises(ValueError, match=r"input version must be one of \[1, 2, 3, 4\]; got 5"):
        pair_features(LAYOUT, 0, SHOT, BEST, PARAMS, 5)


HUNGARIAN = physics.default_params("hungarian")
R = float(HUNGARIAN.ball.radius)


def test_a_full_hit_at_the_pin_lies_on_the_struck_balls_line():
    # the cue ball, the first ball and the pin (the table's centre) in one line; the other ball aside
    c = np.asarray(HUNGARIAN.table.centre)
    cue, first, other = c + [0.5, 0.3], c + [0.25, 0.15], c + [-0.6, 0.35]
    aim = np.degrees(np.arctan2(-0.3, -0.5))
    shot = physics.Shot(V0=jnp.asarray(2.0), phi=jnp.asarray(aim), theta=jnp.asarray(0.0), a=jnp.asarray(0.0),
                        b=jnp.asarray(0.0))
    x = np.asarray(hit_features(shot, frame(jnp.asarray(np.stack([cue, first, other])), 0, HUNGARIAN), HUNGARIAN))
    hit, nearer, cut, _, pin_across, pin_along = x[:6]
    assert hit == 1 and nearer == 1 and abs(cut) < 1e-6
    assert abs(pin_across) < 1e-6 and pin_along == pytest.approx(np.hypot(0.25, 0.15), abs=1e-6)
    assert abs(x[10]) < 1e-6 and x[11] == pytest.approx(np.hypot(0.5, 0.3), abs=1e-6)   # the pin on the aim line
    assert x[12] == pytest.approx(np.hypot(0.25, 0.15) - 2 * R, abs=1e-6)               # the way to the contact


def test_a_half_ball_hit_sends_a_stunned_cue_ball_along_the_tangent_line():
    # the first ball straight ahead at 0.4 m, hit half-ball (offset R): its line of centres is 30 degrees
    # off the aim, and a cue ball without spin at the contact leaves at right angles to it (90 - 30 = 60
    # degrees the other way); the other ball stands 0.5 m down that tangent line
    c = np.asarray(HUNGARIAN.table.centre)
    cue = c + [0.7, 0.3]
    ghost = cue + [-0.4 + np.sqrt(3) * R, 0.0]
    first = ghost + 2 * R * np.array([-np.cos(np.radians(30)), -np.sin(np.radians(30))])
    tangent = np.array([-np.cos(np.radians(60)), np.sin(np.radians(60))])
    other = ghost + 0.5 * tangent
    layout = jnp.asarray(np.stack([cue, first, other]))
    length = np.linalg.norm(ghost - cue)
    stun = float(_stun_draw(length))   # the draw that wears off at the contact
    shot = physics.Shot(V0=jnp.asarray(2.0), phi=jnp.asarray(180.0), theta=jnp.asarray(0.0), a=jnp.asarray(0.0),
                        b=jnp.asarray(stun))
    x = np.asarray(hit_features(shot, frame(layout, 0, HUNGARIAN), HUNGARIAN))
    assert x[0] == 1 and abs(x[2]) == pytest.approx(0.5, abs=1e-6) and abs(x[3]) < 1e-3
    assert abs(x[8]) < 0.01 and x[9] == pytest.approx(0.5, abs=1e-3)   # the other ball on the cue ball's line


def _stun_draw(length):
    """The tip height at which a 2 m/s level strike's draw is gone after ``length`` (bisection)."""
    lo, hi = -0.6, 0.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        shot = physics.Shot(V0=jnp.asarray(2.0), phi=jnp.asarray(0.0), theta=jnp.asarray(0.0), a=jnp.asarray(0.0),
                            b=jnp.asarray(mid))
        lo, hi = (mid, hi) if float(_spin_at_hit(shot, length, HUNGARIAN)) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


def test_an_aim_that_meets_no_ball_has_no_hit():
    c = np.asarray(HUNGARIAN.table.centre)
    layout = jnp.asarray(np.stack([c + [0.5, 0.3], c + [0.25, 0.15], c + [-0.6, 0.35]]))
    shot = physics.Shot(V0=jnp.asarray(2.0), phi=jnp.asarray(45.0), theta=jnp.asarray(0.0), a=jnp.asarray(0.0),
                        b=jnp.asarray(0.0))
    x = np.asarray(hit_features(shot, frame(layout, 0, HUNGARIAN), HUNGARIAN))
    assert np.all(x[:10] == 0) and x[12] == 0 and np.any(x[10:12] != 0)


@pytest.mark.parametrize("b, length, spin", [
    (0.0, 5.0, 1.0),     # a centre strike rolls long before 5 m
    (0.2, 0.0, 0.5),     # at the strike: 5/2 b
    (0.4, 1.0, 1.0),     # struck at 2/5 R the ball rolls from the start, and keeps rolling
    (-0.3, 0.0, -0.75),  # draw
])
def test_the_spin_at_the_hit_starts_at_five_halves_b_and_ends_rolling(b, length, spin):
    shot = physics.Shot(V0=jnp.asarray(3.0), phi=jnp.asarray(0.0), theta=jnp.asarray(0.0), a=jnp.asarray(0.0),
                        b=jnp.asarray(b))
    assert float(_spin_at_hit(shot, jnp.asarray(length), HUNGARIAN)) == pytest.approx(spin, abs=1e-6)


def test_correction_undoes_line_correction():
    f = frame(jnp.array([[0.5, 0.3], [2.2, 1.1], [1.0, 1.2]]), 0, PARAMS)  # both flips
    assert float(f.sx) == -1.0 and float(f.sy) == -1.0
    line = dataclasses.replace(SHOT, a=jnp.asarray(0.0), phi=jnp.asarray(170.0))
    back = correction(line, line_correction(line, SHOT, f), f)
    for name in ("V0", "phi", "a", "b"):
        np.testing.assert_allclose(getattr(back, name), getattr(SHOT, name), atol=1e-9)



def test_a_struck_ball_banked_into_the_pin_lies_on_its_line_after_the_cushion():
    # the first ball sent at 45 degrees into a long cushion, from where its mirror line runs through
    # the pin (the table's centre): it meets the cushion line (a ball's reach) at (r, r), r the reach
    reach = float(HUNGARIAN.table.width) / 2 - R
    c = np.asarray(HUNGARIAN.table.centre)
    first = np.array([2 * reach - 0.2, 0.2])
    cue, other = first + [0.3, -0.3], np.array([-0.6, 0.3])
    shot = physics.Shot(V0=jnp.asarray(2.0), phi=jnp.asarray(135.0), theta=jnp.asarray(0.0), a=jnp.asarray(0.0),
                        b=jnp.asarray(0.0))
    f = frame(jnp.asarray(np.stack([cue, first, other]) + c), 0, HUNGARIAN)
    x = np.asarray(hit_features(shot, f, HUNGARIAN, cushions=True))
    assert x.shape == (19,) and x[0] == 1 and abs(x[2]) < 1e-6
    assert abs(x[4]) > 1.0                                              # the straight line misses the pin
    assert abs(x[13]) < 1e-6 and x[14] == pytest.approx(np.sqrt(2) * reach, abs=1e-6)   # the banked one meets it
    np.testing.assert_array_equal(x[:13], np.asarray(hit_features(shot, f, HUNGARIAN)))


def fold(q, reach):
    """The unfolded point q (a straight line's, through mirror images of the table) folded back
    onto the table |x|, |y| <= reach, and the cushion lines crossed on the way (a triangle wave)."""
    k = np.floor((q + reach) / (2 * reach))
    r = (q + reach) - 2 * reach * k
    back = np.where(k % 2 == 0, r, 2 * reach - r) - reach
    return back, int(np.abs(k).sum())


@pytest.mark.parametrize("travel", [3.1, 5.3, 7.9])
def test_a_ball_on_the_cue_balls_unfolded_line_lies_on_its_path_after_that_many_cushions(travel):
    # unfolded, a mirror path is straight: the ball placed where the line's point at `travel` folds
    # back to lies on the path after the cushions the fold crossed, `travel` along it
    reach = np.array([float(PARAMS.table.length), float(PARAMS.table.width)]) / 2 - float(PARAMS.ball.radius)
    G, leave = np.array([0.4, 0.1]), np.array([np.cos(0.7), np.sin(0.7)])
    ball, crossed = fold(G + travel * leave, reach)
    assert 3 <= crossed <= PATH_CUSHIONS
    far = np.array([-0.5, -0.45])  # the other object ball, off the departure's first segments
    x = np.asarray(path_features(jnp.asarray(G), jnp.asarray(leave), jnp.asarray(G), jnp.asarray(leave),
                                 jnp.asarray(1.0), jnp.asarray(far), jnp.asarray(ball), jnp.asarray(reach)))
    assert x.shape == (10,)
    assert x[0] == pytest.approx(0.0, abs=1e-6)                      # the gap
    assert x[1] == pytest.approx(crossed / PATH_CUSHIONS)            # after that many cushions
    assert x[2] == pytest.approx(travel, abs=1e-6)                   # that far along
    assert x[3] > 0.5                                                # not met before three cushions
    np.testing.assert_array_equal(x[4:], 0.0)                        # a hit: no cushion-first path
