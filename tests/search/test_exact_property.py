"""Property tests: the estimator's objective equals an independent brute-force
optimum on many small random instances (ties, duplicate rows, constant
features, 1-6 classes, depths 0-3)."""
import numpy as np
import pytest
from hypothesis import assume, given, note, settings, strategies as st

from helpers import check_tree_invariants, n_examples
from instances import SETTINGS, instances
from oracle import (
    brute_force_objective,
    depth1_objective,
    depth2_objective,
    leaf_sizes,
    n_branching_nodes,
    recompute_error,
    recompute_objective,
)

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data.encoding import threshold_between

EPS = 1e-9


def fit(X, y, **params):
    clf = OptimalTreeClassifier(**params)
    clf.fit(X, y)
    return clf


def _describe(X, y, **params):
    note(f"X = np.array({X.tolist()!r})")
    note(f"y = np.array({y.tolist()!r})")
    note(f"params = {params!r}")


@settings(max_examples=n_examples(250), **SETTINGS)
@given(instances(), st.integers(0, 3))
def test_exact_no_cost(inst, depth):
    X, y = inst
    _describe(X, y, max_depth=depth)
    expected = brute_force_objective(X, y, depth)
    clf = fit(X, y, max_depth=depth)
    assert clf.objective_ == expected
    assert clf.train_error_ == expected
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert int(np.sum(np.asarray(clf.predict(X)) != y)) == clf.train_error_
    assert clf.lower_bound_ <= expected + EPS
    assert bool(clf.is_optimal_) is True
    assert clf.lower_bound_ == pytest.approx(clf.objective_)
    check_tree_invariants(clf, X, y, max_depth=depth)


@settings(max_examples=n_examples(150), **SETTINGS)
@given(instances(), st.integers(0, 3), st.sampled_from([0.05, 0.2]))
def test_exact_with_complexity_cost(inst, depth, cost):
    X, y = inst
    n = len(y)
    _describe(X, y, max_depth=depth, complexity_cost=cost)
    per_node = cost * n
    expected = brute_force_objective(X, y, depth, cost_per_node=per_node)
    clf = fit(X, y, max_depth=depth, complexity_cost=cost)
    assert clf.objective_ == pytest.approx(expected, abs=EPS)
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert clf.objective_ == pytest.approx(
        recompute_objective(clf.tree_, X, y, per_node), abs=EPS)
    assert clf.objective_ == pytest.approx(
        clf.train_error_ + per_node * n_branching_nodes(clf.tree_), abs=EPS)
    assert clf.lower_bound_ <= expected + EPS
    assert clf.is_optimal_
    check_tree_invariants(clf, X, y, max_depth=depth)


@settings(max_examples=n_examples(150), **SETTINGS)
@given(instances(), st.integers(0, 3), st.sampled_from([0.05, 0.1, 0.25, 0.5]),
       st.sampled_from([0.0, 0.0, 0.05]))
def test_max_gap_bounds(inst, depth, gap, cost):
    X, y = inst
    n = len(y)
    _describe(X, y, max_depth=depth, max_gap=gap, complexity_cost=cost)
    per_node = cost * n
    expected = brute_force_objective(X, y, depth, cost_per_node=per_node)
    clf = fit(X, y, max_depth=depth, max_gap=gap, complexity_cost=cost)
    assert expected - EPS <= clf.objective_ <= expected + gap * n + EPS
    assert clf.lower_bound_ <= expected + EPS
    assert clf.objective_ == pytest.approx(
        recompute_objective(clf.tree_, X, y, per_node), abs=EPS)
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    if clf.is_optimal_:
        assert clf.objective_ == pytest.approx(expected, abs=EPS)
    check_tree_invariants(clf, X, y, max_depth=depth)


@settings(max_examples=n_examples(150), **SETTINGS)
@given(instances(), st.integers(0, 3), st.sampled_from([1, 2, 3]))
def test_min_samples_leaf(inst, depth, msl):
    X, y = inst
    assume(len(y) >= msl)  # otherwise no feasible tree exists
    _describe(X, y, max_depth=depth, min_samples_leaf=msl)
    expected = brute_force_objective(X, y, depth, min_samples_leaf=msl)
    clf = fit(X, y, max_depth=depth, min_samples_leaf=msl)
    assert clf.objective_ == expected
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert clf.lower_bound_ <= expected + EPS
    assert clf.is_optimal_
    feature = np.asarray(clf.tree_.feature)
    n_node_samples = np.asarray(clf.tree_.n_node_samples)
    assert np.all(n_node_samples[feature < 0] >= msl)
    assert all(size >= msl for size in leaf_sizes(clf.tree_, X).values())
    check_tree_invariants(clf, X, y, max_depth=depth)


@settings(max_examples=n_examples(120), **SETTINGS)
@given(instances(max_classes=4), st.integers(0, 3), st.sampled_from([0.0, 0.05, 0.2]),
       st.sampled_from([1, 2, 3]), st.sampled_from([0.0, 0.0, 0.1]))
def test_all_parameters_combined(inst, depth, cost, msl, gap):
    X, y = inst
    n = len(y)
    assume(n >= msl)
    params = dict(max_depth=depth, complexity_cost=cost, min_samples_leaf=msl, max_gap=gap)
    _describe(X, y, **params)
    per_node = cost * n
    expected = brute_force_objective(X, y, depth, per_node, msl)
    clf = fit(X, y, **params)
    assert expected - EPS <= clf.objective_ <= expected + gap * n + EPS
    assert clf.lower_bound_ <= expected + EPS
    assert clf.objective_ == pytest.approx(
        recompute_objective(clf.tree_, X, y, per_node), abs=EPS)
    if gap == 0.0:
        assert clf.is_optimal_
        assert clf.objective_ == pytest.approx(expected, abs=EPS)
    assert all(size >= msl for size in leaf_sizes(clf.tree_, X).values())
    check_tree_invariants(clf, X, y, max_depth=depth)


@settings(max_examples=n_examples(40), **SETTINGS)
@given(instances(max_n=12), st.integers(0, 3))
def test_refit_is_deterministic_and_order_invariant(inst, depth):
    """Same data twice -> same objective; permuting rows/columns and
    relabelling classes does not change the optimal objective."""
    X, y = inst
    _describe(X, y, max_depth=depth)
    a = fit(X, y, max_depth=depth)
    b = fit(X, y, max_depth=depth)
    assert a.objective_ == b.objective_
    assert np.array_equal(a.predict(X), b.predict(X))
    rng = np.random.default_rng(len(y))
    rows = rng.permutation(len(y))
    cols = rng.permutation(X.shape[1])
    c = fit(X[rows][:, cols], y[rows], max_depth=depth)
    assert c.objective_ == a.objective_


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_xor_known_optimum(depth):
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=float)
    y = np.array([0, 1, 1, 0] * 3)
    clf = fit(X, y, max_depth=depth)
    assert clf.objective_ == (6 if depth < 2 else 0)
    assert clf.is_optimal_


def test_max_depth_zero_is_a_single_leaf():
    X = np.array([[0.0], [1.0], [2.0]])
    clf = fit(X, ["b", "a", "a"], max_depth=0)
    assert clf.tree_.node_count == 1
    assert clf.train_error_ == 1
    assert list(clf.predict(X)) == ["a", "a", "a"]


def test_complexity_cost_prefers_a_leaf_when_splits_are_expensive():
    X = np.arange(10, dtype=float).reshape(-1, 1)
    y = np.array([0] * 4 + [1] * 6)
    # one split removes 4 errors; it costs 0.5 * 10 = 5 > 4 -> leaf
    clf = fit(X, y, max_depth=2, complexity_cost=0.5)
    assert clf.tree_.node_count == 1
    assert clf.objective_ == pytest.approx(4.0)
    # cost 0.3 * 10 = 3 < 4 -> single split
    clf = fit(X, y, max_depth=2, complexity_cost=0.3)
    assert n_branching_nodes(clf.tree_) == 1
    assert clf.objective_ == pytest.approx(3.0)


# ---------------------------------------------------------------------------
# Beyond the tiny instances: more rows, deeper trees, extreme float values
# ---------------------------------------------------------------------------

def _assert_proven_optimum(X, y, depth, expected):
    clf = fit(X, y, max_depth=depth)
    assert clf.objective_ == expected
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert clf.is_optimal_
    check_tree_invariants(clf, X, y, max_depth=depth)


@settings(max_examples=n_examples(60), **SETTINGS)
@given(instances(min_n=13, max_n=24, max_classes=4))
def test_medium_instances_depth3(inst):
    X, y = inst
    _describe(X, y, max_depth=3)
    _assert_proven_optimum(X, y, 3, brute_force_objective(X, y, 3))


@settings(max_examples=n_examples(60), **SETTINGS)
@given(instances(min_n=25, max_n=90, max_features=4, max_classes=5))
def test_larger_instances_depth2(inst):
    X, y = inst
    _describe(X, y, max_depth=2)
    _assert_proven_optimum(X, y, 2, depth2_objective(X, y))


@settings(max_examples=n_examples(60), **SETTINGS)
@given(instances(max_n=10, max_features=2, max_classes=5), st.integers(4, 6),
       st.sampled_from([0.0, 0.05]), st.sampled_from([1, 2]))
def test_deeper_trees(inst, depth, cost, msl):
    X, y = inst
    n = len(y)
    assume(n >= msl)
    params = dict(max_depth=depth, complexity_cost=cost, min_samples_leaf=msl)
    _describe(X, y, **params)
    expected = brute_force_objective(X, y, depth, cost * n, msl)
    clf = fit(X, y, **params)
    assert clf.objective_ == pytest.approx(expected, abs=EPS)
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert clf.is_optimal_
    check_tree_invariants(clf, X, y, max_depth=depth)


_one = 1.0
_next1 = float(np.nextafter(_one, 2.0))
_next2 = float(np.nextafter(_next1, 2.0))
EXTREME_POOL = [-1.7e308, -1e308, -1.0, -0.0, 0.0, 5e-324, 1e-300, _one, _next1, _next2,
                1e308, 1.7976931348623157e308]


# scikit-learn's finiteness check sums X, which may overflow for these values
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@settings(max_examples=n_examples(120), **SETTINGS)
@given(instances(max_n=10, max_features=2, max_classes=3, pool=EXTREME_POOL),
       st.integers(0, 3))
def test_extreme_float_values(inst, depth):
    """Huge magnitudes (midpoint must not overflow to inf), adjacent doubles
    (midpoint rounds onto a data value), -0.0 == 0.0 and subnormals."""
    X, y = inst
    _describe(X, y, max_depth=depth)
    expected = brute_force_objective(X, y, depth)
    clf = fit(X, y, max_depth=depth)
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert clf.objective_ == expected
    assert np.all(np.isfinite(np.asarray(clf.tree_.threshold)[np.asarray(clf.tree_.feature) >= 0]))
    check_tree_invariants(clf, X, y, max_depth=depth)


@pytest.mark.parametrize("a, b", [
    (1e308, 1.7e308),                 # a + b overflows
    (-1.7e308, -1e308),
    (1.0, float(np.nextafter(1.0, 2.0))),  # adjacent doubles
    (0.0, 5e-324),                    # zero and the smallest subnormal
    (-5e-324, 0.0),
])
def test_two_point_split_at_float_edges(a, b):
    X = np.array([[a], [b], [a], [b]])
    y = np.array([0, 1, 0, 1])
    clf = fit(X, y, max_depth=1)
    assert clf.train_error_ == 0
    assert recompute_error(clf.tree_, X, y) == 0
    assert list(clf.predict(X)) == [0, 1, 0, 1]
    t = float(clf.tree_.threshold[0])
    assert a <= t < b


def test_midpoint_when_the_difference_overflows():
    # hi - lo overflows to inf, yet the midpoint (-3.5e307) is representable
    a, b = -1.7e308, 1e308
    clf = fit(np.array([[a], [b]]), np.array([0, 1]), max_depth=1)
    assert clf.train_error_ == 0
    assert float(clf.tree_.threshold[0]) == threshold_between(a, b)       # (0: the shortest decimal)
    assert clf.predict(np.array([[a], [b]])).tolist() == [0, 1]


def test_negative_zero_equals_zero():
    # -0.0 and 0.0 are the same value: no split can separate them
    X = np.array([[-0.0], [0.0], [-0.0], [0.0]])
    y = np.array([0, 1, 0, 1])
    clf = fit(X, y, max_depth=2)
    assert clf.train_error_ == 2
    assert recompute_error(clf.tree_, X, y) == 2


@settings(max_examples=n_examples(40), **SETTINGS)
@given(instances(min_n=25, max_n=90, max_features=4, max_classes=4),
       st.sampled_from([1e-6, 1e-4, 1e-3, 0.01]), st.sampled_from([0.0, 0.02]))
def test_time_limit_keeps_bounds_valid(inst, limit, cost):
    """Whether or not the limit bites, the bounds must bracket the optimum
    found by an unlimited run, and the reported objective must be the
    returned tree's."""
    X, y = inst
    n = len(y)
    _describe(X, y, max_depth=3, time_limit=limit, complexity_cost=cost)
    full = fit(X, y, max_depth=3, complexity_cost=cost)
    assert full.is_optimal_
    opt = full.objective_
    clf = fit(X, y, max_depth=3, time_limit=limit, complexity_cost=cost)
    assert clf.lower_bound_ <= opt + EPS
    assert clf.objective_ >= opt - EPS
    assert clf.objective_ == pytest.approx(
        recompute_objective(clf.tree_, X, y, cost * n), abs=EPS)
    if clf.is_optimal_:
        assert clf.objective_ == pytest.approx(opt, abs=EPS)
    check_tree_invariants(clf, X, y, max_depth=3)


@st.composite
def many_class_instances(draw, max_n=90):
    """More than 32 distinct classes: the engine's wide-class scans (class
    maxima and Gini sums kept per element) instead of per-threshold loops."""
    n = draw(st.integers(40, max_n))
    p = draw(st.integers(1, 3))
    hi = draw(st.sampled_from([3, 9, 40]))
    X = np.array(draw(st.lists(st.lists(st.integers(0, hi), min_size=p, max_size=p),
                               min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(draw(st.permutations(range(10, n + 10))))
    # a few big classes among many singletons, so that splits matter
    heavy = draw(st.lists(st.integers(0, n - 1), min_size=n // 5, max_size=n // 5, unique=True))
    y[heavy] = draw(st.lists(st.integers(0, 2), min_size=len(heavy), max_size=len(heavy)))
    assert len(np.unique(y)) > 32
    return X, y


@settings(max_examples=n_examples(60), **SETTINGS)
@given(many_class_instances(), st.integers(1, 2), st.sampled_from([1, 3]))
def test_many_classes_depth_one_and_two(inst, depth, msl):
    X, y = inst
    _describe(X, y, max_depth=depth, min_samples_leaf=msl)
    expected = depth1_objective(X, y, msl) if depth == 1 else depth2_objective(X, y, msl)
    clf = fit(X, y, max_depth=depth, min_samples_leaf=msl)
    assert clf.objective_ == expected
    assert clf.is_optimal_
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)


@settings(max_examples=n_examples(25), **SETTINGS)
@given(many_class_instances(max_n=44), st.sampled_from(["exhaustive", "discrepancy"]))
def test_many_classes_depth_three(inst, search):
    X, y = inst
    _describe(X, y, max_depth=3, search=search)
    expected = brute_force_objective(X, y, 3)
    clf = fit(X, y, max_depth=3, search=search)
    assert clf.objective_ == expected
    assert clf.is_optimal_


@settings(max_examples=n_examples(100), **SETTINGS)
@given(instances(max_classes=4), st.integers(2, 3), st.sampled_from([1, 2]),
       st.sampled_from([-1.0, 2.0]))
def test_both_side_selections_of_the_depth_two_scan(inst, depth, msl, switchy):
    """D2Split's scans with three classes and more pick a row's side with
    masks or with a branch, as the side's switch rate on the last such scan
    says: each loop, forced, gives the brute-force optimum (leaf sizes; two
    classes, scanned over bit maps, are in the draws too)."""
    from optimaltrees.search.engine import engine_options

    X, y = inst
    _describe(X, y, max_depth=depth, min_samples_leaf=msl, switchy=switchy)
    expected = brute_force_objective(X, y, depth, min_samples_leaf=min(msl, len(y)))
    with engine_options(scan_switch_rate=switchy):
        clf = fit(X, y, max_depth=depth, min_samples_leaf=msl)
    assert clf.objective_ == expected and clf.is_optimal_
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
