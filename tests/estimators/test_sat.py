"""SATTreeClassifier against the independent brute-force oracle, and its edges.

Numeric columns become midpoint tests, which is exactly the oracle's split
space, so the oracle's optima are the SAT optima: the minimum depth is the
smallest depth with 0 errors, the minimum size at that depth follows from a
node cost small enough never to trade an error for a node, and the fewest
errors at a depth is the oracle's objective itself.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, note, settings, strategies as st

from conftest import dataset_path
from helpers import n_examples
from oracle import brute_force_objective
from instances import SETTINGS, instances

from optimaltrees import OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.data.binarize import Binarizer
from optimaltrees.search.sat import ConflictingExamplesError, SATResult, available_solvers
from optimaltrees.search.sat.worker import run_limited



def oracle_min_depth(X, y) -> int:
    for d in range(0, X.shape[0] + 1):
        if brute_force_objective(X, y, d) == 0:
            return d
    return math.inf


def oracle_min_leaves(X, y, depth) -> int:
    """Fewest leaves of a zero-error tree of depth <= depth: with a node cost
    eps < 1 / 2^depth one error outweighs every node, so the optimum is
    eps * (fewest branching nodes)."""
    eps = 1.0 / (1 << (depth + 1))
    obj = brute_force_objective(X, y, depth, cost_per_node=eps)
    assert obj < 1, "a zero-error tree must exist at this depth"
    return int(round(obj / eps)) + 1


def has_conflicts(X, y) -> bool:
    seen = {}
    for row, label in zip(map(tuple, X), y):
        if seen.setdefault(row, label) != label:
            return True
    return False


def assert_fits(clf, X, y):
    assert clf.train_error_ == 0
    assert np.array_equal(clf.predict(X), y)


@settings(max_examples=n_examples(150), **SETTINGS)
@given(data=instances(max_n=10, max_features=3, max_classes=4), objective=st.sampled_from(["depth", "size"]),
       cardinality=st.sampled_from(["counter", "totalizer"]), per_round=st.sampled_from([1, 1, 3]),
       depth_search=st.sampled_from(["auto", "sat", "sat", "dp"]),
       repair=st.sampled_from(["auto", None, (1,), (2, 1)]),
       size_search=st.sampled_from(["descending", "binary"]))
def test_min_depth_and_size_match_brute_force(data, objective, cardinality, per_round, depth_search, repair,
                                              size_search):
    # "auto" frees half the depth, then 0.8 of it (depth 3: 1 then 2 levels)
    X, y = data
    clf = SATTreeClassifier(objective, categorical="none", cardinality=cardinality,
                            examples_per_round=per_round, depth_search=depth_search, repair=repair,
                            size_search=size_search)
    if has_conflicts(X, y):
        with pytest.raises(ConflictingExamplesError) as info:
            clf.fit(X, y)
        a, b = info.value.pairs[0]
        assert np.array_equal(X[a], X[b]) and y[a] != y[b]
        return
    clf.fit(X, y)
    depth = oracle_min_depth(X, y)
    note(f"oracle depth {depth}, got {clf.depth_}, nodes {clf.n_nodes_}")
    assert_fits(clf, X, y)
    assert clf.is_optimal_
    assert clf.min_depth_ == depth
    assert clf.depth_ == depth
    assert clf.n_nodes_ == 2 * clf.get_n_leaves() - 1
    if objective == "size":
        assert clf.get_n_leaves() == oracle_min_leaves(X, y, depth)
    else:
        assert clf.get_n_leaves() >= oracle_min_leaves(X, y, depth)


def test_auto_repair_frees_a_share_of_the_depth():
    from optimaltrees.search.sat.inference import auto_repair, repair_levels

    assert auto_repair(1) == ()                       # nothing to hold above one level
    assert auto_repair(2) == (1,)
    assert auto_repair(3) == (1, 2)
    assert auto_repair(5) == (2, 4)
    assert auto_repair(8) == (4, 6)                   # car: the levels tuned there
    assert repair_levels("auto", 9) == (4, 7)
    assert repair_levels((2, 5), 9) == (2, 5)         # explicit levels are kept


@settings(max_examples=n_examples(80), **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(12, 40), features=st.integers(3, 7),
       classes=st.integers(2, 3), cardinality=st.sampled_from(["counter", "totalizer"]),
       repair=st.sampled_from(["auto", None, (1,), (2, 1)]),
       size_search=st.sampled_from(["descending", "binary"]))
def test_sat_size_on_deeper_trees_matches_the_dp_route(seed, rows, features, classes, cardinality, repair,
                                                       size_search):
    """Deeper, non-perfect smallest trees than the brute force can reach
    (depth 3-6, leaves above the bottom level): here the leaf bound's
    symmetry breaking (empty sides) decides UNSAT calls.  The oracle is the
    DP route, itself checked against brute force above."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(rows, features))
    y = rng.integers(0, classes, size=rows)
    keep = {}
    for row, label in zip(map(tuple, X), y):
        keep.setdefault(row, label)
    y = np.array([keep[tuple(row)] for row in X])            # consistent labels
    assume(np.unique(y).size > 1)
    sat = SATTreeClassifier("size", categorical="none", depth_search="sat", cardinality=cardinality,
                            repair=repair, size_search=size_search, time_limit=None).fit(X, y)
    dp = SATTreeClassifier("size", categorical="none", depth_search="auto", time_limit=None).fit(X, y)
    note(f"depth {dp.depth_}, leaves dp {dp.get_n_leaves()} sat {sat.get_n_leaves()}")
    assert_fits(sat, X, y)
    assert sat.is_optimal_ and dp.is_optimal_
    assert sat.depth_ == dp.depth_
    assert sat.get_n_leaves() == dp.get_n_leaves()


@settings(max_examples=n_examples(100), **SETTINGS)
@given(data=instances(max_n=10, max_features=3, max_classes=4), objective=st.sampled_from(["depth", "size"]),
       min_chain=st.sampled_from([2, 3, 10**9]), repair=st.sampled_from(["auto", None]))
def test_threshold_chains_keep_the_brute_force_optimum(data, objective, min_chain, repair):
    """Pure SAT with a numeric column's thresholds as one ordered chain (order
    variables, two routing clauses per node) instead of independent tests:
    the same minimum depth and size.  Short chains are forced on here (the
    default keeps chains of 4 or more)."""
    import optimaltrees.search.sat.problem as problem_module

    X, y = data
    assume(not has_conflicts(X, y))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(problem_module, "MIN_CHAIN", min_chain)
        clf = SATTreeClassifier(objective, categorical="none", depth_search="sat", repair=repair,
                                time_limit=None).fit(X, y)
    depth = oracle_min_depth(X, y)
    note(f"chained {clf.stats_['boolean_features_chained']} of {clf.stats_['boolean_features_kept']}")
    assert_fits(clf, X, y)
    assert clf.is_optimal_ and clf.depth_ == depth
    if min_chain > 10:
        assert clf.stats_["boolean_features_chained"] == 0
    leaves = oracle_min_leaves(X, y, depth)
    assert clf.get_n_leaves() == leaves if objective == "size" else clf.get_n_leaves() >= leaves


@settings(max_examples=n_examples(60), **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(12, 40), features=st.integers(1, 4),
       values=st.integers(5, 30), classes=st.integers(2, 4), objective=st.sampled_from(["depth", "size"]))
def test_long_threshold_chains_match_the_dp_route(seed, rows, features, values, classes, objective):
    """Numeric columns with many values: chains of 4+ thresholds are on by
    default, so the formula the solver sees is the chained one; its minimum
    depth and size must be the DP route's (itself brute-force checked)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(rows, features)).astype(float)
    X[rng.random(X.shape) < 0.1] += 0.5                       # some values between the integers
    y = rng.integers(0, classes, size=rows)
    keep = {}
    for row, label in zip(map(tuple, X), y):
        keep.setdefault(row, label)
    y = np.array([keep[tuple(row)] for row in X])
    assume(np.unique(y).size > 1)
    sat = SATTreeClassifier(objective, categorical="none", depth_search="sat", time_limit=None).fit(X, y)
    dp = SATTreeClassifier(objective, categorical="none", depth_search="auto", time_limit=None).fit(X, y)
    note(f"chained {sat.stats_['boolean_features_chained']} of {sat.stats_['boolean_features_kept']}")
    assume(sat.stats_["boolean_features_chained"] > 0)
    assert_fits(sat, X, y)
    assert sat.is_optimal_ and sat.depth_ == dp.depth_
    if objective == "size":
        assert sat.get_n_leaves() == dp.get_n_leaves()


@settings(max_examples=n_examples(25), **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 2))
def test_maxsat_on_threshold_chains_proves_the_dp_optimum(seed, depth):
    """MaxSAT's formula uses the same chains (every row encoded at once)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 12, size=(30, 2)).astype(float)
    y = rng.integers(0, 2, size=30)
    sat = SATTreeClassifier("errors", max_depth=depth, errors_search="maxsat", time_limit=None).fit(X, y)
    dp = SATTreeClassifier("errors", max_depth=depth, time_limit=None).fit(X, y)
    assert sat.stats_["boolean_features_chained"] > 0
    assert sat.is_optimal_ and dp.is_optimal_
    assert sat.train_error_ == dp.train_error_ == brute_force_objective(X, y, depth)
    assert int((sat.predict(X) != y).sum()) == sat.train_error_


def test_nested_chains_keep_only_groups_the_rows_confirm():
    from optimaltrees.search.sat.problem import nested_chains

    x = np.array([0, 1, 2, 3, 4, 5])
    B = np.stack([x > t for t in (2, 0, 4, 1, 3)] + [x % 2 == 0], axis=1).astype(np.uint8)
    # columns 0-4 are thresholds of x (given out of order); 5 is not nested with them
    chains = nested_chains(B, [np.array([0, 1, 2, 3, 4])], min_length=4)
    assert [c.tolist() for c in chains] == [[1, 3, 0, 4, 2], [5]]      # true-sets shrink along it
    ones = B[:, chains[0]]
    assert (ones[:, :-1] >= ones[:, 1:]).all()
    # a group that does not nest, or is too short, stays single tests
    assert [c.tolist() for c in nested_chains(B, [np.array([0, 1, 5])], min_length=2)] == \
        [[0], [1], [5], [2], [3], [4]]
    assert [c.tolist() for c in nested_chains(B, [np.array([0, 1, 2])], min_length=4)] == \
        [[0], [1], [2], [3], [4], [5]]
    # every column appears exactly once, also when groups overlap
    chains = nested_chains(B, [np.array([0, 1, 2, 3]), np.array([3, 4])], min_length=2)
    assert sorted(int(f) for c in chains for f in c) == list(range(6))


def test_real_thresholds_are_chained_and_the_formula_shrinks():
    """iris's 4 numeric columns: every kept test is in a chain, and the
    formula is a fraction of the one with single tests (same tree sizes)."""
    import optimaltrees.search.sat.problem as problem_module
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X, idx = np.unique(X, axis=0, return_index=True)
    y = y[idx]
    chained = SATTreeClassifier("size", depth_search="sat", time_limit=None).fit(X, y)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(problem_module, "MIN_CHAIN", 10**9)
        single = SATTreeClassifier("size", depth_search="sat", time_limit=None).fit(X, y)
    assert chained.stats_["boolean_features_chained"] == chained.stats_["boolean_features_kept"]
    assert single.stats_["boolean_features_chained"] == 0
    assert (chained.depth_, chained.n_nodes_) == (single.depth_, single.n_nodes_)
    assert chained.is_optimal_ and single.is_optimal_
    per_example = [s.stats_["clauses"] / s.stats_["examples_encoded"] for s in (chained, single)]
    assert per_example[0] < 0.5 * per_example[1]


@pytest.mark.parametrize("per_chain", [0, 10**9])      # always the ordinal columns, always the 0/1 tests
@settings(max_examples=n_examples(60), **SETTINGS)
@given(data=instances(max_n=10, max_features=3, max_classes=4), objective=st.sampled_from(["depth", "size"]))
def test_the_dp_route_is_exact_on_either_layout(per_chain, data, objective):
    """The DP route reads the tests as ordinal chains or as 0/1 columns,
    whichever is faster: both must give the brute-force optimum."""
    import optimaltrees.search.sat.exact as exact

    X, y = data
    assume(not has_conflicts(X, y))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exact, "BINARY_TESTS_PER_CHAIN", per_chain)
        clf = SATTreeClassifier(objective, categorical="none", time_limit=None).fit(X, y)
        errors = SATTreeClassifier("errors", max_depth=2, categorical="none", time_limit=None).fit(X, y)
    depth = oracle_min_depth(X, y)
    assert_fits(clf, X, y)
    assert clf.stats_["search"] == "dp" and clf.is_optimal_ and clf.depth_ == depth
    leaves = oracle_min_leaves(X, y, depth)
    assert clf.get_n_leaves() == leaves if objective == "size" else clf.get_n_leaves() >= leaves
    assert errors.train_error_ == brute_force_objective(X, y, 2)


@pytest.mark.parametrize("errors_search", ["dp", "maxsat"])
@settings(max_examples=n_examples(100), **SETTINGS)
@given(data=instances(max_n=10, max_features=3, max_classes=4), depth=st.integers(0, 3))
def test_min_errors_matches_brute_force_and_the_dp_engine(errors_search, data, depth):
    X, y = data
    clf = SATTreeClassifier("errors", max_depth=depth, categorical="none",
                            errors_search=errors_search).fit(X, y)
    expected = brute_force_objective(X, y, depth)
    assert clf.train_error_ == expected
    assert clf.is_optimal_ and clf.depth_ <= depth
    assert int((clf.predict(X) != y).sum()) == expected
    # the DP engine on the same Boolean tests agrees
    B = clf.binarizer_.transform(X)
    if B.shape[1]:                                   # (no test at all: one leaf, checked above)
        dp = OptimalTreeClassifier(max_depth=depth).fit(B, y)
        assert dp.train_error_ == clf.train_error_


@settings(max_examples=n_examples(60), **SETTINGS)
@given(data=instances(max_n=10, max_features=3, max_classes=3, pool=[0.0, 1.0]),
       seed=st.integers(0, 3))
def test_example_order_does_not_change_the_optimum(data, seed):
    X, y = data
    if has_conflicts(X, y):
        return
    a = SATTreeClassifier("size", categorical="all").fit(X, y)
    b = SATTreeClassifier("size", categorical="all", random_state=seed, examples_per_round=2,
                          cardinality="totalizer").fit(X, y)
    assert (a.depth_, a.n_nodes_) == (b.depth_, b.n_nodes_)
    assert_fits(b, X, y)


@settings(max_examples=n_examples(60), **SETTINGS)
@given(data=instances(max_n=12, max_features=3, max_classes=3), seed=st.integers(0, 2**32 - 1),
       objective=st.sampled_from(["depth", "size"]), depth_search=st.sampled_from(["sat", "auto"]))
def test_shuffled_rows_give_the_same_tree(data, seed, objective, depth_search):
    # the SAT loop tries distinct rows in their canonical order, whatever the
    # order of the training rows: the same formula, hence the same tree
    X, y = data
    if has_conflicts(X, y):
        return
    perm = np.random.default_rng(seed).permutation(len(y))
    a = SATTreeClassifier(objective, categorical="none", depth_search=depth_search).fit(X, y)
    b = SATTreeClassifier(objective, categorical="none", depth_search=depth_search).fit(X[perm], y[perm])
    assert (a.depth_, a.n_nodes_, a.min_depth_) == (b.depth_, b.n_nodes_, b.min_depth_)
    assert a.stats_["examples_encoded"] == b.stats_["examples_encoded"]
    assert a.export_text() == b.export_text()
    assert_fits(b, X[perm], y[perm])


class _StopNow(Exception):
    pass


@settings(max_examples=n_examples(60), **SETTINGS)
@given(data=instances(max_n=10, max_features=3, max_classes=3), objective=st.sampled_from(["depth", "size"]),
       depth_search=st.sampled_from(["auto", "sat", "dp"]), stop_after=st.integers(0, 12))
def test_a_search_stopped_at_any_point_answers_with_valid_bounds(data, objective, depth_search,
                                                                  stop_after):
    # the time limit strikes after the worker's ``stop_after``-th report (the
    # greedy trees come first): whatever is known then is returned, and the
    # brute force confirms the tree and both lower bounds
    import optimaltrees.estimators.sat as sat_module

    X, y = data
    if has_conflicts(X, y):
        return

    reports = []

    def stopped(fn, kwargs, remaining, on_report):
        def report(value):
            if len(reports) >= stop_after:
                raise _StopNow
            reports.append(value)
            on_report(value)

        try:
            return fn(report, **kwargs), False, None
        except _StopNow:
            return None, True, None

    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        mp.setattr(sat_module, "run_limited", stopped)
        warnings.simplefilter("ignore", UserWarning)
        clf = SATTreeClassifier(objective, categorical="none", depth_search=depth_search,
                                time_limit=60).fit(X, y)
    depth = oracle_min_depth(X, y)
    for r in reports:                   # every bound the search reported holds
        if isinstance(r, SATResult):
            assert r.depth_lower_bound <= depth
            if r.depth_optimal:
                assert r.tree.depth == depth and r.leaves_lower_bound <= oracle_min_leaves(X, y, depth)
    assert clf.train_error_ == int((clf.predict(X) != y).sum())
    assert clf.depth_lower_bound_ <= depth
    if clf.train_error_ == 0:
        assert clf.depth_lower_bound_ <= clf.depth_
    if clf.is_optimal_:
        assert clf.train_error_ == 0 and clf.depth_ == depth
    if objective == "size":
        assert clf.size_lower_bound_ <= 2 * oracle_min_leaves(X, y, depth) - 1
        # a tree of depth d has d + 1 leaves at least: the depth bound lifts the size bound
        assert clf.size_lower_bound_ >= 2 * (clf.depth_lower_bound_ + 1) - 1
        if clf.is_optimal_:
            assert clf.n_nodes_ == 2 * oracle_min_leaves(X, y, depth) - 1
    if not clf.timed_out_:
        assert clf.is_optimal_


def test_a_size_fit_stopped_after_the_depth_proof_bounds_the_size_by_the_depth(monkeypatch):
    # parity of three bits: depth 3, two classes.  Stopped once the depth is
    # proven and before the leaf bound is refuted, the size bound is the
    # depth's (4 leaves: 7 nodes), not the classes' (2 leaves: 3 nodes)
    import optimaltrees.estimators.sat as sat_module

    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], dtype=float)
    y = X.sum(axis=1).astype(int) % 2

    def stopped(fn, kwargs, remaining, on_report):
        def report(value):
            on_report(value)
            if isinstance(value, SATResult) and value.depth_optimal:
                raise _StopNow

        try:
            return fn(report, **kwargs), False, None
        except _StopNow:
            return None, True, None

    monkeypatch.setattr(sat_module, "run_limited", stopped)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = SATTreeClassifier("size", depth_search="sat", time_limit=60).fit(X, y)
    assert clf.timed_out_ and clf.depth_lower_bound_ == 3 and clf.min_depth_ == 3
    assert clf.size_lower_bound_ == 7 <= 2 * oracle_min_leaves(X, y, 3) - 1


def load_categorical(name):
    df = pd.read_csv(dataset_path("categorical", f"{name}.csv"), encoding="utf-8-sig")
    if name == "zoo":
        df = df.drop(columns=["animal_name"])
    return df.iloc[:, :-1], df.iloc[:, -1]


@pytest.fixture(scope="module")
def mouse():
    return load_categorical("mouse")


def test_mouse_matches_the_paper(mouse):
    X, y = mouse
    depth = SATTreeClassifier("depth", categorical="all", depth_search="sat").fit(X, y)
    assert depth.min_depth_ == 4 and depth.is_optimal_ and depth.stats_["search"] == "sat"
    assert depth.stats_["perfect_nodes"] == 31
    assert depth.stats_["examples_encoded"] < len(y)          # only a subset is encoded
    size = SATTreeClassifier("size", categorical="all", depth_search="sat").fit(X, y)
    assert size.depth_ == 4 and size.n_nodes_ == 15 and size.is_optimal_
    hybrid = SATTreeClassifier("size", categorical="all", depth_search="dp").fit(X, y)
    assert (hybrid.depth_, hybrid.n_nodes_, hybrid.min_depth_) == (4, 15, 4)
    assert hybrid.stats_["search"] == "dp+sat"
    default = SATTreeClassifier("size", categorical="all").fit(X, y)      # the DP engine alone
    assert (default.depth_, default.n_nodes_, default.min_depth_) == (4, 15, 4)
    assert default.is_optimal_ and default.size_lower_bound_ == 15
    assert default.stats_["search"] == "dp" and default.stats_["sat_calls"] == 0
    assert_fits(default, X, y.to_numpy())
    assert_fits(size, X, y.to_numpy())
    text = size.export_text()
    assert "A ==" in text or "B ==" in text


def test_dp_engine_agrees_on_the_smallest_perfect_depth(mouse):
    X, y = mouse
    sat = SATTreeClassifier("depth", categorical="all", depth_search="sat").fit(X, y)
    B = sat.binarizer_.transform(X)
    assert OptimalTreeClassifier(max_depth=3).fit(B, y).train_error_ > 0
    assert OptimalTreeClassifier(max_depth=4).fit(B, y).train_error_ == 0


def test_stats_are_reported(mouse):
    X, y = mouse
    clf = SATTreeClassifier("size", categorical="all", depth_search="sat").fit(X, y)
    for key in ["depth", "nodes", "examples_encoded", "sat_calls", "variables", "clauses", "seconds"]:
        assert key in clf.stats_
    assert clf.stats_["sat_calls"] >= clf.stats_["examples_encoded"]
    assert clf.stats_["variables"] > 0 and clf.stats_["clauses"] > 0


@pytest.mark.parametrize("name", ["mouse", "monk1"])
def test_neighbourhood_repair_keeps_the_optimum(name):
    X, y = load_categorical(name)
    plain = SATTreeClassifier("size", repair=None, depth_search="sat").fit(X, y)
    assert plain.stats_["repaired"] == 0
    assert plain.stats_["sat_calls"] == plain.stats_["rounds"]
    for repair in [(2,), (1, 3), (9, 2)]:           # (9, 2): a level past the depth is skipped
        clf = SATTreeClassifier("size", repair=repair, depth_search="sat").fit(X, y)
        assert (clf.min_depth_, clf.n_nodes_) == (plain.min_depth_, plain.n_nodes_)
        assert clf.is_optimal_
        assert_fits(clf, X, y.to_numpy())
        assert 0 < clf.stats_["repaired"] < clf.stats_["rounds"] <= clf.stats_["sat_calls"]


def test_strings_and_mixed_columns_print_in_original_names():
    X = pd.DataFrame({"color": ["red", "blue", "green", "red", "blue", "green", "red", "blue"],
                      "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                      "flag": [0, 1, 0, 1, 0, 1, 0, 1]})
    y = np.array(["a", "a", "b", "b", "a", "b", "b", "a"])
    clf = SATTreeClassifier("size").fit(X, y)
    assert_fits(clf, X, y)
    text = clf.export_text()
    assert any(name in text for name in ["color ==", "size <=", "flag <="])
    assert "x[" not in text
    # unseen categories go down the "!=" side instead of failing
    Z = X.copy()
    Z.loc[0, "color"] = "purple"
    assert clf.predict(Z).shape == (8,)
    assert clf.predict_proba(X).shape == (8, 2)


def test_binarizer_tests():
    X = np.array([[1.0, 0.0], [3.0, 1.0], [2.0, 0.0], [3.0, 1.0]])
    b = Binarizer().fit(X)
    assert [(t.column, t.kind, t.value) for t in b.tests_] == [
        (0, "threshold", 1.5), (0, "threshold", 2.5), (1, "threshold", 0.5)]
    assert b.transform(X).tolist() == [[0, 0, 0], [1, 1, 1], [1, 0, 0], [1, 1, 1]]
    assert b.test_labels()[0] == ("x[0] <= 1.5", "x[0] > 1.5")
    c = Binarizer(categorical=[0]).fit(X)
    assert [t.value for t in c.tests_[:3]] == [1.0, 2.0, 3.0]
    assert c.test_labels()[1] == ("x[0] != 2.0", "x[0] == 2.0")
    with pytest.raises(ValueError, match="out of range"):
        Binarizer(categorical=[5]).fit(X)
    with pytest.raises(ValueError, match="not a column"):
        Binarizer(categorical=["nope"]).fit(pd.DataFrame(X, columns=["a", "b"]))


def test_conflicting_rows_are_named():
    X = np.array([[0, 1], [1, 1], [0, 1], [1, 0]])
    y = np.array([0, 1, 1, 0])
    with pytest.raises(ValueError, match="rows 0 and 2"):
        SATTreeClassifier().fit(X, y)
    clf = SATTreeClassifier("errors", max_depth=2).fit(X, y)
    assert clf.train_error_ == 1


def test_depth_cap_that_cannot_fit_is_a_clear_error():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])                           # xor needs depth 2
    with pytest.raises(ValueError, match="no tree of depth <= max_depth=1"):
        SATTreeClassifier(max_depth=1).fit(X, y)
    assert SATTreeClassifier(max_depth=2).fit(X, y).depth_ == 2


def test_single_class_is_a_leaf():
    X = np.array([[0.0, 1.0], [1.0, 2.0]])
    clf = SATTreeClassifier("size").fit(X, np.array([3, 3]))
    assert clf.depth_ == 0 and clf.n_nodes_ == 1 and clf.is_optimal_
    assert clf.predict(X).tolist() == [3, 3]


@pytest.mark.parametrize("solver", ["glucose3", "glucose4", "minisat22", "cadical153", "cadical195",
                                    "lingeling"])
def test_other_solvers_find_the_same_optimum(mouse, solver):
    assert solver in available_solvers()
    X, y = mouse
    clf = SATTreeClassifier("size", categorical="all", solver=solver, depth_search="sat").fit(X, y)
    assert (clf.depth_, clf.n_nodes_) == (4, 15)
    assert clf.stats_["search"] == "sat" and clf.stats_["sat_calls"] > 0


@pytest.mark.parametrize("objective", ["depth", "size"])
@pytest.mark.parametrize("solver, glucose", [("glucose3", True), ("glucose4", True), ("glucose42", True),
                                             ("minisat22", False), ("cadical195", False)])
def test_glucose_runs_in_its_incremental_mode_for_dt_size(monkeypatch, mouse, objective, solver, glucose):
    """DT-size fits switch Glucose's solvers to their incremental mode (the
    python-sat call that sets it is made for each depth's solver); DT-depth
    fits and the other solvers, which refuse it, are left as they are."""
    import pysolvers

    switched = []
    for name in ("glucose3_setincr", "glucose41_setincr", "glucose421_setincr"):
        real = getattr(pysolvers, name)
        monkeypatch.setattr(pysolvers, name, lambda handle, real=real: switched.append(real(handle)))
    X, y = mouse
    clf = SATTreeClassifier(objective, categorical="all", solver=solver, depth_search="sat",
                            time_limit=None).fit(X, y)
    assert (clf.depth_, clf.n_nodes_) == ((4, 15) if objective == "size" else (4, clf.n_nodes_))
    depths = len(clf.stats_["depths_tried"])
    assert len(switched) == (depths if glucose and objective == "size" else 0) and depths >= 2


@pytest.mark.parametrize("solver", ["glucose3", "glucose4", "minisat22", "cadical195", "lingeling"])
def test_clauses_reach_the_solver_and_a_conflict_is_kept(solver):
    """The direct (compiled) clause adder, or python-sat's own where there is
    none, adds every clause; a clause set that is unsatisfiable at level 0
    leaves the solver unsatisfiable, as python-sat's add_clause would."""
    from pysat.solvers import Solver

    from optimaltrees.search.sat.encoding import clause_adder

    with Solver(name=solver) as s:
        add = clause_adder(s)
        add([[1, 2], [-1, 3], [-3]])
        assert s.solve() and s.get_model()[:3] == [-1, 2, -3]
        add([[-2]])
        assert not s.solve()
        assert not s.solve(assumptions=[1])


@pytest.mark.parametrize("solver", ["glucose4", "minisat22", "cadical195", "lingeling"])
def test_decode_reads_the_tree_from_any_model_layout(solver):
    """decode reads the tree's variables from the head of python-sat's model
    (variable v at index v - 1); a model in another layout (here reversed,
    or only the true literals) is read whole and gives the same tree."""
    from optimaltrees.search.sat.encoding import TreeEncoding

    rng = np.random.default_rng(3)
    B = rng.integers(0, 2, size=(12, 5)).astype(np.uint8)
    y = (B[:, 0] ^ B[:, 2]).astype(np.int64)
    enc = TreeEncoding(B, y, 2, 2, solver=solver)
    try:
        enc.add_examples(range(12))
        assert enc.solve()
        nodes, leaves = enc.decode()
        model = enc.solver.get_model()
        assert len(model) > int(enc.C[-1, -1])          # examples' variables follow the tree's
        for other in (model[::-1], [v for v in model if v > 0]):
            enc.solver.get_model = lambda other=other: other
            got_nodes, got_leaves = enc.decode()
            assert np.array_equal(got_nodes, nodes) and np.array_equal(got_leaves, leaves)
        predicted = leaves[(B[np.arange(12), nodes[2 + B[:, nodes[1]]]] + 2 * B[:, nodes[1]])]
        assert np.array_equal(predicted, y)
    finally:
        enc.delete()


@pytest.mark.parametrize("params, error, match", [
    (dict(objective="tiny"), ValueError, r"'objective' parameter of SATTreeClassifier must be a str among .* Got 'tiny'"),
    (dict(solver="nosuchsolver"), ValueError, "unknown SAT solver"),
    (dict(max_depth=-1), ValueError, r"'max_depth' parameter .* int in the range \[0, 20\] or None\. Got -1"),
    (dict(max_depth=2.5), TypeError, r"'max_depth' parameter .* Got 2\.5"),
    (dict(max_depth=99), ValueError, r"'max_depth' parameter .* Got 99"),
    (dict(max_depth=True), ValueError, r"'max_depth' parameter .* Got True"),
    (dict(objective="errors"), ValueError, "needs max_depth"),
    (dict(time_limit=0), ValueError, r"'time_limit' parameter .* range \(0\.0, inf\) or None\. Got 0"),
    (dict(cardinality="bdd"), ValueError, r"'cardinality' parameter .* Got 'bdd'"),
    (dict(size_search="linear"), ValueError, r"'size_search' parameter .* Got 'linear'"),
    (dict(examples_per_round=0), ValueError, r"'examples_per_round' parameter .* range \[1, inf\)\. Got 0"),
    (dict(categorical="some"), ValueError, r"'categorical' parameter .* Got 'some'"),
    (dict(depth_search="bfs"), ValueError, r"'depth_search' parameter .* Got 'bfs'"),
    (dict(repair="always"), ValueError, r"'repair' parameter .* Got 'always'"),
    (dict(repair=3), ValueError, r"'repair' parameter .* Got 3"),
    (dict(repair=(2, 0)), ValueError, "repair level must be >= 1"),
    (dict(repair=(1.5,)), TypeError, "repair level must be an integer"),
])
def test_bad_parameters(params, error, match):
    with pytest.raises(error, match=match):
        SATTreeClassifier(**params).fit(np.array([[0.0], [1.0]]), np.array([0, 1]))


def test_bad_data():
    clf = SATTreeClassifier()
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(np.array([[0.0], [np.nan]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="missing"):
        clf.fit(pd.DataFrame({"c": ["a", None]}), np.array([0, 1]))
    with pytest.raises(ValueError, match="0 sample"):
        clf.fit(np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="2D"):
        clf.fit(np.array([0.0, 1.0]), np.array([0, 1]))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        clf.fit(np.array([[0.0], [1.0]]), np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="continuous"):
        clf.fit(np.array([[0.0], [1.0]]), np.array([0.5, 1.5]))
    clf.fit(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="3 features, but SATTreeClassifier is expecting 2 features"):
        clf.predict(np.zeros((1, 3)))
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        SATTreeClassifier().predict(np.zeros((1, 2)))


# -- the anytime answer at the time limit --------------------------------------------
@pytest.mark.parametrize("objective", ["depth", "size"])
def test_time_limit_returns_a_perfect_greedy_tree_not_proven(objective):
    # car: depth 3 and 4 take the SAT search well over a second
    X, y = load_categorical("car")
    with pytest.warns(UserWarning, match=r"time_limit=1 s reached: returning a greedy tree"):
        clf = SATTreeClassifier(objective, categorical="all", time_limit=1,
                                depth_search="sat").fit(X, y)
    assert clf.timed_out_ and not clf.interrupted_ and not clf.is_optimal_
    assert clf.tree_source_ == "greedy" and clf.min_depth_ is None
    assert_fits(clf, X, y.to_numpy())
    assert 2 <= clf.depth_lower_bound_ < clf.depth_ <= 20        # depth 1 refuted at once
    assert clf.stats_["greedy_depth"] == clf.depth_ and clf.stats_["greedy_errors"] == 0
    if objective == "size":
        # every consistent tree is that deep at least, so has one leaf more
        assert clf.size_lower_bound_ == 2 * (clf.depth_lower_bound_ + 1) - 1 < clf.n_nodes_
    else:
        assert clf.size_lower_bound_ is None


def test_a_fit_that_finishes_in_time_is_proven(mouse):
    X, y = mouse
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        depth = SATTreeClassifier("depth", categorical="all", time_limit=60).fit(X, y)
        size = SATTreeClassifier("size", categorical="all", time_limit=60).fit(X, y)
    for clf in (depth, size):
        assert clf.is_optimal_ and not clf.timed_out_ and clf.tree_source_ == "search"
        assert clf.min_depth_ == clf.depth_lower_bound_ == clf.depth_ == 4
        assert_fits(clf, X, y.to_numpy())
        assert clf.stats_["greedy_errors"] == 0 and clf.stats_["greedy_depth"] >= 4
    assert size.n_nodes_ == size.size_lower_bound_ == 15 and depth.size_lower_bound_ is None
    no_limit = SATTreeClassifier("depth", categorical="all", time_limit=None).fit(X, y)
    assert no_limit.stats_["greedy_depth"] is None                 # the paper's method alone


def _depth_then_wait(report=None, **kwargs):
    """DT-size that proves the minimum depth, reports it, then never finishes."""
    import time
    from optimaltrees.search.sat.inference import infer
    report(infer(**{**kwargs, "objective": "depth"}))
    time.sleep(60)


def test_time_limit_keeps_the_search_tree_of_minimum_depth(mouse, monkeypatch):
    import optimaltrees.estimators.sat as sat_module
    X, y = mouse
    monkeypatch.setattr(sat_module, "infer", _depth_then_wait)     # the worker is forked
    with pytest.warns(UserWarning, match="returning the best tree the search found"):
        clf = SATTreeClassifier("size", categorical="all", time_limit=3).fit(X, y)
    assert clf.timed_out_ and clf.tree_source_ == "search"
    assert clf.min_depth_ == clf.depth_ == clf.depth_lower_bound_ == 4
    assert not clf.is_optimal_                       # the size is not proven
    assert clf.size_lower_bound_ == 9 and 15 <= clf.n_nodes_      # depth 4: 5 leaves at least
    assert_fits(clf, X, y.to_numpy())


def test_errors_time_limit_returns_the_greedy_tree_with_its_errors():
    X, y = load_categorical("car")
    with pytest.warns(UserWarning, match="time_limit=1 s reached"):
        clf = SATTreeClassifier("errors", max_depth=4, categorical="all", time_limit=1,
                                errors_search="maxsat").fit(X, y)
    assert clf.timed_out_ and clf.tree_source_ == "greedy" and not clf.is_optimal_
    assert clf.depth_ <= 4 and clf.train_error_ > 0
    assert clf.train_error_ == int((clf.predict(X) != y.to_numpy()).sum())
    assert clf.depth_lower_bound_ is None and clf.min_depth_ is None


@settings(max_examples=n_examples(100), **SETTINGS)
@given(data=instances(max_n=12, max_features=3, max_classes=3), cap=st.integers(0, 4))
def test_greedy_tree_counts_its_errors_and_fits_consistent_data(data, cap):
    from optimaltrees.search.sat import prepare
    from optimaltrees.search.sat.decode import nested_to_tree
    from optimaltrees.search.sat.greedy import CRITERIA, greedy_tree

    X, y = data
    B = Binarizer("none").fit_transform(X)
    classes, y_index = np.unique(y, return_inverse=True)
    problem = prepare(B, y_index, len(classes), allow_conflicts=True)
    for criterion in CRITERIA:
        for depth in (cap, 20):
            g = greedy_tree(problem, depth, criterion=criterion)
            tree = nested_to_tree(g.root, problem.columns, B, y_index, len(classes), B.shape[1])
            assert tree.training_errors() == g.errors and tree.max_depth <= min(g.depth, depth)
            if depth == 20 and not has_conflicts(X, y):
                assert g.errors == 0                   # splits until every node is pure
                assert g.depth >= oracle_min_depth(X, y)


def _slow(report=None, value=7):
    import time
    report("first")
    report("second")
    time.sleep(30)
    return value


def _fails(report=None):
    raise KeyError("inside the worker")


def test_worker_keeps_the_last_report_at_the_limit_and_reraises_errors():
    value, timed_out, last = run_limited(_slow, {}, 0.5)
    assert value is None and timed_out and last == "second"
    with pytest.raises(KeyError, match="inside the worker"):
        run_limited(_fails, {}, 5.0)
    assert run_limited(lambda report=None: 3, {}, None) == (3, False, None)


@pytest.mark.parametrize("name, depth", [("mouse", 2), ("mouse", 3), ("zoo", 2), ("monk1", 2),
                                         pytest.param("monk1", 3, marks=pytest.mark.slow)])
def test_maxsat_errors_equal_the_dp_optimum_on_real_data(name, depth):
    # errors_search="dp" (the default) and "maxsat" prove the same optimum,
    # and so does OptimalTreeClassifier on the same 0/1 tests (MaxSAT: 14 s on
    # monk1 at depth 3, over 60 s on car at depth 2; the DP route 0.1 s)
    X, y = load_categorical(name)
    sat = SATTreeClassifier("errors", max_depth=depth, categorical="all",
                            errors_search="maxsat").fit(X, y)
    fast = SATTreeClassifier("errors", max_depth=depth, categorical="all").fit(X, y)
    B = sat.binarizer_.transform(X).astype(float)
    dp = OptimalTreeClassifier(max_depth=depth).fit(B, y)
    assert sat.train_error_ == fast.train_error_ == dp.train_error_ and dp.is_optimal_
    assert sat.is_optimal_ and fast.is_optimal_ and fast.depth_ <= depth
    assert (sat.stats_["search"], fast.stats_["search"]) == ("maxsat", "dp")
    for clf in (sat, fast):
        assert int((clf.predict(X) != y.to_numpy()).sum()) == clf.train_error_


def test_is_a_scikit_learn_estimator(mouse):
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score

    X, y = mouse
    est = clone(SATTreeClassifier("depth", categorical="all", solver="glucose4"))
    assert est.get_params()["solver"] == "glucose4"
    scores = cross_val_score(est, X, y, cv=3)
    # each score is a fold's held-out accuracy of a fresh fit on the rest
    from sklearn.model_selection import StratifiedKFold
    for score, (train, test) in zip(scores, StratifiedKFold(3).split(X, y)):
        fold = clone(est).fit(X.iloc[train], y.iloc[train])
        assert score == pytest.approx(np.mean(fold.predict(X.iloc[test]) == y.iloc[test].to_numpy()))
    assert est.fit(X, y).score(X, y) == 1.0


def test_bundled_mouse_and_renamed_export():
    from optimaltrees.data import load_mouse

    X, y, names = load_mouse()
    assert X.shape == (70, 5) and names == ["A", "B", "C", "D", "E"]
    clf = SATTreeClassifier("size", categorical="all").fit(X, y)
    assert (clf.depth_, clf.n_nodes_) == (4, 15)
    text = clf.export_text(feature_names=names)
    assert "x[" not in text and " == " in text and " != " in text
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        clf.export_text(feature_names=["a", "b"])
    dp = OptimalTreeClassifier(max_depth=1).fit(X.astype(float), y)
    assert dp.export_text(feature_names=names).startswith("|--- ")


def test_a_model_that_breaks_its_own_formula_is_an_error_not_a_hang(monkeypatch):
    """The loop adds misclassified examples; one already in the formula would
    come back forever (an encoding bug): it must raise instead."""
    from optimaltrees.search.sat.encoding import TreeEncoding

    real = TreeEncoding.decode

    def wrong_labels(self):
        node_feature, leaf_class = real(self)
        return node_feature, np.where(leaf_class >= 0, (leaf_class + 1) % self.c, leaf_class)

    monkeypatch.setattr(TreeEncoding, "decode", wrong_labels)
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2, dtype=float)
    y = np.array([0, 1, 1, 0] * 2)
    with pytest.raises(RuntimeError, match="misclassifies an example of its own formula"):
        SATTreeClassifier("depth", depth_search="sat", time_limit=None).fit(X, y)
