"""Dice: notation, the keyed roller (the only source of randomness) and check kernels."""
