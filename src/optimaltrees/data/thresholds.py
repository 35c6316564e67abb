"""Thresholds as text: one rule for every picture and export.

It lives in the data layer because the SAT binarizer's test labels need it
as much as the tree and diagram exports (:mod:`optimaltrees.model.export`
re-exports it) and the plots do.
"""
from __future__ import annotations

import numbers

import numpy as np


def format_threshold(value) -> str:
    """The threshold as the shortest decimal string that parses back to the
    very same float, so ``x <= text`` routes every value as ``x <= value`` does.

    Rule: ``float(format_threshold(t)) == t`` for every float ``t`` (the
    shortest such string, Python's ``repr``, in plain notation where
    short); an integer threshold (the SAT binarizer keeps integers beyond
    2^53 exact) prints all its digits.  A threshold is therefore never
    rounded: a tree that splits at 157.5 prints ``157.5``, never ``158`` (which
    would send 158 the wrong way on paper), and a midpoint such as
    ``0.1 / 2 + 0.2 / 2`` prints ``0.15000000000000002``: ``0.15`` would be
    the float below it, routed the other way.  Any shorter string names
    another float, and some value between the two would be routed one way
    by the model and the other way by the text; the ``decimals`` arguments
    of the exports therefore do not apply to thresholds.

    Cosmetics that keep the rule: ``157.0`` prints ``157``, ``-0.0`` prints
    ``0`` (equal for every comparison), exponents lose their ``+`` and
    leading zeros (``1e19``, ``5e-324``), and infinities print ``inf``/``-inf``.
    """
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    t = float(value)
    if t == 0:
        return "0"
    if not np.isfinite(t):
        return repr(t)                          # "inf", "-inf", "nan"
    text = repr(t)
    if "e" in text:
        mantissa, exponent = text.split("e")
        if mantissa.endswith(".0"):
            mantissa = mantissa[:-2]
        text = f"{mantissa}e{int(exponent)}"
    elif text.endswith(".0"):
        text = text[:-2]
    return text
