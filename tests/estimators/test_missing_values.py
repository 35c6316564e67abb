"""Missing values (NaN) in X, searched exactly: every split also
chooses the side of the missing rows, and the optimum over (feature,
threshold, side) is proven, checked against a brute force that enumerates
those splits directly."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.io import load_model, save_model

from oracle import brute_force_objective

cell = st.one_of(st.just(math.nan), st.sampled_from([0.0, 1.0, 2.0, -0.0, 1e300, -5e-324, 3.5]))
binary_cell = st.sampled_from([math.nan, 0.0, 1.0])


def _tables(values):
    return st.integers(3, 10).flatmap(lambda n: st.integers(1, 3).flatmap(lambda p: st.tuples(
        st.lists(st.lists(values, min_size=p, max_size=p), min_size=n, max_size=n),
        st.lists(st.integers(0, 2), min_size=n, max_size=n))))


def _check(X, y, depth, **params):
    clf = OptimalTreeClassifier(max_depth=depth, **params).fit(X, y)
    cost = params.get("complexity_cost", 0.0) * len(y)
    if len(y) <= 62:       # the brute force's reach; larger cases check a zero-error optimum
        expected = brute_force_objective(np.asarray(X, dtype=float), np.unique(y, return_inverse=True)[1],
                                         depth, cost, params.get("min_samples_leaf", 1))
        assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert clf.is_optimal_
    # the tree's own routing (NaN included) scores what the search reported
    assert clf.train_error_ == int(np.count_nonzero(clf.predict(X) != y))
    return clf


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables(cell), st.integers(1, 3), st.sampled_from([0.0, 0.1]), st.sampled_from([1, 2]))
def test_missing_values_give_the_brute_force_optimum(data, depth, cost, min_leaf):
    X, y = np.array(data[0], dtype=float), np.array(data[1])
    _check(X, y, depth, complexity_cost=cost, min_samples_leaf=min_leaf)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables(binary_cell), st.integers(1, 3))
def test_binary_columns_with_missing_values_are_three_valued(data, depth):
    """0/1 columns with NaN (the bitset layout's data when nothing is missing)."""
    X, y = np.array(data[0], dtype=float), np.array(data[1])
    _check(X, y, depth)


@pytest.mark.parametrize("search, n_jobs", [("exhaustive", 2), ("blossom", 1), ("discrepancy", 1), ("top-k", 1)])
def test_every_strategy_and_threads_reach_the_optimum(search, n_jobs):
    rng = np.random.default_rng(3)
    for trial in range(15):
        X = rng.integers(0, 4, size=(10, 3)).astype(float)
        X[rng.random(X.shape) < 0.3] = np.nan
        y = rng.integers(0, 2, size=10)
        _check(X, y, 2, search=search, n_jobs=n_jobs)


def test_a_split_may_separate_missing_from_present():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    missing = rng.random(300) < 0.3
    X[missing, 0] = np.nan
    y = missing.astype(int)
    clf = _check(X, y, 1)
    assert clf.train_error_ == 0
    text = clf.export_text(feature_names=["a", "b", "c"])
    assert "a is missing" in text and "a is present" in text


def test_the_printed_tree_and_the_model_file_say_where_missing_values_go(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    missing = rng.random(200) < 0.25
    X[missing, 0] = np.nan
    y[missing] = 1
    clf = _check(X, y, 1)
    assert clf.train_error_ == 0 and not clf.tree_.missing_left[0]
    assert "or missing" in clf.export_text().splitlines()[2]      # the right-hand branch
    assert "yes or missing" in clf.export_dot()
    save_model(clf, tmp_path / "m.json")
    back = load_model(tmp_path / "m.json")
    assert back.tree_ == clf.tree_ and back.tree_.missing_in_training
    new = np.array([[np.nan, 0.0], [-1.0, np.nan]])
    assert back.predict(new).tolist() == clf.predict(new).tolist() == [1, 0]


def test_a_feature_without_missing_values_sends_them_to_the_larger_child():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    y = np.array([0, 0, 0, 1, 1])
    clf = OptimalTreeClassifier(max_depth=1).fit(X, y)
    assert not clf.tree_.missing_in_training
    assert clf.predict(np.array([[np.nan]])).tolist() == [0]       # 3 rows went left, 2 right
    assert "missing" not in clf.export_text()
    clf = OptimalTreeClassifier(max_depth=1).fit(X, 1 - y)
    assert clf.predict(np.array([[np.nan]])).tolist() == [1]


def test_model_files_without_the_missing_fields_still_load(tmp_path):
    import json

    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    clf = OptimalTreeClassifier(max_depth=1).fit(X, np.array([0, 0, 1, 1, 1]))
    save_model(clf, tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    state = doc["fitted"]["tree_"]["state"]
    del state["missing_left"], state["missing_in_training"]        # as files before this change
    (tmp_path / "old.json").write_text(json.dumps(doc))
    old = load_model(tmp_path / "old.json")
    assert old.predict(np.array([[np.nan]])).tolist() == [1]       # the larger (right) child
    state["missing_left"] = {"__ndarray__": [1, 0, 0], "dtype": "int64", "shape": [3]}
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="missing_left"):
        load_model(tmp_path / "bad.json")


def test_infinity_and_missing_labels_stay_errors():
    X = np.array([[0.0], [np.inf], [1.0]])
    with pytest.raises(ValueError, match="infinity"):
        OptimalTreeClassifier().fit(X, [0, 1, 0])
    with pytest.raises(ValueError, match="NaN"):
        OptimalTreeClassifier().fit(np.array([[0.0], [1.0], [np.nan]]), np.array([0.0, np.nan, 1.0]))
    clf = OptimalTreeClassifier().fit(np.array([[0.0], [1.0], [np.nan]]), [0, 1, 1])
    with pytest.raises(ValueError, match="infinity"):
        clf.predict(np.array([[np.inf]]))


@pytest.mark.parametrize("estimator", [SATTreeClassifier(), DecisionDiagramClassifier((1, 2), time_limit=5)])
def test_the_other_estimators_refuse_missing_values_clearly(estimator):
    X = np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="NaN"):
        estimator.fit(X, [0, 1, 0])


def test_missing_values_in_a_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": [1.0, None, 3.0, 4.0, None, 0.5], "b": [0, 1, 0, 1, 1, 0]})
    y = np.array([0, 1, 0, 1, 1, 0])
    clf = _check(frame, y, 1)
    assert clf.train_error_ == 0
    assert "b" in clf.export_text(feature_names=list(frame.columns)) or "a" in clf.export_text()


def test_max_gap_and_time_limits_hold_with_missing_values():
    rng = np.random.default_rng(7)
    for trial in range(10):
        X = rng.integers(0, 4, size=(12, 3)).astype(float)
        X[rng.random(X.shape) < 0.3] = np.nan
        y = rng.integers(0, 3, size=12)
        best = brute_force_objective(X, np.unique(y, return_inverse=True)[1], 2)
        clf = OptimalTreeClassifier(max_depth=2, max_gap=0.1).fit(X, y)
        assert best - 1e-9 <= clf.objective_ <= best + 0.1 * 12 + 1e-9
        assert clf.lower_bound_ <= best + 1e-9
        timed = OptimalTreeClassifier(max_depth=2, time_limit=30).fit(X, y)     # the greedy start path
        assert timed.objective_ == pytest.approx(best)


def test_model_file_versions_and_malformed_trees():
    import json

    from optimaltrees.io import model_from_dict, model_to_dict
    from optimaltrees.model.tree import Tree

    clf = OptimalTreeClassifier(max_depth=1).fit(np.array([[0.0], [1.0], [np.nan]]), [0, 1, 1])
    doc = json.loads(json.dumps(model_to_dict(clf)))
    assert doc["version"] == 3
    doc["version"] = 1                  # files before missing values load (their trees have no NaN)
    assert model_from_dict(doc).predict(np.array([[np.nan]])).tolist() == [1]
    doc["version"] = 4
    with pytest.raises(ValueError, match="version int 4; this optimaltrees reads 1, 2 and 3"):
        model_from_dict(doc)
    # children out of range: the structure checks speak, not an IndexError
    tree = Tree([0, -1, -1], [0.5, 0, 0], [1, -1, -1], [7, -1, -1], np.ones((3, 2)), 1)
    assert not tree.missing_left.any()
