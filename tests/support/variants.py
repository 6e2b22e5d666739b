"""A module that registers a discipline variant when imported, as a user's own module would, for
the commands' ``--discipline MODULE:ID`` (``experiments.common.discipline_arg``)."""
import rules

TWO_CUSHION = "two_cushion_test"
rules.register_discipline(TWO_CUSHION, base="three_cushion", gym_name="TwoCushionTest", cushions_required=2)
