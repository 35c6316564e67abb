"""OptimalTreeRegressor against the brute-force oracle (squared error with
node cost, leaf sizes, weights, ties, duplicates, constant features and
targets at any scale), scikit-learn's checks, CART, and bad input."""
from __future__ import annotations

import math
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import load_diabetes
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from instances import SETTINGS, regression_instances
from oracle import brute_force_sse, recompute_sse

from optimaltrees import OptimalTreeRegressor, RegressionTree

def _rounding(y, predicted):
    """What the naive sum of (prediction - y)^2 may be off by: each leaf mean
    is rounded to a unit of the targets' magnitude (1e15 + k has units of 0.125)."""
    unit = float(np.spacing(np.max(np.abs(y))))
    return 4.0 * len(y) * unit * (float(np.max(np.abs(predicted - y))) + unit)


def _optimum(X, y, depth, cost_share, min_leaf, w):
    sst = brute_force_sse(X, y, 0, 0.0, 1, w)
    return brute_force_sse(X, y, depth, cost_share * sst, min_leaf, w), sst


@settings(max_examples=150, **SETTINGS)
@given(regression_instances(), st.integers(0, 3), st.sampled_from([0.0, 0.0, 0.05, 0.3]),
       st.sampled_from([1, 1, 2]), st.booleans(), st.data())
def test_matches_the_brute_force_optimum(inst, depth, cost, min_leaf, weighted, data):
    X, y = inst
    n = len(y)
    w = None
    if weighted:
        w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n)))
        if not (w > 0).any():
            w[0] = 1.0
    if min_leaf > int(n if w is None else (w > 0).sum()):
        return
    want, sst = _optimum(X, y, depth, cost, min_leaf, w)
    reg = OptimalTreeRegressor(max_depth=depth, complexity_cost=cost, min_samples_leaf=min_leaf,
                               time_limit=None).fit(X, y, sample_weight=w)
    tol = 1e-9 * sst + 1e-12 * abs(want) + 1e-300
    assert reg.is_optimal_ and reg.gap_ == 0.0
    assert abs(reg.objective_ - want) <= tol
    assert reg.lower_bound_ == reg.objective_
    # the tree's own statistics are the data's: recomputed independently
    assert abs(recompute_sse(reg.tree_, X, y, w) - reg.train_error_) <= tol
    assert reg.tree_.get_depth() if hasattr(reg.tree_, "get_depth") else reg.tree_.max_depth <= depth
    if min_leaf > 1:
        kept = np.ones(n, bool) if w is None else w > 0
        leaves = reg.apply(X[kept])
        assert np.bincount(leaves).max(initial=0) == 0 or np.bincount(leaves)[np.unique(leaves)].min() >= min_leaf


@settings(max_examples=60, **SETTINGS)
@given(regression_instances(max_n=8), st.integers(1, 3), st.data())
def test_integer_weights_equal_repeated_rows(inst, depth, data):
    X, y = inst
    w = np.array(data.draw(st.lists(st.integers(1, 3), min_size=len(y), max_size=len(y))))
    weighted = OptimalTreeRegressor(max_depth=depth, time_limit=None).fit(X, y, sample_weight=w)
    repeated = OptimalTreeRegressor(max_depth=depth, time_limit=None).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    tol = 1e-9 * repeated.total_sse_ + 1e-300
    assert abs(weighted.objective_ - repeated.objective_) <= tol
    assert abs(weighted.total_sse_ - repeated.total_sse_) <= tol


def test_scaling_and_shifting_targets_keep_the_tree():
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:150], y[:150]
    base = OptimalTreeRegressor(max_depth=2, time_limit=None).fit(X, y)
    for a, b in [(1e-6, 0.0), (1e6, 3.0), (-2.0, 1e9)]:
        other = OptimalTreeRegressor(max_depth=2, time_limit=None).fit(X, a * y + b)
        assert other.is_optimal_
        assert other.train_error_ == pytest.approx(base.train_error_ * a * a, rel=1e-9)
        np.testing.assert_allclose(other.predict(X), a * base.predict(X) + b, rtol=1e-9, atol=1e-9 * abs(b))


@parametrize_with_checks([OptimalTreeRegressor(time_limit=5)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_never_worse_than_cart_and_proven_on_diabetes():
    X, y = load_diabetes(return_X_y=True)
    for depth in (1, 2, 3):
        ours = OptimalTreeRegressor(max_depth=depth, time_limit=None).fit(X, y)
        cart = DecisionTreeRegressor(max_depth=depth).fit(X, y)
        cart_sse = float(((cart.predict(X) - y) ** 2).sum())
        assert ours.is_optimal_ and ours.train_error_ <= cart_sse * (1 + 1e-12)
        assert ours.score(X, y) == pytest.approx(1 - ours.train_error_ / ours.total_sse_)


def test_complexity_cost_is_the_r2_a_split_must_buy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = 1.0 * (X[:, 0] > 0) + rng.normal(size=200)
    first = OptimalTreeRegressor(max_depth=1, time_limit=None).fit(X, y)
    r2 = 1 - first.train_error_ / first.total_sse_
    below = OptimalTreeRegressor(max_depth=1, complexity_cost=r2 * 0.99, time_limit=None).fit(X, y)
    above = OptimalTreeRegressor(max_depth=1, complexity_cost=r2 * 1.01, time_limit=None).fit(X, y)
    assert below.tree_.n_branch_nodes == 1 and above.tree_.n_branch_nodes == 0
    assert above.objective_ == pytest.approx(above.total_sse_)


def test_constant_target_is_one_proven_leaf():
    X = np.arange(12.0).reshape(6, 2)
    reg = OptimalTreeRegressor(max_depth=3).fit(X, np.full(6, 2.5))
    assert reg.is_optimal_ and reg.tree_.n_leaves == 1 and reg.train_error_ == 0.0
    assert (reg.predict(X) == 2.5).all()


def test_categories_and_text_output():
    df = pd.DataFrame({"a": np.arange(20.0), "colour": list("xyz" * 6 + "xy")})
    y = np.where(df.colour == "x", 5.0, 1.0) + 0.1 * df.a
    reg = OptimalTreeRegressor(max_depth=2, time_limit=None).fit(df, y)
    assert reg.is_optimal_
    text = reg.export_text()
    assert "colour == x" in text and "value: " in text and "squared error=" in text
    assert "class" not in text
    assert not hasattr(reg, "predict_proba")


@pytest.mark.parametrize("y, message", [
    ([1.0, np.nan, 2.0, 3.0], r"NaN or infinite, the first missing \(NaN\), at row\(s\) \[1\]"),
    ([1.0, 2.0, np.inf, 3.0], r"the first infinite, at row\(s\) \[2\]"),
    (["a", "b", "c", "d"], "needs numeric targets; for class labels use OptimalTreeClassifier"),
    ([1 + 1j, 2, 3, 4], "real targets"),
    ([1e300, -1e300, 1e300, 0.0], "overflows float64: rescale y"),
    ([1e-160, -1e-160, 0.0, 0.0], "underflows float64: rescale y"),
])
def test_bad_targets_are_refused_by_name(y, message):
    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ValueError, match=message):
        OptimalTreeRegressor().fit(X, y)


@settings(max_examples=80, **SETTINGS)
@given(regression_instances(max_n=8, max_features=2), st.integers(1, 2), st.data())
def test_missing_values_are_searched_exactly(inst, depth, data):
    # a split on a feature with NaN sends the missing rows to one side: the
    # same as placing them below or above every value, so the optimum equals
    # the brute force over both placements as two separate columns
    X, y = inst
    holes = np.array(data.draw(st.lists(st.booleans(), min_size=X.size, max_size=X.size))).reshape(X.shape)
    X = np.where(holes, np.nan, X)
    expanded = np.concatenate([np.where(np.isnan(X), -1e9, X), np.where(np.isnan(X), 1e9, X)], axis=1)
    want, sst = _optimum(expanded, y, depth, 0.0, 1, None)
    reg = OptimalTreeRegressor(max_depth=depth, time_limit=None).fit(X, y)
    assert reg.is_optimal_
    assert abs(reg.objective_ - want) <= 1e-9 * sst + 1e-12 * abs(want) + 1e-300
    # the fitted tree routes the training rows to leaves that hold them
    assert reg.train_error_ == pytest.approx(float(np.sum((reg.predict(X) - y) ** 2)), rel=1e-9,
                                             abs=1e-9 * sst + _rounding(y, reg.predict(X)))


def test_time_limit_returns_a_bounded_tree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 8))
    y = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=3000)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = OptimalTreeRegressor(max_depth=4, time_limit=1.0).fit(X, y)
    assert time.perf_counter() - start < 1.0 + 3.0
    if not reg.is_optimal_:
        assert reg.timed_out_ and any("time_limit=1 s reached" in str(w.message) for w in caught)
        assert 0 <= reg.lower_bound_ < reg.objective_ and reg.gap_ > 0
    cart = DecisionTreeRegressor(max_depth=4).fit(X, y)
    # the greedy start: never worse than a greedy tree (CART's up to ties in its choices)
    assert reg.train_error_ <= float(((cart.predict(X) - y) ** 2).sum()) * 1.05


def test_regression_tree_round_trips_and_refuses_bad_documents():
    X, y = load_diabetes(return_X_y=True)
    reg = OptimalTreeRegressor(max_depth=2, time_limit=None).fit(X[:100], y[:100])
    doc = reg.tree_.to_dict()
    again = RegressionTree.from_dict(doc)
    assert again == reg.tree_
    np.testing.assert_array_equal(again.predict(X), reg.predict(X))
    for key, bad in [("value", [[math.inf]] * len(doc["value"])), ("node_sse", [-1.0] * len(doc["node_sse"])),
                     ("node_samples", [1.5] * len(doc["node_samples"]))]:
        with pytest.raises(ValueError, match=key):
            RegressionTree.from_dict(dict(doc, **{key: bad}))
    with pytest.raises(ValueError, match="not an optimaltrees.RegressionTree"):
        RegressionTree.from_dict(dict(doc, format="optimaltrees.Tree"))


@pytest.mark.parametrize("scale", [1e-300, 1e-3, 1e250])
def test_weights_of_any_scale(scale):
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:120], y[:120]
    w = np.arange(120) % 4 + 0.5
    base = OptimalTreeRegressor(max_depth=2, time_limit=None).fit(X, y, sample_weight=w)
    scaled = OptimalTreeRegressor(max_depth=2, time_limit=None).fit(X, y, sample_weight=w * scale)
    assert scaled.is_optimal_
    assert scaled.train_error_ == pytest.approx(base.train_error_ * scale, rel=1e-9)
    np.testing.assert_allclose(scaled.predict(X), base.predict(X), rtol=1e-12)


def test_a_classifier_names_the_regressor_for_numeric_targets():
    from optimaltrees import OptimalTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    ages = rng.integers(18, 90, size=300)          # 72 distinct integers: a quantity
    with pytest.warns(UserWarning, match="distinct numeric values .* use OptimalTreeRegressor"):
        OptimalTreeClassifier(max_depth=1).fit(X, ages)
    with pytest.raises(ValueError, match="continuous.*OptimalTreeRegressor"):
        OptimalTreeClassifier(max_depth=1).fit(X, ages + 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OptimalTreeClassifier(max_depth=1).fit(X, ages % 10)          # ten classes: no warning
        OptimalTreeClassifier(max_depth=1).fit(X, np.array([f"c{a}" for a in ages]))   # names, not numbers


def _wavy(n=400, seed=2):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 2)
    y = np.sin(2 * X[:, 0]) + X[:, 1] * (X[:, 2] > 0) + 0.3 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("search", ["blossom", "top-k", "discrepancy"])
def test_anytime_strategies_reach_the_exhaustive_optimum(search):
    X, y = _wavy()
    exact = OptimalTreeRegressor(max_depth=3, time_limit=None).fit(X, y)
    anytime = OptimalTreeRegressor(max_depth=3, search=search, time_limit=None).fit(X, y)
    assert exact.is_optimal_ and anytime.is_optimal_
    assert anytime.train_error_ == pytest.approx(exact.train_error_, rel=1e-9)
    # the trace never rises, its bound never falls, and it ends at the optimum
    objectives = [p.objective for p in anytime.trace_]
    bounds = [p.lower_bound for p in anytime.trace_]
    assert objectives == sorted(objectives, reverse=True) and bounds == sorted(bounds)
    assert objectives[-1] == pytest.approx(anytime.objective_, rel=1e-9)


def test_threads_give_the_same_optimum():
    X, y = _wavy()
    one = OptimalTreeRegressor(max_depth=3, time_limit=None).fit(X, y)
    two = OptimalTreeRegressor(max_depth=3, time_limit=None, n_jobs=2).fit(X, y)
    assert two.is_optimal_ and two.stats_["threads"] == 2
    assert two.train_error_ == pytest.approx(one.train_error_, rel=1e-9)


def test_callback_sees_squared_units_and_can_stop(capsys):
    X, y = _wavy()
    seen = []
    OptimalTreeRegressor(max_depth=3, time_limit=None, callback=seen.append).fit(X, y)
    assert seen and all(p.lower_bound <= p.objective * (1 + 1e-12) for p in seen)
    sst = float(np.sum((y - y.mean()) ** 2))
    assert seen[0].objective <= sst * (1 + 1e-9)        # the user's units, not the engine's
    stopped = OptimalTreeRegressor(max_depth=3, time_limit=None, callback=lambda p: False).fit(X, y)
    assert stopped.stopped_ and not stopped.is_optimal_ and stopped.summary_.stopped
    OptimalTreeRegressor(max_depth=2, time_limit=None, verbose=True).fit(X, y)
    assert "gap" in capsys.readouterr().err


def test_max_bins_is_optimal_over_the_binned_thresholds():
    X, y = _wavy(n=2000)
    binned = OptimalTreeRegressor(max_depth=2, max_bins=8, time_limit=None).fit(X, y)
    full = OptimalTreeRegressor(max_depth=2, time_limit=None).fit(X, y)
    assert binned.is_optimal_ and "quantile bins" in binned.summary_.objective_name
    assert full.train_error_ <= binned.train_error_ * (1 + 1e-12)
    # every threshold of the binned tree lies between two of the 8 bins' edges
    assert len(np.unique(binned.tree_.threshold[binned.tree_.feature >= 0])) <= 3


@settings(max_examples=60, **SETTINGS)
@given(regression_instances(max_n=8, max_features=2), st.integers(1, 2), st.data())
def test_categories_are_searched_exactly(inst, depth, data):
    # a category test "colour == v" is a 0/1 column: the optimum equals the
    # brute force over the numeric columns and one indicator per category
    X, y = inst
    n = len(y)
    colour = np.array(data.draw(st.lists(st.sampled_from(["red", "green", "blue"]), min_size=n, max_size=n)))
    frame = pd.DataFrame({"x0": X[:, 0], "colour": pd.Categorical(colour)})
    indicators = np.stack([(colour == v).astype(float) for v in ("red", "green", "blue")], axis=1)
    want, sst = _optimum(np.column_stack([X[:, :1], indicators]), y, depth, 0.0, 1, None)
    reg = OptimalTreeRegressor(max_depth=depth, time_limit=None).fit(frame, y)
    assert reg.is_optimal_
    assert abs(reg.objective_ - want) <= 1e-9 * sst + 1e-12 * abs(want) + 1e-300
    assert reg.train_error_ == pytest.approx(float(np.sum((reg.predict(frame) - y) ** 2)), rel=1e-9,
                                             abs=1e-9 * sst + _rounding(y, reg.predict(frame)))
