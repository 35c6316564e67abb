"""Sanity tests of the squared-error brute-force oracle itself (no package
import here): hand-computed optima, hand-built trees, and properties checked
against independent re-implementations written below (an O(n^2) stump scan, a
1-D segmentation dynamic program and a naive enumerator without memo)."""
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from oracle import (
    brute_force_sse,
    brute_force_sse_tree,
    leaf_sizes,
    n_branching_nodes,
    recompute_regression_objective,
    recompute_sse,
    route,
    tree_depth,
    weighted_sse,
)

XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
XOR_Y = np.array([0.0, 6.0, 6.0, 0.0])
LINE6 = np.arange(6, dtype=float).reshape(-1, 1)
EPS = np.finfo(np.float64).eps


# ---------------------------------------------------------------------------
# Independent helpers (numpy only; nothing shared with the oracle)
# ---------------------------------------------------------------------------

def np_sse(y, w=None):
    """Weighted SSE around the weighted mean with plain numpy."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) == 0:
        return 0.0
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    mean = np.average(y, weights=w)
    return float(np.sum(w * (y - mean) ** 2))


def _drop_zero_weight(X, y, w):
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    keep = w > 0
    return X[keep], y[keep], w[keep]


def tolerance(y, w=None, extra=0.0):
    """Rounding slack for comparing two SSE computations on the same data.

    Each residual ``y - mean`` may be off by a few ulps of the largest target
    (``delta``), which moves a sum of ``w r^2`` by at most ``2 delta sqrt(W
    S) + W delta^2`` (Cauchy-Schwarz, S the total SSE bounding any optimum's).
    With targets 1e6 + 1e-3 k that is all the precision there is; a one-pass
    formula would be off by far more."""
    y = np.asarray(y, dtype=np.float64)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    if len(y) == 0:
        return 1e-12 + abs(extra) * 1e-12
    total_w = float(w.sum())
    s = np_sse(y, w)
    delta = 64 * EPS * float(np.max(np.abs(y)))
    return (1e-9 * s + 4 * delta * math.sqrt(total_w * s) + 4 * total_w * delta ** 2
            + 1e-12 * abs(extra) + 1e-300)


def stump_scan(X, y, cost_per_node=0.0, min_samples_leaf=1, sample_weight=None):
    """Best tree of depth <= 1 by scanning every cut of every sorted column and
    recomputing both sides from scratch: O(n^2) per feature."""
    X, y, w = _drop_zero_weight(X, y, sample_weight)
    n = len(y)
    best = np_sse(y, w) if n >= min_samples_leaf else math.inf
    for f in range(X.shape[1]):
        order = np.argsort(X[:, f], kind="stable")
        xs = X[order, f]
        for i in range(1, n):
            if xs[i] == xs[i - 1] or i < min_samples_leaf or n - i < min_samples_leaf:
                continue
            lo, hi = order[:i], order[i:]
            best = min(best, cost_per_node + np_sse(y[lo], w[lo]) + np_sse(y[hi], w[hi]))
    return best


def segmentation_sse(x, y, depth, cost_per_node=0.0, min_samples_leaf=1, sample_weight=None):
    """On one feature a depth-d tree realises exactly the partitions into
    <= 2**d contiguous runs of distinct values, with k runs costing k - 1
    branching nodes at best: an exact dynamic program over run boundaries."""
    X, y, w = _drop_zero_weight(np.reshape(x, (-1, 1)), y, sample_weight)
    order = np.argsort(X[:, 0], kind="stable")
    x, y, w = X[order, 0], y[order], w[order]
    cuts = [0] + [i for i in range(1, len(x)) if x[i] != x[i - 1]] + [len(x)]
    g = len(cuts) - 1
    kmax = 2 ** depth

    def seg(a, b):
        lo, hi = cuts[a], cuts[b]
        if hi - lo < min_samples_leaf:
            return math.inf
        return np_sse(y[lo:hi], w[lo:hi])

    dp = [[math.inf] * (g + 1) for _ in range(kmax + 1)]
    dp[0][0] = 0.0
    for k in range(1, kmax + 1):
        for j in range(1, g + 1):
            dp[k][j] = min(dp[k - 1][i] + seg(i, j) for i in range(j))
    return min(dp[k][g] + cost_per_node * (k - 1) for k in range(1, kmax + 1))


def naive_sse(X, y, depth, cost_per_node=0.0, min_samples_leaf=1):
    """No memo, no pruning, literal midpoint thresholds and numpy masks."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)

    def rec(rows, d):
        size = int(rows.sum())
        best = np_sse(y[rows]) if size >= min_samples_leaf else math.inf
        if d == 0:
            return best
        for f in range(X.shape[1]):
            vals = np.unique(X[rows, f])
            for a, b in zip(vals[:-1], vals[1:]):
                go_left = X[:, f] <= (a + b) / 2.0
                cand = (cost_per_node + rec(rows & go_left, d - 1)
                        + rec(rows & ~go_left, d - 1))
                best = min(best, cand)
        return best

    return rec(np.ones(len(y), dtype=bool), depth)


# ---------------------------------------------------------------------------
# Hand-computed cases
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize("level", [0.0, 7.0, 1e6 + 0.1, -3e-9])
def test_constant_target_is_zero(depth, level):
    X = np.array([[3.0, 1.0], [1.0, 2.0], [2.0, 2.0], [2.0, 5.0]])
    y = np.full(4, level)
    assert brute_force_sse(X, y, depth) == 0.0
    assert brute_force_sse(X, y, depth, sample_weight=[0.3, 1.0, 2.5, 0.1]) == 0.0


@pytest.mark.parametrize("depth, expected", [(0, 100.0), (1, 0.0), (2, 0.0)])
def test_two_level_step(depth, expected):
    # Mean 5, every row 5 away: 4 * 25 = 100; the split x <= 1 fits exactly.
    X = np.arange(4, dtype=float).reshape(-1, 1)
    assert brute_force_sse(X, [0, 0, 10, 10], depth) == expected


@pytest.mark.parametrize("depth, expected", [(0, 154.0), (1, 4.0), (2, 1.0), (3, 0.0)])
def test_step_plus_noise(depth, expected):
    # Along x = 0..5 the targets are 1,0,2 | 10,12,11.
    # depth 0: mean 6 -> 25+36+16+16+36+25 = 154.
    # depth 1: {1,0,2} and {10,12,11}, each 1+1+0 = 2 around its mean -> 4.
    # depth 2: four runs {1,0} {2} {10} {12,11} -> 0.5 + 0.5 = 1 (no other
    #          choice of four runs does better).
    # depth 3: eight runs cover the six rows -> 0.
    # A second, irrelevant feature must not help.
    X = np.column_stack([np.arange(6.0), [5, 5, 4, 4, 5, 5]])
    y = [1.0, 0.0, 2.0, 10.0, 12.0, 11.0]
    assert brute_force_sse(X, y, depth) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("depth, expected", [(0, 36.0), (1, 36.0), (2, 0.0), (3, 0.0)])
def test_xor_regression_needs_depth_two(depth, expected):
    # Mean 3, every row 3 away: 36.  Any single split leaves {0, 6} on both
    # sides: 18 + 18 = 36.  Two levels separate all four cells.
    assert brute_force_sse(XOR_X, XOR_Y, depth) == expected


@pytest.mark.parametrize("cost, expected, nodes", [
    (0.0, 0.0, 3), (11.0, 33.0, 3), (12.0, 36.0, 0), (13.0, 36.0, 0), (1e9, 36.0, 0)])
def test_xor_cost_per_node_break_even(cost, expected, nodes):
    # The exact tree has three branching nodes, the leaf costs 36, a stump
    # costs 36 + cost: the tree wins iff 3 * cost < 36.  At cost 12 both are
    # worth 36 and the oracle's tree is the leaf (it prefers fewer nodes).
    assert brute_force_sse(XOR_X, XOR_Y, 2, cost) == expected
    value, tree = brute_force_sse_tree(XOR_X, XOR_Y, 2, cost)
    assert value == expected
    assert n_branching_nodes(tree) == nodes
    assert recompute_regression_objective(tree, XOR_X, XOR_Y, cost) == expected


@pytest.mark.parametrize("cost, expected, nodes", [(99.0, 99.0, 1), (100.0, 100.0, 0),
                                                   (101.0, 100.0, 0)])
def test_stump_cost_per_node_break_even(cost, expected, nodes):
    X = np.arange(4, dtype=float).reshape(-1, 1)
    y = [0, 0, 10, 10]
    for depth in (1, 2, 3):
        assert brute_force_sse(X, y, depth, cost) == expected
        value, tree = brute_force_sse_tree(X, y, depth, cost)
        assert (value, n_branching_nodes(tree)) == (expected, nodes)


@pytest.mark.parametrize("msl, expected", [(1, 0.0), (2, 0.0), (3, 0.0), (4, 150.0),
                                           (6, 150.0), (7, math.inf)])
def test_min_samples_leaf(msl, expected):
    # 0,0,0 | 10,10,10: the only exact split has 3 rows a side; with 4 or more
    # per leaf no split is possible and the leaf costs 6 * 5^2 = 150.
    assert brute_force_sse(LINE6, [0, 0, 0, 10, 10, 10], 2, min_samples_leaf=msl) == expected


def test_min_samples_leaf_forces_a_worse_split():
    X = np.arange(4, dtype=float).reshape(-1, 1)
    y = [0, 10, 10, 10]
    assert brute_force_sse(X, y, 1) == 0.0
    # Two rows a side: {0, 10} | {10, 10} -> 50.
    assert brute_force_sse(X, y, 1, min_samples_leaf=2) == 50.0
    # Three rows a side need six rows: the leaf, mean 7.5 -> 56.25 + 3 * 6.25.
    assert brute_force_sse(X, y, 3, min_samples_leaf=3) == 75.0
    _, tree = brute_force_sse_tree(X, y, 2, min_samples_leaf=2)
    assert min(leaf_sizes(tree, X).values()) >= 2


def test_identical_rows_are_a_floor():
    X = np.ones((5, 2))
    y = [1.0, 2.0, 3.0, 4.0, 5.0]  # mean 3: 4 + 1 + 0 + 1 + 4
    for depth in range(4):
        assert brute_force_sse(X, y, depth) == 10.0
    # Two groups of identical rows: each group's own variance stays.
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    assert brute_force_sse(X, [0, 2, 5, 9], 3) == 2.0 + 8.0


def test_weights_by_hand():
    X = np.array([[0.0], [1.0]])
    # Weighted mean (0 + 2 * 3) / 3 = 2: 1 * 4 + 2 * 1 = 6.
    assert brute_force_sse(X, [0, 3], 0, sample_weight=[1, 2]) == pytest.approx(6.0)
    assert brute_force_sse(X, [0, 3], 1, sample_weight=[1, 2]) == 0.0
    # A row of weight 0 does not exist, not even for its target.
    X3 = np.arange(3, dtype=float).reshape(-1, 1)
    assert brute_force_sse(X3, [0, 100, 0], 0, sample_weight=[1, 0, 1]) == 0.0


def test_zero_weight_rows_do_not_count_for_min_samples_leaf():
    X = np.arange(4, dtype=float).reshape(-1, 1)
    y = [0, 0, 10, 10]
    assert brute_force_sse(X, y, 1, min_samples_leaf=2) == 0.0
    # Without row 1 only {0, 10, 10} remain: no 2 | 2 split; the leaf has mean
    # 20/3 and SSE (20/3)^2 + 2 (10/3)^2 = 600/9.
    got = brute_force_sse(X, y, 1, min_samples_leaf=2, sample_weight=[1, 0, 1, 1])
    assert got == pytest.approx(600 / 9, rel=1e-14)


@pytest.mark.parametrize("base", [1e6, 1e9, 1e15, -1e15])
def test_large_targets_with_a_small_spread(base):
    # Mean base + 0.5 and residuals +-0.5 are exact doubles: SSE exactly 1.
    # The one-pass formula sum(y^2) - sum(y)^2 / n loses it entirely at 1e15.
    y = base + np.array([0.0, 1.0, 0.0, 1.0])
    X = np.zeros((4, 1))
    for depth in range(3):
        assert brute_force_sse(X, y, depth) == 1.0
    assert weighted_sse(y) == 1.0
    one_pass = float(np.sum(y ** 2) - np.sum(y) ** 2 / 4)
    if abs(base) >= 1e15:
        assert abs(one_pass - 1.0) > 0.5  # why weighted_sse is two-pass


def test_consecutive_doubles_can_be_split():
    a = 1.0
    b = np.nextafter(a, 2.0)
    X = np.array([[a], [b]])
    assert brute_force_sse(X, [0.0, 4.0], 1) == 0.0
    _, tree = brute_force_sse_tree(X, [0.0, 4.0], 1)
    assert route(tree, X).tolist() == [1, 2]


def test_single_row_and_infeasible():
    assert brute_force_sse(np.array([[1.0]]), [4.0], 3) == 0.0
    assert brute_force_sse(np.array([[1.0]]), [4.0], 3, min_samples_leaf=2) == math.inf
    assert brute_force_sse_tree(np.array([[1.0]]), [4.0], 3, min_samples_leaf=2) == (
        math.inf, None)


def test_rejects_what_it_does_not_define():
    X = np.array([[0.0], [np.nan]])
    with pytest.raises(ValueError, match="missing"):
        brute_force_sse(X, [0, 1], 1)
    with pytest.raises(ValueError, match="missing"):
        recompute_sse(_stump(0, 0.5), X, [0, 1])
    ok = np.array([[0.0], [1.0]])
    with pytest.raises(ValueError):
        brute_force_sse(ok, [0, np.inf], 1)
    with pytest.raises(ValueError):
        brute_force_sse(ok, [0, 1], 1, cost_per_node=-1.0)
    with pytest.raises(ValueError):
        brute_force_sse(ok, [0, 1], 1, sample_weight=[1, -1])
    with pytest.raises(ValueError):
        brute_force_sse(ok, [0, 1], -1)


# ---------------------------------------------------------------------------
# Recomputing a hand-built tree's loss
# ---------------------------------------------------------------------------

def _stump(feature, threshold, value=None):
    return SimpleNamespace(
        feature=np.array([feature, -2, -2]),
        threshold=np.array([threshold, -2.0, -2.0]),
        children_left=np.array([1, -1, -1]),
        children_right=np.array([2, -1, -1]),
        value=np.array([1e9, -1e9, 42.0]) if value is None else value,
    )


def test_recompute_sse_uses_the_routed_means_not_stored_values():
    tree = _stump(1, 0.5)
    X = np.array([[9, 0], [9, 0], [9, 0], [9, 1], [9, 1]], dtype=float)
    y = np.array([1.0, 2.0, 6.0, 4.0, 8.0])
    # left: mean 3 -> 4 + 1 + 9 = 14; right: mean 6 -> 4 + 4 = 8.
    assert recompute_sse(tree, X, y) == 22.0
    assert recompute_regression_objective(tree, X, y, 0.5) == 22.5
    # weights: left (1,2,6) w (1,1,2) mean 15/4 -> 7.5625 + 3.0625 + 2 * 5.0625
    w = [1, 1, 2, 0, 3]
    assert recompute_sse(tree, X, y, sample_weight=w) == pytest.approx(20.75, rel=1e-14)


def test_recompute_sse_threshold_is_inclusive_and_empty_leaves_are_free():
    tree = _stump(0, 1.5)
    X = np.array([[1.0], [1.5], [1.6]])
    assert route(tree, X).tolist() == [1, 1, 2]
    assert recompute_sse(tree, X, [0.0, 2.0, 100.0]) == 2.0
    # No row reaches the right leaf: it contributes nothing.
    assert recompute_sse(tree, X[:2], [0.0, 2.0]) == 2.0


def test_recompute_sse_xor_tree_out_of_pre_order():
    tree = SimpleNamespace(
        feature=np.array([0, 1, -2, -2, 1, -2, -2]),
        threshold=np.array([0.5, 0.5, -2, -2, 0.5, -2, -2]),
        children_left=np.array([1, 3, -1, -1, 5, -1, -1]),
        children_right=np.array([4, 2, -1, -1, 6, -1, -1]),
    )
    assert recompute_sse(tree, XOR_X, XOR_Y) == 0.0
    assert recompute_regression_objective(tree, XOR_X, XOR_Y, 2.0) == 6.0
    bad = SimpleNamespace(**{k: v.copy() for k, v in vars(tree).items()})
    bad.feature[1] = 0
    bad.feature[4] = 0
    assert recompute_sse(bad, XOR_X, XOR_Y) == 36.0


def test_recompute_sse_single_leaf():
    leaf = SimpleNamespace(feature=np.array([-2]), threshold=np.array([-2.0]),
                           children_left=np.array([-1]), children_right=np.array([-1]))
    assert recompute_sse(leaf, XOR_X, XOR_Y) == 36.0
    assert recompute_regression_objective(leaf, XOR_X, XOR_Y, 5.0) == 36.0


def test_oracle_tree_has_the_scikit_learn_layout():
    value, tree = brute_force_sse_tree(XOR_X, XOR_Y, 2)
    assert value == 0.0
    assert tree.feature.tolist() == [0, 1, -2, -2, 1, -2, -2]  # pre-order
    assert tree.threshold.tolist() == [0.0, 0.0, -2, -2, 0.0, -2, -2]
    assert tree.children_left.tolist() == [1, 2, -1, -1, 5, -1, -1]
    assert tree.children_right.tolist() == [4, 3, -1, -1, 6, -1, -1]
    assert tree.value.tolist() == [3.0, 3.0, 0.0, 6.0, 3.0, 6.0, 0.0]
    assert route(tree, XOR_X).tolist() == [2, 3, 5, 6]


# ---------------------------------------------------------------------------
# Properties on small random data
# ---------------------------------------------------------------------------

POOL = st.integers(0, 3).map(float)
# Large magnitudes with tiny spreads, large spreads, and plain small values.
AFFINE_TARGETS = st.tuples(st.sampled_from([0.0, 3.7, 1e6, -1e6, 1e9]),
                           st.sampled_from([1.0, 0.1, 1e-3, 1e3, 1e6]))
LOOSE_TARGET = st.sampled_from([0.0, 1.0, -2.5, 7.0, 1e-9, 1e6, 1e6 + 1e-3, -1e6])


@st.composite
def regression_instances(draw, max_n=10, max_features=3, weights=False):
    n = draw(st.integers(1, max_n))
    p = draw(st.integers(1, max_features))
    X = draw(hnp.arrays(np.float64, (n, p), elements=POOL))
    if draw(st.booleans()):
        base, scale = draw(AFFINE_TARGETS)
        k = draw(hnp.arrays(np.int64, (n,), elements=st.integers(-3, 3)))
        y = base + scale * k
    else:
        y = draw(hnp.arrays(np.float64, (n,), elements=LOOSE_TARGET))
    w = None
    if weights and draw(st.booleans()):
        w = draw(hnp.arrays(np.float64, (n,),
                            elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])))
    return X, y, w


COSTS = st.sampled_from([0.0, 0.3, 2.5, 1e4])


@settings(max_examples=120, deadline=None)
@given(regression_instances(weights=True), st.integers(0, 3), COSTS, st.integers(1, 3))
def test_optimal_tree_recomputes_to_the_value(inst, depth, cost, msl):
    X, y, w = inst
    value, tree = brute_force_sse_tree(X, y, depth, cost, msl, w)
    assert value == brute_force_sse(X, y, depth, cost, msl, w)
    if tree is None:
        assert value == math.inf
        assert int(np.count_nonzero(w > 0) if w is not None else len(y)) < msl
        return
    Xk, yk, wk = _drop_zero_weight(X, y, w)
    assert tree_depth(tree) <= depth
    assert min(leaf_sizes(tree, Xk).values()) >= msl
    got = recompute_regression_objective(tree, X, y, cost, w)
    assert got == pytest.approx(value, rel=0, abs=tolerance(yk, wk, value))
    leaves = route(tree, Xk)
    for leaf in np.unique(leaves):
        here = leaves == leaf
        # Means of targets that cancel (1e6 + 1e-3 and -1e6) are only known
        # to a few ulps of the targets, not relative to the mean.
        assert tree.value[leaf] == pytest.approx(np.average(yk[here], weights=wk[here]),
                                                 rel=1e-12, abs=16 * EPS * np.abs(yk).max())


@settings(max_examples=100, deadline=None)
@given(regression_instances(weights=True), COSTS, st.integers(1, 3))
def test_never_worse_with_more_depth(inst, cost, msl):
    X, y, w = inst
    values = [brute_force_sse(X, y, d, cost, msl, w) for d in range(4)]
    # Exact: each deeper search sees the shallower candidates with children
    # at least as good, and rounding is monotone.
    assert all(a >= b for a, b in zip(values, values[1:]))
    Xk, yk, wk = _drop_zero_weight(X, y, w)
    if len(yk) >= msl:
        assert values[0] == pytest.approx(np_sse(yk, wk), rel=0, abs=tolerance(yk, wk))
    else:
        assert values == [math.inf] * 4


@settings(max_examples=150, deadline=None)
@given(regression_instances(weights=True), COSTS, st.integers(1, 4))
def test_depth_one_equals_a_stump_scan(inst, cost, msl):
    X, y, w = inst
    _, yk, wk = _drop_zero_weight(X, y, w)
    expected = stump_scan(X, y, cost, msl, w)
    got = brute_force_sse(X, y, 1, cost, msl, w)
    if expected == math.inf:
        assert got == math.inf
    else:
        assert got == pytest.approx(expected, rel=0, abs=tolerance(yk, wk, cost))


@settings(max_examples=100, deadline=None)
@given(regression_instances(max_features=1, weights=True), st.integers(0, 3), COSTS,
       st.integers(1, 3))
def test_one_feature_equals_segmentation(inst, depth, cost, msl):
    X, y, w = inst
    _, yk, wk = _drop_zero_weight(X, y, w)
    expected = segmentation_sse(X[:, 0], y, depth, cost, msl, w)
    got = brute_force_sse(X, y, depth, cost, msl, w)
    if expected == math.inf:
        assert got == math.inf
    else:
        assert got == pytest.approx(expected, rel=0, abs=tolerance(yk, wk, 3 * cost))


@settings(max_examples=60, deadline=None)
@given(regression_instances(max_n=6), st.integers(0, 3), COSTS, st.integers(1, 2))
def test_matches_naive_enumeration(inst, depth, cost, msl):
    X, y, _ = inst
    if depth == 3 and len(y) > 5:
        depth = 2  # the naive enumerator is exponential
    expected = naive_sse(X, y, depth, cost, msl)
    got = brute_force_sse(X, y, depth, cost, msl)
    if expected == math.inf:
        assert got == math.inf
    else:
        assert got == pytest.approx(expected, rel=0, abs=tolerance(y, None, 7 * cost))


@settings(max_examples=80, deadline=None)
@given(regression_instances(max_n=8), st.data(), st.integers(0, 3), COSTS)
def test_integer_weights_equal_repeated_rows(inst, data, depth, cost):
    # Only with min_samples_leaf=1: repeating a row adds rows, a weight does
    # not.  Identical rows can never be separated, so the trees match.
    X, y, _ = inst
    w = data.draw(hnp.arrays(np.int64, (len(y),), elements=st.integers(0, 3)))
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    weighted = brute_force_sse(X, y, depth, cost, sample_weight=w)
    repeated = brute_force_sse(Xr, yr, depth, cost)
    if len(yr) == 0:
        assert weighted == repeated == math.inf
    else:
        assert weighted == pytest.approx(repeated, rel=0, abs=tolerance(yr, None, 7 * cost))


@settings(max_examples=80, deadline=None)
@given(regression_instances(weights=True), st.integers(0, 3), COSTS, st.integers(1, 3),
       st.sampled_from([0.5, 3.0, 1e-3, 1e3]))
def test_scaling_weights_scales_the_objective(inst, depth, cost, msl, c):
    X, y, w = inst
    w = np.ones(len(y)) if w is None else w
    base = brute_force_sse(X, y, depth, cost, msl, w)
    scaled = brute_force_sse(X, y, depth, c * cost, msl, c * w)
    if base == math.inf:
        assert scaled == math.inf
        return
    _, yk, wk = _drop_zero_weight(X, y, w)
    assert scaled == pytest.approx(c * base, rel=0,
                                   abs=c * tolerance(yk, wk, 7 * cost) + tolerance(yk, c * wk))


@settings(max_examples=80, deadline=None)
@given(regression_instances(weights=True), st.integers(0, 3), st.integers(1, 3),
       st.sampled_from([-3.0, 0.5, 1e-3, 1e3]), st.sampled_from([-5.0, 0.25, 1e6]))
def test_affine_targets(inst, depth, msl, a, shift):
    # SSE only: with cost_per_node > 0 the trade-off against cost would move.
    X, y, w = inst
    base = brute_force_sse(X, y, depth, 0.0, msl, w)
    scaled = brute_force_sse(X, a * y, depth, 0.0, msl, w)
    shifted = brute_force_sse(X, y + shift, depth, 0.0, msl, w)
    if base == math.inf:
        assert scaled == shifted == math.inf
        return
    _, yk, wk = _drop_zero_weight(X, y, w)
    tol = tolerance(yk, wk)
    assert scaled == pytest.approx(a * a * base, rel=0,
                                   abs=a * a * tol + tolerance(a * yk, wk))
    assert shifted == pytest.approx(base, rel=0, abs=tol + tolerance(yk + shift, wk))


@settings(max_examples=60, deadline=None)
@given(regression_instances(weights=True), st.randoms(use_true_random=False), COSTS)
def test_invariant_under_row_and_column_order_and_monotone_features(inst, rnd, cost):
    X, y, w = inst
    w = np.ones(len(y)) if w is None else w
    rows = list(range(len(y)))
    rnd.shuffle(rows)
    cols = list(range(X.shape[1]))
    rnd.shuffle(cols)
    X2 = np.exp(X[rows][:, cols]) * 3.0 - 7.0
    _, yk, wk = _drop_zero_weight(X, y, w)
    for d in range(4):
        a = brute_force_sse(X, y, d, cost, sample_weight=w)
        b = brute_force_sse(X2, y[rows], d, cost, sample_weight=w[rows])
        if a == math.inf:
            assert b == math.inf
        else:
            assert b == pytest.approx(a, rel=0, abs=tolerance(yk, wk, 7 * cost))
