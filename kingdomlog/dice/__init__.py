"""Dice: notation, the keyed roller (the only source of randomness) and check kernels."""

# Load the core package first: ``kingdomlog.core`` imports ``core.turn``, which imports
# the roller, and the dice modules import ``kingdomlog.core.errors``. Importing a dice
# module first (``from kingdomlog.dice.notation import parse`` in a fresh interpreter)
# would otherwise meet a half-initialised module and fail.
import kingdomlog.core as _core  # noqa: F401
