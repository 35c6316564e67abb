"""Sanity tests of the cost-sensitive brute-force oracle itself (no package
import here): hand-computed optima and trees, agreement with the
misclassification oracle when every error costs 1, and properties checked
against an independent stump scan written below."""
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from oracle import brute_force_objective, leaf_sizes, n_branching_nodes, route, tree_depth
from oracle_cost import (
    brute_force_cost,
    brute_force_cost_tree,
    leaf_prediction,
    recompute_cost,
    recompute_cost_objective,
)

SYMMETRIC = 1.0 - np.eye(2)


def _drop_zero_weight(X, y, w):
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    keep = w > 0
    return X[keep], y[keep], w[keep]


def np_leaf_cost(y, w, C):
    """Cheapest class's cost with plain numpy: class weights times C."""
    counts = np.bincount(y, weights=w, minlength=C.shape[0])
    return float((counts @ C).min())


def stump_scan(X, y, C, cost_per_node=0.0, min_samples_leaf=1, sample_weight=None):
    """Best tree of depth <= 1 by scanning every cut of every sorted column and
    recomputing both sides from scratch: O(n^2) per feature."""
    C = np.asarray(C, dtype=np.float64)
    X, y, w = _drop_zero_weight(X, y, sample_weight)
    n = len(y)
    best = np_leaf_cost(y, w, C) if n >= min_samples_leaf else math.inf
    for f in range(X.shape[1]):
        order = np.argsort(X[:, f], kind="stable")
        xs = X[order, f]
        for i in range(1, n):
            if xs[i] == xs[i - 1] or i < min_samples_leaf or n - i < min_samples_leaf:
                continue
            lo, hi = order[:i], order[i:]
            best = min(best, cost_per_node + np_leaf_cost(y[lo], w[lo], C)
                       + np_leaf_cost(y[hi], w[hi], C))
    return best


def close(a, b):
    """Equal up to the rounding of a float computation of the same sum."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return a == pytest.approx(b, rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------
# Hand-computed cases
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [0, 1, 2])
def test_minority_class_can_be_the_cheaper_prediction(depth):
    # One row of class 1 among three of class 0, inseparable (constant
    # feature).  Predicting 0 misses the 1 at cost 5; predicting 1 misses the
    # three 0s at cost 1 each.
    X = np.zeros((4, 1))
    y = [0, 0, 0, 1]
    C = [[0.0, 1.0], [5.0, 0.0]]
    value, tree = brute_force_cost_tree(X, y, depth, C)
    assert value == brute_force_cost(X, y, depth, C) == 3.0
    assert list(tree.prediction) == [1]
    assert list(tree.value[0]) == [3.0, 1.0]
    # Symmetric costs: the majority again, at one error.
    value, tree = brute_force_cost_tree(X, y, depth, SYMMETRIC)
    assert value == 1.0 and list(tree.prediction) == [0]


# y = 0 0 0 1 1 1.  Feature 0 isolates two 1s: {0,0,0,1} | {1,1}.  Feature 1
# isolates one 0: {0} | {0,0,1,1,1}.
ASYM_X = np.array([[0, 0], [0, 1], [0, 1], [0, 1], [1, 1], [1, 1]], dtype=float)
ASYM_Y = np.array([0, 0, 0, 1, 1, 1])


@pytest.mark.parametrize("C, root, feature", [
    # Symmetric: feature 0 errs once (a 1 left), feature 1 twice (two 0s right).
    (SYMMETRIC, 3.0, 0),
    # Missing a 1 costs 5: feature 0's left leaf now costs 3 (predict 1, three
    # 0s wrong), feature 1's right leaf still 2 (predict 1).
    ([[0.0, 1.0], [5.0, 0.0]], 3.0, 1),
    # Missing a 0 costs 5: feature 0's split costs 1, feature 1's costs 3.
    ([[0.0, 5.0], [1.0, 0.0]], 3.0, 0),
])
def test_asymmetric_costs_change_the_best_split(C, root, feature):
    expected = {0: 1.0, 1: 2.0}[feature]
    assert brute_force_cost(ASYM_X, ASYM_Y, 0, C) == root
    value, tree = brute_force_cost_tree(ASYM_X, ASYM_Y, 1, C)
    assert value == expected == stump_scan(ASYM_X, ASYM_Y, C)
    assert tree.feature[0] == feature and tree.threshold[0] == 0.0
    assert recompute_cost(tree, ASYM_X, ASYM_Y, C) == value


def test_diagonal_costs_count_too():
    # Every prediction costs c per unit of weight, right or wrong: no split
    # can help, at any depth.
    X = np.arange(6, dtype=float).reshape(-1, 1)
    y = [0, 1, 2, 0, 1, 2]
    w = [1.0, 2.0, 0.5, 0.0, 1.0, 3.0]
    for depth in range(4):
        assert brute_force_cost(X, y, depth, np.full((3, 3), 2.5), sample_weight=w) == 2.5 * 7.5


def test_leaf_costs_are_exact():
    # A float sum left to right loses both 1s against 1e16 (1e16 + 1 rounds
    # to even); the oracle must not.
    X = np.zeros((3, 1))
    y = [1, 1, 1]
    w = [1e16, 1.0, 1.0]
    C = [[0.0, 1.0], [1.0, 1.0]]
    assert brute_force_cost(X, y, 1, C, sample_weight=w) == 1e16 + 2
    # And sums of leaves: 0.1 + 0.2 + 0.3 as floats is 0.6000000000000001.
    X = np.array([[0.0], [1.0], [2.0]])
    y = [0, 0, 0]
    C = [[1.0, 1.0], [1.0, 1.0]]
    assert brute_force_cost(X, y, 2, C, sample_weight=[0.1, 0.2, 0.3]) == 0.6


def test_infeasible_and_empty():
    X = np.zeros((3, 1))
    assert brute_force_cost(X, [0, 1, 0], 2, SYMMETRIC, min_samples_leaf=4) == math.inf
    assert brute_force_cost_tree(X, [0, 1, 0], 2, SYMMETRIC, min_samples_leaf=4) == (math.inf, None)
    # Weight-0 rows do not exist: two rows left, fewer than 3.
    assert brute_force_cost(X, [0, 1, 0], 0, SYMMETRIC, min_samples_leaf=3,
                            sample_weight=[1.0, 0.0, 2.0]) == math.inf
    assert brute_force_cost(X, [0, 1, 0], 0, SYMMETRIC, min_samples_leaf=2,
                            sample_weight=[1.0, 0.0, 2.0]) == 0.0


def test_zero_weight_rows_do_not_count_for_min_samples_leaf():
    # The rows of positive weight are x = 0 (class 0) and x = 2, 3, 4 (class
    # 1).  Isolating x = 0 would be pure, but leaves only one row left of the
    # cut; counting the weight-0 row at x = 1 would wrongly allow it.
    X = np.arange(5, dtype=float).reshape(-1, 1)
    y = [0, 0, 1, 1, 1]
    w = [1.0, 0.0, 1.0, 1.0, 1.0]
    assert brute_force_cost(X, y, 1, SYMMETRIC, min_samples_leaf=1, sample_weight=w) == 0.0
    assert brute_force_cost(X, y, 1, SYMMETRIC, min_samples_leaf=2, sample_weight=w) == 1.0


def test_leaf_prediction_ties_go_to_the_smallest_class():
    assert leaf_prediction([1.0, 1.0], SYMMETRIC) == 0
    assert leaf_prediction([0.0, 0.0], SYMMETRIC) == 0
    assert leaf_prediction([0.0, 0.0, 0.0], [[0, 1, 1], [1, 0, 1], [1, 1, 0]]) == 0
    # Classes 1 and 2 both cost 2; class 0 costs 3.
    C = [[0.0, 1.0, 1.0], [3.0, 0.0, 1.0], [3.0, 1.0, 0.0]]
    assert leaf_prediction([0.0, 1.0, 1.0], C) == 1
    # Exact, not float: predicting 0 costs the double just above 0.3,
    # predicting 1 costs 0.1 + 0.2, which floats round to that same double
    # (a tie, so class 0) but which is truly smaller (so class 1).
    C = [[0.0, 0.1, 1.0], [0.1 + 0.2, 0.0, 1.0], [0.0, 0.2, 1.0]]
    assert np.argmin(np.array([1.0, 1.0, 1.0]) @ np.array(C)) == 0
    assert leaf_prediction([1.0, 1.0, 1.0], C) == 1
    assert leaf_prediction([1.0, 2.0], [[0.0, 0.5], [0.25, 0.0]]) == 0  # 0.5 = 0.5: tie
    assert leaf_prediction([1.0, 3.0], [[0.0, 0.5], [0.25, 0.0]]) == 1


def test_rejects_what_it_does_not_define():
    X = np.zeros((2, 1))
    with pytest.raises(ValueError):
        brute_force_cost(X, [0, 1], 1, [[0.0, -1.0], [1.0, 0.0]])
    with pytest.raises(ValueError):
        brute_force_cost(X, [0, 1], 1, [[0.0, math.inf], [1.0, 0.0]])
    with pytest.raises(ValueError):
        brute_force_cost(X, [0, 1], 1, [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
    with pytest.raises(ValueError):
        brute_force_cost(X, [0, 2], 1, SYMMETRIC)
    with pytest.raises(ValueError):
        brute_force_cost(X, [0, 0.5], 1, SYMMETRIC)
    with pytest.raises(ValueError):
        brute_force_cost(X, [0, 1], 1, SYMMETRIC, cost_per_node=-1.0)
    with pytest.raises(ValueError):
        brute_force_cost(X, [0, 1], 1, SYMMETRIC, sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError):
        brute_force_cost(np.array([[0.0], [math.nan]]), [0, 1], 1, SYMMETRIC)
    with pytest.raises(ValueError):
        leaf_prediction([1.0], SYMMETRIC)


def _stump(feature, threshold, value=None):
    return SimpleNamespace(children_left=np.array([1, -1, -1]),
                           children_right=np.array([2, -1, -1]),
                           feature=np.array([feature, -2, -2]),
                           threshold=np.array([threshold, -2.0, -2.0]),
                           value=value)


def test_recompute_cost_predicts_the_cheapest_class_whatever_is_stored():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = [0, 1, 1, 0]
    C = [[0.0, 1.0], [4.0, 0.0]]
    # x <= 1 goes left (inclusive): {0, 1} predicts 1 at cost 1, {1, 0} too.
    tree = _stump(0, 1.0, value=np.array([[9.0, 0.0], [9.0, 0.0], [9.0, 0.0]]))
    assert recompute_cost(tree, X, y, C) == 2.0
    assert recompute_cost_objective(tree, X, y, C, cost_per_node=0.5) == 2.5
    assert recompute_cost(tree, X, y, C, sample_weight=[3.0, 0.0, 1.0, 0.5]) == 0.5 + 0.0
    # A leaf no row reaches costs nothing.
    assert recompute_cost(_stump(0, 10.0), X, y, C) == 2.0
    assert n_branching_nodes(tree) == 1


# ---------------------------------------------------------------------------
# Properties on drawn instances
# ---------------------------------------------------------------------------

POOL = st.integers(0, 3).map(float)
COSTS = st.sampled_from([0.0, 0.3, 1.5])
ENTRIES = st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 7.0])
WEIGHTS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])


@st.composite
def cost_instances(draw, max_n=10, max_features=3, weights=True):
    """Tiny data with ties, duplicate rows and (often) constant features, 1-4
    classes (not all need occur) and a cost matrix of small entries."""
    n = draw(st.integers(0, max_n))
    p = draw(st.integers(1, max_features))
    k = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.float64, (n, p), elements=POOL))
    if n and draw(st.booleans()):
        X[:, draw(st.integers(0, p - 1))] = draw(POOL)
    y = draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, k - 1)))
    C = draw(hnp.arrays(np.float64, (k, k), elements=ENTRIES))
    w = None
    if weights and draw(st.booleans()):
        w = draw(hnp.arrays(np.float64, (n,), elements=WEIGHTS))
    return X, y, C, w


@settings(max_examples=150, deadline=None)
@given(cost_instances(), st.integers(0, 3), COSTS, st.integers(1, 3))
def test_unit_costs_equal_the_misclassification_oracle(inst, depth, cost, msl):
    X, y, C, w = inst
    unit = 1.0 - np.eye(len(C))
    got = brute_force_cost(X, y, depth, unit, cost, msl, w)
    expected = brute_force_objective(X, y, depth, cost, msl, w)
    if w is None and cost == 0.0:
        assert got == expected  # integers: both exact
    else:
        assert close(got, expected)


@settings(max_examples=60, deadline=None)
@given(cost_instances(), st.integers(0, 3), COSTS, st.integers(1, 2))
def test_zero_costs_give_zero(inst, depth, cost, msl):
    X, y, C, w = inst
    value, tree = brute_force_cost_tree(X, y, depth, np.zeros_like(C), cost, msl, w)
    _, yk, _ = _drop_zero_weight(X, y, w)
    if len(yk) < msl:
        assert value == math.inf and tree is None
    else:
        assert value == 0.0 and len(tree.feature) == 1 and tree.prediction[0] == 0


@settings(max_examples=120, deadline=None)
@given(cost_instances(), st.integers(0, 3), COSTS, st.integers(1, 3))
def test_optimal_tree_recomputes_to_the_value(inst, depth, cost, msl):
    X, y, C, w = inst
    value, tree = brute_force_cost_tree(X, y, depth, C, cost, msl, w)
    assert value == brute_force_cost(X, y, depth, C, cost, msl, w)
    Xk, yk, wk = _drop_zero_weight(X, y, w)
    if tree is None:
        assert value == math.inf and len(yk) < msl
        return
    assert tree_depth(tree) <= depth
    assert min(leaf_sizes(tree, Xk).values()) >= msl
    # Both exact and rounded once: equal, not just close.
    assert recompute_cost_objective(tree, X, y, C, cost, w) == value
    leaves = route(tree, Xk)
    for leaf in np.unique(leaves):
        here = leaves == leaf
        counts = np.bincount(yk[here], weights=wk[here], minlength=len(C))
        assert np.array_equal(tree.value[leaf], counts)
        assert tree.prediction[leaf] == leaf_prediction(counts, C)
        assert np_leaf_cost(yk[here], wk[here], C) == pytest.approx(
            float((counts @ C)[tree.prediction[leaf]]), rel=1e-12, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(cost_instances(), COSTS, st.integers(1, 3))
def test_never_worse_with_more_depth(inst, cost, msl):
    X, y, C, w = inst
    values = [brute_force_cost(X, y, d, C, cost, msl, w) for d in range(4)]
    assert all(a >= b for a, b in zip(values, values[1:]))
    _, yk, wk = _drop_zero_weight(X, y, w)
    if len(yk) >= msl:
        assert close(values[0], np_leaf_cost(yk, wk, C))
    else:
        assert values == [math.inf] * 4


@settings(max_examples=150, deadline=None)
@given(cost_instances(max_n=12), COSTS, st.integers(1, 4))
def test_depth_one_equals_a_stump_scan(inst, cost, msl):
    X, y, C, w = inst
    assert close(brute_force_cost(X, y, 1, C, cost, msl, w), stump_scan(X, y, C, cost, msl, w))


@settings(max_examples=80, deadline=None)
@given(cost_instances(), st.integers(0, 3), COSTS, st.integers(1, 3),
       st.sampled_from([0.5, 3.0, 1e-3, 1e3]))
def test_scaling_costs_scales_the_objective(inst, depth, cost, msl, a):
    X, y, C, w = inst
    base = brute_force_cost(X, y, depth, C, cost, msl, w)
    scaled = brute_force_cost(X, y, depth, a * C, a * cost, msl, w)
    if a in (0.5,):
        assert scaled == a * base  # a power of two: exact both sides
    else:
        assert close(scaled, a * base)


@settings(max_examples=80, deadline=None)
@given(cost_instances(max_n=8, weights=False), st.data(), st.integers(0, 3), COSTS)
def test_integer_weights_equal_repeated_rows(inst, data, depth, cost):
    # Only with min_samples_leaf=1: repeating a row adds rows, a weight does
    # not.  Identical rows can never be separated, so the trees match.
    X, y, C, _ = inst
    w = data.draw(hnp.arrays(np.int64, (len(y),), elements=st.integers(0, 3)))
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    weighted = brute_force_cost(X, y, depth, C, cost, sample_weight=w)
    repeated = brute_force_cost(Xr, yr, depth, C, cost)
    assert weighted == repeated  # the same exact optimum, rounded once


@settings(max_examples=60, deadline=None)
@given(cost_instances(), st.integers(0, 3), COSTS, st.integers(1, 2), st.randoms(use_true_random=False))
def test_renaming_classes_changes_nothing(inst, depth, cost, msl, rnd):
    # Relabel class a as pi(a) and move C's rows and columns along with it.
    X, y, C, w = inst
    pi = list(range(len(C)))
    rnd.shuffle(pi)
    pi = np.array(pi, dtype=np.int64)
    C2 = np.empty_like(C)
    C2[np.ix_(pi, pi)] = C
    assert (brute_force_cost(X, pi[y], depth, C2, cost, msl, w)
            == brute_force_cost(X, y, depth, C, cost, msl, w))
