"""Independent brute-force oracle for the fewest-node optimal tree.

Written from the problem definition only; it shares no code with the
``optimaltrees`` package and must never import it.

Definition implemented here
---------------------------
Over all binary, axis-aligned trees of depth <= ``depth`` whose leaves hold
at least ``min_samples_leaf`` rows of positive weight, minimise the pair::

    (weighted misclassifications + cost_per_node * branching nodes,  branching nodes)

lexicographically: the optimal objective first, then the fewest branching
nodes among the trees that reach it.  Splits are ``x[f] <= v`` for each
distinct value ``v`` of the node's rows but the largest (with missing values
in the column, the missing rows go to either side, and ``v`` also takes
-inf and the largest value).  Objectives are summed in exact rationals
(:class:`fractions.Fraction`), so equal objectives compare equal.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np


def _positive_rows(X, y, sample_weight, most: int):
    """(X, y, exact weights) of the rows of positive weight (at most ``most``)."""
    X = np.asarray(X, dtype=np.float64)
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    keep = weight > 0
    if keep.sum() > most:
        raise ValueError("brute force oracle is meant for tiny data only")
    return X[keep], y[keep], [Fraction(float(v)) for v in weight[keep]]


def _split_masks(X) -> list[int]:
    """Every split's left rows as a bit mask: ``x[f] <= v`` for each distinct
    value ``v`` of the column but the largest; with missing values in the
    column, the missing rows go to either side, and ``v`` also takes -inf
    and the largest value."""
    n = X.shape[0]
    masks = []
    for f in range(X.shape[1]):
        col = X[:, f]
        nan = sum(1 << i for i in range(n) if math.isnan(col[i]))
        present = np.unique(col[~np.isnan(col)])
        values = list(present[:-1]) if nan == 0 else [-math.inf, *present]
        for v in values:
            le = sum(1 << i for i in range(n) if not math.isnan(col[i]) and col[i] <= v)
            masks += [le] if nan == 0 else [le, le | nan]
    return masks


def _children(mask: int, split_masks: list[int]):
    """The distinct (left, right) row sets the splits make of ``mask``, both non-empty."""
    seen = set()
    for le in split_masks:
        left, right = mask & le, mask & ~le
        if left and right and left not in seen:
            seen.add(left)
            yield left, right


def brute_force_fewest_nodes(X, y, depth, cost_per_node=0.0, min_samples_leaf=1, sample_weight=None):
    """(optimal objective, fewest branching nodes among the optimal trees)."""
    X, y, w = _positive_rows(X, np.asarray(y), sample_weight, 62)
    n = len(y)
    cost = Fraction(float(cost_per_node))
    labels = list(np.unique(y))
    class_masks = [sum(1 << i for i in range(n) if y[i] == label) for label in labels]

    split_masks = _split_masks(X)

    def mass(mask):
        return sum((w[i] for i in range(n) if mask >> i & 1), Fraction(0))

    @lru_cache(maxsize=None)
    def best(mask, d):
        if mask.bit_count() < min_samples_leaf:
            return None
        result = (mass(mask) - max(mass(mask & cm) for cm in class_masks), 0)
        if d == 0:
            return result
        for left, right in _children(mask, split_masks):
            a, b = best(left, d - 1), best(right, d - 1)
            if a is None or b is None:
                continue
            cand = (a[0] + b[0] + cost, a[1] + b[1] + 1)
            if cand < result:
                result = cand
        return result

    value, nodes = best((1 << n) - 1, int(depth))
    return float(value), nodes


def brute_force_sse_front(X, y, depth, cost_per_node=0.0, min_samples_leaf=1, sample_weight=None):
    """{branch nodes k: the least objective of a tree with exactly k branch nodes}
    for regression: the weighted squared error of leaves that predict their
    rows' weighted mean, plus ``cost_per_node`` per branch node.

    The same trees as :func:`brute_force_fewest_nodes` (missing values go to
    either side of a split, leaves hold ``min_samples_leaf`` rows of positive
    weight); errors are summed in exact rationals and rounded once per entry.
    """
    X, y, w = _positive_rows(X, np.asarray(y, dtype=np.float64), sample_weight, 16)
    n = len(y)
    t = [Fraction(float(v)) for v in y]
    cost = Fraction(float(cost_per_node))
    split_masks = _split_masks(X)

    def leaf(mask):
        rows = [i for i in range(n) if mask >> i & 1]
        total = sum((w[i] for i in rows), Fraction(0))
        mean = sum((w[i] * t[i] for i in rows), Fraction(0)) / total
        return sum((w[i] * (t[i] - mean) ** 2 for i in rows), Fraction(0))

    @lru_cache(maxsize=None)
    def front(mask, d):
        if mask.bit_count() < min_samples_leaf:
            return None
        best = {0: leaf(mask)}
        if d == 0:
            return best
        for left, right in _children(mask, split_masks):
            a, b = front(left, d - 1), front(right, d - 1)
            if a is None or b is None:
                continue
            for ka, va in a.items():
                for kb, vb in b.items():
                    k, v = ka + kb + 1, va + vb + cost
                    if k not in best or v < best[k]:
                        best[k] = v
        return best

    everything = (1 << n) - 1
    # the root is a leaf however few its rows
    result = front(everything, int(depth)) or {0: leaf(everything)}
    return {k: float(v) for k, v in sorted(result.items())}
