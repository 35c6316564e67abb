"""Independent brute-force oracle for cost-sensitive classification trees.

Written from the problem definition only; like :mod:`oracle` (whose routing
helpers it reuses) it shares no code with the ``optimaltrees`` package and
must never import it.  It lives apart from :mod:`oracle` only to keep each
file readable.

Definition implemented here
---------------------------
Classes are the integers ``0 .. K-1`` and ``C`` is a ``K x K`` matrix of
finite costs ``>= 0``, ``C[true, predicted]``.  Over all binary, axis-aligned
trees of depth <= ``depth`` (depth 0 = a single leaf) minimise::

    sum over leaves of  min over k of  sum over the leaf's rows i of w_i C[y_i, k]
    + cost_per_node * (number of branching nodes)

so every leaf predicts its cheapest class for the rows reaching it, and every
leaf holds at least ``min_samples_leaf`` rows of positive weight.  The splits
are those of :func:`oracle.brute_force_objective`: ``x[f] <= v`` for each
distinct value ``v`` of the node's rows but the largest, exactly the
partitions midpoint thresholds make.  With ``C = 1 - identity`` a leaf's cost
is the weight outside its majority and the objective is the misclassification
objective.

The whole objective is computed in rational arithmetic
(:class:`fractions.Fraction`, exact for every double) and rounded once at
the end, so neither the leaf costs nor their sums inherit rounding: the
oracle's value is the correctly rounded optimum, and its choices between
leaves and splits are exact.
"""
from __future__ import annotations

from fractions import Fraction
import math
from functools import lru_cache
from types import SimpleNamespace

import numpy as np

from oracle import INFEASIBLE, TREE_LEAF, TREE_UNDEFINED, n_branching_nodes, route


def _cost_matrix(cost_matrix):
    """Validate ``C`` and return it as a list of rows of :class:`Fraction`.

    Negative costs would break the pruning of the search (a leaf of cost 0 is
    final, a partial sum already >= the best is abandoned) and have no place
    in the definition; non-finite ones have no exact value.
    """
    C = np.asarray(cost_matrix, dtype=np.float64)
    if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] == 0:
        raise ValueError("the cost matrix must be a non-empty K x K array")
    if not np.isfinite(C).all() or (C < 0).any():
        raise ValueError("costs must be finite and >= 0")
    return [[Fraction(float(c)) for c in row] for row in C]


def _cost_arrays(X, y, n_classes, sample_weight):
    """Validate and drop the rows of weight 0.

    ``y`` must hold class indices ``0 .. n_classes-1`` (integral values of
    any numeric dtype): the cost matrix is indexed by them, so a label is a
    row of ``C``, not a name to be sorted.  A row of weight 0 contributes
    nothing to any leaf's cost, and the definition says it does not exist:
    it must not count towards ``min_samples_leaf`` nor create a split
    position of its own.  Missing values in ``X`` raise, as in the regression
    oracle (they are tested elsewhere).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("oracle expects a 2-D X")
    if np.isnan(X).any():
        raise ValueError("the cost oracle does not support missing values in X")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError("oracle expects len(y) == len(X)")
    if y.size and (y.dtype.kind not in "iuf" or not np.isfinite(y).all()
                   or (y != np.round(y)).any() or y.min() < 0 or y.max() >= n_classes):
        raise ValueError("y must hold class indices 0 .. K-1 of the K x K cost matrix")
    y = y.astype(np.int64)
    if sample_weight is None:
        w = np.ones(len(y))
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != y.shape:
            raise ValueError("oracle expects len(sample_weight) == len(y)")
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("sample weights must be finite and >= 0")
    keep = w > 0
    return X[keep], y[keep], w[keep]


def _class_costs(counts, C):
    """Exact cost of predicting each class: ``sum_c counts[c] * C[c][k]``."""
    return [sum((counts[c] * C[c][k] for c in range(len(C)) if counts[c]), Fraction(0))
            for k in range(len(C))]


def leaf_prediction(counts, cost_matrix):
    """The cheapest class to predict for a leaf.

    Parameters
    ----------
    counts : array-like of shape (K,)
        Weight (or number) of the leaf's rows of each true class, >= 0.
    cost_matrix : array-like of shape (K, K)
        ``C[true, predicted]``, finite and >= 0.

    Returns
    -------
    int
        ``argmin over k of sum_c counts[c] * C[c, k]``, computed exactly (in
        rationals, so two classes tie only when their costs are truly equal).
        Ties go to the smallest class index, the rule ``numpy.argmin`` (and
        scikit-learn's ``argmax`` of class scores) follows, so a test can
        compare predicted classes and not only costs.  In particular a leaf
        with no rows (all counts 0) predicts class 0.
    """
    C = _cost_matrix(cost_matrix)
    counts = np.asarray(counts, dtype=np.float64)
    if counts.shape != (len(C),):
        raise ValueError("counts must have one entry per class of the cost matrix")
    if not np.isfinite(counts).all() or (counts < 0).any():
        raise ValueError("counts must be finite and >= 0")
    costs = _class_costs([Fraction(float(c)) for c in counts], C)
    # list.index of the minimum: the first, i.e. smallest, tying class.
    return costs.index(min(costs))


def _cost_search(X, y, depth, cost_matrix, cost_per_node, min_samples_leaf, sample_weight):
    """The memoised exhaustive search shared by :func:`brute_force_cost` and
    :func:`brute_force_cost_tree`.

    Returns ``(best, leaf_cost, counts_of, splits, price, full)`` where
    ``best(mask, d)`` is the exact (:class:`Fraction`, or ``math.inf``)
    optimal objective of the rows in ``mask`` with ``d`` levels left,
    ``leaf_cost(mask)`` the cost of making ``mask`` a leaf, ``counts_of(mask)``
    its exact weight per class, ``splits`` lists, per feature, the pairs ``(v,
    mask of rows with x[f] <= v)`` for every distinct value ``v`` but the
    largest, ``price`` is ``cost_per_node`` as a :class:`Fraction` and
    ``full`` the mask of all rows kept.
    """
    C = _cost_matrix(cost_matrix)
    K = len(C)
    X, y, w = _cost_arrays(X, y, K, sample_weight)
    n, n_features = X.shape
    if n > 62:
        raise ValueError("brute force oracle is meant for tiny data only")
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if not (cost_per_node >= 0 and math.isfinite(cost_per_node)):
        # The pruning below relies on every term being >= 0.
        raise ValueError("cost_per_node must be finite and >= 0")
    price = Fraction(float(cost_per_node))
    weights = [Fraction(float(v)) for v in w]

    splits = []
    for f in range(n_features):
        col = X[:, f]
        per_feature = []
        for v in np.unique(col)[:-1]:
            m = 0
            for i in np.flatnonzero(col <= v):
                m |= 1 << int(i)
            per_feature.append((float(v), m))
        splits.append(per_feature)

    @lru_cache(maxsize=None)
    def counts_of(mask):
        counts = [Fraction(0)] * K
        for i in range(n):
            if mask >> i & 1:
                counts[y[i]] += weights[i]
        return tuple(counts)

    @lru_cache(maxsize=None)
    def leaf_cost(mask):
        if mask.bit_count() < min_samples_leaf:
            return INFEASIBLE
        return min(_class_costs(counts_of(mask), C))

    @lru_cache(maxsize=None)
    def best(mask, d):
        leaf = leaf_cost(mask)
        if d == 0 or leaf == 0:
            # A leaf of cost 0 cannot be beaten: splitting adds cost >= 0.
            return leaf
        result = leaf
        size = mask.bit_count()
        for per_feature in splits:
            seen = set()
            for _, le in per_feature:
                left = mask & le
                right = mask & ~le
                if left == 0 or right == 0 or left in seen:
                    # Not a threshold between two values present at this node,
                    # or the same partition as an already tried threshold.
                    continue
                seen.add(left)
                n_left = left.bit_count()
                if n_left < min_samples_leaf or size - n_left < min_samples_leaf:
                    # Every leaf below holds <= the side's rows: infeasible.
                    continue
                cand = price + best(left, d - 1)
                if cand >= result:
                    continue
                cand += best(right, d - 1)
                if cand < result:
                    result = cand
        return result

    return best, leaf_cost, counts_of, splits, price, (1 << n) - 1


def brute_force_cost(X, y, depth, cost_matrix, cost_per_node=0.0, min_samples_leaf=1,
                     sample_weight=None):
    """Optimal cost-sensitive objective by exhaustive enumeration.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Feature values; NaN raises ``ValueError`` (missing values are the
        business of other tests).
    y : array-like of shape (n_samples,)
        Class indices ``0 .. K-1``: they index the cost matrix, so they are
        not relabelled, and a class need not occur.
    depth : int
        Maximum depth; 0 is a single leaf.
    cost_matrix : array-like of shape (K, K)
        ``C[true, predicted]``, finite and >= 0.  The diagonal need not be 0.
    cost_per_node : float, default=0.0
        Price of each branching node; finite and >= 0.
    min_samples_leaf : int, default=1
        Least number of rows (of positive weight) every leaf must hold.  It
        counts rows, not weight, so a row of weight 2 is one row here.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; rows of weight 0 are dropped before anything
        else (they neither count nor make split positions).

    Returns
    -------
    float
        The minimum, over all binary axis-aligned trees of depth <= ``depth``
        whose leaves all hold >= ``min_samples_leaf`` rows, of ``sum over
        leaves of min over k of sum w_i C[y_i, k] + cost_per_node * (number
        of branching nodes)``; ``math.inf`` when no such tree exists (fewer
        than ``min_samples_leaf`` rows in total).  Computed exactly and
        rounded once, so a test may compare it with ``==`` whenever the
        quantity it compares with is exact too.

    Notes
    -----
    Row subsets are bit masks and the search is memoised on ``(mask, depth
    left)``, which keeps it cheap for n <= ~12 rows, <= 3 features and depth
    <= 3.  Rational arithmetic costs a constant factor over floats; it buys an
    oracle whose comparisons (a leaf against a split, one split against
    another) are never decided by rounding.
    """
    best, _, _, _, _, full = _cost_search(X, y, depth, cost_matrix, cost_per_node,
                                          min_samples_leaf, sample_weight)
    return float(best(full, int(depth)))


def brute_force_cost_tree(X, y, depth, cost_matrix, cost_per_node=0.0, min_samples_leaf=1,
                          sample_weight=None):
    """Optimal objective and one optimal tree.

    Same definition and parameters as :func:`brute_force_cost`.  Lets a test
    check the oracle against itself (the tree's recomputed objective must equal
    the value) and show a counterexample tree when a fit disagrees.

    Returns
    -------
    value : float
        As :func:`brute_force_cost`.
    tree : types.SimpleNamespace or None
        ``None`` when infeasible.  Otherwise flat arrays in pre-order, root at
        0, as scikit-learn's ``tree_``: ``feature`` and ``threshold`` (-2 at
        leaves), ``children_left`` and ``children_right`` (-1 at leaves),
        ``value`` of shape (n_nodes, K) (scikit-learn's has a middle axis of
        length 1), each node's weight of training rows per true class, and ``prediction``, each node's cheapest class
        (:func:`leaf_prediction`, ties to the smallest index).  A threshold is
        the largest value sent left (``x[f] <= threshold``), not a midpoint,
        so training rows route exactly.  Where making a node a leaf ties with
        splitting it, the leaf is chosen; among tying splits, the first in
        search order (features in order, thresholds ascending).  Ties are
        exact here, the arithmetic being rational.
    """
    best, leaf_cost, counts_of, splits, price, full = _cost_search(
        X, y, depth, cost_matrix, cost_per_node, min_samples_leaf, sample_weight)
    C = _cost_matrix(cost_matrix)
    value = best(full, int(depth))
    if value == INFEASIBLE:
        return float(value), None
    feature, threshold, left_child, right_child, counts, prediction = [], [], [], [], [], []

    def build(mask, d):
        node = len(feature)
        feature.append(TREE_UNDEFINED)
        threshold.append(float(TREE_UNDEFINED))
        left_child.append(TREE_LEAF)
        right_child.append(TREE_LEAF)
        here = counts_of(mask)
        counts.append([float(c) for c in here])
        costs = _class_costs(here, C)
        prediction.append(costs.index(min(costs)))
        target = best(mask, d)
        if d == 0 or leaf_cost(mask) == target:
            return node
        # The arithmetic is exact, so the first split whose candidate equals
        # the memoised optimum is an optimal one, whichever the search kept.
        for f, per_feature in enumerate(splits):
            for v, le in per_feature:
                left, right = mask & le, mask & ~le
                if left == 0 or right == 0:
                    continue
                if price + best(left, d - 1) + best(right, d - 1) == target:
                    feature[node], threshold[node] = f, v
                    left_child[node] = build(left, d - 1)
                    right_child[node] = build(right, d - 1)
                    return node
        raise AssertionError("no split reproduces the memoised optimum")

    build(full, int(depth))
    tree = SimpleNamespace(
        feature=np.array(feature, dtype=np.int64),
        threshold=np.array(threshold, dtype=np.float64),
        children_left=np.array(left_child, dtype=np.int64),
        children_right=np.array(right_child, dtype=np.int64),
        value=np.array(counts, dtype=np.float64).reshape(len(feature), len(C)),
        prediction=np.array(prediction, dtype=np.int64),
    )
    return float(value), tree


def _exact_recompute(tree, X, y, cost_matrix, sample_weight):
    C = _cost_matrix(cost_matrix)
    X, y, w = _cost_arrays(X, y, len(C), sample_weight)
    if len(y) == 0:
        return Fraction(0)
    leaves = route(tree, X)
    total = Fraction(0)
    for leaf in np.unique(leaves):
        counts = [Fraction(0)] * len(C)
        for label, weight in zip(y[leaves == leaf], w[leaves == leaf]):
            counts[label] += Fraction(float(weight))
        total += min(_class_costs(counts, C))
    return total


def recompute_cost(tree, X, y, cost_matrix, sample_weight=None):
    """Training cost of a fitted tree, recomputed from scratch.

    Parameters
    ----------
    tree : object
        Anything with the flat arrays ``children_left``, ``children_right``,
        ``feature`` and ``threshold`` (node 0 the root, ``feature < 0`` a
        leaf, ``x[feature] <= threshold`` goes left), e.g. a scikit-learn
        ``tree_``; the same duck type :func:`oracle.route` walks.  Any stored
        value or prediction is ignored.
    X, y, cost_matrix, sample_weight
        As :func:`brute_force_cost`; rows of weight 0 are dropped.

    Returns
    -------
    float
        ``sum over leaves of min over k of sum w_i C[y_i, k]`` over the
        training rows the arrays route to each leaf, exactly and rounded once.
        A leaf predicting its cheapest class is what makes its cost least, so
        this is the tree's training cost whatever it stores; comparing it
        with a fit's reported cost checks the routing, and comparing it with
        :func:`brute_force_cost` checks optimality.  Leaves no row reaches
        cost nothing.
    """
    return float(_exact_recompute(tree, X, y, cost_matrix, sample_weight))


def recompute_cost_objective(tree, X, y, cost_matrix, cost_per_node=0.0, sample_weight=None):
    """:func:`recompute_cost` plus ``cost_per_node`` times the branching nodes
    reachable from the root: the quantity :func:`brute_force_cost` minimises,
    summed exactly and rounded once like it."""
    if not (cost_per_node >= 0 and math.isfinite(cost_per_node)):
        raise ValueError("cost_per_node must be finite and >= 0")
    exact = (_exact_recompute(tree, X, y, cost_matrix, sample_weight)
             + Fraction(float(cost_per_node)) * n_branching_nodes(tree))
    return float(exact)
