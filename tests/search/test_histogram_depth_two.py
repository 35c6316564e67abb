"""The histogram depth-two solver (features with few values) against the
brute force and against ConTree's own search on the same data: forced on,
forced off, and as the cost model picks (here on nodes of any size; by
default only nodes of 1,000 rows or more take it)."""
import math
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, note, settings, strategies as st

from helpers import depth_two_solver as solver, n_examples
from instances import SETTINGS
from oracle import brute_force_objective, leaf_sizes, recompute_objective

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data.encoding import threshold_between

EPS = 1e-9


@st.composite
def few_values(draw, max_n=60, max_features=4):
    """Rows over a few integer values per feature (binned data), labels in 1-4 classes."""
    n = draw(st.integers(2, max_n))
    p = draw(st.integers(1, max_features))
    X = np.column_stack([draw(st.lists(st.integers(0, draw(st.integers(0, 6))), min_size=n, max_size=n))
                         for _ in range(p)]).astype(np.float64)
    k = draw(st.integers(1, 4))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    return X, y


def _fit(X, y, **params):
    return OptimalTreeClassifier(**params).fit(X, y)


@settings(max_examples=n_examples(120), **SETTINGS)
@given(few_values(), st.integers(1, 3))
def test_depth_two_from_histograms_is_the_brute_force_optimum(inst, min_leaf):
    X, y = inst
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); min_leaf = {min_leaf}")
    expected = brute_force_objective(X, y, 2, min_samples_leaf=min(min_leaf, len(y)))   # the estimator clamps it
    for choice in (math.inf, 0.0):
        with solver(choice):
            clf = _fit(X, y, max_depth=2, min_samples_leaf=min_leaf)
        assert clf.objective_ == expected, choice
        assert clf.is_optimal_
        assert recompute_objective(clf.tree_, X, y) == expected
        assert min(leaf_sizes(clf.tree_, X).values()) >= min(min_leaf, len(y))


@settings(max_examples=n_examples(80), **SETTINGS)
@given(few_values(max_n=14, max_features=3), st.integers(2, 3), st.sampled_from([0.0, 0.5, 1.5]))
def test_histograms_with_complexity_costs_below_depth_three(inst, depth, per_node):
    """Depth-two subproblems of a depth-three search, with costs between
    zero and more than one error per node."""
    X, y = inst
    n = len(y)
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); depth = {depth}; per_node = {per_node}")
    expected = brute_force_objective(X, y, depth, cost_per_node=per_node)
    for choice in (math.inf, 0.0, 100.0):
        with solver(choice):
            clf = _fit(X, y, max_depth=depth, complexity_cost=per_node / n)
        assert clf.objective_ == pytest.approx(expected, abs=EPS), choice
        assert clf.objective_ == pytest.approx(recompute_objective(clf.tree_, X, y, per_node), abs=EPS)
        assert clf.is_optimal_


def test_binned_noisy_data_both_solvers_agree():
    """Nodes of thousands of rows over 32 bins: same optimum either way, and
    the trees' thresholds route the rows as the solver counted them."""
    rng = np.random.default_rng(3)
    X = np.floor(rng.uniform(0, 32, size=(4000, 5)))
    y = ((X[:, 0] + X[:, 1] > 30) ^ (rng.random(4000) < 0.15)).astype(int)
    y[X[:, 2] > 28] = 2
    fits = {}
    for choice in (math.inf, 0.0):
        with solver(choice):
            fits[choice] = _fit(X, y, max_depth=3)
    assert fits[math.inf].objective_ == fits[0.0].objective_
    for clf in fits.values():
        assert clf.is_optimal_
        assert recompute_objective(clf.tree_, X, y) == clf.objective_


@pytest.mark.parametrize("limit", [1e-9, 0.002, 0.02])
def test_a_histogram_solve_stopped_at_the_limit_keeps_a_valid_bound(limit):
    """The time limit passes inside the histogram solve of the root (checked
    before each root feature): the search says it was stopped, its bound
    stays at most the optimum and its tree scores what it says."""
    from optimaltrees.data.encoding import encode_features
    from optimaltrees.search.engine import build_engine

    rng = np.random.default_rng(5)
    X = np.floor(rng.uniform(0, 60, size=(60000, 12)))
    y = ((X[:, 0] + X[:, 1] > 60) ^ (rng.random(60000) < 0.2)).astype(np.int32)
    enc = encode_features(X)
    with solver(math.inf):
        optimum = build_engine(enc.order, enc.rank, y, 2, 2).solve()
        stopped = build_engine(enc.order, enc.rank, y, 2, 2).solve(time_limit=limit)
    assert not optimum.aborted
    assert stopped.lower_bound <= optimum.objective + EPS
    assert stopped.objective >= optimum.objective - EPS
    if stopped.aborted:
        assert stopped.lower_bound < optimum.objective     # nothing proven by a cut-short solve
    else:
        assert stopped.objective == optimum.objective


def _best_depth_one(counts: np.ndarray) -> int:
    """Fewest errors of a depth-one tree from counts[f, value, class] of one
    node (a leaf included): the oracle of the large-data test below."""
    total = counts[0].sum(axis=0)
    best = int(total.sum() - total.max())
    for f in range(counts.shape[0]):
        prefix = np.cumsum(counts[f], axis=0)[:-1]
        suffix = total - prefix
        errors = (prefix.sum(axis=1) - prefix.max(axis=1)) + (suffix.sum(axis=1) - suffix.max(axis=1))
        best = min(best, int(errors.min()))
    return best


def test_large_data_beyond_the_prefetch_threshold():
    """300,000 rows: more than the row count above which the depth-two scan
    prefetches its row flags and the histograms their rows' ranks.  Depth one
    on distinct values and depth two from histograms, both against optima
    counted with numpy."""
    rng = np.random.default_rng(3)
    n, values = 300_000, 5
    X = rng.integers(0, values, size=(n, 3)).astype(np.float64)
    y = ((X[:, 0] + X[:, 1] > 4) ^ (rng.random(n) < 0.2)).astype(np.int64)
    Xi = X.astype(np.int64)
    counts = np.zeros((3, values, 2), dtype=np.int64)
    for f in range(3):
        np.add.at(counts[f], (Xi[:, f], y), 1)
    assert _fit(X, y, max_depth=1).objective_ == _best_depth_one(counts)
    expected = None
    for f in range(3):
        for t in range(values - 1):
            side = Xi[:, f] <= t
            cost = 0
            for part in (side, ~side):
                sub = np.zeros((3, values, 2), dtype=np.int64)
                for g in range(3):
                    np.add.at(sub[g], (Xi[part, g], y[part]), 1)
                cost += _best_depth_one(sub)
            expected = cost if expected is None else min(expected, cost)
    with solver(math.inf):
        clf = _fit(X, y, max_depth=2)
    assert clf.objective_ == expected and clf.is_optimal_
    assert recompute_objective(clf.tree_, X, y) == expected
    # distinct values: the D2Split scan (flags prefetched) at depth one
    Xc = X + rng.random((n, 3)) * 1e-3
    order = np.argsort(Xc[:, 0], kind="stable")
    ones = np.cumsum(y[order])[:-1]
    left = np.arange(1, n)
    errors = np.minimum(ones, left - ones) + np.minimum(y.sum() - ones, (n - left) - (y.sum() - ones))
    clf = _fit(Xc[:, :1], y, max_depth=1)
    assert clf.objective_ == min(int(errors.min()), int(min(y.sum(), n - y.sum())))


# ------------------------------------------------ both children of a depth-three split at once

@contextmanager
def pairs(forced: bool):
    """Histograms on every depth-two node, and a depth-three split's two
    children solved together from one walk of the smaller (``forced``:
    wherever the histograms may, however small the data) or each alone."""
    from optimaltrees.search.engine import engine_options

    with engine_options(pairs="always" if forced else "never"), solver(math.inf):
        yield


def _tree_arrays(clf):
    t = clf.tree_
    return (t.feature.tolist(), t.threshold.tolist(), t.children_left.tolist(), t.value.tolist())


@settings(max_examples=n_examples(80), **SETTINGS)
@given(few_values(max_n=16, max_features=3), st.integers(3, 4), st.sampled_from([0.0, 0.5, 1.5]),
       st.integers(1, 2))
def test_sibling_pairs_give_the_brute_force_optimum_and_the_same_tree(inst, depth, per_node, min_leaf):
    """Depth-two children solved as a pair (the larger from the parent's
    snapshots less the smaller's rows) against the brute force, and the
    very tree the separate histogram solves give: each child's answer is
    the first optimum of its own scan."""
    X, y = inst
    n = len(y)
    min_leaf = min(min_leaf, n)
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); depth = {depth}; "
         f"per_node = {per_node}; min_leaf = {min_leaf}")
    expected = brute_force_objective(X, y, depth, cost_per_node=per_node, min_samples_leaf=min_leaf)
    fits = {}
    for forced in (True, False):
        with pairs(forced):
            fits[forced] = _fit(X, y, max_depth=depth, complexity_cost=per_node / n, min_samples_leaf=min_leaf)
    for clf in fits.values():
        assert clf.objective_ == pytest.approx(expected, abs=EPS)
        assert clf.objective_ == pytest.approx(recompute_objective(clf.tree_, X, y, per_node), abs=EPS)
        assert clf.is_optimal_
    assert _tree_arrays(fits[True]) == _tree_arrays(fits[False])
    # the engines' pools (every tree found, with the ranks (lo, hi) around each split)
    assert np.array_equal(*(_engine_pool(X, y, depth, per_node, min_leaf, forced) for forced in (True, False)))


def _engine_pool(X, y, depth, cost, min_leaf, forced):
    from optimaltrees.data.encoding import encode_features
    from optimaltrees.search.engine import build_engine

    enc = encode_features(X)
    with pairs(forced):
        engine = build_engine(enc.order, enc.rank, y.astype(np.int32), int(y.max()) + 1, depth,
                              cost=cost, min_leaf=min_leaf)
        engine.solve()
    return np.asarray(engine.tree_arrays())


def _noisy_bins(n, p, bins, seed, classes=2):
    rng = np.random.default_rng(seed)
    X = np.floor(rng.uniform(0, bins, size=(n, p)))
    y = ((X[:, 0] + X[:, 1] > bins) ^ (rng.random(n) < 0.15)).astype(int)
    if classes > 2:
        y[X[:, 2] > bins - 4] = 2
    return X, y


@pytest.mark.parametrize("depth, classes, min_leaf", [(3, 2, 1), (3, 3, 1), (4, 2, 1), (3, 2, 25)])
def test_sibling_pairs_on_binned_noisy_data(depth, classes, min_leaf):
    """Thousands of rows over 24 bins: the pairs run (``sibling_pairs``),
    and the tree is the one of the separate solves, proven, and scoring
    what it says."""
    X, y = _noisy_bins(3000, 4, 24, seed=depth + classes, classes=classes)
    fits = {}
    for forced in (True, False):
        with pairs(forced):
            fits[forced] = _fit(X, y, max_depth=depth, min_samples_leaf=min_leaf)
    assert fits[True].stats_["sibling_pairs"] > 10
    assert fits[False].stats_["sibling_pairs"] == 0
    assert _tree_arrays(fits[True]) == _tree_arrays(fits[False])
    for clf in fits.values():
        assert clf.is_optimal_
        assert recompute_objective(clf.tree_, X, y) == clf.objective_


def test_sibling_pairs_on_two_threads_and_by_default_on_large_data():
    """Each thread's layout keeps its own snapshots; and without forcing, a
    parent of 40,000 rows x 6 features over 16 bins builds them."""
    X, y = _noisy_bins(3000, 4, 24, seed=9)
    with pairs(True):
        one = _fit(X, y, max_depth=3)
        two = _fit(X, y, max_depth=3, n_jobs=2)
    assert two.objective_ == one.objective_ and two.is_optimal_
    assert two.stats_["sibling_pairs"] > 0
    X, y = _noisy_bins(40_000, 6, 16, seed=4)
    clf = _fit(X, y, max_depth=3)
    assert clf.stats_["sibling_pairs"] > 0 and clf.is_optimal_
    with pairs(False):
        with solver(100.0, 1000):     # the cost model's choice of solver, as in the default fit
            alone = _fit(X, y, max_depth=3)
    assert alone.stats_["sibling_pairs"] == 0
    assert _tree_arrays(alone) == _tree_arrays(clf)


@pytest.mark.parametrize("limit", [0.01, 0.05, 0.2])
def test_sibling_pairs_stopped_at_the_limit_keep_a_valid_bound(limit):
    """The time limit passes while pairs are solved (snapshots, walks): the
    bound stays at most the optimum and the tree scores what it says."""
    from optimaltrees.data.encoding import encode_features
    from optimaltrees.search.engine import build_engine

    X, y = _noisy_bins(20000, 6, 20, seed=11)
    y = y.astype(np.int32)
    enc = encode_features(X)
    with pairs(True):
        optimum = build_engine(enc.order, enc.rank, y, 2, 3).solve()
        stopped = build_engine(enc.order, enc.rank, y, 2, 3).solve(time_limit=limit)
    assert not optimum.aborted
    assert stopped.lower_bound <= optimum.objective + EPS
    assert stopped.objective >= optimum.objective - EPS


def test_sibling_pairs_on_children_with_gaps_between_their_values():
    """3,000 rows whose larger child holds feature 1's low and high bins
    and the smaller child the ones between: the engines' pools (every tree
    found, with the ranks (lo, hi) around each split) equal those of the
    separate solves, and the exported threshold lies midway in the gap.
    (The hypothesis test above compares the pools on many small gaps.)"""
    from optimaltrees.data.encoding import encode_features
    from optimaltrees.search.engine import build_engine

    rng = np.random.default_rng(2)
    n = 3000
    x0 = rng.integers(0, 24, n)
    big = x0 < 16
    x1 = np.where(big, rng.choice(np.r_[0:6, 18:24], n), rng.integers(6, 18, n))
    x2 = rng.integers(0, 24, n)
    X = np.column_stack([x0, x1, x2]).astype(np.float64)
    y = (np.where(big, x1 >= 12, x2 >= 12) ^ (rng.random(n) < 0.05)).astype(np.int32)
    enc = encode_features(X)
    pools = {}
    for forced in (True, False):
        with pairs(forced):
            engine = build_engine(enc.order, enc.rank, y, 2, 3)
            engine.solve()
            pools[forced] = np.asarray(engine.tree_arrays())
            assert (engine.stats["sibling_pairs"] > 0) == forced
    assert np.array_equal(pools[True], pools[False])
    with pairs(True):
        clf = _fit(X, y, max_depth=3)
    # the split between 5 and 18 (the big rows' gap): its shortest decimal
    assert threshold_between(5.0, 18.0) in clf.tree_.threshold[clf.tree_.feature == 1]
