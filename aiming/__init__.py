"""Aiming without simulation: ghost balls and mirror lines (``geometry``), the canonical frame of
a layout (``frame``), the best lines and the grid of strikes round them (``lines``), and the
features of a strike that a learned rater reads (``features``). A layer of its own between the
rules and the environments: the search and the learned agents plan over these lines, and the
environment's "lines" action form offers them as candidates."""
