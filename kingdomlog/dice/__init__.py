"""Dice: notation, the keyed roller (the only source of randomness) and check kernels."""

# Load the core package first: the dice modules import ``kingdomlog.core.errors``, and core
# modules import dice ones (``core.turn`` the roller; ``kingdomlog.core`` names ``core.turn``'s
# ``Plan`` and imports it when asked). With the core package loaded before any dice module,
# a dice module imported first (``from kingdomlog.dice.notation import parse`` in a fresh
# interpreter) never meets a half-initialised module.
import kingdomlog.core as _core  # noqa: F401
