"""Errors of a leaf from its class counts, summed so that a pure leaf scores
exactly 0."""
from __future__ import annotations

import numpy as np


def misclassified(counts: np.ndarray) -> np.ndarray:
    """Per row of class counts (or class weights), the weight of every class
    but the predicted one (the first largest).

    Summed directly, not as total less largest: with real weights that
    difference leaves a rounding residue of the total (1e84 beside weights
    of 1e100), so a pure leaf would not score exactly 0.

    Parameters
    ----------
    counts : array of shape (n_classes,) or (n_sets, n_classes)
        Non-negative counts or weights.

    Returns
    -------
    ndarray of shape (n_sets,)
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    others = counts.copy()
    others[np.arange(len(counts)), np.argmax(counts, axis=1)] = 0.0
    return others.sum(axis=1)
