"""Independent brute-force oracle for optimal decision trees.

Written from the problem definition only; it shares no code with the
``optimaltrees`` package and must never import it.

Definition implemented here
---------------------------
Over all binary, axis-aligned trees of depth <= ``depth`` (depth 0 = a single
leaf) minimise::

    misclassifications + cost_per_node * (number of branching nodes)

where every leaf predicts the majority training label of the rows reaching it
and every leaf holds at least ``min_samples_leaf`` training rows.  A split on
feature ``f`` at a node uses a threshold between two consecutive *distinct*
values of ``X[:, f]`` among the rows at that node; rows with ``x[f] <=
threshold`` go left.  Any threshold strictly between two consecutive distinct
values (in particular the midpoint) induces the same partition, so the oracle
enumerates partitions "value <= v_i" for every distinct value v_i except the
largest, which is exactly the set of partitions the midpoints produce (and is
immune to floating point rounding of midpoints).

Row subsets are represented as Python ``int`` bit masks and results are
memoised on ``(mask, remaining depth)``, which keeps exhaustive enumeration
cheap for n <= ~12 rows, <= 3 features and depth <= 3.

The section "Regression: squared error" applies the same enumeration to
regression trees: each leaf predicts the weighted mean of its rows and costs
their weighted squared error around it (:func:`brute_force_sse`).
"""
from __future__ import annotations

import itertools
from fractions import Fraction
import math
from functools import lru_cache

import numpy as np

INFEASIBLE = math.inf


def _as_arrays(X, y):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("oracle expects a 2-D X")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError("oracle expects len(y) == len(X)")
    return X, y


def brute_force_objective(X, y, depth, cost_per_node=0.0, min_samples_leaf=1, sample_weight=None):
    """Optimal objective value by exhaustive enumeration.

    Returns ``math.inf`` when no tree satisfies ``min_samples_leaf`` (only
    possible when ``len(y) < min_samples_leaf``).  With ``sample_weight`` a
    leaf's error is the weight of its rows outside the majority (by weight),
    and rows of weight 0 do not exist.
    """
    X, y = _as_arrays(X, y)
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        keep = sample_weight > 0
        X, y, sample_weight = X[keep], y[keep], sample_weight[keep]
    n, n_features = X.shape
    if n > 62:
        raise ValueError("brute force oracle is meant for tiny data only")
    if depth < 0:
        raise ValueError("depth must be >= 0")

    # One bit mask per class: rows having that label.
    class_masks = []
    for label in np.unique(y):
        m = 0
        for i in np.flatnonzero(y == label):
            m |= 1 << int(i)
        class_masks.append(m)

    # For every feature, the masks {rows : x[f] <= v} for each distinct value v
    # (excluding the largest, which would send everything left).  A missing
    # value (NaN) goes to the side the split chooses: with missing values in
    # the column, each mask comes with and without them, and v also takes
    # -inf and the largest value (missing against present).
    le_masks = []
    for f in range(n_features):
        col = X[:, f]
        nan = 0
        for i in np.flatnonzero(np.isnan(col)):
            nan |= 1 << int(i)
        present = np.unique(col[~np.isnan(col)])
        masks = []
        for v in (present[:-1] if nan == 0 else [-math.inf, *present]):
            m = 0
            for i in np.flatnonzero(col <= v):
                m |= 1 << int(i)
            masks += [m] if nan == 0 else [m, m | nan]
        le_masks.append(masks)

    def weight_of(mask):
        if sample_weight is None:
            return mask.bit_count()
        return math.fsum(float(sample_weight[i]) for i in range(n) if mask >> i & 1)

    def leaf_cost(mask):
        size = mask.bit_count()
        if size < min_samples_leaf:
            return INFEASIBLE
        return weight_of(mask) - max(weight_of(mask & cm) for cm in class_masks)

    @lru_cache(maxsize=None)
    def best(mask, d):
        leaf = leaf_cost(mask)
        if d == 0 or leaf == 0:
            # A pure leaf has zero error, splitting can only add cost.
            return leaf
        result = leaf
        for masks in le_masks:
            seen = set()
            for le in masks:
                left = mask & le
                right = mask & ~le
                if left == 0 or right == 0 or left in seen:
                    # Not a threshold between two values present at this node,
                    # or the same partition as an already tried threshold.
                    continue
                seen.add(left)
                cand = cost_per_node + best(left, d - 1)
                if cand >= result:
                    continue
                cand += best(right, d - 1)
                if cand < result:
                    result = cand
        return result

    full = (1 << n) - 1
    return float(best(full, int(depth)))


def naive_objective(X, y, depth, cost_per_node=0.0, min_samples_leaf=1):
    """A second, deliberately naive oracle: no memo, no pruning, literal
    midpoint thresholds and numpy boolean masks.  Exponential; use only on
    very small inputs to cross-check :func:`brute_force_objective`."""
    X, y = _as_arrays(X, y)

    def rec(rows, d):
        size = int(rows.sum())
        if size < min_samples_leaf:
            best = INFEASIBLE
        else:
            _, counts = np.unique(y[rows], return_counts=True)
            best = float(size - (counts.max() if size else 0))
        if d == 0:
            return best
        for f in range(X.shape[1]):
            vals = np.unique(X[rows, f])
            for a, b in zip(vals[:-1], vals[1:]):
                t = (a + b) / 2.0
                go_left = rows & (X[:, f] <= t)
                go_right = rows & ~(X[:, f] <= t)
                cand = cost_per_node + rec(go_left, d - 1) + rec(go_right, d - 1)
                best = min(best, cand)
        return best

    return rec(np.ones(len(y), dtype=bool), depth)


# ---------------------------------------------------------------------------
# Independent evaluation of a fitted tree's flat arrays
# ---------------------------------------------------------------------------

def _arrays(tree):
    feature = np.asarray(tree.feature).astype(np.int64)
    threshold = np.asarray(tree.threshold, dtype=np.float64)
    left = np.asarray(tree.children_left).astype(np.int64)
    right = np.asarray(tree.children_right).astype(np.int64)
    return feature, threshold, left, right


def route(tree, X):
    """Leaf index reached by every row of X, walking the flat arrays
    ourselves (``x[f] <= threshold`` goes left)."""
    X = np.asarray(X, dtype=np.float64)
    feature, threshold, left, right = _arrays(tree)
    out = np.empty(X.shape[0], dtype=np.int64)
    for i, row in enumerate(X):
        node = 0
        steps = 0
        while feature[node] >= 0:
            node = left[node] if row[feature[node]] <= threshold[node] else right[node]
            steps += 1
            if steps > len(feature):
                raise AssertionError("cycle in tree arrays")
        out[i] = node
    return out


def leaf_sizes(tree, X):
    """{leaf index: number of rows of X routed to it} for every leaf of the
    tree (leaves reached by no row map to 0)."""
    feature = np.asarray(tree.feature)
    leaves = route(tree, X)
    sizes = {int(i): 0 for i in np.flatnonzero(feature < 0)}
    for leaf in leaves:
        sizes[int(leaf)] += 1
    return sizes


def recompute_error(tree, X, y, sample_weight=None):
    """Training misclassifications of ``tree`` on (X, y) when every leaf
    predicts the majority label of the training rows reaching it (with
    ``sample_weight``: the misclassified weight, majority by weight)."""
    y = np.asarray(y)
    leaves = route(tree, X)
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        total = 0.0
        for leaf in np.unique(leaves):
            here = leaves == leaf
            by_class = [w[here & (y == c)].sum() for c in np.unique(y[here])]
            total += w[here].sum() - max(by_class)
        return float(total)
    errors = 0
    for leaf in np.unique(leaves):
        labels = y[leaves == leaf]
        _, counts = np.unique(labels, return_counts=True)
        errors += len(labels) - int(counts.max())
    return int(errors)


def n_branching_nodes(tree):
    """Branching nodes reachable from the root."""
    feature, _, left, right = _arrays(tree)
    count = 0
    stack = [0]
    while stack:
        node = stack.pop()
        if feature[node] >= 0:
            count += 1
            stack.extend([left[node], right[node]])
    return count


def tree_depth(tree):
    """Depth of the tree (0 for a single leaf) computed from the arrays."""
    feature, _, left, right = _arrays(tree)
    best = 0
    stack = [(0, 0)]
    while stack:
        node, d = stack.pop()
        if feature[node] >= 0:
            stack.extend([(left[node], d + 1), (right[node], d + 1)])
        else:
            best = max(best, d)
    return best


def recompute_objective(tree, X, y, cost_per_node=0.0):
    return recompute_error(tree, X, y) + cost_per_node * n_branching_nodes(tree)


# ---------------------------------------------------------------------------
# Exhaustive depth <= 2 optimum for larger data (vectorised numpy)
# ---------------------------------------------------------------------------

def _stump_error(onehot_sorted, values_sorted, mask_sorted_list, min_samples_leaf=1):
    """Best error of a leaf or a single split for the row subsets given as
    boolean masks in each feature's sorted order."""
    best = None
    for onehot, vals, mask in zip(onehot_sorted, values_sorted, mask_sorted_list):
        counts = onehot[mask]                 # rows of the subset, sorted by feature
        v = vals[mask]
        total = counts.sum(axis=0)
        size = counts.shape[0]
        if size < min_samples_leaf:
            return INFEASIBLE
        leaf = size - total.max() if size else 0
        if best is None:
            best = leaf
        if size < 2 * min_samples_leaf:
            continue
        cum = np.cumsum(counts, axis=0)[:-1]  # left counts after i+1 rows
        ok = v[1:] != v[:-1]                  # cut only between distinct values
        n_left_all = np.arange(1, size)
        ok &= (n_left_all >= min_samples_leaf) & (size - n_left_all >= min_samples_leaf)
        if not ok.any():
            continue
        cum = cum[ok]
        n_left = cum.sum(axis=1)
        err = (n_left - cum.max(axis=1)) + ((size - n_left) - (total - cum).max(axis=1))
        best = min(best, int(err.min()))
    return best


def _sorted_views(X, y):
    _, codes = np.unique(y, return_inverse=True)
    onehot = np.eye(codes.max() + 1, dtype=np.int64)[codes]
    orders = [np.argsort(X[:, g], kind="stable") for g in range(X.shape[1])]
    onehot_sorted = [onehot[o] for o in orders]
    values_sorted = [X[o, g] for g, o in enumerate(orders)]
    return orders, onehot_sorted, values_sorted


def depth1_objective(X, y, min_samples_leaf=1):
    """Optimal number of training errors over trees of depth <= 1."""
    X, y = _as_arrays(X, y)
    _, onehot_sorted, values_sorted = _sorted_views(X, y)
    all_rows = np.ones(X.shape[0], dtype=bool)
    return _stump_error(onehot_sorted, values_sorted, [all_rows] * X.shape[1],
                        min_samples_leaf)


def depth2_objective(X, y, min_samples_leaf=1):
    """Optimal number of training errors over trees of depth <= 2 (no
    complexity cost) whose leaves hold >= min_samples_leaf rows, by
    exhaustive enumeration of the
    root split and an exact best-stump computation on each side.
    O(n^2 * p^2); fine for a few thousand rows and a handful of features."""
    X, y = _as_arrays(X, y)
    n, p = X.shape
    orders, onehot_sorted, values_sorted = _sorted_views(X, y)
    all_rows = np.ones(n, dtype=bool)
    msl = min_samples_leaf
    best = _stump_error(onehot_sorted, values_sorted, [all_rows] * p, msl)
    for f in range(p):
        vals = values_sorted[f]
        for i in np.flatnonzero(vals[1:] != vals[:-1]):
            left = X[:, f] <= vals[i]
            right = ~left
            if left.sum() < msl or right.sum() < msl:
                continue
            e = _stump_error(onehot_sorted, values_sorted, [left[o] for o in orders], msl)
            if e >= best:
                continue
            e += _stump_error(onehot_sorted, values_sorted, [right[o] for o in orders], msl)
            best = min(best, e)
    return best


# ---------------------------------------------------------------- diagrams
def diagram_split_masks(X: np.ndarray) -> list[np.ndarray]:
    """Every partition a univariate threshold makes (exact comparisons on
    the original values), plus 'all positive'."""
    masks = {tuple(np.ones(len(X), dtype=bool))}
    for j in range(X.shape[1]):
        for t in np.unique(X[:, j])[1:]:
            masks.add(tuple(X[:, j] >= t))
    return [np.array(m) for m in sorted(masks)]


def brute_force_diagram(X, y, widths, alpha, *, tree=False, min_flow=0.0, max_nodes=None,
                        sample_weight=None) -> float:
    """Least objective over every univariate diagram on the skeleton: each used
    node picks a partition and two distinct targets among the next layer's
    nodes and the class terminals; a non-root node is used iff an arc enters
    it.  Only diagrams whose used non-root nodes each carry >= min_flow rows,
    with at most max_nodes nodes (and no merges with ``tree``); inf when none.
    With ``sample_weight`` errors and flows are weights, the error rate the
    misclassified share of the total weight."""
    K, n = int(y.max()) + 1, len(y)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    total = float(w.sum())
    masks = diagram_split_masks(X)
    starts = np.concatenate([[0], np.cumsum(widths)])
    m = int(starts[-1])
    price = alpha / (m - 1) if m > 1 else 0.0
    best = np.inf

    def targets(layer):
        nxt = list(range(starts[layer + 1], starts[layer + 2])) if layer + 1 < len(widths) else []
        return nxt + [("t", c) for c in range(K)]

    def finish(nodes):
        nonlocal best
        if max_nodes is not None and len(nodes) > max_nodes:
            return
        flow = dict.fromkeys(nodes, 0)
        errors = 0
        for i in range(n):
            u = 0
            while True:
                flow[u] += w[i]
                mask, neg, pos = nodes[u]
                t = pos if mask[i] else neg
                if isinstance(t, tuple):
                    errors += w[i] * (t[1] != y[i])
                    break
                u = t
        if any(flow[u] < min_flow - 1e-9 for u in nodes if u):
            return
        best = min(best, errors / total + price * (len(nodes) - 1))

    def place(layer, active, nodes):
        if not active:
            finish(nodes)
            return
        u, rest = active[0], active[1:]
        for mask in masks:
            for neg, pos in itertools.permutations(targets(layer), 2):
                nodes[u] = (mask, neg, pos)
                if rest:
                    place(layer, rest, nodes)
                else:
                    heads = [t for v in nodes if starts[layer] <= v < starts[layer + 1]
                             for t in nodes[v][1:] if not isinstance(t, tuple)]
                    if tree and len(heads) != len(set(heads)):
                        continue
                    place(layer + 1, sorted(set(heads)), nodes)
                del nodes[u]
    place(0, [0], {})
    return best


# ---------------------------------------------------------------------------
# Regression: squared error
# ---------------------------------------------------------------------------
#
# Same tree space, split rule and bit-mask memo as the classification oracle
# above; only the leaf loss changes.  A leaf predicts the weighted mean of the
# training rows reaching it, and its loss is the weighted sum of squared
# deviations from that mean.  Missing values are not supported here (they are
# tested elsewhere), so every function below raises on NaN in X.

TREE_LEAF = -1        # children of a leaf, as in scikit-learn
TREE_UNDEFINED = -2   # feature and threshold of a leaf, as in scikit-learn


def _regression_arrays(X, y, sample_weight):
    """Validate and drop the rows of weight 0.

    A row of weight 0 contributes nothing to any leaf's loss or mean, and the
    definition says it does not exist: it must not count towards
    ``min_samples_leaf`` nor create a split position of its own.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("oracle expects a 2-D X")
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (X.shape[0],):
        raise ValueError("oracle expects len(y) == len(X)")
    if np.isnan(X).any():
        raise ValueError("the regression oracle does not support missing values in X")
    if not np.isfinite(y).all():
        raise ValueError("the regression oracle needs finite targets")
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


def weighted_mean(y, w=None):
    """Weighted mean of ``y``, as exact as doubles allow.

    An exactly rounded sum (:func:`math.fsum`) of ``w * y`` over the total
    weight, then one correction step with the exactly summed weighted
    residuals, which removes the rounding of the products ``w * y``.  A
    constant ``y`` returns that constant itself, so its SSE is exactly 0.
    """
    y = [float(v) for v in np.asarray(y, dtype=np.float64).ravel()]
    w = [1.0] * len(y) if w is None else [float(v) for v in np.asarray(w, dtype=np.float64).ravel()]
    total = math.fsum(w)
    if min(y) == max(y):
        return y[0]
    mean = math.fsum(wi * yi for wi, yi in zip(w, y)) / total
    return mean + math.fsum(wi * (yi - mean) for wi, yi in zip(w, y)) / total


def weighted_sse(y, w=None):
    """Weighted squared error of ``y`` around its weighted mean, exactly.

    Computed in rational arithmetic (:class:`fractions.Fraction`, exact for
    every double) and rounded once: sum w (y - m)^2 with m the exact mean.
    Any floating-point two-pass formula squares the rounding of a mean that
    is not representable (n times half a unit of the targets squared), which
    is no small share of the error when the targets are large and their
    spread tiny (1e6 + 1e-7 k); the oracle must not inherit it.  An empty
    input, or one of total weight 0, has SSE 0.
    """
    y = [Fraction(float(v)) for v in np.asarray(y, dtype=np.float64).ravel()]
    w = [Fraction(1)] * len(y) if w is None else [Fraction(float(v)) for v in
                                                  np.asarray(w, dtype=np.float64).ravel()]
    total = sum(w)
    if len(y) == 0 or total <= 0:
        return 0.0
    mean = sum(wi * yi for wi, yi in zip(w, y)) / total
    return float(sum(wi * (yi - mean) ** 2 for wi, yi in zip(w, y)))


def _sse_search(X, y, depth, cost_per_node, min_samples_leaf, sample_weight):
    """The memoised exhaustive search shared by :func:`brute_force_sse` and
    :func:`brute_force_sse_tree`.

    Returns ``(best, leaf_cost, splits, full, (X, y, w))`` where ``best(mask,
    d)`` is the optimal objective of the rows in ``mask`` with ``d`` levels
    left, ``leaf_cost(mask)`` the loss of making ``mask`` a leaf, and
    ``splits`` lists, per feature, the pairs ``(v, mask of rows with x[f] <=
    v)`` for every distinct value ``v`` but the largest.
    """
    X, y, w = _regression_arrays(X, y, sample_weight)
    n, n_features = X.shape
    if n > 62:
        raise ValueError("brute force oracle is meant for tiny data only")
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if not cost_per_node >= 0:
        # The pruning below (a pure leaf is final, a partial sum already >=
        # the best is abandoned) relies on every term being >= 0.
        raise ValueError("cost_per_node must be >= 0")

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
    def leaf_cost(mask):
        if mask.bit_count() < min_samples_leaf:
            return INFEASIBLE
        rows = [i for i in range(n) if mask >> i & 1]
        return weighted_sse(y[rows], w[rows])

    @lru_cache(maxsize=None)
    def best(mask, d):
        leaf = leaf_cost(mask)
        if d == 0 or leaf == 0:
            # A leaf with no error cannot be beaten: splitting adds cost >= 0.
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
                cand = cost_per_node + best(left, d - 1)
                if cand >= result:
                    continue
                cand += best(right, d - 1)
                if cand < result:
                    result = cand
        return result

    return best, leaf_cost, splits, (1 << n) - 1, (X, y, w)


def brute_force_sse(X, y, depth, cost_per_node=0.0, min_samples_leaf=1, sample_weight=None):
    """Optimal squared-error objective by exhaustive enumeration.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Feature values; NaN raises ``ValueError`` (missing values are the
        business of other tests).
    y : array-like of shape (n_samples,)
        Finite real targets.
    depth : int
        Maximum depth; 0 is a single leaf.
    cost_per_node : float, default=0.0
        Price of each branching node; must be >= 0.
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
        leaves of sum w (y - weighted leaf mean)**2 + cost_per_node *
        (number of branching nodes)``; ``math.inf`` when no such tree exists
        (fewer than ``min_samples_leaf`` rows in total).

    Notes
    -----
    A split on feature ``f`` is ``x[f] <= v`` for each distinct value ``v`` of
    the node's rows but the largest: exactly the partitions midpoint thresholds
    make, without trusting a rounded midpoint.  Row subsets are bit masks and
    the search is memoised on ``(mask, depth left)``, which keeps it cheap for
    n <= ~12 rows, <= 3 features and depth <= 3.  Ties between a leaf and a
    split are irrelevant here (only the value is returned).
    """
    best, _, _, full, _ = _sse_search(X, y, depth, cost_per_node, min_samples_leaf,
                                      sample_weight)
    return float(best(full, int(depth)))


def brute_force_sse_tree(X, y, depth, cost_per_node=0.0, min_samples_leaf=1, sample_weight=None):
    """Optimal objective and one optimal tree.

    Same definition and parameters as :func:`brute_force_sse`.  Lets a test
    check the oracle against itself (the tree's recomputed objective must equal
    the value) and show a counterexample tree when a fit disagrees.

    Returns
    -------
    value : float
        As :func:`brute_force_sse`.
    tree : types.SimpleNamespace or None
        ``None`` when infeasible.  Otherwise flat arrays in pre-order, root at
        0, as scikit-learn's ``tree_``: ``feature`` and ``threshold`` (-2 at
        leaves), ``children_left`` and ``children_right`` (-1 at leaves), and
        ``value``, each node's weighted mean target of its training rows.
        A threshold is the largest value sent left (``x[f] <= threshold``),
        not a midpoint, so training rows route exactly.  Where making a node
        a leaf ties with splitting it, the leaf is chosen; among tying splits,
        the first in search order (features in order, thresholds ascending).
    """
    from types import SimpleNamespace

    best, leaf_cost, splits, full, (_, y_kept, w_kept) = _sse_search(
        X, y, depth, cost_per_node, min_samples_leaf, sample_weight)
    value = best(full, int(depth))
    if value == INFEASIBLE:
        return float(value), None
    feature, threshold, left_child, right_child, means = [], [], [], [], []

    def mean_of(mask):
        rows = [i for i in range(len(y_kept)) if mask >> i & 1]
        return weighted_mean(y_kept[rows], w_kept[rows])

    def build(mask, d):
        node = len(feature)
        feature.append(TREE_UNDEFINED)
        threshold.append(float(TREE_UNDEFINED))
        left_child.append(TREE_LEAF)
        right_child.append(TREE_LEAF)
        means.append(mean_of(mask))
        target = best(mask, d)
        if d == 0 or leaf_cost(mask) == target:
            return node
        # Redo the search's arithmetic in its order: the first split whose
        # candidate equals the memoised optimum is one the search kept.
        for f, per_feature in enumerate(splits):
            for v, le in per_feature:
                left, right = mask & le, mask & ~le
                if left == 0 or right == 0:
                    continue
                if cost_per_node + best(left, d - 1) + best(right, d - 1) == target:
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
        value=np.array(means, dtype=np.float64),
    )
    return float(value), tree


def recompute_sse(tree, X, y, sample_weight=None):
    """Training squared error of a fitted tree, recomputed from scratch.

    Parameters
    ----------
    tree : object
        Anything with the flat arrays ``children_left``, ``children_right``,
        ``feature`` and ``threshold`` (node 0 the root, ``feature < 0`` a
        leaf, ``x[feature] <= threshold`` goes left), e.g. a scikit-learn
        ``tree_``; the same duck type :func:`route` walks.  Any stored leaf
        value is ignored.
    X, y, sample_weight
        The training data; rows of weight 0 are dropped, NaN in X raises.

    Returns
    -------
    float
        ``sum over leaves of sum w (y - mean)**2`` where each leaf's mean is
        the weighted mean of the training rows the arrays route to it.  A
        leaf predicting that mean is what makes the squared error least, so
        this is the tree's training loss whatever values it stores; comparing
        it with a fit's reported loss checks the routing, and comparing it
        with :func:`brute_force_sse` checks optimality.
    """
    X, y, w = _regression_arrays(X, y, sample_weight)
    if len(y) == 0:
        return 0.0
    leaves = route(tree, X)
    return float(math.fsum(weighted_sse(y[leaves == leaf], w[leaves == leaf])
                           for leaf in np.unique(leaves)))


def recompute_regression_objective(tree, X, y, cost_per_node=0.0, sample_weight=None):
    """:func:`recompute_sse` plus ``cost_per_node`` times the branching nodes
    reachable from the root: the quantity :func:`brute_force_sse` minimises."""
    return recompute_sse(tree, X, y, sample_weight) + cost_per_node * n_branching_nodes(tree)
