"""Sanity tests of the brute-force oracle itself (no package import here)."""
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from oracle import (
    brute_force_objective,
    depth1_objective,
    depth2_objective,
    leaf_sizes,
    n_branching_nodes,
    naive_objective,
    recompute_error,
    recompute_objective,
    route,
    tree_depth,
)

XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
XOR_Y = np.array([0, 1, 1, 0])


# ---------------------------------------------------------------------------
# Hand-computed cases
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_pure_node_is_zero(depth):
    X = np.array([[3.0, 1.0], [1.0, 2.0], [2.0, 2.0]])
    assert brute_force_objective(X, [7, 7, 7], depth) == 0


@pytest.mark.parametrize("depth, expected", [(0, 2), (1, 2), (2, 0), (3, 0)])
def test_xor_needs_depth_two(depth, expected):
    assert brute_force_objective(XOR_X, XOR_Y, depth) == expected


@pytest.mark.parametrize("cost, expected", [(0.4, 1.2), (0.6, 1.8), (0.7, 2.0), (5.0, 2.0)])
def test_xor_with_complexity_cost(cost, expected):
    # The zero-error tree has three branching nodes; the leaf has 2 errors;
    # no depth-1 tree beats the leaf.
    assert brute_force_objective(XOR_X, XOR_Y, 2, cost) == pytest.approx(expected)


def test_identical_rows_cannot_be_split():
    X = np.ones((5, 2))
    y = [0, 0, 1, 1, 1]
    for depth in range(4):
        assert brute_force_objective(X, y, depth) == 2


def test_constant_feature_is_useless():
    X = np.array([[5, 0], [5, 1], [5, 2], [5, 3]], dtype=float)
    y = [0, 0, 1, 1]
    assert brute_force_objective(X, y, 1) == 0
    assert brute_force_objective(X[:, :1], y, 1) == 2


@pytest.mark.parametrize("depth, expected", [(0, 3), (1, 2), (2, 1), (3, 0)])
def test_alternating_labels_on_a_line(depth, expected):
    # y alternates 0,1,0,1,0,1 along one feature: a depth-d tree gives at
    # most 2**d intervals; computed by hand.
    X = np.arange(6, dtype=float).reshape(-1, 1)
    y = [0, 1, 0, 1, 0, 1]
    assert brute_force_objective(X, y, depth) == expected


def test_split_only_between_distinct_values():
    # Values 0,0,1,1 with labels 0,1,0,1: the only split (x <= 0.5) puts one of
    # each label on each side, so depth does not help.
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    assert brute_force_objective(X, [0, 1, 0, 1], 3) == 2


@pytest.mark.parametrize("msl, expected", [(1, 0), (2, 0), (3, 0), (4, 3), (6, 3), (7, math.inf)])
def test_min_samples_leaf(msl, expected):
    X = np.arange(6, dtype=float).reshape(-1, 1)
    y = [0, 0, 0, 1, 1, 1]
    assert brute_force_objective(X, y, 2, min_samples_leaf=msl) == expected


def test_min_samples_leaf_forces_worse_split():
    X = np.arange(4, dtype=float).reshape(-1, 1)
    y = [0, 1, 1, 1]
    assert brute_force_objective(X, y, 1, min_samples_leaf=1) == 0
    # Leaves need >= 2 rows: the best is x <= 1.5 -> {0,1} | {1,1}: 1 error.
    assert brute_force_objective(X, y, 1, min_samples_leaf=2) == 1
    assert brute_force_objective(X, y, 2, min_samples_leaf=3) == 1


def test_string_and_sparse_labels():
    y = np.array(["b", "a", "a", "zz"])
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    assert brute_force_objective(X, y, 0) == 2
    assert brute_force_objective(X, y, 1) == 1
    assert brute_force_objective(X, y, 2) == 0


def test_single_row():
    assert brute_force_objective(np.array([[1.0]]), [4], 3) == 0


def test_float_midpoint_rounding_does_not_matter():
    # Consecutive doubles: the midpoint rounds to one of them; the oracle must
    # still see the split.
    a = 1.0
    b = np.nextafter(a, 2.0)
    X = np.array([[a], [b]])
    assert brute_force_objective(X, [0, 1], 1) == 0


# ---------------------------------------------------------------------------
# Tree walking helpers on hand-built trees
# ---------------------------------------------------------------------------

def _stump(feature, threshold):
    return SimpleNamespace(
        feature=np.array([feature, -1, -1]),
        threshold=np.array([threshold, -2.0, -2.0]),
        children_left=np.array([1, -1, -1]),
        children_right=np.array([2, -1, -1]),
    )


def test_route_threshold_is_inclusive_on_the_left():
    tree = _stump(0, 1.5)
    X = np.array([[1.0], [1.5], [1.6], [-3.0]])
    assert route(tree, X).tolist() == [1, 1, 2, 1]


def test_recompute_error_uses_majority_per_leaf():
    tree = _stump(1, 0.5)
    X = np.array([[9, 0], [9, 0], [9, 0], [9, 1], [9, 1]], dtype=float)
    y = np.array(["a", "a", "b", "b", "a"])
    # left leaf: a,a,b -> 1 error; right leaf: b,a -> 1 error (tie)
    assert recompute_error(tree, X, y) == 2
    assert leaf_sizes(tree, X) == {1: 3, 2: 2}
    assert n_branching_nodes(tree) == 1
    assert tree_depth(tree) == 1
    assert recompute_objective(tree, X, y, 0.5) == pytest.approx(2.5)


def test_recompute_error_xor_tree():
    # root x0 <= 0.5; both children split on x1 <= 0.5 (nodes listed out of
    # pre-order on purpose).
    tree = SimpleNamespace(
        feature=np.array([0, 1, -1, -1, 1, -1, -1]),
        threshold=np.array([0.5, 0.5, -2, -2, 0.5, -2, -2]),
        children_left=np.array([1, 3, -1, -1, 5, -1, -1]),
        children_right=np.array([4, 2, -1, -1, 6, -1, -1]),
    )
    assert recompute_error(tree, XOR_X, XOR_Y) == 0
    assert route(tree, XOR_X).tolist() == [3, 2, 5, 6]
    assert n_branching_nodes(tree) == 3
    assert tree_depth(tree) == 2
    # A wrong tree (both children split on x0 again) must be detected.
    bad = SimpleNamespace(**{k: v.copy() for k, v in vars(tree).items()})
    bad.feature[1] = 0
    bad.feature[4] = 0
    assert recompute_error(bad, XOR_X, XOR_Y) == 2


def test_single_leaf_tree():
    leaf = SimpleNamespace(feature=np.array([-1]), threshold=np.array([-2.0]),
                           children_left=np.array([-1]), children_right=np.array([-1]))
    assert recompute_error(leaf, XOR_X, XOR_Y) == 2
    assert n_branching_nodes(leaf) == 0
    assert tree_depth(leaf) == 0


# ---------------------------------------------------------------------------
# Properties: cross-check against an exhaustive naive enumerator and against
# an exact 1-D dynamic program (a depth-d tree on one feature realises
# exactly the partitions into <= 2**d contiguous intervals).
# ---------------------------------------------------------------------------

def segmentation_objective(x, y, depth, cost_per_node=0.0, min_samples_leaf=1):
    order = np.argsort(x, kind="stable")
    x, y = np.asarray(x)[order], np.asarray(y)[order]
    # Segment boundaries are only allowed between distinct values.
    cuts = [0] + [i for i in range(1, len(x)) if x[i] != x[i - 1]] + [len(x)]
    g = len(cuts) - 1
    kmax = 2 ** depth

    def seg(a, b):  # groups a..b-1
        rows = y[cuts[a]:cuts[b]]
        if len(rows) < min_samples_leaf:
            return math.inf
        _, c = np.unique(rows, return_counts=True)
        return len(rows) - c.max()

    # dp[k][j]: best error covering groups 0..j-1 with exactly k segments
    dp = [[math.inf] * (g + 1) for _ in range(kmax + 1)]
    dp[0][0] = 0
    for k in range(1, kmax + 1):
        for j in range(1, g + 1):
            dp[k][j] = min(dp[k - 1][i] + seg(i, j) for i in range(j))
    return min(dp[k][g] + cost_per_node * (k - 1) for k in range(1, kmax + 1))


small_int = st.integers(0, 3)


@st.composite
def tiny_instances(draw, max_n=7, max_features=2):
    n = draw(st.integers(1, max_n))
    p = draw(st.integers(1, max_features))
    X = draw(hnp.arrays(np.float64, (n, p), elements=small_int.map(float)))
    y = draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, 2)))
    return X, y


@settings(max_examples=150, deadline=None)
@given(tiny_instances(), st.integers(0, 3), st.sampled_from([0.0, 0.3, 1.5]),
       st.integers(1, 3))
def test_matches_naive_enumeration(inst, depth, cost, msl):
    X, y = inst
    if depth == 3 and len(y) > 6:
        depth = 2  # naive enumeration is exponential
    assert brute_force_objective(X, y, depth, cost, msl) == pytest.approx(
        naive_objective(X, y, depth, cost, msl))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3)), min_size=1, max_size=12),
       st.integers(0, 3), st.sampled_from([0.0, 0.25, 2.0]), st.integers(1, 3))
def test_matches_one_dimensional_dp(rows, depth, cost, msl):
    x = np.array([r[0] for r in rows], dtype=float)
    y = np.array([r[1] for r in rows])
    expected = segmentation_objective(x, y, depth, cost, msl)
    got = brute_force_objective(x.reshape(-1, 1), y, depth, cost, msl)
    assert got == pytest.approx(expected)


@settings(max_examples=60, deadline=None)
@given(tiny_instances(max_n=10, max_features=3), st.randoms(use_true_random=False))
def test_invariances(inst, rnd):
    X, y = inst
    base = [brute_force_objective(X, y, d) for d in range(4)]
    # depth monotonicity (cost 0) and trivial bounds
    assert all(a >= b for a, b in zip(base, base[1:]))
    _, counts = np.unique(y, return_counts=True)
    assert base[0] == len(y) - counts.max()
    # row order, column order, label names and monotone feature transforms
    rows = list(range(len(y)))
    rnd.shuffle(rows)
    cols = list(range(X.shape[1]))
    rnd.shuffle(cols)
    X2 = X[rows][:, cols] * 3.0 - 7.0
    y2 = np.array(["c%d" % (9 - v) for v in y])[rows]
    assert [brute_force_objective(X2, y2, d) for d in range(4)] == base


@settings(max_examples=200, deadline=None)
@given(tiny_instances(max_n=12, max_features=3), st.integers(1, 4))
def test_vectorised_depth1_and_depth2_match_brute_force(inst, msl):
    X, y = inst
    assert depth1_objective(X, y) == brute_force_objective(X, y, 1)
    assert depth2_objective(X, y) == brute_force_objective(X, y, 2)
    assert depth1_objective(X, y, msl) == brute_force_objective(X, y, 1, min_samples_leaf=msl)
    assert depth2_objective(X, y, msl) == brute_force_objective(X, y, 2, min_samples_leaf=msl)
