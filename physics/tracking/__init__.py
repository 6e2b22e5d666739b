"""Tracked shots: real play recorded by a camera, read, reconstructed and measured against the physics.

The input for checking and calibrating the physics (docs/physics.md sections 6 and 10): the
simulation never imports this package, and ``physics`` does not import it either (import
``physics.tracking`` or its modules). Every setting is a field of one ``TrackingConfig``
(``config``), passed to the functions that read it. Modules, each with one job:

- ``tracks``: load and clean tracked shots (``Track``, ``TrackedShot``, ``load``; the match data
  in ``data/``, ``DATA`` and ``SOURCE``);
- ``events``: the contacts seen in a shot's tracks, and the shot as a physics event log;
- ``target``, ``objective``, ``fit``: strike reconstruction: the shot as fixed-size arrays, how far
  simulated strikes land from it, and the search for the strike (``reconstruct``);
- ``errors``: a reconstruction's path-shape distance and its error along and across the path;
- ``camera``: simulated shots sampled as the camera samples real ones;
- ``rebounds``, ``collisions``, ``slides``: cushion rebounds, ball-ball hits on a ball at rest and
  the cue ball's first stretch, measured alike in tracked and simulated shots (``bins``: their
  binned medians).

Whether a shot (tracked or simulated) makes a three-cushion point needs the referee, so it lives
in ``rules.point``. The commands ``experiments.reconstruct`` and ``experiments.calibrate`` run it.
"""
from physics.tracking.config import DEFAULT, TrackingConfig
from physics.tracking.tracks import DATA, SOURCE, Track, TrackedShot, load

__all__ = ["DATA", "DEFAULT", "SOURCE", "Track", "TrackedShot", "TrackingConfig", "load"]
